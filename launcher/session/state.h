/* SPDX-License-Identifier: MIT */
/* corral's state directory, under the session store and the audit ledger: where it is, the checks
 * every descriptor in it gets, and the whole-or-absent JSON-lines append they both use. Nothing
 * here knows a session or a ledger entry. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#ifndef CR_STATE_FALLBACK_BASE
#define CR_STATE_FALLBACK_BASE "/var/tmp" /* persists across reboots, unlike /tmp or /run */
#endif

/* Where the state directory is and why: the first place corral can own of XDG_STATE_HOME/corral
 * (if absolute), HOME/.local/state/corral (if HOME is an absolute directory other than "/" that
 * belongs to corral's effective uid) and CR_STATE_FALLBACK_BASE/corral-UID. A place is usable if
 * it exists and corral may write it, or its nearest existing ancestor may be written (nothing is
 * created here; what is there is checked when it is opened). The fallback, in a directory every
 * user may write, must not exist or be a directory (not a symlink) of corral's uid with mode
 * 0700: anything else is -EPERM with the reason in @why, and no other place is taken instead.
 * @ret_source: "XDG_STATE_HOME", "HOME" or "fallback". @why (may be NULL): why the places
 * before the one taken were skipped (empty when none was), or the reason of a failure. 0,
 * -EPERM or -ENOMEM. */
int cr_state_locate(char *const *env, char **ret, const char **ret_source, char *why,
		    size_t size);

/* cr_state_locate() without the reasons. */
int cr_state_dir(char *const *env, char **ret);

/* Locate the state directory as cr_state_locate() does and warn on stderr about the places
 * skipped, naming the one taken; @ret_skipped (may be NULL) gets that reason, allocated, or NULL
 * when none was skipped. 0, or -errno with @msg. */
int cr_state_dir_warn(char *const *env, char **ret, char **ret_skipped, char *msg, size_t size);

/* Create @path and its missing parents with mode 0700. @path itself and every directory this
 * call creates must be a directory, not a symlink (-ELOOP), owned by the caller's effective uid
 * and not writable by group or others (-EPERM); parents that already existed need only be
 * directories, and may be reached through symlinks (/home -> /var/home). Safe against
 * concurrent callers (EEXIST is fine). 0 or -errno with @msg. */
int cr_state_mkdir(const char *path, char *msg, size_t size);

#define CR_JSONL_LINE_MAX (1024 * 1024) /* bytes of one appended line */

/* The canonical path of what @fd is open on (from /proc/self/fd). 0 or -errno. */
int cr_fd_path(int fd, char **ret);

/* Is the object open at @fd a directory (@dir) or a regular file, owned by corral's effective
 * uid and writable by neither group nor others? 0, or -EPERM with @msg naming @label. */
int cr_state_check_fd(int fd, bool dir, const char *label, char *msg, size_t size);

/* Walk @path from "/" (or the current directory if relative), creating what is missing with mode
 * 0700 when @create (EEXIST is fine: concurrent callers), and return an O_RDONLY|O_DIRECTORY
 * descriptor of it. Components ending at or before byte @strict_from of @path are only required
 * to be directories (symlinks are followed there: /home -> /var/home is common); the last
 * component, every one after @strict_from and every one this call created is opened with
 * O_NOFOLLOW and checked with cr_state_check_fd(). A symlink there is -ELOOP, a missing
 * component without @create -ENOENT. Returns the fd, or -errno with @msg. */
int cr_state_open_dir(const char *path, size_t strict_from, bool create, char *msg, size_t size);

/* Explain a failed openat(@dfd, @name, ...|O_NOFOLLOW) of @label: a symlink is -ELOOP, a FIFO or
 * device -EPERM, anything else the errno of the open (saved in @err, a -errno value). */
int cr_state_open_error(int dfd, const char *name, const char *label, int err, char *msg,
			size_t size);

/* Append @o as one line to @fd (open with O_APPEND) so that the line is whole or absent: under
 * flock(LOCK_EX), at most CR_JSONL_LINE_MAX bytes, written with write(2) until done, cut off
 * again with ftruncate(2) if a write fails. A file that does not end in a newline (a crash mid
 * write) gets one first. 0 or -errno (-ENOSPC on a full disk, -E2BIG for a line too long) with
 * @msg naming @label. */
int cr_jsonl_append(int fd, json_object *o, const char *label, char *msg, size_t size);

/* The current time as the ledger and the session store write it: RFC 3339, UTC, whole seconds
 * ("2026-11-22T13:17:17Z"). */
void cr_audit_now(char ret[32]);
