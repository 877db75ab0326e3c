/* SPDX-License-Identifier: MIT */
/* launcher/policy/cli.c: the options of `corral run`, with getopt_long.
 * Invariants: the arguments parse (0) or are refused (-EINVAL with a reason), the same way
 * twice (getopt's state is reset); parsed options are in range (ids, timeouts, ports, limits,
 * the command non-empty); written back as a canonical argument vector ("--name=value" for every
 * option given, then "--" and the command) and parsed again, they give the same options. The
 * input is the arguments after "run", separated by NUL. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>

#include "launcher/policy/limits.h"
#include "fuzz-util.h"
#include "launcher/policy/cli.h"
#include "launcher/policy/ports.h"
#include "launcher/base/macro.h"

#define MAX_ARGS 64

struct args {
	char **v;
	size_t n;
};

static void add(struct args *a, const char *fmt, ...) _printf_(2, 3);
static void add(struct args *a, const char *fmt, ...)
{
	va_list ap;
	char **v = reallocarray(a->v, a->n + 2, sizeof(char *));

	if (!v)
		abort();
	a->v = v;
	va_start(ap, fmt);
	if (vasprintf(&v[a->n], fmt, ap) < 0)
		abort();
	va_end(ap);
	v[++a->n] = NULL;
}

static void add_list(struct args *a, const char *opt, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		add(a, "--%s=%s", opt, v[i]);
}

static void add_ports(struct args *a, const char *opt, const struct cr_port_range *v, size_t n)
{
	char buf[16];

	for (size_t i = 0; i < n; i++) {
		cr_port_range_format(&v[i], buf, sizeof(buf));
		add(a, "--%s=%s", opt, buf);
	}
}

static void add_optional(struct args *a, const char *opt, const char *value)
{
	if (value)
		add(a, "--%s=%s", opt, value);
}

/* The options as a canonical `corral run` argument vector. */
static void serialize(const struct cr_run_options *o, struct args *a)
{
	char buf[64];

	add(a, "run");
	add_optional(a, "profile", o->profile);
	add_optional(a, "session", o->session);
	if (o->grant != CR_GRANT_NONE)
		add(a, "--grant=%s", cr_grant_scope_to_string(o->grant));
	add_optional(a, "audit", o->audit);
	if (o->no_audit)
		add(a, "--no-audit");
	add_list(a, "allow-host", o->allow_hosts, o->n_allow_hosts);
	add_optional(a, "workspace", o->workspace);
	add_optional(a, "cwd", o->cwd);
	add_optional(a, "hostname", o->hostname);
	add_optional(a, "json-status", o->json_status);
	for (size_t i = 0; i < o->n_paths; i++)
		add(a, "--%s=%s", cr_path_access_to_string(o->paths[i].access), o->paths[i].path);
	add_list(a, "setenv", o->setenv, o->n_setenv);
	add_list(a, "keep-env", o->keep_env, o->n_keep_env);
	for (size_t i = 0; i < o->n_keep_fds; i++)
		add(a, "--keep-fd=%d", o->keep_fds[i]);
	if (o->net_set && o->net != CR_NET_HOSTS)
		add(a, "--net=%s", cr_net_mode_to_string(o->net));
	if (o->landlock_set)
		add(a, "--landlock=%s", cr_landlock_mode_to_string(o->landlock));
	if (o->landlock_min_abi)
		add(a, "--landlock-min-abi=%d", o->landlock_min_abi);
	add_ports(a, "tcp-connect", o->tcp_connect, o->n_tcp_connect);
	add_ports(a, "tcp-bind", o->tcp_bind, o->n_tcp_bind);
	if (o->allow_degraded)
		add(a, "--allow-degraded");
	if (o->map_root)
		add(a, "--map-root");
	if (o->uid_set)
		add(a, "--uid=%" PRIu32, o->uid);
	if (o->gid_set)
		add(a, "--gid=%" PRIu32, o->gid);
	if (o->timeout_ms)
		add(a, "--timeout=%" PRIu64 ".%03" PRIu64, o->timeout_ms / 1000,
		    o->timeout_ms % 1000);
	add(a, "--kill-after=%" PRIu64 ".%03" PRIu64, o->kill_after_ms / 1000,
	    o->kill_after_ms % 1000);
	if (o->seccomp_set)
		add(a, "--seccomp=%s", cr_seccomp_mode_to_string(o->seccomp));
	add_optional(a, "seccomp-profile", o->seccomp_profile);
	if (o->spawn_set)
		add(a, "--spawn=%s", o->no_spawn ? "no" : "yes");
	for (int l = 0; l < _CR_LIMIT_MAX; l++)
		if (o->limits.set[l]) {
			cr_limit_format(l, o->limits.value[l], buf, sizeof(buf));
			add(a, "%s=%s", cr_limit_option(l), buf);
		}
	if (o->limits_mode_set)
		add(a, "--limits=%s", o->limits.required ? "required" : "best-effort");
	for (int i = 0; i < o->verbose; i++)
		add(a, "-v");
	add(a, "--");
	for (size_t i = 0; o->argv[i]; i++)
		add(a, "%s", o->argv[i]);
}

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool strs_eq(const char *const *a, const char *const *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

static void check_equal(const struct cr_run_options *a, const struct cr_run_options *b)
{
	FUZZ_CHECK(str_eq(a->profile, b->profile) && str_eq(a->session, b->session) &&
			   str_eq(a->audit, b->audit) && str_eq(a->workspace, b->workspace) &&
			   str_eq(a->cwd, b->cwd) && str_eq(a->hostname, b->hostname) &&
			   str_eq(a->json_status, b->json_status) &&
			   str_eq(a->seccomp_profile, b->seccomp_profile),
		   "a string option changed");
	FUZZ_CHECK(a->grant == b->grant && a->no_audit == b->no_audit && a->net == b->net &&
			   a->net_set == b->net_set && a->landlock == b->landlock &&
			   a->landlock_set == b->landlock_set &&
			   a->landlock_min_abi == b->landlock_min_abi &&
			   a->allow_degraded == b->allow_degraded && a->map_root == b->map_root &&
			   a->uid_set == b->uid_set && a->gid_set == b->gid_set &&
			   a->uid == b->uid && a->gid == b->gid && a->timeout_ms == b->timeout_ms &&
			   a->kill_after_ms == b->kill_after_ms && a->seccomp == b->seccomp &&
			   a->seccomp_set == b->seccomp_set && a->no_spawn == b->no_spawn &&
			   a->spawn_set == b->spawn_set &&
			   a->limits_mode_set == b->limits_mode_set && a->verbose == b->verbose &&
			   a->help == b->help,
		   "a scalar option changed");
	FUZZ_CHECK(memcmp(&a->limits, &b->limits, sizeof(a->limits)) == 0, "limits changed");
	FUZZ_CHECK(a->n_allow_hosts == b->n_allow_hosts && a->n_setenv == b->n_setenv &&
			   a->n_keep_env == b->n_keep_env && a->n_keep_fds == b->n_keep_fds &&
			   a->n_paths == b->n_paths && a->n_tcp_connect == b->n_tcp_connect &&
			   a->n_tcp_bind == b->n_tcp_bind,
		   "a list changed length");
	FUZZ_CHECK(strs_eq(a->allow_hosts, b->allow_hosts, a->n_allow_hosts) &&
			   strs_eq(a->setenv, b->setenv, a->n_setenv) &&
			   strs_eq(a->keep_env, b->keep_env, a->n_keep_env),
		   "a list changed");
	for (size_t i = 0; i < a->n_paths; i++)
		FUZZ_CHECK(strcmp(a->paths[i].path, b->paths[i].path) == 0 &&
				   a->paths[i].access == b->paths[i].access,
			   "path %zu changed", i);
	FUZZ_CHECK((!a->n_keep_fds ||
		    memcmp(a->keep_fds, b->keep_fds, a->n_keep_fds * sizeof(int)) == 0) &&
			   (!a->n_tcp_connect ||
			    memcmp(a->tcp_connect, b->tcp_connect,
				   a->n_tcp_connect * sizeof(*a->tcp_connect)) == 0) &&
			   (!a->n_tcp_bind || memcmp(a->tcp_bind, b->tcp_bind,
						     a->n_tcp_bind * sizeof(*a->tcp_bind)) == 0),
		   "descriptors or ports changed");
	FUZZ_CHECK((!a->argv && !b->argv) ||
			   (a->argv && b->argv && fuzz_strv_equal(a->argv, b->argv)),
		   "the command changed");
}

static void check_ranges(const struct cr_run_options *o)
{
	FUZZ_CHECK(o->argv && o->argv[0] && o->argv[0][0], "no command");
	FUZZ_CHECK(!o->uid_set || (o->uid != 0 && o->uid != 65535 && o->uid != UINT32_MAX),
		   "uid %" PRIu32, o->uid);
	FUZZ_CHECK(!o->gid_set || (o->gid != 0 && o->gid != 65535 && o->gid != UINT32_MAX),
		   "gid %" PRIu32, o->gid);
	FUZZ_CHECK(o->timeout_ms <= CR_MAX_WAIT_MS && o->kill_after_ms <= CR_MAX_WAIT_MS,
		   "a wait past a year");
	FUZZ_CHECK(o->landlock_min_abi >= 0 && o->landlock_min_abi <= CR_LANDLOCK_ABI_MAX,
		   "landlock ABI %d", o->landlock_min_abi);
	FUZZ_CHECK(!o->n_allow_hosts || o->net == CR_NET_HOSTS, "hosts without allow_hosts");
	for (size_t i = 0; i < o->n_keep_fds; i++)
		FUZZ_CHECK(o->keep_fds[i] >= 0, "fd %d", o->keep_fds[i]);
	for (size_t i = 0; i < o->n_tcp_connect; i++)
		FUZZ_CHECK(o->tcp_connect[i].first >= 1 &&
				   o->tcp_connect[i].first <= o->tcp_connect[i].last,
			   "connect ports");
	for (int l = 0; l < _CR_LIMIT_MAX; l++)
		FUZZ_CHECK(o->limits.set[l] == (o->limits.value[l] != CR_LIMIT_UNSET), "limit %d",
			   l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char **v = NULL, **copy = NULL;
	struct cr_run_options o = {}, o2 = {}, back = {};
	struct args a = {};
	char msg[512] = "", msg2[512];
	size_t n;
	int r, r2;

	if (size > 8192)
		return 0;
	/* argv[0] is "run": put the input after it. */
	v = fuzz_split(data, size, MAX_ARGS, &buf, &n);
	copy = calloc(n + 2, sizeof(char *));
	if (!copy)
		abort();
	copy[0] = "run";
	memcpy(copy + 1, v, n * sizeof(char *));

	r = cr_cli_parse_run((int)n + 1, copy, &o, msg, sizeof(msg));
	FUZZ_CHECK(r == 0 || r == -EINVAL, "cr_cli_parse_run: %d", r);
	FUZZ_CHECK(r == 0 || msg[0], "refused without a reason");
	r2 = cr_cli_parse_run((int)n + 1, copy, &o2, msg2, sizeof(msg2));
	FUZZ_CHECK(r == r2, "parsed %d, then %d", r, r2);
	if (r < 0)
		return 0;
	check_equal(&o, &o2);
	cr_run_options_done(&o2);
	if (o.help) {
		cr_run_options_done(&o);
		return 0;
	}
	check_ranges(&o);
	serialize(&o, &a);
	r = cr_cli_parse_run((int)a.n, a.v, &back, msg, sizeof(msg));
	FUZZ_CHECK(r == 0, "written back, refused: %s", msg);
	check_equal(&o, &back);
	cr_run_options_done(&back);
	cr_run_options_done(&o);
	for (size_t i = 0; i < a.n; i++)
		free(a.v[i]);
	free(a.v);
	return 0;
}
