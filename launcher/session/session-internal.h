/* SPDX-License-Identifier: MIT */
/* What session.c, session-cmd.c and audit.c share about the state directory: the checks every
 * file and directory of it passes, the walk that creates it, and the JSON-lines append. Not for
 * other modules; the unit tests use it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "launcher/policy/capability.h"
#include "launcher/base/macro.h"
#include "state.h"

#define CR_SESSION_METADATA_MAX (64 * 1024)        /* bytes of sessions/<hash>.json */
#define CR_SESSION_GRANTS_MAX   (16 * 1024 * 1024) /* bytes of sessions/<hash>.grants.jsonl */

static inline void json_object_putp(json_object **o)
{
	if (*o)
		(void)json_object_put(*o);
}
#define _cleanup_json_ _cleanup_(json_object_putp)

/* Open the session store, <state_dir>/sessions (creating it and @state_dir when @create; both are
 * checked strictly, the parents of @state_dir are not). Its canonical path goes to @ret_path.
 * Returns the descriptor, or -errno (-ENOENT: no store yet) with @msg. */
int cr_session_store_open(const char *state_dir, bool create, char **ret_path, char *msg,
			  size_t size);

/* 0, or -EINVAL with @msg: empty, longer than CR_SESSION_ID_MAX, a control character, or not
 * UTF-8. */
int cr_session_id_check(const char *id, char *msg, size_t size);

/* Is @s 32 lower-case hex digits, the form of a session hash? */
bool cr_session_hash_valid(const char *s);

/* Read and check the metadata of session @hash in the store open at @store_fd (canonical path
 * @store, for messages): a regular file of ours, an object whose "id" hashes to @hash,
 * "created" a string, "profile" a string or null. -ENOENT if it does not exist. */
int cr_session_metadata_read(int store_fd, const char *store, const char *hash, json_object **ret,
			     char *msg, size_t size);

/* Read the grants of session @hash: their join into @ret and their number into @ret_n (either
 * may be NULL). A missing file is no grant. 0 or -errno with @msg ("FILE:LINE: ..."). */
int cr_session_grants_read(int store_fd, const char *store, const char *hash,
			   struct cr_capability *ret, size_t *ret_n, char *msg, size_t size);

