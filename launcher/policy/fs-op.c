/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "fs-op.h"

const char *cr_fs_op_kind_to_string(enum cr_fs_op_kind k)
{
	static const char *const names[_CR_FS_OP_KIND_MAX] = {
		[CR_FS_BIND] = "bind",	       [CR_FS_BIND_FD] = "bind-fd",
		[CR_FS_TMPFS] = "tmpfs",       [CR_FS_DIR] = "dir",
		[CR_FS_SYMLINK] = "symlink",   [CR_FS_CHMOD] = "chmod",
		[CR_FS_REMOUNT_RO] = "remount-ro", [CR_FS_PROC] = "proc",
		[CR_FS_DEV] = "dev",	       [CR_FS_MQUEUE] = "mqueue",
		[CR_FS_FILE] = "file",	       [CR_FS_OVERLAY] = "overlay",
		[CR_FS_PROPAGATION] = "propagation", [CR_FS_NODE] = "node",
		[CR_FS_SYSFS] = "sysfs",
	};

	return k >= 0 && k < _CR_FS_OP_KIND_MAX ? names[k] : "?";
}

struct cr_fs_op *cr_fs_op_add(struct cr_fs_op **ops, size_t *n, enum cr_fs_op_kind kind,
			      unsigned flags, const char *src, const char *dst)
{
	struct cr_fs_op *a, *op;
	char *s = src ? strdup(src) : NULL, *d = dst ? strdup(dst) : NULL;

	if ((src && !s) || (dst && !d))
		goto fail;
	a = reallocarray(*ops, *n + 1, sizeof(**ops));
	if (!a)
		goto fail;
	*ops = a;
	op = &a[(*n)++];
	*op = (struct cr_fs_op){ .kind = kind, .flags = flags, .mode = CR_FS_MODE_UNSET,
				 .src = s, .dst = d, .fd = -1 };
	return op;
fail:
	free(s);
	free(d);
	return NULL;
}

void cr_fs_ops_free(struct cr_fs_op *ops, size_t n)
{
	for (size_t i = 0; ops && i < n; i++) {
		free(ops[i].src);
		free(ops[i].dst);
		free(ops[i].upper);
		free(ops[i].work);
	}
	free(ops);
}
