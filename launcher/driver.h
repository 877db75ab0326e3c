/* SPDX-License-Identifier: MIT */
/* The seam between the launcher and a sandbox backend.
 *
 * A backend turns a struct cr_policy into an isolated process tree on its host: "linux" with
 * namespaces, pivot_root, Landlock, seccomp and cgroups; "macos" with sandbox-exec and a generated
 * profile; "windows" with a Job Object and a Low Integrity token; "wsl" by running corral's linux
 * driver inside a dedicated WSL distro. The launcher only ever talks to this structure: it parses
 * the command line, builds the policy, applies the timeout, and writes the JSON status. Exactly one
 * backend is built per host (meson chooses), and it defines cr_driver_native().
 *
 * Every function returns 0 (or more) on success and a negative errno on failure, and leaves its
 * ret_ parameters untouched on failure. None of them prints; the launcher logs once.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "launcher/policy/policy.h"

struct json_object;

enum cr_check_state {
	CR_CHECK_OK,	   /* available and used */
	CR_CHECK_DEGRADED, /* partly available; what is missing is said in detail */
	CR_CHECK_MISSING,  /* not available on this host */
};

/* One line of `corral doctor`: what a feature is here, and how to get it if it is missing. */
struct cr_check {
	char name[32];	   /* stable machine name, e.g. "user_namespaces" */
	enum cr_check_state state;
	bool required;	   /* corral run cannot work without it */
	char value[64];	   /* short value, e.g. "7" for the Landlock ABI */
	char detail[512];  /* a sentence for humans */
	char fix[512];	   /* what to do about it; empty when nothing is needed */
};

#define CR_PROBE_MAX_CHECKS 24

struct cr_probe {
	struct cr_check checks[CR_PROBE_MAX_CHECKS];
	size_t n_checks;
};

/* How a sandbox ended, as the backend observed it. */
enum cr_outcome_kind {
	CR_OUTCOME_EXITED,	 /* the command exited; status is its exit code */
	CR_OUTCOME_SIGNALED,	 /* the command was killed; status is the signal number */
	CR_OUTCOME_SETUP_FAILED, /* the sandbox could not be built; see error */
	CR_OUTCOME_EXEC_FAILED,	 /* the command could not be executed; error.err says why */
};

struct cr_setup_error {
	char stage[32];	   /* which step failed, e.g. "uid_map", "pivot_root", "exec" */
	int err;	   /* positive errno */
	char message[512]; /* a sentence with the context */
};

struct cr_outcome {
	enum cr_outcome_kind kind;
	int status;
	struct cr_setup_error error;
	bool oom_killed;     /* the OOM killer killed a process of the sandbox (its memory limit) */
	bool pids_limit_hit; /* a fork or clone failed at the sandbox's process limit */
	/* The sandbox itself ended the command at the timeout: corral was stopped past it
	 * (corral(1), Job control). */
	bool timed_out;
};

struct cr_run; /* opaque, owned by the backend */

/* Warm sandboxes, for `corral serve`: one sandbox per session, built once (namespaces, root,
 * cgroup, Landlock), whose pid 1 keeps a small pool of pre-forked workers, each already as
 * confined as a command (no capabilities, no_new_privs, seccomp) and waiting for one command.
 * An exec hands a worker its argv, environment, working directory and the three stdio
 * descriptors and lets it execve: no fork and no setup on the request path. Each command runs in
 * a pid namespace of its own nested in the session's, so that stopping it stops everything it
 * started, and commands of one session cannot signal each other's processes. The session's
 * files (workspace, /tmp, home) persist from one exec to the next. Everything is driven by
 * descriptors the caller polls, so one thread can serve many sessions and execs at once. */
struct cr_warm; /* a warm sandbox: opaque, owned by the backend */
struct cr_exec; /* one command running in a warm sandbox */

struct cr_exec_request {
	char *const *argv;   /* argv[0] is looked up in the sandbox's PATH (from @envp) */
	char *const *envp;   /* the whole environment, KEY=VALUE, NULL-terminated */
	const char *cwd;     /* absolute, inside the sandbox */
	int stdio[3];	     /* descriptors that become the command's 0, 1, 2 (sent, not kept) */
};

struct cr_exec_result {
	enum cr_outcome_kind kind; /* EXITED, SIGNALED or EXEC_FAILED */
	int status;		   /* exit code, or signal number */
	int err;		   /* with EXEC_FAILED: positive errno (ENOENT: not found) */
	bool oom_killed;	   /* the session's memory limit killed a process meanwhile */
	bool pids_limit_hit;	   /* a fork failed at the session's pids limit meanwhile */
};

struct cr_warm_ops {
	/* Build the sandbox for @policy (its argv is not used) and start its pid 1 with @pool
	 * workers (1-16). Returns once the sandbox is built, or with the setup error. */
	int (*start)(const struct cr_policy *policy, unsigned pool, struct cr_warm **ret,
		     struct cr_setup_error *ret_error);
	/* The descriptor to poll for POLLIN; then call handle(). */
	int (*fd)(const struct cr_warm *w);
	/* Read what pid 1 sent (a worker became ready). -EPIPE: the sandbox is gone (crashed or
	 * killed); free it and start another. */
	int (*handle)(struct cr_warm *w);
	/* Workers ready now. */
	unsigned (*ready)(const struct cr_warm *w);
	/* Start @req on a ready worker (-EAGAIN if none: wait for handle()); a new worker is asked
	 * for at once, and made off this path: once the worker of an exec is released
	 * (exec_free(), after the answer) or 10 ms later. The request's descriptors may be closed
	 * after the call. */
	int (*exec)(struct cr_warm *w, const struct cr_exec_request *req, struct cr_exec **ret);
	/* The descriptor to poll for POLLIN for @e; then call exec_handle(). */
	int (*exec_fd)(const struct cr_exec *e);
	/* 0 and @ret filled when the command (and everything it started) has ended; -EAGAIN if not
	 * yet. */
	int (*exec_handle)(struct cr_exec *e, struct cr_exec_result *ret);
	/* Send @sig to every process of the command (SIGKILL: they are gone when exec_handle()
	 * reports the end). */
	int (*exec_kill)(struct cr_exec *e, int sig);
	/* Release @e (kills what is left of it; its worker exits). Accepts NULL, returns NULL. */
	struct cr_exec *(*exec_free)(struct cr_exec *e);
	/* Add what the sandbox enforces to @enforced, as for a run. */
	int (*report)(const struct cr_warm *w, struct json_object *enforced);
	/* The sandbox's event counters so far: OOM kills, and forks refused at the pids limit (0
	 * where nothing counts them). An exec's oom_killed and pids_limit_hit are whether they
	 * grew while it ran. */
	void (*events)(const struct cr_warm *w, uint64_t *ret_oom_kills, uint64_t *ret_pids_max);
	/* Host pid of the sandbox's pid 1 (for stats and tests). */
	int (*pid)(const struct cr_warm *w);
	/* Kill the sandbox and everything in it, release it. Accepts NULL, returns NULL. */
	struct cr_warm *(*free)(struct cr_warm *w);

	/* Lending a worker to another process (the pool's client), which then sends the request
	 * and reads the end itself, with no hop through the caller. lend() takes a ready worker
	 * (-EAGAIN if none; it is not replaced: the sandbox serves that one command) and gives
	 * @ret, for exec_kill() and exec_free() only (the end goes to the borrower), and @ret_fds,
	 * new descriptors of the worker's two channels, to send to the borrower and close. */
	int (*lend)(struct cr_warm *w, struct cr_exec **ret, int ret_fds[2]);
	/* The borrower's side, on lend()'s two channels: send @req (its descriptors may be closed
	 * after the call); then, once fds[1] polls readable, the end: 0 and @ret filled, -EAGAIN
	 * if not yet, -EPIPE if the worker was killed before it could say (oom_killed and
	 * pids_limit_hit are the caller's, from counters_at()). */
	int (*send_request)(const int fds[2], const struct cr_exec_request *req);
	int (*read_result)(const int fds[2], struct cr_exec_result *ret);
	/* The sandbox's event counter files as new descriptors, -EBADF where none (to send with a
	 * lent worker), and their counters read by the borrower, as events() gives them. */
	void (*counter_fds)(const struct cr_warm *w, int ret[2]);
	void (*counters_at)(const int fds[2], uint64_t *ret_oom_kills, uint64_t *ret_pids_max);
};

struct cr_driver {
	const char *name;
	/* Host paths every sandbox of this backend shows read-only (the system), NULL-terminated:
	 * part of every profile's baseline, since a request to read them changes nothing. */
	const char *const *system_paths;
	/* Fill @ret_probe with what this host can enforce. Fails only on allocation failure. */
	int (*probe)(struct cr_probe *ret_probe);
	/* Check @policy against this host and resolve everything that can be resolved before the
	 * sandbox exists. The policy must outlive the run. On failure with -EINVAL/-ENOTSUP etc.
	 * @ret_error (if not NULL) says why. */
	int (*prepare)(const struct cr_policy *policy, struct cr_run **ret_run,
		       struct cr_setup_error *ret_error);
	/* Start the sandboxed command. Returns once it is running or could not be started. */
	int (*spawn)(struct cr_run *run);
	/* Wait up to @timeout_ms (negative: forever) for the sandbox to end. Returns -ETIMEDOUT if
	 * it is still running. Interrupt signals sent to the launcher meanwhile are forwarded. */
	int (*wait)(struct cr_run *run, int64_t timeout_ms, struct cr_outcome *ret_outcome);
	/* Stop the whole sandbox: politely (SIGTERM or the host's equivalent) or, with @force,
	 * at once. Nothing the command started survives a forced stop. */
	int (*stop)(struct cr_run *run, bool force);
	/* Add what was enforced for this run to @enforced, a JSON object. */
	int (*report)(const struct cr_run *run, struct json_object *enforced);
	/* Release the run; kills whatever is still running. Accepts NULL, returns NULL. */
	struct cr_run *(*run_free)(struct cr_run *run);
	/* Warm sandboxes for `corral serve`; NULL where the backend has none. */
	const struct cr_warm_ops *warm;
};

/* The backend built for this host. Never NULL. */
const struct cr_driver *cr_driver_native(void);
