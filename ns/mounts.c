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

/* The directories the plan has walked through, as a stack of components with their O_PATH
 * descriptors: the next mount point below the same parent (/dev/null after /dev/zero) starts
 * where the last one ended instead of at the root, with no descriptor to duplicate and close per
 * component. A mount point is never kept: whatever is mounted on it changes what is below. */
#define WALK_DEPTH 16

struct walk_cache {
	int root_fd;	/* borrowed */
	size_t depth;	/* entries held */
	int fd[WALK_DEPTH];
	char comp[WALK_DEPTH][NAME_MAX + 1];
};

static void walk_truncate(struct walk_cache *c, size_t depth)
{
	while (c->depth > depth)
		closep(&c->fd[--c->depth]);
}

/* Open the directory @comp in @dir, with @create first making it if it is missing (a
 * directory that exists gives EEXIST, whatever the mount's flags or its permissions). */
static int open_dir(int dir, const char *comp, bool create)
{
	int fd;

	if (create && mkdirat(dir, comp, 0755) < 0 && errno != EEXIST)
		return negative_errno();
	fd = openat(dir, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC | O_DIRECTORY);
	return fd < 0 ? negative_errno() : fd;
}

/* Open the file @comp in @dir, with @create making it empty if it is missing: the descriptor of
 * a file this call created is the mount point itself. One that was there must not be a symbolic
 * link: O_PATH|O_NOFOLLOW opens a link itself rather than failing. */
static int open_file(int dir, const char *comp, bool create)
{
	_cleanup_close_ int fd = -EBADF;
	struct stat st;

	if (create) {
		fd = openat(dir, comp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0)
			return TAKE_FD(fd);
		if (errno != EEXIST)
			return negative_errno();
	}
	fd = openat(dir, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode))
		return -ELOOP;
	return TAKE_FD(fd);
}

/* Walk the directories above the last component of @path (copied into @buf, which it cuts up)
 * below the root, refusing symlinks at every step and (with @create) making missing ones. Sets
 * *ret_dir to the last directory's descriptor, which stays the cache's (or @deep's, past
 * WALK_DEPTH), and *ret_leaf to the last component (NULL for the root itself). */
static int walk_parent(struct walk_cache *c, const char *path, char buf[static PATH_MAX],
		       bool create, int *deep, int *ret_dir, char **ret_leaf)
{
	char *comp, *next, *save = NULL;
	int dir = c->root_fd;
	size_t depth = 0;

	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	strcpy(buf, path);
	comp = strtok_r(buf, "/", &save);
	for (; comp && (next = strtok_r(NULL, "/", &save)); comp = next, depth++) {
		int fd;

		if (depth < c->depth && strcmp(c->comp[depth], comp) == 0) {
			dir = c->fd[depth];
			continue;
		}
		walk_truncate(c, depth);
		fd = open_dir(dir, comp, create);
		if (fd < 0)
			return fd;
		if (depth < WALK_DEPTH) {
			strcpy(c->comp[depth], comp); /* openat() refused a name over NAME_MAX */
			c->fd[c->depth++] = fd;
		} else {
			closep(deep);
			*deep = fd;
		}
		dir = fd;
	}
	*ret_dir = dir;
	*ret_leaf = comp;
	return (int)depth;
}

/* Walk to @path (see walk_parent()) and open its last component (with @file an empty file when
 * @create) as a descriptor of the caller's, a mount point. Returns it or -errno. */
static int walk(struct walk_cache *c, const char *path, bool create, bool file)
{
	_cleanup_close_ int deep = -EBADF;
	char buf[PATH_MAX], *leaf;
	int dir, depth, fd;

	depth = walk_parent(c, path, buf, create, &deep, &dir, &leaf);
	if (depth < 0)
		return depth;
	if (!leaf) { /* the root itself */
		fd = fcntl(c->root_fd, F_DUPFD_CLOEXEC, 3);
		return fd < 0 ? negative_errno() : fd;
	}
	/* Something is about to be mounted here: nothing at or below it may stay in the cache. */
	walk_truncate(c, (size_t)depth);
	return file ? open_file(dir, leaf, create) : open_dir(dir, leaf, create);
}

/* A symbolic link at @path, its parent directories made as needed. */
static int make_symlink(struct walk_cache *c, const char *path, const char *target)
{
	_cleanup_close_ int deep = -EBADF;
	char buf[PATH_MAX], *leaf;
	int dir, r;

	r = walk_parent(c, path, buf, true, &deep, &dir, &leaf);
	if (r < 0)
		return r;
	if (!leaf)
		return -EEXIST;
	return symlinkat(target, dir, leaf) < 0 ? negative_errno() : 0;
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

/* @source: what the mount table shows as the file system's source (an OCI mount's "shm") */
static int mount_fs(int target_fd, const char *source, const char *type, unsigned long flags,
		    const char *data)
{
	char target[64];

	/* The magic link resolves to exactly the directory walk() checked. */
	(void)snprintf(target, sizeof(target), "/proc/self/fd/%d", target_fd);
	if (mount(source, target, type, flags, data) < 0)
		return negative_errno();
	return 0;
}

int cr_mounts_fs(int target_fd, const char *type, unsigned long flags, const char *data)
{
	return mount_fs(target_fd, type, type, flags, data);
}

int cr_mounts_fresh(const struct cr_mount_op *op, int target_fd)
{
	char data[128];
	int n;

	switch (op->kind) {
	case CR_MOUNT_TMPFS:
		n = snprintf(data, sizeof(data), "mode=%04o", op->mode);
		if (op->size)
			n += snprintf(data + n, sizeof(data) - (size_t)n, ",size=%llu",
				      (unsigned long long)op->size);
		if (op->nr_inodes)
			(void)snprintf(data + n, sizeof(data) - (size_t)n, ",nr_inodes=%llu",
				       (unsigned long long)op->nr_inodes);
		return mount_fs(target_fd, op->src ?: "tmpfs", "tmpfs", MS_NOSUID | MS_NODEV, data);
	case CR_MOUNT_PROC:
		return cr_mounts_fs(target_fd, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	case CR_MOUNT_DEVPTS:
		return cr_mounts_fs(target_fd, "devpts", MS_NOSUID | MS_NOEXEC,
				    "newinstance,ptmxmode=0666,mode=620");
	case CR_MOUNT_MQUEUE:
		return cr_mounts_fs(target_fd, "mqueue", 0, NULL);
	default:
		return -EINVAL;
	}
}

static int apply_one(const struct cr_mount_op *op, struct walk_cache *c)
{
	_cleanup_close_ int target = -EBADF;
	bool file = op->flags & CR_MNT_FILE;

	if (op->kind == CR_MOUNT_SYMLINK)
		return make_symlink(c, op->dst, op->src);
	if ((op->kind == CR_MOUNT_BIND || op->kind == CR_MOUNT_DEVICE) && op->src_fd < 0)
		return 0; /* optional and missing on this host */
	target = walk(c, op->dst, op->kind != CR_MOUNT_RDONLY, file);
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
		return attach_text(c->root_fd, op->src, op->mode, target);
	case CR_MOUNT_TMPFS:
	case CR_MOUNT_PROC:
	case CR_MOUNT_DEVPTS:
		return cr_mounts_fresh(op, target);
	default:
		return -EINVAL;
	}
}

/* Right after the sandbox's /proc is mounted, before the plan makes /proc/sys read-only: its
 * max_user_namespaces, for stage userns_limit. Through this fresh /proc the look-up costs a
 * fifth of one through the host's, whose /proc/sys dcache holds an entry per user namespace
 * that looked there (about 11 against 56 us here). */
static void open_max_userns(struct cr_child_ctx *ctx, int root_fd, const struct cr_mount_op *op)
{
	char path[PATH_MAX];

	if (op->kind != CR_MOUNT_PROC || ctx->policy->ex.on || ctx->max_userns_fd != -EBADF ||
	    snprintf(path, sizeof(path), ".%s/sys/user/max_user_namespaces", op->dst) >=
		    (int)sizeof(path))
		return;
	ctx->max_userns_fd = openat(root_fd, path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (ctx->max_userns_fd < 0)
		ctx->max_userns_fd = errno == EBADF ? -EIO : negative_errno();
}

static bool host_src(const struct cr_mount_op *op)
{
	return op->src && op->kind != CR_MOUNT_SYMLINK && op->kind != CR_MOUNT_TEXT;
}

int cr_mounts_apply(struct cr_child_ctx *ctx, const char *root)
{
	_cleanup_close_ int root_fd = -EBADF;
	struct walk_cache c = {};
	mode_t old_umask;
	int r = 0;

	root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return detail(ctx, negative_errno(), "cannot open the new root", root);
	/* An explicit filesystem's modes are the caller's, exactly (the umask is back after). */
	old_umask = umask(0);
	if (!ctx->policy->ex.on)
		(void)umask(old_umask);
	c.root_fd = root_fd;
	for (size_t i = 0; r >= 0 && i < ctx->plan.n_ops; i++) {
		struct cr_mount_op *op = &ctx->plan.ops[i];

		/* Its operations name paths, and a bind of / covers the root opened before: no
		 * directory walked before is known to be the one a path names now. */
		if (ctx->policy->ex.on && i > 0) {
			walk_truncate(&c, 0);
			closep(&root_fd);
			root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (root_fd < 0) {
				r = detail(ctx, negative_errno(), "cannot open the new root", root);
				break;
			}
			c.root_fd = root_fd;
		}
		ctx->detail[0] = '\0';
		r = op->flags & CR_MNT_EXPLICIT ? cr_mounts_explicit_one(ctx, op, root_fd)
						: apply_one(op, &c);
		if (r >= 0)
			open_max_userns(ctx, root_fd, op);
		closep(&op->src_fd);
		if (op->flags & CR_MNT_SECRET && op->src) /* in the file now: pid 1 needs no copy */
			explicit_bzero(op->src, strlen(op->src));
		if (r < 0 && !ctx->detail[0])
			(void)snprintf(ctx->detail, sizeof(ctx->detail), "%s %s%s%s",
				       cr_mount_kind_to_string(op->kind), op->dst,
				       host_src(op) ? " from " : "", host_src(op) ? op->src : "");
	}
	walk_truncate(&c, 0);
	(void)umask(old_umask);
	return r;
}

int cr_mounts_worker_proc(const struct cr_mount_plan *plan, char *msg, size_t size)
{
	_cleanup_close_ int root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct walk_cache c = { .root_fd = root_fd };
	int r = 0;

	if (root_fd < 0)
		return negative_errno();
	for (size_t i = 0; r >= 0 && i < plan->n_ops; i++) {
		const struct cr_mount_op *op = &plan->ops[i];

		if (op->kind != CR_MOUNT_PROC &&
		    (op->kind != CR_MOUNT_RDONLY || !cr_path_is_within(op->dst, "/proc")))
			continue;
		r = apply_one(op, &c);
		if (r < 0)
			(void)snprintf(msg, size, "%s %s", cr_mount_kind_to_string(op->kind),
				       op->dst);
	}
	walk_truncate(&c, 0);
	return r;
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
