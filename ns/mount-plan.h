/* SPDX-License-Identifier: MIT */
/* The mount plan: the ordered list of mounts that makes the sandbox's root, computed in the
 * parent from the policy (pure, unit-tested) and carried out in the child by ns/mounts.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

enum cr_mount_kind {
	CR_MOUNT_BIND,	  /* host src at dst, recursively; read-only unless CR_MNT_WRITABLE */
	CR_MOUNT_TMPFS,	  /* an empty tmpfs at dst with @mode */
	CR_MOUNT_PROC,	  /* a fresh procfs for the sandbox's pid namespace */
	CR_MOUNT_DEVPTS,  /* a private devpts instance */
	CR_MOUNT_DEVICE,  /* a host device node src bound at dst (not nodev, obviously) */
	CR_MOUNT_SYMLINK, /* a symlink at dst pointing to src */
	CR_MOUNT_NULL,	  /* /dev/null bound over a file, to hide it */
	CR_MOUNT_RDONLY,  /* make dst, already in the new root, read-only (e.g. /proc/sys) */
	_CR_MOUNT_KIND_MAX,
};

enum cr_mount_flags {
	CR_MNT_WRITABLE = 1 << 0, /* binds: writable; tmpfs: stays writable after setup */
	CR_MNT_OPTIONAL = 1 << 1, /* skip silently if the source (or, for RDONLY, dst) is missing */
	CR_MNT_FILE = 1 << 2,	  /* the mount point is a file, not a directory */
	CR_MNT_PIN = 1 << 3,	  /* a writable bind of a directory onto itself, inside another
				   * writable bind: it holds the directory in place (a mount point
				   * cannot be renamed or removed), for corral's own files (anchor.h) */
};

struct cr_mount_op {
	enum cr_mount_kind kind;
	unsigned flags;
	unsigned mode; /* tmpfs: permission bits */
	char *src;     /* host path (BIND, DEVICE) or link target (SYMLINK) */
	char *dst;     /* path inside the sandbox */
	int src_fd;    /* child only: O_PATH descriptor of src, opened before the root changes */
};

struct cr_mount_plan {
	struct cr_mount_op *ops;
	size_t n_ops;
};

/* What the plan needs to know of the host, as callbacks so tests can describe any host. */
struct cr_host_view {
	/* 0 and the target if @path is a symlink; -EINVAL if it is not; -errno otherwise. */
	int (*readlink)(const char *path, char **ret_target);
	bool (*exists)(const char *path);
	bool (*is_dir)(const char *path);
};

/* The running host. */
extern const struct cr_host_view cr_host_view_real;
/* The host directories every sandbox shows read-only, NULL-terminated. */
extern const char *const cr_mount_plan_system_dirs[];

/* Build the plan for @policy: system directories read-only (a system directory that is a symlink
 * on the host, as /bin is on merged-/usr systems, becomes the same symlink), a fresh /proc with its
 * kernel knobs read-only, a minimal /dev, a private /tmp and $HOME, then the workspace and the
 * user's paths parent-first. 0 or -ENOMEM. */
int cr_mount_plan_build(const struct cr_policy *policy, const struct cr_host_view *host,
			struct cr_mount_plan *ret_plan);
void cr_mount_plan_done(struct cr_mount_plan *plan);

const char *cr_mount_kind_to_string(enum cr_mount_kind kind);
