/* SPDX-License-Identifier: MIT */
/* Secrets: values corral reads from files the caller names (--secret, --secret-file,
 * --env-file) and hands to the command alone, in its environment or as files under
 * CR_SECRETS_DIR. A value is never in any argv, message, status or ledger line: only its name. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "request.h"

/* The largest value, and the largest --env-file, in bytes. */
#define CR_SECRET_MAX	(64u * 1024)

/* Is @name (@len bytes) a valid name: for CR_SECRET_ENV a variable name ([A-Za-z_][A-Za-z0-9_]*),
 * for CR_SECRET_FILE a file name of [A-Za-z0-9_.-] not starting with '.'. */
bool cr_secret_name_ok(enum cr_secret_kind kind, const char *name, size_t len);

/* Check the option @opt's argument @arg, NAME=FILE: 0, or -EINVAL with the reason in @msg. */
int cr_secret_spec_check(const char *opt, enum cr_secret_kind kind, const char *arg, char *msg,
			 size_t size);

/* Read every secret of @o (--secret, --secret-file, --env-file, in that order) into @ret, with
 * @ret_n entries. A name given twice is refused. FILE "-" is corral's standard input (once).
 * 0, or -errno with a message that names the option, the name and the file, never a value. */
int cr_secrets_read(const struct cr_run_options *o, struct cr_secret **ret, size_t *ret_n,
		    char *msg, size_t size);

struct json_object;

/* enforced.secrets: each secret's name (an environment variable) or path (CR_SECRETS_DIR/NAME),
 * never a value. NULL only on allocation failure. */
struct json_object *cr_secrets_json(const struct cr_secret *s, size_t n);

/* Wipe and free @s, a string that held a value. Accepts NULL. */
void cr_secret_erase(char *s);
