/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp.h"

bool cr_seccomp_available(void)
{
	/* With a NULL filter the kernel checks the mode before the pointer: EFAULT means filter
	 * mode exists, EINVAL that it does not. Nothing is installed either way. */
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, NULL) < 0 && errno == EFAULT;
}
