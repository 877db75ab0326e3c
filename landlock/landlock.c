/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)

int cr_landlock_abi(void)
{
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? 0 : (int)abi;
}
