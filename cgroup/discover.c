/* SPDX-License-Identifier: MIT */
/* Where the cgroup hierarchies are and where this process sits in them, from mountinfo and
 * /proc/self/cgroup. Pure but for reading the two files, so the unit tests feed fixtures. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup-internal.h"
#include "cgroup.h"
#include "launcher/base/macro.h"

static const char *const ctl_names[_CR_CTL_MAX] = {
	[CR_CTL_MEMORY] = "memory",
	[CR_CTL_PIDS] = "pids",
	[CR_CTL_CPU] = "cpu",
};

const char *cr_cgroup_ctl_name(enum cr_cgroup_ctl c)
{
	return c < _CR_CTL_MAX ? ctl_names[c] : NULL;
}

/* Whether the comma-separated @list holds @word. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0' || p[n] == ' '))
			return true;
	return false;
}

/* Mount root of each hierarchy (to make /proc/self/cgroup paths relative to the mount). */
struct mount_roots {
	char v2[512];
	char v1[_CR_CTL_MAX][512];
};

static void take_mount(struct cr_cgroup_host *h, struct mount_roots *roots, const char *root,
		       const char *mnt, const char *fstype, const char *super)
{
	if (strcmp(fstype, "cgroup2") == 0 && !h->v2_mount[0]) {
		(void)snprintf(h->v2_mount, sizeof(h->v2_mount), "%s", mnt);
		(void)snprintf(roots->v2, sizeof(roots->v2), "%s", root);
		return;
	}
	if (strcmp(fstype, "cgroup") != 0)
		return;
	for (int c = 0; c < _CR_CTL_MAX; c++)
		if (!h->v1_mount[c][0] && has_word(super, ctl_names[c])) {
			(void)snprintf(h->v1_mount[c], sizeof(h->v1_mount[c]), "%s", mnt);
			(void)snprintf(roots->v1[c], sizeof(roots->v1[c]), "%s", root);
		}
}

/* The whole of a /proc file, NUL-terminated, in a buffer of the caller's (free()), with as few
 * read()s as its size allows: the kernel formats mountinfo anew at every read() that starts past
 * the beginning, so stdio's 1 KiB reads cost a walk of the mount table each. */
static int read_whole(const char *path, char **ret)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t size = 16384, len = 0;
	_cleanup_free_ char *buf = NULL;

	if (fd < 0)
		return negative_errno();
	for (;;) {
		ssize_t n;

		if (!buf || len + 1 == size) {
			char *b = realloc(buf, size *= buf ? 2 : 1);

			if (!b)
				return -ENOMEM;
			buf = b;
		}
		n = read(fd, buf + len, size - len - 1);
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
	return 0;
}

static int read_mountinfo(const char *path, struct cr_cgroup_host *h, struct mount_roots *roots)
{
	char root[512], mnt[256], fstype[64], super[512], *save = NULL;
	_cleanup_free_ char *text = NULL;
	int r = read_whole(path, &text);

	if (r < 0)
		return r;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *sep = strstr(line, " - ");

		/* id parent maj:min root mountpoint options [optional...] - fstype source super */
		if (!sep || sscanf(line, "%*s %*s %*s %511s %255s", root, mnt) != 2 ||
		    sscanf(sep + 3, "%63s %*s %511s", fstype, super) != 2)
			continue;
		take_mount(h, roots, root, mnt, fstype, super);
	}
	return 0;
}

/* @path relative to the mount whose root is @root: "/a/b" under root "/a" is "/b". */
static void relative_to(char *path, size_t size, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0 || strncmp(path, root, n) != 0 || (path[n] && path[n] != '/'))
		return;
	memmove(path, path + n, strlen(path + n) + 1);
	if (!path[0])
		(void)snprintf(path, size, "/");
}

static int read_proc_cgroup(const char *path, struct cr_cgroup_host *h, const struct mount_roots *roots)
{
	_cleanup_free_ char *text = NULL;
	char *save = NULL;
	int r = read_whole(path, &text);

	if (r < 0)
		return r;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *ctls = strchr(line, ':'), *p = ctls ? strchr(ctls + 1, ':') : NULL;

		if (!p)
			continue;
		*p++ = '\0';
		ctls++;
		if (strncmp(line, "0", 1) == 0 && !*ctls) {
			(void)snprintf(h->v2_path, sizeof(h->v2_path), "%s", p);
			relative_to(h->v2_path, sizeof(h->v2_path), roots->v2);
			continue;
		}
		for (int c = 0; c < _CR_CTL_MAX; c++)
			if (has_word(ctls, ctl_names[c])) {
				(void)snprintf(h->v1_path[c], sizeof(h->v1_path[c]), "%s", p);
				relative_to(h->v1_path[c], sizeof(h->v1_path[c]), roots->v1[c]);
			}
	}
	return 0;
}

int cr_cgroup_discover(const char *mountinfo, const char *proc_cgroup, struct cr_cgroup_host *ret)
{
	struct cr_cgroup_host h = {};
	struct mount_roots roots = {};
	int r;

	r = read_mountinfo(mountinfo, &h, &roots);
	if (r >= 0)
		r = read_proc_cgroup(proc_cgroup, &h, &roots);
	if (r < 0)
		return r;
	/* A hierarchy we are not listed in (or not mounted) is of no use. */
	if (!h.v2_path[0])
		h.v2_mount[0] = '\0';
	for (int c = 0; c < _CR_CTL_MAX; c++)
		if (!h.v1_path[c][0] || !h.v1_mount[c][0])
			h.v1_mount[c][0] = h.v1_path[c][0] = '\0';
	*ret = h;
	return 0;
}

#define LAUNCHER_LEAF "corral-launcher"

int cr_cgroup_v2_base(const struct cr_cgroup_host *h, bool is_root, char *buf, size_t size)
{
	const char *own = h->v2_path, *slash = strrchr(own, '/');
	int n;

	if (!h->v2_mount[0])
		return -ENOENT;
	if (is_root)
		n = snprintf(buf, size, "%s/corral", h->v2_mount);
	else if (slash && strcmp(slash + 1, LAUNCHER_LEAF) == 0)
		n = snprintf(buf, size, "%s%.*s", h->v2_mount, (int)(slash - own), own);
	else
		n = snprintf(buf, size, "%s%s", h->v2_mount, strcmp(own, "/") == 0 ? "" : own);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}
