/* SPDX-License-Identifier: MIT */
/* Unit tests for launcher/base/json-text.c: JSON text that is valid UTF-8 whatever bytes went in,
 * and the checked adds every JSON document is built with. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/json-text.h"
#include "launcher/base/json-util.h"

#define FFFD "\xef\xbf\xbd"

static void sanitized(const char *in, size_t len, const char *want)
{
	size_t out_len = 0;
	char *out = cr_utf8_sanitize(in, len, &out_len);

	assert_non_null(out);
	assert_int_equal(out_len, strlen(want));
	assert_memory_equal(out, want, out_len + 1);
	free(out);
}

#define S(in, want) sanitized(in, sizeof(in) - 1, want)

static void test_valid_kept(void **state)
{
	S("", "");
	S("plain /ascii\x01\x7f", "plain /ascii\x01\x7f");
	S("\xc2\x80 \xdf\xbf", "\xc2\x80 \xdf\xbf"); /* U+0080, U+07FF */
	S("\xe0\xa0\x80 \xed\x9f\xbf \xee\x80\x80 \xef\xbf\xbf",
	  "\xe0\xa0\x80 \xed\x9f\xbf \xee\x80\x80 \xef\xbf\xbf"); /* U+0800 U+D7FF U+E000 U+FFFF */
	S("\xf0\x90\x80\x80 \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf",
	  "\xf0\x90\x80\x80 \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf"); /* U+10000, an emoji, U+10FFFF */
	S(FFFD, FFFD);
}

static void test_lone_continuation(void **state)
{
	S("\x80", FFFD);
	S("a\xbf-", "a" FFFD "-");
	S("\x80\x80\x80", FFFD FFFD FFFD);
	/* A valid sequence followed by one continuation byte too many. */
	S("\xc3\xa9\xa9", "\xc3\xa9" FFFD);
}

static void test_bad_lead_bytes(void **state)
{
	S("\xff", FFFD);
	S("\xfe\xff", FFFD FFFD);
	S("ws-\xff", "ws-" FFFD);
	S("\xf5\x80\x80\x80", FFFD FFFD FFFD FFFD);          /* past U+10FFFF by its lead */
	S("\xf8\x88\x80\x80\x80", FFFD FFFD FFFD FFFD FFFD); /* old 5-byte form */
}

static void test_overlong(void **state)
{
	S("\xc0\xaf", FFFD FFFD); /* '/' in two bytes */
	S("\xc1\xbf", FFFD FFFD);
	S("\xc0\x80", FFFD FFFD);                   /* NUL in two bytes */
	S("\xe0\x80\xaf", FFFD FFFD FFFD);          /* '/' in three */
	S("\xe0\x9f\xbf", FFFD FFFD FFFD);          /* U+07FF in three */
	S("\xf0\x80\x80\xaf", FFFD FFFD FFFD FFFD); /* '/' in four */
	S("\xf0\x8f\xbf\xbf", FFFD FFFD FFFD FFFD); /* U+FFFF in four */
}

static void test_surrogates(void **state)
{
	S("\xed\xa0\x80", FFFD FFFD FFFD);                            /* U+D800 */
	S("\xed\xbf\xbf", FFFD FFFD FFFD);                            /* U+DFFF */
	S("\xed\xa0\xbd\xed\xb8\x80", FFFD FFFD FFFD FFFD FFFD FFFD); /* a CESU-8 pair */
}

static void test_past_max(void **state)
{
	S("\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD); /* U+110000 */
}

static void test_truncated(void **state)
{
	S("\xc3", FFFD);
	S("\xe2\x82", FFFD FFFD);
	S("\xf0\x9f\x98", FFFD FFFD FFFD);
	S("ab\xe2", "ab" FFFD);
	/* Cut short by an ASCII byte: the ASCII byte is kept, never swallowed. */
	S("\xe2\x82\"x", FFFD FFFD "\"x");
	S("\xc3\\", FFFD "\\");
	S("\xf0\x9f\x98\n", FFFD FFFD FFFD "\n");
}

static void test_embedded_nul(void **state)
{
	/* json-c escapes a NUL in a string (\u0000): the bytes after it are still checked. */
	static const char in[] = "a\0\xff";
	static const char want[] = "a\0" FFFD;
	size_t len = 0;
	char *out = cr_utf8_sanitize(in, sizeof(in) - 1, &len);

	assert_int_equal(len, sizeof(want) - 1);
	assert_memory_equal(out, want, sizeof(want));
	free(out);
}

/* @text parses as strict JSON with json-c's UTF-8 check, and is valid UTF-8 throughout. */
static json_object *parse_strict(const char *text)
{
	json_tokener *tok = json_tokener_new();
	json_object *o;
	size_t len = strlen(text);

	assert_non_null(tok);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, text, (int)len);
	assert_int_equal(json_tokener_get_error(tok), json_tokener_success);
	json_tokener_free(tok);
	for (size_t i = 0; i < len;) {
		size_t n = cr_utf8_seq((const unsigned char *)text + i, len - i);

		assert_int_not_equal(n, 0);
		i += n;
	}
	return o;
}

static void test_json_text(void **state)
{
	static const char path[] = "/tmp/ws-\xff\n\"q\"\x01\x1f\x7f\\-\xc3\xa9-\xed\xa0\x80";
	json_object *o = json_object_new_object(), *back;
	char *text;

	json_object_object_add(o, "workspace", json_object_new_string(path));
	json_object_object_add(o, "key-\xfe", json_object_new_string("v"));
	json_object_object_add(o, "n", json_object_new_int(7));
	text = cr_json_text(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	assert_non_null(text);
	/* One line, even with a newline in a string. */
	assert_null(strchr(text, '\n'));
	back = parse_strict(text);
	assert_string_equal(json_object_get_string(json_object_object_get(back, "workspace")),
			    "/tmp/ws-" FFFD "\n\"q\"\x01\x1f\x7f\\-\xc3\xa9-" FFFD FFFD FFFD);
	assert_string_equal(json_object_get_string(json_object_object_get(back, "key-" FFFD)), "v");
	assert_int_equal(json_object_get_int(json_object_object_get(back, "n")), 7);
	json_object_put(back);
	free(text);
	json_object_put(o);
}

static void test_json_text_valid_unchanged(void **state)
{
	json_object *o = json_object_new_array();
	char *text;

	json_object_array_add(o, json_object_new_string("caf\xc3\xa9 \xf0\x9f\x98\x80"));
	json_object_array_add(o, NULL);
	text = cr_json_text(o, JSON_C_TO_STRING_PLAIN);
	assert_string_equal(text, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	free(text);
	json_object_put(o);
	text = cr_json_text(NULL, JSON_C_TO_STRING_PLAIN);
	assert_string_equal(text, "null");
	free(text);
}

/* The checked adds: a NULL value is a failed allocation (an error, never a JSON null), a NULL
 * object an earlier one; a chain stops at the first failure and the document is dropped whole. */
static void test_json_add(void **state)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array(), *v;
	char *text;
	int r;

	(void)state;
	assert_int_equal(cr_json_add(o, "n", json_object_new_int(1)), 0);
	assert_int_equal(cr_json_add(o, "missing", NULL), -ENOMEM);
	assert_false(json_object_object_get_ex(o, "missing", NULL));
	assert_int_equal(cr_json_add(NULL, "k", json_object_new_string("freed")), -ENOMEM);
	assert_int_equal(cr_json_add_null(o, "z"), 0);
	assert_int_equal(cr_json_add_str(o, "s", "x"), 0);
	assert_int_equal(cr_json_add_str(o, "t", NULL), 0);
	assert_int_equal(cr_json_add_null(NULL, "z"), -ENOMEM);
	assert_int_equal(cr_json_append(a, json_object_new_int(2)), 0);
	assert_int_equal(cr_json_append(a, NULL), -ENOMEM);
	assert_int_equal(cr_json_append(NULL, json_object_new_int(3)), -ENOMEM);
	assert_int_equal(json_object_array_length(a), 1);
	assert_int_equal(cr_json_add(o, "a", a), 0);
	text = cr_json_text(o, JSON_C_TO_STRING_PLAIN);
	assert_string_equal(text, "{\"n\":1,\"z\":null,\"s\":\"x\",\"t\":null,\"a\":[2]}");
	free(text);

	r = cr_json_add(o, "b", json_object_new_boolean(1));
	r = r ?: cr_json_add(o, "lost", NULL);
	r = r ?: cr_json_add(o, "after", json_object_new_int(4));
	assert_int_equal(r, -ENOMEM);
	assert_false(json_object_object_get_ex(o, "after", &v));
	assert_null(cr_json_whole(o, r)); /* frees @o */
	o = json_object_new_object();
	assert_ptr_equal(cr_json_whole(o, 0), o);
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_kept),
		cmocka_unit_test(test_lone_continuation),
		cmocka_unit_test(test_bad_lead_bytes),
		cmocka_unit_test(test_overlong),
		cmocka_unit_test(test_surrogates),
		cmocka_unit_test(test_past_max),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_embedded_nul),
		cmocka_unit_test(test_json_text),
		cmocka_unit_test(test_json_text_valid_unchanged),
		cmocka_unit_test(test_json_add),
	};

	return cmocka_run_group_tests_name("json-text", tests, NULL, NULL);
}
