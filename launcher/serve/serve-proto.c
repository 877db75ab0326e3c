/* SPDX-License-Identifier: MIT */
/* `corral serve`'s messages: one JSON object per line, checked strictly before anything acts
 * on it (UTF-8, JSON, the type, every field and its type; an unknown field is an error). Pure:
 * no system call, so the unit tests drive it with any bytes. The protocol is docs/protocol.md. */
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/policy/request.h"
#include "launcher/base/json-text.h"
#include "launcher/base/json-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"
#include "serve-internal.h"
#include "launcher/session/session-internal.h"

/* How deeply a request line may nest: the protocol's objects are a few levels deep; 32 is
 * json-c's own default, spelled out so a hostile line cannot make the parser go deeper. */
#define MAX_DEPTH 32

static const char *const type_names[_CR_SERVE_TYPE_MAX] = {
	[CR_SERVE_OPEN_SESSION] = "open_session",
	[CR_SERVE_EXEC] = "exec",
	[CR_SERVE_APPROVE] = "approve",
	[CR_SERVE_DENY] = "deny",
	[CR_SERVE_CLOSE_SESSION] = "close_session",
	[CR_SERVE_STATS] = "stats",
};

/* The fields each type takes, besides "type" and "id". */
static const char *const type_fields[_CR_SERVE_TYPE_MAX][12] = {
	[CR_SERVE_OPEN_SESSION] = {"session", "profile", "workspace"},
	[CR_SERVE_EXEC] = {"session", "argv", "shell", "cwd", "env", "stdin", "stdin_base64",
			   "timeout_ms", "max_output_bytes", "request"},
	[CR_SERVE_APPROVE] = {"request_id", "scope"},
	[CR_SERVE_DENY] = {"request_id"},
	[CR_SERVE_CLOSE_SESSION] = {"session"},
	[CR_SERVE_STATS] = {NULL},
};

static const char *const scope_names[_CR_SERVE_SCOPE_MAX] = {
	[CR_SERVE_SCOPE_ONCE] = "once",
	[CR_SERVE_SCOPE_SESSION] = "session",
	[CR_SERVE_SCOPE_PERMANENT] = "permanent",
};

const char *cr_serve_scope_to_string(enum cr_serve_scope s)
{
	return s >= 0 && s < _CR_SERVE_SCOPE_MAX ? scope_names[s] : NULL;
}

bool cr_serve_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0, n; i < len; i += n) {
		n = cr_utf8_seq(p + i, len - i);
		if (n == 0)
			return false;
	}
	return true;
}

static int fail(struct cr_serve_error *err, const char *code, const char *fmt, ...) _printf_(3, 4);
static int fail(struct cr_serve_error *err, const char *code, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	va_start(ap, fmt);
	(void)vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_json(const char *line, size_t len, json_object **ret, struct cr_serve_error *err)
{
	json_tokener *tok = json_tokener_new_ex(MAX_DEPTH);
	enum json_tokener_error jerr;
	json_object *o;
	size_t end;

	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, line, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!o && jerr == json_tokener_continue)
		return fail(err, "bad_json", "the message ends before its JSON value does");
	if (!o)
		return fail(err, "bad_json", "not JSON: %s at byte %zu",
			    json_tokener_error_desc(jerr), end);
	while (end < len && strchr(" \t\r", line[end]))
		end++;
	if (end < len) {
		json_object_put(o);
		return fail(err, "bad_json", "text after the JSON value at byte %zu", end);
	}
	*ret = o;
	return 0;
}

/* A string field without NUL bytes, or NULL when absent. */
static int get_string(json_object *root, const char *key, bool required, const char **ret,
		      struct cr_serve_error *err)
{
	json_object *v;

	*ret = NULL;
	if (!json_object_object_get_ex(root, key, &v)) {
		if (required)
			return fail(err, "bad_field", "\"%s\" is missing", key);
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return fail(err, "bad_field", "\"%s\" must be a string", key);
	if (strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v))
		return fail(err, "bad_field", "\"%s\" contains a NUL character", key);
	*ret = json_object_get_string(v);
	return 0;
}

static int get_uint(json_object *root, const char *key, uint64_t min, uint64_t max, bool *ret_set,
		    uint64_t *ret, struct cr_serve_error *err)
{
	json_object *v;
	int64_t n;

	*ret_set = false;
	if (!json_object_object_get_ex(root, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_int))
		return fail(err, "bad_field", "\"%s\" must be a whole number", key);
	n = json_object_get_int64(v);
	if (n < 0 || (uint64_t)n < min || (uint64_t)n > max)
		return fail(err, "bad_field", "\"%s\" must be between %llu and %llu", key,
			    (unsigned long long)min, (unsigned long long)max);
	*ret = (uint64_t)n;
	*ret_set = true;
	return 0;
}

static int check_session_id(const char *id, const char *key, struct cr_serve_error *err)
{
	char msg[256];

	if (cr_session_id_check(id, msg, sizeof(msg)) < 0)
		return fail(err, "bad_field", "\"%s\": %s", key, msg);
	return 0;
}

static int check_absolute(const char *path, const char *key, struct cr_serve_error *err)
{
	if (path && path[0] != '/')
		return fail(err, "bad_field", "\"%s\" must be an absolute path", key);
	return 0;
}

static int parse_open(struct cr_serve_request *r, struct cr_serve_error *err)
{
	int k;

	k = get_string(r->root, "session", false, &r->session, err);
	if (k >= 0 && !r->session) { /* shorthand: a string "id" names the session */
		if (!r->id || !json_object_is_type(r->id, json_type_string))
			return fail(err, "bad_field", "\"session\" is missing");
		k = get_string(r->root, "id", true, &r->session, err);
	}
	if (k >= 0)
		k = check_session_id(r->session, "session", err);
	if (k >= 0)
		k = get_string(r->root, "profile", false, &r->profile, err);
	if (k >= 0 && r->profile && !r->profile[0])
		k = fail(err, "bad_field", "\"profile\" is empty");
	if (k >= 0)
		k = get_string(r->root, "workspace", false, &r->workspace, err);
	if (k >= 0)
		k = check_absolute(r->workspace, "workspace", err);
	return k;
}

static int parse_argv(json_object *a, char ***ret, struct cr_serve_error *err)
{
	_cleanup_strv_ char **v = NULL;
	size_t n;

	if (!json_object_is_type(a, json_type_array))
		return fail(err, "bad_field", "\"argv\" must be an array of strings");
	n = json_object_array_length(a);
	if (n == 0 || n > CR_SERVE_MAX_ARGV)
		return fail(err, "bad_field", "\"argv\" must hold 1 to %d strings",
			    CR_SERVE_MAX_ARGV);
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(a, i);

		if (!json_object_is_type(s, json_type_string))
			return fail(err, "bad_field", "\"argv\"[%zu] must be a string", i);
		if (strlen(json_object_get_string(s)) != (size_t)json_object_get_string_len(s))
			return fail(err, "bad_field", "\"argv\"[%zu] contains a NUL character", i);
		v[i] = strdup(json_object_get_string(s));
		if (!v[i])
			return -ENOMEM;
	}
	if (!v[0][0])
		return fail(err, "bad_field", "\"argv\"[0] is empty");
	*ret = TAKE_PTR(v);
	return 0;
}

static bool env_name_valid(const char *k)
{
	if (!*k || strchr(k, '='))
		return false;
	for (; *k; k++)
		if ((unsigned char)*k < 0x20 || *k == 0x7f)
			return false;
	return true;
}

static int parse_env(json_object *o, char ***ret, struct cr_serve_error *err)
{
	_cleanup_strv_ char **v = NULL;
	size_t n = 0;

	if (!json_object_is_type(o, json_type_object))
		return fail(err, "bad_field", "\"env\" must be an object of strings");
	if (json_object_object_length(o) > CR_SERVE_MAX_ENV)
		return fail(err, "bad_field", "\"env\" has more than %d entries", CR_SERVE_MAX_ENV);
	v = calloc((size_t)json_object_object_length(o) + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	json_object_object_foreach(o, key, val)
	{
		if (!env_name_valid(key))
			return fail(err, "bad_field", "\"env\": '%s' is not a variable name", key);
		if (!json_object_is_type(val, json_type_string) ||
		    strlen(json_object_get_string(val)) != (size_t)json_object_get_string_len(val))
			return fail(err, "bad_field", "\"env\".%s must be a string without NUL",
				    key);
		if (asprintf(&v[n], "%s=%s", key, json_object_get_string(val)) < 0) {
			v[n] = NULL;
			return -ENOMEM;
		}
		n++;
	}
	*ret = TAKE_PTR(v);
	return 0;
}

static int parse_stdin(struct cr_serve_request *r, struct cr_serve_error *err)
{
	json_object *plain = NULL, *b64 = NULL;
	const char *s;
	int k;

	(void)json_object_object_get_ex(r->root, "stdin", &plain);
	(void)json_object_object_get_ex(r->root, "stdin_base64", &b64);
	if (plain && b64)
		return fail(err, "bad_field", "give \"stdin\" or \"stdin_base64\", not both");
	if (plain) {
		if (!json_object_is_type(plain, json_type_string))
			return fail(err, "bad_field", "\"stdin\" must be a string");
		r->stdin_len = (size_t)json_object_get_string_len(plain);
		r->stdin_data = malloc(r->stdin_len + 1);
		if (!r->stdin_data)
			return -ENOMEM;
		memcpy(r->stdin_data, json_object_get_string(plain), r->stdin_len + 1);
		return 0;
	}
	k = get_string(r->root, "stdin_base64", false, &s, err);
	if (k < 0 || !s)
		return k;
	k = cr_serve_base64_decode(s, strlen(s), &r->stdin_data, &r->stdin_len);
	if (k == -EINVAL)
		return fail(err, "bad_field", "\"stdin_base64\" is not base64");
	return k;
}

static int parse_command(struct cr_serve_request *r, struct cr_serve_error *err)
{
	json_object *a = NULL;
	int k;

	k = get_string(r->root, "shell", false, &r->shell, err);
	if (k < 0)
		return k;
	if (json_object_object_get_ex(r->root, "argv", &a) == (r->shell != NULL))
		return fail(err, "bad_field", "give \"argv\" or \"shell\" (exactly one)");
	if (r->shell && !r->shell[0])
		return fail(err, "bad_field", "\"shell\" is empty");
	return a ? parse_argv(a, &r->argv, err) : 0;
}

static int parse_caps(struct cr_serve_request *r, struct cr_serve_error *err)
{
	json_object *c;
	char msg[384];
	int k;

	if (!json_object_object_get_ex(r->root, "request", &c))
		return 0;
	if (!json_object_is_type(c, json_type_object))
		return fail(err, "bad_field", "\"request\" must be a capability object");
	k = cr_capability_from_json(c, &r->caps, msg, sizeof(msg));
	if (k == -EINVAL)
		return fail(err, "bad_field", "\"request\": %s", msg);
	r->has_caps = k >= 0;
	return k;
}

static int parse_exec(struct cr_serve_request *r, struct cr_serve_error *err)
{
	json_object *e;
	bool set;
	int k;

	k = get_string(r->root, "session", true, &r->session, err);
	if (k >= 0)
		k = check_session_id(r->session, "session", err);
	if (k >= 0)
		k = parse_command(r, err);
	if (k >= 0)
		k = get_string(r->root, "cwd", false, &r->cwd, err);
	if (k >= 0)
		k = check_absolute(r->cwd, "cwd", err);
	if (k >= 0 && json_object_object_get_ex(r->root, "env", &e))
		k = parse_env(e, &r->env, err);
	if (k >= 0)
		k = parse_stdin(r, err);
	if (k >= 0)
		k = get_uint(r->root, "timeout_ms", 1, CR_MAX_WAIT_MS, &set, &r->timeout_ms, err);
	r->max_output = CR_SERVE_DEFAULT_OUTPUT;
	if (k >= 0)
		k = get_uint(r->root, "max_output_bytes", 0, CR_SERVE_MAX_OUTPUT, &set,
			     &r->max_output, err);
	if (k >= 0)
		k = parse_caps(r, err);
	return k;
}

static int parse_answer(struct cr_serve_request *r, struct cr_serve_error *err)
{
	const char *scope;
	int k;

	k = get_string(r->root, "request_id", true, &r->request_id, err);
	if (k < 0 || r->type == CR_SERVE_DENY)
		return k;
	k = get_string(r->root, "scope", true, &scope, err);
	if (k < 0)
		return k;
	for (int s = 0; s < _CR_SERVE_SCOPE_MAX; s++)
		if (strcmp(scope, scope_names[s]) == 0) {
			r->scope = s;
			return 0;
		}
	return fail(err, "bad_field", "\"scope\" must be \"once\", \"session\" or \"permanent\"");
}

/* "type" and "id", then no field the type does not take. */
static int parse_header(struct cr_serve_request *r, struct cr_serve_error *err)
{
	const char *type;
	json_object *id;
	int k;

	if (json_object_object_get_ex(r->root, "id", &id)) {
		if (!json_object_is_type(id, json_type_string) &&
		    !json_object_is_type(id, json_type_int) &&
		    !json_object_is_type(id, json_type_double))
			return fail(err, "bad_field", "\"id\" must be a string or a number");
		r->id = id;
		err->id = json_object_get(id);
	}
	k = get_string(r->root, "type", true, &type, err);
	if (k < 0)
		return k;
	r->type = _CR_SERVE_TYPE_INVALID;
	for (int t = 0; t < _CR_SERVE_TYPE_MAX; t++)
		if (strcmp(type, type_names[t]) == 0)
			r->type = t;
	if (r->type < 0)
		return fail(err, "unknown_type", "unknown message type \"%.64s\"", type);
	json_object_object_foreach(r->root, key, val)
	{
		bool known = strcmp(key, "type") == 0 || strcmp(key, "id") == 0;

		(void)val;
		for (size_t i = 0; !known && type_fields[r->type][i]; i++)
			known = strcmp(key, type_fields[r->type][i]) == 0;
		if (!known)
			return fail(err, "bad_field", "%s takes no field \"%.64s\"", type, key);
	}
	return 0;
}

int cr_serve_parse(const char *line, size_t len, struct cr_serve_request *ret,
		   struct cr_serve_error *err)
{
	struct cr_serve_request r = {};
	int k;

	*err = (struct cr_serve_error){};
	if (!cr_serve_utf8_valid(line, len))
		return fail(err, "bad_utf8", "the message is not valid UTF-8");
	k = parse_json(line, len, &r.root, err);
	if (k < 0)
		return k;
	if (!json_object_is_type(r.root, json_type_object)) {
		json_object_put(r.root);
		return fail(err, "bad_json", "a message must be a JSON object");
	}
	k = parse_header(&r, err);
	if (k >= 0 && r.type == CR_SERVE_OPEN_SESSION)
		k = parse_open(&r, err);
	else if (k >= 0 && r.type == CR_SERVE_EXEC)
		k = parse_exec(&r, err);
	else if (k >= 0 && (r.type == CR_SERVE_APPROVE || r.type == CR_SERVE_DENY))
		k = parse_answer(&r, err);
	else if (k >= 0 && r.type == CR_SERVE_CLOSE_SESSION) {
		k = get_string(r.root, "session", true, &r.session, err);
		if (k >= 0)
			k = check_session_id(r.session, "session", err);
	}
	if (k < 0) {
		if (k == -ENOMEM)
			(void)fail(err, "internal", "out of memory");
		cr_serve_request_done(&r);
		return k;
	}
	cr_serve_error_done(err); /* the id was kept for an error there was none of */
	*ret = r;
	return 0;
}

void cr_serve_request_done(struct cr_serve_request *r)
{
	strv_freep(&r->argv);
	strv_freep(&r->env);
	free(r->stdin_data);
	cr_capability_done(&r->caps);
	json_object_put(r->root);
	*r = (struct cr_serve_request){};
}

void cr_serve_error_done(struct cr_serve_error *e)
{
	json_object_put(e->id);
	e->id = NULL;
}

json_object *cr_serve_response(const char *type, json_object *id)
{
	json_object *o = json_object_new_object();
	int r;

	r = cr_json_add(o, "type", json_object_new_string(type));
	/* a request without an id (or with "id": null) is answered with "id": null */
	r = r ?: id ? cr_json_add(o, "id", json_object_get(id)) : cr_json_add_null(o, "id");
	return cr_json_whole(o, r);
}

json_object *cr_serve_error_json(json_object *id, const char *code, const char *message)
{
	json_object *o = cr_serve_response("error", id);
	int r;

	r = cr_json_add(o, "error", json_object_new_string(code));
	r = r ?: cr_json_add(o, "message", json_object_new_string(message));
	return cr_json_whole(o, r);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *cr_serve_base64_encode(const void *data, size_t len)
{
	const unsigned char *s = data;
	char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)s[i] << 16;

		if (i + 1 < len)
			v |= (uint32_t)s[i + 1] << 8;
		if (i + 2 < len)
			v |= s[i + 2];
		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < len ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < len ? b64[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

static int b64_value(char c)
{
	const char *p = c ? strchr(b64, c) : NULL;

	return p ? (int)(p - b64) : -1;
}

int cr_serve_base64_decode(const char *s, size_t len, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *out = NULL;
	size_t n = 0;

	if (len % 4 != 0)
		return -EINVAL;
	out = malloc(len / 4 * 3 + 1);
	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < len; i += 4) {
		int v[4], pad = 0;

		for (int j = 0; j < 4; j++) {
			v[j] = b64_value(s[i + j]);
			if (s[i + j] == '=' && i + 4 == len && j >= 2 &&
			    (j == 3 || s[i + 3] == '='))
				v[j] = 0, pad++;
			else if (v[j] < 0)
				return -EINVAL;
		}
		out[n++] = (char)(v[0] << 2 | v[1] >> 4);
		if (pad < 2)
			out[n++] = (char)((v[1] & 15) << 4 | v[2] >> 2);
		if (pad < 1)
			out[n++] = (char)((v[2] & 3) << 6 | v[3]);
	}
	out[n] = '\0';
	*ret = TAKE_PTR(out);
	*ret_len = n;
	return 0;
}

const char *cr_serve_policy_shows(const struct cr_policy *p, const char *const *system_paths,
				  const char *path)
{
	const char *shown = NULL;
	bool matched = false;
	unsigned depth = 0;

	/* The deepest rule that holds @path decides, as the binds are made parent-first. */
	if (p->workspace && cr_path_is_within(path, p->workspace)) {
		shown = p->workspace;
		depth = cr_path_depth(p->workspace);
		matched = true;
	}
	for (size_t i = 0; i < p->n_paths; i++) {
		const struct cr_path_rule *r = &p->paths[i];
		unsigned d = cr_path_depth(r->path);

		if (cr_path_is_within(path, r->path) && (!matched || d >= depth)) {
			shown = r->access == CR_PATH_HIDE ? NULL : r->path;
			depth = d;
			matched = true;
		}
	}
	for (size_t i = 0; !matched && system_paths && system_paths[i]; i++)
		if (cr_path_is_within(path, system_paths[i]))
			return system_paths[i];
	return shown;
}
