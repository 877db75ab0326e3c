/* SPDX-License-Identifier: MIT */
/* The windows driver: the command in a Job Object of its own, started suspended, assigned, then
 * resumed, with a restricted token at Low integrity made here in corral (no helper script, no
 * file), the workspace labelled Low for the run only, the policy's environment and no handle
 * but its three standard ones. Built with mingw-w64; its tests run under Wine (windows/README.md
 * says what only a real Windows can check). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "launcher/driver.h"
#include "errno-map.h"
#include "launcher/policy/policy.h"
#include "win-macro.h"
#include "windows-internal.h"
#include "wstr.h"

static const char *const windows_system_paths[] = {
	"C:\\Windows",
	"C:\\Program Files",
	"C:\\Program Files (x86)",
	NULL,
};

/* The run a console event must clean up: one run per corral process. */
static struct cr_run *volatile active_run;

const char *cr_win_wine_version(void)
{
	typedef const char *(*wine_version_fn)(void);
	HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
	wine_version_fn f =
		ntdll ? (wine_version_fn)(void (*)(void))GetProcAddress(ntdll, "wine_get_version")
		      : NULL;

	return f ? f() : NULL;
}

void cr_win_outcome_from_exit(DWORD code, bool killed, struct cr_outcome *ret)
{
	/* clang-format off */
	static const struct { DWORD status; int sig; } crashes[] = {
		{ 0xC0000005, SIGSEGV }, /* STATUS_ACCESS_VIOLATION */
		{ 0xC00000FD, SIGSEGV }, /* STATUS_STACK_OVERFLOW */
		{ 0xC000001D, SIGILL },	 /* STATUS_ILLEGAL_INSTRUCTION */
		{ 0xC0000094, SIGFPE },	 /* STATUS_INTEGER_DIVIDE_BY_ZERO */
		{ 0xC000013A, SIGINT },	 /* STATUS_CONTROL_C_EXIT */
		{ 0xC0000409, SIGABRT }, /* STATUS_STACK_BUFFER_OVERRUN (fail-fast) */
		{ 0x40000015, SIGABRT }, /* STATUS_FATAL_APP_EXIT: abort() */
	};
	/* clang-format on */

	*ret = (struct cr_outcome){.kind = CR_OUTCOME_EXITED,
				   .status = code > 255 ? 255 : (int)code};
	if (killed) {
		ret->kind = CR_OUTCOME_SIGNALED;
		ret->status = 9; /* SIGKILL, which Windows headers lack */
		return;
	}
	for (size_t i = 0; i < ELEMENTSOF(crashes); i++)
		if (crashes[i].status == code) {
			ret->kind = CR_OUTCOME_SIGNALED;
			ret->status = crashes[i].sig;
		}
}

static void set_error(struct cr_setup_error *e, const char *stage, int r, const char *msg)
{
	if (!e)
		return;
	(void)snprintf(e->stage, sizeof(e->stage), "%s", stage);
	e->err = -r;
	(void)snprintf(e->message, sizeof(e->message), "%s", msg);
}

/* What the windows driver cannot enforce is refused, never dropped silently. */
static int check_policy(const struct cr_policy *p, struct cr_setup_error *err)
{
	/* The option names, here rather than launcher/policy/limits.c's cr_limit_option(), which would
	 * bring the whole command-line parser into this build. */
	static const struct {
		enum cr_limit limit;
		const char *option;
	} unenforceable[] = {
		{CR_LIMIT_MEMORY_SWAP, "--memory-swap"},
		{CR_LIMIT_CPU, "--cpu"},
		{CR_LIMIT_FILE_SIZE, "--file-size"},
		{CR_LIMIT_OPEN_FILES, "--open-files"},
	};

	if (p->net != CR_NET_HOST) {
		set_error(err, "network", -ENOTSUP,
			  "the windows driver cannot isolate the network (a Job Object and a Low "
			  "integrity token leave it open); run with --net=host, or use the wsl "
			  "driver");
		return -ENOTSUP;
	}
	for (size_t i = 0; i < p->n_paths; i++)
		if (p->paths[i].access != CR_PATH_RO) {
			set_error(err, "mounts", -ENOTSUP,
				  "the windows driver supports only --ro paths besides the "
				  "workspace (a Low integrity command reads what the user reads "
				  "and writes only the workspace)");
			return -ENOTSUP;
		}
	if (p->n_keep_fds > 0 || p->landlock == CR_LANDLOCK_REQUIRED ||
	    p->seccomp == CR_SECCOMP_PROFILE || p->seccomp == CR_SECCOMP_STRICT) {
		set_error(err, "prepare", -ENOTSUP,
			  "--keep-fd, --landlock=required and --seccomp=strict/--seccomp-profile "
			  "have no counterpart on Windows");
		return -ENOTSUP;
	}
	for (size_t i = 0; p->limits.required && i < ELEMENTSOF(unenforceable); i++)
		if (cr_limit_is_finite(p->limits.value[unenforceable[i].limit])) {
			char msg[160];

			(void)snprintf(msg, sizeof(msg),
				       "%s cannot be enforced by a Job Object and "
				       "--limits=required is set",
				       unenforceable[i].option);
			set_error(err, "limits", -ENOTSUP, msg);
			return -ENOTSUP;
		}
	return 0;
}

static void limits_from_policy(const struct cr_policy *p, struct cr_win_job_limits *l)
{
	uint64_t pids = p->limits.value[CR_LIMIT_PIDS];

	*l = (struct cr_win_job_limits){0};
	if (cr_limit_is_finite(p->limits.value[CR_LIMIT_MEMORY]))
		l->memory = p->limits.value[CR_LIMIT_MEMORY];
	if (cr_limit_is_finite(pids)) /* processes only: Windows counts threads nowhere */
		l->processes = pids > UINT32_MAX ? UINT32_MAX : (uint32_t)pids;
	if (p->no_spawn)
		l->processes = 1;
	if (cr_limit_is_finite(p->limits.value[CR_LIMIT_CPU_TIME]))
		l->cpu_time_s = p->limits.value[CR_LIMIT_CPU_TIME];
}

/* The Low token, or Job-only mode when the policy allows it; never a silent fallback. */
static int prepare_token(struct cr_run *run, struct cr_setup_error *err)
{
	const char *stage = NULL;
	char msg[400];
	int r;

	r = cr_win_token_low(&run->token, &stage);
	if (r >= 0) {
		run->mode = CR_WIN_MODE_LOW_INTEGRITY;
		return 0;
	}
	cr_win_error_message(cr_win_last_code(), "Failed to make a Low integrity token", msg,
			     sizeof(msg));
	if (!run->policy->allow_degraded) {
		set_error(err, stage, r, msg);
		return r;
	}
	run->mode = CR_WIN_MODE_JOB_ONLY;
	(void)snprintf(run->mode_reason, sizeof(run->mode_reason), "%s", msg);
	return 0;
}

static struct cr_run *windows_run_free(struct cr_run *run);

static int windows_prepare(const struct cr_policy *p, struct cr_run **ret,
			   struct cr_setup_error *err)
{
	struct cr_run *run;
	char msg[400];
	int r;

	r = check_policy(p, err);
	if (r < 0)
		return r;
	run = calloc(1, sizeof(*run));
	if (!run)
		return -ENOMEM;
	run->policy = p;
	limits_from_policy(p, &run->limits);
	r = prepare_token(run, err);
	if (r >= 0) {
		r = cr_win_job_create(&run->limits, &run->job);
		if (r < 0) {
			cr_win_error_message(cr_win_last_code(), "Failed to create the Job Object",
					     msg, sizeof(msg));
			set_error(err, "job", r, msg);
		}
	}
	if (r < 0) {
		windows_run_free(run);
		return r;
	}
	*ret = run;
	return 0;
}

/* Console events: Ctrl-C and Ctrl-Break go to the command's process group as Ctrl-Break (its
 * group was made new, so it gets none of the console's own); closing the console, logoff and
 * shutdown end the run here, and put the workspace's label back, while corral still can. */
static BOOL WINAPI console_handler(DWORD type)
{
	struct cr_run *run = active_run;

	if (!run)
		return FALSE;
	if (type == CTRL_C_EVENT || type == CTRL_BREAK_EVENT) {
		(void)GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, run->pid);
		return TRUE;
	}
	(void)cr_win_job_kill(&run->job, 1);
	(void)cr_win_run_restore_label(run);
	return FALSE;
}

int cr_win_run_restore_label(struct cr_run *run)
{
	int r;

	if (InterlockedCompareExchange(&run->label_pending, 0, 1) != 1)
		return 0;
	r = cr_win_label_restore(&run->label);
	if (r < 0)
		(void)InterlockedExchange(&run->label_pending, 1); /* run_free tries again */
	return r;
}

static int windows_spawn(struct cr_run *run)
{
	int r;

	active_run = run;
	(void)SetConsoleCtrlHandler(console_handler, TRUE);
	r = cr_win_spawn_process(run);
	if (r < 0)
		return r;
	run->started = true;
	return 0;
}

/* The command has ended: what it left in the job goes with it, and the label comes off. */
static void finish(struct cr_run *run)
{
	(void)GetExitCodeProcess(run->process, &run->exit_code);
	(void)cr_win_job_kill(&run->job, 1);
	cr_win_job_drain(&run->job);
	(void)cr_win_run_restore_label(run);
	run->ended = true;
}

static int windows_wait(struct cr_run *run, int64_t timeout_ms, struct cr_outcome *ret)
{
	DWORD w;

	if (!run->started) {
		*ret = (struct cr_outcome){
			.kind = run->exec_failed ? CR_OUTCOME_EXEC_FAILED : CR_OUTCOME_SETUP_FAILED,
			.error = run->error,
		};
		return 0;
	}
	if (!run->ended) {
		w = WaitForSingleObject(run->process, timeout_ms < 0           ? INFINITE
						      : timeout_ms >= INFINITE ? INFINITE - 1
									       : (DWORD)timeout_ms);
		if (w == WAIT_TIMEOUT)
			return -ETIMEDOUT;
		if (w != WAIT_OBJECT_0)
			return cr_win_last_errno();
		finish(run);
	}
	cr_win_outcome_from_exit(run->exit_code, run->killed, ret);
	ret->oom_killed = run->job.memory_limit_hit;
	ret->pids_limit_hit = run->job.process_limit_hit;
	return 0;
}

static int windows_stop(struct cr_run *run, bool force)
{
	if (!run->started || run->ended)
		return 0;
	if (!force) {
		/* Ctrl-Break to the command's group: console programs end on it by default. A
		 * command without a console gets nothing; the forced stop follows. */
		if (!GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, run->pid))
			return cr_win_last_errno();
		return 0;
	}
	run->killed = true;
	return cr_win_job_kill(&run->job, 1);
}

/* Remove @dir and what is below it; a reparse point (link, junction) is removed, never
 * followed. Best effort: what cannot be removed stays. */
static void rm_tree(const wchar_t *dir)
{
	WIN32_FIND_DATAW fd;
	size_t n = wcslen(dir);
	_cleanup_free_ wchar_t *pattern = malloc((n + 3) * sizeof(wchar_t));
	HANDLE h;

	if (!pattern)
		return;
	swprintf(pattern, n + 3, L"%ls\\*", dir);
	h = FindFirstFileW(pattern, &fd);
	while (h != INVALID_HANDLE_VALUE) {
		_cleanup_free_ wchar_t *child =
			malloc((n + wcslen(fd.cFileName) + 2) * sizeof(wchar_t));
		bool is_dir = fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY;
		bool is_link = fd.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT;

		if (child && wcscmp(fd.cFileName, L".") != 0 && wcscmp(fd.cFileName, L"..") != 0) {
			swprintf(child, n + wcslen(fd.cFileName) + 2, L"%ls\\%ls", dir,
				 fd.cFileName);
			if (is_dir && !is_link)
				rm_tree(child);
			else if (is_dir)
				(void)RemoveDirectoryW(child);
			else
				(void)DeleteFileW(child);
		}
		if (!FindNextFileW(h, &fd)) {
			(void)FindClose(h);
			h = INVALID_HANDLE_VALUE;
		}
	}
	(void)RemoveDirectoryW(dir);
}

static struct cr_run *windows_run_free(struct cr_run *run)
{
	if (!run)
		return NULL;
	if (active_run == run) { /* first: the console handler must not see a run being freed */
		active_run = NULL;
		(void)SetConsoleCtrlHandler(console_handler, FALSE);
	}
	if (run->started && !run->ended) {
		run->killed = true;
		(void)cr_win_job_kill(&run->job, 1);
		(void)WaitForSingleObject(run->process, 5000);
	}
	cr_win_job_close(&run->job);
	(void)cr_win_run_restore_label(run);
	if (run->tmpdir)
		rm_tree(run->tmpdir);
	handle_closep(&run->process);
	handle_closep(&run->thread);
	handle_closep(&run->token);
	free(run->tmpdir);
	free(run->tmpdir_utf8);
	free(run->application);
	free(run->cmdline);
	free(run->cwd);
	free(run);
	return NULL;
}

static const struct cr_driver windows_driver = {
	.name = "windows",
	.system_paths = windows_system_paths,
	.probe = cr_win_probe,
	.prepare = windows_prepare,
	.spawn = windows_spawn,
	.wait = windows_wait,
	.stop = windows_stop,
	.report = cr_win_report,
	.run_free = windows_run_free,
};

const struct cr_driver *cr_driver_native(void)
{
	return &windows_driver;
}
