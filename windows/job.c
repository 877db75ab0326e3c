/* SPDX-License-Identifier: MIT */
/* Job Objects. Wine implements the plumbing (create, assign, kill, kill on close, accounting,
 * nesting) but enforces neither the memory nor the process limit: windows/README.md. */
#include <errno.h>
#include <string.h>
#include <windows.h>

#include "errno-map.h"
#include "job.h"
#include "win-macro.h"

#define JOB_UI_RESTRICTIONS                                                \
	(JOB_OBJECT_UILIMIT_DESKTOP | JOB_OBJECT_UILIMIT_DISPLAYSETTINGS | \
	 JOB_OBJECT_UILIMIT_EXITWINDOWS | JOB_OBJECT_UILIMIT_GLOBALATOMS | \
	 JOB_OBJECT_UILIMIT_HANDLES | JOB_OBJECT_UILIMIT_READCLIPBOARD |   \
	 JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS | JOB_OBJECT_UILIMIT_WRITECLIPBOARD)

static int set_limits(HANDLE job, const struct cr_win_job_limits *l)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION info = {0};
	JOBOBJECT_BASIC_LIMIT_INFORMATION *b = &info.BasicLimitInformation;

	b->LimitFlags =
		JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
	if (l->memory) {
		b->LimitFlags |= JOB_OBJECT_LIMIT_JOB_MEMORY;
		info.JobMemoryLimit = (SIZE_T)l->memory;
	}
	if (l->processes) {
		b->LimitFlags |= JOB_OBJECT_LIMIT_ACTIVE_PROCESS;
		b->ActiveProcessLimit = l->processes;
	}
	if (l->cpu_time_s) {
		b->LimitFlags |= JOB_OBJECT_LIMIT_PROCESS_TIME;
		b->PerProcessUserTimeLimit.QuadPart =
			(LONGLONG)l->cpu_time_s * 10000000; /* 100 ns */
	}
	if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &info, sizeof(info)))
		return cr_win_last_errno();
	return 0;
}

static int set_ui_restrictions(HANDLE job)
{
	JOBOBJECT_BASIC_UI_RESTRICTIONS ui = {.UIRestrictionsClass = JOB_UI_RESTRICTIONS};

	if (!SetInformationJobObject(job, JobObjectBasicUIRestrictions, &ui, sizeof(ui)))
		return cr_win_last_errno();
	return 0;
}

/* Best effort: without the port corral still sees the end, but not which limit was hit. */
static HANDLE attach_port(HANDLE job)
{
	JOBOBJECT_ASSOCIATE_COMPLETION_PORT assoc = {0};
	HANDLE port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 1);

	if (!port)
		return NULL;
	assoc.CompletionKey = job;
	assoc.CompletionPort = port;
	if (!SetInformationJobObject(job, JobObjectAssociateCompletionPortInformation, &assoc,
				     sizeof(assoc))) {
		(void)CloseHandle(port);
		return NULL;
	}
	return port;
}

int cr_win_job_create(const struct cr_win_job_limits *limits, struct cr_win_job *ret)
{
	_cleanup_handle_ HANDLE job = CreateJobObjectW(NULL, NULL);
	int r;

	if (!job)
		return cr_win_last_errno();
	r = set_limits(job, limits);
	if (r < 0)
		return r;
	r = set_ui_restrictions(job);
	if (r < 0)
		return r;
	*ret = (struct cr_win_job){.port = attach_port(job)};
	ret->job = TAKE_HANDLE(job);
	return 0;
}

int cr_win_job_assign(struct cr_win_job *j, HANDLE process)
{
	if (!AssignProcessToJobObject(j->job, process))
		return cr_win_last_errno();
	return 0;
}

int cr_win_job_kill(struct cr_win_job *j, UINT exit_code)
{
	if (!j->job)
		return 0;
	if (!TerminateJobObject(j->job, exit_code))
		return cr_win_last_errno();
	return 0;
}

int cr_win_job_active(const struct cr_win_job *j, DWORD *ret)
{
	JOBOBJECT_BASIC_ACCOUNTING_INFORMATION acct;

	if (!QueryInformationJobObject(j->job, JobObjectBasicAccountingInformation, &acct,
				       sizeof(acct), NULL))
		return cr_win_last_errno();
	*ret = acct.ActiveProcesses;
	return 0;
}

void cr_win_job_drain(struct cr_win_job *j)
{
	DWORD msg;
	ULONG_PTR key;
	LPOVERLAPPED data;

	while (j->port && GetQueuedCompletionStatus(j->port, &msg, &key, &data, 0)) {
		if (msg == JOB_OBJECT_MSG_JOB_MEMORY_LIMIT ||
		    msg == JOB_OBJECT_MSG_PROCESS_MEMORY_LIMIT)
			j->memory_limit_hit = true;
		else if (msg == JOB_OBJECT_MSG_ACTIVE_PROCESS_LIMIT)
			j->process_limit_hit = true;
	}
}

void cr_win_job_close(struct cr_win_job *j)
{
	handle_closep(&j->job);
	handle_closep(&j->port);
	j->job = j->port = NULL;
}
