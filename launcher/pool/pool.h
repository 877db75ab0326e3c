/* SPDX-License-Identifier: MIT */
/* `corral pool`: a per-user process that keeps pre-built, never-used sandboxes ready, so that
 * `corral run` starts a command in one at warm speed (docs/pool.md). This header is the door's:
 * the verb's entry point, and the client `corral run` calls once its policy has passed the gate. */
#pragma once

#include <stdbool.h>

#include "launcher/driver.h"

struct json_object;

enum cr_pool_mode {
	CR_POOL_AUTO,	 /* through the pool when one runs and can serve the policy, else cold */
	CR_POOL_REQUIRE, /* through the pool, or fail (exit 125) */
	CR_POOL_NEVER,	 /* always cold */
	_CR_POOL_MODE_MAX,
	_CR_POOL_MODE_INVALID = -EINVAL,
};

/* "auto", "require", "never" and back. */
enum cr_pool_mode cr_pool_mode_from_string(const char *s);
const char *cr_pool_mode_to_string(enum cr_pool_mode m);

/* The mode of a run: @opt (--pool) if given (not NULL), else CORRAL_POOL from @env, else auto. 
 * -EINVAL with @msg for a value that is none of the three. */
int cr_pool_mode_resolve(const char *opt, char *const *env, enum cr_pool_mode *ret, char *msg,
			 size_t size);

/* Connect to the pool, if one runs: done first thing in `corral run`, so that the pool checks
 * its new peer (cr_peer_check()) while the client builds its policy, not after. The descriptor,
 * or -ENOENT with @reason, or -EPERM with @reason (and a warning on stderr) when the socket's
 * listener is not of our uid (another user's socket at our path: nothing is sent to it). */
int cr_pool_connect(char *const *env, char *reason, size_t size);

struct cr_pool_call {
	int fd;				/* cr_pool_connect()'s, taken over, or -1: connect now */
	const struct cr_policy *policy; /* built and allowed by the gate */
	int argc;			/* `corral run`'s arguments, for the pool to build the */
	char **argv;			/* same policy itself (POOL_SPEC) */
	char *const *env;		/* corral's environment */
};

struct cr_pool_result {
	struct cr_outcome outcome;
	bool timed_out;
	double duration_ms;
	struct json_object *enforced; /* the pool's report of its sandbox; the caller's to put */
	char reason[512];	      /* why the pool did not run it (-EAGAIN, -ENOENT, -EPIPE) */
};

/* Run @call's command in one of the pool's sandboxes, relaying SIGINT, SIGTERM and SIGHUP to it.
 * 0: it ran, @ret has the outcome. -ENOENT: no pool is running; -EAGAIN: the pool cannot serve
 * this policy now (the command did not start: run it cold); -EPIPE: the pool ended during the
 * run (the command ended with it). The reason is in ret->reason. */
int cr_pool_run(const struct cr_pool_call *call, struct cr_pool_result *ret);

/* A door other than `corral run` whose policies the pool builds (the bwrap personality): a
 * spec whose first argument is @name is the door's command line, and @build makes its policy
 * from it (@argv[0] is @name; @env the client's environment, with what the door needs to build
 * the same policy), as the door's own run would, in the client's directory. Registered by the
 * program, since the pool sits below the doors; one at most. */
struct cr_pool_door {
	const char *name;
	int (*build)(int argc, char **argv, char *const *env, struct cr_policy *ret, char *msg,
		     size_t size);
};
void cr_pool_door_register(const struct cr_pool_door *door);

/* `corral pool start|stop|status|serve`. Returns the exit status. */
int cr_pool_main(int argc, char **argv);
extern const char cr_pool_usage[];

/* Add "via" (@via: "pool" or "cold") and, when not empty, "pool_fallback" (@note: why a run
 * went cold) to the JSON status @st. 0 or -ENOMEM. */
int cr_pool_status(struct json_object *st, const char *via, const char *note);
