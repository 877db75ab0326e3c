/* SPDX-License-Identifier: MIT */
/* The one way corral turns a json-c object into text. json-c copies a string's bytes as they are,
 * so a path or argument that is not UTF-8 (a file name with byte 0xff) would make the text
 * invalid JSON: here each byte that does not begin a well-formed UTF-8 sequence becomes U+FFFD,
 * as for any JSON writer that must stay valid. Control characters are escaped by json-c. */
#pragma once

#include <stddef.h>
#include <stdio.h>

struct json_object;

/* Length of the well-formed UTF-8 sequence at @s (at most @left bytes, @left >= 1): 1 to 4, or
 * 0 when it is not one (a stray continuation byte, 0xc0, 0xc1 or 0xf5 to 0xff, an overlong form,
 * a surrogate, a code point above U+10FFFF, or a sequence cut short). */
size_t cr_utf8_seq(const unsigned char *s, size_t left);

/* @len bytes at @s, NUL-terminated and malloc'd, with each byte that does not begin a
 * well-formed UTF-8 sequence replaced by U+FFFD (EF BF BD); its length in *@ret_len unless
 * NULL. NULL on allocation failure. */
char *cr_utf8_sanitize(const char *s, size_t len, size_t *ret_len);

/* @o as JSON text with json-c's @flags (JSON_C_TO_STRING_*), valid UTF-8 whatever bytes its
 * strings hold (see cr_utf8_sanitize()); malloc'd, the caller frees it. NULL on allocation
 * failure. Every JSON document corral writes (status, ledger, approvals, session records, the
 * serve protocol, doctor and show commands) is made here. */
char *cr_json_text(struct json_object *o, int flags);

/* cr_json_text() of @o and a newline, on @f. 0, -ENOMEM, or -EIO if @f failed. */
int cr_json_puts(struct json_object *o, int flags, FILE *f);
