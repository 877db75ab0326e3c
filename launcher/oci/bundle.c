/* SPDX-License-Identifier: MIT */
/* config.json: the getters every section uses, and the sections outside "linux" (root, mounts,
 * process, hooks, hostname, annotations). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "annotations.h"
#include "bundle-internal.h"
#include "spec-keys.h"

const char *const cr_oci_cap_names[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
	"CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
	"CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW",
	"CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT",
	"CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
	"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE",
	"CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN",
	"CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON",
	"CAP_BPF", "CAP_CHECKPOINT_RESTORE", NULL,
};

static const struct {
	const char *name;
	int resource;
} rlimit_names[] = {
	{ "RLIMIT_CPU", RLIMIT_CPU },	      { "RLIMIT_FSIZE", RLIMIT_FSIZE },
	{ "RLIMIT_DATA", RLIMIT_DATA },	      { "RLIMIT_STACK", RLIMIT_STACK },
	{ "RLIMIT_CORE", RLIMIT_CORE },	      { "RLIMIT_RSS", RLIMIT_RSS },
	{ "RLIMIT_NPROC", RLIMIT_NPROC },     { "RLIMIT_NOFILE", RLIMIT_NOFILE },
	{ "RLIMIT_MEMLOCK", RLIMIT_MEMLOCK }, { "RLIMIT_AS", RLIMIT_AS },
	{ "RLIMIT_LOCKS", RLIMIT_LOCKS },     { "RLIMIT_SIGPENDING", RLIMIT_SIGPENDING },
	{ "RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE }, { "RLIMIT_NICE", RLIMIT_NICE },
	{ "RLIMIT_RTPRIO", RLIMIT_RTPRIO },   { "RLIMIT_RTTIME", RLIMIT_RTTIME },
};

static const char *const hook_names[_CR_OCI_HOOK_MAX] = {
	[CR_OCI_HOOK_PRESTART] = "prestart",
	[CR_OCI_HOOK_CREATE_RUNTIME] = "createRuntime",
	[CR_OCI_HOOK_CREATE_CONTAINER] = "createContainer",
	[CR_OCI_HOOK_START_CONTAINER] = "startContainer",
	[CR_OCI_HOOK_POSTSTART] = "poststart",
	[CR_OCI_HOOK_POSTSTOP] = "poststop",
};

const char *cr_oci_hook_name(enum cr_oci_hook_kind k)
{
	return k < _CR_OCI_HOOK_MAX ? hook_names[k] : NULL;
}

/* --- getters ---------------------------------------------------------------------------------- */

int oci_fail(struct oci_ctx *x, const char *path, const char *fmt, ...)
{
	char msg[CR_OCI_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	(void)snprintf(x->err, x->size, "%s: %s", path[0] ? path : "config.json", msg);
	return -EINVAL;
}

const char *oci_path(char *buf, size_t size, const char *path, const char *key, size_t i)
{
	if (key)
		(void)snprintf(buf, size, "%s%s%s", path, path[0] ? "." : "", key);
	else
		(void)snprintf(buf, size, "%s[%zu]", path, i);
	return buf;
}

/* Keys whose 0 (or false) the runtime-spec's users mean as "not set": what engines send by
 * default (Docker: memory.disableOOMKiller false, blockIO.weight 0). A 0 that sets something
 * (memory.swappiness 0) is not here. */
static const char *const zero_unset[] = {
	"weight", "leafWeight", "reservation", "kernel", "kernelTCP", "disableOOMKiller",
	"realtimeRuntime", "realtimePeriod", "idle", "burst", NULL,
};

/* Whether @key: @v asks for nothing: null, "", [], {}, an unset 0, or an object of such. */
static bool asks_nothing(const char *key, json_object *v)
{
	bool zero_ok = false;

	for (const char *const *k = zero_unset; *k; k++)
		zero_ok |= strcmp(*k, key) == 0;
	switch (json_object_get_type(v)) {
	case json_type_null:
		return true;
	case json_type_string:
		return json_object_get_string_len(v) == 0;
	case json_type_array:
		return json_object_array_length(v) == 0;
	case json_type_boolean:
	case json_type_int:
		return zero_ok && json_object_get_int64(v) == 0;
	case json_type_object: {
		json_object_object_foreach(v, k, m) {
			if (!asks_nothing(k, m))
				return false;
		}
		return true;
	}
	default:
		return false;
	}
}

/* @path appended to the ", "-joined list at *@list. */
static int add_ignored(char **list, const char *path)
{
	char *s;

	if (asprintf(&s, "%s%s%s", *list ? *list : "", *list ? ", " : "", path) < 0)
		return -ENOMEM;
	free(*list);
	*list = s;
	return 0;
}

int oci_check_keys(struct oci_ctx *x, json_object *o, const char *path, const char *const *known)
{
	char p[256];

	json_object_object_foreach(o, key, v) {
		const char *const *k = known;

		while (*k && strcmp(*k, key) != 0)
			k++;
		if (*k || asks_nothing(key, v))
			continue;
		oci_path(p, sizeof(p), path, key, 0);
		if (x->ignored && !cr_oci_spec_key(path, key)) {
			if (add_ignored(x->ignored, p) < 0)
				return -ENOMEM;
			continue;
		}
		return oci_fail(x, p, "not supported by corral");
	}
	return 0;
}

static int get_typed(struct oci_ctx *x, json_object *o, const char *path, const char *key,
		     json_type type, const char *what, json_object **ret)
{
	json_object *v;
	char p[256];

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	if (!json_object_is_type(v, type))
		return oci_fail(x, oci_path(p, sizeof(p), path, key, 0), "must be %s", what);
	*ret = v;
	return 0;
}

int oci_get_object(struct oci_ctx *x, json_object *o, const char *path, const char *key,
		   json_object **ret)
{
	return get_typed(x, o, path, key, json_type_object, "an object", ret);
}

int oci_get_array(struct oci_ctx *x, json_object *o, const char *path, const char *key,
		  json_object **ret)
{
	return get_typed(x, o, path, key, json_type_array, "an array", ret);
}

int oci_get_string(struct oci_ctx *x, json_object *o, const char *path, const char *key,
		   const char **ret)
{
	json_object *v = NULL;
	char p[256];
	int r = get_typed(x, o, path, key, json_type_string, "a string", &v);

	if (r < 0 || !v)
		return r;
	if (strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v))
		return oci_fail(x, oci_path(p, sizeof(p), path, key, 0), "contains a NUL byte");
	*ret = json_object_get_string(v);
	return 0;
}

int oci_get_bool(struct oci_ctx *x, json_object *o, const char *path, const char *key, bool *ret)
{
	json_object *v = NULL;
	int r = get_typed(x, o, path, key, json_type_boolean, "true or false", &v);

	if (r == 0 && v)
		*ret = json_object_get_boolean(v);
	return r;
}

int oci_get_int(struct oci_ctx *x, json_object *o, const char *path, const char *key, int64_t min,
		int64_t max, int64_t *ret, bool *ret_set)
{
	json_object *v = NULL;
	char p[256];
	int64_t n;
	int r = get_typed(x, o, path, key, json_type_int, "an integer", &v);

	if (r < 0 || !v)
		return r;
	errno = 0;
	n = json_object_get_int64(v);
	/* json-c saturates what int64 cannot hold, and keeps large positives as uint64 */
	if (errno != 0 || n < min || n > max || json_object_get_uint64(v) > (uint64_t)INT64_MAX)
		return oci_fail(x, oci_path(p, sizeof(p), path, key, 0),
				"%s is out of range (%lld to %lld)", json_object_get_string(v),
				(long long)min, (long long)max);
	*ret = n;
	if (ret_set)
		*ret_set = true;
	return 0;
}

int oci_get_u64(struct oci_ctx *x, json_object *o, const char *path, const char *key,
		uint64_t *ret)
{
	json_object *v = NULL;
	char p[256];
	int r = get_typed(x, o, path, key, json_type_int, "an integer", &v);

	if (r < 0 || !v)
		return r;
	if (json_object_get_int64(v) < 0)
		return oci_fail(x, oci_path(p, sizeof(p), path, key, 0), "must not be negative");
	errno = 0;
	*ret = json_object_get_uint64(v);
	if (errno != 0)
		return oci_fail(x, oci_path(p, sizeof(p), path, key, 0), "is out of range");
	return 0;
}

int oci_get_strv(struct oci_ctx *x, json_object *o, const char *path, const char *key,
		 bool absolute, struct cr_oci_strv *ret)
{
	json_object *a = NULL;
	char p[256], q[256];
	size_t n;
	int r = oci_get_array(x, o, path, key, &a);

	if (r < 0 || !a)
		return r;
	n = json_object_array_length(a);
	free(ret->v);
	*ret = (struct cr_oci_strv){};
	if (n == 0)
		return 0;
	ret->v = calloc(n, sizeof(*ret->v));
	if (!ret->v)
		return -ENOMEM;
	oci_path(p, sizeof(p), path, key, 0);
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(a, i);

		oci_path(q, sizeof(q), p, NULL, i);
		if (!json_object_is_type(s, json_type_string))
			return oci_fail(x, q, "must be a string");
		ret->v[i] = json_object_get_string(s);
		if (strlen(ret->v[i]) != (size_t)json_object_get_string_len(s))
			return oci_fail(x, q, "contains a NUL byte");
		if (absolute && ret->v[i][0] != '/')
			return oci_fail(x, q, "'%s' is not an absolute path", ret->v[i]);
		ret->n++;
	}
	return 0;
}

int oci_get_map(struct oci_ctx *x, json_object *o, const char *path, const char *key,
		struct cr_oci_map *ret)
{
	json_object *m = NULL;
	char p[256], q[512];
	size_t n;
	int r = oci_get_object(x, o, path, key, &m);

	if (r < 0 || !m || (n = (size_t)json_object_object_length(m)) == 0)
		return r;
	ret->keys = calloc(n, sizeof(*ret->keys));
	ret->values = calloc(n, sizeof(*ret->values));
	if (!ret->keys || !ret->values)
		return -ENOMEM;
	oci_path(p, sizeof(p), path, key, 0);
	json_object_object_foreach(m, k, v) {
		(void)snprintf(q, sizeof(q), "%s.%s", p, k);
		if (!json_object_is_type(v, json_type_string))
			return oci_fail(x, q, "must be a string");
		ret->keys[ret->n] = k;
		ret->values[ret->n++] = json_object_get_string(v);
	}
	return 0;
}

/* --- root, mounts ----------------------------------------------------------------------------- */

static int parse_root(struct oci_ctx *x, json_object *doc, struct cr_oci_config *c)
{
	static const char *const known[] = { "path", "readonly", NULL };
	json_object *root = NULL;
	int r;

	r = oci_get_object(x, doc, "", "root", &root);
	if (r < 0)
		return r;
	if (!root)
		return oci_fail(x, "root", "is required (the bundle's root filesystem)");
	r = oci_check_keys(x, root, "root", known);
	r = r ?: oci_get_string(x, root, "root", "path", &c->root_path);
	r = r ?: oci_get_bool(x, root, "root", "readonly", &c->root_readonly);
	if (r == 0 && (!c->root_path || !c->root_path[0]))
		return oci_fail(x, "root.path", "is required");
	return r;
}

static int parse_mount(struct oci_ctx *x, json_object *m, const char *path, struct cr_oci_mount *ret)
{
	static const char *const known[] = { "destination", "type", "source", "options", NULL };
	int r;

	if (!json_object_is_type(m, json_type_object))
		return oci_fail(x, path, "must be an object");
	r = oci_check_keys(x, m, path, known);
	r = r ?: oci_get_string(x, m, path, "destination", &ret->destination);
	r = r ?: oci_get_string(x, m, path, "type", &ret->type);
	r = r ?: oci_get_string(x, m, path, "source", &ret->source);
	r = r ?: oci_get_strv(x, m, path, "options", false, &ret->options);
	if (r == 0 && (!ret->destination || ret->destination[0] != '/'))
		return oci_fail(x, path, "destination must be an absolute path");
	return r;
}

static int parse_mounts(struct oci_ctx *x, json_object *doc, struct cr_oci_config *c)
{
	json_object *a = NULL;
	char p[64];
	size_t n;
	int r = oci_get_array(x, doc, "", "mounts", &a);

	if (r < 0 || !a || (n = json_object_array_length(a)) == 0)
		return r;
	c->mounts = calloc(n, sizeof(*c->mounts));
	if (!c->mounts)
		return -ENOMEM;
	c->n_mounts = n; /* zeroed: cr_oci_config_done() frees what a failed parse left */
	for (size_t i = 0; r == 0 && i < n; i++)
		r = parse_mount(x, json_object_array_get_idx(a, i),
				oci_path(p, sizeof(p), "mounts", NULL, i), &c->mounts[i]);
	return r;
}

/* --- process ---------------------------------------------------------------------------------- */

static int parse_caps(struct oci_ctx *x, json_object *proc, struct cr_oci_process *p)
{
	static const char *const known[] = { "bounding", "effective", "inheritable", "permitted",
					     "ambient", NULL };
	json_object *caps = NULL;
	char path[128], q[160];
	int r = oci_get_object(x, proc, "process", "capabilities", &caps);

	if (r < 0 || !caps)
		return r;
	r = oci_check_keys(x, caps, "process.capabilities", known);
	for (int s = 0; r == 0 && s < _CR_OCI_CAPSET_MAX; s++) {
		_cleanup_free_ const char **names = NULL;
		struct cr_oci_strv v = {};

		r = oci_get_strv(x, caps, "process.capabilities", known[s], false, &v);
		names = v.v;
		if (r < 0)
			return r;
		if (!json_object_object_get_ex(caps, known[s], NULL))
			continue;
		p->has_caps[s] = true;
		oci_path(path, sizeof(path), "process.capabilities", known[s], 0);
		for (size_t i = 0; i < v.n; i++) {
			int n = 0;

			while (cr_oci_cap_names[n] && strcmp(cr_oci_cap_names[n], v.v[i]) != 0)
				n++;
			if (!cr_oci_cap_names[n])
				return oci_fail(x, oci_path(q, sizeof(q), path, NULL, i),
						"unknown capability '%s'", v.v[i]);
			p->caps[s] |= 1ULL << n;
		}
	}
	return r;
}

static int parse_rlimit(struct oci_ctx *x, json_object *o, const char *path, struct cr_oci_rlimit *ret)
{
	static const char *const known[] = { "type", "soft", "hard", NULL };
	const char *type = NULL;
	size_t i = 0;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return oci_fail(x, path, "must be an object");
	r = oci_check_keys(x, o, path, known);
	r = r ?: oci_get_string(x, o, path, "type", &type);
	r = r ?: oci_get_u64(x, o, path, "soft", &ret->soft);
	r = r ?: oci_get_u64(x, o, path, "hard", &ret->hard);
	if (r < 0)
		return r;
	while (type && i < sizeof(rlimit_names) / sizeof(rlimit_names[0]) &&
	       strcmp(rlimit_names[i].name, type) != 0)
		i++;
	if (!type || i == sizeof(rlimit_names) / sizeof(rlimit_names[0]))
		return oci_fail(x, path, "unknown rlimit type '%s'", type ? type : "");
	if (ret->soft > ret->hard)
		return oci_fail(x, path, "soft %llu is above hard %llu",
				(unsigned long long)ret->soft, (unsigned long long)ret->hard);
	ret->resource = rlimit_names[i].resource;
	return 0;
}

static int parse_rlimits(struct oci_ctx *x, json_object *proc, struct cr_oci_process *p)
{
	json_object *a = NULL;
	char path[64];
	size_t n;
	int r = oci_get_array(x, proc, "process", "rlimits", &a);

	if (r < 0 || !a || (n = json_object_array_length(a)) == 0)
		return r;
	p->rlimits = calloc(n, sizeof(*p->rlimits));
	if (!p->rlimits)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		r = parse_rlimit(x, json_object_array_get_idx(a, i),
				 oci_path(path, sizeof(path), "process.rlimits", NULL, i),
				 &p->rlimits[i]);
		if (r < 0)
			return r;
		p->n_rlimits++;
	}
	return 0;
}

static int parse_user(struct oci_ctx *x, json_object *proc, struct cr_oci_process *p)
{
	static const char *const known[] = { "uid", "gid", "umask", "additionalGids", NULL };
	json_object *user = NULL, *gids = NULL;
	char path[64];
	int64_t v = 0;
	int r = oci_get_object(x, proc, "process", "user", &user);

	if (r < 0 || !user)
		return r;
	r = oci_check_keys(x, user, "process.user", known);
	r = r ?: oci_get_int(x, user, "process.user", "uid", 0, UINT32_MAX - 1, &v, NULL);
	p->uid = (uint32_t)v;
	v = 0;
	r = r ?: oci_get_int(x, user, "process.user", "gid", 0, UINT32_MAX - 1, &v, NULL);
	p->gid = (uint32_t)v;
	v = 0;
	r = r ?: oci_get_int(x, user, "process.user", "umask", 0, 0777, &v, &p->has_umask);
	p->umask = (uint32_t)v;
	r = r ?: oci_get_array(x, user, "process.user", "additionalGids", &gids);
	if (r < 0 || !gids || json_object_array_length(gids) == 0)
		return r;
	p->additional_gids.v = calloc(json_object_array_length(gids), sizeof(uint32_t));
	if (!p->additional_gids.v)
		return -ENOMEM;
	for (size_t i = 0; i < json_object_array_length(gids); i++) {
		json_object *g = json_object_array_get_idx(gids, i);
		int64_t n = json_object_get_int64(g);

		oci_path(path, sizeof(path), "process.user.additionalGids", NULL, i);
		if (!json_object_is_type(g, json_type_int) || n < 0 || n >= UINT32_MAX)
			return oci_fail(x, path, "must be a gid (0 to %u)", UINT32_MAX - 1);
		p->additional_gids.v[p->additional_gids.n++] = (uint32_t)n;
	}
	return 0;
}

static int parse_process(struct oci_ctx *x, json_object *doc, struct cr_oci_process *p)
{
	static const char *const known[] = { "terminal", "consoleSize", "user", "args", "env",
					     "cwd", "capabilities", "rlimits", "noNewPrivileges",
					     "oomScoreAdj", NULL };
	static const char *const size_keys[] = { "height", "width", NULL };
	json_object *proc = NULL, *cs = NULL;
	int64_t h = 0, w = 0, adj = 0;
	int r = oci_get_object(x, doc, "", "process", &proc);

	if (r < 0 || !proc)
		return r;
	p->present = true;
	r = oci_check_keys(x, proc, "process", known);
	r = r ?: oci_get_bool(x, proc, "process", "terminal", &p->terminal);
	r = r ?: oci_get_object(x, proc, "process", "consoleSize", &cs);
	if (r == 0 && cs) {
		r = oci_check_keys(x, cs, "process.consoleSize", size_keys);
		r = r ?: oci_get_int(x, cs, "process.consoleSize", "height", 0, UINT16_MAX, &h, NULL);
		r = r ?: oci_get_int(x, cs, "process.consoleSize", "width", 0, UINT16_MAX, &w, NULL);
		p->console_height = (uint32_t)h, p->console_width = (uint32_t)w;
	}
	r = r ?: parse_user(x, proc, p);
	r = r ?: oci_get_strv(x, proc, "process", "args", false, &p->args);
	r = r ?: oci_get_strv(x, proc, "process", "env", false, &p->env);
	r = r ?: oci_get_string(x, proc, "process", "cwd", &p->cwd);
	r = r ?: parse_caps(x, proc, p);
	r = r ?: parse_rlimits(x, proc, p);
	r = r ?: oci_get_bool(x, proc, "process", "noNewPrivileges", &p->no_new_privileges);
	r = r ?: oci_get_int(x, proc, "process", "oomScoreAdj", -1000, 1000, &adj,
			     &p->has_oom_score_adj);
	p->oom_score_adj = (int)adj;
	if (r < 0)
		return r;
	if (p->args.n == 0 || !p->args.v[0][0])
		return oci_fail(x, "process.args", "must be a non-empty array of strings");
	if (!p->cwd || p->cwd[0] != '/')
		return oci_fail(x, "process.cwd", "must be an absolute path");
	for (size_t i = 0; i < p->env.n; i++) {
		char path[64];

		if (!strchr(p->env.v[i], '=') || p->env.v[i][0] == '=')
			return oci_fail(x, oci_path(path, sizeof(path), "process.env", NULL, i),
					"'%s' is not NAME=VALUE", p->env.v[i]);
	}
	return 0;
}

/* --- hooks ------------------------------------------------------------------------------------ */

static int parse_hook(struct oci_ctx *x, json_object *o, const char *path, struct cr_oci_hook *ret)
{
	static const char *const known[] = { "path", "args", "env", "timeout", NULL };
	int64_t t = 0;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return oci_fail(x, path, "must be an object");
	r = oci_check_keys(x, o, path, known);
	r = r ?: oci_get_string(x, o, path, "path", &ret->path);
	r = r ?: oci_get_strv(x, o, path, "args", false, &ret->args);
	r = r ?: oci_get_strv(x, o, path, "env", false, &ret->env);
	r = r ?: oci_get_int(x, o, path, "timeout", 1, INT32_MAX, &t, NULL);
	ret->timeout = (int)t;
	if (r == 0 && (!ret->path || ret->path[0] != '/'))
		return oci_fail(x, path, "path must be an absolute path");
	return r;
}

static int parse_hooks(struct oci_ctx *x, json_object *doc, struct cr_oci_config *c)
{
	static const char *const known[_CR_OCI_HOOK_MAX + 1] = {
		"prestart", "createRuntime", "createContainer", "startContainer", "poststart",
		"poststop", NULL,
	};
	json_object *hooks = NULL;
	char p[64], q[80];
	int r = oci_get_object(x, doc, "", "hooks", &hooks);

	if (r < 0 || !hooks)
		return r;
	r = oci_check_keys(x, hooks, "hooks", known);
	for (int k = 0; r == 0 && k < _CR_OCI_HOOK_MAX; k++) {
		json_object *a = NULL;
		size_t n;

		r = oci_get_array(x, hooks, "hooks", known[k], &a);
		if (r < 0 || !a || (n = json_object_array_length(a)) == 0)
			continue;
		c->hooks[k] = calloc(n, sizeof(*c->hooks[k]));
		if (!c->hooks[k])
			return -ENOMEM;
		c->n_hooks[k] = n;
		oci_path(p, sizeof(p), "hooks", known[k], 0);
		for (size_t i = 0; r == 0 && i < n; i++)
			r = parse_hook(x, json_object_array_get_idx(a, i),
				       oci_path(q, sizeof(q), p, NULL, i), &c->hooks[k][i]);
	}
	return r;
}

/* --- the document ----------------------------------------------------------------------------- */

/* 1.0.0 to 1.2.x, with an optional pre-release suffix ("1.0.2-dev"). */
static int check_version(struct oci_ctx *x, const char *v)
{
	unsigned major, minor, patch;
	int n = 0;

	if (!v)
		return oci_fail(x, "ociVersion", "is required");
	if (sscanf(v, "%u.%u.%u%n", &major, &minor, &patch, &n) != 3 ||
	    (v[n] != '\0' && v[n] != '-' && v[n] != '+'))
		return oci_fail(x, "ociVersion", "'%s' is not a version (MAJOR.MINOR.PATCH)", v);
	if (major != 1 || minor > 2)
		return oci_fail(x, "ociVersion", "%s is not supported (corral reads %s to 1.2.x)", v,
				CR_OCI_VERSION_MIN);
	return 0;
}

static int check_annotations(struct oci_ctx *x, const struct cr_oci_map *m)
{
	char msg[256], path[512];

	for (size_t i = 0; i < m->n; i++) {
		int r = cr_oci_annotation_check(m->keys[i], m->values[i], msg, sizeof(msg));

		if (r == -EINVAL)
			return oci_fail(x, oci_path(path, sizeof(path), "annotations", m->keys[i], 0),
					"%s", msg);
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_doc(struct oci_ctx *x, json_object *doc, struct cr_oci_config *c)
{
	static const char *const known[] = { "ociVersion", "root", "mounts", "process",
					     "hostname", "annotations", "hooks", "linux", NULL };
	json_object *lx = NULL;
	int r;

	if (!json_object_is_type(doc, json_type_object))
		return oci_fail(x, "", "must be a JSON object");
	r = oci_check_keys(x, doc, "", known);
	r = r ?: oci_get_string(x, doc, "", "ociVersion", &c->oci_version);
	r = r ?: check_version(x, c->oci_version);
	r = r ?: parse_root(x, doc, c);
	r = r ?: parse_mounts(x, doc, c);
	r = r ?: parse_process(x, doc, &c->process);
	r = r ?: oci_get_string(x, doc, "", "hostname", &c->hostname);
	r = r ?: oci_get_map(x, doc, "", "annotations", &c->annotations);
	r = r ?: check_annotations(x, &c->annotations);
	r = r ?: parse_hooks(x, doc, c);
	r = r ?: oci_get_object(x, doc, "", "linux", &lx);
	return r ?: lx ? oci_parse_linux(x, lx, c) : 0;
}

int cr_oci_config_parse(const char *text, size_t len, struct cr_oci_config *ret, char *err,
			size_t size)
{
	struct cr_oci_config c = {};
	struct oci_ctx x = { .err = err, .size = size, .ignored = &c.ignored };
	json_tokener *tok = json_tokener_new();
	size_t end;
	int r;

	*ret = (struct cr_oci_config){};
	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	c.doc = len > INT32_MAX ? NULL : json_tokener_parse_ex(tok, text, (int)len);
	end = c.doc ? (size_t)tok->char_offset : len;
	while (end < len && (text[end] == ' ' || text[end] == '\t' || text[end] == '\r' ||
			     text[end] == '\n'))
		end++;
	if (!c.doc || end != len) {
		r = c.doc ? oci_fail(&x, "", "not valid JSON: text after the object at byte %zu", end)
			  : oci_fail(&x, "", "not valid JSON at byte %zu: %s",
				     (size_t)tok->char_offset,
				     json_tokener_error_desc(json_tokener_get_error(tok)));
		json_tokener_free(tok);
		cr_oci_config_done(&c);
		return r;
	}
	json_tokener_free(tok);
	r = parse_doc(&x, c.doc, &c);
	if (r < 0) {
		if (r == -ENOMEM)
			(void)snprintf(err, size, "config.json: out of memory");
		cr_oci_config_done(&c);
		return r;
	}
	*ret = c;
	return 0;
}

void cr_oci_config_done(struct cr_oci_config *c)
{
	free(c->ignored);
	for (size_t i = 0; c->mounts && i < c->n_mounts; i++)
		free(c->mounts[i].options.v);
	free(c->mounts);
	free(c->process.args.v);
	free(c->process.env.v);
	free(c->process.additional_gids.v);
	free(c->process.rlimits);
	for (int k = 0; k < _CR_OCI_HOOK_MAX; k++) {
		for (size_t i = 0; c->hooks[k] && i < c->n_hooks[k]; i++) {
			free(c->hooks[k][i].args.v);
			free(c->hooks[k][i].env.v);
		}
		free(c->hooks[k]);
	}
	free(c->annotations.keys);
	free(c->annotations.values);
	free(c->namespaces);
	free(c->uid_mappings);
	free(c->devices);
	free(c->gid_mappings);
	free(c->resources.devices);
	free(c->resources.files);
	free(c->seccomp.architectures.v);
	free(c->seccomp.flags.v);
	for (size_t i = 0; c->seccomp.rules && i < c->seccomp.n_rules; i++) {
		free(c->seccomp.rules[i].names.v);
		free(c->seccomp.rules[i].args);
	}
	free(c->seccomp.rules);
	free(c->masked_paths.v);
	free(c->readonly_paths.v);
	free(c->sysctl.keys);
	free(c->sysctl.values);
	json_object_put(c->doc);
	*c = (struct cr_oci_config){};
}
