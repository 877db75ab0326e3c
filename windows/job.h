/* SPDX-License-Identifier: MIT */
/* The Job Object a windows run lives in: created with the run's limits, the process assigned
 * while it is still suspended, everything it starts kept in it, the whole of it terminated at
 * once. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <windows.h>

struct cr_win_job_limits {
	uint64_t memory;     /* bytes for the whole job (JOB_MEMORY); 0: none */
	uint32_t processes;  /* live processes (ACTIVE_PROCESS); 0: none */
	uint64_t cpu_time_s; /* user CPU seconds per process (PROCESS_TIME); 0: none */
};

struct cr_win_job {
	HANDLE job;
	HANDLE port; /* completion port with the job's messages (limits hit, last process gone) */
	bool memory_limit_hit;
	bool process_limit_hit;
};

/* Create an unnamed job with @limits, KILL_ON_JOB_CLOSE (closing the last handle kills every
 * process in it), DIE_ON_UNHANDLED_EXCEPTION (no error dialog keeps a crashed process alive),
 * and the UI restrictions (no other desktop, no clipboard, no global atoms, no handles of
 * windows outside the job, no system parameters, display settings or logoff). A completion port
 * for its messages is attached where the system allows it (port stays NULL otherwise). 0 or
 * -errno. */
int cr_win_job_create(const struct cr_win_job_limits *limits, struct cr_win_job *ret);

/* Assign @process, which must still be suspended, so that nothing it runs is outside the job.
 * Jobs nest (Windows 8 and later): this works when corral itself runs in a job. 0 or -errno. */
int cr_win_job_assign(struct cr_win_job *j, HANDLE process);

/* Terminate every process in the job with @exit_code. 0 or -errno. */
int cr_win_job_kill(struct cr_win_job *j, UINT exit_code);

/* Processes alive in the job now. 0 or -errno. */
int cr_win_job_active(const struct cr_win_job *j, DWORD *ret);

/* Read the job's queued messages without waiting and record the limits that were hit. */
void cr_win_job_drain(struct cr_win_job *j);

/* Close the job (which kills what is left in it, KILL_ON_JOB_CLOSE) and its port. */
void cr_win_job_close(struct cr_win_job *j);
