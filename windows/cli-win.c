/* SPDX-License-Identifier: MIT */
/* corral.exe's `run` options, and the policy they give the windows driver. */
#include <windows.h> /* first: the other Win32 headers need it */
#include <errno.h>
#include <shellapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-win.h"
#include "launcher/base/log.h"
#include "launcher/base/parse-util.h"
#include "launcher/policy/request.h"
#include "win-macro.h"
#include "wstr.h"

/* Pushed onto a NULL-terminated vector of copies. */
static int strv_push(char ***v, const char *s)
{
	size_t n = 0;
	char **a;

	while (*v && (*v)[n])
		n++;
	a = realloc(*v, (n + 2) * sizeof(char *));
	if (!a)
		return -ENOMEM;
	*v = a;
	a[n] = strdup(s);
	a[n + 1] = NULL;
	return a[n] ? 0 : -ENOMEM;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* A whole number, with a K/M/G/T suffix (powers of 1024) when @size. */
static int parse_number(const char *s, bool size, uint64_t *ret)
{
	uint64_t v = 0, mult = 1;
	const char *p = s;

	if (!*p)
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == s)
		return -EINVAL;
	if (size && *p) {
		const char *units = "KMGT", *u = strchr(units, *p & ~0x20);

		if (!u || p[1])
			return -EINVAL;
		mult = (uint64_t)1 << (10 * (u - units + 1));
		p++;
	}
	if (*p)
		return -EINVAL;
	if (v > UINT64_MAX / 2 / mult)
		return -ERANGE;
	*ret = v * mult;
	return 0;
}

static int limit_option(struct cr_win_run_options *o, enum cr_limit l, const char *name,
			const char *v, char *msg, size_t size)
{
	uint64_t n;

	if (strcmp(v, "max") == 0)
		n = CR_LIMIT_INFINITY;
	else if (parse_number(v, l == CR_LIMIT_MEMORY, &n) < 0 || n == 0)
		return cr_msg(msg, size, -EINVAL, "%s '%s': expected a positive %s or 'max'", name,
			      v, l == CR_LIMIT_MEMORY ? "size (K, M, G, T)" : "whole number");
	o->limits[l] = n;
	return 0;
}

/* Options that take a value; each is passed on to the inner corral of the wsl backend, except
 * those marked outer. */
static const struct {
	const char *name;
	bool outer;
} valued[] = {
	{"--backend", true},  {"--workspace", true}, {"--json-status", true}, {"--distro", true},
	{"--memory", false},  {"--pids", false},     {"--cpu-time", false},   {"--timeout", false},
	{"--spawn", false},   {"--net", false},      {"--setenv", false},     {"--keep-env", false},
	{"--profile", false}, {"--limits", false},
};

static int set_value(struct cr_win_run_options *o, const char *name, const char *v, char *msg,
		     size_t size)
{
	if (strcmp(name, "--backend") == 0) {
		if (strcmp(v, "windows") != 0 && strcmp(v, "wsl") != 0)
			return cr_msg(msg, size, -EINVAL, "--backend '%s': expected windows or wsl",
				      v);
		o->backend = strcmp(v, "wsl") == 0 ? CR_WIN_BACKEND_WSL : CR_WIN_BACKEND_WINDOWS;
	} else if (strcmp(name, "--workspace") == 0)
		o->workspace = v;
	else if (strcmp(name, "--json-status") == 0)
		o->json_status = v;
	else if (strcmp(name, "--distro") == 0)
		o->distro = v;
	else if (strcmp(name, "--profile") == 0)
		o->profile = v;
	else if (strcmp(name, "--net") == 0) {
		if (strcmp(v, "none") != 0 && strcmp(v, "host") != 0)
			return cr_msg(msg, size, -EINVAL, "--net '%s': expected none or host", v);
		o->net = v;
	} else if (strcmp(name, "--spawn") == 0) {
		if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
			return cr_msg(msg, size, -EINVAL, "--spawn '%s': expected yes or no", v);
		o->spawn = strcmp(v, "yes") == 0;
	} else if (strcmp(name, "--limits") == 0) {
		if (strcmp(v, "best-effort") != 0 && strcmp(v, "required") != 0)
			return cr_msg(msg, size, -EINVAL,
				      "--limits '%s': expected best-effort or required", v);
		o->limits_required = strcmp(v, "required") == 0;
	} else if (strcmp(name, "--timeout") == 0) {
		/* launcher/base/parse-util.c, as on Linux: digits and a '.', no exponent or sign */
		if (cr_parse_seconds(v, &o->timeout_ms) < 0 || o->timeout_ms == 0 ||
		    o->timeout_ms > CR_MAX_WAIT_MS)
			return cr_msg(msg, size, -EINVAL,
				      "--timeout '%s': expected seconds between 0.001 and %llu", v,
				      CR_MAX_WAIT_MS / 1000);
	} else if (strcmp(name, "--setenv") == 0) {
		if (!strchr(v, '=') || v[0] == '=')
			return cr_msg(msg, size, -EINVAL, "--setenv '%s': expected NAME=VALUE", v);
		return strv_push(&o->setenv, v);
	} else if (strcmp(name, "--keep-env") == 0) {
		if (!*v || strchr(v, '='))
			return cr_msg(msg, size, -EINVAL, "--keep-env '%s': expected a name", v);
		return strv_push(&o->keep_env, v);
	} else if (strcmp(name, "--memory") == 0)
		return limit_option(o, CR_LIMIT_MEMORY, name, v, msg, size);
	else if (strcmp(name, "--pids") == 0)
		return limit_option(o, CR_LIMIT_PIDS, name, v, msg, size);
	else if (strcmp(name, "--cpu-time") == 0)
		return limit_option(o, CR_LIMIT_CPU_TIME, name, v, msg, size);
	return 0;
}

/* One option at argv[*i]; *i is left on its last word. */
static int parse_one(struct cr_win_run_options *o, int argc, char **argv, int *i, char *msg,
		     size_t size)
{
	const char *a = argv[*i], *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	const char *v;
	int r;

	if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
		o->verbosity = 1;
		return strv_push(&o->inner, "-v");
	}
	if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
		o->verbosity = -1;
		return 0;
	}
	if (strcmp(a, "--ro-workspace") == 0) {
		o->workspace_ro = true;
		return 0;
	}
	if (strcmp(a, "--allow-degraded") == 0) {
		o->allow_degraded = true;
		return strv_push(&o->inner, a);
	}
	for (size_t k = 0; k < ELEMENTSOF(valued); k++) {
		if (strlen(valued[k].name) != len || strncmp(a, valued[k].name, len) != 0)
			continue;
		if (!eq && *i + 1 >= argc)
			return cr_msg(msg, size, -EINVAL, "%s needs a value", valued[k].name);
		v = eq ? eq + 1 : argv[++*i];
		r = set_value(o, valued[k].name, v, msg, size);
		if (r >= 0 && !valued[k].outer)
			r = strv_push(&o->inner, valued[k].name);
		if (r >= 0 && !valued[k].outer)
			r = strv_push(&o->inner, v);
		return r;
	}
	return cr_msg(msg, size, -EINVAL, "unknown option '%s' (try: corral run --help)", a);
}

int cr_win_run_parse(int argc, char **argv, struct cr_win_run_options *ret, char *msg, size_t size)
{
	struct cr_win_run_options o = {.spawn = -1, .distro = "corral"};
	int i, r = 0;

	for (i = 1; i < argc && r >= 0; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			cr_win_run_options_done(&o);
			return 1;
		}
		if (argv[i][0] != '-')
			break;
		r = parse_one(&o, argc, argv, &i, msg, size);
	}
	if (r >= 0 && i >= argc)
		r = cr_msg(msg, size, -EINVAL,
			   "no command given (usage: corral run [OPTIONS] [--] CMD [ARG...])");
	if (r >= 0 && o.backend == CR_WIN_BACKEND_WSL && o.workspace_ro)
		r = cr_msg(
			msg, size, -EINVAL,
			"--ro-workspace is for --backend windows; with wsl, use --profile strict");
	for (; r >= 0 && i < argc; i++)
		r = strv_push(&o.argv, argv[i]);
	if (r < 0) {
		if (r == -ENOMEM)
			(void)cr_msg(msg, size, r, "out of memory");
		cr_win_run_options_done(&o);
		return r;
	}
	*ret = o;
	return 0;
}

void cr_win_run_options_done(struct cr_win_run_options *o)
{
	strv_free(o->setenv);
	strv_free(o->keep_env);
	strv_free(o->inner);
	strv_free(o->argv);
	*o = (struct cr_win_run_options){0};
}

/* Environment names are case-insensitive on Windows. */
static const char *env_find(char **env, const char *name, size_t len)
{
	for (size_t i = 0; env && env[i]; i++)
		if (_strnicmp(env[i], name, len) == 0 && env[i][len] == '=')
			return env[i];
	return NULL;
}

/* @kv (NAME=VALUE) pushed onto @env, replacing the entry of the same name. */
static int env_set(char ***env, const char *kv)
{
	size_t len = strcspn(kv, "="), k = 0;

	for (size_t j = 0; *env && (*env)[j]; j++) {
		if (_strnicmp((*env)[j], kv, len) == 0 && (*env)[j][len] == '=')
			free((*env)[j]);
		else
			(*env)[k++] = (*env)[j];
	}
	if (*env)
		(*env)[k] = NULL;
	return strv_push(env, kv);
}

int cr_win_standard_path(const char *windir, char **ret)
{
	const char *w = windir;

	if (asprintf(ret,
		     "%s\\system32;%s;%s\\System32\\Wbem;%s\\System32\\WindowsPowerShell\\v1.0;"
		     "%s\\System32\\OpenSSH",
		     w, w, w, w, w) < 0)
		return -ENOMEM;
	return 0;
}

int cr_win_standard_path_entry(char **ret)
{
	wchar_t windir[MAX_PATH];
	UINT n = GetSystemWindowsDirectoryW(windir, MAX_PATH);
	_cleanup_free_ char *w = NULL, *path = NULL;
	int r;

	if (n == 0 || n >= MAX_PATH)
		return -ENOENT;
	r = cr_win_utf8(windir, &w);
	if (r >= 0)
		r = cr_win_standard_path(w, &path);
	if (r >= 0 && asprintf(ret, "PATH=%s", path) < 0)
		r = -ENOMEM;
	return r;
}

/* The command's environment: a small base (what Windows programs need to start) with the standard
 * PATH, never the caller's (its entries name the user's profile layout, and commands would find
 * programs there that nobody chose to give them); then --keep-env names, then --setenv, a later
 * entry replacing an earlier one, as on Linux (launcher/policy/env.c). */
static int build_env(const struct cr_win_run_options *o, char **host, char ***ret)
{
	static const char *const base[] = {"PATHEXT",
					   "SYSTEMROOT",
					   "SYSTEMDRIVE",
					   "WINDIR",
					   "COMSPEC",
					   "OS",
					   "PROCESSOR_ARCHITECTURE",
					   "NUMBER_OF_PROCESSORS"};
	_cleanup_free_ char *path = NULL;
	char **env = NULL;
	int r;

	r = cr_win_standard_path_entry(&path);
	if (r >= 0)
		r = strv_push(&env, path);
	for (size_t i = 0; i < ELEMENTSOF(base) && r >= 0; i++) {
		const char *e = env_find(host, base[i], strlen(base[i]));

		if (e)
			r = strv_push(&env, e);
	}
	for (size_t i = 0; o->keep_env && o->keep_env[i] && r >= 0; i++) {
		const char *e = env_find(host, o->keep_env[i], strlen(o->keep_env[i]));

		if (e)
			r = env_set(&env, e);
	}
	for (size_t i = 0; o->setenv && o->setenv[i] && r >= 0; i++)
		r = env_set(&env, o->setenv[i]);
	if (r < 0) {
		strv_free(env);
		return r;
	}
	*ret = env;
	return 0;
}

int cr_win_full_path(const char *path, char **ret)
{
	_cleanup_free_ wchar_t *w = NULL;
	wchar_t full[32768], longp[32768];
	DWORD n;
	int r;

	if (path) {
		r = cr_win_utf16(path, &w);
		if (r < 0)
			return r;
		n = GetFullPathNameW(w, ELEMENTSOF(full), full, NULL);
	} else
		n = GetCurrentDirectoryW(ELEMENTSOF(full), full);
	if (n == 0 || n >= ELEMENTSOF(full))
		return -ENAMETOOLONG;
	n = GetLongPathNameW(full, longp, ELEMENTSOF(longp));
	if (n == 0 || n >= ELEMENTSOF(longp)) /* not there (yet): the full path as it is */
		wcscpy(longp, full);
	n = wcslen(longp);
	if (n > 3 && longp[n - 1] == L'\\') /* not "C:\" */
		longp[n - 1] = L'\0';
	return cr_win_utf8(longp, ret);
}

int cr_win_workspace_resolve(const struct cr_win_run_options *o, char **ret, char *msg, size_t size)
{
	_cleanup_free_ wchar_t *w = NULL;
	char *ws = NULL;
	DWORD attr;
	int r;

	r = cr_win_full_path(o->workspace, &ws);
	if (r < 0)
		return cr_msg(msg, size, r, "--workspace '%s': no such directory",
			      o->workspace ? o->workspace : ".");
	r = cr_win_utf16(ws, &w);
	attr = r < 0 ? INVALID_FILE_ATTRIBUTES : GetFileAttributesW(w);
	if (attr == INVALID_FILE_ATTRIBUTES || !(attr & FILE_ATTRIBUTE_DIRECTORY)) {
		free(ws);
		return cr_msg(msg, size, -ENOTDIR, "--workspace '%s': not a directory",
			      o->workspace ? o->workspace : ".");
	}
	*ret = ws;
	return 0;
}

int cr_win_policy_build(const struct cr_win_run_options *o, char **host_env, struct cr_policy *ret,
			char *msg, size_t size)
{
	struct cr_policy p = {
		.workspace_ro = o->workspace_ro,
		.net = o->net && strcmp(o->net, "host") == 0 ? CR_NET_HOST : CR_NET_NONE,
		.allow_degraded = o->allow_degraded,
		.timeout_ms = o->timeout_ms,
		.kill_after_ms = 2000,
		.no_spawn = o->spawn == 0,
		.argv = o->argv,
	};
	int r;

	if (o->profile)
		return cr_msg(msg, size, -ENOTSUP,
			      "--profile '%s': profiles are Linux policies (no network, Landlock, "
			      "seccomp) that the windows backend cannot enforce; give the options "
			      "instead, or use --backend wsl --profile %s",
			      o->profile, o->profile);
	for (int l = 0; l < _CR_LIMIT_MAX; l++) {
		p.limits.value[l] = o->limits[l];
		p.limits.set[l] = o->limits[l] != CR_LIMIT_UNSET;
	}
	if (!p.limits.set[CR_LIMIT_PIDS])
		p.limits.value[CR_LIMIT_PIDS] = CR_DEFAULT_PIDS;
	p.limits.required = o->limits_required;
	r = cr_win_workspace_resolve(o, &p.workspace, msg, size);
	if (r < 0)
		return r;
	p.cwd = strdup(p.workspace);
	r = p.cwd ? build_env(o, host_env, &p.env) : -ENOMEM;
	if (r < 0) {
		cr_win_policy_done(&p);
		return cr_msg(msg, size, r,
			      r == -ENOMEM
				      ? "out of memory"
				      : "the Windows directory (the command's PATH) is unknown");
	}
	*ret = p;
	return 0;
}

void cr_win_policy_done(struct cr_policy *p)
{
	free(p->workspace);
	free(p->cwd);
	strv_free(p->env);
	*p = (struct cr_policy){0};
}

int cr_win_args(int *ret_argc, char ***ret_argv)
{
	int n = 0;
	_cleanup_local_ wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
	char **v;

	if (!w)
		return -ENOMEM;
	v = calloc((size_t)n + 1, sizeof(char *));
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		int r = cr_win_utf8(w[i], &v[i]);

		if (r < 0) {
			strv_free(v);
			return r;
		}
	}
	*ret_argc = n;
	*ret_argv = v;
	return 0;
}

int cr_win_environ(char ***ret)
{
	wchar_t *block = GetEnvironmentStringsW();
	char **v = NULL;
	int r = 0;

	if (!block)
		return -ENOMEM;
	for (wchar_t *e = block; *e && r >= 0; e += wcslen(e) + 1) {
		_cleanup_free_ char *s = NULL;

		if (e[0] == L'=') /* the per-drive directories "=C:=C:\..." */
			continue;
		r = cr_win_utf8(e, &s);
		if (r >= 0)
			r = strv_push(&v, s);
	}
	(void)FreeEnvironmentStringsW(block);
	if (r < 0) {
		strv_free(v);
		return r;
	}
	*ret = v ? v : calloc(1, sizeof(char *));
	return *ret ? 0 : -ENOMEM;
}
