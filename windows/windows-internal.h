/* SPDX-License-Identifier: MIT */
/* What the windows driver's files share, and what its tests reach. */
#pragma once

#include <stdbool.h>
#include <windows.h>

#include "launcher/driver.h"
#include "job.h"
#include "launcher/policy/policy.h"
#include "token.h"

/* How the command is confined. */
enum cr_win_mode {
	CR_WIN_MODE_LOW_INTEGRITY, /* Job Object + restricted token at Low integrity */
	CR_WIN_MODE_JOB_ONLY,      /* Job Object only: the token could not be lowered and the policy
				    * allows it (allow_degraded); the status says so */
};

struct cr_run {
	const struct cr_policy *policy;
	enum cr_win_mode mode;
	char mode_reason[256]; /* with JOB_ONLY: why */
	struct cr_win_job_limits limits;
	struct cr_win_job job;
	HANDLE token;                /* the Low token; NULL in JOB_ONLY mode */
	struct cr_win_label label;   /* the workspace's Low label, for the run only */
	volatile LONG label_pending; /* 1 while the label must still be restored */
	wchar_t *tmpdir;             /* TEMP and TMP of the command; removed at the end */
	char *tmpdir_utf8;
	wchar_t *application; /* argv[0] resolved in the policy's PATH */
	wchar_t *cmdline;     /* cr_win_join_cmdline(argv) */
	wchar_t *cwd;
	HANDLE process, thread;
	DWORD pid;
	bool started, ended, killed;
	DWORD exit_code;
	struct cr_setup_error error; /* why spawn failed; wait() reports it */
	bool exec_failed;            /* error is the command's (not found, not executable) */
};

/* ntdll's wine_get_version(): the Wine version when running under Wine, else NULL. */
const char *cr_win_wine_version(void);

/* Map a process exit code to an outcome: NTSTATUS crash codes (0xC0000005, ...) become the
 * signal a Linux process would have died of; codes above 255 are clipped to 255 (the report
 * keeps the raw code); @killed (corral stopped it by force) is SIGKILL. */
void cr_win_outcome_from_exit(DWORD code, bool killed, struct cr_outcome *ret);

/* Spawn: the environment, handles and CreateProcess* call (spawn.c). 0 or -errno with
 * run->error filled. */
int cr_win_spawn_process(struct cr_run *run);

/* Restore the workspace label once, whoever gets there first (the run's end or a console
 * close event). */
int cr_win_run_restore_label(struct cr_run *run);

int cr_win_probe(struct cr_probe *ret);
int cr_win_report(const struct cr_run *run, struct json_object *enforced);
