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

/* The JSON status's "error" for @e: its stage, errno, @errno_name (the errno's symbolic name,
 * which each host looks up its own way; NULL gives null) and message. NULL on allocation
 * failure. */
struct json_object *cr_outcome_error_json(const struct cr_setup_error *e, const char *errno_name);
