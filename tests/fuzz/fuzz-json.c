/* SPDX-License-Identifier: MIT */
/* launcher/base/json-text.c: the one way corral writes JSON.
 * Invariants: whatever bytes the strings (keys and values, at any depth) hold, cr_json_text()
 * gives text that is valid UTF-8 (cr_utf8_seq() accepts it throughout) and strict JSON (json-c's
 * parser with JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8), on one line; parsed again,
 * every string is cr_utf8_sanitize() of what was put in; text that was already valid UTF-8 is
 * json-c's own, unchanged; sanitizing is idempotent. */
#include <errno.h>
#include <json-c/json.h>

#include "fuzz-util.h"
#include "launcher/base/json-text.h"
#include "launcher/base/macro.h"

static bool valid_utf8(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = cr_utf8_seq((const unsigned char *)s + i, len - i);

		if (!n)
			return false;
		i += n;
	}
	return true;
}

static char *sanitized(const char *s)
{
	char *r = cr_utf8_sanitize(s, strlen(s), NULL);

	if (!r)
		abort();
	return r;
}

/* The object the strings make: {"k0": "v0", ..., "list": ["v0", ...]}, keys the even strings. */
static json_object *build(char **v, size_t n)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	if (!o || !a)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (i % 2 == 0 && i + 1 < n)
			json_object_object_add(o, v[i], json_object_new_string(v[i + 1]));
		json_object_array_add(a, json_object_new_string(v[i]));
	}
	json_object_object_add(o, "\x01list", a);
	return o;
}

static void check_back(json_object *back, char **v, size_t n)
{
	json_object *a = json_object_object_get(back, "\x01list"), *val;

	FUZZ_CHECK(a && json_object_array_length(a) == n, "the list did not come back");
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *want = sanitized(v[i]);
		const char *got = json_object_get_string(json_object_array_get_idx(a, i));

		FUZZ_CHECK(strcmp(got, want) == 0, "string %zu changed otherwise than by U+FFFD", i);
		if (i % 2 == 0 && i + 1 < n) {
			_cleanup_free_ char *k = sanitized(v[i]);

			/* a later equal key replaced the value, or a sanitized key collided */
			FUZZ_CHECK(json_object_object_get_ex(back, k, &val), "key %zu lost", i);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int flags[] = {JSON_C_TO_STRING_PLAIN,
				    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE,
				    JSON_C_TO_STRING_SPACED, JSON_C_TO_STRING_PRETTY};
	_cleanup_free_ char *buf = NULL, **v = NULL, *text = NULL, *again = NULL;
	json_tokener *tok;
	json_object *o, *back;
	size_t n, len;
	int f;

	if (size < 1)
		return 0;
	f = flags[data[0] % ELEMENTSOF(flags)];
	v = fuzz_split(data + 1, size - 1, 16, &buf, &n);
	o = build(v, n);
	text = cr_json_text(o, f);
	FUZZ_CHECK(text, "cr_json_text failed");
	len = strlen(text);
	FUZZ_CHECK(valid_utf8(text, len), "not valid UTF-8: %s", text);
	if (!(f & JSON_C_TO_STRING_PRETTY))
		FUZZ_CHECK(!strchr(text, '\n'), "more than one line: %s", text);
	if (valid_utf8((const char *)data + 1, size - 1))
		FUZZ_CHECK(strcmp(text, json_object_to_json_string_ext(o, f)) == 0,
			   "valid UTF-8 was changed");
	again = sanitized(text);
	FUZZ_CHECK(strcmp(again, text) == 0, "sanitizing twice changed the text");

	tok = json_tokener_new();
	if (!tok)
		abort();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	back = json_tokener_parse_ex(tok, text, (int)len);
	FUZZ_CHECK(back && json_tokener_get_error(tok) == json_tokener_success,
		   "does not parse strictly (%s): %s",
		   json_tokener_error_desc(json_tokener_get_error(tok)), text);
	FUZZ_CHECK(json_tokener_get_parse_end(tok) == len, "text after the object: %s", text);
	check_back(back, v, n);
	json_tokener_free(tok);
	json_object_put(back);
	json_object_put(o);
	return 0;
}
