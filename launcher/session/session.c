/* SPDX-License-Identifier: MIT */
/* Sessions (see session.h): the state directory, the store of sessions under it, a session's
 * metadata and its grants. Every descriptor of the store is opened relative to the store's own
 * descriptor, with O_NOFOLLOW, and checked (type, owner, mode) before it is used. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sha2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/base/fd-util.h"
#include "launcher/base/hex.h"
#include "launcher/policy/env.h"
#include "launcher/base/json-text.h"
#include "launcher/base/json-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "session.h"
#include "session-internal.h"

int cr_session_store_open(const char *state_dir, bool create, char **ret_path, char *msg,
			  size_t size)
{
	_cleanup_free_ char *path = NULL, *canon = NULL;
	_cleanup_close_ int fd = -EBADF;
	size_t len = strlen(state_dir), strict_from = 0;
	int r;

	while (len > 1 && state_dir[len - 1] == '/')
		len--;
	/* Strict from the state directory's own last component on: it is corral's. */
	for (size_t i = 0; i < len; i++)
		if (state_dir[i] == '/' && i + 1 < len)
			strict_from = i;
	if (asprintf(&path, "%.*s/sessions", (int)len, state_dir) < 0)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	fd = cr_state_open_dir(path, strict_from, create, msg, size);
	if (fd < 0)
		return fd;
	r = cr_fd_path(fd, &canon);
	if (r < 0)
		return cr_msg(msg, size, r, "cannot resolve %s: %s", path, strerror(-r));
	*ret_path = TAKE_PTR(canon);
	return TAKE_FD(fd);
}

void cr_session_hash(const char *id, char ret[33])
{
	uint8_t digest[SHA256_DIGEST_LENGTH];
	SHA2_CTX ctx;

	SHA256Init(&ctx);
	SHA256Update(&ctx, (const uint8_t *)id, strlen(id));
	SHA256Final(digest, &ctx);
	cr_hex(digest, 16, ret);
}

bool cr_session_hash_valid(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n == 32 && s[n] == '\0';
}

/* Well-formed UTF-8: no overlong forms, surrogates or code points above U+10FFFF. */
static bool utf8_valid(const unsigned char *s)
{
	while (*s) {
		unsigned n, c = *s;
		uint32_t cp, min;

		if (c < 0x80) {
			s++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f, min = 0x80;
		else if ((c & 0xf0) == 0xe0)
			n = 2, cp = c & 0x0f, min = 0x800;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07, min = 0x10000;
		else
			return false;
		for (unsigned i = 1; i <= n; i++) {
			if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
				return false;
			cp = cp << 6 | (s[i] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		s += n + 1;
	}
	return true;
}

int cr_session_id_check(const char *id, char *msg, size_t size)
{
	size_t len = id ? strnlen(id, CR_SESSION_ID_MAX + 1) : 0;

	if (len == 0)
		return cr_msg(msg, size, -EINVAL, "empty session id");
	if (len > CR_SESSION_ID_MAX)
		return cr_msg(msg, size, -EINVAL, "session id longer than %d bytes",
			      CR_SESSION_ID_MAX);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)id[i] < 0x20 || id[i] == 0x7f)
			return cr_msg(
				msg, size, -EINVAL,
				"session id has a control character (byte 0x%02x at offset %zu)",
				(unsigned)(unsigned char)id[i], i);
	if (!utf8_valid((const unsigned char *)id))
		return cr_msg(msg, size, -EINVAL, "session id is not valid UTF-8");
	return 0;
}

/* Read at most @max bytes of @fd; more is -EFBIG. NUL-terminated. */
static int read_all(int fd, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *p;

			if (cap > max)
				return -EFBIG;
			cap = cap ? cap * 2 : 4096;
			if (cap > max + 1)
				cap = max + 1;
			p = realloc(buf, cap + 1);
			if (!p)
				return -ENOMEM;
			buf = p;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return negative_errno();
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

/* Open @name (a file of the store) for reading and check it. -ENOENT (no message) if missing. */
static int open_file(int store_fd, const char *name, const char *label, char *msg, size_t size)
{
	_cleanup_close_ int fd = -EBADF;
	int r;

	fd = openat(store_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return -ENOENT;
	if (fd < 0)
		return cr_state_open_error(store_fd, name, label, negative_errno(), msg, size);
	r = cr_state_check_fd(fd, false, label, msg, size);
	if (r < 0)
		return r;
	return TAKE_FD(fd);
}

/* Parse exactly one JSON value from @text (trailing white space allowed). 0 or -EINVAL/-ENOMEM
 * with the reason in @m. */
static int parse_json(const char *text, size_t len, json_object **ret, char *m, size_t msize)
{
	json_tokener *tok = json_tokener_new();
	enum json_tokener_error jerr;
	json_object *o;
	size_t end;

	if (!tok)
		return cr_msg(m, msize, -ENOMEM, "out of memory");
	o = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!o)
		return cr_msg(m, msize, -EINVAL, "not JSON: %s",
			      jerr == json_tokener_continue ? "incomplete"
							    : json_tokener_error_desc(jerr));
	if (end > len || strspn(text + end, " \t\r\n") < len - end) {
		json_object_put(o);
		return cr_msg(m, msize, -EINVAL, "not JSON: characters after the value");
	}
	*ret = o;
	return 0;
}

static const char *get_string(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* The checks of cr_session_metadata_read(); the reason goes to @m. */
static int metadata_check(json_object *o, const char *hash, char *m, size_t msize)
{
	const char *id, *h, *profile;
	char actual[33], why[128];
	json_object *v;

	if (!json_object_is_type(o, json_type_object))
		return cr_msg(m, msize, -EINVAL, "not a JSON object");
	id = get_string(o, "id");
	if (!id)
		return cr_msg(m, msize, -EINVAL, "no \"id\" string");
	if (cr_session_id_check(id, why, sizeof(why)) < 0)
		return cr_msg(m, msize, -EINVAL, "\"id\": %s", why);
	cr_session_hash(id, actual);
	h = get_string(o, "hash");
	if (strcmp(actual, hash) != 0 || !h || strcmp(h, hash) != 0)
		return cr_msg(m, msize, -EINVAL, "\"id\" or \"hash\" does not match the file name");
	if (!get_string(o, "created"))
		return cr_msg(m, msize, -EINVAL, "no \"created\" string");
	if (json_object_object_get_ex(o, "profile", &v) && v) {
		profile = get_string(o, "profile");
		if (!profile || cr_session_id_check(profile, why, sizeof(why)) < 0)
			return cr_msg(m, msize, -EINVAL, "\"profile\" is not a printable string");
	}
	return 0;
}

int cr_session_metadata_read(int store_fd, const char *store, const char *hash, json_object **ret,
			     char *msg, size_t size)
{
	_cleanup_free_ char *label = NULL, *text = NULL;
	_cleanup_json_ json_object *o = NULL;
	_cleanup_close_ int fd = -EBADF;
	char m[256];
	size_t len;
	int r;

	if (asprintf(&label, "%s/%s.json", store, hash) < 0)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	fd = open_file(store_fd, label + strlen(store) + 1, label, msg, size);
	if (fd == -ENOENT)
		return cr_msg(msg, size, -ENOENT, "%s does not exist", label);
	if (fd < 0)
		return fd;
	r = read_all(fd, CR_SESSION_METADATA_MAX, &text, &len);
	if (r == -EFBIG)
		return cr_msg(msg, size, -EINVAL, "%s: larger than %d bytes", label,
			      CR_SESSION_METADATA_MAX);
	if (r < 0)
		return cr_msg(msg, size, r, "cannot read %s: %s", label, strerror(-r));
	r = parse_json(text, len, &o, m, sizeof(m));
	if (r >= 0)
		r = metadata_check(o, hash, m, sizeof(m));
	if (r < 0)
		return cr_msg(msg, size, r, "%s: %s", label, m);
	*ret = TAKE_PTR(o);
	return 0;
}

static json_object *metadata_new(const char *id, const char *hash, const char *profile)
{
	json_object *o = json_object_new_object();
	char now[32];
	int r;

	cr_audit_now(now);
	r = cr_json_add(o, "id", json_object_new_string(id));
	r = r ?: cr_json_add(o, "hash", json_object_new_string(hash));
	r = r ?: cr_json_add(o, "created", json_object_new_string(now));
	r = r ?: cr_json_add_str(o, "profile", profile);
	return cr_json_whole(o, r);
}

/* Write @text to a new file @tmp in @dfd and link it as @name: the file appears whole or not at
 * all, and an existing @name (a concurrent first use) is left as it is. */
static int write_new_file(int dfd, const char *tmp, const char *name, const char *text)
{
	_cleanup_close_ int fd = -EBADF;
	int r;

	(void)unlinkat(dfd, tmp, 0); /* left by a process of the same pid that died */
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return negative_errno();
	r = cr_write_all(fd, text, strlen(text));
	if (r == 0 && fsync(fd) < 0)
		r = negative_errno();
	if (r == 0 && linkat(dfd, tmp, dfd, name, 0) < 0 && errno != EEXIST)
		r = negative_errno();
	(void)unlinkat(dfd, tmp, 0);
	return r;
}

static int metadata_write(int store_fd, const char *store, const char *hash, const char *id,
			  const char *profile, char *msg, size_t size)
{
	static unsigned counter;
	_cleanup_json_ json_object *o = metadata_new(id, hash, profile);
	_cleanup_free_ char *json = NULL, *text = NULL;
	char name[48], tmp[96];
	int r;

	if (o)
		json = cr_json_text(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!json || asprintf(&text, "%s\n", json) < 0)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	(void)snprintf(name, sizeof(name), "%s.json", hash);
	(void)snprintf(tmp, sizeof(tmp), ".%s.%d.%u.tmp", name, (int)getpid(),
		       __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
	r = write_new_file(store_fd, tmp, name, text);
	if (r < 0)
		return cr_msg(msg, size, r, "cannot write %s/%s: %s", store, name, strerror(-r));
	return 0;
}

/* Open (creating it with @create; *@ret_created says whether this call made it) and check the
 * workspace directory sessions/<hash>. */
static int workspace_check(int store_fd, const char *store, const char *hash, bool create,
			   bool *ret_created, char *msg, size_t size)
{
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ char *label = NULL;

	if (asprintf(&label, "%s/%s", store, hash) < 0)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	if (create && mkdirat(store_fd, hash, 0700) == 0)
		*ret_created = true;
	else if (create && errno != EEXIST)
		return cr_msg(msg, size, negative_errno(), "cannot create %s: %s", label,
			      strerror(errno));
	fd = openat(store_fd, hash, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return cr_state_open_error(store_fd, hash, label, negative_errno(), msg, size);
	if (geteuid() == 0) {
		/* Root's sandboxes run as another uid (65534 or --uid), which must own the workspace
		 * to write it: corral hands it over after creating it (run.c). Only root can reach
		 * root's store, so the owner is not checked; the mode still is. */
		struct stat st;

		if (fstat(fd, &st) < 0)
			return cr_msg(msg, size, negative_errno(), "cannot stat %s: %m", label);
		if (st.st_mode & (S_IWGRP | S_IWOTH))
			return cr_msg(msg, size, -EPERM,
				      "%s is writable by group or others (mode %04o); fix: chmod go-w %s",
				      label, (unsigned)(st.st_mode & 07777), label);
		return 0;
	}
	return cr_state_check_fd(fd, true, label, msg, size);
}

static int no_session(const char *id, char *msg, size_t size)
{
	return cr_msg(msg, size, -ENOENT, "no session '%s'", id);
}

static int session_fill(struct cr_session *ret, const char *id, const char *hash, char **store,
			json_object *meta)
{
	const char *profile = get_string(meta, "profile");
	struct cr_session s = {
		.id = strdup(id),
		.created = strdup(get_string(meta, "created")),
		.profile = profile ? strdup(profile) : NULL,
	};

	memcpy(s.hash, hash, sizeof(s.hash));
	if (asprintf(&s.workspace, "%s/%s", *store, hash) < 0)
		s.workspace = NULL;
	s.store = TAKE_PTR(*store);
	if (!s.id || !s.created || (profile && !s.profile) || !s.workspace) {
		cr_session_done(&s);
		return -ENOMEM;
	}
	*ret = s;
	return 0;
}

int cr_session_open(const char *state_dir, const char *id, const char *profile, bool create,
		    struct cr_session *ret, char *msg, size_t size)
{
	_cleanup_json_ json_object *meta = NULL;
	_cleanup_close_ int store_fd = -EBADF;
	_cleanup_free_ char *store = NULL;
	bool created = false;
	char hash[33];
	int r;

	r = cr_session_id_check(id, msg, size);
	if (r < 0)
		return r;
	cr_session_hash(id, hash);
	store_fd = cr_session_store_open(state_dir, create, &store, msg, size);
	if (store_fd == -ENOENT && !create)
		return no_session(id, msg, size);
	if (store_fd < 0)
		return store_fd;
	/* The workspace first: metadata is what makes a session exist (list, show, rm). */
	if (create) {
		r = workspace_check(store_fd, store, hash, true, &created, msg, size);
		if (r < 0)
			return r;
	}
	r = cr_session_metadata_read(store_fd, store, hash, &meta, msg, size);
	if (r == -ENOENT && !create)
		return no_session(id, msg, size);
	if (r == -ENOENT) {
		r = metadata_write(store_fd, store, hash, id, profile, msg, size);
		if (r < 0) {
			/* No session without its record: take back the (still empty) workspace this
			 * call made, so that a full disk leaves nothing behind. */
			if (created)
				(void)unlinkat(store_fd, hash, AT_REMOVEDIR);
			return r;
		}
		r = cr_session_metadata_read(store_fd, store, hash, &meta, msg, size);
	}
	if (r < 0)
		return r;
	if (!create) {
		r = workspace_check(store_fd, store, hash, false, NULL, msg, size);
		if (r < 0)
			return r;
	}
	r = session_fill(ret, id, hash, &store, meta);
	return r < 0 ? cr_msg(msg, size, r, "out of memory") : 0;
}

/* One line of the grants file: {"time", "scope": "session", "profile", "grant": {...}}. */
static int grant_parse_line(const char *line, size_t len, struct cr_capability *ret, char *m,
			    size_t msize)
{
	_cleanup_json_ json_object *o = NULL;
	const char *scope;
	json_object *g;
	char why[256];
	int r;

	if (len == 0)
		return cr_msg(m, msize, -EINVAL, "empty line");
	r = parse_json(line, len, &o, m, msize);
	if (r < 0)
		return r;
	if (!json_object_is_type(o, json_type_object))
		return cr_msg(m, msize, -EINVAL, "not a JSON object");
	scope = get_string(o, "scope");
	if (!scope || strcmp(scope, "session") != 0)
		return cr_msg(m, msize, -EINVAL, "\"scope\" is not \"session\"");
	if (!json_object_object_get_ex(o, "grant", &g) || !json_object_is_type(g, json_type_object))
		return cr_msg(m, msize, -EINVAL, "no \"grant\" object");
	r = cr_capability_from_json(g, ret, why, sizeof(why));
	if (r == -ENOMEM)
		return cr_msg(m, msize, r, "out of memory");
	if (r < 0)
		return cr_msg(m, msize, -EINVAL, "\"grant\": %s", why);
	return 0;
}

/* Join the grants of @text (the content of the file @label). */
static int grants_parse(const char *text, size_t len, const char *label, struct cr_capability *ret,
			size_t *ret_n, char *msg, size_t size)
{
	_cleanup_(cr_capability_done) struct cr_capability acc = {};
	const char *p = text, *end;
	unsigned line = 0;
	char m[384];
	size_t n = 0;
	int r;

	for (; p < text + len; p = end + 1) {
		struct cr_capability c = {}, joined = {};

		line++;
		end = memchr(p, '\n', (size_t)(text + len - p));
		if (!end)
			return cr_msg(msg, size, -EINVAL,
				      "%s:%u: the last line has no newline (cut short)", label,
				      line);
		r = grant_parse_line(p, (size_t)(end - p), &c, m, sizeof(m));
		if (r < 0)
			return cr_msg(msg, size, r, "%s:%u: %s", label, line, m);
		r = cr_capability_join(&acc, &c, &joined);
		cr_capability_done(&c);
		if (r < 0)
			return cr_msg(msg, size, r, "out of memory");
		cr_capability_done(&acc);
		acc = joined;
		n++;
	}
	if (ret) {
		*ret = acc;
		acc = (struct cr_capability){};
	}
	if (ret_n)
		*ret_n = n;
	return 0;
}

int cr_session_grants_read(int store_fd, const char *store, const char *hash,
			   struct cr_capability *ret, size_t *ret_n, char *msg, size_t size)
{
	_cleanup_free_ char *label = NULL, *text = NULL;
	_cleanup_close_ int fd = -EBADF;
	size_t len;
	int r;

	if (asprintf(&label, "%s/%s.grants.jsonl", store, hash) < 0)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	fd = open_file(store_fd, label + strlen(store) + 1, label, msg, size);
	if (fd == -ENOENT)
		return grants_parse("", 0, label, ret, ret_n, msg, size);
	if (fd < 0)
		return fd;
	/* Writers hold LOCK_EX around their one line: no line is read half-written. */
	while (flock(fd, LOCK_SH) < 0)
		if (errno != EINTR)
			return cr_msg(msg, size, negative_errno(), "cannot lock %s: %s", label,
				      strerror(errno));
	r = read_all(fd, CR_SESSION_GRANTS_MAX, &text, &len);
	if (r == -EFBIG)
		return cr_msg(msg, size, r, "%s: larger than %d bytes", label,
			      CR_SESSION_GRANTS_MAX);
	if (r < 0)
		return cr_msg(msg, size, r, "cannot read %s: %s", label, strerror(-r));
	return grants_parse(text, len, label, ret, ret_n, msg, size);
}

/* The store of @s again, by its canonical path: strict on the store itself. */
static int store_reopen(const struct cr_session *s, char *msg, size_t size)
{
	return cr_state_open_dir(s->store, strlen(s->store), false, msg, size);
}

int cr_session_grants(const struct cr_session *s, struct cr_capability *ret, char *msg, size_t size)
{
	_cleanup_close_ int store_fd = store_reopen(s, msg, size);

	if (store_fd < 0)
		return store_fd;
	return cr_session_grants_read(store_fd, s->store, s->hash, ret, NULL, msg, size);
}

static json_object *grant_line_new(const struct cr_capability *grant, const char *profile)
{
	json_object *o = json_object_new_object();
	char now[32];
	int r;

	cr_audit_now(now);
	r = cr_json_add(o, "time", json_object_new_string(now));
	r = r ?: cr_json_add(o, "scope", json_object_new_string("session"));
	r = r ?: cr_json_add_str(o, "profile", profile);
	r = r ?: cr_json_add(o, "grant", cr_capability_to_json(grant, true));
	return cr_json_whole(o, r);
}

int cr_session_grant_add(const struct cr_session *s, const struct cr_capability *grant,
			 const char *profile, char *msg, size_t size)
{
	_cleanup_close_ int store_fd = -EBADF, fd = -EBADF;
	_cleanup_json_ json_object *line = NULL;
	_cleanup_free_ char *label = NULL;
	const char *name;
	int r;

	store_fd = store_reopen(s, msg, size);
	if (store_fd < 0)
		return store_fd;
	if (asprintf(&label, "%s/%s.grants.jsonl", s->store, s->hash) < 0)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	name = label + strlen(s->store) + 1;
	/* O_RDWR: cr_jsonl_append() reads the last byte to repair a line cut short by a crash. */
	fd = openat(store_fd, name,
		    O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return cr_state_open_error(store_fd, name, label, negative_errno(), msg, size);
	r = cr_state_check_fd(fd, false, label, msg, size);
	if (r < 0)
		return r;
	line = grant_line_new(grant, profile);
	if (!line)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	return cr_jsonl_append(fd, line, label, msg, size);
}

void cr_session_done(struct cr_session *s)
{
	free(s->id);
	free(s->workspace);
	free(s->store);
	free(s->created);
	free(s->profile);
	*s = (struct cr_session){};
}
