/* SPDX-License-Identifier: MIT */
/* What the two sides of a warm sandbox share: zygote.c (in the sandbox: the zygote, its workers
 * and their runners) and zygote-server.c (in the server: struct cr_warm_ops). Not for other
 * modules.
 *
 * Messages, all on AF_UNIX SOCK_SEQPACKET socketpairs (one message per send):
 *   control (server <-> zygote)  zygote: struct zy_msg ZY_READY + SCM_RIGHTS [exec, status],
 *                                the server's ends of a new worker's channels; ZY_FAILED
 *                                (errno): a worker could not be made, and is tried again;
 *                                server: struct zy_msg ZY_WANT (count): make that many more.
 *   exec (server <-> runner)     server: struct exec_hdr, then cwd, argv and envp as
 *                                NUL-terminated strings, + SCM_RIGHTS [stdin, stdout, stderr];
 *                                runner, on failure only: struct exec_err. The runner's end is
 *                                O_CLOEXEC: end of file means execve() succeeded.
 *   status (server <-> worker)   server: int32_t signal number; worker: struct worker_status,
 *                                once, when the command and all it started are gone, or with
 *                                setup_step when the worker could not be made (it exits). End of
 *                                file from the server is SIGKILL.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The largest request (cwd, argv, envp and their NULs): below the default socket send buffer
 * (net.core.wmem_default, 212992), which bounds one SOCK_SEQPACKET message. */
#define CR_WARM_MAX_REQUEST (128 * 1024)
#define CR_WARM_MAX_POOL    16
/* Ready workers the server holds at most: the pool, and what a burst of ZY_WANT adds. */
#define CR_WARM_MAX_READY   (2 * CR_WARM_MAX_POOL)

enum { ZY_READY = 1, ZY_WANT = 2, ZY_FAILED = 3 };

struct zy_msg {
	uint32_t type;
	uint32_t count; /* ZY_WANT: workers to add; ZY_FAILED: the positive errno */
};

struct exec_hdr {
	uint32_t argc, envc;
	uint32_t len; /* bytes of strings after the header */
};

/* What failed in the runner, on the exec channel. */
enum { EXEC_STAGE_REQUEST = 1, EXEC_STAGE_STDIO, EXEC_STAGE_CWD, EXEC_STAGE_EXEC };

struct exec_err {
	int32_t stage;
	int32_t err; /* positive errno */
};

/* What a worker could not do, on its status channel: no command ran (zygote_worker_step()). */
enum { WORKER_STEP_FDS = 1, WORKER_STEP_PROC, WORKER_STEP_LANDLOCK, WORKER_STEP_CAPS,
       WORKER_STEP_FORK };

struct worker_status {
	int32_t wait_status; /* the runner's (the command's) */
	int32_t setup_step;  /* 0, or the WORKER_STEP_* that failed: the worker was never ready */
	int32_t setup_err;   /* with setup_step: positive errno */
};

/* What @step did, for a message ("could not %s"). */
const char *zygote_worker_step(int step);

