/* SPDX-License-Identifier: MIT */
/* Degraded mode (--allow-degraded): where user namespaces cannot be created, the command still
 * runs, in a plain child process, under Landlock on host paths, no_new_privs, the rlimits, a
 * cleared environment and closed descriptors; corral says plainly which layers are missing.
 * Without Landlock it refuses: corral never runs a command with neither. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "launcher/driver.h"

struct cr_child_ctx;
struct cr_mount_plan;
struct cr_degraded;
struct json_object;

/* After clone failed with @clone_err (positive) for want of user namespaces: check that Landlock
 * is there, make the private directory (/tmp/corral-degraded.XXXXXX, 0700, owned by the user the
 * command runs as, with tmp/ and home/), replace ctx->landlock with rules on host paths, point
 * ctx->policy at a copy of the policy with TMPDIR (and HOME) set to it, make corral the child
 * subreaper of what the command starts, and print one warning line naming the missing layers.
 * 0, or -errno with @err filled (stage "degraded"). */
int cr_degraded_prepare(struct cr_child_ctx *ctx, int clone_err, struct cr_degraded **ret,
			struct cr_setup_error *err);

/* The child's body after fork. Waits for one byte on @sync_fd (end of file: exit silently), then:
 * a new session and the parent-death signal, the host ids of the sandbox user when corral runs as
 * root, no capabilities, the working directory, no_new_privs, the Landlock domain, the rlimits,
 * and cr_command_main(). A failure is reported on ctx->msg_fd with its stage. Never returns. */
_Noreturn void cr_degraded_child_main(struct cr_child_ctx *ctx, const struct cr_degraded *d,
				      int sync_fd, pid_t parent);

/* Send @sig to the command's process group (@pid, a session leader); with @all, also SIGKILL
 * every other process left that corral is the parent or subreaper of, and reap them. Never
 * reaps @pid itself. */
void cr_degraded_kill(const struct cr_degraded *d, pid_t pid, int sig, bool all);

/* Add "degraded" and "missing_layers" to @enforced, and in degraded mode replace what the
 * namespaces would have given (namespaces, ids, network, root, the path lists, environment,
 * hostname) with what the command actually had. @d may be NULL: not degraded. 0 or -ENOMEM. */
int cr_degraded_report(const struct cr_degraded *d, const struct cr_mount_plan *plan,
		       struct json_object *enforced);

/* Kill what is left, remove the private directory, stop being a subreaper. Accepts NULL,
 * returns NULL. */
struct cr_degraded *cr_degraded_free(struct cr_degraded *d);
