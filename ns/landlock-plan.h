/* SPDX-License-Identifier: MIT */
/* The Linux driver's use of landlock/: the run's Landlock plan, computed once in the parent. */
#pragma once

#include <stddef.h>

struct cr_policy;
struct cr_mount_plan;
struct cr_landlock_plan;

/* The plan for a sandbox: the rights of this kernel's ABI (probed once), the rules from the mount
 * plan @mounts, and one warning line on stderr for what is dropped (or for a missing Landlock,
 * in best-effort mode), another for --tcp-* options made unnecessary by --net=none. -EOPNOTSUPP
 * with a reason in @msg when the policy requires what the kernel lacks; 0 or -errno. */
int cr_ns_landlock_prepare(const struct cr_policy *p, const struct cr_mount_plan *mounts,
			   struct cr_landlock_plan *ret, char *msg, size_t msg_size);

/* The warning line for what @plan dropped; nothing when nothing was. */
void cr_ns_landlock_warn(const struct cr_landlock_plan *plan);
