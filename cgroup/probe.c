/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "probe.h"
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
