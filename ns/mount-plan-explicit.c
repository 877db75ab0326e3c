/* SPDX-License-Identifier: MIT */
/* The mount plan of an explicit policy: the door's filesystem operations (cr_policy.fs_ops), in
 * the order given, for ns/mounts-explicit.c to carry out. Pure, as the default plan is. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"
#include "mount-plan.h"

/* Kernel knobs that a procfs shows writable to a namespace's root. */
static const char *const proc_knobs[] = { "sys", "sysrq-trigger", "irq", "bus" };

static const char *const dev_nodes[] = { "null", "zero", "full", "random", "urandom", "tty" };

static const char *const dev_links[][2] = {
	{ "fd", "/proc/self/fd" },     { "stdin", "/proc/self/fd/0" },
	{ "stdout", "/proc/self/fd/1" }, { "stderr", "/proc/self/fd/2" },
	{ "core", "/proc/kcore" },     { "ptmx", "pts/ptmx" },
};

static struct cr_mount_op *last(struct cr_mount_plan *plan)
{
	return &plan->ops[plan->n_ops - 1];
}

static int join(char *buf, size_t size, const char *dir, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Each knob under the procfs at @dst read-only, where it exists. */
static int add_proc_knobs(struct cr_mount_plan *plan, const char *dst)
{
	char path[PATH_MAX];
	int r = 0;

	for (size_t i = 0; i < ELEMENTSOF(proc_knobs) && r >= 0; i++) {
		r = join(path, sizeof(path), dst, proc_knobs[i]);
		if (r >= 0)
			r = cr_mount_plan_add(plan, CR_MOUNT_RDONLY,
					      CR_MNT_OPTIONAL | CR_MNT_EXPLICIT |
						      (i == 1 ? CR_MNT_FILE : 0),
					      0, NULL, path);
	}
	return r;
}

/* A minimal /dev at @dst: a tmpfs, the host's harmless device nodes, a private devpts, shm. */
static int add_dev(struct cr_mount_plan *plan, const char *dst)
{
	char path[PATH_MAX], src[32];
	int r;

	r = cr_mount_plan_add(plan, CR_MOUNT_TMPFS, CR_MNT_WRITABLE | CR_MNT_EXPLICIT | CR_MNT_SIZED,
			      0755, NULL, dst);
	for (size_t i = 0; i < ELEMENTSOF(dev_nodes) && r >= 0; i++) {
		(void)snprintf(src, sizeof(src), "/dev/%s", dev_nodes[i]);
		r = join(path, sizeof(path), dst, dev_nodes[i]);
		if (r >= 0)
			r = cr_mount_plan_add(plan, CR_MOUNT_DEVICE,
					      CR_MNT_FILE | CR_MNT_OPTIONAL | CR_MNT_EXPLICIT, 0, src,
					      path);
	}
	for (size_t i = 0; i < ELEMENTSOF(dev_links) && r >= 0; i++) {
		r = join(path, sizeof(path), dst, dev_links[i][0]);
		if (r >= 0)
			r = cr_mount_plan_add(plan, CR_MOUNT_SYMLINK, CR_MNT_EXPLICIT, 0,
					      dev_links[i][1], path);
	}
	if (r >= 0)
		r = join(path, sizeof(path), dst, "shm");
	if (r >= 0)
		r = cr_mount_plan_add(plan, CR_MOUNT_DIR, CR_MNT_EXPLICIT, 0755, NULL, path);
	if (r >= 0)
		r = join(path, sizeof(path), dst, "pts");
	if (r >= 0)
		r = cr_mount_plan_add(plan, CR_MOUNT_DEVPTS, CR_MNT_WRITABLE | CR_MNT_EXPLICIT, 0,
				      NULL, path);
	return r;
}

static int add_bind(struct cr_mount_plan *plan, const struct cr_fs_op *f,
		    const struct cr_host_view *host)
{
	unsigned flags = CR_MNT_EXPLICIT | (f->flags & CR_FS_RO ? 0 : CR_MNT_WRITABLE) |
			 (f->flags & CR_FS_DEVICES ? CR_MNT_DEVICES : 0) |
			 (f->flags & CR_FS_TRY ? CR_MNT_OPTIONAL : 0);
	int r;

	if (f->kind == CR_FS_BIND && !host->is_dir(f->src))
		flags |= CR_MNT_FILE;
	r = cr_mount_plan_add(plan, CR_MOUNT_BIND, flags, 0, f->src, f->dst);
	if (r >= 0 && f->kind == CR_FS_BIND_FD)
		last(plan)->src_fd = f->fd; /* the door's: dup'ed and closed by the child */
	return r;
}

static int add_data(struct cr_mount_plan *plan, const struct cr_fs_op *f)
{
	unsigned mode = f->mode != CR_FS_MODE_UNSET ? f->mode
			: f->flags & CR_FS_BOUND    ? 0600
						    : 0666;
	struct cr_mount_op *op;
	int r;

	r = cr_mount_plan_add(plan, CR_MOUNT_DATA,
			      CR_MNT_FILE | CR_MNT_EXPLICIT |
				      (f->flags & CR_FS_BOUND ? 0 : CR_MNT_COPY) |
				      (f->flags & CR_FS_RO ? 0 : CR_MNT_WRITABLE),
			      mode, NULL, f->dst);
	if (r < 0)
		return r;
	op = last(plan);
	op->src = malloc(f->size + 1);
	if (!op->src)
		return -ENOMEM;
	if (f->size)
		memcpy(op->src, f->src, f->size);
	op->src[f->size] = '\0';
	op->size = f->size;
	return 0;
}

/* The overlay, then each of its directories (fs-op.h: lowers joined with ':'; a lower's own
 * ':' cannot be told apart, so the door joins them with '\n' here, see launcher/bwrap). */
static int add_overlay(struct cr_mount_plan *plan, const struct cr_fs_op *f)
{
	unsigned flags = CR_MNT_EXPLICIT | (f->flags & CR_FS_RO ? 0 : CR_MNT_WRITABLE) |
			 (f->flags & CR_FS_TMP_UPPER ? CR_MNT_COPY : 0);
	_cleanup_free_ char *lowers = strdup(f->src);
	size_t first = plan->n_ops, n = 0;
	char *save = NULL;
	int r;

	if (!lowers)
		return -ENOMEM;
	r = cr_mount_plan_add(plan, CR_MOUNT_OVERLAY, flags, 0, NULL, f->dst);
	for (char *l = strtok_r(lowers, "\n", &save); l && r >= 0; l = strtok_r(NULL, "\n", &save), n++)
		r = cr_mount_plan_add(plan, CR_MOUNT_OVERLAY_SRC, CR_MNT_EXPLICIT, 0, l, f->dst);
	if (r >= 0 && f->upper)
		r = cr_mount_plan_add(plan, CR_MOUNT_OVERLAY_SRC, CR_MNT_EXPLICIT | CR_MNT_WRITABLE, 0,
				      f->upper, f->dst);
	if (r >= 0 && f->work)
		r = cr_mount_plan_add(plan, CR_MOUNT_OVERLAY_SRC, CR_MNT_EXPLICIT | CR_MNT_WRITABLE, 0,
				      f->work, f->dst);
	if (r >= 0)
		plan->ops[first].size = n;
	return r;
}

static int add_one(struct cr_mount_plan *plan, const struct cr_fs_op *f, bool callers_pidns,
		   const struct cr_host_view *host)
{
	unsigned mode = f->mode;
	int r;

	switch (f->kind) {
	case CR_FS_BIND:
	case CR_FS_BIND_FD:
		return add_bind(plan, f, host);
	case CR_FS_TMPFS:
		r = cr_mount_plan_add(plan, CR_MOUNT_TMPFS,
				      CR_MNT_WRITABLE | CR_MNT_EXPLICIT | CR_MNT_SIZED,
				      mode == CR_FS_MODE_UNSET ? 0755 : mode, f->src, f->dst);
		if (r >= 0)
			last(plan)->size = f->size;
		return r;
	case CR_FS_DIR:
		return cr_mount_plan_add(plan, CR_MOUNT_DIR, CR_MNT_EXPLICIT,
					 mode == CR_FS_MODE_UNSET ? 0755 : mode, NULL, f->dst);
	case CR_FS_SYMLINK:
		return cr_mount_plan_add(plan, CR_MOUNT_SYMLINK, CR_MNT_EXPLICIT, 0, f->src, f->dst);
	case CR_FS_CHMOD:
		return cr_mount_plan_add(plan, CR_MOUNT_CHMOD, CR_MNT_EXPLICIT, mode, NULL, f->dst);
	case CR_FS_REMOUNT_RO:
		return cr_mount_plan_add(plan, CR_MOUNT_REMOUNT_RO, CR_MNT_EXPLICIT, 0, NULL, f->dst);
	case CR_FS_PROC:
		/* In the caller's pid namespace, the caller's procfs: no other may be mounted. In one
		 * made or joined (--pidns, a pod's), a fresh one: never the caller's, whose processes
		 * the sandbox is not among, and would see. */
		if (callers_pidns)
			r = cr_mount_plan_add(plan, CR_MOUNT_BIND, CR_MNT_EXPLICIT | CR_MNT_WRITABLE, 0,
					      "/proc", f->dst);
		else
			r = cr_mount_plan_add(plan, CR_MOUNT_PROC, CR_MNT_EXPLICIT, 0, NULL, f->dst);
		return r < 0 ? r : add_proc_knobs(plan, f->dst);
	case CR_FS_DEV:
		return add_dev(plan, f->dst);
	case CR_FS_MQUEUE:
		return cr_mount_plan_add(plan, CR_MOUNT_MQUEUE, CR_MNT_EXPLICIT, 0, NULL, f->dst);
	case CR_FS_FILE:
		return add_data(plan, f);
	case CR_FS_OVERLAY:
		return add_overlay(plan, f);
	case CR_FS_NODE:
		r = cr_mount_plan_add(plan, CR_MOUNT_NODE,
				      CR_MNT_EXPLICIT | CR_MNT_FILE |
					      (f->flags & CR_FS_DEVICES ? CR_MNT_DEVICES : 0),
				      mode, NULL, f->dst);
		if (r >= 0) {
			last(plan)->size = f->size;
			last(plan)->owner_uid = f->uid;
			last(plan)->owner_gid = f->gid;
		}
		return r;
	case CR_FS_PROPAGATION:
		return cr_mount_plan_add(plan, CR_MOUNT_PROPAGATION, CR_MNT_EXPLICIT, mode, NULL,
					 f->dst);
	case CR_FS_SYSFS:
		return cr_mount_plan_add(plan, CR_MOUNT_SYSFS, CR_MNT_EXPLICIT, 0, NULL, f->dst);
	default:
		return -EOPNOTSUPP;
	}
}

static bool ends_with_proc(const struct cr_policy *p)
{
	const struct cr_fs_op *f = p->n_fs_ops ? &p->fs_ops[p->n_fs_ops - 1] : NULL;

	return f && f->kind == CR_FS_PROC && strcmp(f->dst, "/proc") == 0;
}

int cr_mount_plan_explicit(const struct cr_policy *p, const struct cr_host_view *host,
			   struct cr_mount_plan *plan)
{
	bool callers_pidns = !(p->ex.namespaces & CR_NS_PID) && p->ex.pidns_fd < 0;
	int r = 0;

	for (size_t i = 0; i < p->n_fs_ops && r >= 0; i++) {
		r = add_one(plan, &p->fs_ops[i], callers_pidns, host);
		if (r >= 0 && p->ex.binds_in_order && p->fs_ops[i].kind == CR_FS_BIND)
			last(plan)->flags |= CR_MNT_RECLONE;
	}
	/* Whatever /proc the sandbox shows, a fresh one or the host's through a bind of /: its
	 * kernel knobs read-only, even to a root caller. Not twice: a --proc /proc last of all
	 * (srt's and codex's order) has just made them so, and nothing came after it. */
	if (r >= 0 && p->ex.harden_proc && !ends_with_proc(p))
		r = add_proc_knobs(plan, "/proc");
	return r;
}
