/* SPDX-License-Identifier: MIT */
/* Carrying out the mount plan in the child. Uses the new mount API (open_tree, mount_setattr,
 * move_mount; Linux 5.12+) so that every bind is made read-only, nosuid and nodev, with all its
 * submounts, before it is attached: there is never a moment where it is visible writable. Flags
 * the host locked on a mount are only ever added to, never cleared. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux-internal.h"
#include "launcher/base/macro.h"
#include "launcher/base/path-open.h"
#include "launcher/base/path-util.h"

#define TREE_FLAGS (OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH)

static int detail(struct cr_child_ctx *ctx, int r, const char *what, const char *path)
{
	(void)snprintf(ctx->detail, sizeof(ctx->detail), "%s %s", what, path);
	return r;
}

int cr_mounts_open_sources(struct cr_child_ctx *ctx)
{
	for (size_t i = 0; i < ctx->plan.n_ops; i++) {
		struct cr_mount_op *op = &ctx->plan.ops[i];
		int fd;

		if ((op->kind != CR_MOUNT_BIND && op->kind != CR_MOUNT_DEVICE &&
		     op->kind != CR_MOUNT_NULL && op->kind != CR_MOUNT_OVERLAY_SRC) ||
		    (op->flags & CR_MNT_IDMAPPED))
			continue;
		if (op->flags & CR_MNT_EXPLICIT) {
			fd = cr_mounts_explicit_source(ctx, op);
			if (fd < 0 && ctx->detail[0])
				return fd;
		} else if (op->src_fd >= 0)
			continue;
		else
			fd = cr_open_path_nofollow(op->src);
		if (fd == -ENOENT && (op->flags & CR_MNT_OPTIONAL))
			continue;
		if (fd < 0)
			return detail(ctx, fd, "cannot open", op->src);
		op->src_fd = fd;
	}
	return 0;
}

/* Create the missing component @comp in @dir: an empty file or a directory. */
static int create_component(int dir, const char *comp, bool file)
{
	int fd;

	if (!file)
		return mkdirat(dir, comp, 0755) < 0 && errno != EEXIST ? negative_errno() : 0;
	fd = openat(dir, comp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno == EEXIST ? 0 : negative_errno();
	(void)close(fd);
	return 0;
}

/* Walk @path below @root_fd, refusing symlinks at every step, and (with @create) making missing
 * directories, or with @file the last component as an empty file. Returns an O_PATH descriptor. */
static int walk(int root_fd, const char *path, bool create, bool file)
{
	_cleanup_close_ int fd = -EBADF;
	char buf[PATH_MAX], *comp, *save = NULL;
	struct stat st;

	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, path);
	fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return negative_errno();
	for (comp = strtok_r(buf, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		bool leaf = (!save || !*save) && file;
		int flags = O_PATH | O_NOFOLLOW | O_CLOEXEC | (leaf ? 0 : O_DIRECTORY);
		int next, r;

		next = openat(fd, comp, flags);
		if (next < 0 && errno == ENOENT && create) {
			r = create_component(fd, comp, leaf);
			if (r < 0)
				return r;
			next = openat(fd, comp, flags);
		}
		if (next < 0)
			return negative_errno();
		closep(&fd);
		fd = next;
	}
	/* O_PATH|O_NOFOLLOW opens a symlink itself rather than failing: refuse it here. */
	if (file && (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode)))
		return -ELOOP;
	return TAKE_FD(fd);
}

static int set_attr(int fd, uint64_t set, bool recursive)
{
	struct mount_attr attr = { .attr_set = set };

	if (mount_setattr(fd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &attr,
			  sizeof(attr)) < 0)
		return negative_errno();
	return 0;
}

/* Clone the tree at @src_fd, set @attrs on all of it, attach it at @target_fd. */
int cr_mounts_attach_clone(int src_fd, int target_fd, uint64_t attrs, bool recursive)
{
	_cleanup_close_ int tree = -EBADF;
	int r;

	tree = open_tree(src_fd, "", TREE_FLAGS | (recursive ? AT_RECURSIVE : 0));
	if (tree < 0)
		return negative_errno();
	r = set_attr(tree, attrs, recursive);
	if (r < 0)
		return r;
	if (move_mount(tree, "", target_fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return negative_errno();
	return 0;
}

/* A read-only file in the new root's tmpfs holding @text, bound over @target_fd, then unlinked:
 * it keeps no name anywhere, so nothing in the sandbox can find another way to it. (move_mount()
 * refuses a source that is already unlinked, ENOENT: hence no O_TMPFILE.) */
static int attach_text(int root_fd, const char *text, unsigned mode, int target_fd)
{
	static const char name[] = ".corral-text";
	_cleanup_close_ int fd = -EBADF;
	size_t len = strlen(text);
	int r;

	fd = openat(root_fd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return negative_errno();
	r = write(fd, text, len) == (ssize_t)len ? 0 : -EIO;
	if (r >= 0)
		r = cr_mounts_attach_clone(fd, target_fd,
				 MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
					 MOUNT_ATTR_NOEXEC,
				 false);
	if (unlinkat(root_fd, name, 0) < 0 && r >= 0)
		r = negative_errno();
	return r;
}

int cr_mounts_fs(int target_fd, const char *type, unsigned long flags, const char *data)
{
	char target[64];

	/* The magic link resolves to exactly the directory walk() checked. */
	(void)snprintf(target, sizeof(target), "/proc/self/fd/%d", target_fd);
	if (mount(type, target, type, flags, data) < 0)
		return negative_errno();
	return 0;
}

static int apply_one(const struct cr_mount_op *op, int root_fd)
{
	_cleanup_close_ int target = -EBADF;
	bool file = op->flags & CR_MNT_FILE;
	char data[128];

	if (op->kind == CR_MOUNT_SYMLINK) {
		_cleanup_close_ int parent = -EBADF;
		char dir[PATH_MAX];
		const char *base = strrchr(op->dst, '/') + 1;

		(void)snprintf(dir, sizeof(dir), "%.*s", (int)(base - op->dst), op->dst);
		parent = walk(root_fd, dir, true, false);
		if (parent < 0)
			return parent;
		return symlinkat(op->src, parent, base) < 0 ? negative_errno() : 0;
	}
	if ((op->kind == CR_MOUNT_BIND || op->kind == CR_MOUNT_DEVICE) && op->src_fd < 0)
		return 0; /* optional and missing on this host */
	target = walk(root_fd, op->dst, op->kind != CR_MOUNT_RDONLY, file);
	if (target == -ENOENT && op->kind == CR_MOUNT_RDONLY && (op->flags & CR_MNT_OPTIONAL))
		return 0;
	if (target < 0)
		return target;

	switch (op->kind) {
	case CR_MOUNT_BIND:
		/* Already a detached tree with its attributes: attach it as it is. */
		if (op->flags & CR_MNT_IDMAPPED)
			return move_mount(op->src_fd, "", target, "",
					  MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0
				       ? negative_errno()
				       : 0;
		return cr_mounts_attach_clone(op->src_fd, target,
				    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
					    (op->flags & CR_MNT_WRITABLE ? 0 : MOUNT_ATTR_RDONLY),
				    true);
	case CR_MOUNT_DEVICE:
		return cr_mounts_attach_clone(op->src_fd, target, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, false);
	case CR_MOUNT_NULL:
		return cr_mounts_attach_clone(op->src_fd, target,
				    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC | MOUNT_ATTR_RDONLY, false);
	case CR_MOUNT_RDONLY:
		return cr_mounts_attach_clone(target, target,
				    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
					    MOUNT_ATTR_NOEXEC,
				    !file);
	case CR_MOUNT_TEXT:
		return attach_text(root_fd, op->src, op->mode, target);
	case CR_MOUNT_TMPFS:
		if (op->size)
			(void)snprintf(data, sizeof(data), "mode=%04o,size=%llu,nr_inodes=%llu",
				       op->mode, (unsigned long long)op->size,
				       (unsigned long long)op->nr_inodes);
		else
			(void)snprintf(data, sizeof(data), "mode=%04o", op->mode);
		return cr_mounts_fs(target, "tmpfs", MS_NOSUID | MS_NODEV, data);
	case CR_MOUNT_PROC:
		return cr_mounts_fs(target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	case CR_MOUNT_DEVPTS:
		return cr_mounts_fs(target, "devpts", MS_NOSUID | MS_NOEXEC,
				"newinstance,ptmxmode=0666,mode=620");
	default:
		return -EINVAL;
	}
}

static bool host_src(const struct cr_mount_op *op)
{
	return op->src && op->kind != CR_MOUNT_SYMLINK && op->kind != CR_MOUNT_TEXT;
}

int cr_mounts_apply(struct cr_child_ctx *ctx, const char *root)
{
	_cleanup_close_ int root_fd = -EBADF;
	mode_t old_umask;
	int r;

	root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return detail(ctx, negative_errno(), "cannot open the new root", root);
	/* An explicit filesystem's modes are the caller's, exactly (the umask is back after). */
	old_umask = umask(0);
	if (!ctx->policy->ex.on)
		(void)umask(old_umask);
	for (size_t i = 0; i < ctx->plan.n_ops; i++) {
		struct cr_mount_op *op = &ctx->plan.ops[i];

		/* Its operations name paths, and a bind of / covers the root opened before. */
		if (ctx->policy->ex.on && i > 0) {
			closep(&root_fd);
			root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (root_fd < 0)
				return detail(ctx, negative_errno(), "cannot open the new root", root);
		}
		ctx->detail[0] = '\0';
		r = op->flags & CR_MNT_EXPLICIT ? cr_mounts_explicit_one(ctx, op, root_fd)
						: apply_one(op, root_fd);
		closep(&op->src_fd);
		if (op->flags & CR_MNT_SECRET && op->src) /* in the file now: pid 1 needs no copy */
			explicit_bzero(op->src, strlen(op->src));
		if (r < 0 && ctx->detail[0])
			return r;
		if (r < 0) {
			(void)snprintf(ctx->detail, sizeof(ctx->detail), "%s %s%s%s",
				       cr_mount_kind_to_string(op->kind), op->dst,
				       host_src(op) ? " from " : "", host_src(op) ? op->src : "");
			return r;
		}
	}
	(void)umask(old_umask);
	return 0;
}

int cr_mounts_worker_proc(const struct cr_mount_plan *plan, char *msg, size_t size)
{
	_cleanup_close_ int root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (root_fd < 0)
		return negative_errno();
	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct cr_mount_op *op = &plan->ops[i];
		int r;

		if (op->kind != CR_MOUNT_PROC &&
		    (op->kind != CR_MOUNT_RDONLY || !cr_path_is_within(op->dst, "/proc")))
			continue;
		r = apply_one(op, root_fd);
		if (r < 0) {
			(void)snprintf(msg, size, "%s %s", cr_mount_kind_to_string(op->kind),
				       op->dst);
			return r;
		}
	}
	return 0;
}

int cr_mounts_pivot(const char *root)
{
	/* pivot_root(".", ".") stacks the old root on top of the new one; detaching it leaves
	 * only the new root, with no directory of the host left reachable. */
	if (chdir(root) < 0)
		return negative_errno();
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return negative_errno();
	if (umount2(".", MNT_DETACH) < 0)
		return negative_errno();
	if (chdir("/") < 0)
		return negative_errno();
	return 0;
}

/* The new root's own tmpfs, /dev and hidden directories were writable only while the plan
 * created mount points in them. */
int cr_mounts_seal(struct cr_child_ctx *ctx)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };

	for (size_t i = ctx->plan.n_ops; i-- > 0;) {
		const struct cr_mount_op *op = &ctx->plan.ops[i];

		if (op->kind != CR_MOUNT_TMPFS || (op->flags & CR_MNT_WRITABLE))
			continue;
		if (mount_setattr(AT_FDCWD, op->dst, AT_SYMLINK_NOFOLLOW, &attr, sizeof(attr)) < 0)
			return detail(ctx, negative_errno(), "cannot make read-only", op->dst);
	}
	if (mount_setattr(AT_FDCWD, "/", 0, &attr, sizeof(attr)) < 0)
		return detail(ctx, negative_errno(), "cannot make read-only", "/");
	return 0;
}
