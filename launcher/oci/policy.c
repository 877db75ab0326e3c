/* SPDX-License-Identifier: MIT */
/* config.json to a struct cr_policy (policy.h): the OCI door's half of "one engine, many
 * doors". The filesystem becomes the policy's explicit, ordered list of operations (fs-op.h),
 * carried out by the Linux driver as it does for the bwrap personality. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/place.h"
#include "launcher/base/macro.h"
#include "launcher/base/parse-util.h"
#include "policy.h"
#include "seccomp-spec.h"
#include "sysctl.h"

static int fail(char *err, size_t size, int r, const char *fmt, ...) _printf_(4, 5);
static int fail(char *err, size_t size, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return r;
}

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
				return fail(err, size, -EINVAL, "mounts[%zu].options: bad '%s'", i, o);
			op->mode = (uint32_t)mode;
		} else if (strncmp(o, "size=", 5) == 0) {
			v = strtoull(o + 5, &end, 10);
			if (!o[5] || (*end && strchr("kKmMgG", *end) == NULL) || (*end && end[1]))
				return fail(err, size, -EINVAL, "mounts[%zu].options: bad '%s'", i, o);
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

/* One entry of mounts[]. *@dev_done: /dev was made whole (its devpts comes with it). */
static int add_mount(struct cr_policy *p, const struct cr_oci_mount *m, size_t i,
		     const char *bundle, bool *sys_done, char *err, size_t size)
{
	const char *t = m->type ? m->type : "";
	bool ro = has_option(m, "ro"), r_bind = has_option(m, "bind") || has_option(m, "rbind");
	struct cr_fs_op *op;
	int r;

	if (strcmp(t, "bind") == 0 || ((!t[0] || strcmp(t, "none") == 0) && r_bind)) {
		_cleanup_free_ char *src = NULL;

		if (!m->source)
			return fail(err, size, -EINVAL, "mounts[%zu].source: a bind mount needs one", i);
		r = bundle_path(bundle, m->source, &src);
		return r < 0 ? r : add(p, CR_FS_BIND, ro ? CR_FS_RO : 0, src, m->destination, NULL);
	}
	if (strcmp(t, "proc") == 0)
		return add(p, CR_FS_PROC, 0, NULL, m->destination, NULL);
	if (strcmp(t, "tmpfs") == 0 && strcmp(m->destination, "/dev") == 0)
		/* the usual nodes, devpts and shm: what runtimes make of a tmpfs on /dev */
		return add(p, CR_FS_DEV, 0, NULL, "/dev", NULL);
	if (strcmp(t, "tmpfs") == 0) {
		r = add(p, CR_FS_TMPFS, 0, NULL, m->destination, &op);
		r = r ?: tmpfs_data(m, i, op, err, size);
		return r ?: ro ? add(p, CR_FS_REMOUNT_RO, 0, NULL, m->destination, NULL) : 0;
	}
	if (strcmp(t, "devpts") == 0 && strcmp(m->destination, "/dev/pts") == 0)
		return 0; /* the /dev above has its own devpts, with a private ptmx */
	if (strcmp(t, "mqueue") == 0)
		return add(p, CR_FS_MQUEUE, 0, NULL, m->destination, NULL);
	if (strcmp(t, "sysfs") == 0) {
		/* the host's /sys, read-only (no sysfs of its own yet: docs/oci.md) */
		*sys_done = strcmp(m->destination, "/sys") == 0;
		return add(p, CR_FS_BIND, CR_FS_RO | CR_FS_TRY, "/sys", m->destination, NULL);
	}
	if (strcmp(t, "cgroup") == 0 || strcmp(t, "cgroup2") == 0) {
		if (*sys_done && strcmp(m->destination, "/sys/fs/cgroup") == 0)
			return 0; /* already there, read-only, under the /sys above */
		return add(p, CR_FS_BIND, CR_FS_RO | CR_FS_TRY, "/sys/fs/cgroup", m->destination,
			   NULL);
	}
	return fail(err, size, -EOPNOTSUPP, "mounts[%zu].type: '%s' is not supported by corral yet",
		    i, t);
}

/* maskedPaths: a directory gets an empty read-only tmpfs, a file /dev/null; what the host does
 * not have (they are /proc and /sys paths, the same there) is skipped. readonlyPaths: remounted
 * read-only. */
static int add_masks(struct cr_policy *p, const struct cr_oci_config *c)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < c->masked_paths.n; i++) {
		const char *m = c->masked_paths.v[i];
		struct stat st;

		if (stat(m, &st) < 0)
			continue;
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

		if (stat(c->readonly_paths.v[i], &st) == 0)
			r = add(p, CR_FS_REMOUNT_RO, 0, NULL, c->readonly_paths.v[i], NULL);
	}
	return r;
}

static int add_filesystem(struct cr_policy *p, const struct cr_oci_config *c, const char *bundle,
			  char *err, size_t size)
{
	_cleanup_free_ char *root = NULL;
	bool sys_done = false;
	int r;

	if (!c->root_path)
		return fail(err, size, -EINVAL, "root.path: is required to create a container");
	r = bundle_path(bundle, c->root_path, &root);
	/* writable at first: missing mount points are made in it, as runtimes do */
	r = r ?: add(p, CR_FS_BIND, 0, root, "/", NULL);
	for (size_t i = 0; r >= 0 && i < c->n_mounts; i++)
		r = add_mount(p, &c->mounts[i], i, bundle, &sys_done, err, size);
	r = r ?: add_masks(p, c);
	if (r >= 0 && c->root_readonly)
		r = add(p, CR_FS_REMOUNT_RO, 0, NULL, "/", NULL);
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
 * the driver before it makes the sandbox. Not the mount namespace: the container's root is
 * its own. */
static int join_namespace(struct cr_policy *p, const struct cr_oci_namespace *n, unsigned bit,
			  size_t i, char *err, size_t size)
{
	int fd;

	if (n->type == CR_OCI_NS_MOUNT || n->type == CR_OCI_NS_TIME)
		return fail(err, size, -EOPNOTSUPP,
			    "linux.namespaces[%zu].path: joining a %s namespace is not supported", i,
			    cr_oci_ns_type_name(n->type));
	fd = open(n->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, size, negative_errno(), "linux.namespaces[%zu].path: %s: %m", i,
			    n->path);
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
			return fail(err, size, -EOPNOTSUPP,
				    "linux.namespaces[%zu]: the time namespace is not supported", i);
		p->ex.namespaces |= bits[n->type];
	}
	if (!(p->ex.namespaces & CR_NS_PID) && p->ex.pidns_fd < 0)
		return fail(err, size, -EOPNOTSUPP,
			    "linux.namespaces: corral runs a container in a pid namespace of its own; one of type pid is needed");
	return 0;
}

/* uidMappings/gidMappings: the engine maps one id, the process's, to the caller's own. */
static int check_mapping(const struct cr_oci_idmap *m, size_t n, uint32_t inside,
			 uint32_t outside, const char *field, char *err, size_t size)
{
	if (n == 0)
		return 0;
	if (n == 1 && m[0].size >= 1 && m[0].host_id == outside && m[0].container_id == inside)
		return 0;
	return fail(err, size, -EOPNOTSUPP,
		    "linux.%s: corral maps one id yet, the process's (%u) to the caller's (%u)",
		    field, inside, outside);
}

static int add_ids(struct cr_policy *p, const struct cr_oci_config *c,
		   const struct cr_oci_caller *caller, char *err, size_t size)
{
	const struct cr_oci_process *pr = &c->process;
	bool userns = p->ex.namespaces & CR_NS_USER;
	int r;

	for (size_t i = 0; i < pr->additional_gids.n; i++)
		if (pr->additional_gids.v[i] != pr->gid)
			return fail(err, size, -EOPNOTSUPP,
				    "process.user.additionalGids: supplementary groups are not implemented yet");
	if (!userns && caller->uid != 0)
		return fail(err, size, -EOPNOTSUPP,
			    "linux.namespaces: a caller other than root needs a user namespace");
	if (!userns && (pr->uid != caller->uid || pr->gid != caller->gid))
		return fail(err, size, -EOPNOTSUPP,
			    "process.user: without a user namespace corral runs the process as the caller (%u:%u) yet",
			    caller->uid, caller->gid);
	if (userns) {
		r = check_mapping(c->uid_mappings, c->n_uid_mappings, pr->uid, caller->uid,
				  "uidMappings", err, size);
		r = r ?: check_mapping(c->gid_mappings, c->n_gid_mappings, pr->gid, caller->gid,
				       "gidMappings", err, size);
		if (r < 0)
			return r;
	}
	p->ex.uid = pr->uid;
	p->ex.gid = pr->gid;
	/* the sets runtimes are given are equal but for the ambient one: the bounding set, less
	 * what is not permitted, is what the process may ever hold */
	p->ex.caps = pr->caps[CR_OCI_CAP_BOUNDING] & pr->caps[CR_OCI_CAP_PERMITTED];
	p->ex.caps_inheritable = pr->caps[CR_OCI_CAP_INHERITABLE] != 0;
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
			return fail(err, size, -EINVAL, "linux.cgroupsPath: %s", why);
		(void)strlcpy(l->cgroup_path, c->cgroups_path, sizeof(l->cgroup_path));
	}
	if (res->cpu_shares > 0 && !l->cgroup_path[0])
		return fail(err, size, -EOPNOTSUPP,
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
	if (res->cpu_quota > 0) {
		int64_t period = res->cpu_period > 0 ? res->cpu_period : 100000;

		l->value[CR_LIMIT_CPU] = (uint64_t)(res->cpu_quota * 1000 / period) ?: 1;
		l->set[CR_LIMIT_CPU] = true;
	}
	return 0;
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
		return fail(err, size, -EOPNOTSUPP,
			    "hooks.%s: hooks run inside the container are not supported by corral (prestart, createRuntime, poststart and poststop are)",
			    cr_oci_hook_name(c->n_hooks[CR_OCI_HOOK_CREATE_CONTAINER]
						     ? CR_OCI_HOOK_CREATE_CONTAINER
						     : CR_OCI_HOOK_START_CONTAINER));
	/* linux.resources.devices is accepted as it stands: every mount corral makes is nodev and
	 * its /dev holds only the nodes runtimes allow whatever the list says (null, zero, full,
	 * random, urandom, tty, ptmx and the pts), and linux.devices is refused, so no other node
	 * can be opened in the container: an allow rule grants nothing more, a deny rule takes
	 * nothing away that a devices cgroup would (docs/oci.md) */
	return 0;
}

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
			.new_session = true, .block_fd = -1, .ready_fd = -1, .userns_block_fd = -1,
			.userns_fd = -1, .userns2_fd = -1, .pidns_fd = -1 },
	};
	err[0] = '\0';
	if (!pr->present)
		return fail(err, size, -EINVAL, "process: is required to create a container");
	r = refuse_unimplemented(c, err, size);
	r = r ?: add_namespaces(ret, c, err, size);
	r = r ?: cr_oci_userns_apply(c, caller->host_root, caller->userns, ret, err, size);
	/* no user namespace within the container's own (the engine can forbid that only there;
	 * elsewhere the seccomp floor refuses new ones) */
	ret->ex.nested_userns = !(ret->ex.namespaces & CR_NS_USER);
	r = r ?: cr_oci_sysctl_check(&c->sysctl, ret->ex.namespaces | ret->ex.joins, err, size);
	r = r ?: add_ids(ret, c, caller, err, size);
	r = r ?: add_filesystem(ret, c, bundle, err, size);
	r = r ?: add_limits(ret, c, err, size);
	r = r ?: cr_oci_seccomp_compile(&c->seccomp, ret, err, size);
	r = r ?: copy_strv(&pr->args, &ret->argv);
	r = r ?: copy_strv(&pr->env, &ret->env);
	if (r >= 0 && !(ret->cwd = strdup(pr->cwd ? pr->cwd : "/")))
		r = -ENOMEM;
	if (r >= 0 && c->hostname && c->hostname[0] && !(ret->ex.namespaces & CR_NS_UTS))
		r = fail(err, size, -EINVAL, "hostname: needs a uts namespace");
	if (r >= 0 && c->hostname && c->hostname[0] && !(ret->hostname = strdup(c->hostname)))
		r = -ENOMEM;
	ret->net = ret->ex.namespaces & CR_NS_NET ? CR_NET_NONE : CR_NET_HOST;
	if (r == -ENOMEM && !err[0])
		(void)snprintf(err, size, "%s", strerror(ENOMEM));
	return r;
}
