/* SPDX-License-Identifier: MIT */
/* The sandbox's single uid and gid mapping. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct cr_idmap {
	uint32_t inside_uid, outside_uid;
	uint32_t inside_gid, outside_gid;
};

/* Choose the mapping. A normal user is mapped to itself (or to 0 inside with @map_root). Root is
 * never mapped to itself: the sandbox runs as @root_uid/@root_gid on the host, so a write that gets
 * past the mounts still meets the permissions of an unprivileged user. Pure; never fails. */
void cr_idmap_compute(uint32_t uid, uint32_t gid, bool map_root, uint32_t root_uid,
		      uint32_t root_gid, struct cr_idmap *ret);

/* Format one map line "INSIDE OUTSIDE 1\n" into @buf. Returns its length. */
int cr_idmap_format(uint32_t inside, uint32_t outside, char *buf, size_t size);

/* Write setgroups=deny, uid_map and gid_map of process @pid. 0 or -errno; on failure
 * @ret_file names the file that was refused. */
int cr_idmap_write(pid_t pid, const struct cr_idmap *map, const char **ret_file);
