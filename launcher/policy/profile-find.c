/* SPDX-License-Identifier: MIT */
/* Finding a profile: a file given by path, NAME.ini in the user's then the system's directory,
 * or a built-in; and reading a file only if nobody but its owner (the caller or root) could have
 * written it, since a profile decides what a sandbox may do. */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"
#include "env.h"
#include "profile-builtin.h"
#include "profile-find.h"

/* --- where named profiles are --------------------------------------------------------------- */

bool cr_profile_name_is_valid(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n >= 1 && n <= CR_PROFILE_NAME_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

/* $HOME if absolute, else the password database's entry if absolute, else none. */
static int find_home(char *const *env, char **ret)
{
	const char *home = cr_env_get(env, "HOME");
	struct passwd *pw;

	if (!home || cr_path_check(home, true) < 0) {
		pw = getpwuid(getuid());
		home = pw && pw->pw_dir && cr_path_check(pw->pw_dir, true) == 0 ? pw->pw_dir : NULL;
	}
	*ret = NULL;
	if (home && !(*ret = strdup(home)))
		return -ENOMEM;
	return 0;
}

/* How many @c end @s. */
static size_t strspn_end(const char *s, char c)
{
	size_t n = strlen(s), k = 0;

	while (k < n && s[n - 1 - k] == c)
		k++;
	return k;
}

/* Can corral take the user's directory @d->user_dir under @base? Another user's base (HOME=/ or
 * a HOME left by su without -l), or one inside a directory the caller cannot search, is not the
 * caller's configuration: the directory is left out. One the caller cannot read is marked. Either is said in @d->skipped. 0 or -ENOMEM. */
static int check_user_dir(struct cr_profile_dirs *d, const char *base)
{
	_cleanup_close_ int fd = -EBADF;
	struct stat st;
	bool known = stat(base, &st) == 0;
	int r = 0;

	if (!known && errno == EACCES) { /* inside another user's 0700 home */
		r = asprintf((char **)&d->skipped, "%s (%s: %s)", d->user_dir, base,
			     strerror(EACCES));
		free((char *)TAKE_PTR(d->user_dir));
	} else if (known && st.st_uid != getuid()) {
		r = asprintf((char **)&d->skipped, "%s (%s belongs to uid %u, not to you, uid %u)",
			     d->user_dir, base, (unsigned)st.st_uid, (unsigned)getuid());
		free((char *)TAKE_PTR(d->user_dir));
	} else {
		fd = open(d->user_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 && errno == EACCES) {
			d->user_unreadable = true;
			r = asprintf((char **)&d->skipped, "%s (%s)", d->user_dir, strerror(EACCES));
		}
	}
	if (r < 0) {
		d->skipped = NULL;
		return -ENOMEM;
	}
	return 0;
}

int cr_profile_dirs_from_env(char *const *env, struct cr_profile_dirs *ret)
{
	const char *xdg = cr_env_get(env, "XDG_CONFIG_HOME"), *base = NULL;
	char *home = NULL, *user = NULL, *sys;
	struct cr_profile_dirs d;
	int r;

	r = find_home(env, &home);
	if (r < 0)
		return r;
	if (xdg && xdg[0] == '/')
		base = xdg;
	else if (home)
		base = home;
	if (base) /* without trailing slashes: HOME=/ gives /.config/corral/profiles */
		r = asprintf(&user, "%.*s%s", (int)(strlen(base) - strspn_end(base, '/')), base,
			     base == xdg ? "/corral/profiles" : "/.config/corral/profiles");
	if (r < 0)
		user = NULL; /* asprintf() leaves it undefined */
	sys = strdup(CR_SYSCONF_PROFILES);
	d = (struct cr_profile_dirs){ .home = home, .user_dir = user, .system_dir = sys };
	if (r >= 0 && sys && user)
		r = check_user_dir(&d, base);
	if (r < 0 || !sys) {
		cr_profile_dirs_done(&d);
		return -ENOMEM;
	}
	*ret = d;
	return 0;
}

void cr_profile_dirs_done(struct cr_profile_dirs *d)
{
	free((char *)d->home);
	free((char *)d->user_dir);
	free((char *)d->system_dir);
	free((char *)d->skipped);
	*d = (struct cr_profile_dirs){};
}

/* --- finding one ------------------------------------------------------------------------------ */

/* Refuse what someone else could have written. */
static int check_file(int fd, const char *path, char *msg, size_t size)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return cr_msg(msg, size, negative_errno(), "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return cr_msg(msg, size, -EPERM, "%s: not a regular file", path);
	if (st.st_uid != getuid() && st.st_uid != 0)
		return cr_msg(msg, size, -EPERM,
			    "%s: owned by uid %u; a profile must belong to you (uid %u) or root", path,
			    (unsigned)st.st_uid, (unsigned)getuid());
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return cr_msg(msg, size, -EPERM,
			    "%s: writable by its group or others (mode %04o); run chmod go-w on it", path,
			    (unsigned)(st.st_mode & 07777));
	if (st.st_size > CR_PROFILE_MAX_SIZE)
		return cr_msg(msg, size, -EFBIG, "%s: larger than %d bytes", path, CR_PROFILE_MAX_SIZE);
	return 0;
}

/* Read at most CR_PROFILE_MAX_SIZE bytes, NUL-terminated; a file that grew past it is refused. */
static int read_all(int fd, const char *path, char **ret, size_t *ret_size, char *msg, size_t size)
{
	_cleanup_free_ char *buf = malloc(CR_PROFILE_MAX_SIZE + 2);
	size_t n = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t k = read(fd, buf + n, CR_PROFILE_MAX_SIZE + 1 - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return cr_msg(msg, size, negative_errno(), "%s: %s", path, strerror(errno));
		if (k == 0)
			break;
		n += (size_t)k;
		if (n > CR_PROFILE_MAX_SIZE)
			return cr_msg(msg, size, -EFBIG, "%s: larger than %d bytes", path,
				    CR_PROFILE_MAX_SIZE);
	}
	buf[n] = '\0';
	*ret = TAKE_PTR(buf);
	*ret_size = n;
	return 0;
}

/* Open and read @path, whose directories are canonical. -ENOENT (and -ENOTDIR) without a
 * message when it is not there, so that the caller can look further. */
static int read_file(const char *path, char **ret, size_t *ret_size, char *msg, size_t size)
{
	_cleanup_close_ int fd = -EBADF;
	int r;

	/* O_NONBLOCK: a FIFO must not block the open; it is refused as not a regular file. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return -errno;
	if (fd < 0 && errno == ELOOP)
		return cr_msg(msg, size, -EPERM,
			    "%s: a symbolic link; a profile must be a regular file (name its target instead)",
			    path);
	if (fd < 0)
		return cr_msg(msg, size, negative_errno(), "%s: %s", path, strerror(errno));
	r = check_file(fd, path, msg, size);
	if (r < 0)
		return r;
	return read_all(fd, path, ret, ret_size, msg, size);
}

static int file_init(struct cr_profile_file *f, const char *name, const char *source)
{
	f->name = strdup(name);
	f->source = strdup(source);
	return f->name && f->source ? 0 : -ENOMEM;
}

/* A path: its directory canonical, its last component as given (and not followed). */
static int find_path(const char *arg, struct cr_profile_file *f, char *msg, size_t size)
{
	const char *slash = strrchr(arg, '/'), *base = slash + 1;
	_cleanup_free_ char *dir = NULL, *canon = NULL, *path = NULL, *name = NULL;
	size_t n = strlen(base);
	int r;

	if (cr_path_check(arg, false) < 0 || !*base || strcmp(base, ".") == 0 ||
	    strcmp(base, "..") == 0)
		return cr_msg(msg, size, -EINVAL, "profile '%s': not a file name", arg);
	dir = slash == arg ? strdup("/") : strndup(arg, (size_t)(slash - arg));
	if (!dir)
		return -ENOMEM;
	r = cr_path_canonicalize(dir, &canon);
	if (r < 0)
		return cr_msg(msg, size, r, "profile '%s': %s", arg, strerror(-r));
	if (asprintf(&path, "%s%s%s", canon, strcmp(canon, "/") == 0 ? "" : "/", base) < 0) {
		path = NULL;
		return -ENOMEM;
	}
	r = read_file(path, &f->text, &f->size, msg, size);
	if (r == -ENOENT || r == -ENOTDIR)
		return cr_msg(msg, size, r, "profile '%s': no such file", arg);
	if (r < 0)
		return r;
	name = n > 4 && strcmp(base + n - 4, ".ini") == 0 ? strndup(base, n - 4) : strdup(base);
	return name ? file_init(f, name, path) : -ENOMEM;
}

/* NAME.ini in @dir (made canonical, for the source): 1 if found, 0 if not there, or -errno
 * with the message. */
static int find_in_dir(const char *dir, const char *name, struct cr_profile_file *f, char *msg,
		       size_t size)
{
	_cleanup_free_ char *canon = NULL, *path = NULL;
	int r;

	if (!dir)
		return 0;
	r = cr_path_canonicalize(dir, &canon);
	if (r == -ENOENT || r == -ENOTDIR)
		return 0;
	if (r < 0)
		return cr_msg(msg, size, r, "%s: %s", dir, strerror(-r));
	if (asprintf(&path, "%s%s%s.ini", canon, strcmp(canon, "/") == 0 ? "" : "/", name) < 0) {
		path = NULL;
		return -ENOMEM;
	}
	r = read_file(path, &f->text, &f->size, msg, size);
	if (r == -ENOENT || r == -ENOTDIR)
		return 0;
	if (r < 0)
		return r;
	r = file_init(f, name, path);
	return r < 0 ? r : 1;
}

static int find_name(const char *name, const struct cr_profile_dirs *dirs,
		     struct cr_profile_file *f, char *msg, size_t size)
{
	const char *text = cr_profile_builtin_text(name);
	int r;

	if (!cr_profile_name_is_valid(name))
		return cr_msg(msg, size, -EINVAL,
			    "profile '%s': a name is 1-%d letters, digits, '_' or '-'; a file is given as a path with a '/' (./%s)",
			    name, CR_PROFILE_NAME_MAX, name);
	/* The default profile looks past a user directory corral cannot read (said by the
	 * caller); a profile named explicitly does not. */
	r = find_in_dir(dirs && !(dirs->user_unreadable && dirs->lenient) ? dirs->user_dir : NULL,
			name, f, msg, size);
	if (r == 0)
		r = find_in_dir(dirs ? dirs->system_dir : NULL, name, f, msg, size);
	if (r != 0)
		return r < 0 ? r : 0;
	if (!text)
		return cr_msg(msg, size, -ENOENT,
			    "no profile named '%s' (looked for %s.ini in %s and %s, then among the built-ins: strict, workspace, ci, power_user, autonomous)",
			    name, name, dirs && dirs->user_dir ? dirs->user_dir : "(no user directory)",
			    dirs && dirs->system_dir ? dirs->system_dir : "(no system directory)");
	f->text = strdup(text);
	f->size = strlen(text);
	return f->text ? file_init(f, name, "builtin") : -ENOMEM;
}

int cr_profile_find(const char *name_or_path, const struct cr_profile_dirs *dirs,
		    struct cr_profile_file *ret, char *msg, size_t msg_size)
{
	struct cr_profile_file f = {};
	int r;

	if (!name_or_path)
		return cr_msg(msg, msg_size, -EINVAL, "no profile given");
	if (strchr(name_or_path, '/'))
		r = find_path(name_or_path, &f, msg, msg_size);
	else
		r = find_name(name_or_path, dirs, &f, msg, msg_size);
	if (r == -ENOMEM)
		(void)cr_msg(msg, msg_size, r, "out of memory");
	if (r < 0) {
		cr_profile_file_done(&f);
		return r;
	}
	*ret = f;
	return 0;
}

void cr_profile_file_done(struct cr_profile_file *f)
{
	free(f->name);
	free(f->source);
	free(f->text);
	*f = (struct cr_profile_file){};
}
