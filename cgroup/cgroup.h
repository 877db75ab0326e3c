/* SPDX-License-Identifier: MIT */
/* cgroups: memory, pids and cpu limits for a run. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

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

/* --- the limits of one run (cgroup.c, v1.c, rlimit.c) ---------------------------------------- */

#include <sys/types.h>

#include "launcher/policy/limits.h"

/* What a run enforces and how. Filled by cr_cgroup_create(), read by the JSON report. */
struct cr_limits_report {
	uint64_t value[_CR_LIMIT_MAX];
	enum cr_limit_mode mode[_CR_LIMIT_MAX];
	char why[_CR_LIMIT_MAX][512]; /* for a finite limit in mode none: why it is not enforced */
};

/* The rlimits pid 1 sets before it forks the command, computed by the parent. */
#define CR_RLIMITS_MAX 8
struct cr_rlimits {
	struct {
		int resource;
		uint64_t value;
	} r[CR_RLIMITS_MAX];
	unsigned n;
};

struct cr_cgroup; /* the cgroup(s) of one run; opaque */

/* Create the run's cgroups (cgroup v2 first, v1 for controllers v2 lacks here) and write the
 * limits; what no cgroup can enforce falls back to an rlimit, or to none (a memory limit that
 * is a default, not in @limits->set, falls back to none: see assign()). Also removes the
 * cgroups of launchers that were killed (stale run-PID-N directories whose PID is gone).
 * With @limits->required, a limit that ends up in mode none fails with -EOPNOTSUPP and a reason
 * in @msg. Returns 0 or -errno; never prints. */
int cr_cgroup_create(const struct cr_limits *limits, struct cr_cgroup **ret, char *msg,
		     size_t msg_size);
/* The cgroup v2 directory to clone3(CLONE_INTO_CGROUP) the child into, or -EBADF for none. */
int cr_cgroup_clone_fd(const struct cr_cgroup *cg);
/* Move @pid into the run's cgroups where clone3 could not place it: the v2 directory unless
 * @in_v2 (CLONE_INTO_CGROUP did it), and with @v1 every v1 hierarchy (else the child joins them
 * itself with cr_cgroup_join(), which is much cheaper). Before the child does anything. */
int cr_cgroup_attach(struct cr_cgroup *cg, pid_t pid, bool in_v2, bool v1);
/* In the child, before it does anything that a limit counts: move the calling (single-threaded)
 * process into the run's v1 hierarchies, through tasks files the parent opened in
 * cr_cgroup_create(), and close the child's copies of them. 0 or -errno. */
int cr_cgroup_join(struct cr_cgroup *cg);
/* After the run: whether the OOM killer killed a process, whether fork hit the pids limit. */
void cr_cgroup_events(struct cr_cgroup *cg, bool *ret_oom_killed, bool *ret_pids_hit);
/* The counters behind them so far: OOM kills (memory.events or v1's memory.oom_control) and
 * forks refused at pids.max (pids.events); 0 where no cgroup of the run counts them. A warm
 * sandbox's exec compares them before and after. */
void cr_cgroup_counters(struct cr_cgroup *cg, uint64_t *ret_oom_kills, uint64_t *ret_pids_max);
const struct cr_limits_report *cr_cgroup_report(const struct cr_cgroup *cg);
/* {"memory": {"value": N|"max"|null, "mode": "cgroup2|cgroup1|rlimit|none"}, ...}: the
 * enforced.limits object of the JSON status. NULL on allocation failure. */
struct json_object *cr_limits_report_json(const struct cr_limits_report *rep);
const struct cr_rlimits *cr_cgroup_rlimits(const struct cr_cgroup *cg);
/* Milliseconds spent creating the cgroups, writing the limits and placing the child. */
double cr_cgroup_setup_ms(const struct cr_cgroup *cg);
/* Kill what is left in the run's cgroups and remove them. Accepts NULL, returns NULL. */
struct cr_cgroup *cr_cgroup_free(struct cr_cgroup *cg);

/* What mode each limit would get here, without creating anything (corral doctor). */
void cr_cgroup_probe_modes(enum cr_limit_mode ret_modes[_CR_LIMIT_MAX], char *detail, size_t size);

/* In the child (pid 1): set every rlimit in @rl (soft = hard, lowered to the current hard limit
 * where that is lower), and RLIMIT_CORE to 0. 0 or -errno. */
int cr_rlimits_apply(const struct cr_rlimits *rl);
