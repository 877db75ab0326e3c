/* SPDX-License-Identifier: MIT */
/* The audit ledger (see audit.h). */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <libgen.h>
#include <sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "launcher/base/hex.h"
#include "launcher/base/json-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "state.h"
#include "session-internal.h"

void cr_audit_argv_hash(char *const *argv, char ret[65])
{
	uint8_t digest[SHA256_DIGEST_LENGTH];
	SHA2_CTX ctx;

	SHA256Init(&ctx);
	for (; argv && *argv; argv++)
		SHA256Update(&ctx, (const uint8_t *)*argv, strlen(*argv) + 1);
	SHA256Final(digest, &ctx);
	cr_hex(digest, sizeof(digest), ret);
}

int cr_audit_open(const char *path, bool make_dir, char *msg, size_t size)
{
	int flags = O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	_cleanup_free_ char *label = NULL, *dir = NULL;
	_cleanup_close_ int fd = -EBADF;
	int r;

	if (!path || !*path)
		return cr_msg(msg, size, -EINVAL, "empty audit ledger path");
	if (asprintf(&label, "audit ledger %s", path) < 0 || !(dir = strdup(path)))
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	if (make_dir) {
		r = cr_state_mkdir(dirname(dir), msg, size);
		if (r < 0)
			return r;
	}
	/* O_RDWR lets an append repair a line cut short by a crash; O_WRONLY is enough else. */
	fd = open(path, O_RDWR | flags, 0600);
	if (fd < 0 && errno == EACCES)
		fd = open(path, O_WRONLY | flags, 0600);
	if (fd < 0)
		return cr_state_open_error(AT_FDCWD, path, label, negative_errno(), msg, size);
	r = cr_state_check_fd(fd, false, label, msg, size);
	if (r < 0)
		return r;
	return TAKE_FD(fd);
}

int cr_audit_append(int fd, struct json_object *entry, char *msg, size_t size)
{
	_cleanup_free_ char *path = NULL, *label = NULL;

	if (cr_fd_path(fd, &path) < 0)
		path = NULL;
	if (asprintf(&label, "the audit ledger %s", path ? path : "(unknown path)") < 0)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	return cr_jsonl_append(fd, entry, label, msg, size);
}

json_object *cr_audit_time(void)
{
	struct timeval tv;
	struct tm tm;
	char buf[64];

	(void)gettimeofday(&tv, NULL);
	(void)gmtime_r(&tv.tv_sec, &tm);
	(void)snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
		       tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		       (long)(tv.tv_usec / 1000));
	return json_object_new_string(buf);
}

/* The modes of the limits in @limits that are enforced. NULL on allocation failure. */
static json_object *limit_modes(json_object *limits)
{
	json_object *o = json_object_new_object(), *m;
	int r = o ? 0 : -ENOMEM;

	json_object_object_foreach(limits, name, lim)
	{
		if (r == 0 && json_object_object_get_ex(lim, "mode", &m) &&
		    strcmp(json_object_get_string(m), "none") != 0)
			r = cr_json_add(o, name, json_object_get(m));
	}
	return cr_json_whole(o, r);
}

json_object *cr_audit_summary(json_object *enforced, const char *const *keep, size_t n_keep)
{
	json_object *o = json_object_new_object(), *v, *m, *ll;
	int r = o ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < n_keep; i++)
		r = cr_json_copy(o, enforced, keep[i]);
	if (r == 0 && json_object_object_get_ex(enforced, "seccomp", &v) &&
	    json_object_object_get_ex(v, "mode", &m))
		r = cr_json_add(o, "seccomp", json_object_get(m));
	if (r == 0 && json_object_object_get_ex(enforced, "landlock", &v)) {
		ll = json_object_new_object();
		r = cr_json_copy(ll, v, "abi");
		r = r ?: cr_json_copy(ll, v, "applied");
		r = cr_json_add(o, "landlock", cr_json_whole(ll, r));
	}
	if (r == 0 && json_object_object_get_ex(enforced, "limits", &v))
		r = cr_json_add(o, "limits", limit_modes(v));
	return cr_json_whole(o, r);
}
