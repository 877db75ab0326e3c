/* SPDX-License-Identifier: MIT */
/* The one INI reader of corral (profiles, seccomp profiles), over inih. inih gives its handler
 * no line numbers, cuts a long line, takes "KEY: VALUE" and reads an indented line as the
 * continuation of the key above; so the text is fed to ini_parse_stream() by a reader that
 * counts lines and checks each raw line before inih sees it. One behaviour for every file:
 *   - a UTF-8 byte order mark at the start is skipped, and a line may end in "\r\n";
 *   - blank lines and comments (a line whose first non-blank is '#' or ';') are skipped;
 *   - refused, as "SOURCE:LINE: reason": a NUL byte; a control character other than tab; a line
 *     longer than CR_INI_MAX_LINE bytes (refused rather than cut); an indented line that is not
 *     blank or a comment; a section line without its ']' or with text after it; a section the
 *     format does not know, even one without keys; a key before any section; "KEY: VALUE"; and
 *     whatever else inih cannot read ("syntax error");
 *   - the first error, by line, is the one reported. */
#pragma once

#include <errno.h>
#include <stddef.h>

#include "macro.h"

/* inih's line buffer (INI_MAX_LINE, 200 in Debian's libinih 55) less "\r\n\0". */
#define CR_INI_MAX_LINE 197

struct cr_ini;

/* Called for each KEY = VALUE, in a section the format knows: 1 to go on, or what
 * cr_ini_fail() returns. */
typedef int (*cr_ini_key_fn)(struct cr_ini *ini, const char *section, const char *name,
			     const char *value);

struct cr_ini {
	const char *source;	     /* names the file in messages */
	const char *const *sections; /* the sections the format knows, NULL-terminated */
	cr_ini_key_fn on_key;
	void *userdata;		     /* the format's own state, for on_key */
	unsigned line;		     /* the line being read, from 1 */
	/* cr_ini_parse()'s */
	const char *pos, *end, *cur;
	unsigned err_line;
	int err;
	char *msg;
	size_t msg_size;
};

/* An error on @line: the first one found is kept (@err: -EINVAL or -ENOMEM). Returns 0, what
 * a key handler returns on an error. Also for errors found after cr_ini_parse() (a key that
 * needs another), with the line to blame. */
int cr_ini_fail_at(struct cr_ini *ini, unsigned line, int err, const char *fmt, ...) _printf_(4, 5);
#define cr_ini_fail(ini, ...) cr_ini_fail_at((ini), (ini)->line, -EINVAL, __VA_ARGS__)
#define cr_ini_fail_oom(ini)  cr_ini_fail_at((ini), (ini)->line, -ENOMEM, "out of memory")

/* Read the @size bytes at @text (source, sections, on_key and userdata of @ini set). 0, or
 * -EINVAL, -ENOMEM or -EIO with "SOURCE:LINE: reason" (or "SOURCE: reason") in @msg. */
int cr_ini_parse(struct cr_ini *ini, const char *text, size_t size, char *msg, size_t msg_size);
