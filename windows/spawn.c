/* SPDX-License-Identifier: MIT */
/* Starting the command: its private TEMP, the workspace's label, its environment, the handles it
 * inherits (only its three standard ones: PROC_THREAD_ATTRIBUTE_HANDLE_LIST), and
 * CreateProcessAsUserW with the Low token, suspended, so that it is assigned to the job before
 * it runs a single instruction. */
#include <windows.h> /* first: the other Win32 headers need it */
#include <errno.h>
#include <io.h>
#include <sddl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errno-map.h"
#include "launcher/base/macro.h"
#include "win-macro.h"
#include "windows-internal.h"
#include "wsl/wsl.h"
#include "wstr.h"

#define LOW_DIR_SDDL L"S:(ML;OICI;NW;;;LW)"

static int fail(struct cr_run *run, const char *stage, int r, const char *what)
{
	(void)snprintf(run->error.stage, sizeof(run->error.stage), "%s", stage);
	run->error.err = -r;
	if (cr_win_errno(cr_win_last_code()) == r) /* a Win32 failure: name its code */
		cr_win_error_message(cr_win_last_code(), what, run->error.message,
				     sizeof(run->error.message));
	else
		(void)snprintf(run->error.message, sizeof(run->error.message), "%s: %s", what,
			       strerror(-r));
	return r;
}

/* <workspace>\.corral-tmp.PID.N (or in the user's TEMP when the workspace is read-only), made
 * with the Low label from the start in Low mode. */
static int make_tmpdir(struct cr_run *run)
{
	static LONG counter;
	_cleanup_local_ PSECURITY_DESCRIPTOR sd = NULL;
	SECURITY_ATTRIBUTES sa = {.nLength = sizeof(sa)};
	wchar_t base[MAX_PATH + 1], path[MAX_PATH + 64];
	_cleanup_free_ wchar_t *ws = NULL;
	int r;

	if (run->policy->workspace_ro) {
		if (GetTempPathW(ELEMENTSOF(base), base) == 0)
			return cr_win_last_errno();
	} else {
		r = cr_win_utf16(run->policy->workspace, &ws);
		if (r < 0)
			return r;
		if (swprintf(base, ELEMENTSOF(base), L"%ls\\", ws) < 0)
			return -ENAMETOOLONG;
	}
	if (swprintf(path, ELEMENTSOF(path), L"%ls.corral-tmp.%lu.%ld", base,
		     (unsigned long)GetCurrentProcessId(), InterlockedIncrement(&counter)) < 0)
		return -ENAMETOOLONG;
	if (run->mode == CR_WIN_MODE_LOW_INTEGRITY) {
		if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(
			    LOW_DIR_SDDL, SDDL_REVISION_1, &sd, NULL))
			return cr_win_last_errno();
		sa.lpSecurityDescriptor = sd;
	}
	if (!CreateDirectoryW(path, &sa))
		return cr_win_last_errno();
	run->tmpdir = _wcsdup(path);
	if (!run->tmpdir)
		return -ENOMEM;
	return cr_win_utf8(path, &run->tmpdir_utf8);
}

static bool env_is(const char *entry, const char *name)
{
	size_t n = strlen(name);

	return _strnicmp(entry, name, n) == 0 && entry[n] == '=';
}

static const char *env_get(char *const *env, const char *name)
{
	for (; *env; env++)
		if (env_is(*env, name))
			return *env + strlen(name) + 1;
	return NULL;
}

/* The policy's environment with TEMP and TMP pointing at the run's directory, and SYSTEMROOT
 * (without which much of Windows fails to load) taken from corral's own when it is missing.
 * Nothing else of corral's environment reaches the command. */
static int build_env(struct cr_run *run, wchar_t **ret)
{
	char *const *penv = run->policy->env;
	_cleanup_free_ char **env = NULL;
	_cleanup_free_ char *temp = NULL, *tmp = NULL, *root = NULL;
	wchar_t wroot[MAX_PATH];
	size_t n = 0, k = 0;

	while (penv[n])
		n++;
	env = calloc(n + 4, sizeof(char *));
	if (!env)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!env_is(penv[i], "TEMP") && !env_is(penv[i], "TMP"))
			env[k++] = penv[i];
	if (asprintf(&temp, "TEMP=%s", run->tmpdir_utf8) < 0 ||
	    asprintf(&tmp, "TMP=%s", run->tmpdir_utf8) < 0)
		return -ENOMEM;
	env[k++] = temp;
	env[k++] = tmp;
	if (!env_get(penv, "SYSTEMROOT") &&
	    GetEnvironmentVariableW(L"SYSTEMROOT", wroot, ELEMENTSOF(wroot)) - 1 < MAX_PATH - 1) {
		_cleanup_free_ char *v = NULL;

		if (cr_win_utf8(wroot, &v) < 0 || asprintf(&root, "SYSTEMROOT=%s", v) < 0)
			return -ENOMEM;
		env[k++] = root;
	}
	return cr_win_env_block(env, ret);
}

/* argv[0] as CreateProcess should run it: a name without a directory is looked up in the
 * command's PATH (not corral's, which CreateProcess would search), with ".exe" appended when it
 * has no extension. */
static int resolve_application(struct cr_run *run)
{
	const char *name = run->policy->argv[0];
	const char *path = env_get(run->policy->env, "PATH");
	_cleanup_free_ wchar_t *wname = NULL, *wpath = NULL;
	wchar_t found[MAX_PATH + 1];
	DWORD n;
	int r;

	if (strpbrk(name, "\\/:"))
		return cr_win_utf16(name, &run->application);
	r = cr_win_utf16(name, &wname);
	if (r >= 0 && path)
		r = cr_win_utf16(path, &wpath);
	if (r < 0)
		return r;
	if (!wpath)
		return -ENOENT;
	n = SearchPathW(wpath, wname, L".exe", ELEMENTSOF(found), found, NULL);
	if (n == 0 || n >= ELEMENTSOF(found))
		return -ENOENT;
	run->application = _wcsdup(found);
	return run->application ? 0 : -ENOMEM;
}

/* An inheritable duplicate of standard handle @i for the command (NUL when corral has none). */
static int std_handle(const struct cr_policy *p, int i, HANDLE *ret)
{
	static const DWORD ids[3] = {STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE};
	SECURITY_ATTRIBUTES sa = {.nLength = sizeof(sa), .bInheritHandle = TRUE};
	HANDLE h = p->redirect_stdio ? (HANDLE)_get_osfhandle(p->stdio[i]) : GetStdHandle(ids[i]);

	if (!h || h == INVALID_HANDLE_VALUE) {
		h = CreateFileW(L"NUL", GENERIC_READ | GENERIC_WRITE,
				FILE_SHARE_READ | FILE_SHARE_WRITE, &sa, OPEN_EXISTING, 0, NULL);
		if (h == INVALID_HANDLE_VALUE)
			return cr_win_last_errno();
		*ret = h;
		return 0;
	}
	if (!DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), ret, 0, TRUE,
			     DUPLICATE_SAME_ACCESS))
		return cr_win_last_errno();
	return 0;
}

struct stdio_handles {
	HANDLE h[3];
};

static void stdio_handles_done(struct stdio_handles *s)
{
	for (int i = 0; i < 3; i++)
		handle_closep(&s->h[i]);
}

/* The attribute list that limits inheritance to @s's handles. */
static int make_attributes(struct stdio_handles *s, LPPROC_THREAD_ATTRIBUTE_LIST *ret)
{
	LPPROC_THREAD_ATTRIBUTE_LIST list;
	SIZE_T size = 0;

	(void)InitializeProcThreadAttributeList(NULL, 1, 0, &size);
	list = malloc(size);
	if (!list)
		return -ENOMEM;
	if (!InitializeProcThreadAttributeList(list, 1, 0, &size)) {
		free(list);
		return cr_win_last_errno();
	}
	if (!UpdateProcThreadAttribute(list, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, s->h,
				       sizeof(s->h), NULL, NULL)) {
		int r = cr_win_last_errno();

		DeleteProcThreadAttributeList(list);
		free(list);
		return r;
	}
	*ret = list;
	return 0;
}

static int create_process(struct cr_run *run, wchar_t *env)
{
	_cleanup_(stdio_handles_done) struct stdio_handles s = {0};
	STARTUPINFOEXW si = {.StartupInfo.cb = sizeof(si)};
	PROCESS_INFORMATION pi;
	DWORD flags = CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT |
		      CREATE_NEW_PROCESS_GROUP;
	BOOL ok;
	int r;

	for (int i = 0; i < 3; i++) {
		r = std_handle(run->policy, i, &s.h[i]);
		if (r < 0)
			return fail(run, "handles", r, "Failed to prepare the standard handles");
	}
	r = make_attributes(&s, &si.lpAttributeList);
	if (r < 0)
		return fail(run, "handles", r, "Failed to limit the inherited handles");
	si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
	si.StartupInfo.hStdInput = s.h[0];
	si.StartupInfo.hStdOutput = s.h[1];
	si.StartupInfo.hStdError = s.h[2];
	if (run->token)
		ok = CreateProcessAsUserW(run->token, run->application, run->cmdline, NULL, NULL,
					  TRUE, flags, env, run->cwd, &si.StartupInfo, &pi);
	else
		ok = CreateProcessW(run->application, run->cmdline, NULL, NULL, TRUE, flags, env,
				    run->cwd, &si.StartupInfo, &pi);
	r = ok ? 0 : cr_win_last_errno();
	if (r < 0) {
		run->exec_failed = r == -ENOENT || r == -EACCES || r == -ENOEXEC;
		(void)fail(run, "exec", r, "Failed to start the command");
	}
	DeleteProcThreadAttributeList(si.lpAttributeList);
	free(si.lpAttributeList);
	if (r < 0)
		return r;
	run->process = pi.hProcess;
	run->thread = pi.hThread;
	run->pid = pi.dwProcessId;
	return 0;
}

/* Into the job while suspended, then running. A process that cannot be assigned never runs. */
static int start_in_job(struct cr_run *run)
{
	int r = cr_win_job_assign(&run->job, run->process);

	if (r < 0) {
		(void)fail(run, "job", r, "Failed to assign the command to its Job Object");
		(void)TerminateProcess(run->process, 1);
		return r;
	}
	if (ResumeThread(run->thread) == (DWORD)-1) {
		r = fail(run, "job", cr_win_last_errno(), "Failed to resume the command");
		(void)cr_win_job_kill(&run->job, 1);
		return r;
	}
	return 0;
}

static int prepare_command(struct cr_run *run)
{
	_cleanup_free_ char *cmdline = NULL;
	const char *cwd = run->policy->cwd ? run->policy->cwd : run->policy->workspace;
	int r;

	r = resolve_application(run);
	if (r < 0) {
		run->exec_failed = r == -ENOENT;
		(void)snprintf(run->error.stage, sizeof(run->error.stage), "exec");
		run->error.err = -r;
		(void)snprintf(run->error.message, sizeof(run->error.message),
			       "%s: not found in the command's PATH", run->policy->argv[0]);
		return r;
	}
	r = cr_win_join_cmdline(run->policy->argv, &cmdline);
	if (r >= 0)
		r = cr_win_utf16(cmdline, &run->cmdline);
	if (r >= 0)
		r = cr_win_utf16(cwd, &run->cwd);
	if (r < 0) {
		(void)snprintf(run->error.stage, sizeof(run->error.stage), "exec");
		run->error.err = -r;
		(void)snprintf(run->error.message, sizeof(run->error.message),
			       "The command line or working directory cannot be given to Windows "
			       "(not UTF-8, or a '\"' in the program name)");
	}
	return r;
}

int cr_win_spawn_process(struct cr_run *run)
{
	_cleanup_free_ wchar_t *env = NULL;
	int r;

	r = prepare_command(run);
	if (r < 0)
		return r;
	if (run->mode == CR_WIN_MODE_LOW_INTEGRITY && !run->policy->workspace_ro) {
		r = cr_win_label_set_low(run->policy->workspace, &run->label);
		if (r < 0)
			return fail(run, "workspace_label", r,
				    "Failed to label the workspace Low integrity for the run");
		run->label_pending = 1;
	}
	r = make_tmpdir(run);
	if (r < 0)
		return fail(run, "tmpdir", r, "Failed to create the command's TEMP directory");
	r = build_env(run, &env);
	if (r < 0) {
		(void)snprintf(run->error.stage, sizeof(run->error.stage), "environment");
		run->error.err = -r;
		(void)snprintf(run->error.message, sizeof(run->error.message),
			       "The environment cannot be given to Windows (an entry without '=' "
			       "or not UTF-8)");
		return r;
	}
	r = create_process(run, env);
	if (r < 0)
		return r;
	return start_in_job(run);
}
