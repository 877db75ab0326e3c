/* SPDX-License-Identifier: MIT */
/* config.json's "linux" object: namespaces, id mappings, resources, cgroupsPath, seccomp, masked
 * and read-only paths, sysctl. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "bundle-internal.h"
#include "resources.h"

static const char *const ns_names[_CR_OCI_NS_MAX] = {
	[CR_OCI_NS_PID] = "pid",     [CR_OCI_NS_NETWORK] = "network", [CR_OCI_NS_MOUNT] = "mount",
	[CR_OCI_NS_IPC] = "ipc",     [CR_OCI_NS_UTS] = "uts",	      [CR_OCI_NS_USER] = "user",
	[CR_OCI_NS_CGROUP] = "cgroup", [CR_OCI_NS_TIME] = "time",
};

const char *cr_oci_ns_type_name(enum cr_oci_ns_type t)
{
	return t < _CR_OCI_NS_MAX ? ns_names[t] : NULL;
}

/* An array of objects at @path.@key, each parsed by @one into @size-byte elements of a new array
 * (*@ret, *@ret_n: the count allocated, zeroed, so that a failed parse is freed whole). */
typedef int (*parse_one_fn)(struct oci_ctx *x, json_object *o, const char *path, void *ret);

static int parse_array(struct oci_ctx *x, json_object *parent, const char *path, const char *key,
		       size_t size, parse_one_fn one, void **ret, size_t *ret_n)
{
	json_object *a = NULL;
	char p[128], q[160];
	size_t n;
	int r = oci_get_array(x, parent, path, key, &a);

	if (r < 0 || !a || (n = json_object_array_length(a)) == 0)
		return r;
	*ret = calloc(n, size);
	if (!*ret)
		return -ENOMEM;
	*ret_n = n;
	oci_path(p, sizeof(p), path, key, 0);
	for (size_t i = 0; r == 0 && i < n; i++) {
		json_object *o = json_object_array_get_idx(a, i);

		oci_path(q, sizeof(q), p, NULL, i);
		r = json_object_is_type(o, json_type_object)
			    ? one(x, o, q, (char *)*ret + i * size)
			    : oci_fail(x, q, "must be an object");
	}
	return r;
}

/* --- namespaces, id mappings ------------------------------------------------------------------ */

static int parse_namespace(struct oci_ctx *x, json_object *o, const char *path, void *ret)
{
	static const char *const known[] = { "type", "path", NULL };
	struct cr_oci_namespace *ns = ret;
	const char *type = NULL;
	int t = 0, r;

	r = oci_check_keys(x, o, path, known);
	r = r ?: oci_get_string(x, o, path, "type", &type);
	r = r ?: oci_get_string(x, o, path, "path", &ns->path);
	if (r < 0)
		return r;
	while (type && t < _CR_OCI_NS_MAX && strcmp(ns_names[t], type) != 0)
		t++;
	if (!type || t == _CR_OCI_NS_MAX)
		return oci_fail(x, path, "unknown namespace type '%s'", type ? type : "");
	if (t == CR_OCI_NS_TIME)
		return oci_fail(x, path, "namespace type 'time' is not supported by corral");
	if (ns->path && !ns->path[0])
		ns->path = NULL;
	if (ns->path && ns->path[0] != '/')
		return oci_fail(x, path, "path '%s' is not absolute", ns->path);
	ns->type = (enum cr_oci_ns_type)t;
	return 0;
}

static int parse_idmap(struct oci_ctx *x, json_object *o, const char *path, void *ret)
{
	static const char *const known[] = { "containerID", "hostID", "size", NULL };
	struct cr_oci_idmap *m = ret;
	int64_t c = -1, h = -1, n = -1;
	int r;

	r = oci_check_keys(x, o, path, known);
	r = r ?: oci_get_int(x, o, path, "containerID", 0, UINT32_MAX - 1, &c, NULL);
	r = r ?: oci_get_int(x, o, path, "hostID", 0, UINT32_MAX - 1, &h, NULL);
	r = r ?: oci_get_int(x, o, path, "size", 1, UINT32_MAX, &n, NULL);
	if (r < 0)
		return r;
	if (c < 0 || h < 0 || n < 0)
		return oci_fail(x, path, "containerID, hostID and size are required");
	if (c + n > (int64_t)UINT32_MAX || h + n > (int64_t)UINT32_MAX)
		return oci_fail(x, path, "the range passes 2^32");
	*m = (struct cr_oci_idmap){ (uint32_t)c, (uint32_t)h, (uint32_t)n };
	return 0;
}

static int check_namespaces(struct oci_ctx *x, const struct cr_oci_config *c)
{
	unsigned seen = 0;

	for (size_t i = 0; i < c->n_namespaces; i++) {
		char p[64];

		if (seen & (1u << c->namespaces[i].type))
			return oci_fail(x, oci_path(p, sizeof(p), "linux.namespaces", NULL, i),
					"namespace '%s' is listed twice",
					ns_names[c->namespaces[i].type]);
		seen |= 1u << c->namespaces[i].type;
	}
	if ((c->n_uid_mappings || c->n_gid_mappings) && !(seen & (1u << CR_OCI_NS_USER)))
		return oci_fail(x, "linux.uidMappings",
				"id mappings need a user namespace in linux.namespaces");
	return 0;
}

/* --- resources -------------------------------------------------------------------------------- */

static int parse_device_rule(struct oci_ctx *x, json_object *o, const char *path, void *ret)
{
	static const char *const known[] = { "allow", "type", "major", "minor", "access", NULL };
	struct cr_oci_device_rule *d = ret;
	const char *type = "a", *access = "rwm";
	int r;

	d->major = d->minor = -1;
	r = oci_check_keys(x, o, path, known);
	r = r ?: oci_get_bool(x, o, path, "allow", &d->allow);
	r = r ?: oci_get_string(x, o, path, "type", &type);
	r = r ?: oci_get_int(x, o, path, "major", -1, INT32_MAX, &d->major, NULL);
	r = r ?: oci_get_int(x, o, path, "minor", -1, INT32_MAX, &d->minor, NULL);
	r = r ?: oci_get_string(x, o, path, "access", &access);
	if (r < 0)
		return r;
	if (!json_object_object_get_ex(o, "allow", NULL))
		return oci_fail(x, path, "allow is required");
	if (strlen(type) != 1 || !strchr("acb", type[0]))
		return oci_fail(x, path, "type '%s' is not a, c or b", type);
	if (strlen(access) > 3 || strspn(access, "rwm") != strlen(access))
		return oci_fail(x, path, "access '%s' is not made of r, w and m", access);
	d->type = type[0];
	(void)snprintf(d->access, sizeof(d->access), "%s", access[0] ? access : "rwm");
	return 0;
}

static bool has_dotdot(const char *p)
{
	for (const char *s = p; (s = strstr(s, "..")); s += 2)
		if ((s == p || s[-1] == '/') && (s[2] == '\0' || s[2] == '/'))
			return true;
	return false;
}

/* linux.devices[i]: path, type and, but for a FIFO, major and minor required. */
static int parse_linux_device(struct oci_ctx *x, json_object *o, const char *path, void *ret)
{
	static const char *const known[] = { "path", "type", "major", "minor", "fileMode", "uid",
					     "gid", NULL };
	struct cr_oci_device *d = ret;
	int64_t major = -1, minor = -1, mode = 0666, uid = 0, gid = 0;
	const char *type = NULL;
	int r;

	r = oci_check_keys(x, o, path, known);
	r = r ?: oci_get_string(x, o, path, "path", &d->path);
	r = r ?: oci_get_string(x, o, path, "type", &type);
	r = r ?: oci_get_int(x, o, path, "major", 0, 4095, &major, NULL);
	r = r ?: oci_get_int(x, o, path, "minor", 0, 1048575, &minor, NULL);
	r = r ?: oci_get_int(x, o, path, "fileMode", 0, 07777, &mode, NULL);
	r = r ?: oci_get_int(x, o, path, "uid", 0, UINT32_MAX - 1, &uid, NULL);
	r = r ?: oci_get_int(x, o, path, "gid", 0, UINT32_MAX - 1, &gid, NULL);
	if (r < 0)
		return r;
	if (!d->path || d->path[0] != '/' || has_dotdot(d->path))
		return oci_fail(x, path, "path: an absolute path without '..' is required");
	if (!type || strlen(type) != 1 || !strchr("cbup", type[0]))
		return oci_fail(x, path, "type: c, b, u or p is required");
	if (type[0] != 'p' && (major < 0 || minor < 0))
		return oci_fail(x, path, "major and minor are required for type %s", type);
	*d = (struct cr_oci_device){ d->path, type[0], (uint32_t)(major < 0 ? 0 : major),
				     (uint32_t)(minor < 0 ? 0 : minor), (uint32_t)mode,
				     (uint32_t)uid, (uint32_t)gid };
	return 0;
}

/* A limit: absent, -1 or 0 for none (as engines send them: 0 is "not set"), else at least
 * @min. */
static int get_limit(struct oci_ctx *x, json_object *o, const char *path, const char *key,
		     int64_t min, int64_t *ret)
{
	char p[128];
	int r = oci_get_int(x, o, path, key, -1, INT64_MAX, ret, NULL);

	if (r == 0 && *ret == 0)
		*ret = -1;
	if (r == 0 && *ret != -1 && *ret < min)
		return oci_fail(x, oci_path(p, sizeof(p), path, key, 0),
				"%lld is below %lld (-1 or 0: no limit)", (long long)*ret, (long long)min);
	return r;
}

static int parse_resources(struct oci_ctx *x, json_object *lx, struct cr_oci_resources *res)
{
	static const char *const known[] = { "memory",	      "pids",	 "cpu",	    "devices",
					     "blockIO",	      "network", "hugepageLimits", NULL };
	static const char *const mem_keys[] = { "limit",	"swap",	      "reservation",
						"kernel",	"kernelTCP",  "swappiness",
						"disableOOMKiller", NULL };
	static const char *const pids_keys[] = { "limit", NULL };
	static const char *const cpu_keys[] = { "quota",	  "period",	     "shares", "cpus",
						"mems",		  "realtimePeriod",  "realtimeRuntime",
						NULL };
	json_object *o = NULL, *mem = NULL, *pids = NULL, *cpu = NULL;
	const char *p = "linux.resources";
	int r;

	*res = (struct cr_oci_resources){ -1, -1, -1, -1, -1, -1, NULL, 0, NULL, 0, 0 };
	r = oci_get_object(x, lx, "linux", "resources", &o);
	if (r < 0 || !o)
		return r;
	r = oci_check_keys(x, o, p, known);
	r = r ?: oci_get_object(x, o, p, "memory", &mem);
	r = r ?: oci_get_object(x, o, p, "pids", &pids);
	r = r ?: oci_get_object(x, o, p, "cpu", &cpu);
	if (r == 0 && mem) {
		r = oci_check_keys(x, mem, "linux.resources.memory", mem_keys);
		r = r ?: get_limit(x, mem, "linux.resources.memory", "limit", 1, &res->memory_limit);
		r = r ?: get_limit(x, mem, "linux.resources.memory", "swap", 0, &res->memory_swap);
	}
	if (r == 0 && pids) {
		r = oci_check_keys(x, pids, "linux.resources.pids", pids_keys);
		/* 0 is "no limit" in runtime-spec 1.2; negative ones too */
		r = r ?: oci_get_int(x, pids, "linux.resources.pids", "limit", INT64_MIN, INT64_MAX,
				     &res->pids_limit, NULL);
		if (r == 0 && res->pids_limit <= 0)
			res->pids_limit = -1;
	}
	if (r == 0 && cpu) {
		r = oci_check_keys(x, cpu, "linux.resources.cpu", cpu_keys);
		r = r ?: get_limit(x, cpu, "linux.resources.cpu", "quota", 1000, &res->cpu_quota);
		r = r ?: get_limit(x, cpu, "linux.resources.cpu", "period", 1000, &res->cpu_period);
		r = r ?: get_limit(x, cpu, "linux.resources.cpu", "shares", 2, &res->cpu_shares);
	}
	r = r ?: oci_resources_cpu(x, cpu, res->cpu_quota, res->cpu_period, res);
	r = r ?: parse_array(x, o, p, "devices", sizeof(*res->devices), parse_device_rule,
			     (void **)&res->devices, &res->n_devices);
	return r ?: oci_resources_more(x, o, mem, res);
}

/* --- seccomp ---------------------------------------------------------------------------------- */

static const char *const sc_actions[] = {
	"SCMP_ACT_KILL", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_TRAP",
	"SCMP_ACT_ERRNO", "SCMP_ACT_TRACE", "SCMP_ACT_ALLOW", "SCMP_ACT_LOG", NULL,
};
static const enum cr_oci_seccomp_action sc_action_values[] = {
	CR_OCI_SC_KILL_THREAD, CR_OCI_SC_KILL_THREAD, CR_OCI_SC_KILL_PROCESS, CR_OCI_SC_TRAP,
	CR_OCI_SC_ERRNO, CR_OCI_SC_TRACE, CR_OCI_SC_ALLOW, CR_OCI_SC_LOG,
};
static const char *const sc_ops[_CR_OCI_SC_OP_MAX + 1] = {
	"SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE", "SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT",
	"SCMP_CMP_MASKED_EQ", NULL,
};
static const char *const sc_arches[] = {
	"SCMP_ARCH_X86", "SCMP_ARCH_X86_64", "SCMP_ARCH_X32", "SCMP_ARCH_ARM", "SCMP_ARCH_AARCH64",
	"SCMP_ARCH_MIPS", "SCMP_ARCH_MIPS64", "SCMP_ARCH_MIPS64N32", "SCMP_ARCH_MIPSEL",
	"SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC", "SCMP_ARCH_PPC64",
	"SCMP_ARCH_PPC64LE", "SCMP_ARCH_S390", "SCMP_ARCH_S390X", "SCMP_ARCH_PARISC",
	"SCMP_ARCH_PARISC64", "SCMP_ARCH_RISCV64", NULL,
};
static const char *const sc_flags[] = {
	"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
	NULL,
};

static int lookup(const char *const *names, const char *s)
{
	for (int i = 0; s && names[i]; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

static int get_action(struct oci_ctx *x, json_object *o, const char *path, const char *key,
		      enum cr_oci_seccomp_action *ret)
{
	const char *s = NULL;
	char p[160];
	int r = oci_get_string(x, o, path, key, &s), i;

	if (r < 0)
		return r;
	oci_path(p, sizeof(p), path, key, 0);
	if (!s)
		return oci_fail(x, p, "is required");
	if (strcmp(s, "SCMP_ACT_NOTIFY") == 0)
		return oci_fail(x, p, "SCMP_ACT_NOTIFY is not supported by corral (no seccomp agent)");
	i = lookup(sc_actions, s);
	if (i < 0)
		return oci_fail(x, p, "unknown action '%s'", s);
	*ret = sc_action_values[i];
	return 0;
}

static int parse_sc_arg(struct oci_ctx *x, json_object *o, const char *path, void *ret)
{
	static const char *const known[] = { "index", "value", "valueTwo", "op", NULL };
	struct cr_oci_seccomp_arg *a = ret;
	const char *op = NULL;
	int64_t index = -1;
	int r, i;

	r = oci_check_keys(x, o, path, known);
	r = r ?: oci_get_int(x, o, path, "index", 0, 5, &index, NULL);
	r = r ?: oci_get_u64(x, o, path, "value", &a->value);
	r = r ?: oci_get_u64(x, o, path, "valueTwo", &a->value_two);
	r = r ?: oci_get_string(x, o, path, "op", &op);
	if (r < 0)
		return r;
	if (index < 0)
		return oci_fail(x, path, "index is required");
	i = lookup(sc_ops, op);
	if (i < 0)
		return oci_fail(x, path, "unknown op '%s'", op ? op : "");
	a->index = (unsigned)index;
	a->op = (enum cr_oci_seccomp_op)i;
	return 0;
}

static int parse_sc_rule(struct oci_ctx *x, json_object *o, const char *path, void *ret)
{
	static const char *const known[] = { "names", "action", "errnoRet", "args", NULL };
	struct cr_oci_seccomp_rule *s = ret;
	int64_t e = 1; /* EPERM */
	int r;

	r = oci_check_keys(x, o, path, known);
	r = r ?: oci_get_strv(x, o, path, "names", false, &s->names);
	r = r ?: get_action(x, o, path, "action", &s->action);
	r = r ?: oci_get_int(x, o, path, "errnoRet", 0, 4095, &e, NULL);
	s->errno_ret = (uint32_t)e;
	r = r ?: parse_array(x, o, path, "args", sizeof(*s->args), parse_sc_arg, (void **)&s->args,
			     &s->n_args);
	if (r == 0 && s->names.n == 0)
		return oci_fail(x, path, "names must list at least one syscall");
	return r;
}

static int check_names(struct oci_ctx *x, const struct cr_oci_strv *v, const char *const *names,
		       const char *path, const char *what)
{
	char p[96];

	for (size_t i = 0; i < v->n; i++)
		if (lookup(names, v->v[i]) < 0)
			return oci_fail(x, oci_path(p, sizeof(p), path, NULL, i), "unknown %s '%s'",
					what, v->v[i]);
	return 0;
}

static int parse_seccomp(struct oci_ctx *x, json_object *lx, struct cr_oci_seccomp *sc)
{
	static const char *const known[] = { "defaultAction", "defaultErrnoRet", "architectures",
					     "flags", "syscalls", NULL };
	const char *p = "linux.seccomp";
	json_object *o = NULL;
	int64_t e = 1;
	int r = oci_get_object(x, lx, "linux", "seccomp", &o);

	if (r < 0 || !o)
		return r;
	sc->present = true;
	r = oci_check_keys(x, o, p, known);
	r = r ?: get_action(x, o, p, "defaultAction", &sc->default_action);
	r = r ?: oci_get_int(x, o, p, "defaultErrnoRet", 0, 4095, &e, NULL);
	sc->default_errno_ret = (uint32_t)e;
	r = r ?: oci_get_strv(x, o, p, "architectures", false, &sc->architectures);
	r = r ?: check_names(x, &sc->architectures, sc_arches, "linux.seccomp.architectures",
			     "architecture");
	r = r ?: oci_get_strv(x, o, p, "flags", false, &sc->flags);
	r = r ?: check_names(x, &sc->flags, sc_flags, "linux.seccomp.flags", "flag");
	return r ?: parse_array(x, o, p, "syscalls", sizeof(*sc->rules), parse_sc_rule,
				(void **)&sc->rules, &sc->n_rules);
}

/* --- linux ------------------------------------------------------------------------------------ */

unsigned long cr_oci_propagation(const char *name)
{
	static const struct {
		const char *name;
		unsigned long flags;
	} modes[] = {
		{ "shared", MS_SHARED },     { "slave", MS_SLAVE },
		{ "private", MS_PRIVATE },   { "unbindable", MS_UNBINDABLE },
	};
	bool rec = name[0] == 'r';

	for (size_t i = 0; i < ELEMENTSOF(modes); i++)
		if (strcmp(name + rec, modes[i].name) == 0)
			return modes[i].flags | (rec ? MS_REC : 0);
	return 0;
}

int oci_parse_linux(struct oci_ctx *x, json_object *lx, struct cr_oci_config *c)
{
	static const char *const known[] = { "namespaces", "uidMappings", "gidMappings",
					     "resources", "cgroupsPath", "seccomp", "maskedPaths",
					     "readonlyPaths", "sysctl", "rootfsPropagation", "mountLabel",
					     "devices", NULL };
	int r;

	r = oci_check_keys(x, lx, "linux", known);
	r = r ?: parse_array(x, lx, "linux", "namespaces", sizeof(*c->namespaces), parse_namespace,
			     (void **)&c->namespaces, &c->n_namespaces);
	r = r ?: parse_array(x, lx, "linux", "uidMappings", sizeof(*c->uid_mappings), parse_idmap,
			     (void **)&c->uid_mappings, &c->n_uid_mappings);
	r = r ?: parse_array(x, lx, "linux", "gidMappings", sizeof(*c->gid_mappings), parse_idmap,
			     (void **)&c->gid_mappings, &c->n_gid_mappings);
	r = r ?: check_namespaces(x, c);
	r = r ?: parse_resources(x, lx, &c->resources);
	r = r ?: oci_get_string(x, lx, "linux", "cgroupsPath", &c->cgroups_path);
	r = r ?: parse_seccomp(x, lx, &c->seccomp);
	r = r ?: oci_get_strv(x, lx, "linux", "maskedPaths", true, &c->masked_paths);
	r = r ?: oci_get_strv(x, lx, "linux", "readonlyPaths", true, &c->readonly_paths);
	r = r ?: oci_get_map(x, lx, "linux", "sysctl", &c->sysctl);
	r = r ?: oci_get_string(x, lx, "linux", "rootfsPropagation", &c->rootfs_propagation);
	r = r ?: oci_get_string(x, lx, "linux", "mountLabel", &c->mount_label);
	r = r ?: parse_array(x, lx, "linux", "devices", sizeof(*c->devices), parse_linux_device,
			     (void **)&c->devices, &c->n_devices);
	if (r == 0 && c->rootfs_propagation && c->rootfs_propagation[0] &&
	    !cr_oci_propagation(c->rootfs_propagation))
		return oci_fail(x, "linux.rootfsPropagation",
				"'%s' is not a propagation mode ([r]shared, [r]slave, [r]private, [r]unbindable)",
				c->rootfs_propagation);
	return r;
}
