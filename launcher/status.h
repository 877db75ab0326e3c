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

/* Open where --json-status writes: "fd:N" (N must be open) or a file path (created or
 * truncated). Returns the descriptor, or -errno with a reason in @msg. @ret_owned tells whether
 * the caller must close it. */
int cr_status_open(const char *dest, bool *ret_owned, char *msg, size_t msg_size);

/* Write @st as one line of JSON to @fd. 0 or -errno. */
int cr_status_write(struct json_object *st, int fd);
