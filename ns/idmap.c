/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "idmap.h"
#include "launcher/base/macro.h"

void cr_idmap_compute(uint32_t uid, uint32_t gid, bool map_root, uint32_t root_uid,
		      uint32_t root_gid, struct cr_idmap *ret)
{
	uint32_t out_uid = uid == 0 ? root_uid : uid;
	uint32_t out_gid = uid == 0 ? root_gid : gid;

	*ret = (struct cr_idmap){
		.inside_uid = map_root ? 0 : out_uid,
		.outside_uid = out_uid,
		.inside_gid = map_root ? 0 : out_gid,
		.outside_gid = out_gid,
	};
}

int cr_idmap_format(uint32_t inside, uint32_t outside, char *buf, size_t size)
{
	return snprintf(buf, size, "%u %u 1\n", inside, outside);
}

static int write_file(pid_t pid, const char *name, const char *content)
{
	_cleanup_close_ int fd = -EBADF;
	char path[64];
	size_t len = strlen(content);
	ssize_t n;

	(void)snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	n = write(fd, content, len);
	if (n < 0)
		return negative_errno();
	return (size_t)n == len ? 0 : -EIO;
}

int cr_idmap_write(pid_t pid, const struct cr_idmap *map, const char **ret_file)
{
	char line[64];
	int r;

	/* Without "deny" an unprivileged writer may not map gids, and the sandbox could drop
	 * supplementary groups that deny it access. */
	r = write_file(pid, "setgroups", "deny");
	if (r < 0 && r != -ENOENT) {
		*ret_file = "setgroups";
		return r;
	}
	(void)cr_idmap_format(map->inside_uid, map->outside_uid, line, sizeof(line));
	r = write_file(pid, "uid_map", line);
	if (r < 0) {
		*ret_file = "uid_map";
		return r;
	}
	(void)cr_idmap_format(map->inside_gid, map->outside_gid, line, sizeof(line));
	r = write_file(pid, "gid_map", line);
	if (r < 0) {
		*ret_file = "gid_map";
		return r;
	}
	return 0;
}
