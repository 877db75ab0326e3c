/* SPDX-License-Identifier: MIT */
/* The sandbox's uid and gid mapping: one id each, or an explicit policy's whole maps. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "mount-plan.h"

struct cr_idmap {
	uint32_t inside_uid, outside_uid;
	uint32_t inside_gid, outside_gid;
	const char *uid_text, *gid_text; /* whole maps to write instead (cr_explicit's), or NULL */
};

/* Choose the mapping. A normal user is mapped to itself (or to 0 inside with @map_root). Root is
 * never mapped to itself: the sandbox runs as @root_uid/@root_gid on the host, so a write that gets
 * past the mounts still meets the permissions of an unprivileged user. Pure; never fails. */
void cr_idmap_compute(uint32_t uid, uint32_t gid, bool map_root, uint32_t root_uid,
		      uint32_t root_gid, struct cr_idmap *ret);

/* The mapping of an explicit policy: @ex's ids to the caller's (@uid, @gid), or @ex's whole
 * maps when the door gave ranges (cr_explicit.uid_map). Pure; never fails. */
void cr_idmap_explicit(const struct cr_explicit *ex, uint32_t uid, uint32_t gid,
		       struct cr_idmap *ret);

/* Format one map line "INSIDE OUTSIDE 1\n" into @buf. Returns its length. */
int cr_idmap_format(uint32_t inside, uint32_t outside, char *buf, size_t size);

/* Write setgroups=deny, uid_map and gid_map of process @pid. 0 or -errno; on failure
 * @ret_file names the file that was refused. */
int cr_idmap_write(pid_t pid, const struct cr_idmap *map, const char **ret_file);

/* The distinct owners one run idmaps at most, and the helper processes that made their user
 * namespaces, killed but not yet reaped. */
#define CR_IDMAP_MAX_OWNERS 16
struct cr_idmap_helpers {
	pid_t pids[CR_IDMAP_MAX_OWNERS];
	size_t n;
};

/* A user namespace whose uid and gid maps are those of @map (inside -> outside), as a descriptor
 * for MOUNT_ATTR_IDMAP. Made by a child of the caller (which needs CAP_SETUID and CAP_SETGID:
 * root) on the stack @slot (below CR_IDMAP_MAX_OWNERS: one per user namespace of a run), killed
 * once the descriptor is open: *ret_pid, set whenever the child was made, is for
 * cr_idmap_reap(), off the run's start. 0 or -errno. */
int cr_idmap_userns_fd(const struct cr_idmap *map, unsigned slot, int *ret_fd, pid_t *ret_pid);
/* Wait for the helpers of @h (killed already) and forget them. */
void cr_idmap_reap(struct cr_idmap_helpers *h);

/* A detached copy of the tree at @src_fd (with its submounts), idmapped through the user
 * namespace @userns_fd, nosuid and nodev, ready for move_mount(). Needs CAP_SYS_ADMIN over the
 * file system. -EINVAL: a file system of the tree cannot be idmapped. 0 or -errno. */
int cr_idmap_mount_tree(int src_fd, int userns_fd, int *ret_tree);

/* Root's run: each writable bind of @plan whose source another host user owns (root, for root's
 * own checkout) becomes an idmapped tree, made here in the parent, in which that owner's uid and
 * gid are the sandbox's (@sandbox's outside ids): the sandbox writes there as the owner, and
 * what it creates belongs on the host to the owner. Files of any other owner there are unmapped
 * (the overflow id inside, never writable as their owner). *ret_n: how many. 0, or -errno with a
 * reason in @msg (-EINVAL: a file system that cannot be idmapped, with the fix). The processes
 * that made the user namespaces are added to @helpers, to be reaped with cr_idmap_reap(). Of an
 * explicit plan (an OCI container's with the user namespace corral added, cr_explicit.idmap_root)
 * only the bind at / is idmapped, read-only or not: its owner's files are the sandbox's. */
int cr_idmap_plan(struct cr_mount_plan *plan, const struct cr_idmap *sandbox,
		  struct cr_idmap_helpers *helpers, size_t *ret_n, char *msg, size_t size);
