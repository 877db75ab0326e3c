/* SPDX-License-Identifier: MIT */
/* The three Landlock system calls, raw. The only file that makes them (landlock-sys.c), so the
 * unit tests can link a fake instead (tests/fakes/fake-landlock-sys.c). Each returns what the
 * system call returns on success (a descriptor, an ABI version, 0) or -errno; errno itself is
 * left as the call left it. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "landlock-uapi.h"

/* All three, on any kernel: -ENOSYS when it has no Landlock system calls (before Linux 5.13, or
 * built without CONFIG_SECURITY_LANDLOCK), -EOPNOTSUPP when Landlock is built but not enabled
 * (not in lsm= at boot). A call that fails without setting errno gives -EIO. */

/* landlock_create_ruleset(2). With @flags LANDLOCK_CREATE_RULESET_VERSION, @attr NULL and @size
 * 0: returns the highest ABI version the kernel supports (1, 2, ...). With @flags 0: returns a
 * new ruleset descriptor (close-on-exec) that handles what @attr lists; @size is how much of
 * @attr this kernel's ABI reads (landlock_attr_size()). Errors: -EINVAL (unknown flags, an
 * access or scope bit the kernel does not know, or @size too small), -E2BIG (@size larger than
 * the kernel's structure with non-zero bytes beyond it), -ENOMSG (@attr handles nothing),
 * -EFAULT, -EMFILE, -ENFILE, -ENOMEM. */
int sys_landlock_create_ruleset(const struct cr_ll_ruleset_attr *attr, size_t size, uint32_t flags);
/* landlock_add_rule(2): add to the ruleset @ruleset_fd a rule of @rule_type
 * (CR_LL_RULE_PATH_BENEATH with a struct cr_ll_path_beneath_attr, CR_LL_RULE_NET_PORT with a
 * struct cr_ll_net_port_attr); @flags must be 0. Does not take ownership of the attribute's
 * parent_fd. Returns 0. Errors: -EINVAL (flags not 0; rights the ruleset does not handle;
 * rights beyond those of a file on a parent_fd that is not a directory; a port above 65535),
 * -ENOMSG (no right at all), -EAFNOSUPPORT (a port rule on a kernel without TCP), -EBADF (not a
 * descriptor), -EBADFD (not a ruleset, or a parent_fd that is not usable), -EPERM (the ruleset
 * descriptor is not open for writing), -EFAULT, -ENOMEM. */
int sys_landlock_add_rule(int ruleset_fd, int rule_type, const void *rule_attr, uint32_t flags);
/* landlock_restrict_self(2): enforce the ruleset @ruleset_fd on the calling thread, stacked on
 * whatever domain it already has; @flags are LANDLOCK_RESTRICT_SELF_LOG_* (ABI 7) or 0. The
 * descriptor stays open, the caller's to close. Returns 0. Errors: -EINVAL (unknown flags),
 * -EBADF (not a descriptor), -EBADFD (not a ruleset), -EPERM (neither no_new_privs nor
 * CAP_SYS_ADMIN in the thread's user namespace, or a descriptor not open for reading), -E2BIG
 * (the thread has 16 stacked domains already), -ENOMEM. */
int sys_landlock_restrict_self(int ruleset_fd, uint32_t flags);
