/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "json-text.h"
#include "macro.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

size_t cr_utf8_seq(const unsigned char *s, size_t left)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0; /* continuation byte, overlong lead (c0, c1), or past U+10FFFF */
	if (left < n)
		return 0;
	if (c == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c == 0xed)
		hi = 0x9f; /* surrogates */
	else if (c == 0xf0)
		lo = 0x90; /* overlong */
	else if (c == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* How many bytes cr_utf8_sanitize() writes for @s, without the NUL; @s is clean when it is @len. */
static size_t sanitized_len(const unsigned char *s, size_t len)
{
	size_t out = 0;

	for (size_t i = 0; i < len;) {
		size_t n = cr_utf8_seq(s + i, len - i);

		out += n ? n : sizeof(REPLACEMENT) - 1;
		i += n ? n : 1;
	}
	return out;
}

char *cr_utf8_sanitize(const char *s, size_t len, size_t *ret_len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t want = sanitized_len(u, len), o = 0;
	char *buf;

	buf = malloc(want + 1);
	if (!buf)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t n = cr_utf8_seq(u + i, len - i);

		if (n) {
			memcpy(buf + o, s + i, n);
			o += n;
			i += n;
		} else {
			memcpy(buf + o, REPLACEMENT, sizeof(REPLACEMENT) - 1);
			o += sizeof(REPLACEMENT) - 1;
			i++;
		}
	}
	buf[o] = '\0';
	if (ret_len)
		*ret_len = o;
	return buf;
}

char *cr_json_text(json_object *o, int flags)
{
	size_t len = 0;
	const char *text = json_object_to_json_string_length(o, flags, &len);

	/* Only bytes inside strings can be ill-formed (json-c writes everything else in ASCII),
	 * and an ill-formed byte is never ASCII: replacing it keeps the document's structure. */
	return text ? cr_utf8_sanitize(text, len, NULL) : NULL;
}

int cr_json_puts(json_object *o, int flags, FILE *f)
{
	_cleanup_free_ char *text = cr_json_text(o, flags);

	if (!text)
		return -ENOMEM;
	return fputs(text, f) < 0 || fputc('\n', f) == EOF ? -EIO : 0;
}
