/* SPDX-License-Identifier: MIT */
/* cgroups: the memory, pids and cpu limits of one run (cgroup.c), with the rlimit fallback for
 * what no cgroup can hold (rlimit.h) and the report of how each limit is enforced (report.h).
 * What the host offers, for corral doctor: probe.h. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "launcher/policy/limits.h"
#include "cgroup/report.h"
#include "cgroup/rlimit.h"

struct cr_cgroup; /* the cgroup(s) of one run; opaque */

/* Create the run's cgroups (cgroup v2 first, v1 for controllers v2 lacks here) and write the
 * limits; what no cgroup can enforce falls back to an rlimit, or to none (a memory limit that
 * is a default, not in @limits->set, falls back to none: see assign()). With @limits->required, a limit that ends up in mode none fails with -EOPNOTSUPP and a reason
 * in @msg. With @defer, a v1 run directory whose base directory is there and writable is left
 * to cr_cgroup_realize(), and its limits reported as written there (cr_cgroup_pending()).
 * Returns 0 or -errno; never prints. */
int cr_cgroup_create(const struct cr_limits *limits, bool defer, struct cr_cgroup **ret,
		     char *msg, size_t msg_size);
/* Whether cr_cgroup_create() left v1 directories to cr_cgroup_realize(). */
bool cr_cgroup_pending(const struct cr_cgroup *cg);
/* After clone, while the sandbox builds itself: make the v1 directories cr_cgroup_create()
 * deferred and write their limits, into @ret_tasks the @ret_n tasks files the child joins them
 * through (cr_cgroup_join_tasks(); owned by @cg). 0, or -errno when any of it failed: then the
 * report and rlimits no longer say what happened, and the run must start again with a @cg made
 * without @defer (cr_cgroup_free() this one first: it removes what was made). */
#define CR_CGROUP_TASKS_MAX 3 /* one per controller: memory, pids, cpu */
int cr_cgroup_realize(struct cr_cgroup *cg, int ret_tasks[CR_CGROUP_TASKS_MAX], size_t *ret_n);
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
/* The same through @n tasks files (negative entries skipped), each closed once joined. */
int cr_cgroup_join_tasks(int *tasks, size_t n);
/* Remove the cgroups of launchers that were killed (stale run-PID-N directories whose PID is
 * gone) beside the run's own: after the sandbox has started, while it builds itself, so that it
 * costs the spawn nothing. */
void cr_cgroup_sweep(const struct cr_cgroup *cg);
/* After the run: whether the OOM killer killed a process, whether fork hit the pids limit. */
void cr_cgroup_events(struct cr_cgroup *cg, bool *ret_oom_killed, bool *ret_pids_hit);
/* The counters behind them so far: OOM kills (memory.events or v1's memory.oom_control) and
 * forks refused at pids.max (pids.events); 0 where no cgroup of the run counts them. A warm
 * sandbox's exec compares them before and after. */
void cr_cgroup_counters(struct cr_cgroup *cg, uint64_t *ret_oom_kills, uint64_t *ret_pids_max);
/* The two files behind them (after cr_cgroup_counters() opened them) as new descriptors in
 * @ret, -EBADF where none, for another process to read with cr_cgroup_counters_at(). */
void cr_cgroup_counter_fds(struct cr_cgroup *cg, int ret[2]);
void cr_cgroup_counters_at(const int fds[2], uint64_t *ret_oom_kills, uint64_t *ret_pids_max);
/* How each limit is enforced (cr_limits_report_json() turns it into JSON). Owned by @cg. */
const struct cr_limits_report *cr_cgroup_report(const struct cr_cgroup *cg);
/* The rlimits the sandbox's pid 1 sets (cr_rlimits_apply()): the fallback. Owned by @cg. */
const struct cr_rlimits *cr_cgroup_rlimits(const struct cr_cgroup *cg);
/* Milliseconds spent creating the cgroups, writing the limits and placing the child. */
double cr_cgroup_setup_ms(const struct cr_cgroup *cg);
/* Kill what is left in the run's cgroups and remove them. Accepts NULL, returns NULL. */
struct cr_cgroup *cr_cgroup_free(struct cr_cgroup *cg);
