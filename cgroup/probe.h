/* SPDX-License-Identifier: MIT */
/* What the host offers for limits, for `corral doctor`: its cgroup layout (probe.c) and the mode
 * each limit would get here (cgroup.c). Nothing is created. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "launcher/policy/limits.h"

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

/* What mode each limit would get here, without creating anything (corral doctor); a line on the
 * cgroup2 parent and the v1 hierarchies in @detail. */
void cr_cgroup_probe_modes(enum cr_limit_mode ret_modes[_CR_LIMIT_MAX], char *detail, size_t size);
