/* SPDX-License-Identifier: MIT */
/* The state directory (see state.h): where it is, opening and checking what is in it, and the
 * whole-or-absent JSON-lines append that the ledger and the session grants share. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launcher/base/fd-util.h"
#include "launcher/base/json-text.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/policy/env.h"
#include "state.h"

int cr_fd_path(int fd, char **ret)
{
	char proc[64], buf[PATH_MAX];
	ssize_t n;
	char *s;

	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, sizeof(buf));
	if (n < 0)
		return negative_errno();
	if ((size_t)n >= sizeof(buf))
		return -ENAMETOOLONG;
	s = strndup(buf, (size_t)n);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

/* "BASE" + "SUFFIX", without BASE's trailing slashes. */
static int join(const char *base, const char *suffix, char **ret)
{
	size_t len = strlen(base);

	while (len > 0 && base[len - 1] == '/')
		len--;
	if (asprintf(ret, "%.*s%s", (int)len, base, suffix) < 0) {
		*ret = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Can corral make or write @path? It, or else its nearest existing ancestor, must be a directory
 * that corral may write and search (EROFS, EACCES: no). 0 or -errno, with the path tested in
 * @at for the message. */
static int writable(const char *path, char *at, size_t size)
{
	struct stat st;

	/* Someone else's, or a symlink: taken, so that opening it says what is wrong there. */
	if (lstat(path, &st) == 0 && (S_ISLNK(st.st_mode) || st.st_uid != geteuid()))
		return 0;
	(void)strlcpy(at, path, size);
	for (;;) {
		char *slash;

		if (stat(at, &st) == 0)
			break;
		if (errno != ENOENT)
			return negative_errno();
		slash = strrchr(at, '/');
		if (!slash)
			return -ENOENT;
		slash[slash == at] = '\0'; /* "/a" -> "/", "/a/b" -> "/a" */
	}
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	/* The effective ids, as for what corral then creates. */
	return faccessat(AT_FDCWD, at, W_OK | X_OK, AT_EACCESS) < 0 ? negative_errno() : 0;
}

/* Append "; " and the formatted reason to @why. */
_printf_(3, 4) static void add_why(char *why, size_t size, const char *fmt, ...)
{
	size_t n = why ? strlen(why) : 0;
	va_list ap;

	if (!why || n + 2 >= size)
		return;
	if (n > 0)
		n += (size_t)snprintf(why + n, size - n, "; ");
	va_start(ap, fmt);
	(void)vsnprintf(why + n, size - n, fmt, ap);
	va_end(ap);
}

/* @candidate (from @what) if corral can write it, else 0 with the reason added to @why. */
static int try_place(const char *candidate, const char *what, char *why, size_t size)
{
	char at[PATH_MAX];
	int r = writable(candidate, at, sizeof(at));

	if (r == 0)
		return 1;
	add_why(why, size, "%s (from %s) skipped: %s: %s", candidate, what, at, strerror(-r));
	return 0;
}

/* HOME as a base for state: an absolute directory other than "/" owned by corral's uid. */
static bool home_is_own(const char *home, char *why, size_t size)
{
	struct stat st;
	size_t n;

	if (!home || home[0] != '/')
		return add_why(why, size, "HOME is %s", home ? "not absolute" : "not set"), false;
	n = strspn(home, "/");
	if (home[n] == '\0')
		return add_why(why, size, "HOME is /, not a home directory"), false;
	if (stat(home, &st) < 0)
		return add_why(why, size, "HOME %s skipped: %s", home, strerror(errno)), false;
	if (!S_ISDIR(st.st_mode))
		return add_why(why, size, "HOME %s skipped: not a directory", home), false;
	if (st.st_uid != geteuid())
		return add_why(why, size, "HOME %s skipped: it belongs to uid %u, not corral's uid %u",
			       home, (unsigned)st.st_uid, (unsigned)geteuid()),
		       false;
	return true;
}

/* The per-uid fallback: absent, or a real directory of corral's uid with mode 0700. */
static int fallback(char **ret, char *why, size_t size)
{
	_cleanup_free_ char *path = NULL;
	struct stat st;

	if (asprintf(&path, CR_STATE_FALLBACK_BASE "/corral-%u", (unsigned)geteuid()) < 0) {
		path = NULL;
		return -ENOMEM;
	}
	if (lstat(path, &st) == 0 &&
	    (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 07777) != 0700)) {
		if (why)
			(void)snprintf(why, size,
				       "refusing the fallback state directory %s: it is %s owned by uid %u with mode %04o, not a directory of corral's uid %u with mode 0700 (made by someone else?); remove it, or set XDG_STATE_HOME to a directory you own",
				       path, S_ISDIR(st.st_mode) ? "a directory" : "not a directory",
				       (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
				       (unsigned)geteuid());
		return -EPERM;
	}
	*ret = TAKE_PTR(path);
	return 0;
}

int cr_state_locate(char *const *env, char **ret, const char **ret_source, char *why,
		    size_t size)
{
	const char *xdg = cr_env_get(env, "XDG_STATE_HOME"), *home = cr_env_get(env, "HOME");
	_cleanup_free_ char *path = NULL;
	int r;

	if (why && size)
		why[0] = '\0';
	/* The XDG spec: a relative value is invalid and ignored. */
	if (xdg && xdg[0] == '/') {
		r = join(xdg, "/corral", &path);
		if (r < 0)
			return r;
		if (try_place(path, "XDG_STATE_HOME", why, size)) {
			*ret = TAKE_PTR(path);
			*ret_source = "XDG_STATE_HOME";
			return 0;
		}
		free(TAKE_PTR(path));
	}
	if (home_is_own(home, why, size)) {
		r = join(home, "/.local/state/corral", &path);
		if (r < 0)
			return r;
		if (try_place(path, "HOME", why, size)) {
			*ret = TAKE_PTR(path);
			*ret_source = "HOME";
			return 0;
		}
	}
	r = fallback(ret, why, size);
	if (r >= 0)
		*ret_source = "fallback";
	return r;
}

int cr_state_dir(char *const *env, char **ret)
{
	const char *source;

	return cr_state_locate(env, ret, &source, NULL, 0);
}

int cr_state_dir_warn(char *const *env, char **ret, char **ret_skipped, char *msg, size_t size)
{
	char why[1024];
	const char *source;
	int r;

	r = cr_state_locate(env, ret, &source, why, sizeof(why));
	if (r == -ENOMEM)
		return cr_msg(msg, size, r, "out of memory");
	if (r < 0)
		return cr_msg(msg, size, r, "%s", why);
	if (why[0])
		cr_log_warning("state directory: %s; using %s", why, *ret);
	if (ret_skipped && why[0] && !(*ret_skipped = strdup(why))) {
		free(TAKE_PTR(*ret));
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	}
	return 0;
}

int cr_state_check_fd(int fd, bool dir, const char *label, char *msg, size_t size)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return cr_msg(msg, size, negative_errno(), "cannot stat %s: %s", label,
			      strerror(errno));
	if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		return cr_msg(msg, size, -EPERM, "%s is not a %s", label,
			      dir ? "directory" : "regular file");
	/* The effective uid: it is the owner of what corral creates. */
	if (st.st_uid != geteuid())
		return cr_msg(msg, size, -EPERM, "%s belongs to uid %u, not to corral's uid %u",
			      label, (unsigned)st.st_uid, (unsigned)geteuid());
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return cr_msg(msg, size, -EPERM,
			      "%s is writable by group or others (mode %04o); fix: chmod go-w %s",
			      label, (unsigned)(st.st_mode & 07777), label);
	return 0;
}

int cr_state_open_error(int dfd, const char *name, const char *label, int err, char *msg,
			size_t size)
{
	struct stat st;

	/* O_NOFOLLOW|O_DIRECTORY on a symlink is ENOTDIR, without O_DIRECTORY ELOOP; O_WRONLY|
	 * O_NONBLOCK on a FIFO is ENXIO. Say what is there. */
	if ((err == -ELOOP || err == -ENOTDIR || err == -ENXIO) &&
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode))
			return cr_msg(msg, size, -ELOOP,
				      "%s is a symbolic link; corral does not follow them here",
				      label);
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			return cr_msg(msg, size, -EPERM, "%s is not a regular file or directory",
				      label);
	}
	return cr_msg(msg, size, err, "cannot open %s: %s", label, strerror(-err));
}

/* One component of cr_state_open_dir(): open @name in @dfd (@label is the path so far), creating
 * it when missing and @create. Creating it makes this and every later component strict. */
static int open_step(int dfd, const char *name, const char *label, bool last, bool create,
		     bool *strict, char *msg, size_t size)
{
	int flags = (last ? O_RDONLY : O_PATH) | O_DIRECTORY | O_CLOEXEC;
	_cleanup_close_ int fd = -EBADF;
	int r;

	fd = openat(dfd, name, flags | (*strict ? O_NOFOLLOW : 0));
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(dfd, name, 0700) < 0 && errno != EEXIST)
			return cr_msg(msg, size, negative_errno(), "cannot create %s: %s", label,
				      strerror(errno));
		*strict = true;
		fd = openat(dfd, name, flags | O_NOFOLLOW);
	}
	if (fd < 0)
		return cr_state_open_error(dfd, name, label, negative_errno(), msg, size);
	if (*strict) {
		r = cr_state_check_fd(fd, true, label, msg, size);
		if (r < 0)
			return r;
	}
	return TAKE_FD(fd);
}

int cr_state_open_dir(const char *path, size_t strict_from, bool create, char *msg, size_t size)
{
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ char *p = NULL;
	bool strict = false;
	char *name, *end;

	if (!path || !*path)
		return cr_msg(msg, size, -EINVAL, "empty directory path");
	p = strdup(path);
	if (!p)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	fd = open(p[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cr_msg(msg, size, negative_errno(), "cannot open %s: %s", path,
			      strerror(errno));
	for (name = p + strspn(p, "/"); *name; name = end + strspn(end, "/")) {
		bool last;
		char saved;
		int next;

		end = name + strcspn(name, "/");
		last = end[strspn(end, "/")] == '\0';
		saved = *end;
		*end = '\0'; /* p is now the path up to this component, for messages */
		strict = strict || last || (size_t)(end - p) > strict_from;
		next = open_step(fd, name, p, last, create, &strict, msg, size);
		*end = saved;
		if (next < 0)
			return next;
		closep(&fd);
		fd = next;
	}
	return TAKE_FD(fd);
}

int cr_state_mkdir(const char *path, char *msg, size_t size)
{
	_cleanup_close_ int fd = -EBADF;

	fd = cr_state_open_dir(path, path ? strlen(path) : 0, true, msg, size);
	return fd < 0 ? fd : 0;
}

void cr_audit_now(char ret[32])
{
	struct timespec ts;
	struct tm tm;

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0 || !gmtime_r(&ts.tv_sec, &tm) ||
	    strftime(ret, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		(void)snprintf(ret, 32, "1970-01-01T00:00:00Z");
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
