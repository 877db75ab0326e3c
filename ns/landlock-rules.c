/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "landlock/landlock-rights.h"
#include "landlock/landlock.h"
#include "launcher/base/log.h"
#include "ns/mount-plan.h"
#include "launcher/base/path-util.h"
#include "landlock-rules.h"

static bool is_dev(const char *path)
{
	return cr_path_is_within(path, "/dev");
}

/* The test hook (landlock-rights.h): never silent, so a test log shows it was used. */
static bool omitted(const char *path)
{
	const char *omit = cr_landlock_test_omit ? cr_landlock_test_omit() : NULL;

	if (!omit || strcmp(omit, path) != 0)
		return false;
	cr_log_warning("test hook: the Landlock rule for %s is left out", path);
	return true;
}

static int add(struct cr_landlock_plan *plan, const char *path, uint64_t access, bool optional)
{
	if (omitted(path))
		return 0;
	return cr_landlock_plan_add(plan, path, access, optional);
}

/* What the sandbox grants at @op's mount point; 0 for nothing of its own. */
static uint64_t sandbox_access(const struct cr_mount_op *op)
{
	bool w = op->flags & CR_MNT_WRITABLE;

	switch (op->kind) {
	case CR_MOUNT_BIND:
		return w ? LL_FS_RW : LL_FS_RO;
	case CR_MOUNT_TMPFS:
		if (op->flags & CR_MNT_SECRET) /* CR_SECRETS_DIR: its listing */
			return LL_FS_RO;
		return w ? LL_FS_RW : 0; /* a hidden directory or /dev: the root's listing */
	case CR_MOUNT_PROC:
		return LL_FS_PROC;
	case CR_MOUNT_DEVICE:
	case CR_MOUNT_DEVPTS:
		return LL_FS_DEVICE;
	case CR_MOUNT_NULL:
		return LL_FS_HIDDEN;
	case CR_MOUNT_TEXT:
		return LL_FS_RO;
	case CR_MOUNT_SYMLINK: /* the target is checked where it leads */
	case CR_MOUNT_RDONLY:  /* below /proc, which has its rule */
	default:
		return 0;
	}
}

int cr_landlock_rules_sandbox(const struct cr_mount_plan *mounts, struct cr_landlock_plan *plan)
{
	int r;

	r = add(plan, "/", LL_FS_LIST, false);
	for (size_t i = 0; i < mounts->n_ops && r >= 0; i++) {
		const struct cr_mount_op *op = &mounts->ops[i];
		uint64_t access = sandbox_access(op);

		if (access)
			r = add(plan, op->dst, access, op->flags & CR_MNT_OPTIONAL);
	}
	return r;
}

/* A bind carried out before @self (so @self is mounted on top of it) that shows @self's path;
 * only a writable one if @writable. */
static const struct cr_mount_op *shown_under(const struct cr_mount_plan *mounts,
					     const struct cr_mount_op *self, bool writable)
{
	for (const struct cr_mount_op *op = mounts->ops; op < self; op++) {
		if (op->kind != CR_MOUNT_BIND)
			continue;
		if (writable && !(op->flags & CR_MNT_WRITABLE))
			continue;
		if (cr_path_is_within(self->dst, op->src))
			return op;
	}
	return NULL;
}

/* Landlock can only grant: a hidden or read-only path inside a tree the command may read (or
 * write) would not be hidden (or read-only) without the mount that does it. */
static int check_host_op(const struct cr_mount_plan *mounts, const struct cr_mount_op *op,
			 char *msg, size_t size)
{
	bool hidden =
		op->kind == CR_MOUNT_NULL ||
		(op->kind == CR_MOUNT_TMPFS && !(op->flags & CR_MNT_WRITABLE) && !is_dev(op->dst));
	bool ro = op->kind == CR_MOUNT_BIND && !(op->flags & CR_MNT_WRITABLE);
	const struct cr_mount_op *outer;

	if (op->flags & CR_MNT_PIN)
		return cr_msg(msg, size, -EINVAL,
			      "degraded mode cannot keep %s in place: without a mount namespace nothing stops the command from renaming it, and corral's own files lie below it (run without --allow-degraded, or choose writable paths that do not contain corral's files)",
			      op->dst);
	if (op->kind == CR_MOUNT_BIND && strcmp(op->src, op->dst) != 0)
		return cr_msg(msg, size, -EINVAL,
			      "degraded mode cannot show the cache %s at %s: without a mount namespace a directory is only ever at its own path",
			      op->src, op->dst);
	if (!hidden && !ro)
		return 0;
	outer = shown_under(mounts, op, ro);
	if (!outer)
		return 0;
	(void)snprintf(msg, size,
		       "degraded mode cannot %s %s: without a mount namespace only Landlock guards it, and Landlock cannot take away what %s %s grants (it only adds access)",
		       hidden ? "hide" : "make read-only", op->dst, outer->src,
		       outer->flags & CR_MNT_WRITABLE ? "(writable)" : "(readable)");
	return -EINVAL;
}

int cr_landlock_rules_host(const struct cr_mount_plan *mounts, const char *tmp_dir,
			   const char *home_dir, struct cr_landlock_plan *plan, char *msg,
			   size_t size)
{
	int r = 0;

	for (size_t i = 0; i < mounts->n_ops && r >= 0; i++) {
		const struct cr_mount_op *op = &mounts->ops[i];
		bool w = op->flags & CR_MNT_WRITABLE, opt = op->flags & CR_MNT_OPTIONAL;

		r = check_host_op(mounts, op, msg, size);
		if (r < 0)
			return r;
		switch (op->kind) {
		case CR_MOUNT_BIND:
			r = add(plan, op->src, w ? LL_FS_RW : LL_FS_RO, opt);
			break;
		case CR_MOUNT_DEVICE:
			r = add(plan, op->src, LL_FS_DEVICE, opt);
			break;
		case CR_MOUNT_PROC:
			r = add(plan, op->dst, LL_FS_PROC_RO, false);
			break;
		case CR_MOUNT_TMPFS:
			/* /tmp and the private home become corral's private directories; the
			 * host's /dev/shm is shared with every process of the user: left out. */
			if (w && strcmp(op->dst, "/tmp") == 0)
				r = add(plan, tmp_dir, LL_FS_RW, false);
			else if (w && !is_dev(op->dst))
				r = add(plan, home_dir, LL_FS_RW, false);
			break;
		default:
			break;
		}
	}
	return r;
}
