/* SPDX-License-Identifier: MIT */
/* Nothing but the raw system calls: the unit tests replace this whole file with a fake, which a
 * static archive allows only if this object defines no other symbol they need. */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock-sys.h"

static int ret(long r)
{
	return r < 0 ? (errno > 0 ? -errno : -EIO) : (int)r;
}

int sys_landlock_create_ruleset(const struct cr_ll_ruleset_attr *attr, size_t size, uint32_t flags)
{
	return ret(syscall(__NR_landlock_create_ruleset, attr, size, flags));
}

int sys_landlock_add_rule(int ruleset_fd, int rule_type, const void *rule_attr, uint32_t flags)
{
	return ret(syscall(__NR_landlock_add_rule, ruleset_fd, rule_type, rule_attr, flags));
}

int sys_landlock_restrict_self(int ruleset_fd, uint32_t flags)
{
	return ret(syscall(__NR_landlock_restrict_self, ruleset_fd, flags));
}
