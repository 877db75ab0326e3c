/* SPDX-License-Identifier: MIT */
/* The audit ledger: one JSON object per run, one line each, appended to
 * $XDG_STATE_HOME/corral/audit.jsonl (or --audit FILE). Lines from concurrent runs never
 * interleave and are whole or absent: the ledger is opened O_APPEND|O_NOFOLLOW, locked with
 * flock(2) around a single write(2), and a short write (a full disk) is cut back off and
 * reported. The line format is in docs/policy.md. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "state.h"

struct json_object;

/* The default ledger's name in the state directory (cr_state_dir()). */
#define CR_AUDIT_FILE "audit.jsonl"

/* Open (creating it with mode 0600, and its directory with cr_state_mkdir() when @make_dir: meant
 * for the default ledger; a --audit FILE's directory is the user's business) the ledger at
 * @path. Refuses a symlink (-ELOOP), a non-regular file, a file of another user or one
 * writable by group or others (-EPERM). Returns the descriptor (O_CLOEXEC) or -errno with @msg.
 * Called before the run, so that a ledger that cannot be written stops the run instead of
 * losing its line. */
int cr_audit_open(const char *path, bool make_dir, char *msg, size_t size);

/* Append @entry as one line to the ledger open at @fd (at most 1 MiB, else -E2BIG). 0, or
 * -errno with @msg naming the ledger (-ENOSPC on a full disk: nothing of the line remains in the
 * file). */
int cr_audit_append(int fd, struct json_object *entry, char *msg, size_t size);

/* The time now as the ledger writes it: RFC 3339, UTC, with milliseconds. A new JSON string, or
 * NULL on allocation failure. */
struct json_object *cr_audit_time(void);

/* Lower-case hex sha256 of the argv (each argument followed by a NUL byte), for the ledger's
 * "argv_sha256". @ret holds 65 bytes. */
void cr_audit_argv_hash(char *const *argv, char ret[65]);

/* The enforcement report @enforced (a status's "enforced") in short, for a ledger line and for
 * serve's exec results: the keys in @keep as they are, the seccomp mode, Landlock's "abi" and
 * "applied", and the mode of each limit that is enforced; the paths are left out. NULL on
 * allocation failure: the summary is whole or absent. */
struct json_object *cr_audit_summary(struct json_object *enforced, const char *const *keep,
				     size_t n_keep);
