/* SPDX-License-Identifier: MIT */
/* The Landlock rules of a run, derived from the mount plan it carries out, so that Landlock and
 * the mounts cannot drift apart. Pure; computed in the parent. */
#pragma once

#include <stddef.h>

struct cr_mount_plan;
struct cr_landlock_plan;

/* Rules on sandbox paths, as the child sees them after pivot_root: the root's directories can be
 * listed; read-only binds get read and execute; the workspace, --rw paths, /tmp, /dev/shm and
 * the private home get full read-write; the device nodes and /dev/pts read, write and ioctl;
 * /proc read and write; hidden files read. 0 or -ENOMEM. */
int cr_landlock_rules_sandbox(const struct cr_mount_plan *mounts, struct cr_landlock_plan *plan);

/* Rules on host paths, for degraded mode (no mount namespace): the same binds at their host
 * paths, @tmp_dir and @home_dir (private, made by corral) in place of /tmp and the private home,
 * the host's device nodes, /proc read-only; nothing for /dev/shm, /dev/pts and the root.
 * Landlock only adds access, so a path the plan makes read-only or hides inside a tree it shows
 * cannot be enforced: -EINVAL with a reason in @msg. 0, -EINVAL or -ENOMEM. */
int cr_landlock_rules_host(const struct cr_mount_plan *mounts, const char *tmp_dir,
			   const char *home_dir, struct cr_landlock_plan *plan, char *msg,
			   size_t msg_size);
