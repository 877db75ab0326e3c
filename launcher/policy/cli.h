/* SPDX-License-Identifier: MIT */
/* Command-line parsing. Pure: reads argv, touches no file, prints nothing. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "request.h"

/* Parse `corral run` options; argv[0] is "run". Returns 0, or -EINVAL with a one-line reason in
 * @msg. ret_opts is filled only on success; free it with cr_run_options_done(). */
int cr_cli_parse_run(int argc, char **argv, struct cr_run_options *ret_opts, char *msg, size_t msg_size);

/* The usage text of `corral run` and of corral itself. */
extern const char cr_run_usage[];
extern const char cr_main_usage[];
