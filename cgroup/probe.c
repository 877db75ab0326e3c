/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cgroup-internal.h"
#include "probe.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"

const char *cr_cgroup_layout_to_string(enum cr_cgroup_layout layout)
{
	switch (layout) {
	case CR_CGROUP_V1:
		return "v1";
	case CR_CGROUP_HYBRID:
		return "hybrid";
	case CR_CGROUP_V2:
		return "v2";
	case CR_CGROUP_NONE:
	default:
		return "none";
	}
}

const char *cr_cgroup_delegation_to_string(enum cr_cgroup_delegation d)
{
	switch (d) {
	case CR_DELEGATION_ROOT:
		return "root";
	case CR_DELEGATION_OK:
		return "delegated";
	case CR_DELEGATION_PARTIAL:
		return "partial";
	case CR_DELEGATION_SHARED:
		return "shared";
	case CR_DELEGATION_NONE:
	default:
		return "none";
	}
}

static bool is_fs(const char *path, long magic)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && sfs.f_type == magic;
}

static void read_line(const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* The directory of our own cgroup on the unified hierarchy mounted at @mnt. */
static bool own_cgroup_writable(const char *mnt)
{
	char line[512] = "", path[1024];
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "0::", 3) == 0)
			break;
	(void)fclose(f);
	if (strncmp(line, "0::", 3) != 0)
		return false;
	line[strcspn(line, "\n")] = '\0';
	(void)snprintf(path, sizeof(path), "%s%s", mnt, line + 3);
	return access(path, W_OK) == 0;
}

void cr_cgroup_probe(struct cr_cgroup_info *ret)
{
	struct cr_cgroup_info info = {};
	const char *v2 = NULL;
	char path[256];

	if (is_fs("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC)) {
		info.layout = CR_CGROUP_V2;
		v2 = "/sys/fs/cgroup";
	} else if (is_fs("/sys/fs/cgroup", TMPFS_MAGIC)) {
		info.v1_memory = is_fs("/sys/fs/cgroup/memory", CGROUP_SUPER_MAGIC);
		info.v1_pids = is_fs("/sys/fs/cgroup/pids", CGROUP_SUPER_MAGIC);
		if (is_fs("/sys/fs/cgroup/unified", CGROUP2_SUPER_MAGIC))
			v2 = "/sys/fs/cgroup/unified";
		info.layout = v2 ? CR_CGROUP_HYBRID : CR_CGROUP_V1;
	}
	if (v2) {
		(void)snprintf(path, sizeof(path), "%s/cgroup.controllers", v2);
		read_line(path, info.v2_controllers, sizeof(info.v2_controllers));
		info.v2_writable = own_cgroup_writable(v2);
	}
	*ret = info;
}

/* --- corral doctor ---------------------------------------------------------------------------- */

/* Where a user's runs would go, as v2_user_base() decides, without moving anything. */
static void v2_user_base_dry(const char *mount, char *base)
{
	_cleanup_close_ int fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC), pfd = -EBADF;
	char *slash = strrchr(base, '/');

	if (fd < 0 || cr_cg_procs_empty(fd, true) != 0)
		return; /* corral alone: its own cgroup, after the move into the leaf */
	if (!slash || (size_t)(slash - base) <= strlen(mount))
		return;
	*slash = '\0';
	pfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0 || faccessat(pfd, "cgroup.subtree_control", W_OK, 0) < 0 ||
	    cr_cg_procs_empty(pfd, false) <= 0)
		*slash = '/'; /* the parent is unusable: report the own cgroup */
}

void cr_cgroup_probe_modes(enum cr_limit_mode modes[_CR_LIMIT_MAX], char *detail, size_t size)
{
	const struct cr_cgroup_host *h = cr_cg_host();
	char base[PATH_MAX] = "", avail[256] = "", dir[PATH_MAX];
	enum cr_limit_mode ctl_mode[_CR_CTL_MAX] = {};
	bool root = geteuid() == 0;
	size_t len;

	if (cr_cgroup_v2_base(h, root, base, sizeof(base)) == 0) {
		if (!root)
			v2_user_base_dry(h->v2_mount, base);
		_cleanup_close_ int fd = -EBADF;

		fd = open(root ? h->v2_mount : base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd >= 0 && faccessat(fd, "cgroup.subtree_control", W_OK, 0) == 0)
			(void)cr_cg_read_at(fd, "cgroup.controllers", avail, sizeof(avail));
		avail[strcspn(avail, "\n")] = '\0';
	}
	for (int c = 0; c < _CR_CTL_MAX; c++) {
		(void)snprintf(dir, sizeof(dir), "%s%s", h->v1_mount[c],
			       strcmp(h->v1_path[c], "/") == 0 ? "" : h->v1_path[c]);
		if (cr_cg_has_word(avail, cr_cgroup_ctl_name(c)))
			ctl_mode[c] = CR_LIMIT_MODE_CGROUP2;
		else if (h->v1_mount[c][0] && access(dir, W_OK) == 0)
			ctl_mode[c] = CR_LIMIT_MODE_CGROUP1;
	}
	for (int l = 0; l < _CR_LIMIT_MAX; l++) {
		int c = cr_cg_limit_ctl(l);

		modes[l] = c >= 0 ? ctl_mode[c] : CR_LIMIT_MODE_NONE;
		if (modes[l] == CR_LIMIT_MODE_NONE && cr_cg_limit_rlimit(l) >= 0)
			modes[l] = CR_LIMIT_MODE_RLIMIT;
	}
	cr_say(detail, size, "cgroup2 parent %s (controllers it can hand out: [%s])",
	       base[0] ? base : "none", avail);
	len = strlen(detail);
	for (int c = 0; c < _CR_CTL_MAX; c++)
		if (h->v1_mount[c][0] && len < size)
			len += (size_t)snprintf(detail + len, size - len, "; cgroup v1 %s at %s%s",
						cr_cgroup_ctl_name(c), h->v1_mount[c], h->v1_path[c]);
}

void cr_cgroup_probe_delegation(struct cr_cgroup_delegation_info *ret)
{
	const struct cr_cgroup_host *h = cr_cg_host();
	struct cr_cgroup_delegation_info d = { .state = CR_DELEGATION_NONE };
	_cleanup_close_ int fd = -EBADF;
	char avail[256] = "";
	size_t nc = 0, nm = 0;

	if (cr_cgroup_v2_base(h, geteuid() == 0, d.base, sizeof(d.base)) < 0) {
		d.base[0] = '\0';
		*ret = d;
		return;
	}
	if (geteuid() == 0) {
		d.state = CR_DELEGATION_ROOT;
		*ret = d;
		return;
	}
	v2_user_base_dry(h->v2_mount, d.base);
	fd = open(d.base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || faccessat(fd, "cgroup.subtree_control", W_OK, 0) < 0) {
		*ret = d;
		return;
	}
	(void)cr_cg_read_at(fd, "cgroup.controllers", avail, sizeof(avail));
	for (int c = 0; c < _CR_CTL_MAX; c++) {
		const char *name = cr_cgroup_ctl_name(c);

		if (cr_cg_has_word(avail, name))
			nc += (size_t)snprintf(d.controllers + nc, sizeof(d.controllers) - nc, "%s%s",
					       nc ? " " : "", name);
		else
			nm += (size_t)snprintf(d.missing + nm, sizeof(d.missing) - nm, "%s%s",
					       nm ? " " : "", name);
	}
	d.state = cr_cg_procs_empty(fd, true) == 0 ? CR_DELEGATION_SHARED
		  : nm			      ? CR_DELEGATION_PARTIAL
						      : CR_DELEGATION_OK;
	*ret = d;
}
