/* SPDX-License-Identifier: MIT */
/* Sessions: a persistent workspace per session id, and the grants given to the session. The store
 * lives under the state directory ($XDG_STATE_HOME/corral, else ~/.local/state/corral):
 *   sessions/<hash>/            the session's workspace (mode 0700), bound into its sandboxes
 *   sessions/<hash>.json        {"id", "hash", "created", "profile"}; written once, atomically
 *   sessions/<hash>.grants.jsonl one JSON grant per line, appended atomically
 * where <hash> is the first 32 hex digits of sha256(id). The sandbox sees only the workspace:
 * the metadata and grants sit beside it, never inside. The state directory and every file and
 * directory under it are opened with O_NOFOLLOW and must belong to the caller (its effective
 * uid) and be writable by nobody else; the parents of the state directory need only be
 * directories. A line of the grants file is whole or absent: it is written under flock(2) and
 * cut off again if the write fails (a full disk). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "launcher/policy/capability.h"
#include "state.h"

#define CR_SESSION_ID_MAX 256 /* bytes */

struct cr_session {
	char *id;
	char hash[33];
	char *workspace; /* canonical path of sessions/<hash> */
	char *store;	 /* canonical path of sessions/ */
	char *created;	 /* from the metadata: RFC 3339 UTC, when the session was first used */
	char *profile;	 /* from the metadata: the profile given at creation; NULL if none */
};

/* First 32 hex digits of sha256(@id), NUL-terminated. */
void cr_session_hash(const char *id, char ret[33]);

/* Open session @id under @state_dir: check the id (1-CR_SESSION_ID_MAX bytes of UTF-8, no
 * control character: -EINVAL), create the state directory, the store and the workspace lazily
 * (concurrent first use does not race), write the metadata on first use with @profile (NULL:
 * none; a later open with another profile keeps the first, see @ret->profile), and check
 * ownership and modes: a symlink is -ELOOP, another owner, a group- or other-writable mode or a
 * file that is not regular -EPERM, metadata naming another id -EINVAL. With @create false, a
 * missing session is -ENOENT. 0 or -errno with @msg; @ret is untouched on failure. */
int cr_session_open(const char *state_dir, const char *id, const char *profile, bool create,
		    struct cr_session *ret, char *msg, size_t size);

/* The join of every grant of the session (an empty capability when there is none). A line
 * that does not parse is an error naming the file and line. 0 or -errno with @msg. */
int cr_session_grants(const struct cr_session *s, struct cr_capability *ret, char *msg,
		      size_t size);

/* Append @grant (scope "session") to the session's grants with one write(2). 0 or -errno with
 * @msg (-ENOSPC is reported, never ignored). */
int cr_session_grant_add(const struct cr_session *s, const struct cr_capability *grant,
			 const char *profile, char *msg, size_t size);

/* Free what @s owns and zero it; accepts a zeroed session. */
void cr_session_done(struct cr_session *s);
