/* SPDX-License-Identifier: MIT */
/* config.json to a struct cr_policy (policy.h): the OCI door's half of "one engine, many
 * doors". The filesystem becomes the policy's explicit, ordered list of operations (fs-op.h),
 * carried out by the Linux driver as it does for the bwrap personality. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cgroup/place.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/parse-util.h"
#include "idmaps.h"
#include "policy.h"
#include "seccomp-spec.h"
#include "sysctl.h"

static bool has_option(const struct cr_oci_mount *m, const char *opt)
{
	for (size_t i = 0; i < m->options.n; i++)
		if (strcmp(m->options.v[i], opt) == 0)
			return true;
	return false;
}

/* "mode=1777" and "size=65536k" of a tmpfs's options: the rest are flags corral sets itself
 * (every mount is nosuid and nodev) or leaves to the kernel's defaults. */
static int tmpfs_data(const struct cr_oci_mount *m, size_t i, struct cr_fs_op *op, char *err,
		      size_t size)
{
	for (size_t k = 0; k < m->options.n; k++) {
		const char *o = m->options.v[k];
		uint64_t v;
		char *end;

		if (strncmp(o, "mode=", 5) == 0) {
			unsigned long mode = strtoul(o + 5, &end, 8);

			if (!o[5] || *end || mode > 07777)
				return cr_msg(err, size, -EINVAL, "mounts[%zu].options: bad '%s'", i, o);
			op->mode = (uint32_t)mode;
		} else if (strncmp(o, "size=", 5) == 0) {
			v = strtoull(o + 5, &end, 10);
			if (!o[5] || (*end && strchr("kKmMgG", *end) == NULL) || (*end && end[1]))
				return cr_msg(err, size, -EINVAL, "mounts[%zu].options: bad '%s'", i, o);
			op->size = v << (*end == 'k' || *end == 'K'	? 10
					 : *end == 'm' || *end == 'M' ? 20
					 : *end == 'g' || *end == 'G' ? 30
								      : 0);
		}
	}
	return 0;
}

static int add(struct cr_policy *p, enum cr_fs_op_kind kind, unsigned flags, const char *src,
	       const char *dst, struct cr_fs_op **ret)
{
	struct cr_fs_op *op = cr_fs_op_add(&p->fs_ops, &p->n_fs_ops, kind, flags, src, dst);

	if (!op)
		return -ENOMEM;
	if (ret)
		*ret = op;
	return 0;
}

/* A path of the bundle (root.path, a bind's source) made absolute. */
static int bundle_path(const char *bundle, const char *path, char **ret)
{
	if (path[0] == '/')
		return (*ret = strdup(path)) ? 0 : -ENOMEM;
	return asprintf(ret, "%s/%s", bundle, path) < 0 ? -ENOMEM : 0;
}

/* May the container mount a sysfs of its own? The kernel lets whoever holds CAP_SYS_ADMIN over
 * the network namespace's owner: one the container makes (with its user namespace, if any), or,
 * without a user namespace of its own, the caller's root (host root, or root of the user
 * namespace a rootless engine runs its runtime in, which owns the network namespaces it makes). */
static bool own_sysfs(const struct cr_policy *p, const struct cr_oci_caller *caller)
{
	if (p->ex.namespaces & CR_NS_NET)
		return true;
	return caller->uid == 0 && !(p->ex.namespaces & CR_NS_USER) && p->ex.userns_fd < 0;
}

/* One entry of mounts[]. *@sys_done: the host's /sys was bound (its cgroup mounts come with
 * it). */
static int add_mount_op(struct cr_policy *p, const struct cr_oci_mount *m, size_t i,
			const char *bundle, const struct cr_oci_caller *caller, bool *sys_done,
			char *err, size_t size)
{
	const char *t = m->type ? m->type : "";
	bool ro = has_option(m, "ro"), r_bind = has_option(m, "bind") || has_option(m, "rbind");
	struct cr_fs_op *op;
	int r;

	if (strcmp(t, "bind") == 0 || ((!t[0] || strcmp(t, "none") == 0) && r_bind)) {
		_cleanup_free_ char *src = NULL;

		if (!m->source)
			return cr_msg(err, size, -EINVAL, "mounts[%zu].source: a bind mount needs one", i);
		r = bundle_path(bundle, m->source, &src);
		return r < 0 ? r : add(p, CR_FS_BIND, ro ? CR_FS_RO : 0, src, m->destination, NULL);
	}
	if (strcmp(t, "proc") == 0)
		return add(p, CR_FS_PROC, 0, NULL, m->destination, NULL);
	if (strcmp(t, "tmpfs") == 0 && strcmp(m->destination, "/dev") == 0)
		/* the usual nodes, devpts and shm: what runtimes make of a tmpfs on /dev */
		return add(p, CR_FS_DEV, 0, NULL, "/dev", NULL);
	if (strcmp(t, "tmpfs") == 0) {
		/* its source as given (podman's /dev/shm: "shm"), as the mount table shows it */
		r = add(p, CR_FS_TMPFS, 0, m->source && m->source[0] ? m->source : NULL,
			m->destination, &op);
		r = r ?: tmpfs_data(m, i, op, err, size);
		return r ?: ro ? add(p, CR_FS_REMOUNT_RO, 0, NULL, m->destination, NULL) : 0;
	}
	if (strcmp(t, "devpts") == 0 && strcmp(m->destination, "/dev/pts") == 0)
		return 0; /* the /dev above has its own devpts, with a private ptmx */
	if (strcmp(t, "mqueue") == 0)
		return add(p, CR_FS_MQUEUE, 0, NULL, m->destination, NULL);
	if (strcmp(t, "sysfs") == 0 && own_sysfs(p, caller)) {
		*sys_done = false; /* a sysfs of its own has no cgroup file system under it */
		return add(p, CR_FS_SYSFS, 0, NULL, m->destination, NULL);
	}
	if (strcmp(t, "sysfs") == 0) {
		/* the host's /sys, read-only (docs/oci.md) */
		*sys_done = strcmp(m->destination, "/sys") == 0;
		return add(p, CR_FS_BIND, CR_FS_RO | CR_FS_TRY, "/sys", m->destination, NULL);
	}
	if (strcmp(t, "cgroup") == 0 || strcmp(t, "cgroup2") == 0) {
		if (*sys_done && strcmp(m->destination, "/sys/fs/cgroup") == 0)
			return 0; /* already there, read-only, under the /sys above */
		return add(p, CR_FS_BIND, CR_FS_RO | CR_FS_TRY, "/sys/fs/cgroup", m->destination,
			   NULL);
	}
	return cr_msg(err, size, -EOPNOTSUPP, "mounts[%zu].type: '%s' is not supported by corral yet",
		      i, t);
}

/* Is @path @dir or under it (whole components)? The rest, "" or from its '/', in *@rest. */
static bool under(const char *path, const char *dir, const char **rest)
{
	size_t n = strcmp(dir, "/") == 0 ? 0 : strlen(dir);

	if (strncmp(path, dir, n) != 0 || (path[n] && path[n] != '/'))
		return false;
	*rest = path + n;
	return true;
}

/* Where the policy can look at what a maskedPaths or readonlyPaths entry will be in the
 * container, to tell a directory from a file: under the last of mounts[] that covers it (a
 * bind's source, the host's /proc and /sys for a procfs and sysfs, which show the same), else
 * in the rootfs. *@ret_base is that host directory, *@ret_rest the path below it. 0, or -ENOENT
 * when it is under a fresh file system (nothing there to mask). */
static int container_path(const struct cr_oci_config *c, const char *root, const char *bundle,
			  const char *path, char **ret_base, const char **ret_rest)
{
	for (size_t i = c->n_mounts; i-- > 0;) {
		const struct cr_oci_mount *m = &c->mounts[i];
		const char *t = m->type ? m->type : "";

		if (!under(path, m->destination, ret_rest))
			continue;
		if (strcmp(t, "proc") == 0 || strcmp(t, "sysfs") == 0)
			return (*ret_base = strdup(t[0] == 'p' ? "/proc" : "/sys")) ? 0 : -ENOMEM;
		if (strcmp(t, "cgroup") == 0 || strcmp(t, "cgroup2") == 0)
			return (*ret_base = strdup("/sys/fs/cgroup")) ? 0 : -ENOMEM;
		if (!m->source || (strcmp(t, "bind") != 0 && !has_option(m, "bind") &&
				   !has_option(m, "rbind")))
			return -ENOENT;
		return bundle_path(bundle, m->source, ret_base);
	}
	*ret_rest = path;
	return (*ret_base = strdup(root)) ? 0 : -ENOMEM;
}

/* stat() of what @path will be in the container: 0, or -errno (-ENOENT: not there). Resolved
 * as the driver will, inside its base: a symlink in the image never leads the look out to the
 * host's files. */
static int container_stat(const struct cr_oci_config *c, const char *root, const char *bundle,
			  const char *path, struct stat *st)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	_cleanup_close_ int base_fd = -EBADF, fd = -EBADF;
	_cleanup_free_ char *base = NULL;
	const char *rest;
	int r = container_path(c, root, bundle, path, &base, &rest);

	if (r < 0)
		return r;
	base_fd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (base_fd < 0)
		return negative_errno();
	fd = (int)syscall(SYS_openat2, base_fd, rest[0] ? rest : ".", &how, sizeof(how));
	if (fd < 0)
		return negative_errno();
	return fstat(fd, st) < 0 ? negative_errno() : 0;
}

/* Is maskedPaths[@i] under an earlier entry? That one is an empty read-only tmpfs already,
 * where nothing can be made (or a file, which has nothing under it). */
static bool masked_before(const struct cr_oci_config *c, size_t i)
{
	const char *rest;

	for (size_t k = 0; k < i; k++)
		if (under(c->masked_paths.v[i], c->masked_paths.v[k], &rest) && rest[0])
			return true;
	return false;
}

/* A mount's propagation options ("shared", "rslave"...), each in order once it is made. */
static int add_propagation(struct cr_policy *p, const struct cr_oci_mount *m)
{
	int r = 0;

	for (size_t k = 0; r >= 0 && k < m->options.n; k++) {
		unsigned long flags = cr_oci_propagation(m->options.v[k]);
		struct cr_fs_op *op;

		if (!flags)
			continue;
		r = add(p, CR_FS_PROPAGATION, 0, NULL, m->destination, &op);
		if (r >= 0)
			op->mode = (uint32_t)flags;
	}
	return r;
}

static int add_mount(struct cr_policy *p, const struct cr_oci_mount *m, size_t i,
		     const char *bundle, const struct cr_oci_caller *caller, bool *sys_done,
		     char *err, size_t size)
{
	int r = add_mount_op(p, m, i, bundle, caller, sys_done, err, size);

	return r ?: add_propagation(p, m);
}

/* maskedPaths: a directory gets an empty read-only tmpfs, anything else /dev/null; a path the
 * container will not have is skipped. readonlyPaths: remounted read-only. Each is looked at
 * where the container will see it (container_path()): the rootfs's own /masked-dir as much as
 * /proc/kcore. */
static int add_masks(struct cr_policy *p, const struct cr_oci_config *c, const char *root,
		     const char *bundle)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < c->masked_paths.n; i++) {
		const char *m = c->masked_paths.v[i];
		struct stat st;

		if (masked_before(c, i))
			continue; /* under a directory already masked: hidden with it */
		r = container_stat(c, root, bundle, m, &st);
		if (r < 0) {
			r = r == -ENOMEM ? r : 0;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			struct cr_fs_op *op;

			r = add(p, CR_FS_TMPFS, 0, NULL, m, &op);
			if (r >= 0)
				op->mode = 0;
			r = r ?: add(p, CR_FS_REMOUNT_RO, 0, NULL, m, NULL);
		} else
			r = add(p, CR_FS_BIND, CR_FS_RO | CR_FS_TRY, "/dev/null", m, NULL);
	}
	for (size_t i = 0; r >= 0 && i < c->readonly_paths.n; i++) {
		struct stat st;

		r = container_stat(c, root, bundle, c->readonly_paths.v[i], &st);
		if (r >= 0)
			r = add(p, CR_FS_REMOUNT_RO, 0, NULL, c->readonly_paths.v[i], NULL);
		else if (r != -ENOMEM)
			r = 0;
	}
	return r;
}

/* May the container open device @type @major:@minor? linux.resources.devices in order, the last
 * rule that matches it for reading or writing deciding ("m" alone is about mknod, which every
 * mount's nodev makes moot); none: no. */
static bool device_allowed(const struct cr_oci_resources *res, char type, uint32_t major,
			   uint32_t minor)
{
	bool allowed = false;

	for (size_t i = 0; i < res->n_devices; i++) {
		const struct cr_oci_device_rule *d = &res->devices[i];

		if ((d->type == 'a' || d->type == type) && (d->major < 0 || d->major == major) &&
		    (d->minor < 0 || d->minor == minor) &&
		    (strchr(d->access, 'r') || strchr(d->access, 'w')))
			allowed = d->allow;
	}
	return allowed;
}

/* Is @path on a tmpfs of mounts[] (the container's /dev), which goes with the container? */
static bool on_tmpfs(const struct cr_oci_config *c, const char *path)
{
	const char *rest;

	for (size_t i = c->n_mounts; i-- > 0;)
		if (under(path, c->mounts[i].destination, &rest) && rest[0])
			return c->mounts[i].type && strcmp(c->mounts[i].type, "tmpfs") == 0;
	return false;
}

/* linux.devices: each made with mknod where the sandbox can (a root caller without a user
 * namespace; a FIFO anywhere), usable only if resources.devices allows it; in a user
 * namespace, the host's own node at that path bound, when it is that device. */
static int add_devices(struct cr_policy *p, const struct cr_oci_config *c, bool can_mknod,
		       char *err, size_t size)
{
	for (size_t i = 0; i < c->n_devices; i++) {
		const struct cr_oci_device *d = &c->devices[i];
		char type = d->type == 'u' ? 'c' : d->type;
		bool usable = type != 'p' && device_allowed(&c->resources, type, d->major, d->minor);
		unsigned ifmt = type == 'c' ? S_IFCHR : type == 'b' ? S_IFBLK : S_IFIFO;
		struct cr_fs_op *op;
		struct stat st;
		int r;

		/* a node made in the image, or in a host directory bound in, would stay on the host,
		 * usable there by whoever reaches it */
		if (can_mknod && type != 'p' && !on_tmpfs(c, d->path))
			return cr_msg(err, size, -EPERM,
				      "linux.devices[%zu]: %s: a device node is made only on a tmpfs of mounts[] (/dev), not in the image or a host directory, where it would outlive the container",
				      i, d->path);
		if (can_mknod || type == 'p') {
			r = add(p, CR_FS_NODE, usable ? CR_FS_DEVICES : 0, NULL, d->path, &op);
			if (r < 0)
				return r;
			op->mode = ifmt | d->mode;
			op->size = makedev(d->major, d->minor);
			op->uid = d->uid;
			op->gid = d->gid;
			continue;
		}
		if (stat(d->path, &st) < 0 || (st.st_mode & S_IFMT) != ifmt ||
		    st.st_rdev != makedev(d->major, d->minor))
			return cr_msg(err, size, -EOPNOTSUPP,
				      "linux.devices[%zu]: %s: no node can be made in a user namespace, and the host has no %c %u:%u there to bind",
				      i, d->path, type, d->major, d->minor);
		r = add(p, CR_FS_BIND, usable ? CR_FS_DEVICES : 0, d->path, d->path, NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

static int add_filesystem(struct cr_policy *p, const struct cr_oci_config *c, const char *bundle,
			  const struct cr_oci_caller *caller, char *err, size_t size)
{
	_cleanup_free_ char *root = NULL;
	bool sys_done = false;
	int r;

	if (!c->root_path)
		return cr_msg(err, size, -EINVAL, "root.path: is required to create a container");
	r = bundle_path(bundle, c->root_path, &root);
	/* writable at first: missing mount points are made in it, as runtimes do */
	r = r ?: add(p, CR_FS_BIND, 0, root, "/", NULL);
	for (size_t i = 0; r >= 0 && i < c->n_mounts; i++)
		r = add_mount(p, &c->mounts[i], i, bundle, caller, &sys_done, err, size);
	r = r ?: add_devices(p, c,
			     caller->uid == 0 && !(p->ex.namespaces & CR_NS_USER) &&
				     p->ex.userns_fd < 0,
			     err, size);
	r = r ?: add_masks(p, c, root, bundle);
	if (r >= 0 && c->root_readonly)
		r = add(p, CR_FS_REMOUNT_RO, 0, NULL, "/", NULL);
	/* set by the driver once the root is / (pivot_root() refuses a shared one) */
	if (c->rootfs_propagation && c->rootfs_propagation[0])
		p->ex.root_propagation = cr_oci_propagation(c->rootfs_propagation);
	return r;
}

/* Is the namespace open at @fd the one corral is in? */
static bool same_as_ours(int fd, enum cr_oci_ns_type t)
{
	static const char *const names[_CR_OCI_NS_MAX] = {
		[CR_OCI_NS_PID] = "pid", [CR_OCI_NS_NETWORK] = "net", [CR_OCI_NS_MOUNT] = "mnt",
		[CR_OCI_NS_IPC] = "ipc", [CR_OCI_NS_UTS] = "uts", [CR_OCI_NS_USER] = "user",
		[CR_OCI_NS_CGROUP] = "cgroup", [CR_OCI_NS_TIME] = "time",
	};
	char path[64];
	struct stat a, b;

	(void)snprintf(path, sizeof(path), "/proc/self/ns/%s", names[t]);
	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

/* A namespace given by path (a pod's, made by its pause container): opened now, entered by
 * the driver before it makes the sandbox; a mount namespace by the sandbox's first process
 * once its root is built, the root then a detached clone of it (ns/stages.c). */
static int join_namespace(struct cr_policy *p, const struct cr_oci_namespace *n, unsigned bit,
			  size_t i, char *err, size_t size)
{
	int fd;

	if (n->type == CR_OCI_NS_TIME)
		return cr_msg(err, size, -EOPNOTSUPP,
			      "linux.namespaces[%zu].path: joining a %s namespace is not supported", i,
			      cr_oci_ns_type_name(n->type));
	fd = open(n->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cr_msg(err, size, negative_errno(), "linux.namespaces[%zu].path: %s: %m", i,
			      n->path);
	if (n->type == CR_OCI_NS_MOUNT) { /* even the caller's own: its root is not taken */
		p->ex.join_mnt = true;
		p->ex.mntns_fd = fd;
		return 0;
	}
	if (same_as_ours(fd, n->type)) {
		(void)close(fd); /* the caller's own: shared, as if not named */
		return 0;
	}
	if (n->type == CR_OCI_NS_USER)
		p->ex.userns_fd = fd;
	else if (n->type == CR_OCI_NS_PID)
		p->ex.pidns_fd = fd;
	else {
		p->ex.joins |= bit;
		p->ex.join_fds[__builtin_ctz(bit)] = fd;
	}
	return 0;
}

/* linux.namespaces: those to make, and those to join. */
static int add_namespaces(struct cr_policy *p, const struct cr_oci_config *c, char *err,
			  size_t size)
{
	static const unsigned bits[_CR_OCI_NS_MAX] = {
		[CR_OCI_NS_PID] = CR_NS_PID, [CR_OCI_NS_NETWORK] = CR_NS_NET,
		[CR_OCI_NS_IPC] = CR_NS_IPC, [CR_OCI_NS_UTS] = CR_NS_UTS,
		[CR_OCI_NS_USER] = CR_NS_USER, [CR_OCI_NS_CGROUP] = CR_NS_CGROUP,
	};

	for (size_t i = 0; i < c->n_namespaces; i++) {
		const struct cr_oci_namespace *n = &c->namespaces[i];

		if (n->path) {
			int r = join_namespace(p, n, bits[n->type], i, err, size);

			if (r < 0)
				return r;
			continue;
		}
		if (n->type == CR_OCI_NS_TIME)
			return cr_msg(err, size, -EOPNOTSUPP,
				      "linux.namespaces[%zu]: the time namespace is not supported", i);
		p->ex.namespaces |= bits[n->type];
	}
	if (!(p->ex.namespaces & CR_NS_PID) && p->ex.pidns_fd < 0)
		return cr_msg(err, size, -EOPNOTSUPP,
			      "linux.namespaces: corral runs a container in a pid namespace of its own; one of type pid is needed");
	return 0;
}

/* Root, no user namespace: the process's uid, gid and additionalGids, taken once the sandbox is
 * built (cr_explicit.late_ids). */
static int late_ids(struct cr_policy *p, const struct cr_oci_process *pr, char *err, size_t size)
{
	if (pr->additional_gids.n > ELEMENTSOF(p->ex.groups))
		return cr_msg(err, size, -EOPNOTSUPP,
			      "process.user.additionalGids: at most %zu groups", ELEMENTSOF(p->ex.groups));
	p->ex.late_ids = true;
	p->ex.late_uid = pr->uid;
	p->ex.late_gid = pr->gid;
	for (size_t i = 0; i < pr->additional_gids.n; i++)
		p->ex.groups[i] = pr->additional_gids.v[i];
	p->ex.n_groups = pr->additional_gids.n;
	return 0;
}

static int add_ids(struct cr_policy *p, const struct cr_oci_config *c,
		   const struct cr_oci_caller *caller, char *err, size_t size)
{
	const struct cr_oci_process *pr = &c->process;
	bool userns = p->ex.namespaces & CR_NS_USER;
	int r;

	if (!userns && caller->uid != 0)
		return cr_msg(err, size, -EOPNOTSUPP,
			      "linux.namespaces: a caller other than root needs a user namespace");
	/* root without a user namespace: the sandbox built as root, then the process's ids and
	 * groups taken, as runtimes do (ns/stages.c) */
	r = userns ? 0 : late_ids(p, pr, err, size);
	if (r < 0)
		return r;
	for (size_t i = 0; userns && i < pr->additional_gids.n; i++)
		if (pr->additional_gids.v[i] != pr->gid)
			return cr_msg(err, size, -EOPNOTSUPP,
				      "process.user.additionalGids: supplementary groups in a user namespace are not implemented yet");
	/* the user namespace corral added (userns.c) maps the process's ids itself */
	if (userns && !p->ex.idmap_root) {
		r = cr_oci_idmap_text(c->uid_mappings, c->n_uid_mappings, pr->uid, caller->uid,
				      "uidMappings", &p->ex.uid_map, &p->ex.host_uid, err, size);
		r = r ?: cr_oci_idmap_text(c->gid_mappings, c->n_gid_mappings, pr->gid,
					   caller->gid, "gidMappings", &p->ex.gid_map,
					   &p->ex.host_gid, err, size);
		if (r < 0)
			return r;
	}
	p->ex.uid = userns ? pr->uid : 0;
	p->ex.gid = userns ? pr->gid : 0;
	/* the sets runtimes are given are equal but for the ambient one: the bounding set, less
	 * what is not permitted, is what the process may ever hold */
	p->ex.caps = pr->caps[CR_OCI_CAP_BOUNDING] & pr->caps[CR_OCI_CAP_PERMITTED];
	/* the inheritable and ambient sets as listed, within what is kept (the kernel takes no
	 * inheritable capability outside the bounding set, raises no ambient one outside the
	 * permitted and inheritable sets) */
	p->ex.caps_exact = true;
	p->ex.caps_inh = pr->caps[CR_OCI_CAP_INHERITABLE] & p->ex.caps;
	p->ex.caps_amb = pr->caps[CR_OCI_CAP_AMBIENT] & p->ex.caps_inh;
	p->ex.caps_inheritable = p->ex.caps_inh != 0;
	/* process.noNewPrivileges as given: every mount is nosuid, so execve grants nothing more
	 * either way; the syscall filters still bind the process (ns/stages.c) */
	p->ex.new_privs = !pr->no_new_privileges;
	return 0;
}

static bool is_cpu_quota(const struct cr_cgroup_file *f)
{
	return strcmp(f->field, "linux.resources.cpu.quota") == 0 ||
	       strcmp(f->field, "linux.resources.cpu.period") == 0;
}

/* The other cgroup files linux.resources asks for: written in the caller's cgroup only. Without
 * one, the quota is corral's --cpu and the device rules hold by nodev (docs/oci.md); anything
 * else is refused, named. */
static int add_files(struct cr_limits *l, const struct cr_oci_resources *res, char *err,
		     size_t size)
{
	if (l->cgroup_path[0]) {
		l->files = res->files;
		l->n_files = res->n_files;
		return 0;
	}
	for (size_t i = 0; i < res->n_files; i++)
		if (!res->files[i].optional && !is_cpu_quota(&res->files[i]))
			return cr_msg(err, size, -EOPNOTSUPP,
				      "%s: needs linux.cgroupsPath (corral writes it into the caller's cgroup)",
				      res->files[i].field);
	return 0;
}

static int add_limits(struct cr_policy *p, const struct cr_oci_config *c, char *err, size_t size)
{
	const struct cr_oci_resources *res = &c->resources;
	struct cr_limits *l = &p->limits;
	char why[256];

	/* the caller's own cgroup: the container's processes, its limits and its events there */
	if (c->cgroups_path && c->cgroups_path[0]) {
		if (cr_cgroup_path_check(c->cgroups_path, why, sizeof(why)) < 0)
			return cr_msg(err, size, -EINVAL, "linux.cgroupsPath: %s", why);
		(void)strlcpy(l->cgroup_path, c->cgroups_path, sizeof(l->cgroup_path));
	}
	if (res->cpu_shares > 0 && !l->cgroup_path[0])
		return cr_msg(err, size, -EOPNOTSUPP,
			      "linux.resources.cpu.shares: needs linux.cgroupsPath (a weight among the caller's cgroups)");
	l->cpu_shares = res->cpu_shares > 262144 ? 262144 : (uint64_t)res->cpu_shares;

	if (res->memory_limit > 0) {
		l->value[CR_LIMIT_MEMORY] = (uint64_t)res->memory_limit;
		l->set[CR_LIMIT_MEMORY] = true;
	}
	if (res->memory_swap > 0 && res->memory_limit > 0 && res->memory_swap >= res->memory_limit) {
		l->value[CR_LIMIT_MEMORY_SWAP] = (uint64_t)(res->memory_swap - res->memory_limit);
		l->set[CR_LIMIT_MEMORY_SWAP] = true;
	}
	/* corral's floor: a fork bomb stops somewhere even when the caller set no limit */
	l->value[CR_LIMIT_PIDS] = res->pids_limit > 0 ? (uint64_t)res->pids_limit : CR_DEFAULT_PIDS;
	l->set[CR_LIMIT_PIDS] = res->pids_limit > 0;
	/* in the caller's cgroup, the exact quota and period are among the files */
	if (res->cpu_quota > 0 && !l->cgroup_path[0]) {
		int64_t period = res->cpu_period > 0 ? res->cpu_period : 100000;

		l->value[CR_LIMIT_CPU] = (uint64_t)(res->cpu_quota * 1000 / period) ?: 1;
		l->set[CR_LIMIT_CPU] = true;
	}
	return add_files(l, res, err, size);
}

static int copy_strv(const struct cr_oci_strv *s, char ***ret)
{
	char **v = calloc(s->n + 1, sizeof(char *));

	if (!v)
		return -ENOMEM;
	*ret = v;
	for (size_t i = 0; i < s->n; i++)
		if (!(v[i] = strdup(s->v[i])))
			return -ENOMEM;
	return 0;
}

static int refuse_unimplemented(const struct cr_oci_config *c, char *err, size_t size)
{
	/* the two that run inside the container, after its root is made (the others run:
	 * hooks.h) */
	if (c->n_hooks[CR_OCI_HOOK_CREATE_CONTAINER] || c->n_hooks[CR_OCI_HOOK_START_CONTAINER])
		return cr_msg(err, size, -EOPNOTSUPP,
			      "hooks.%s: hooks run inside the container are not supported by corral (prestart, createRuntime, poststart and poststop are)",
			      cr_oci_hook_name(c->n_hooks[CR_OCI_HOOK_CREATE_CONTAINER]
						       ? CR_OCI_HOOK_CREATE_CONTAINER
						       : CR_OCI_HOOK_START_CONTAINER));
	/* linux.resources.devices goes to the devices cgroup v1 of the caller's cgroup; where there
	 * is none (cgroup2, no cgroupsPath), the rules still hold: every mount corral makes is
	 * nodev and its /dev holds only the nodes runtimes allow whatever the list says (null,
	 * zero, full, random, urandom, tty, ptmx and the pts), and a linux.devices node is usable
	 * only where the list allows it (add_devices()): no other node can be opened, an
	 * allow rule grants nothing more, a deny rule takes nothing away that a devices cgroup
	 * would (docs/oci.md) */
	return 0;
}

/* The command of a container whose config.json has no process (runtime-spec: optional at create,
 * required at start): pid 1 is made and waits as for any other, `start` refuses and ends it
 * (lifecycle.c); were it ever released, "/" cannot be executed. */
static const struct cr_oci_strv no_process = { .v = (const char *[]){ "/" }, .n = 1 };

int cr_oci_policy_build(const struct cr_oci_config *c, const char *bundle,
			const struct cr_oci_caller *caller, struct cr_policy *ret, char *err,
			size_t size)
{
	const struct cr_oci_process *pr = &c->process;
	int r;

	*ret = (struct cr_policy){
		.landlock = CR_LANDLOCK_OFF,
		/* the floor: the built-in denylist, under what the bundle asks for */
		.seccomp = CR_SECCOMP_DEFAULT,
		.ex = { .on = true, .nested_userns = false, .as_pid_1 = true, .harden_proc = true,
			.binds_in_order = true,
			.new_session = true, .block_fd = -1, .ready_fd = -1, .userns_block_fd = -1,
			.userns_fd = -1, .userns2_fd = -1, .pidns_fd = -1,
			.mntns_fd = -1 },
	};
	err[0] = '\0';
	r = refuse_unimplemented(c, err, size);
	r = r ?: add_namespaces(ret, c, err, size);
	r = r ?: cr_oci_userns_apply(c, caller->host_root, caller->userns, ret, err, size);
	/* no user namespace within the container's own (the engine can forbid that only there;
	 * elsewhere the seccomp floor refuses new ones) */
	ret->ex.nested_userns = !(ret->ex.namespaces & CR_NS_USER);
	r = r ?: cr_oci_sysctl_check(&c->sysctl, ret->ex.namespaces | ret->ex.joins, err, size);
	r = r ?: add_ids(ret, c, caller, err, size);
	/* ...forbidden in the container's user namespace itself (its process keeps the config's
	 * maps and capabilities) when no process there can hold CAP_SYS_RESOURCE to write the
	 * limit back; else in a nested namespace of one id (ns/stages.c) */
	ret->ex.userns_limit_own = !ret->ex.nested_userns &&
				 !(ret->ex.caps & (1ull << CAP_SYS_RESOURCE));
	r = r ?: add_filesystem(ret, c, bundle, caller, err, size);
	r = r ?: add_limits(ret, c, err, size);
	r = r ?: cr_oci_seccomp_compile(&c->seccomp, ret, err, size);
	r = r ?: copy_strv(pr->present ? &pr->args : &no_process, &ret->argv);
	r = r ?: copy_strv(&pr->env, &ret->env);
	if (r >= 0 && !(ret->cwd = strdup(pr->cwd ? pr->cwd : "/")))
		r = -ENOMEM;
	/* made or joined (a pod's, set there as other runtimes do); never the caller's own */
	if (r >= 0 && c->hostname && c->hostname[0] &&
	    !((ret->ex.namespaces | ret->ex.joins) & CR_NS_UTS))
		r = cr_msg(err, size, -EINVAL,
			   "hostname: needs a uts namespace other than the caller's (made or joined)");
	if (r >= 0 && c->hostname && c->hostname[0] && !(ret->hostname = strdup(c->hostname)))
		r = -ENOMEM;
	ret->net = ret->ex.namespaces & CR_NS_NET ? CR_NET_NONE : CR_NET_HOST;
	if (r == -ENOMEM && !err[0])
		(void)snprintf(err, size, "%s", strerror(ENOMEM));
	return r;
}

const char *cr_oci_policy_floor_note(const struct cr_policy *p)
{
	if (!(p->ex.namespaces & CR_NS_USER) || p->ex.userns_limit_own)
		return NULL;
	return "process.capabilities: CAP_SYS_RESOURCE kept, with which the process could raise user.max_user_namespaces in the container's user namespace: corral's floor puts it in a nested user namespace of one id (uid_map 0 0 1), where it holds no capability";
}
