/* SPDX-License-Identifier: MIT */
/* Carrying out an explicit filesystem (cr_policy.fs_ops) in the child. Unlike corral's own
 * layout, whose paths are canonical host paths, the caller names both ends: a source is its path
 * on the host with symlinks followed, a destination is resolved inside the new root as if it
 * were already / (openat2 RESOLVE_IN_ROOT: a symlink there never leads out to the host), and
 * whatever is missing on the way is made. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launcher/base/macro.h"
#include "linux-internal.h"

static int open_in_root(int root_fd, const char *path)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	long fd = syscall(SYS_openat2, root_fd, path[0] ? path : ".", &how, sizeof(how));

	return fd < 0 ? negative_errno() : (int)fd;
}

/* The directories made on the way to a --dir: what its mode gives the owner, and read and search
 * to the group and to others where the mode gives them anything. */
static unsigned parent_mode(const struct cr_mount_op *op)
{
	unsigned m = op->mode;

	if (op->kind != CR_MOUNT_DIR)
		return 0755;
	return 0700 | (m & 070 ? 050 : 0) | (m & 07 ? 05 : 0);
}

static int make_leaf(int parent, const char *name, bool dir, unsigned mode)
{
	int fd;

	if (dir)
		return mkdirat(parent, name, mode) < 0 && errno != EEXIST ? negative_errno() : 0;
	fd = openat(parent, name, O_CREAT | O_EXCL | O_WRONLY | O_NOCTTY | O_CLOEXEC, mode);
	if (fd < 0)
		return errno == EEXIST ? 0 : negative_errno();
	(void)close(fd);
	return 0;
}

/* The last component of @path missing, its parent there: make it and open it, three calls where
 * the walk below takes one per component and more. -ENOENT when @path has no such shape or its
 * parent is missing too. */
static int make_last(int root_fd, const char *path, bool dir, unsigned mode)
{
	_cleanup_close_ int parent = -EBADF;
	char dir_path[PATH_MAX];
	const char *base = strrchr(path, '/');
	int r;

	if (!base || base[1] == '\0' || strcmp(base + 1, ".") == 0 || strcmp(base + 1, "..") == 0)
		return -ENOENT;
	(void)snprintf(dir_path, sizeof(dir_path), "%.*s", (int)(base - path), path);
	parent = open_in_root(root_fd, dir_path);
	if (parent < 0)
		return parent;
	r = make_leaf(parent, base + 1, dir, mode);
	/* By the path again, as the walk does: a dangling symlink there stays ENOENT. */
	return r < 0 ? r : open_in_root(root_fd, path);
}

/* Open @path under @root_fd, making the missing directories on the way (mode @pmode) and the
 * last component (a directory or, with !@dir, an empty file; mode @mode) when @create. The whole
 * path first, then its parent: most destinations exist, or miss only their last component. */
static int resolve(int root_fd, const char *path, bool create, bool dir, unsigned pmode,
		   unsigned mode)
{
	char prefix[PATH_MAX];
	size_t len = strlen(path);
	int fd;

	if (len >= sizeof(prefix))
		return -ENAMETOOLONG;
	fd = open_in_root(root_fd, path);
	if (fd != -ENOENT || !create)
		return fd;
	fd = make_last(root_fd, path, dir, mode);
	if (fd != -ENOENT)
		return fd;
	for (size_t end = 0; end <= len;) {
		size_t start;
		bool leaf;
		int parent, r;

		while (path[end] == '/')
			end++;
		start = end;
		while (end < len && path[end] != '/')
			end++;
		leaf = path[end + strspn(path + end, "/")] == '\0';
		if (start == end && !leaf)
			continue;
		memcpy(prefix, path, end);
		prefix[end] = '\0';
		fd = open_in_root(root_fd, prefix);
		if (fd >= 0 && leaf)
			return fd;
		if (fd >= 0) {
			(void)close(fd);
			continue;
		}
		if (fd != -ENOENT || !create)
			return fd;
		prefix[start] = '\0';
		parent = open_in_root(root_fd, prefix);
		if (parent < 0)
			return parent;
		memcpy(prefix, path + start, end - start);
		prefix[end - start] = '\0';
		r = make_leaf(parent, prefix, !leaf || dir, leaf ? mode : pmode);
		(void)close(parent);
		if (r < 0)
			return r;
		memcpy(prefix, path, end);
		prefix[end] = '\0';
		fd = open_in_root(root_fd, prefix);
		if (fd < 0 || leaf)
			return fd;
		(void)close(fd);
	}
	return open_in_root(root_fd, "/");
}

static int detail(struct cr_child_ctx *ctx, int r, const char *fmt, ...) _printf_(3, 4);
static int detail(struct cr_child_ctx *ctx, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(ctx->detail, sizeof(ctx->detail), fmt, ap);
	va_end(ap);
	return r;
}

static int link_at(struct cr_child_ctx *ctx, const struct cr_mount_op *op, int parent,
		   const char *base);

static int make_symlink(struct cr_child_ctx *ctx, const struct cr_mount_op *op, int root_fd)
{
	_cleanup_close_ int parent = -EBADF;
	char dir[PATH_MAX];
	const char *base = strrchr(op->dst, '/') + 1;

	(void)snprintf(dir, sizeof(dir), "%.*s", (int)(base - op->dst), op->dst);
	parent = resolve(root_fd, dir, true, true, 0755, 0755);
	if (parent < 0)
		return detail(ctx, parent, "Can't make symlink at %s", op->dst);
	return link_at(ctx, op, parent, base);
}

/* The link @op makes, named @base in the directory open at @parent. */
static int link_at(struct cr_child_ctx *ctx, const struct cr_mount_op *op, int parent,
		   const char *base)
{
	char old[PATH_MAX];
	ssize_t n;

	if (symlinkat(op->src, parent, base) == 0)
		return 0;
	if (errno != EEXIST)
		return detail(ctx, negative_errno(), "Can't make symlink at %s", op->dst);
	/* The same link again is no error: the command line may be replayed. */
	n = readlinkat(parent, base, old, sizeof(old) - 1);
	if (n >= 0) {
		old[n] = '\0';
		if (strcmp(old, op->src) == 0)
			return 0;
		return detail(ctx, -EEXIST, "Can't make symlink at %.100s: existing destination is %.80s",
			      op->dst, old);
	}
	return detail(ctx, -EEXIST, "Can't make symlink at %s", op->dst);
}

/* A file holding the data, on a small detached tmpfs of its own (nothing of it is reachable by
 * a name), bound over @target. */
static int bind_data(const struct cr_mount_op *op, int target)
{
	_cleanup_close_ int fs = -EBADF, mnt = -EBADF, fd = -EBADF, tree = -EBADF;
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };

	fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0 || fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return negative_errno();
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (mnt < 0)
		return negative_errno();
	fd = openat(mnt, "data", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, op->mode);
	if (fd < 0 || fchmod(fd, op->mode) < 0)
		return negative_errno();
	if (write(fd, op->src, op->size) != (ssize_t)op->size)
		return -EIO;
	tree = open_tree(mnt, "data", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		return negative_errno();
	if (!(op->flags & CR_MNT_WRITABLE) &&
	    mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
		return negative_errno();
	if (move_mount(tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return negative_errno();
	return 0;
}

static int write_data(const struct cr_mount_op *op, int root_fd)
{
	_cleanup_close_ int parent = -EBADF, fd = -EBADF;
	char dir[PATH_MAX];
	const char *base = strrchr(op->dst, '/') + 1;

	(void)snprintf(dir, sizeof(dir), "%.*s", (int)(base - op->dst), op->dst);
	parent = resolve(root_fd, dir, true, true, 0755, 0755);
	if (parent < 0)
		return parent;
	fd = openat(parent, base, O_CREAT | O_TRUNC | O_WRONLY | O_NOCTTY | O_CLOEXEC, op->mode);
	if (fd < 0 || fchmod(fd, op->mode) < 0)
		return negative_errno();
	return write(fd, op->src, op->size) == (ssize_t)op->size ? 0 : -EIO;
}

static int chmod_fd(int fd, unsigned mode)
{
	char path[64];

	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return chmod(path, mode) < 0 ? negative_errno() : 0;
}

static int remount_ro(int target)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };

	/* That mount only, not those under it, as bwrap's --remount-ro does. */
	if (mount_setattr(target, "", AT_EMPTY_PATH, &attr, sizeof(attr)) == 0)
		return 0;
	if (errno != EINVAL)
		return negative_errno();
	/* Not a mount of its own: make it one, read-only. */
	return cr_mounts_attach_clone(target, target, MOUNT_ATTR_RDONLY, false);
}

/* The mount at @target (and, with MS_REC, those under it) gets propagation @mode. Every mount
 * of the sandbox's namespace was made private first (stage_mount_ns()): a shared one is a peer
 * group of its own, a slave one has no master, and none propagates to or from the host. */
static int propagation(int target, unsigned mode)
{
	struct mount_attr attr = { .propagation = mode & ~(unsigned)MS_REC };

	if (mount_setattr(target, "", AT_EMPTY_PATH | (mode & MS_REC ? AT_RECURSIVE : 0), &attr,
			  sizeof(attr)) < 0)
		return negative_errno();
	return 0;
}

static bool is_dir_fd(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A sysfs of the sandbox's network namespace, made read-only before it is attached; mounted
 * now, in the operations' order, as the mount table lists it. */
static int sysfs(int target)
{
	_cleanup_close_ int fs = -EBADF, mnt = -EBADF;

	fs = fsopen("sysfs", FSOPEN_CLOEXEC);
	if (fs < 0 || fsconfig(fs, FSCONFIG_SET_STRING, "source", "sysfs", 0) < 0 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return negative_errno();
	mnt = fsmount(fs, FSMOUNT_CLOEXEC,
		      MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (mnt < 0)
		return negative_errno();
	if (move_mount(mnt, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return negative_errno();
	return 0;
}

/* @op->src_fd is already a detached tree (cr_mounts_explicit_source()). With CR_MNT_RECLONE, a
 * clone of it made now, whose mounts the table lists after those made before; a kernel that
 * clones no detached tree (before 6.15) attaches the first one, in the order it was opened. */
static int bind(const struct cr_mount_op *op, int target)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_NOSUID | (op->flags & CR_MNT_DEVICES ? 0 : MOUNT_ATTR_NODEV) |
			    (op->flags & CR_MNT_WRITABLE ? 0 : MOUNT_ATTR_RDONLY),
	};
	_cleanup_close_ int again = -EBADF;
	int tree = op->src_fd;

	if (op->flags & CR_MNT_RECLONE) {
		again = open_tree(op->src_fd, "",
				  OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
		if (again >= 0)
			tree = again;
	}
	if (mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0)
		return negative_errno();
	if (move_mount(tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return negative_errno();
	return 0;
}

static int mount_one(const struct cr_mount_op *op, int target)
{
	switch (op->kind) {
	case CR_MOUNT_BIND:
		return bind(op, target);
	case CR_MOUNT_DEVICE:
		return cr_mounts_attach_clone(op->src_fd, target, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC,
					      false);
	case CR_MOUNT_TMPFS:
	case CR_MOUNT_PROC:
	case CR_MOUNT_DEVPTS:
	case CR_MOUNT_MQUEUE:
		return cr_mounts_fresh(op, target);
	case CR_MOUNT_RDONLY:
		return cr_mounts_attach_clone(target, target,
					      MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
						      MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
					      is_dir_fd(target));
	case CR_MOUNT_REMOUNT_RO:
		return remount_ro(target);
	case CR_MOUNT_CHMOD:
		return chmod_fd(target, op->mode);
	case CR_MOUNT_DIR:
		return 0;
	case CR_MOUNT_DATA:
		return bind_data(op, target);
	case CR_MOUNT_OVERLAY_SRC:
		return 0; /* its overlay, before it, used it */
	case CR_MOUNT_PROPAGATION:
		return propagation(target, op->mode);
	case CR_MOUNT_SYSFS:
		return sysfs(target);
	default:
		return -EINVAL;
	}
}

/* The descriptor the caller passed (--bind-fd) names a tree of the caller's mount namespace,
 * which this one cannot clone: the same directory, by its path here. */
static int reopen_fd(int fd)
{
	char link[64], path[PATH_MAX];
	struct stat a, b;
	ssize_t n;
	int r;

	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return negative_errno();
	path[n] = '\0';
	r = open(path, O_PATH | O_CLOEXEC);
	if (r < 0)
		return negative_errno();
	if (fstat(fd, &a) < 0 || fstat(r, &b) < 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		(void)close(r);
		return -ESTALE;
	}
	return r;
}

int cr_mounts_explicit_source(struct cr_child_ctx *ctx, struct cr_mount_op *op)
{
	_cleanup_close_ int fd = -EBADF;
	int tree;

	ctx->detail[0] = '\0';
	if (op->src_fd >= 0) {
		fd = reopen_fd(op->src_fd);
		op->src_fd = -EBADF; /* the caller's: not ours to close */
		if (fd < 0)
			return detail(ctx, fd, "Can't find the directory of the descriptor given");
	} else {
		fd = open(op->src, O_PATH | O_CLOEXEC |
					   (op->kind == CR_MOUNT_OVERLAY_SRC ? O_DIRECTORY : 0));
		if (fd < 0 && errno == ENOENT && (op->flags & CR_MNT_OPTIONAL))
			return -ENOENT;
		if (fd < 0)
			return detail(ctx, negative_errno(), "Can't find source path %s", op->src);
	}
	if (op->kind != CR_MOUNT_BIND)
		return TAKE_FD(fd);
	tree = open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
	if (tree < 0)
		return detail(ctx, negative_errno(), "Can't bind %s", op->src ?: op->dst);
	return tree;
}

static int append(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);
static int append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= size - len ? -ENAMETOOLONG : 0;
}

/* overlayfs at @target: its directories are the descriptors opened early (the OVERLAY_SRC ops
 * that follow @op), named by /proc/self/fd, so that no path needs escaping and none under the
 * new root's mount point is hidden. The last lower given is the topmost. */
static int overlay(struct cr_child_ctx *ctx, const struct cr_mount_op *op, int target)
{
	const struct cr_mount_op *src = op + 1;
	size_t n = op->size;
	_cleanup_close_ int fs = -EBADF, tmp = -EBADF;
	char data[2048] = "lowerdir=", path[64];
	int r = 0;

	for (size_t i = n; i-- > 0 && r >= 0;)
		r = append(data, sizeof(data), "%s/proc/self/fd/%d", i + 1 < n ? ":" : "",
			   src[i].src_fd);
	if (r >= 0 && (op->flags & CR_MNT_COPY)) {
		/* --tmp-overlay: upper and work on a tmpfs no one else can reach */
		fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
		if (fs < 0 || fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
			return negative_errno();
		tmp = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
		if (tmp < 0 || mkdirat(tmp, "upper", 0755) < 0 || mkdirat(tmp, "work", 0755) < 0)
			return negative_errno();
		r = append(data, sizeof(data), ",upperdir=/proc/self/fd/%d/upper,workdir=/proc/self/fd/%d/work",
			   tmp, tmp);
	} else if (r >= 0 && (op->flags & CR_MNT_WRITABLE)) {
		r = append(data, sizeof(data), ",upperdir=/proc/self/fd/%d,workdir=/proc/self/fd/%d",
			   src[n].src_fd, src[n + 1].src_fd);
	}
	if (r >= 0 && (ctx->policy->ex.namespaces & CR_NS_USER))
		r = append(data, sizeof(data), ",userxattr");
	if (r < 0)
		return r;
	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", target);
	if (mount("overlay", path, "overlay",
		  MS_NOSUID | MS_NODEV | (op->flags & CR_MNT_WRITABLE ? 0 : MS_RDONLY), data) < 0)
		return negative_errno();
	return 0;
}

/* Which operations make their destination when it is missing, and as what. */
static bool creates(const struct cr_mount_op *op)
{
	return op->kind != CR_MOUNT_RDONLY && op->kind != CR_MOUNT_REMOUNT_RO &&
	       op->kind != CR_MOUNT_CHMOD && op->kind != CR_MOUNT_PROPAGATION;
}

/* The tmpfs the last operation mounted, while no other operation has come since but those that
 * made or mounted an entry right in it (/dev's nodes, links, shm and pts after --dev): those are
 * made from a descriptor of its root, by name, instead of each by a walk from the new root. Its
 * root cannot have changed meanwhile: only its own entries were mounted on. */
static struct {
	char path[PATH_MAX]; /* the tmpfs operation's destination; "" when none */
	int fd;		     /* its root, opened at the first use; or -EBADF */
} fresh = { .fd = -EBADF };

static void fresh_forget(void)
{
	fresh.path[0] = '\0';
	closep(&fresh.fd);
	fresh.fd = -EBADF;
}

/* @op's destination as a name right in the fresh tmpfs, or NULL. */
static const char *fresh_name(const struct cr_mount_op *op)
{
	const char *base = strrchr(op->dst, '/');
	size_t n = base ? (size_t)(base - op->dst) : 0;

	if (!fresh.path[0] || !base || strlen(fresh.path) != n ||
	    strncmp(fresh.path, op->dst, n) != 0 || !base[1] || strcmp(base + 1, ".") == 0 ||
	    strcmp(base + 1, "..") == 0)
		return NULL;
	if (op->kind != CR_MOUNT_DEVICE && op->kind != CR_MOUNT_SYMLINK &&
	    op->kind != CR_MOUNT_DIR && op->kind != CR_MOUNT_DEVPTS)
		return NULL;
	return base + 1;
}

static int fresh_open(const char *name)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	long fd = syscall(SYS_openat2, fresh.fd, name, &how, sizeof(how));

	return fd < 0 ? negative_errno() : (int)fd;
}

/* @op, whose destination is @name in the fresh tmpfs. 1: not done, as it must take the walk (a
 * symlink is there already). */
static int fresh_one(struct cr_child_ctx *ctx, const struct cr_mount_op *op, int root_fd,
		     const char *name)
{
	_cleanup_close_ int target = -EBADF;
	bool dir = !(op->flags & CR_MNT_FILE);
	int r;

	if (fresh.fd < 0)
		fresh.fd = open_in_root(root_fd, fresh.path);
	if (fresh.fd < 0)
		return 1;
	if (op->kind == CR_MOUNT_SYMLINK)
		return link_at(ctx, op, fresh.fd, name);
	target = fresh_open(name);
	if (target == -ENOENT) {
		r = make_leaf(fresh.fd, name, dir,
			      dir ? (op->kind == CR_MOUNT_DIR ? op->mode : 0755) : 0444);
		if (r < 0)
			return detail(ctx, r, "Can't create %s %s",
				      cr_mount_kind_to_string(op->kind), op->dst);
		target = fresh_open(name);
	}
	if (target == -ELOOP)
		return 1;
	if (target < 0)
		return detail(ctx, target, "Can't create %s %s", cr_mount_kind_to_string(op->kind),
			      op->dst);
	r = mount_one(op, target);
	return r < 0 ? detail(ctx, r, "Can't %s %s", cr_mount_kind_to_string(op->kind), op->dst) : 0;
}

/* A device node or FIFO at @op->dst, its parents made: mknod(2) needs CAP_MKNOD over the
 * file system, which a root caller's sandbox without a user namespace has. Owned and moded as
 * asked (mknod's mode is the umask's); usable only with CR_MNT_DEVICES: then bound over itself
 * without nodev, the rest of its file system keeping it (a node the container makes there
 * stays unusable). */
static int make_node(const struct cr_mount_op *op, int root_fd)
{
	struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC,
				   .attr_clr = MOUNT_ATTR_NODEV };
	_cleanup_close_ int parent = -EBADF, node = -EBADF, tree = -EBADF;
	const char *base = strrchr(op->dst, '/');
	char dir[PATH_MAX];
	long fd;

	if (!base || !base[1] || (size_t)(base - op->dst) >= sizeof(dir))
		return -EINVAL;
	(void)snprintf(dir, sizeof(dir), "%.*s", (int)(base - op->dst), op->dst);
	parent = resolve(root_fd, dir, true, true, 0755, 0755);
	if (parent < 0)
		return parent;
	if (mknodat(parent, base + 1, op->mode, (dev_t)op->size) < 0)
		return negative_errno();
	fd = syscall(SYS_openat2, parent, base + 1, &how, sizeof(how));
	if (fd < 0)
		return negative_errno();
	node = (int)fd;
	if (fchownat(node, "", op->owner_uid, op->owner_gid, AT_EMPTY_PATH) < 0)
		return negative_errno();
	if (chmod_fd(node, op->mode & 07777) < 0)
		return negative_errno();
	if (!(op->flags & CR_MNT_DEVICES) || S_ISFIFO(op->mode))
		return 0;
	tree = open_tree(node, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (tree < 0)
		return negative_errno();
	if (mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0 ||
	    move_mount(tree, "", node, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return negative_errno();
	return 0;
}

/* Right after a --proc is mounted, before later operations cover or seal its sys/: the
 * max_user_namespaces that explicit_userns() writes for --disable-userns. Through this fresh
 * /proc the look-up skips the host /proc/sys's dentry per user namespace that ever looked there
 * (as ns/mounts.c's open_max_userns()). Left -EBADF when it cannot be opened: the host's then. */
static void open_max_userns(struct cr_child_ctx *ctx, const struct cr_mount_op *op, int root_fd)
{
	struct open_how how = { .flags = O_WRONLY | O_CLOEXEC,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	char path[PATH_MAX];
	long fd;

	if (ctx->policy->ex.nested_userns || ctx->max_userns_fd != -EBADF ||
	    snprintf(path, sizeof(path), "%s/sys/user/max_user_namespaces", op->dst) >=
		    (int)sizeof(path))
		return;
	fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
	if (fd >= 0)
		ctx->max_userns_fd = (int)fd;
}

static int walk_one(struct cr_child_ctx *ctx, const struct cr_mount_op *op, int root_fd)
{
	_cleanup_close_ int target = -EBADF;
	bool dir;
	int r;

	if (op->kind == CR_MOUNT_SYMLINK)
		return make_symlink(ctx, op, root_fd);
	if (op->kind == CR_MOUNT_NODE) {
		r = make_node(op, root_fd);
		return r < 0 ? detail(ctx, r, "Can't make device node %s", op->dst) : 0;
	}
	if (op->kind == CR_MOUNT_DATA && (op->flags & CR_MNT_COPY)) {
		r = write_data(op, root_fd);
		return r < 0 ? detail(ctx, r, "Can't write data to file %s", op->dst) : 0;
	}
	dir = op->kind == CR_MOUNT_BIND ? is_dir_fd(op->src_fd) : !(op->flags & CR_MNT_FILE);
	target = resolve(root_fd, op->dst, creates(op), dir, parent_mode(op),
			 dir ? (op->kind == CR_MOUNT_DIR ? op->mode : 0755) : 0444);
	if (target == -ENOENT && (op->flags & CR_MNT_OPTIONAL))
		return 0;
	if (target < 0)
		return detail(ctx, target, "Can't create %s %s", cr_mount_kind_to_string(op->kind),
			      op->dst);
	r = op->kind == CR_MOUNT_OVERLAY ? overlay(ctx, op, target) : mount_one(op, target);
	if (r < 0)
		return detail(ctx, r, "Can't %s %s", cr_mount_kind_to_string(op->kind), op->dst);
	if (op->kind == CR_MOUNT_PROC)
		open_max_userns(ctx, op, root_fd);
	return 0;
}

int cr_mounts_explicit_one(struct cr_child_ctx *ctx, const struct cr_mount_op *op, int root_fd)
{
	const char *name;
	int r = 1;

	if (((op->kind == CR_MOUNT_BIND || op->kind == CR_MOUNT_DEVICE) && op->src_fd < 0) ||
	    op->kind == CR_MOUNT_OVERLAY_SRC)
		r = 0; /* --*-try, or a device this host lacks; an overlay's, done with it */
	else if ((name = fresh_name(op)))
		r = fresh_one(ctx, op, root_fd, name);
	if (r == 1) {
		fresh_forget();
		r = walk_one(ctx, op, root_fd);
		if (r >= 0 && op->kind == CR_MOUNT_TMPFS && strlen(op->dst) < sizeof(fresh.path))
			memcpy(fresh.path, op->dst, strlen(op->dst) + 1);
	}
	if (op == &ctx->plan.ops[ctx->plan.n_ops - 1])
		fresh_forget(); /* the last: pid 1 keeps no descriptor of it */
	return r;
}
