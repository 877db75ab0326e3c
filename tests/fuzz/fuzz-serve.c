/* SPDX-License-Identifier: MIT */
/* launcher/serve/serve-proto.c: one line of `corral serve`'s JSON protocol.
 * Invariants: a line is accepted (0) or refused (-EINVAL with an error code and a message that
 * cr_serve_error_json() turns into a response), nothing else; an accepted message, written back
 * as JSON and parsed again, is accepted with the same request (type, strings, argv, env, stdin
 * bytes, numbers, capability), and writing it again gives the same text; a capability request
 * survives cr_capability_to_json() / cr_capability_from_json(); base64 decodes what it encodes,
 * and whatever it decodes re-encodes to text that decodes to the same bytes. */
#include <errno.h>
#include <json-c/json.h>

#include "fuzz-util.h"
#include "launcher/serve/serve-internal.h"
#include "launcher/base/macro.h"

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool strv_eq(char *const *a, char *const *b)
{
	return (!a && !b) || (a && b && fuzz_strv_equal(a, b));
}

static char *caps_text(const struct cr_capability *c)
{
	json_object *o = cr_capability_to_json(c, true);
	char *s;

	if (!o)
		abort();
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	if (!s)
		abort();
	return s;
}

static void check_caps(const struct cr_capability *c)
{
	_cleanup_free_ char *a = caps_text(c), *b = NULL;
	struct cr_capability back = {};
	json_object *o = json_tokener_parse(a);
	char msg[384];

	FUZZ_CHECK(o, "capability JSON does not parse: %s", a);
	FUZZ_CHECK(cr_capability_from_json(o, &back, msg, sizeof(msg)) == 0, "%s: %s", a, msg);
	b = caps_text(&back);
	FUZZ_CHECK(strcmp(a, b) == 0, "capability %s came back as %s", a, b);
	cr_capability_done(&back);
	json_object_put(o);
}

static void check_same(const struct cr_serve_request *a, const struct cr_serve_request *b)
{
	FUZZ_CHECK(a->type == b->type, "type %d then %d", a->type, b->type);
	FUZZ_CHECK(str_eq(a->session, b->session) && str_eq(a->profile, b->profile) &&
			   str_eq(a->workspace, b->workspace) && str_eq(a->shell, b->shell) &&
			   str_eq(a->cwd, b->cwd) && str_eq(a->request_id, b->request_id),
		   "a string field changed");
	FUZZ_CHECK(strv_eq(a->argv, b->argv) && strv_eq(a->env, b->env), "argv or env changed");
	FUZZ_CHECK(
		a->stdin_len == b->stdin_len && (!a->stdin_data) == (!b->stdin_data) &&
			(!a->stdin_data || memcmp(a->stdin_data, b->stdin_data, a->stdin_len) == 0),
		"stdin changed");
	FUZZ_CHECK(a->timeout_ms == b->timeout_ms && a->max_output == b->max_output &&
			   a->scope == b->scope && a->has_caps == b->has_caps,
		   "a number changed");
	if (a->has_caps) {
		_cleanup_free_ char *ca = caps_text(&a->caps), *cb = caps_text(&b->caps);

		FUZZ_CHECK(strcmp(ca, cb) == 0, "capability %s then %s", ca, cb);
	}
}

static void check_base64(const char *data, size_t len)
{
	_cleanup_free_ char *enc = cr_serve_base64_encode(data, len), *dec = NULL;
	size_t n = 0;

	FUZZ_CHECK(enc, "encode failed");
	FUZZ_CHECK(strlen(enc) == (len + 2) / 3 * 4, "encoded length");
	FUZZ_CHECK(cr_serve_base64_decode(enc, strlen(enc), &dec, &n) == 0,
		   "decode(encode) failed");
	FUZZ_CHECK(n == len && memcmp(dec, data, len) == 0, "decode(encode(x)) != x");
}

static void check_accepted(const struct cr_serve_request *req)
{
	_cleanup_free_ char *s1 = NULL;
	struct cr_serve_request again = {};
	struct cr_serve_error err = {};
	const char *s2;
	int r;

	FUZZ_CHECK(req->type >= 0 && req->type < _CR_SERVE_TYPE_MAX, "type %d", req->type);
	FUZZ_CHECK(req->type != CR_SERVE_EXEC || (!req->argv) != (!req->shell), "argv and shell");
	s1 = strdup(json_object_to_json_string_ext(req->root, JSON_C_TO_STRING_PLAIN));
	if (!s1)
		abort();
	r = cr_serve_parse(s1, strlen(s1), &again, &err);
	FUZZ_CHECK(r == 0, "written back as %s, refused: %s", s1, err.message);
	check_same(req, &again);
	s2 = json_object_to_json_string_ext(again.root, JSON_C_TO_STRING_PLAIN);
	FUZZ_CHECK(strcmp(s1, s2) == 0, "%s then %s", s1, s2);
	if (req->stdin_data)
		check_base64(req->stdin_data, req->stdin_len);
	if (req->has_caps)
		check_caps(&req->caps);
	cr_serve_request_done(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cr_serve_request req = {};
	struct cr_serve_error err = {};
	_cleanup_free_ char *dec = NULL, *dec2 = NULL, *enc = NULL;
	size_t n = 0, n2 = 0;
	int r;

	if (size > 65536)
		return 0;
	r = cr_serve_parse((const char *)data, size, &req, &err);
	FUZZ_CHECK(r == 0 || r == -EINVAL, "cr_serve_parse: %d", r);
	if (r == 0) {
		check_accepted(&req);
		cr_serve_request_done(&req);
	} else {
		json_object *o = cr_serve_error_json(err.id, err.code, err.message);

		FUZZ_CHECK(err.code && err.message[0], "refused without a code or a message");
		FUZZ_CHECK(o, "no error response");
		json_object_put(o);
		cr_serve_error_done(&err);
	}

	/* The same bytes as base64 text. */
	if (cr_serve_base64_decode((const char *)data, size, &dec, &n) == 0) {
		enc = cr_serve_base64_encode(dec, n);
		FUZZ_CHECK(enc && cr_serve_base64_decode(enc, strlen(enc), &dec2, &n2) == 0 &&
				   n2 == n && memcmp(dec, dec2, n) == 0,
			   "decode(encode(decode(x))) != decode(x)");
	}
	return 0;
}
