/* SPDX-License-Identifier: MIT */
/* cgroups: memory, pids and cpu limits for a run. */
#pragma once

#include <stdbool.h>

enum cr_cgroup_layout {
	CR_CGROUP_NONE,	  /* no cgroup filesystem mounted */
	CR_CGROUP_V1,	  /* legacy hierarchies only */
	CR_CGROUP_HYBRID, /* v1 controllers plus an (often empty) cgroup2 mount */
	CR_CGROUP_V2,	  /* unified hierarchy */
};

struct cr_cgroup_info {
	enum cr_cgroup_layout layout;
	char v2_controllers[128]; /* controllers the cgroup2 root offers, space-separated */
	bool v2_writable;	  /* corral's own cgroup2 directory can be written (delegated) */
	bool v1_memory, v1_pids;  /* legacy controllers mounted */
};

/* Inspect the host's cgroup mounts. Never fails; unknown means CR_CGROUP_NONE. */
void cr_cgroup_probe(struct cr_cgroup_info *ret);
const char *cr_cgroup_layout_to_string(enum cr_cgroup_layout layout);
