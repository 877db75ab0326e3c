/* SPDX-License-Identifier: MIT */
/* The mount plan: the ordered list of mounts that makes the sandbox's root, computed in the
 * parent from the policy (pure, unit-tested) and carried out in the child by ns/mounts.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "launcher/policy/policy.h"

enum cr_mount_kind {
	CR_MOUNT_BIND,	  /* host src at dst, recursively; read-only unless CR_MNT_WRITABLE */
	CR_MOUNT_TMPFS,	  /* an empty tmpfs at dst with @mode */
	CR_MOUNT_PROC,	  /* a fresh procfs for the sandbox's pid namespace */
	CR_MOUNT_DEVPTS,  /* a private devpts instance */
	CR_MOUNT_DEVICE,  /* a host device node src bound at dst (not nodev, obviously) */
	CR_MOUNT_SYMLINK, /* a symlink at dst pointing to src */
	CR_MOUNT_NULL,	  /* /dev/null bound over a file, to hide it */
	CR_MOUNT_RDONLY,  /* make dst, already in the new root, read-only (e.g. /proc/sys) */
	CR_MOUNT_TEXT,	  /* a read-only file holding the text src, made by corral, bound over dst */
	/* An explicit filesystem's (cr_policy.fs_ops, ns/mounts-explicit.c): */
	CR_MOUNT_DIR,	     /* a directory at dst with @mode, unless one is there */
	CR_MOUNT_CHMOD,	     /* dst's mode becomes @mode */
	CR_MOUNT_REMOUNT_RO, /* the mount at dst and those under it become read-only */
	CR_MOUNT_MQUEUE,     /* an mqueue file system at dst */
	CR_MOUNT_DATA,	     /* a file holding @size bytes of src, at dst (CR_MNT_COPY) or bound */
	CR_MOUNT_OVERLAY,    /* overlayfs at dst from the @size OVERLAY_SRC ops after it: lower
			      * layers in the caller's order, then (CR_MNT_WRITABLE without
			      * CR_MNT_COPY) upper and work; CR_MNT_COPY: upper on a private tmpfs */
	CR_MOUNT_OVERLAY_SRC, /* a directory of the overlay before it: src, opened early */
	CR_MOUNT_PROPAGATION, /* the mount at dst gets propagation @mode (CR_FS_PROPAGATION) */
	CR_MOUNT_NODE,	      /* a node made at dst (CR_FS_NODE): @mode, dev_t @size, owner_uid and
			       * owner_gid; CR_MNT_DEVICES: bound over itself without nodev */
	CR_MOUNT_SYSFS,	      /* a sysfs at dst, read-only, nosuid, nodev, noexec */
	_CR_MOUNT_KIND_MAX,
};

enum cr_mount_flags {
	CR_MNT_WRITABLE = 1 << 0, /* binds: writable; tmpfs: stays writable after setup */
	CR_MNT_OPTIONAL = 1 << 1, /* skip silently if the source (or, for RDONLY, dst) is missing */
	CR_MNT_FILE = 1 << 2,	  /* the mount point is a file, not a directory */
	CR_MNT_PIN = 1 << 3,	  /* a writable bind of a directory onto itself, inside another
				   * writable bind: it holds the directory in place (a mount point
				   * cannot be renamed or removed), for corral's own files (anchor.h) */
	CR_MNT_SECRET = 1 << 4,	  /* the secrets' tmpfs (CR_SECRETS_DIR) and each --secret-file: a
				   * TEXT op's src is then a value, wiped when the plan is freed */
	CR_MNT_IDMAPPED = 1 << 5, /* a writable bind root made in the parent: src_fd is a detached,
				   * idmapped, nosuid and nodev tree to attach as it is (ns/idmap.h) */
	CR_MNT_DEVICES = 1 << 6,  /* explicit binds: device nodes under it keep working */
	CR_MNT_EXPLICIT = 1 << 7, /* from cr_policy.fs_ops: sources and destinations follow
				   * symlinks (destinations inside the new root), mount points are
				   * made as the caller's command line says (ns/mounts-explicit.c) */
	CR_MNT_COPY = 1 << 8,	  /* DATA: written at dst, not bound over it */
	CR_MNT_SIZED = 1 << 9,	  /* tmpfs: its size is the caller's (0: the kernel's default) */
	CR_MNT_RECLONE = 1 << 10, /* explicit binds: the tree opened early is cloned again as it is
				   * attached, so that the mount table lists it in the plan's order
				   * (cr_explicit.binds_in_order) */
};

struct cr_mount_op {
	enum cr_mount_kind kind;
	unsigned flags;
	unsigned mode; /* tmpfs, text: permission bits */
	char *src;     /* host path (BIND, DEVICE), link target (SYMLINK) or contents (TEXT) */
	char *dst;     /* path inside the sandbox */
	int src_fd;    /* child: O_PATH descriptor of src, opened before the root changes; with
			* CR_MNT_IDMAPPED the parent's idmapped tree */
	uint64_t size; /* writable tmpfs: size= and nr_inodes= (cr_mount_plan_size_tmpfs()); */
	uint64_t nr_inodes; /* 0: the kernel's default (half the RAM), for what is sealed read-only */
	uint32_t owner_uid, owner_gid; /* CR_MNT_IDMAPPED: src's host owner, the sandbox there */
};

/* What bounds the writable tmpfs mounts of a run (cr_mount_plan_size_tmpfs()). */
enum cr_tmpfs_basis {
	CR_TMPFS_RAM,	 /* no memory limit: a quarter of the RAM, shared */
	CR_TMPFS_CGROUP, /* a memory cgroup is charged for their pages: each within the limit */
	CR_TMPFS_SHARED, /* a memory limit no cgroup holds: the limit, shared */
	_CR_TMPFS_BASIS_MAX,
};

struct cr_mount_plan {
	struct cr_mount_op *ops;
	size_t n_ops;
};

/* The files that name the machine, each covered by one random id per sandbox when the host has it
 * as a file and the sandbox shows it (/var only with a --ro or --rw path). */
#define CR_MACHINE_ID_SIZE 34
extern const char *const cr_mount_plan_machine_id_files[];

/* What the plan needs to know of the host, as callbacks so tests can describe any host. */
struct cr_host_view {
	/* 0 and the target if @path is a symlink; -EINVAL if it is not; -errno otherwise. */
	int (*readlink)(const char *path, char **ret_target);
	bool (*exists)(const char *path);
	bool (*is_dir)(const char *path);
	/* A fresh random machine id: 32 lowercase hex digits, a newline and a NUL. 0 or -errno. */
	int (*machine_id)(char ret[CR_MACHINE_ID_SIZE]);
};

/* The running host. */
extern const struct cr_host_view cr_host_view_real;
/* The host directories every sandbox shows read-only, NULL-terminated. */
extern const char *const cr_mount_plan_system_dirs[];

/* Build the plan for @policy: system directories read-only (a system directory that is a symlink
 * on the host, as /bin is on merged-/usr systems, becomes the same symlink), a fresh /proc with its
 * kernel knobs read-only, a minimal /dev, a private /tmp and $HOME, then the workspace and the
 * user's paths parent-first, then a random machine id over the host's, then the --secret-file
 * values on a private tmpfs (CR_SECRETS_DIR). 0 or -errno. */
/* Append one operation to @plan, copying @src and @dst. 0 or -ENOMEM. */
int cr_mount_plan_add(struct cr_mount_plan *plan, enum cr_mount_kind kind, unsigned flags,
		      unsigned mode, const char *src, const char *dst);
/* The plan of an explicit policy (cr_policy.ex.on): its fs_ops in order, each --dev expanded,
 * then (ex.harden_proc) /proc's kernel knobs read-only wherever a /proc shows. 0 or -errno. */
int cr_mount_plan_explicit(const struct cr_policy *policy, const struct cr_host_view *host,
			   struct cr_mount_plan *plan);

int cr_mount_plan_build(const struct cr_policy *policy, const struct cr_host_view *host,
			struct cr_mount_plan *ret_plan);
void cr_mount_plan_done(struct cr_mount_plan *plan);

/* Size the writable tmpfs mounts of @plan (/tmp, /dev/shm, the private $HOME, hidden paths
 * excepted: they are sealed read-only), whose pages belong to no process the OOM killer could
 * pick. @ram: physical memory; @memory: the run's memory limit (CR_LIMIT_UNSET or
 * CR_LIMIT_INFINITY for none); @charged: a memory cgroup holds it, and is charged for the
 * pages the sandbox writes there. With @charged each mount may hold the whole limit (never more
 * than half the RAM, the kernel's own default). Otherwise they share a budget, the limit or a
 * quarter of the RAM, whichever is less: /tmp half of it, /dev/shm and $HOME a quarter each.
 * Each size is whole pages, at least one; nr_inodes is one per 8 KiB of it, at least 1024.
 * Returns which of the three applied. */
enum cr_tmpfs_basis cr_mount_plan_size_tmpfs(struct cr_mount_plan *plan, uint64_t ram, uint64_t memory,
			      bool charged);
const char *cr_tmpfs_basis_to_string(enum cr_tmpfs_basis basis);

const char *cr_mount_kind_to_string(enum cr_mount_kind kind);
