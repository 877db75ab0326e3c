/* SPDX-License-Identifier: MIT */
/* The audit ledger: one JSON object per run, one line each, appended to
 * $XDG_STATE_HOME/corral/audit.jsonl (or --audit FILE). Lines from concurrent runs never
 * interleave and are whole or absent: the ledger is opened O_APPEND|O_NOFOLLOW, locked with
 * flock(2) around a single write(2), and a short write (a full disk) is cut back off and
 * reported. The line format is in docs/policy.md. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct json_object;

/* Open (creating it with mode 0600, and its directory with cr_state_mkdir() when @make_dir) the
 * ledger at @path. Refuses a symlink, a non-regular file, a file of another user or one writable
 * by others. Returns the descriptor (O_CLOEXEC) or -errno with @msg. Called before the run, so
 * that a ledger that cannot be written stops the run instead of losing its line. */
int cr_audit_open(const char *path, bool make_dir, char *msg, size_t size);

/* Append @entry as one line to the ledger open at @fd. 0, or -errno with @msg (-ENOSPC: nothing
 * of the line remains in the file). */
int cr_audit_append(int fd, struct json_object *entry, char *msg, size_t size);

/* Lower-case hex sha256 of the argv (each argument followed by a NUL byte), for the ledger's
 * "argv_sha256". @ret holds 65 bytes. */
void cr_audit_argv_hash(char *const *argv, char ret[65]);
