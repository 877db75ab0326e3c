/* SPDX-License-Identifier: MIT */
/* Sessions: a persistent workspace per session id, and the grants given to the session. The store
 * lives under the state directory ($XDG_STATE_HOME/corral, else ~/.local/state/corral):
 *   sessions/<hash>/            the session's workspace (mode 0700), bound into its sandboxes
 *   sessions/<hash>.json        {"id", "created", "profile"}; written once, atomically
 *   sessions/<hash>.grants.jsonl one JSON grant per line, appended atomically
 * where <hash> is the first 32 hex digits of sha256(id). The sandbox sees only the workspace:
 * the metadata and grants sit beside it, never inside. Every file and directory is opened with
 * O_NOFOLLOW and must belong to the caller and be writable by nobody else. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "capability.h"

#define CR_SESSION_ID_MAX 256 /* bytes */

struct cr_session {
	char *id;
	char hash[33];
	char *workspace; /* canonical path of sessions/<hash> */
	char *store;	 /* canonical path of sessions/ */
};

/* The state directory from the environment (XDG_STATE_HOME if absolute, else HOME/.local/state),
 * with "/corral" appended; not created. 0, -ENOENT (neither is usable) or -ENOMEM. */
int cr_state_dir(char *const *env, char **ret);

/* Create @path and its missing parents with mode 0700 (an existing one is accepted when it is a
 * directory, not a symlink, owned by the caller and not writable by group or others). Safe
 * against concurrent callers. 0 or -errno with @msg. */
int cr_state_mkdir(const char *path, char *msg, size_t size);

/* First 32 hex digits of sha256(@id), NUL-terminated. */
void cr_session_hash(const char *id, char ret[33]);

/* Open session @id under @state_dir: check the id (1-CR_SESSION_ID_MAX bytes, no control
 * character), create the store and the workspace lazily (concurrent first use does not race),
 * write the metadata on first use with @profile, and check ownership and modes. With
 * @create false, a missing session is -ENOENT. 0 or -errno with @msg. */
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

/* `corral session list [--json]`, `corral session show ID [--json]`, `corral session rm ID...`;
 * argv[0] is "session". Returns the exit status. */
int cr_session_main(int argc, char **argv);

void cr_session_done(struct cr_session *s);
