/* SPDX-License-Identifier: MIT */
/* `corral run --backend wsl`: wsl.exe -d DISTRO --cd WS --exec corral run --workspace WS
 * --json-status FILE [OPTIONS] -- CMD, where FILE is a Windows temporary file seen from the
 * distro (/mnt/c/...). The inner corral's status is read back and nested under "inner". Without
 * wsl.exe nothing runs: never a fallback to an unsandboxed command. */
#include <windows.h> /* first: the other Win32 headers need it */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-win.h"
#include "errno-map.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/json-util.h"
#include "launcher/base/log.h"
#include "win-macro.h"
#include "wsl/wsl.h"
#include "wstr.h"

static bool is_file(const wchar_t *path)
{
	DWORD a = GetFileAttributesW(path);

	return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

static int search(const wchar_t *dirs, wchar_t **ret)
{
	wchar_t buf[MAX_PATH];
	DWORD n = SearchPathW(dirs, L"wsl.exe", NULL, MAX_PATH, buf, NULL);

	if (n == 0 || n >= MAX_PATH || !is_file(buf))
		return -ENOENT;
	*ret = _wcsdup(buf);
	return *ret ? 0 : -ENOMEM;
}

int cr_win_find_wsl(wchar_t **ret)
{
	const wchar_t *env = _wgetenv(L"CORRAL_WSL_EXE");
	wchar_t sys[MAX_PATH];
	_cleanup_free_ wchar_t *path = NULL;
	DWORD n;

	if (env && *env) { /* no fallback: a test that names a missing one must see it missing */
		if (!is_file(env))
			return -ENOENT;
		*ret = _wcsdup(env);
		return *ret ? 0 : -ENOMEM;
	}
	n = GetSystemDirectoryW(sys, MAX_PATH);
	if (n > 0 && n < MAX_PATH && search(sys, ret) == 0)
		return 0;
	/* PATH only: SearchPathW(NULL, ...) would also look in the current directory. */
	n = GetEnvironmentVariableW(L"PATH", NULL, 0);
	if (n == 0)
		return -ENOENT;
	path = malloc(n * sizeof(wchar_t));
	if (!path || GetEnvironmentVariableW(L"PATH", path, n) == 0)
		return -ENOENT;
	return search(path, ret);
}

static HANDLE inheritable(DWORD which)
{
	HANDLE h = GetStdHandle(which), dup = NULL;

	if (!h || h == INVALID_HANDLE_VALUE ||
	    !DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &dup, 0, TRUE,
			     DUPLICATE_SAME_ACCESS))
		return NULL;
	return dup;
}

static int read_all(HANDLE h, char **ret, size_t *ret_len)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap + 2), *nb;
	DWORD n;

	if (!buf)
		return -ENOMEM;
	while (ReadFile(h, buf + len, (DWORD)(cap - len), &n, NULL) && n > 0) {
		len += n;
		if (len == cap && cap < (1 << 20)) {
			nb = realloc(buf, cap * 2 + 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		} else if (len == cap)
			break;
	}
	buf[len] = buf[len + 1] = '\0'; /* a UTF-16 NUL too */
	*ret = buf;
	*ret_len = len;
	return 0;
}

/* wsl.exe's environment block: corral.exe's, with the standard PATH and without WSLENV. WSL
 * appends the PATH of wsl.exe, translated to /mnt/c/..., to the distro's (unless the distro's
 * wsl.conf turns appendWindowsPath off), and WSLENV names variables it forwards into the distro:
 * the caller's PATH would reach the inner corral either way. The inner corral gives the sandbox
 * the standard Linux PATH in any case; this keeps the Windows one out of the distro too. */
static int wsl_env(wchar_t **ret)
{
	_cleanup_free_ char *path = NULL;
	char **host = NULL, **env = NULL;
	size_t n = 0, k = 0;
	int r;

	r = cr_win_environ(&host);
	if (r < 0)
		return r;
	while (host[n])
		n++;
	r = cr_win_standard_path_entry(&path);
	env = r >= 0 ? calloc(n + 2, sizeof(char *)) : NULL;
	if (r >= 0 && !env)
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && i < n; i++)
		if (_strnicmp(host[i], "PATH=", 5) != 0 && _strnicmp(host[i], "WSLENV=", 7) != 0)
			env[k++] = host[i];
	if (r >= 0) {
		env[k] = path;
		r = cr_win_env_block(env, ret);
	}
	free(env);
	for (size_t i = 0; i < n; i++)
		free(host[i]);
	free(host);
	return r;
}

int cr_win_run_process(const wchar_t *app, char *const *argv, int *ret_exit, char **ret_out,
		       size_t *ret_out_len)
{
	_cleanup_free_ char *line = NULL;
	_cleanup_free_ wchar_t *wline = NULL, *wenv = NULL;
	_cleanup_handle_ HANDLE rd = NULL, wr = NULL, in = NULL, err = NULL;
	SECURITY_ATTRIBUTES sa = {.nLength = sizeof(sa), .bInheritHandle = TRUE};
	STARTUPINFOW si = {.cb = sizeof(si)};
	PROCESS_INFORMATION pi;
	DWORD code = 0;
	int r;

	r = cr_win_join_cmdline(argv, &line);
	if (r >= 0)
		r = cr_win_utf16(line, &wline);
	if (r >= 0)
		r = wsl_env(&wenv);
	if (r < 0)
		return r;
	if (ret_out) {
		if (!CreatePipe(&rd, &wr, &sa, 0) ||
		    !SetHandleInformation(rd, HANDLE_FLAG_INHERIT, 0))
			return cr_win_last_errno();
		in = inheritable(STD_INPUT_HANDLE);
		err = inheritable(STD_ERROR_HANDLE);
		si.dwFlags = STARTF_USESTDHANDLES;
		si.hStdInput = in;
		si.hStdOutput = wr;
		si.hStdError = err;
	}
	if (!CreateProcessW(app, wline, NULL, NULL, TRUE, CREATE_UNICODE_ENVIRONMENT, wenv, NULL,
			    &si, &pi))
		return cr_win_last_errno();
	(void)CloseHandle(pi.hThread);
	handle_closep(&wr);
	wr = NULL;
	if (ret_out)
		r = read_all(rd, ret_out, ret_out_len);
	(void)WaitForSingleObject(pi.hProcess, INFINITE);
	(void)GetExitCodeProcess(pi.hProcess, &code);
	(void)CloseHandle(pi.hProcess);
	if (r < 0)
		return r;
	*ret_exit = (int)code;
	return 0;
}

/* Ctrl-C reaches wsl.exe (same console) and through it the inner corral, which ends the run
 * and writes its status; corral.exe stays to read it. */
static BOOL WINAPI ignore_ctrl(DWORD type)
{
	return type == CTRL_C_EVENT || type == CTRL_BREAK_EVENT;
}

/* A new empty file in the user's TEMP, named in its long form (WSL does not see 8.3 names). */
static int temp_file(char **ret)
{
	wchar_t dir[MAX_PATH], name[MAX_PATH], full[MAX_PATH];
	DWORD n = GetTempPathW(MAX_PATH, dir);

	if (n == 0 || n >= MAX_PATH || !GetTempFileNameW(dir, L"crw", 0, name))
		return cr_win_last_errno();
	n = GetLongPathNameW(name, full, MAX_PATH);
	if (n == 0 || n >= MAX_PATH)
		return cr_win_last_errno();
	return cr_win_utf8(full, ret);
}

static json_object *read_inner(const char *path, char *msg, size_t size)
{
	_cleanup_free_ wchar_t *w = NULL;
	_cleanup_handle_ HANDLE h = INVALID_HANDLE_VALUE;
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	json_object *o, *outcome, *code;

	if (cr_win_utf16(path, &w) < 0)
		return NULL;
	h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			NULL, OPEN_EXISTING, 0, NULL);
	if (h == INVALID_HANDLE_VALUE || read_all(h, &text, &len) < 0) {
		(void)snprintf(msg, size, "the status file %s cannot be read", path);
		return NULL;
	}
	if (len == 0) {
		(void)snprintf(msg, size, "the inner corral wrote no status to %s", path);
		return NULL;
	}
	o = json_tokener_parse(text);
	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "outcome", &outcome) ||
	    !json_object_is_type(outcome, json_type_string) ||
	    !json_object_object_get_ex(o, "exit_code", &code) ||
	    !json_object_is_type(code, json_type_int) || json_object_get_int(code) < 0 ||
	    json_object_get_int(code) > 255) {
		(void)snprintf(msg, size,
			       "the inner corral's status in %s is not a corral JSON status "
			       "(an object with \"outcome\" and \"exit_code\")",
			       path);
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* @key of @from, or null where it has none. 0 or -ENOMEM. */
static int copy_key(json_object *to, json_object *from, const char *key)
{
	if (!json_object_object_get_ex(from, key, NULL))
		return cr_json_add_null(to, key);
	return cr_json_copy(to, from, key);
}

/* The outer status: the inner one's keys, with backend "wsl", the distro, and the inner object
 * itself under "inner"; without a valid inner status, setup_failed with @err. */
static json_object *outer_status(const struct cr_win_run_options *o, json_object *inner,
				 const struct cr_setup_error *err, int wsl_exit)
{
	static const char *const keys[] = {"outcome",        "exit_code",   "signal",
					   "signal_name",    "timed_out",   "oom_killed",
					   "pids_limit_hit", "duration_ms", "degraded",
					   "enforced",       "error",       "profile"};
	json_object *base = cr_win_status_build(
		&(struct cr_win_status){.driver = "wsl", .argv = o->argv, .error = err});
	json_object *st = base;
	int r = base ? 0 : -ENOMEM;

	if (inner && base) { /* the same keys in the same order, the inner run's values */
		st = json_object_new_object();
		json_object_object_foreach(base, key, val)
		{
			bool from_inner = false;

			for (size_t i = 0; i < ELEMENTSOF(keys); i++)
				from_inner |= strcmp(key, keys[i]) == 0;
			if (r < 0)
				break;
			if (from_inner)
				r = copy_key(st, inner, key);
			else if (val)
				r = cr_json_add(st, key, json_object_get(val));
			else
				r = cr_json_add_null(st, key);
		}
		json_object_put(base);
	}
	r = r ?: cr_json_add(st, "distro", json_object_new_string(o->distro));
	if (wsl_exit >= 0)
		r = r ?: cr_json_add(st, "wsl_exit_code", json_object_new_int(wsl_exit));
	else
		r = r ?: cr_json_add_null(st, "wsl_exit_code");
	if (inner)
		r = r ?: cr_json_add(st, "inner", json_object_get(inner));
	else
		r = r ?: cr_json_add_null(st, "inner");
	return cr_json_whole(st, r); /* NULL: cr_win_status_write() says it cannot write it */
}

struct wsl_run {
	wchar_t *wsl;
	char *wsl8, *workspace, *status, *status_linux;
	char **argv;
};

static void wsl_run_done(struct wsl_run *w)
{
	if (w->status) {
		_cleanup_free_ wchar_t *p = NULL;

		if (cr_win_utf16(w->status, &p) >= 0)
			(void)DeleteFileW(p);
	}
	free(w->wsl);
	free(w->wsl8);
	free(w->workspace);
	free(w->status);
	free(w->status_linux);
	for (size_t i = 0; w->argv && w->argv[i]; i++)
		free(w->argv[i]);
	free(w->argv);
}

static int wsl_prepare(const struct cr_win_run_options *o, struct wsl_run *w,
		       struct cr_setup_error *e)
{
	int r;

	r = cr_win_find_wsl(&w->wsl);
	if (r < 0) {
		(void)snprintf(e->stage, sizeof(e->stage), "wsl");
		(void)snprintf(e->message, sizeof(e->message),
			       "wsl.exe was not found (%s): nothing was run; install WSL "
			       "('wsl --install') and run 'corral wsl setup', or use --backend "
			       "windows",
			       _wgetenv(L"CORRAL_WSL_EXE") ? "CORRAL_WSL_EXE names no file"
							   : "not in System32 nor in PATH");
		return r;
	}
	(void)snprintf(e->stage, sizeof(e->stage), "options");
	r = cr_win_utf8(w->wsl, &w->wsl8);
	if (r >= 0)
		r = cr_win_workspace_resolve(o, &w->workspace, e->message, sizeof(e->message));
	if (r < 0)
		return r;
	r = temp_file(&w->status);
	if (r < 0) {
		(void)snprintf(e->stage, sizeof(e->stage), "status_file");
		(void)snprintf(e->message, sizeof(e->message),
			       "cannot make a temporary file for the inner status");
		return r;
	}
	r = cr_wsl_path_from_windows(w->status, "/mnt", &w->status_linux, e->message,
				     sizeof(e->message));
	if (r < 0)
		return r;
	return cr_wsl_build_argv(&(struct cr_wsl_invocation){.wsl_exe = w->wsl8,
							     .distro = o->distro,
							     .workspace = w->workspace,
							     .status_file = w->status_linux,
							     .corral_options = o->inner,
							     .argv = o->argv},
				 &w->argv, e->message, sizeof(e->message));
}

static int finish(const struct cr_win_run_options *o, json_object *inner,
		  const struct cr_setup_error *err, int wsl_exit)
{
	json_object *st = outer_status(o, inner, err, wsl_exit);
	int code = inner ? json_object_get_int(json_object_object_get(inner, "exit_code"))
			 : CR_EXIT_SETUP;

	if (o->json_status && cr_win_status_write(st, o->json_status) < 0)
		cr_log_error("--json-status '%s': cannot be written", o->json_status);
	json_object_put(st);
	json_object_put(inner);
	return code;
}

int cr_win_run_wsl(const struct cr_win_run_options *o)
{
	struct wsl_run w = {0};
	struct cr_setup_error e = {0};
	json_object *inner = NULL;
	int r, wsl_exit = -1, code;

	if (o->json_status && cr_win_status_check(o->json_status) < 0) {
		cr_log_error("--json-status '%s': cannot be written", o->json_status);
		return CR_EXIT_SETUP;
	}
	r = wsl_prepare(o, &w, &e);
	if (r < 0) {
		e.err = -r;
		cr_log_error("%s: %s", e.stage, e.message);
		wsl_run_done(&w);
		return finish(o, NULL, &e, -1);
	}
	cr_debug("%s", w.status_linux);
	(void)SetConsoleCtrlHandler(ignore_ctrl, TRUE);
	r = cr_win_run_process(w.wsl, w.argv, &wsl_exit, NULL, NULL);
	(void)SetConsoleCtrlHandler(ignore_ctrl, FALSE);
	if (r < 0) {
		e = (struct cr_setup_error){.stage = "wsl", .err = -r};
		cr_win_error_message(cr_win_last_code(), "Failed to start wsl.exe", e.message,
				     sizeof(e.message));
	} else {
		inner = read_inner(w.status, e.message, sizeof(e.message));
		if (!inner) {
			(void)snprintf(e.stage, sizeof(e.stage), "inner_status");
			e.err = EPROTO;
			(void)snprintf(e.message + strlen(e.message),
				       sizeof(e.message) - strlen(e.message),
				       " (wsl.exe exited %d; the command may have run: check "
				       "'corral wsl status')",
				       wsl_exit);
		}
	}
	if (!inner)
		cr_log_error("%s: %s", e.stage, e.message);
	wsl_run_done(&w);
	code = finish(o, inner, &e, wsl_exit);
	return code;
}
