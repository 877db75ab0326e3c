/* SPDX-License-Identifier: MIT */
/* What the host offers for limits, for `corral doctor`: its cgroup layout (probe.c) and the mode
 * each limit would get here (cgroup.c). Nothing is created. */
#pragma once

#include <limits.h>
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

/* Whether the calling user has a cgroup2 directory of its own that corral can make its runs in
 * (a delegated subtree: systemd's Delegate=yes), as cgroup.c's placement would decide. */
enum cr_cgroup_delegation {
	CR_DELEGATION_ROOT,	/* root: runs go in <cgroup2>/corral, no delegation needed */
	CR_DELEGATION_OK,	/* delegated, handing out memory, pids and cpu */
	CR_DELEGATION_PARTIAL,	/* delegated, without some of them (@missing) */
	CR_DELEGATION_SHARED,	/* delegated, but other processes share it and its parent */
	CR_DELEGATION_NONE,	/* no writable cgroup2 directory (or no cgroup2 at all) */
};

struct cr_cgroup_delegation_info {
	enum cr_cgroup_delegation state;
	char base[PATH_MAX];	/* the cgroup2 directory runs would go in; empty without cgroup2 */
	char controllers[64];	/* of memory, pids and cpu, those @base can hand out */
	char missing[64];	/* of memory, pids and cpu, those it cannot */
};

/* Nothing is created or moved. */
void cr_cgroup_probe_delegation(struct cr_cgroup_delegation_info *ret);
const char *cr_cgroup_delegation_to_string(enum cr_cgroup_delegation d);
