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

#include "cli.h"
#include "env.h"
#include "macro.h"
#include "path-util.h"
#include "policy.h"

static const char *const path_access_names[_CR_PATH_ACCESS_MAX] = {
	[CR_PATH_RO] = "ro",
	[CR_PATH_RW] = "rw",
	[CR_PATH_HIDE] = "hide",
};

static const char *const net_mode_names[_CR_NET_MAX] = {
	[CR_NET_NONE] = "none",
	[CR_NET_HOST] = "host",
	[CR_NET_HOSTS] = "allow_hosts",
};

static const char *const seccomp_mode_names[_CR_SECCOMP_MAX] = {
	[CR_SECCOMP_DEFAULT] = "default",
	[CR_SECCOMP_STRICT] = "strict",
	[CR_SECCOMP_OFF] = "off",
	[CR_SECCOMP_PROFILE] = "profile",
};

const char *cr_path_access_to_string(enum cr_path_access a)
{
	return a >= 0 && a < _CR_PATH_ACCESS_MAX ? path_access_names[a] : NULL;
}

const char *cr_net_mode_to_string(enum cr_net_mode m)
{
	return m >= 0 && m < _CR_NET_MAX ? net_mode_names[m] : NULL;
}

enum cr_net_mode cr_net_mode_from_string(const char *s)
{
	for (int i = 0; i < _CR_NET_MAX; i++)
		if (s && strcmp(s, net_mode_names[i]) == 0)
			return i;
	return _CR_NET_INVALID;
}

static const char *const landlock_mode_names[_CR_LANDLOCK_MODE_MAX] = {
	[CR_LANDLOCK_BEST_EFFORT] = "best-effort",
	[CR_LANDLOCK_REQUIRED] = "required",
	[CR_LANDLOCK_OFF] = "off",
};

const char *cr_landlock_mode_to_string(enum cr_landlock_mode m)
{
	return m >= 0 && m < _CR_LANDLOCK_MODE_MAX ? landlock_mode_names[m] : NULL;
}

enum cr_landlock_mode cr_landlock_mode_from_string(const char *s)
{
	for (int i = 0; i < _CR_LANDLOCK_MODE_MAX; i++)
		if (s && strcmp(s, landlock_mode_names[i]) == 0)
			return i;
	return _CR_LANDLOCK_MODE_INVALID;
}

const char *cr_seccomp_mode_to_string(enum cr_seccomp_mode m)
{
	return m >= 0 && m < _CR_SECCOMP_MAX ? seccomp_mode_names[m] : NULL;
}

enum cr_seccomp_mode cr_seccomp_mode_from_string(const char *s)
{
	for (int i = 0; i < _CR_SECCOMP_MAX; i++)
		if (s && i != CR_SECCOMP_PROFILE && strcmp(s, seccomp_mode_names[i]) == 0)
			return i;
	return _CR_SECCOMP_INVALID;
}

void cr_policy_done(struct cr_policy *p)
{
	free(p->workspace);
	free(p->cwd);
	free(p->home);
	for (size_t i = 0; i < p->n_paths; i++)
		free(p->paths[i].path);
	free(p->paths);
	free(p->hostname);
	strv_freep(&p->allow_hosts);
	strv_freep(&p->env);
	free(p->keep_fds);
	free(p->tcp_connect);
	free(p->tcp_bind);
	free(p->seccomp_profile);
	*p = (struct cr_policy){};
}

static int fail(char *msg, size_t size, int r, const char *fmt, ...) _printf_(4, 5);
static int fail(char *msg, size_t size, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, size, fmt, ap);
	va_end(ap);
	return r;
}

/* Check and canonicalize a host path given to @opt. */
static int resolve_host_path(const char *opt, const char *path, char **ret, char *msg, size_t size)
{
	int r;

	r = cr_path_check(path, false);
	if (r < 0)
		return fail(msg, size, -EINVAL,
			    "%s: the path is empty, too long or contains a control character", opt);
	r = cr_path_canonicalize(path, ret);
	if (r == -ENOENT)
		return fail(msg, size, r, "%s '%s': no such file or directory", opt, path);
	if (r < 0)
		return fail(msg, size, r, "%s '%s': cannot resolve: %s", opt, path, strerror(-r));
	return 0;
}

static int build_workspace(const struct cr_run_options *o, struct cr_policy *p, char *msg, size_t size)
{
	_cleanup_free_ char *cwd = NULL;
	struct stat st;
	int r;

	cwd = getcwd(NULL, 0);
	if (!cwd && !o->workspace)
		return fail(msg, size, negative_errno(),
			    "the current directory is gone; pass --workspace DIR");
	r = resolve_host_path("--workspace", o->workspace ?: cwd, &p->workspace, msg, size);
	if (r < 0)
		return r;
	if (stat(p->workspace, &st) < 0)
		return fail(msg, size, negative_errno(), "--workspace '%s': %m", p->workspace);
	if (!S_ISDIR(st.st_mode))
		return fail(msg, size, -ENOTDIR, "--workspace '%s' is not a directory", p->workspace);
	if (strcmp(p->workspace, "/") == 0)
		return fail(msg, size, -EINVAL,
			    "--workspace cannot be /: that would make the whole host writable");
	if (o->cwd) {
		if (cr_path_check(o->cwd, true) < 0)
			return fail(msg, size, -EINVAL,
				    "--cwd '%s': must be an absolute path inside the sandbox", o->cwd);
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
	if (access == CR_PATH_RW && strcmp(path, p->workspace) == 0)
		return true;
	for (size_t j = 0; j < p->n_paths; j++)
		if (p->paths[j].access == access && strcmp(p->paths[j].path, path) == 0)
			return true;
	return false;
}

static int build_paths(const struct cr_run_options *o, struct cr_policy *p, char *msg, size_t size)
{
	static const char *const opt_names[] = { "--ro", "--rw", "--hide" };
	int r;

	p->paths = calloc(o->n_paths ?: 1, sizeof(*p->paths));
	if (!p->paths)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_paths; i++) {
		const char *opt = opt_names[o->paths[i].access];
		char *path = NULL;

		r = resolve_host_path(opt, o->paths[i].path, &path, msg, size);
		if (r < 0)
			return r;
		if (is_repeat(p, path, o->paths[i].access)) {
			free(path); /* the same rule again changes nothing: mount it once */
			continue;
		}
		p->paths[p->n_paths++] = (struct cr_path_rule){ path, o->paths[i].access };
		if (strcmp(path, "/") == 0)
			return fail(msg, size, -EINVAL,
				    "%s /: the root itself cannot be bound or hidden; name the directories the command needs",
				    opt);
		if (strcmp(path, p->workspace) == 0 && o->paths[i].access != CR_PATH_RW)
			return fail(msg, size, -EINVAL,
				    "%s '%s' conflicts with --workspace, which is that directory", opt,
				    path);
		for (size_t j = 0; j + 1 < p->n_paths; j++)
			if (strcmp(p->paths[j].path, path) == 0 &&
			    p->paths[j].access != o->paths[i].access)
				return fail(msg, size, -EINVAL,
					    "%s '%s' conflicts with %s of the same path", opt, path,
					    opt_names[p->paths[j].access]);
	}
	return 0;
}

static int build_ids(const struct cr_run_options *o, bool is_root, struct cr_policy *p, char *msg,
		     size_t size)
{
	if (!is_root && (o->uid_set || o->gid_set))
		return fail(msg, size, -EINVAL,
			    "--uid/--gid choose the host ids of a sandbox started by root; as a normal user the sandbox runs as you");
	p->map_root = o->map_root;
	p->uid = o->uid;
	p->gid = o->gid_set ? o->gid : o->uid_set ? o->uid : o->gid;
	p->net = o->net;
	return 0;
}

static int build_hostname(const struct cr_run_options *o, struct cr_policy *p, char *msg, size_t size)
{
	const char *h = o->hostname ?: CR_DEFAULT_HOSTNAME;
	size_t n = strlen(h);

	if (n == 0 || n > 64 || h[0] == '-' || strspn(h, "abcdefghijklmnopqrstuvwxyz"
							"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.") != n)
		return fail(msg, size, -EINVAL,
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

static int build_fds(const struct cr_run_options *o, struct cr_policy *p, char *msg, size_t size)
{
	p->keep_fds = calloc(o->n_keep_fds ?: 1, sizeof(int));
	if (!p->keep_fds)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_keep_fds; i++) {
		if (fcntl(o->keep_fds[i], F_GETFD) < 0)
			return fail(msg, size, -EBADF, "--keep-fd %d: descriptor %d is not open",
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
	if (!o->seccomp_profile)
		return 0;
	r = resolve_host_path("--seccomp-profile", o->seccomp_profile, &p->seccomp_profile, msg,
			      size);
	if (r < 0)
		return r;
	if (stat(p->seccomp_profile, &st) < 0)
		return fail(msg, size, negative_errno(), "--seccomp-profile '%s': %m",
			    p->seccomp_profile);
	if (!S_ISREG(st.st_mode))
		return fail(msg, size, -EINVAL, "--seccomp-profile '%s' is not a regular file",
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
		return fail(msg, size, -EINVAL, "%s needs Landlock: it cannot be combined with --landlock=off%s",
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

int cr_policy_build(const struct cr_run_options *o, char *const *host_env, bool is_root,
		    struct cr_policy *ret, char *msg, size_t size)
{
	struct cr_policy p = {
		.timeout_ms = o->timeout_ms,
		.kill_after_ms = o->kill_after_ms,
		.limits = o->limits,
		.argv = o->argv,
	};
	int r;

	if (p.limits.value[CR_LIMIT_PIDS] == CR_LIMIT_UNSET)
		p.limits.value[CR_LIMIT_PIDS] = CR_DEFAULT_PIDS; /* a fork bomb stops here */
	r = build_workspace(o, &p, msg, size);
	if (r >= 0)
		r = build_paths(o, &p, msg, size);
	if (r >= 0)
		r = build_ids(o, is_root, &p, msg, size);
	if (r >= 0)
		r = build_hostname(o, &p, msg, size);
	if (r >= 0)
		r = build_home(host_env, &p);
	if (r >= 0)
		r = build_fds(o, &p, msg, size);
	if (r >= 0)
		r = build_landlock(o, &p, msg, size);
	if (r >= 0)
		r = build_seccomp(o, &p, msg, size);
	if (r >= 0)
		r = cr_env_build(host_env, p.home, o->keep_env, o->n_keep_env, o->setenv,
				 o->n_setenv, &p.env);
	if (r < 0) {
		if (r == -ENOMEM)
			(void)fail(msg, size, r, "out of memory");
		cr_policy_done(&p);
		return r;
	}
	*ret = p;
	return 0;
}
