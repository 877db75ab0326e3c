/* SPDX-License-Identifier: MIT */
/* The OCI door's other linux.resources (struct cr_cgroup_file: memory.reservation, cpu.cpus,
 * blockIO, hugepageLimits, network, devices...) written into the caller's cgroup that
 * cr_cgroup_place() entered, and the v1 hierarchies of the controllers they use (cpuset,
 * devices, blkio, hugetlb, net_cls, net_prio) made and entered beside it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "launcher/policy/limits.h"
#include "place.h"

/* Enter @path (checked) in the v1 hierarchy of each of those controllers that cgroup2 (@pl) does
 * not have (a new cpuset takes its parent's cpus and mems), then write each of @files where the
 * host has it: cgroup2 when @pl's directory has its v2 controller, else its v1 hierarchy. A file
 * the host has no place for fails, naming its field (a device rule does not: nodev enforces it
 * there). For a user, a v1 hierarchy it may not write is left out unless a file needs it.
 * 0, or -errno with the reason in @msg. */
int cr_cgroup_place_files(const struct cr_cgroup_placed *pl, const char *path,
			  const struct cr_cgroup_file *files, size_t n, char *msg, size_t size);

/* At the OCI door's `delete` (and a failed `create`): remove @path's directory
 * (cr_cgroup_path_remove()) in each hierarchy corral uses and in those v1 ones, found again from
 * this process (a relative path from its own cgroup). 0, or the first -errno. */
int cr_cgroup_unplace(const char *path);
