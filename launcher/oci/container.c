/* SPDX-License-Identifier: MIT */
/* A container's files under the state root and its processes on the host (container.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "container.h"
#include "launcher/base/fd-util.h"
#include "launcher/base/json-text.h"
#include "launcher/base/macro.h"
#include "launcher/session/state.h"
#include "state.h"

extern char **environ;

/* What corral puts in ROOT/ID (oci_container_remove() takes them away). */
static const char *const container_files[] = { "state.json", "exec.fifo", "status.json", "hooks.json", NULL };

int oci_root(const char *opt_root, char *buf, size_t size, char *err, size_t errsize)
{
	if (!opt_root)
		return cr_oci_root_default(environ, buf, size, err, errsize);
	if (snprintf(buf, size, "%s", opt_root) >= (int)size)
		return snprintf(err, errsize, "--root: too long"), -ENAMETOOLONG;
	return 0;
}

int oci_container_mkdir(const char *root, const char *id, char *err, size_t size)
{
	_cleanup_close_ int rfd = -EBADF;
	int r = cr_state_mkdir(root, err, size);

	if (r < 0)
		return r;
	rfd = oci_container_open(root, ".", err, size);
	if (rfd < 0)
		return rfd;
	if (mkdirat(rfd, id, 0700) < 0)
		return errno == EEXIST
			       ? (snprintf(err, size, "container '%s' exists already (in %s)", id, root),
				  -EEXIST)
			       : (snprintf(err, size, "cannot make %s/%s: %m", root, id), negative_errno());
	r = openat(rfd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	return r < 0 ? negative_errno() : r;
}

int oci_container_open(const char *root, const char *id, char *err, size_t size)
{
	_cleanup_close_ int rfd = -EBADF;
	const char *slash = strrchr(root, '/');
	int fd, r;

	rfd = cr_state_open_dir(root, slash ? (size_t)(slash - root) : 0, false, err, size);
	if (rfd < 0 || strcmp(id, ".") == 0)
		return TAKE_FD(rfd);
	fd = openat(rfd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return cr_state_open_error(rfd, id, id, negative_errno(), err, size);
	r = cr_state_check_fd(fd, true, id, err, size);
	if (r < 0) {
		(void)close(fd);
		return r;
	}
	return fd;
}

int oci_container_remove(const char *root, const char *id)
{
	char err[256];
	_cleanup_close_ int rfd = oci_container_open(root, ".", err, sizeof(err)),
			    dfd = oci_container_open(root, id, err, sizeof(err));

	if (rfd < 0 || dfd < 0)
		return rfd < 0 ? rfd : dfd;
	for (size_t i = 0; container_files[i]; i++)
		if (unlinkat(dfd, container_files[i], 0) < 0 && errno != ENOENT)
			return negative_errno();
	return unlinkat(rfd, id, AT_REMOVEDIR) < 0 ? negative_errno() : 0;
}

static int write_whole(int dfd, const char *name, const char *text)
{
	char tmp[NAME_MAX + 1];
	_cleanup_close_ int fd = -EBADF;
	int r;

	if (snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	(void)unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return negative_errno();
	r = cr_write_all(fd, text, strlen(text));
	if (r < 0 || renameat(dfd, tmp, dfd, name) < 0) {
		r = r < 0 ? r : negative_errno();
		(void)unlinkat(dfd, tmp, 0);
	}
	return r;
}

int oci_write_json(int dfd, const char *name, json_object *doc)
{
	_cleanup_free_ char *text = cr_json_text(doc, JSON_C_TO_STRING_PLAIN |
						       JSON_C_TO_STRING_NOSLASHESCAPE);

	return text ? write_whole(dfd, name, text) : -ENOMEM;
}

int oci_write_pid_file(const char *path, pid_t pid)
{
	_cleanup_free_ char *dir = strdup(path);
	_cleanup_close_ int dfd = -EBADF;
	char *slash, text[32];

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash == dir)
		dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	else if (slash) {
		*slash = '\0';
		dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	} else
		dfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return negative_errno();
	(void)snprintf(text, sizeof(text), "%d", (int)pid);
	return write_whole(dfd, slash ? strrchr(path, '/') + 1 : path, text);
}

uint64_t oci_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	_cleanup_close_ int fd = -EBADF;
	unsigned long long t = 0;
	ssize_t n;

	(void)snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return 0;
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p && sscanf(p + 1, "%llu", &t) != 1)
		t = 0;
	return t;
}

static int ns_inode(pid_t pid, ino_t *ret)
{
	char path[64];
	struct stat st;

	(void)snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	if (stat(path, &st) < 0)
		return negative_errno();
	*ret = st.st_ino;
	return 0;
}

int oci_ns_pids(pid_t init, uint64_t start, pid_t **ret, size_t *ret_n)
{
	_cleanup_free_ pid_t *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	ino_t ns;
	DIR *d;

	if (oci_start_time(init) != start || ns_inode(init, &ns) < 0)
		return -ESRCH;
	d = opendir("/proc");
	if (!d)
		return negative_errno();
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		ino_t other;

		if (*end || pid <= 0 || ns_inode((pid_t)pid, &other) < 0 || other != ns)
			continue;
		if (n + 1 >= cap) {
			pid_t *w = reallocarray(v, cap = cap * 2 + 16, sizeof(pid_t));

			if (!w) {
				(void)closedir(d);
				return -ENOMEM;
			}
			v = w;
		}
		v[n++] = (pid_t)pid;
	}
	(void)closedir(d);
	for (size_t i = 0; i < n; i++) /* init first */
		if (v[i] == init) {
			v[i] = v[0];
			v[0] = init;
		}
	*ret = TAKE_PTR(v);
	*ret_n = n;
	return 0;
}

int oci_wait_gone(pid_t pid, uint64_t start, int ms)
{
	for (int waited = 0; waited < ms; waited += 10) {
		uint64_t t = oci_start_time(pid);

		if (t == 0 || (start && t != start))
			return 0;
		(void)nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	}
	return -ETIMEDOUT;
}
