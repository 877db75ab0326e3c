/* SPDX-License-Identifier: MIT */
/* The run's outcome: corral's exit status and the --json-status object. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "driver.h"
#include "outcome.h"

struct json_object;

#define CR_STATUS_VERSION 1

struct cr_status {
	const char *driver;
	char *const *argv;
	const struct cr_outcome *outcome; /* NULL when corral failed before starting anything */
	const struct cr_setup_error *error; /* NULL when nothing failed */
	bool timed_out;
	bool denied; /* refused by the policy gate before anything started */
	int exit_code;
	double duration_ms;
	struct json_object *enforced; /* borrowed; may be NULL */
};

/* "SIGKILL" for 9; NULL for numbers that are not signals. */
const char *cr_signal_name(int sig);

/* Build the status object. Returns NULL only on allocation failure. */
struct json_object *cr_status_build(const struct cr_status *s);

/* The "started" record: what is known before the run (the command, corral's version, the
 * driver, corral's own pid), replaced by the final one. NULL only on allocation failure. */
struct json_object *cr_status_build_started(const char *driver, char *const *argv, int pid);

/* Where --json-status writes. A regular file (or a name not yet taken) is replaced whole by each
 * record: written to a temporary file beside it, then renamed over it, so that a reader sees
 * either the "started" record or the final one, and a corral killed with SIGKILL leaves the
 * "started" one. "fd:N", a path to anything that is not a regular file (a pipe, a terminal)
 * and paths in /dev and /proc (/dev/stdout) get only the final record, written in place. */
struct cr_status_dest {
	int fd;	    /* written in place: fd:N or an open non-regular file; else -1 */
	bool owned; /* fd is corral's to close */
	int dir_fd; /* replaced: the file's directory; else -1 */
	char *name; /* replaced: its name in dir_fd */
};

#define CR_STATUS_DEST_INIT { .fd = -1, .dir_fd = -1 }

/* Open where --json-status writes: "fd:N" (N must be open) or a file path (its directory must
 * let corral create a file beside it). 0, or -errno with a reason in @msg. */
int cr_status_open(const char *dest, struct cr_status_dest *ret, char *msg, size_t msg_size);

/* Close @d and open @dest to be written in place (created or truncated), for the final record
 * alone: where no file can be made beside it. 0, or -errno with a reason in @msg. */
int cr_status_open_in_place(const char *dest, struct cr_status_dest *d, char *msg, size_t size);

/* Is @d a file that each record replaces (and so takes the "started" record)? */
bool cr_status_replaces(const struct cr_status_dest *d);

/* Write @st as the record at @d: replace the file, or write in place. 0 or -errno. */
int cr_status_put(struct cr_status_dest *d, struct json_object *st);

/* Close what cr_status_open() opened. Accepts CR_STATUS_DEST_INIT. */
void cr_status_close(struct cr_status_dest *d);

/* Write @st as one line of JSON to @fd. 0 or -errno. */
int cr_status_write(struct json_object *st, int fd);
