/* SPDX-License-Identifier: MIT */
/* An explicit filesystem: the ordered operations that make a sandbox's root, for doors whose
 * caller describes the whole tree (bwrap's command line, an OCI config's mounts). When a policy
 * has them, they replace corral's default layout: the root starts as an empty tmpfs and each
 * operation runs in order, creating missing mount points as it goes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cr_fs_op_kind {
	CR_FS_BIND,	  /* host src at dst, recursively (flags: RO, DEV, TRY) */
	CR_FS_BIND_FD,	  /* the tree open at fd at dst (flags: RO) */
	CR_FS_TMPFS,	  /* an empty tmpfs at dst: mode, size (0: the kernel's default); src:
			   * the source the mount table shows (NULL: "tmpfs") */
	CR_FS_DIR,	  /* a directory at dst: mode */
	CR_FS_SYMLINK,	  /* a symlink at dst pointing to src */
	CR_FS_CHMOD,	  /* change dst's mode */
	CR_FS_REMOUNT_RO, /* make the mount at dst read-only */
	CR_FS_PROC,	  /* a procfs at dst */
	CR_FS_DEV,	  /* a minimal /dev at dst: the usual nodes, devpts, shm */
	CR_FS_MQUEUE,	  /* an mqueue file system at dst */
	CR_FS_FILE,	  /* a file at dst with fd's contents: mode; flags BOUND: bind it; RO */
	CR_FS_OVERLAY,	  /* overlayfs at dst: lowers (src, ':'-joined) and upper/work or tmp */
	CR_FS_PROPAGATION, /* the mount at dst gets propagation mode: MS_SHARED, MS_SLAVE,
			    * MS_PRIVATE or MS_UNBINDABLE, with MS_REC for those under it */
	CR_FS_NODE,	   /* a device node or FIFO made at dst: mode (S_IFCHR, S_IFBLK or S_IFIFO
			    * and the permissions), size (its dev_t), owned by uid:gid; flag
			    * DEVICES: usable (bound over itself without nodev), else not */
	CR_FS_SYSFS,	  /* a sysfs of the sandbox's network namespace at dst, read-only */
	_CR_FS_OP_KIND_MAX,
	_CR_FS_OP_KIND_INVALID = -1,
};

enum cr_fs_op_flags {
	CR_FS_RO = 1 << 0,	/* read-only */
	CR_FS_DEVICES = 1 << 1, /* device nodes keep working (no nodev) */
	CR_FS_TRY = 1 << 2,	/* a missing source is skipped, not an error */
	CR_FS_BOUND = 1 << 3,	/* a FILE is a bind of a private copy (--bind-data) */
	CR_FS_TMP_UPPER = 1 << 4, /* an OVERLAY's upper layer is a fresh tmpfs */
};

#define CR_FS_MODE_UNSET UINT32_MAX

struct cr_fs_op {
	enum cr_fs_op_kind kind;
	unsigned flags;
	uint32_t mode;	  /* CR_FS_MODE_UNSET: the kind's default */
	uint64_t size;	  /* TMPFS: bytes; 0: none given */
	char *src;	  /* host path, link target, or the overlay's lowers joined with '\n' in the
			   * order given (the last is the topmost) */
	char *dst;	  /* absolute path inside the sandbox */
	char *upper;	  /* OVERLAY: host upper and work directories, or NULL */
	char *work;
	int fd;		  /* BIND_FD, FILE: the caller's descriptor; -1 otherwise */
	uint32_t uid, gid; /* NODE: its owner */
};

const char *cr_fs_op_kind_to_string(enum cr_fs_op_kind k);

/* Append an operation, copying @src and @dst (either may be NULL). Returns it, or NULL on
 * allocation failure (the list is unchanged). */
struct cr_fs_op *cr_fs_op_add(struct cr_fs_op **ops, size_t *n, enum cr_fs_op_kind kind,
			      unsigned flags, const char *src, const char *dst);
/* Free the strings of each operation and the array. Accepts NULL. */
void cr_fs_ops_free(struct cr_fs_op *ops, size_t n);
