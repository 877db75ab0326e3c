/* SPDX-License-Identifier: MIT */
/* What the commands of `corral oci` share (oci.c, create.c). */
#pragma once

#include <stdbool.h>

#include "launcher/base/macro.h"

/* A command that ran and failed (runc's convention, which engines expect); bad usage is
 * CR_EXIT_SETUP, as for every corral command. */
#define OCI_EXIT_FAILED 1

/* The global options. */
struct oci_opts {
	const char *root; /* NULL: the default for this caller */
	const char *log;  /* NULL: stderr only */
	bool log_json;
};

/* "corral oci: MESSAGE" on stderr, and a line in the --log file (JSON with --log-format json). */
void oci_error(const struct oci_opts *o, const char *fmt, ...) _printf_(2, 3);

/* `create [OPTIONS] ID` (create.c); argv[0] is "create". Returns the exit status. */
int oci_cmd_create(const struct oci_opts *o, int argc, char **argv);
