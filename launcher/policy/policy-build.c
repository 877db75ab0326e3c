/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "capability.h"
#include "path-env.h"
#include "request.h"
#include "env.h"
#include "secret.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"
#include "policy-build.h"
#include "policy.h"
#include "profile-resolve.h"
#include "profile.h"
#include "wsl/wsl.h"

/* Check and canonicalize a host path given to @opt. */
static int resolve_host_path(const char *opt, const char *path, char **ret, char *msg, size_t size)
{
	int r;

	r = cr_path_check(path, false);
	if (r < 0)
		return cr_msg(msg, size, -EINVAL,
			    "%s: the path is empty, too long or contains a control character", opt);
	r = cr_path_canonicalize(path, ret);
	if (r == -ENOENT)
		return cr_msg(msg, size, r, "%s '%s': no such file or directory", opt, path);
	if (r < 0)
		return cr_msg(msg, size, r, "%s '%s': cannot resolve: %s", opt, path, strerror(-r));
	return 0;
}

/* With a session, --cwd must name a directory inside the workspace (after "..", symlinks). */
static int check_session_cwd(const char *cwd, const struct cr_policy *p, char *msg, size_t size)
{
	_cleanup_free_ char *canon = NULL;

	if (cr_path_canonicalize(cwd, &canon) < 0 || !cr_path_is_within(canon, p->workspace))
		return cr_msg(msg, size, -EINVAL,
			    "--cwd '%s' is not a directory inside the session's workspace %s", cwd,
			    p->workspace);
	return 0;
}

static int build_workspace(const struct cr_run_options *o, const char *session_ws,
			   struct cr_policy *p, char *msg, size_t size)
{
	_cleanup_free_ char *cwd = NULL;
	const char *ws;
	struct stat st;
	int r;

	cwd = getcwd(NULL, 0);
	ws = o->workspace ?: session_ws ?: cwd;
	if (!ws)
		return cr_msg(msg, size, negative_errno(),
			    "the current directory is gone; pass --workspace DIR");
	r = resolve_host_path("--workspace", ws, &p->workspace, msg, size);
	if (r < 0)
		return r;
	if (stat(p->workspace, &st) < 0)
		return cr_msg(msg, size, negative_errno(), "--workspace '%s': %m", p->workspace);
	if (!S_ISDIR(st.st_mode))
		return cr_msg(msg, size, -ENOTDIR, "--workspace '%s' is not a directory", p->workspace);
	if (strcmp(p->workspace, "/") == 0)
		return cr_msg(msg, size, -EINVAL,
			    "--workspace cannot be /: that would make the whole host writable");
	if (o->cwd) {
		if (cr_path_check(o->cwd, true) < 0)
			return cr_msg(msg, size, -EINVAL,
				    "--cwd '%s': must be an absolute path inside the sandbox", o->cwd);
		if (session_ws && check_session_cwd(o->cwd, p, msg, size) < 0)
			return -EINVAL;
		p->cwd = strdup(o->cwd);
	} else if (cwd && cr_path_is_within(cwd, p->workspace)) {
		p->cwd = TAKE_PTR(cwd);
	} else {
		p->cwd = strdup(p->workspace);
	}
	return p->cwd ? 0 : -ENOMEM;
}

static bool is_repeat(const struct cr_policy *p, const char *path, enum cr_path_access access)
{
	if (strcmp(path, p->workspace) == 0 &&
	    (access == CR_PATH_RW || (access == CR_PATH_RO && p->workspace_ro)))
		return true;
	for (size_t j = 0; j < p->n_paths; j++)
		if (p->paths[j].access == access && strcmp(p->paths[j].path, path) == 0)
			return true;
	return false;
}

/* The profile's rules come first; an option for the same path replaces the profile's rule. */
static int add_profile_rules(const struct cr_path_rule *rules, size_t n, struct cr_policy *p)
{
	for (size_t i = 0; i < n; i++) {
		char *copy = strdup(rules[i].path);

		if (!copy)
			return -ENOMEM;
		p->paths[p->n_paths++] = (struct cr_path_rule){ copy, rules[i].access };
	}
	return 0;
}

static int add_cli_rule(struct cr_policy *p, size_t n_profile, char *path,
			enum cr_path_access access, const char *opt, char *msg, size_t size)
{
	static const char *const opt_names[] = { "--ro", "--rw", "--hide" };

	if (strcmp(path, "/") == 0) {
		free(path);
		return cr_msg(msg, size, -EINVAL,
			    "%s /: the root itself cannot be bound or hidden; name the directories the command needs",
			    opt);
	}
	if (strcmp(path, p->workspace) == 0 && access == CR_PATH_RW)
		p->workspace_ro = false; /* asked for (and checked against the baseline) */
	if (is_repeat(p, path, access)) {
		free(path); /* the same rule again changes nothing: mount it once */
		return 0;
	}
	if (strcmp(path, p->workspace) == 0) {
		free(path);
		return cr_msg(msg, size, -EINVAL,
			    "%s '%s' conflicts with --workspace, which is that directory", opt,
			    p->workspace);
	}
	for (size_t j = 0; j < p->n_paths; j++) {
		if (strcmp(p->paths[j].path, path) != 0)
			continue;
		if (j < n_profile) { /* the option wins over the profile */
			free(path);
			p->paths[j].access = access;
			return 0;
		}
		free(path);
		return cr_msg(msg, size, -EINVAL, "%s '%s' conflicts with %s of the same path", opt,
			    p->paths[j].path, opt_names[p->paths[j].access]);
	}
	p->paths[p->n_paths++] = (struct cr_path_rule){ path, access };
	return 0;
}

/* --ro, --rw and --hide on top of @rules (the profile's); the paths asked for go to @req. */
static int build_paths(const struct cr_run_options *o, const struct cr_path_rule *rules,
		       size_t n_rules, struct cr_policy *p, struct cr_capability *req, char *msg,
		       size_t size)
{
	static const char *const opt_names[] = { "--ro", "--rw", "--hide" };
	int r;

	p->paths = calloc(n_rules + o->n_paths ?: 1, sizeof(*p->paths));
	if (!p->paths)
		return -ENOMEM;
	r = add_profile_rules(rules, n_rules, p);
	for (size_t i = 0; i < o->n_paths && r >= 0; i++) {
		enum cr_path_access access = o->paths[i].access;
		const char *opt = opt_names[access];
		char *path = NULL;

		r = resolve_host_path(opt, o->paths[i].path, &path, msg, size);
		if (r >= 0 && access != CR_PATH_HIDE)
			r = cr_capability_add_path(req, access == CR_PATH_RW, path);
		if (r >= 0)
			r = add_cli_rule(p, n_rules, TAKE_PTR(path), access, opt, msg, size);
		free(path);
	}
	return r;
}

static int build_ids(const struct cr_run_options *o, bool is_root, struct cr_policy *p, char *msg,
		     size_t size)
{
	if (!is_root && (o->uid_set || o->gid_set))
		return cr_msg(msg, size, -EINVAL,
			    "--uid/--gid choose the host ids of a sandbox started by root; as a normal user the sandbox runs as you");
	p->map_root = o->map_root;
	p->uid = o->uid;
	p->gid = o->gid_set ? o->gid : o->uid_set ? o->uid : o->gid;
	p->net = o->net;
	return 0;
}

/* May host @uid/@gid (with no other group: the sandbox has none) read @st, and search it if a
 * directory? */
static bool readable_by(const struct stat *st, uint32_t uid, uint32_t gid)
{
	mode_t need = S_ISDIR(st->st_mode) ? 05 : 04; /* as "other" */

	if (st->st_uid == uid)
		need <<= 6;
	else if (st->st_gid == gid)
		need <<= 3;
	return (st->st_mode & need) == need;
}

/* Root's sandbox runs as p->uid: a read-only path it may not read (a 0700 toolchain directory
 * of root's) would be there and empty to it. Said once per path, on stderr and in the status. */
static int check_readable(bool is_root, struct cr_policy *p)
{
	size_t n = 0;

	for (size_t i = 0; is_root && i < p->n_paths; i++) {
		struct stat st;
		char **v;

		if (p->paths[i].access != CR_PATH_RO || stat(p->paths[i].path, &st) < 0 ||
		    readable_by(&st, p->uid, p->gid))
			continue;
		cr_log_warning("the sandbox runs as host uid %u, which cannot read %s (mode %04o, owner %u:%u): it is shown but unreadable; make it readable (chmod o+rX), or pass --uid of a user that may read it",
			       p->uid, p->paths[i].path, (unsigned)(st.st_mode & 07777),
			       (unsigned)st.st_uid, (unsigned)st.st_gid);
		v = reallocarray(p->unreadable, n + 2, sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->unreadable = v;
		v[n] = strdup(p->paths[i].path); /* NULL: the list ends there */
		if (!v[n])
			return -ENOMEM;
		v[++n] = NULL;
	}
	return 0;
}

static int build_hostname(const struct cr_run_options *o, struct cr_policy *p, char *msg, size_t size)
{
	const char *h = o->hostname ?: CR_DEFAULT_HOSTNAME;
	size_t n = strlen(h);

	if (n == 0 || n > 64 || h[0] == '-' || strspn(h, "abcdefghijklmnopqrstuvwxyz"
							"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.") != n)
		return cr_msg(msg, size, -EINVAL,
			    "--hostname '%s': use 1-64 letters, digits, '-' and '.'", h);
	p->hostname = strdup(h);
	return p->hostname ? 0 : -ENOMEM;
}

static int build_home(char *const *host_env, struct cr_policy *p)
{
	const char *home = cr_env_get(host_env, "HOME");
	struct passwd *pw;

	if (!home || cr_path_check(home, true) < 0) {
		pw = getpwuid(getuid());
		home = pw && pw->pw_dir && cr_path_check(pw->pw_dir, true) == 0 ? pw->pw_dir : "/";
	}
	p->home = strdup(home);
	return p->home ? 0 : -ENOMEM;
}

/* The profile's caches, then --cache: "~" is the sandbox's HOME, so after build_home(). */
static int build_caches(const struct cr_run_options *o, const struct cr_profile *prof,
			struct cr_policy *p, char *msg, size_t size)
{
	size_t n_prof = prof ? prof->n_caches : 0;
	int r = 0;

	for (size_t i = 0; i < n_prof + o->n_caches && r >= 0; i++) {
		bool cli = i >= n_prof;
		const char *opt = cli ? "--cache" : "cache";
		char *name = NULL, *path = NULL;

		r = cr_cache_spec_parse(opt, cli ? o->caches[i - n_prof] : prof->caches[i].spec,
					cli ? '=' : ':', p->home, &name, &path, msg, size);
		if (r >= 0)
			r = cr_cache_add(p, cli ? n_prof : 0, name, path, opt, msg, size);
	}
	return r;
}

static int build_fds(const struct cr_run_options *o, struct cr_policy *p, char *msg, size_t size)
{
	p->keep_fds = calloc(o->n_keep_fds ?: 1, sizeof(int));
	if (!p->keep_fds)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_keep_fds; i++) {
		if (fcntl(o->keep_fds[i], F_GETFD) < 0)
			return cr_msg(msg, size, -EBADF, "--keep-fd %d: descriptor %d is not open",
				    o->keep_fds[i], o->keep_fds[i]);
		p->keep_fds[p->n_keep_fds++] = o->keep_fds[i];
	}
	return 0;
}

static int build_seccomp(const struct cr_run_options *o, struct cr_policy *p, char *msg, size_t size)
{
	struct stat st;
	int r;

	p->seccomp = o->seccomp;
	p->no_spawn = o->no_spawn;
	p->ptrace = o->ptrace;
	if (!o->seccomp_profile)
		return 0;
	r = resolve_host_path("--seccomp-profile", o->seccomp_profile, &p->seccomp_profile, msg,
			      size);
	if (r < 0)
		return r;
	if (stat(p->seccomp_profile, &st) < 0)
		return cr_msg(msg, size, negative_errno(), "--seccomp-profile '%s': %m",
			    p->seccomp_profile);
	if (!S_ISREG(st.st_mode))
		return cr_msg(msg, size, -EINVAL, "--seccomp-profile '%s' is not a regular file",
			    p->seccomp_profile);
	p->seccomp = CR_SECCOMP_PROFILE;
	return 0;
}

static int copy_ports(const struct cr_port_range *src, size_t n, struct cr_port_range **ret)
{
	*ret = n ? reallocarray(NULL, n, sizeof(*src)) : NULL;
	if (n && !*ret)
		return -ENOMEM;
	if (n)
		memcpy(*ret, src, n * sizeof(*src));
	return 0;
}

/* --landlock, --landlock-min-abi, --tcp-connect, --tcp-bind and --allow-degraded: what cannot
 * work together is refused here rather than ignored later. */
static int build_landlock(const struct cr_run_options *o, struct cr_policy *p, char *msg,
			  size_t size)
{
	const char *needs = o->landlock_min_abi ? "--landlock-min-abi"
			    : o->n_tcp_connect	? "--tcp-connect"
			    : o->n_tcp_bind	? "--tcp-bind"
			    : o->allow_degraded ? "--allow-degraded"
						: NULL;
	int r;

	if (o->landlock == CR_LANDLOCK_OFF && needs)
		return cr_msg(msg, size, -EINVAL, "%s needs Landlock: it cannot be combined with --landlock=off%s",
			    needs, strcmp(needs, "--allow-degraded") == 0
				    ? " (corral never runs a command with neither namespaces nor Landlock)"
				    : "");
	p->landlock = o->landlock;
	p->landlock_min_abi = o->landlock_min_abi;
	p->allow_degraded = o->allow_degraded;
	r = copy_ports(o->tcp_connect, o->n_tcp_connect, &p->tcp_connect);
	if (r >= 0)
		r = copy_ports(o->tcp_bind, o->n_tcp_bind, &p->tcp_bind);
	if (r < 0)
		return r;
	p->n_tcp_connect = o->n_tcp_connect;
	p->n_tcp_bind = o->n_tcp_bind;
	return 0;
}

/* --allow-host and the profile's allow_host lines, as the policy's NULL-terminated list. */
static int build_hosts(const struct cr_run_options *o, const struct cr_profile *prof,
		       struct cr_policy *p)
{
	struct cr_capability hosts = {};
	int r = 0;

	if (p->net != CR_NET_HOSTS)
		return 0;
	for (size_t i = 0; prof && prof->net == CR_NETCAP_HOSTS && i < prof->n_hosts && r >= 0; i++)
		r = cr_capability_add_host(&hosts, prof->hosts[i]);
	for (size_t i = 0; i < o->n_allow_hosts && r >= 0; i++)
		r = cr_capability_add_host(&hosts, o->allow_hosts[i]);
	if (r < 0) {
		cr_capability_done(&hosts);
		return r;
	}
	p->allow_hosts = TAKE_PTR(hosts.hosts);
	p->n_allow_hosts = hosts.n_hosts;
	cr_capability_done(&hosts);
	return 0;
}

static int seccomp_rank(enum cr_seccomp_mode m)
{
	return m == CR_SECCOMP_STRICT ? 2 : m == CR_SECCOMP_DEFAULT ? 1 : 0;
}

static int landlock_rank(enum cr_landlock_mode m)
{
	return m == CR_LANDLOCK_REQUIRED ? 2 : m == CR_LANDLOCK_BEST_EFFORT ? 1 : 0;
}

/* The options with the profile's values where the user gave none (@eff shares @o's arrays), and
 * what the options ask for beyond the profile in @req (the paths are added by build_paths()). */
static void apply_profile(const struct cr_run_options *o, const struct cr_profile *prof,
			  struct cr_run_options *eff, struct cr_capability *req)
{
	static const enum cr_net_mode net_of[_CR_NETCAP_MAX] = {
		[CR_NETCAP_NONE] = CR_NET_NONE,
		[CR_NETCAP_HOSTS] = CR_NET_HOSTS,
		[CR_NETCAP_ALL] = CR_NET_HOST,
	};

	*eff = *o;
	if (!o->net_set)
		eff->net = net_of[prof->net];
	if (!o->spawn_set)
		eff->no_spawn = !prof->spawn;
	for (int l = 0; l < _CR_LIMIT_MAX; l++)
		if (!o->limits.set[l] && prof->limits.set[l]) {
			eff->limits.value[l] = prof->limits.value[l];
			eff->limits.set[l] = true;
		}
	if (!o->limits_mode_set)
		eff->limits.required = prof->limits.required;
	if (!o->timeout_ms)
		eff->timeout_ms = prof->timeout_ms;
	if (!o->seccomp_set && !o->seccomp_profile)
		eff->seccomp = prof->seccomp;
	if (!o->landlock_set)
		eff->landlock = prof->landlock;
	/* A --seccomp-profile says itself what it refuses, ptrace too. */
	if (!o->ptrace_set)
		eff->ptrace = prof->ptrace && !o->seccomp_profile;

	req->net = o->net == CR_NET_HOST ? CR_NETCAP_ALL : CR_NETCAP_NONE;
	for (size_t i = 0; i < o->n_allow_hosts; i++)
		(void)cr_capability_add_host(req, o->allow_hosts[i]); /* checked by the parser */
	req->spawn = o->spawn_set && !o->no_spawn;
	for (int l = 0; l < _CR_LIMIT_MAX; l++)
		req->limit[l] = o->limits.set[l] ? o->limits.value[l] : CR_LIMIT_UNSET;
	req->timeout_ms = o->timeout_ms;
	if (o->seccomp_profile || (o->seccomp_set && seccomp_rank(o->seccomp) < seccomp_rank(prof->seccomp)))
		req->unconfined |= CR_UNCONFINED_SECCOMP;
	if (o->landlock_set && landlock_rank(o->landlock) < landlock_rank(prof->landlock))
		req->unconfined |= CR_UNCONFINED_LANDLOCK;
	if (o->ptrace_set && o->ptrace && !prof->ptrace)
		req->unconfined |= CR_UNCONFINED_PTRACE;
	if (o->allow_degraded)
		req->unconfined |= CR_UNCONFINED_USERNS;
	if (o->limits_mode_set && !o->limits.required && prof->limits.required)
		req->unconfined |= CR_UNCONFINED_LIMITS;
}

/* Under WSL, WSL_INTEROP and its kin would let the command start Windows programs outside
 * every layer of the sandbox: asking to pass one is refused, not ignored. Only looked at when
 * one is asked for, so that ordinary runs do not read /proc for it. */
static int check_wsl_env(const struct cr_run_options *o, const struct cr_policy *p, char *msg,
			 size_t size)
{
	for (size_t i = 0; cr_wsl_interop_env[i]; i++) {
		size_t n = strlen(cr_wsl_interop_env[i]);
		const char *opt = NULL;

		for (size_t j = 0; j < p->n_secrets && !opt; j++)
			if (p->secrets[j].kind == CR_SECRET_ENV &&
			    strcmp(p->secrets[j].name, cr_wsl_interop_env[i]) == 0)
				opt = "a secret";

		for (size_t j = 0; j < o->n_keep_env && !opt; j++)
			if (strcmp(o->keep_env[j], cr_wsl_interop_env[i]) == 0)
				opt = "--keep-env";
		for (size_t j = 0; j < o->n_setenv && !opt; j++)
			if (strncmp(o->setenv[j], cr_wsl_interop_env[i], n) == 0 &&
			    o->setenv[j][n] == '=')
				opt = "--setenv";
		if (opt && cr_wsl_running())
			return cr_msg(msg, size, -EPERM,
				      "%s %s: under WSL it opens the way to starting Windows programs outside the sandbox; corral does not pass it",
				      opt, cr_wsl_interop_env[i]);
	}
	return 0;
}

/* Did the options name PATH themselves (--keep-env PATH, --setenv PATH=...)? */
static bool path_given(const struct cr_run_options *o)
{
	for (size_t i = 0; i < o->n_keep_env; i++)
		if (strcmp(o->keep_env[i], "PATH") == 0)
			return true;
	for (size_t i = 0; i < o->n_setenv; i++)
		if (strncmp(o->setenv[i], "PATH=", 5) == 0)
			return true;
	return false;
}

/* PATH with [process] path = inherit: the caller's, less what the sandbox does not show
 * (path-env.h), unless the options name it; without the driver's system paths (tests, doctor)
 * the standard one stays. */
static int build_path(const struct cr_policy_input *in, const struct cr_run_options *o,
		      struct cr_policy *p)
{
	_cleanup_free_ char *path = NULL;
	char *kv;
	int r;

	if (!in->profile || !in->profile->inherit_path || !in->system_paths || path_given(o))
		return 0;
	r = cr_sandbox_path(p, in->system_paths, cr_env_get(in->host_env, "PATH"), &path,
			    &p->path_hidden);
	if (r < 0)
		return r;
	for (char **e = p->env; *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0) {
			if (asprintf(&kv, "PATH=%s", path) < 0)
				return -ENOMEM;
			free(*e);
			*e = kv;
		}
	return 0;
}

/* The environment: --keep-env, --setenv, then the environment secrets, whose values move from
 * p->secrets into p->env (and nowhere else). */
static int build_env(const struct cr_policy_input *in, const struct cr_run_options *o,
		     struct cr_policy *p)
{
	const char **set = calloc(o->n_setenv + p->n_secrets + 1, sizeof(char *));
	size_t n = o->n_setenv;
	int r = 0;

	if (!set)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_setenv; i++)
		set[i] = o->setenv[i];
	for (size_t i = 0; r >= 0 && i < p->n_secrets; i++) {
		char *kv;

		if (p->secrets[i].kind != CR_SECRET_ENV)
			continue;
		if (asprintf(&kv, "%s=%s", p->secrets[i].name, p->secrets[i].value) < 0)
			r = -ENOMEM;
		else
			set[n++] = kv;
	}
	if (r >= 0)
		r = cr_env_build(in->host_env, p->home, o->keep_env, o->n_keep_env, set, n, &p->env);
	for (size_t i = o->n_setenv; i < n; i++)
		cr_secret_erase((char *)set[i]);
	free(set);
	for (size_t i = 0; r >= 0 && i < p->n_secrets; i++)
		if (p->secrets[i].kind == CR_SECRET_ENV) {
			cr_secret_erase(p->secrets[i].value);
			p->secrets[i].value = NULL;
		}
	return r;
}

static int build_all(const struct cr_policy_input *in, const struct cr_run_options *o,
		     const struct cr_path_rule *rules, size_t n_rules, struct cr_policy *p,
		     struct cr_capability *req, char *msg, size_t size)
{
	int r;

	if (p->limits.value[CR_LIMIT_PIDS] == CR_LIMIT_UNSET)
		p->limits.value[CR_LIMIT_PIDS] = CR_DEFAULT_PIDS; /* a fork bomb stops here */
	r = build_paths(o, rules, n_rules, p, req, msg, size);
	if (r >= 0)
		r = build_ids(o, in->is_root, p, msg, size);
	if (r >= 0)
		r = check_readable(in->is_root, p);
	if (r >= 0)
		r = build_hosts(o, in->profile, p);
	if (r >= 0)
		r = build_hostname(o, p, msg, size);
	if (r >= 0)
		r = build_home(in->host_env, p);
	if (r >= 0)
		r = build_caches(o, in->profile, p, msg, size);
	if (r >= 0)
		r = build_fds(o, p, msg, size);
	if (r >= 0)
		r = build_landlock(o, p, msg, size);
	if (r >= 0)
		r = build_seccomp(o, p, msg, size);
	if (r >= 0)
		r = cr_secrets_read(o, &p->secrets, &p->n_secrets, msg, size);
	if (r >= 0)
		r = check_wsl_env(o, p, msg, size);
	if (r >= 0)
		r = build_env(in, o, p);
	if (r >= 0)
		r = build_path(in, o, p);
	return r;
}

static void free_rules(struct cr_path_rule *rules, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rules[i].path);
	free(rules);
}

int cr_policy_build_from(const struct cr_policy_input *in, struct cr_policy *ret,
			 struct cr_capability *ret_request, struct cr_capability *ret_baseline,
			 char *msg, size_t size)
{
	struct cr_capability req = {}, base = {};
	struct cr_run_options eff = *in->opts;
	struct cr_path_rule *rules = NULL;
	struct cr_policy p = {};
	size_t n_rules = 0;
	int r;

	if (in->profile)
		apply_profile(in->opts, in->profile, &eff, &req);
	p = (struct cr_policy){
		.timeout_ms = eff.timeout_ms,
		.kill_after_ms = eff.kill_after_ms,
		.limits = eff.limits,
		.argv = eff.argv,
		.workspace_ro = in->profile && in->profile->workspace_ro,
	};
	r = build_workspace(&eff, in->session_workspace, &p, msg, size);
	if (r >= 0 && in->profile)
		r = cr_profile_resolve(in->profile, p.workspace, in->system_paths, &rules, &n_rules,
				       &base, msg, size);
	if (r >= 0)
		r = build_all(in, &eff, rules, n_rules, &p, &req, msg, size);
	free_rules(rules, n_rules);
	if (r < 0) {
		if (r == -ENOMEM)
			(void)cr_msg(msg, size, r, "out of memory");
		cr_policy_done(&p);
		cr_capability_done(&req);
		cr_capability_done(&base);
		return r;
	}
	*ret = p;
	if (ret_request)
		*ret_request = req;
	else
		cr_capability_done(&req);
	if (ret_baseline)
		*ret_baseline = base;
	else
		cr_capability_done(&base);
	return 0;
}

int cr_policy_build(const struct cr_run_options *o, char *const *host_env, bool is_root,
		    struct cr_policy *ret, char *msg, size_t size)
{
	struct cr_policy_input in = { .opts = o, .host_env = host_env, .is_root = is_root };

	return cr_policy_build_from(&in, ret, NULL, NULL, msg, size);
}
