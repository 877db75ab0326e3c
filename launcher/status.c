/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/policy/request.h"
#include "outcome.h"
#include "launcher/base/parse-util.h"
#include "launcher/base/json-text.h"
#include "launcher/base/json-util.h"
#include "launcher/base/macro.h"
#include "status.h"

const char *cr_signal_name(int sig)
{
	static char buf[16];
	const char *abbrev = sig > 0 && sig < NSIG ? sigabbrev_np(sig) : NULL;

	if (!abbrev)
		return NULL;
	(void)snprintf(buf, sizeof(buf), "SIG%s", abbrev);
	return buf;
}

json_object *cr_status_build(const struct cr_status *s)
{
	int sig = s->outcome && s->outcome->kind == CR_OUTCOME_SIGNALED ? s->outcome->status : 0;
	json_object *o = json_object_new_object();
	size_t argc = 0;
	int r;

	while (s->argv && s->argv[argc])
		argc++;
	r = cr_json_add(o, "version", json_object_new_int(CR_STATUS_VERSION));
	r = r ?: cr_json_add(o, "corral_version", json_object_new_string(CR_VERSION));
	r = r ?: cr_json_add(o, "driver", json_object_new_string(s->driver));
	r = r ?: cr_json_add(o, "command", cr_json_strv(s->argv, argc));
	r = r ?: cr_outcome_status_json(o, &(struct cr_outcome_status){
		.outcome = s->outcome,
		.timed_out = s->timed_out,
		.denied = s->denied,
		/* the driver's enforced.degraded */
		.degraded = s->enforced && json_object_get_boolean(
						   json_object_object_get(s->enforced, "degraded")),
		.exit_code = s->exit_code,
		.signal_name = sig ? cr_signal_name(sig) : NULL,
		.duration_ms = s->duration_ms,
		.enforced = s->enforced,
		.error = s->error,
		.errno_name = s->error && s->error->err > 0 ? strerrorname_np(s->error->err) : NULL,
	});
	return cr_json_whole(o, r);
}

json_object *cr_status_build_started(const char *driver, char *const *argv, int pid)
{
	json_object *o = json_object_new_object();
	size_t argc = 0;
	int r;

	while (argv && argv[argc])
		argc++;
	r = cr_json_add(o, "version", json_object_new_int(CR_STATUS_VERSION));
	r = r ?: cr_json_add(o, "corral_version", json_object_new_string(CR_VERSION));
	r = r ?: cr_json_add(o, "driver", json_object_new_string(driver));
	r = r ?: cr_json_add(o, "command", cr_json_strv(argv, argc));
	r = r ?: cr_json_add(o, "outcome", json_object_new_string("started"));
	r = r ?: cr_json_add(o, "pid", json_object_new_int(pid));
	return cr_json_whole(o, r);
}

static int open_fd(const char *dest, struct cr_status_dest *d, char *msg, size_t size)
{
	uint64_t v;

	if (cr_parse_uint(dest + 3, 0, INT_MAX, &v) < 0) {
		(void)snprintf(msg, size, "--json-status '%s': expected fd:N", dest);
		return -EINVAL;
	}
	if (fcntl((int)v, F_GETFL) < 0) {
		(void)snprintf(msg, size, "--json-status %s: descriptor %d is not open", dest, (int)v);
		return -EBADF;
	}
	d->fd = (int)v;
	d->owned = false;
	return 0;
}

int cr_status_open_in_place(const char *dest, struct cr_status_dest *d, char *msg, size_t size)
{
	int fd;

	cr_status_close(d);
	fd = open(dest, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);

	if (fd < 0) {
		int r = negative_errno();

		(void)snprintf(msg, size, "--json-status '%s': %s", dest, strerror(-r));
		return r;
	}
	d->fd = fd;
	d->owned = true;
	return 0;
}

int cr_status_open(const char *dest, struct cr_status_dest *d, char *msg, size_t size)
{
	_cleanup_free_ char *real = NULL, *dir = NULL;
	const char *path = dest, *base;
	struct stat st;
	int r;

	*d = (struct cr_status_dest)CR_STATUS_DEST_INIT;
	if (strncmp(dest, "fd:", 3) == 0)
		return open_fd(dest, d, msg, size);
	if (!*dest) {
		(void)snprintf(msg, size, "--json-status: empty destination");
		return -EINVAL;
	}
	if (stat(dest, &st) == 0 && S_ISDIR(st.st_mode)) {
		(void)snprintf(msg, size, "--json-status '%s': %s", dest, strerror(EISDIR));
		return -EISDIR;
	}
	/* /dev/stdout and the like name a descriptor: it is written, never replaced. */
	if ((stat(dest, &st) == 0 && !S_ISREG(st.st_mode)) || strncmp(dest, "/dev/", 5) == 0 ||
	    strncmp(dest, "/proc/", 6) == 0)
		return cr_status_open_in_place(dest, d, msg, size);
	/* Through a symlink, the file it names is replaced, as a write through it would have. */
	real = realpath(dest, NULL);
	if (real)
		path = real;
	else if (lstat(dest, &st) == 0 && S_ISLNK(st.st_mode)) /* dangling: made through it */
		return cr_status_open_in_place(dest, d, msg, size);
	base = strrchr(path, '/');
	dir = base ? strndup(path, base == path ? 1 : (size_t)(base - path)) : strdup(".");
	d->name = strdup(base ? base + 1 : path);
	if (!dir || !d->name) {
		cr_status_close(d);
		return -ENOMEM;
	}
	d->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->dir_fd < 0 || !*d->name) {
		r = d->dir_fd < 0 ? negative_errno() : -EISDIR;
		(void)snprintf(msg, size, "--json-status '%s': %s", dest, strerror(-r));
		cr_status_close(d);
		return r;
	}
	return 0;
}

bool cr_status_replaces(const struct cr_status_dest *d)
{
	return d->dir_fd >= 0;
}

/* A new file beside the destination, ".NAME.XXXXXXXX" with a random suffix, never one that is
 * there already (the command may write in that directory). */
static int create_temp(const struct cr_status_dest *d, char *ret_name, size_t size)
{
	for (int i = 0; i < 16; i++) {
		uint32_t rnd;
		int fd;

		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			return -EIO;
		(void)snprintf(ret_name, size, ".%.200s.%08x", d->name, rnd);
		fd = openat(d->dir_fd, ret_name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : negative_errno();
	}
	return -EEXIST;
}

static int replace(const struct cr_status_dest *d, json_object *st)
{
	char tmp[NAME_MAX + 1];
	int fd, r;

	fd = create_temp(d, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	r = cr_status_write(st, fd);
	(void)close(fd);
	if (r >= 0 && renameat(d->dir_fd, tmp, d->dir_fd, d->name) < 0)
		r = negative_errno();
	if (r < 0)
		(void)unlinkat(d->dir_fd, tmp, 0);
	return r;
}

int cr_status_put(struct cr_status_dest *d, json_object *st)
{
	return cr_status_replaces(d) ? replace(d, st) : cr_status_write(st, d->fd);
}

void cr_status_close(struct cr_status_dest *d)
{
	if (d->owned && d->fd >= 0)
		(void)close(d->fd);
	if (d->dir_fd >= 0)
		(void)close(d->dir_fd);
	free(d->name);
	*d = (struct cr_status_dest)CR_STATUS_DEST_INIT;
}

int cr_status_write(json_object *st, int fd)
{
	_cleanup_free_ char *text = cr_json_text(st, JSON_C_TO_STRING_PLAIN |
							   JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len, off = 0;

	if (!text)
		return -ENOMEM;
	len = strlen(text);

	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return negative_errno();
		off += (size_t)n;
	}
	return write(fd, "\n", 1) == 1 ? 0 : negative_errno();
}
