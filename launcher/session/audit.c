/* SPDX-License-Identifier: MIT */
/* The audit ledger (see audit.h), and the whole-or-absent JSON-lines append that the ledger and
 * the session grants share. */
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
#include "launcher/base/json-text.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "session.h"
#include "session-internal.h"

void cr_audit_now(char ret[32])
{
	struct timespec ts;
	struct tm tm;

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0 || !gmtime_r(&ts.tv_sec, &tm) ||
	    strftime(ret, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		(void)snprintf(ret, 32, "1970-01-01T00:00:00Z");
}

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

int cr_write_all(int fd, const void *data, size_t size)
{
	for (const char *p = data; size > 0;) {
		ssize_t n = write(fd, p, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return negative_errno();
		if (n == 0)
			return -EIO;
		p += n;
		size -= (size_t)n;
	}
	return 0;
}

/* Does the file end in something other than a newline (a line cut short by a crash)? A file
 * that cannot be read (opened O_WRONLY by a caller) is taken to end well. */
static bool ends_unterminated(int fd, off_t end)
{
	char c;

	return end > 0 && pread(fd, &c, 1, end - 1) == 1 && c != '\n';
}

/* @buf is "\n" + the line + "\n": the leading newline is written only when the file needs it.
 * Under LOCK_EX every writer appends after the others' whole lines; a failed write is cut off
 * again, so the file ends where it ended before. */
static int append_locked(int fd, const char *buf, size_t len, bool *ret_residue)
{
	off_t end;
	int r;

	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR)
			return negative_errno();
	end = lseek(fd, 0, SEEK_END);
	if (end < 0) {
		r = negative_errno();
		goto out_unlock;
	}
	if (!ends_unterminated(fd, end))
		buf++, len--;
	r = cr_write_all(fd, buf, len);
	if (r < 0 && ftruncate(fd, end) < 0)
		*ret_residue = true; /* e.g. chattr +a; the caller says so */
out_unlock:
	(void)flock(fd, LOCK_UN);
	return r;
}

int cr_jsonl_append(int fd, json_object *o, const char *label, char *msg, size_t size)
{
	_cleanup_free_ char *text = cr_json_text(o, JSON_C_TO_STRING_PLAIN |
							       JSON_C_TO_STRING_NOSLASHESCAPE);
	_cleanup_free_ char *buf = NULL;
	bool residue = false;
	size_t len;
	int r;

	if (!text)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	len = strlen(text);
	if (len + 1 > CR_JSONL_LINE_MAX)
		return cr_msg(msg, size, -E2BIG,
			      "cannot append to %s: a line of %zu bytes is longer than %d", label,
			      len + 1, CR_JSONL_LINE_MAX);
	buf = malloc(len + 2);
	if (!buf)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	buf[0] = '\n';
	memcpy(buf + 1, text, len);
	buf[len + 1] = '\n';
	r = append_locked(fd, buf, len + 2, &residue);
	if (r < 0)
		return cr_msg(msg, size, r, "cannot append to %s: %s%s", label, strerror(-r),
			      residue ? " (and the partial line could not be removed)"
				      : " (nothing was written)");
	return 0;
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
