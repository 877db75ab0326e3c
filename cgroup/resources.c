/* SPDX-License-Identifier: MIT */
/* The OCI door's other linux.resources in the caller's cgroup (resources.h). The v1 hierarchies
 * of the controllers corral's own limits do not use are found here, from mountinfo, when a
 * cgroupsPath asks for them; nothing prints. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "cgroup-internal.h"
#include "resources.h"

/* The v1 controllers linux.resources names beyond memory, pids and cpu, with their cgroup2
 * names (NULL: cgroup2 has none). */
static const struct {
	const char *v1, *v2;
} extras[] = {
	{ "cpuset", "cpuset" }, { "devices", NULL },  { "blkio", "io" },
	{ "hugetlb", "hugetlb" }, { "net_cls", NULL }, { "net_prio", NULL },
};
#define N_EXTRAS (sizeof(extras) / sizeof(extras[0]))

struct v1_dir {
	int fd; /* -errno: not entered (-ENOENT: no such hierarchy) */
	char mount[256], path[PATH_MAX];
};

/* Where the v1 hierarchy of controller @ctl is mounted, and this process's directory in it,
 * relative to the mount. 0, or -ENOENT when it is not mounted. */
static int v1_find(const char *ctl, char *mount, size_t msize, char *own, size_t osize)
{
	_cleanup_fclose_ FILE *mi = fopen("/proc/self/mountinfo", "re");
	_cleanup_fclose_ FILE *pc = NULL;
	_cleanup_free_ char *line = NULL;
	char root[PATH_MAX] = "";
	size_t cap = 0;

	mount[0] = '\0';
	while (mi && getline(&line, &cap, mi) > 0) {
		char r[PATH_MAX], m[256], *dash = strstr(line, " - cgroup "), *opts;

		if (!dash || sscanf(line, "%*s %*s %*s %4095s %255s", r, m) != 2)
			continue;
		opts = strrchr(dash, ' ');
		if (opts && cr_cgroup_has_word(opts + 1, ctl)) {
			(void)snprintf(mount, msize, "%s", m);
			(void)snprintf(root, sizeof(root), "%s", r);
			break;
		}
	}
	if (!mount[0])
		return -ENOENT;
	pc = fopen("/proc/self/cgroup", "re");
	while (pc && getline(&line, &cap, pc) > 0) {
		char *ctls = strchr(line, ':'), *p = ctls ? strchr(ctls + 1, ':') : NULL;
		size_t rlen = strcmp(root, "/") == 0 ? 0 : strlen(root);

		if (!p)
			continue;
		*p++ = '\0';
		p[strcspn(p, "\n")] = '\0';
		if (!cr_cgroup_has_word(ctls + 1, ctl))
			continue;
		if (rlen && strncmp(p, root, rlen) == 0)
			p += rlen;
		(void)snprintf(own, osize, "%s", p[0] ? p : "/");
		return 0;
	}
	return -ENOENT;
}

/* A new cpuset has no cpus nor mems, and takes no process: its parent's, level by level. */
static int cpuset_init(const char *dir)
{
	char buf[PATH_MAX], v[256];

	if (strlen(dir) >= sizeof(buf))
		return -ENAMETOOLONG;
	(void)strlcpy(buf, dir, sizeof(buf));
	for (char *p = strchr(buf + 1, '/');; p = strchr(p + 1, '/')) {
		_cleanup_close_ int parent = -EBADF, fd = -EBADF;
		char *slash;

		if (p)
			*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return negative_errno();
		slash = strrchr(buf, '/');
		*slash = '\0';
		parent = open(buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		*slash = '/';
		fd = open(buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		for (int k = 0; fd >= 0 && parent >= 0 && k < 2; k++) {
			const char *f = k ? "cpuset.mems" : "cpuset.cpus";

			if (cr_cg_read_at(fd, f, v, sizeof(v)) == 0 && v[0] == '\n' &&
			    cr_cg_read_at(parent, f, v, sizeof(v)) == 0)
				(void)cr_cg_write_text(fd, f, v);
		}
		if (!p)
			return 0;
		*p = '/';
	}
}

static bool denied(int r)
{
	return geteuid() != 0 && (r == -EACCES || r == -EPERM || r == -EROFS);
}

/* Enter @path in the v1 hierarchy of extras[@k] when cgroup2 (@v2_have) lacks it. */
static int enter_extra(size_t k, const char *path, const char *v2_have, struct v1_dir *d,
		       struct v1_dir *all, char *msg, size_t size)
{
	char own[PATH_MAX];
	int r;

	d->fd = -ENOENT;
	if (extras[k].v2 && cr_cgroup_has_word(v2_have, extras[k].v2))
		return 0;
	if (v1_find(extras[k].v1, d->mount, sizeof(d->mount), own, sizeof(own)) < 0)
		return 0;
	for (size_t j = 0; j < k; j++) /* co-mounted controllers (net_cls,net_prio) share one */
		if (all[j].fd >= 0 && strcmp(all[j].mount, d->mount) == 0) {
			(void)strlcpy(d->path, all[j].path, sizeof(d->path));
			d->fd = fcntl(all[j].fd, F_DUPFD_CLOEXEC, 3);
			return d->fd < 0 ? negative_errno() : 0;
		}
	r = cr_cgroup_path_resolve(d->mount, own, path, d->path, sizeof(d->path));
	if (r >= 0 && strcmp(extras[k].v1, "cpuset") == 0)
		r = cpuset_init(d->path);
	if (r >= 0)
		r = d->fd = cr_cgroup_path_enter(d->path, false, "");
	if (r < 0 && denied(r))
		return 0; /* a user's: an error only if a file needs it */
	if (r < 0)
		return cr_say(msg, size, "cgroup v1 %s: %s", d->path, strerror(-r)), r;
	return 0;
}

/* The open directory @f goes to (its v1 or v2 form in @ret_v2), and its path; -errno when the
 * host has none, the reason in @why. */
static int target(const struct cr_cgroup_placed *pl, const char *v2_have,
		  const struct v1_dir *x, const struct cr_cgroup_file *f, bool *ret_v2,
		  const char **ret_path, char *why, size_t size)
{
	*ret_v2 = false;
	if (f->v2_ctl[0] && pl->v2_fd >= 0 && cr_cgroup_has_word(v2_have, f->v2_ctl)) {
		*ret_v2 = true;
		*ret_path = pl->v2_path;
		return pl->v2_fd;
	}
	for (int c = 0; c < _CR_CTL_MAX; c++)
		if (strcmp(f->v1_ctl, cr_cgroup_ctl_name(c)) == 0 && pl->v1_fd[c] >= 0) {
			*ret_path = pl->v1_path[c];
			return pl->v1_fd[c];
		}
	for (size_t k = 0; k < N_EXTRAS; k++)
		if (strcmp(f->v1_ctl, extras[k].v1) == 0 && x[k].fd >= 0) {
			*ret_path = x[k].path;
			return x[k].fd;
		}
	if (f->v2_why[0])
		cr_say(why, size, "%s, and there is no cgroup v1 %s hierarchy (writable) here",
		       f->v2_why, f->v1_ctl);
	else
		cr_say(why, size,
		       "no cgroup2 %s controller nor cgroup v1 %s hierarchy (writable) here",
		       f->v2_ctl, f->v1_ctl);
	return -EOPNOTSUPP;
}

static int write_one(const struct cr_cgroup_file *f, int dfd, bool v2, const char *dir,
		     char *msg, size_t size)
{
	const char *file = v2 ? f->v2_file : f->v1_file, *value = v2 ? f->v2_value : f->v1_value;
	char back[64];
	int r = cr_cg_write_text(dfd, file, value);

	if (r < 0)
		return cr_say(msg, size, "%s: writing '%s' to %s/%s: %s", f->field, value, dir, file,
			      strerror(-r)),
		       r;
	if (f->check && cr_cg_read_at(dfd, file, back, sizeof(back)) == 0 &&
	    strtoll(back, NULL, 10) != strtoll(value, NULL, 10))
		return cr_say(msg, size,
			      "%s: this kernel takes %s/%s but does not enforce it (it reads back %.*s)",
			      f->field, dir, file, (int)strcspn(back, "\n"), back),
		       -EOPNOTSUPP;
	return 0;
}

static int write_files(const struct cr_cgroup_placed *pl, const char *v2_have,
		       const struct v1_dir *x, const struct cr_cgroup_file *files, size_t n,
		       char *msg, size_t size)
{
	for (size_t i = 0; i < n; i++) {
		const struct cr_cgroup_file *f = &files[i];
		const char *dir = "";
		char why[256];
		bool v2;
		int r, fd = target(pl, v2_have, x, f, &v2, &dir, why, sizeof(why));

		if (fd < 0 && f->optional)
			continue;
		if (fd < 0 && !f->v2_ctl[0] && !f->v2_why[0] && pl->v2_fd >= 0)
			continue; /* its cgroup2 form is another file's (cpu.max) */
		if (fd < 0)
			return cr_say(msg, size, "%s: cannot be applied: %s", f->field, why), fd;
		if (v2 ? !f->v2_file[0] : !f->v1_file[0])
			continue;
		r = write_one(f, fd, v2, dir, msg, size);
		if (r < 0)
			return r;
	}
	return 0;
}

int cr_cgroup_place_files(const struct cr_cgroup_placed *pl, const char *path,
			  const struct cr_cgroup_file *files, size_t n, char *msg, size_t size)
{
	struct v1_dir x[N_EXTRAS];
	char have[512] = "";
	int r = 0;

	if (pl->v2_fd >= 0 && cr_cg_read_at(pl->v2_fd, "cgroup.controllers", have, sizeof(have)) < 0)
		have[0] = '\0';
	for (size_t k = 0; k < N_EXTRAS; k++)
		x[k].fd = -ENOENT;
	for (size_t k = 0; r >= 0 && k < N_EXTRAS; k++)
		r = enter_extra(k, path, have, &x[k], x, msg, size);
	if (r >= 0)
		r = write_files(pl, have, x, files, n, msg, size);
	for (size_t k = 0; k < N_EXTRAS; k++)
		closep(&x[k].fd);
	return r;
}

static int unplace_extras(const char *path)
{
	char mounts[N_EXTRAS][256], own[PATH_MAX], dir[PATH_MAX];
	int r = 0;

	for (size_t k = 0; k < N_EXTRAS; k++) {
		bool seen = false;
		int q;

		if (v1_find(extras[k].v1, mounts[k], sizeof(mounts[k]), own, sizeof(own)) < 0) {
			mounts[k][0] = '\0';
			continue;
		}
		for (size_t j = 0; j < k; j++)
			seen = seen || strcmp(mounts[j], mounts[k]) == 0;
		if (seen || cr_cgroup_path_resolve(mounts[k], own, path, dir, sizeof(dir)) < 0)
			continue;
		q = cr_cgroup_path_remove(dir);
		r = r ?: q;
	}
	return r;
}

int cr_cgroup_unplace(const char *path)
{
	struct cr_cgroup_host h;
	char dir[PATH_MAX], err[256];
	int r = 0, k2;

	if (cr_cgroup_path_check(path, err, sizeof(err)) < 0)
		return -EINVAL;
	if (cr_cgroup_discover_usual("/proc/self/cgroup", &h) < 0 &&
	    cr_cgroup_discover("/proc/self/mountinfo", "/proc/self/cgroup", &h) < 0)
		return -ENOENT;
	if (h.v2_mount[0] && cr_cgroup_path_resolve(h.v2_mount, h.v2_path, path, dir, sizeof(dir)) == 0)
		r = cr_cgroup_path_remove(dir);
	for (int c = 0; c < _CR_CTL_MAX; c++) {
		bool seen = !h.v1_mount[c][0];

		for (int d = 0; d < c; d++)
			seen = seen || strcmp(h.v1_mount[d], h.v1_mount[c]) == 0;
		if (!seen &&
		    cr_cgroup_path_resolve(h.v1_mount[c], h.v1_path[c], path, dir, sizeof(dir)) == 0) {
			int k = cr_cgroup_path_remove(dir);

			r = r ?: k;
		}
	}
	k2 = unplace_extras(path);
	return r ?: k2;
}
