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

#include "policy.h"

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
	char fix[256];	   /* what to do about it; empty when nothing is needed */
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
};

struct cr_run; /* opaque, owned by the backend */

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
};

/* The backend built for this host. Never NULL. */
const struct cr_driver *cr_driver_native(void);
