/* SPDX-License-Identifier: MIT */
/* A caller's own cgroup (place.h): checked, resolved, made and entered; removed at `delete`.
 * cgroup.c writes the limits there and reads the events from there. Nothing prints. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "cgroup-internal.h"
#include "place.h"

#define REMOVE_TRIES    1000
#define REMOVE_DELAY_NS 1000000L

int cr_cgroup_path_check(const char *path, char *err, size_t size)
{
	const char *p = path;
	size_t n = 0;

	if (strchr(path, ':'))
		return cr_say(err, size,
			      "'%s' is the systemd form (slice:prefix:name), which needs --systemd-cgroup: corral takes cgroupfs paths (set the engine's cgroup manager to cgroupfs)",
			      path),
		       -EINVAL;
	while (*p) {
		size_t len = strcspn(p, "/");

		if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return cr_say(err, size, "'%s': '.' and '..' are not cgroup names", path),
			       -EINVAL;
		n += len > 0;
		p += len;
		p += strspn(p, "/");
	}
	if (n == 0)
		return cr_say(err, size, "'%s' names no cgroup below the hierarchy's root", path),
		       -EINVAL;
	if (strlen(path) >= 512)
		return cr_say(err, size, "'%.40s...' is too long", path), -EINVAL;
	return 0;
}

int cr_cgroup_path_resolve(const char *mount, const char *own, const char *path, char *buf,
			   size_t size)
{
	int n;

	if (path[0] == '/')
		n = snprintf(buf, size, "%s%s", mount, path);
	else
		n = snprintf(buf, size, "%s%s/%s", mount, strcmp(own, "/") == 0 ? "" : own, path);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

bool cr_cgroup_has_word(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += len)
		if ((p == list || strchr(" ,\n", p[-1])) && strchr(" ,\n", p[len]))
			return true;
	return false;
}

void cr_cgroup_files_v2_ctls(const struct cr_cgroup_file *files, size_t n, char *buf,
			     size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *c = files[i].v2_ctl;

		if (c[0] && !cr_cgroup_has_word(buf, c) && len + strlen(c) + 2 < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "", c);
	}
}

/* Enable for @dfd's children the controllers of @ctls it offers (best effort: a controller
 * the hierarchy lacks is simply not there, as on a hybrid host's cgroup2). */
static void enable(int dfd, const char *ctls)
{
	char avail[512], one[32];

	if (cr_cg_read_at(dfd, "cgroup.controllers", avail, sizeof(avail)) < 0)
		return;
	for (const char *p = ctls; *p; p += strspn(p, " ")) {
		size_t len = strcspn(p, " ");

		if (len < sizeof(one) - 1) {
			(void)snprintf(one, sizeof(one), "+%.*s", (int)len, p);
			if (strstr(avail, one + 1))
				(void)cr_cg_write_text(dfd, "cgroup.subtree_control", one);
		}
		p += len;
	}
}

/* mkdir -p, enabling the controllers on the way down on cgroup2. */
static int make_dirs(const char *dir, bool v2, const char *ctls)
{
	char buf[PATH_MAX];

	if (strlen(dir) >= sizeof(buf))
		return -ENAMETOOLONG;
	(void)strlcpy(buf, dir, sizeof(buf));
	for (char *p = strchr(buf + 1, '/');; p = strchr(p + 1, '/')) {
		if (p)
			*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return negative_errno();
		/* a parent made here too: its children get the controllers only once it exists */
		if (v2 && p) {
			_cleanup_close_ int fd = open(buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

			if (fd >= 0)
				enable(fd, ctls);
		}
		if (!p)
			return 0;
		*p = '/';
	}
}

int cr_cgroup_path_enter(const char *dir, bool v2, const char *ctls)
{
	_cleanup_close_ int fd = -EBADF;
	char procs[4096], self[16];
	int r = make_dirs(dir, v2, ctls);

	if (r < 0)
		return r;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	r = cr_cg_read_at(fd, "cgroup.procs", procs, sizeof(procs));
	if (r < 0)
		return r;
	for (char *p = procs; *p; p += strcspn(p, "\n"), p += strspn(p, "\n"))
		if (atoi(p) != getpid())
			return -EBUSY;
	(void)snprintf(self, sizeof(self), "%d", (int)getpid());
	r = cr_cg_write_text(fd, "cgroup.procs", self);
	return r < 0 ? r : TAKE_FD(fd);
}

int cr_cgroup_path_remove(const char *dir)
{
	for (int i = 0; i < REMOVE_TRIES; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return negative_errno();
		(void)nanosleep(&(struct timespec){ .tv_nsec = REMOVE_DELAY_NS }, NULL);
	}
	return -EBUSY;
}

static bool denied(int r)
{
	return geteuid() != 0 && (r == -EACCES || r == -EPERM || r == -EROFS);
}

static void placed_close(struct cr_cgroup_placed *pl)
{
	closep(&pl->v2_fd);
	for (int c = 0; c < _CR_CTL_MAX; c++)
		closep(&pl->v1_fd[c]);
}

/* cpu.shares (2 to 262144, 1024 the default) as cpu.weight (1 to 10000, 100 the default), the
 * conversion the kernel's documentation and other runtimes use. */
static void write_shares(const struct cr_cgroup_placed *pl, uint64_t shares)
{
	char v[32];

	if (!shares)
		return;
	if (pl->v2_ctls & (1u << CR_CTL_CPU)) {
		(void)snprintf(v, sizeof(v), "%llu",
			       (unsigned long long)(1 + ((shares - 2) * 9999) / 262142));
		(void)cr_cg_write_text(pl->v2_fd, "cpu.weight", v);
	} else if (pl->v1_fd[CR_CTL_CPU] >= 0) {
		(void)snprintf(v, sizeof(v), "%llu", (unsigned long long)shares);
		(void)cr_cg_write_text(pl->v1_fd[CR_CTL_CPU], "cpu.shares", v);
	}
}

static int place_v2(const struct cr_cgroup_host *h, const struct cr_limits *l,
		    struct cr_cgroup_placed *pl, char why[_CR_CTL_MAX][256], char *msg, size_t size)
{
	const char *path = l->cgroup_path;
	char have[512], ctls[256] = "memory pids cpu ";
	int r;

	if (!h->v2_mount[0])
		return 0;
	/* and those the other linux.resources files need (cpuset, io, hugetlb) */
	cr_cgroup_files_v2_ctls(l->files, l->n_files, ctls + strlen(ctls),
				sizeof(ctls) - strlen(ctls));
	r = cr_cgroup_path_resolve(h->v2_mount, h->v2_path, path, pl->v2_path, sizeof(pl->v2_path));
	if (r >= 0)
		r = pl->v2_fd = cr_cgroup_path_enter(pl->v2_path, true, ctls);
	if (r < 0 && denied(r)) {
		for (int c = 0; c < _CR_CTL_MAX; c++)
			cr_say(why[c], sizeof(why[c]), "cgroup2 %s: %s", pl->v2_path, strerror(-r));
		return 0;
	}
	if (r < 0)
		return cr_say(msg, size, "cgroup2 %s: %s", pl->v2_path, strerror(-r)), r;
	if (cr_cg_read_at(pl->v2_fd, "cgroup.controllers", have, sizeof(have)) < 0)
		have[0] = '\0';
	for (int c = 0; c < _CR_CTL_MAX; c++)
		if (strstr(have, cr_cgroup_ctl_name(c)))
			pl->v2_ctls |= 1u << c;
		else
			cr_say(why[c], sizeof(why[c]), "cgroup2 %s has no %s controller",
			       pl->v2_path, cr_cgroup_ctl_name(c));
	return 0;
}

static int place_v1(const struct cr_cgroup_host *h, const char *path, int c,
		    struct cr_cgroup_placed *pl, char why[_CR_CTL_MAX][256], char *msg, size_t size)
{
	size_t len = strlen(why[c]);
	int r;

	if (!h->v1_mount[c][0])
		return cr_say(why[c] + len, sizeof(why[c]) - len, "; no cgroup v1 %s hierarchy",
			      cr_cgroup_ctl_name(c)),
		       0;
	for (int d = 0; d < c; d++) /* co-mounted controllers share one directory */
		if (pl->v1_fd[d] >= 0 && strcmp(h->v1_mount[d], h->v1_mount[c]) == 0) {
			(void)strlcpy(pl->v1_path[c], pl->v1_path[d], sizeof(pl->v1_path[c]));
			pl->v1_fd[c] = fcntl(pl->v1_fd[d], F_DUPFD_CLOEXEC, 3);
			return pl->v1_fd[c] < 0 ? negative_errno() : 0;
		}
	r = cr_cgroup_path_resolve(h->v1_mount[c], h->v1_path[c], path, pl->v1_path[c],
				   sizeof(pl->v1_path[c]));
	if (r >= 0)
		r = pl->v1_fd[c] = cr_cgroup_path_enter(pl->v1_path[c], false, "");
	if (r < 0 && denied(r))
		return cr_say(why[c] + len, sizeof(why[c]) - len, "; cgroup v1 %s: %s",
			      pl->v1_path[c], strerror(-r)),
		       0;
	if (r < 0)
		return cr_say(msg, size, "cgroup v1 %s: %s", pl->v1_path[c], strerror(-r)), r;
	return 0;
}

int cr_cgroup_place(const struct cr_cgroup_host *h, const struct cr_limits *l,
		    struct cr_cgroup_placed *ret, char why[_CR_CTL_MAX][256], char *msg, size_t size)
{
	const char *path = l->cgroup_path;
	int r;

	*ret = (struct cr_cgroup_placed){ .v2_fd = -EBADF };
	for (int c = 0; c < _CR_CTL_MAX; c++)
		ret->v1_fd[c] = -EBADF;
	r = cr_cgroup_path_check(path, msg, size);
	r = r ?: place_v2(h, l, ret, why, msg, size);
	for (int c = 0; r >= 0 && c < _CR_CTL_MAX; c++)
		if (!(ret->v2_ctls & (1u << c)))
			r = place_v1(h, path, c, ret, why, msg, size);
	if (r >= 0)
		write_shares(ret, l->cpu_shares);
	if (r < 0)
		placed_close(ret);
	return r;
}
