/* SPDX-License-Identifier: MIT */
/* cgroup discovery, exposed for the unit tests (fixtures of mountinfo and /proc/self/cgroup). */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "launcher/policy/limits.h"

enum cr_cgroup_ctl {
	CR_CTL_MEMORY,
	CR_CTL_PIDS,
	CR_CTL_CPU,
	_CR_CTL_MAX,
};

/* Where the hierarchies are mounted and where this process sits in each. An empty mount means
 * not mounted; a path is relative to its mount ("/" when it sits at the mount's root). */
struct cr_cgroup_host {
	char v2_mount[256];
	char v2_path[512];
	char v1_mount[_CR_CTL_MAX][256];
	char v1_path[_CR_CTL_MAX][512];
};

const char *cr_cgroup_ctl_name(enum cr_cgroup_ctl c);

/* Read @mountinfo (format of /proc/self/mountinfo) and @proc_cgroup (of /proc/self/cgroup).
 * 0, or -errno if either cannot be read. */
int cr_cgroup_discover(const char *mountinfo, const char *proc_cgroup, struct cr_cgroup_host *ret);

/* The same from @proc_cgroup alone, when every hierarchy it lists that corral uses is mounted
 * where it usually is (/sys/fs/cgroup/CONTROLLERS for v1; /sys/fs/cgroup or
 * /sys/fs/cgroup/unified for v2) at the root of its hierarchy, which it checks (statfs and a
 * file only a hierarchy's root has, or lacks). 0, or -ENOENT for any other layout, which
 * cr_cgroup_discover() then reads from mountinfo; another -errno if @proc_cgroup cannot be read. */
int cr_cgroup_discover_usual(const char *proc_cgroup, struct cr_cgroup_host *ret);

/* The directory corral creates its run cgroups in, on v2: "<mount>/corral" for root, else the own
 * cgroup (its parent when corral already moved itself into the "corral-launcher" leaf). */
int cr_cgroup_v2_base(const struct cr_cgroup_host *h, bool is_root, char *buf, size_t size);

/* Shared by cgroup.c and probe.c (corral doctor's view of the same placement). */
/* Where this process's hierarchies are, discovered once per process (all empty: unknown). */
const struct cr_cgroup_host *cr_cg_host(void);
/* @dfd/@file read into @buf, NUL-terminated (empty on failure). 0 or -errno. */
int cr_cg_read_at(int dfd, const char *file, char *buf, size_t size);
/* @text written to @dfd/@file in one write: 0, or -errno. */
int cr_cg_write_text(int dfd, const char *file, const char *text);
/* Whether the space- or newline-separated @list has @word. */
bool cr_cg_has_word(const char *list, const char *word);
/* Whether @dfd's cgroup.procs lists no process (@self_ok: none but corral itself); -errno. */
int cr_cg_procs_empty(int dfd, bool self_ok);
/* The controller that holds @l (enum cr_cgroup_ctl), and the rlimit that stands in for it: -1
 * for none. */
int cr_cg_limit_ctl(enum cr_limit l);
int cr_cg_limit_rlimit(enum cr_limit l);
