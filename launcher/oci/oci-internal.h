/* SPDX-License-Identifier: MIT */
/* What the commands of `corral oci` share (oci.c, create.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "launcher/base/macro.h"

/* A command that ran and failed (runc's convention, which engines expect); bad usage is
 * CR_EXIT_SETUP, as for every corral command. */
#define OCI_EXIT_FAILED 1

/* The global options. */
struct oci_opts {
	const char *root; /* NULL: the default for this caller */
	const char *log;  /* NULL: stderr only */
	bool log_json;
	const char *userns; /* --userns: auto or spec; NULL: $CORRAL_OCI_USERNS, else auto */
};

/* The options of create (create.c). */
struct create_opts {
	const char *bundle, *pid_file, *console_socket, *id;
	uint64_t preserve_fds;
	bool no_pivot, no_new_keyring;
};

/* "corral oci: MESSAGE" on stderr, and a line in the --log file (JSON with --log-format json). */
void oci_error(const struct oci_opts *o, const char *fmt, ...) _printf_(2, 3);
/* @msg as a warning in --log only (not stderr: once create has run, stderr is the
 * container's, which engines give it). */
void oci_log_warning(const struct oci_opts *o, const char *msg);

/* `create [OPTIONS] ID` (create.c); argv[0] is "create". Returns the exit status. */
int oci_cmd_create(const struct oci_opts *o, int argc, char **argv);
/* lifecycle.c: `start ID`, `kill [--all] ID [SIGNAL]`, `delete [--force] ID`,
 * `ps --format json ID`. argv[0] is the command. Each returns the exit status. */
int oci_cmd_start(const struct oci_opts *o, int argc, char **argv);
int oci_cmd_kill(const struct oci_opts *o, int argc, char **argv);
int oci_cmd_delete(const struct oci_opts *o, int argc, char **argv);
int oci_cmd_ps(const struct oci_opts *o, int argc, char **argv);
/* BUNDLE/config.json, not followed through a symlink, at most 4 MiB, into *@ret (create.c).
 * 0 or -errno with @err. */
int oci_read_config(const char *bundle, char **ret, size_t *ret_len, char *err, size_t size);
/* `exec --process FILE [--detach] [--pid-file FILE] ID` (exec.c). */
int oci_cmd_exec(const struct oci_opts *o, int argc, char **argv);
