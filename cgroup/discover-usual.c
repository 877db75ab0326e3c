/* SPDX-License-Identifier: MIT */
/* cgroup discovery without mountinfo, for the usual layout: the kernel formats every mount of the
 * host into mountinfo at each read, which cost a run more (about 60 us here) than the rest of the
 * discovery. What mountinfo would say is checked instead, hierarchy by hierarchy; anything else
 * is left to cr_cgroup_discover(). */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cgroup-internal.h"
#include "launcher/base/macro.h"

#define CGROUP_ROOT "/sys/fs/cgroup"

/* Whether @ctls, a comma-separated controller list, names @word. */
static bool lists(const char *ctls, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = ctls; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* @dir is a mount of a cgroup file system of @magic, at the root of its hierarchy: then the
 * paths of /proc/self/cgroup are relative to it, as mountinfo's mount root "/" would say. A v1
 * hierarchy has release_agent at its root only; in v2 every cgroup but the root has
 * cgroup.type. */
static bool hierarchy_root(const char *dir, long magic)
{
	char path[PATH_MAX];
	struct statfs sf;

	if (statfs(dir, &sf) < 0 || sf.f_type != magic)
		return false;
	if (magic == CGROUP_SUPER_MAGIC) {
		(void)snprintf(path, sizeof(path), "%s/release_agent", dir);
		return access(path, F_OK) == 0;
	}
	(void)snprintf(path, sizeof(path), "%s/cgroup.type", dir);
	return access(path, F_OK) < 0 && errno == ENOENT;
}

static int take_v2(struct cr_cgroup_host *h, const char *path)
{
	const char *mnt = hierarchy_root(CGROUP_ROOT, CGROUP2_SUPER_MAGIC) ? CGROUP_ROOT
			  : hierarchy_root(CGROUP_ROOT "/unified", CGROUP2_SUPER_MAGIC)
				  ? CGROUP_ROOT "/unified"
				  : NULL;

	if (!mnt)
		return -ENOENT;
	(void)snprintf(h->v2_mount, sizeof(h->v2_mount), "%s", mnt);
	(void)snprintf(h->v2_path, sizeof(h->v2_path), "%s", path);
	return 0;
}

static int take_v1(struct cr_cgroup_host *h, const char *ctls, const char *path)
{
	char mnt[sizeof(h->v1_mount[0])];

	for (int c = 0; c < _CR_CTL_MAX; c++) {
		if (!lists(ctls, cr_cgroup_ctl_name(c)))
			continue;
		if (snprintf(mnt, sizeof(mnt), CGROUP_ROOT "/%s", ctls) >= (int)sizeof(mnt) ||
		    !hierarchy_root(mnt, CGROUP_SUPER_MAGIC))
			return -ENOENT;
		(void)snprintf(h->v1_mount[c], sizeof(h->v1_mount[c]), "%s", mnt);
		(void)snprintf(h->v1_path[c], sizeof(h->v1_path[c]), "%s", path);
	}
	return 0;
}

int cr_cgroup_discover_usual(const char *proc_cgroup, struct cr_cgroup_host *ret)
{
	_cleanup_close_ int fd = open(proc_cgroup, O_RDONLY | O_CLOEXEC);
	struct cr_cgroup_host h = {};
	char buf[4096], *save = NULL;
	ssize_t n;
	int r = 0;

	if (fd < 0)
		return negative_errno();
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return negative_errno();
	if (n == sizeof(buf)) /* more than the usual few lines: the general way */
		return -ENOENT;
	buf[n] = '\0';
	/* "ID:CONTROLLERS:PATH", one hierarchy per line; v2's is "0::PATH". */
	for (char *line = strtok_r(buf, "\n", &save); line && r >= 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char *ctls = strchr(line, ':'), *path = ctls ? strchr(ctls + 1, ':') : NULL;

		if (!path)
			continue;
		*path++ = '\0';
		*ctls++ = '\0';
		r = strcmp(line, "0") == 0 && !*ctls ? take_v2(&h, path) : take_v1(&h, ctls, path);
	}
	if (r < 0)
		return r;
	*ret = h;
	return 0;
}
