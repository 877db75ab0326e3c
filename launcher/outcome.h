/* SPDX-License-Identifier: MIT */
/* What a run's outcome means to the caller: corral's exit status and the status's "outcome".
 * Portable (no Linux-only calls): corral.exe builds it too. */
#pragma once

#include <stdbool.h>

#include "driver.h"

/* corral's exit status for an outcome (see exit-codes.h); @o NULL means nothing was started. */
int cr_exit_code(const struct cr_outcome *o, bool timed_out);

/* The JSON status's "outcome": timed_out, denied, exited, signaled, exec_failed or
 * setup_failed (@o NULL: corral failed before starting anything). */
const char *cr_outcome_name(const struct cr_outcome *o, bool timed_out, bool denied);

struct json_object;

/* How the run went, as the JSON status says it (docs/json-status.md, from "outcome" to
 * "error"): one writer for corral's status (status.c) and corral.exe's (windows/status-win.c). */
struct cr_outcome_status {
	const struct cr_outcome *outcome; /* NULL: nothing was started */
	bool timed_out, denied, degraded;
	int exit_code;
	const char *signal_name;	    /* of outcome's signal, each host's own way */
	double duration_ms;
	struct json_object *enforced;	    /* the driver's report, or NULL */
	const struct cr_setup_error *error; /* or NULL */
	const char *errno_name;		    /* of error's errno, each host's own way, or NULL */
};

/* Add those keys to @o in the status's order. 0 or -ENOMEM. */
int cr_outcome_status_json(struct json_object *o, const struct cr_outcome_status *s);
