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

#define CR_SESSION_METADATA_MAX (64 * 1024)        /* bytes of sessions/<hash>.json */
#define CR_SESSION_GRANTS_MAX   (16 * 1024 * 1024) /* bytes of sessions/<hash>.grants.jsonl */
#define CR_JSONL_LINE_MAX       (1024 * 1024)      /* bytes of one appended line */

static inline void json_object_putp(json_object **o)
{
	if (*o)
		(void)json_object_put(*o);
}
#define _cleanup_json_ _cleanup_(json_object_putp)


/* Lower-case hex of @data into @ret (2 * @size + 1 bytes). */
void cr_hex(const uint8_t *data, size_t size, char *ret);

/* The canonical path of what @fd is open on (from /proc/self/fd). 0 or -errno. */
int cr_fd_path(int fd, char **ret);

/* write(2) all of @data, retrying short writes and EINTR. 0 or -errno. Implemented in audit.c. */
int cr_write_all(int fd, const void *data, size_t size);

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

/* Append @o as one line to @fd (open with O_APPEND) so that the line is whole or absent: under
 * flock(LOCK_EX), at most CR_JSONL_LINE_MAX bytes, written with write(2) until done, cut off
 * again with ftruncate(2) if a write fails. A file that does not end in a newline (a crash mid
 * write) gets one first. 0 or -errno (-ENOSPC on a full disk, -E2BIG for a line too long) with
 * @msg naming @label. Implemented in audit.c. */
int cr_jsonl_append(int fd, json_object *o, const char *label, char *msg, size_t size);
