/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "idmap.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/mountinfo.h"
#include "launcher/base/path-open.h"
#include "launcher/base/path-util.h"

void cr_idmap_compute(uint32_t uid, uint32_t gid, bool map_root, uint32_t root_uid,
		      uint32_t root_gid, struct cr_idmap *ret)
{
	uint32_t out_uid = uid == 0 ? root_uid : uid;
	uint32_t out_gid = uid == 0 ? root_gid : gid;

	*ret = (struct cr_idmap){
		.inside_uid = map_root ? 0 : out_uid,
		.outside_uid = out_uid,
		.inside_gid = map_root ? 0 : out_gid,
		.outside_gid = out_gid,
	};
}

void cr_idmap_explicit(const struct cr_explicit *ex, uint32_t uid, uint32_t gid,
		       struct cr_idmap *ret)
{
	*ret = (struct cr_idmap){
		.inside_uid = ex->uid,
		.outside_uid = ex->uid_map || ex->idmap_root ? ex->host_uid : uid,
		.inside_gid = ex->gid,
		.outside_gid = ex->gid_map || ex->idmap_root ? ex->host_gid : gid,
		.uid_text = ex->uid_map,
		.gid_text = ex->gid_map,
	};
}

int cr_idmap_format(uint32_t inside, uint32_t outside, char *buf, size_t size)
{
	return snprintf(buf, size, "%u %u 1\n", inside, outside);
}

static int write_file(pid_t pid, const char *name, const char *content)
{
	_cleanup_close_ int fd = -EBADF;
	char path[64];
	size_t len = strlen(content);
	ssize_t n;

	(void)snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	n = write(fd, content, len);
	if (n < 0)
		return negative_errno();
	return (size_t)n == len ? 0 : -EIO;
}

int cr_idmap_write(pid_t pid, const struct cr_idmap *map, const char **ret_file)
{
	char line[64];
	int r;

	/* Without "deny" an unprivileged writer may not map gids, and the sandbox could drop
	 * supplementary groups that deny it access. */
	r = write_file(pid, "setgroups", "deny");
	if (r < 0 && r != -ENOENT) {
		*ret_file = "setgroups";
		return r;
	}
	(void)cr_idmap_format(map->inside_uid, map->outside_uid, line, sizeof(line));
	r = write_file(pid, "uid_map", map->uid_text ?: line);
	if (r < 0) {
		*ret_file = "uid_map";
		return r;
	}
	(void)cr_idmap_format(map->inside_gid, map->outside_gid, line, sizeof(line));
	r = write_file(pid, "gid_map", map->gid_text ?: line);
	if (r < 0) {
		*ret_file = "gid_map";
		return r;
	}
	return 0;
}

/* The helpers' stacks, one per owner of a run: a helper shares corral's memory (CLONE_VM, so
 * that nothing is copied: a fork of corral took 1-10 ms here) and runs only helper_main(). One
 * killed may still be on its way out when the next starts. */
#define HELPER_STACK 4096
static char helper_stacks[CR_IDMAP_MAX_OWNERS][HELPER_STACK] __attribute__((aligned(16)));

static int helper_main(void *arg)
{
	/* The raw syscall: a libc wrapper could touch corral's thread state, which it shares. */
	for (;;)
		(void)syscall(SYS_ppoll, NULL, 0, NULL, NULL, 0);
	return 0;
}

int cr_idmap_userns_fd(const struct cr_idmap *map, unsigned slot, int *ret_fd, pid_t *ret_pid)
{
	const char *file;
	char path[64];
	pid_t pid;
	int fd, r;

	if (slot >= CR_IDMAP_MAX_OWNERS)
		return -E2BIG;
	/* A process that only waits in a new user namespace, for as long as it takes to write its
	 * maps and open the namespace: the descriptor keeps the namespace alive after it is gone. */
	pid = clone(helper_main, helper_stacks[slot] + HELPER_STACK,
		    CLONE_VM | CLONE_NEWUSER | SIGCHLD, NULL);
	if (pid < 0)
		return negative_errno();
	*ret_pid = pid;
	r = cr_idmap_write(pid, map, &file);
	(void)snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	fd = r < 0 ? r : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && r >= 0)
		r = negative_errno();
	/* Reaped later (cr_idmap_reap()): waiting for its exit here, the namespace's teardown
	 * included, cost up to 3 ms of the run's start on a busy host. */
	(void)kill(pid, SIGKILL);
	if (r < 0)
		return r;
	*ret_fd = fd;
	return 0;
}

void cr_idmap_reap(struct cr_idmap_helpers *h)
{
	for (size_t i = 0; i < h->n; i++)
		(void)waitpid(h->pids[i], NULL, 0);
	h->n = 0;
}

int cr_idmap_mount_tree(int src_fd, int userns_fd, int *ret_tree)
{
	_cleanup_close_ int tree = -EBADF;
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
		.userns_fd = (uint64_t)userns_fd,
	};

	tree = open_tree(src_fd, "",
			 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
	if (tree < 0)
		return negative_errno();
	if (mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0)
		return negative_errno();
	*ret_tree = TAKE_FD(tree);
	return 0;
}

/* The name of a file system type that idmapped mounts are asked of most, for the message. */
static const char *fs_name(int fd, char *buf, size_t size)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} names[] = {
		{ 0xef53, "ext4" },	    { 0x58465342, "xfs" },  { 0x9123683e, "btrfs" },
		{ 0x01021994, "tmpfs" },    { 0x794c7630, "overlay" }, { 0x6969, "nfs" },
		{ 0x65735546, "fuse" },	    { 0x2fc12fc1, "zfs" },  { 0x01021997, "9p" },
		{ 0xff534d42, "cifs" },	    { 0x4d44, "vfat" },	    { 0x5346544e, "ntfs" },
		{ 0x858458f6, "ramfs" },
	};
	struct statfs st;

	if (fstatfs(fd, &st) < 0)
		return "unknown";
	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if ((unsigned long)st.f_type == names[i].magic)
			return names[i].name;
	(void)snprintf(buf, size, "type 0x%lx", (unsigned long)st.f_type);
	return buf;
}

struct owner_ns {
	uint32_t uid, gid;
	int fd;
};

/* The user namespace that maps @uid/@gid to the sandbox's host ids: one per owner and run. */
static int owner_userns(struct owner_ns *cache, size_t *n, size_t max, uint32_t uid, uint32_t gid,
			const struct cr_idmap *sandbox, struct cr_idmap_helpers *helpers)
{
	struct cr_idmap map = { .inside_uid = uid, .outside_uid = sandbox->outside_uid,
				.inside_gid = gid, .outside_gid = sandbox->outside_gid };
	pid_t pid = 0;
	int fd, r;

	for (size_t i = 0; i < *n; i++)
		if (cache[i].uid == uid && cache[i].gid == gid)
			return cache[i].fd;
	if (*n == max)
		return -E2BIG;
	r = cr_idmap_userns_fd(&map, (unsigned)*n, &fd, &pid);
	if (pid > 0) /* max is at most CR_IDMAP_MAX_OWNERS: room for each one's pid */
		helpers->pids[helpers->n++] = pid;
	if (r < 0)
		return r;
	cache[(*n)++] = (struct owner_ns){ uid, gid, fd };
	return fd;
}

/* Whether the one mount at @fd, without what is mounted below it, can be idmapped through
 * @userns: 0, or mount_setattr()'s -errno (-EINVAL: its file system cannot be). */
static int idmap_probe(int fd, int userns)
{
	_cleanup_close_ int tree = -EBADF;
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP, .userns_fd = (uint64_t)userns };

	tree = open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (tree < 0)
		return negative_errno();
	if (mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
		return negative_errno();
	return 0;
}

/* The mount below @top (a canonical path; not @top itself) that cannot be idmapped through
 * @userns: each mount point under it in /proc/self/mountinfo is tried alone, as the mount found
 * there (a mount hidden under another cannot be reached, and is skipped). Its mount point and
 * type in @ret_mnt and @ret_type, printable. 0, -ENOENT if none, or -errno. */
static int unidmappable_below(const char *top, int userns, char *ret_mnt, size_t mnt_size,
			      char *ret_type, size_t type_size)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	if (!f)
		return negative_errno();
	while ((len = getline(&line, &cap, f)) > 0) {
		_cleanup_close_ int fd = -EBADF;
		struct cr_mountinfo mi;
		struct statx stx;

		line[len - 1] = line[len - 1] == '\n' ? '\0' : line[len - 1];
		if (cr_mountinfo_parse(line, &mi) < 0 || strcmp(mi.mount_point, top) == 0 ||
		    !cr_path_is_within(mi.mount_point, top))
			continue;
		fd = cr_open_path_nofollow(mi.mount_point);
		if (fd < 0 || statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) < 0 ||
		    !(stx.stx_mask & STATX_MNT_ID) || stx.stx_mnt_id != mi.id ||
		    idmap_probe(fd, userns) != -EINVAL)
			continue;
		cr_mountinfo_printable(mi.mount_point, ret_mnt, mnt_size);
		cr_mountinfo_printable(mi.fstype, ret_type, type_size);
		return 0;
	}
	return -ENOENT;
}

/* The reason @path (open at @src) could not be idmapped as a tree (-EINVAL), with the fix: its
 * own file system, or a mount below it. The tree is idmapped whole or not at all: a mount left
 * out would hide what the user put there, and one left unidmapped would not be the owner's to
 * write. Error path only. */
static void einval_msg(const char *path, int src, int userns, uint32_t owner,
		       const struct cr_idmap *sandbox, char *msg, size_t size)
{
	char top[PATH_MAX], sub[512], type[64], what[768], proc[64], buf[32];
	ssize_t n;

	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", src);
	n = readlink(proc, top, sizeof(top) - 1);
	if (n > 0 && idmap_probe(src, userns) == 0) {
		top[n] = '\0';
		if (unidmappable_below(top, userns, sub, sizeof(sub), type, sizeof(type)) == 0)
			(void)snprintf(what, sizeof(what), "%s (a %s mount in %s)", sub, type,
				       path);
		else
			(void)snprintf(what, sizeof(what), "a mount in %s, hidden under another,",
				       path);
		(void)snprintf(msg, size,
			       "%s cannot be idmapped, so neither can %s, which is idmapped whole or not at all, and the sandbox (host uid %u) cannot write there as its owner (uid %u); "
			       "fix: umount it, or choose a workspace or --rw path that does not hold it, or pass --uid/--gid of its owner if not root",
			       what, path, sandbox->outside_uid, owner);
		return;
	}
	(void)snprintf(msg, size,
		       "%s is on a file system (%s) that cannot be idmapped, so the sandbox (host uid %u) cannot write as its owner (uid %u); "
		       "fix: chown -R %u:%u %s, or pass --uid/--gid of its owner if not root, or put it on ext4, xfs, btrfs or tmpfs",
		       path, fs_name(src, buf, sizeof(buf)), sandbox->outside_uid, owner,
		       sandbox->outside_uid, sandbox->outside_gid, path);
}

/* @op idmapped as its source's owner, or with @encl (an idmapped pin's enclosing path) as that
 * path's owner. */
static int idmap_one(struct cr_mount_op *op, const struct cr_mount_op *encl,
		     const struct cr_idmap *sandbox, struct owner_ns *cache, size_t *n_cache,
		     size_t max, struct cr_idmap_helpers *helpers, char *msg, size_t size)
{
	_cleanup_close_ int src = -EBADF;
	struct stat st;
	int userns, tree, r;

	src = cr_open_path_nofollow(op->src);
	if (src == -ENOENT && (op->flags & CR_MNT_OPTIONAL))
		return 0;
	if (src < 0 || fstat(src, &st) < 0) {
		r = src < 0 ? src : negative_errno();
		(void)snprintf(msg, size, "cannot open %s: %s", op->src, strerror(-r));
		return r;
	}
	if (encl) {
		st.st_uid = encl->owner_uid;
		st.st_gid = encl->owner_gid;
	} else if (st.st_uid == sandbox->outside_uid) {
		return 0; /* the sandbox owns it already: a plain bind */
	}
	userns = owner_userns(cache, n_cache, max, st.st_uid, st.st_gid, sandbox, helpers);
	if (userns < 0) {
		(void)snprintf(msg, size, "cannot make the user namespace that idmaps %s: %s",
			       op->src, userns == -E2BIG ? "too many owners" : strerror(-userns));
		return userns;
	}
	r = cr_idmap_mount_tree(src, userns, &tree);
	if (r == -EINVAL) {
		einval_msg(op->src, src, userns, st.st_uid, sandbox, msg, size);
		return r;
	}
	if (r < 0) {
		(void)snprintf(msg, size, "cannot make an idmapped mount of %s: %s", op->src,
			       strerror(-r));
		return r;
	}
	op->src_fd = tree;
	op->flags |= CR_MNT_IDMAPPED;
	op->owner_uid = st.st_uid;
	op->owner_gid = st.st_gid;
	return 0;
}

/* The host's system directories (but /opt, where checkouts live), what is in them and what holds
 * them: --rw /etc as root stays a plain bind, where root's files are not the sandbox's. */
static bool system_path(const char *path)
{
	for (size_t i = 0; cr_mount_plan_system_dirs[i]; i++)
		if (strcmp(cr_mount_plan_system_dirs[i], "/opt") != 0 &&
		    (cr_path_is_within(path, cr_mount_plan_system_dirs[i]) ||
		     cr_path_is_within(cr_mount_plan_system_dirs[i], path)))
			return true;
	return false;
}

/* The innermost writable bind, not a pin, that holds ops[@i]: the plan is parent-first. */
static const struct cr_mount_op *enclosing(const struct cr_mount_plan *plan, size_t i)
{
	const char *dst = plan->ops[i].dst;

	while (i-- > 0) {
		const struct cr_mount_op *e = &plan->ops[i];

		if (e->kind == CR_MOUNT_BIND && (e->flags & CR_MNT_WRITABLE) &&
		    !(e->flags & CR_MNT_PIN) && cr_path_is_within(dst, e->dst))
			return e;
	}
	return NULL;
}

int cr_idmap_plan(struct cr_mount_plan *plan, const struct cr_idmap *sandbox,
		  struct cr_idmap_helpers *helpers, size_t *ret_n, char *msg, size_t size)
{
	struct owner_ns cache[CR_IDMAP_MAX_OWNERS];
	size_t n_cache = 0, n = 0;
	int r = 0;

	for (size_t i = 0; i < plan->n_ops && r >= 0; i++) {
		struct cr_mount_op *op = &plan->ops[i];
		const struct cr_mount_op *encl = NULL;

		/* An explicit plan (an OCI container's, with the user namespace corral added): its
		 * root alone, read-only or not, so that the image's files are the container's;
		 * what is bound into it keeps its host owners. */
		if (op->flags & CR_MNT_EXPLICIT) {
			if (op->kind == CR_MOUNT_BIND && strcmp(op->dst, "/") == 0)
				r = idmap_one(op, NULL, sandbox, cache, &n_cache,
					      ELEMENTSOF(cache), helpers, msg, size);
			n += r >= 0 && (op->flags & CR_MNT_IDMAPPED);
			continue;
		}
		if (op->kind != CR_MOUNT_BIND || !(op->flags & CR_MNT_WRITABLE))
			continue;
		if (system_path(op->src)) {
			cr_debug("not idmapped: %s is a system directory, in one or above one",
				 op->src);
			continue;
		}
		/* A pin (a directory bound onto itself inside a writable path, to hold corral's
		 * files in place) is what its path is around it: idmapped as that path is, or not. */
		if (op->flags & CR_MNT_PIN) {
			encl = enclosing(plan, i);
			if (!encl || !(encl->flags & CR_MNT_IDMAPPED))
				continue;
		}
		r = idmap_one(op, encl, sandbox, cache, &n_cache, ELEMENTSOF(cache), helpers, msg,
			      size);
		n += r >= 0 && (op->flags & CR_MNT_IDMAPPED);
	}
	for (size_t i = 0; i < n_cache; i++)
		(void)close(cache[i].fd);
	*ret_n = n;
	return r;
}
