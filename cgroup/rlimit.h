/* SPDX-License-Identifier: MIT */
/* The rlimit fallback (rlimit.c): limits no cgroup can hold, set by the sandbox's pid 1. */
#pragma once

#include <stdint.h>

/* The rlimits pid 1 sets before it forks the command, computed by the parent. */
#define CR_RLIMITS_MAX 8
struct cr_rlimits {
	struct {
		int resource;
		uint64_t value;
	} r[CR_RLIMITS_MAX];
	unsigned n;
	/* --cpu rounded up: the command runs on the first @cpus of the CPUs it was allowed, so that
	 * what counts CPUs with sched_getaffinity() (nproc, make -j$(nproc), Python's
	 * os.sched_getaffinity()) sees its quota. 0: unchanged. */
	unsigned cpus;
};

/* The number of CPUs in the caller's affinity mask the command gets for @cpus (cr_rlimits), at
 * most the number it has; 0 when @cpus is 0 or the mask cannot be read. */
unsigned cr_rlimits_cpus(unsigned cpus);

/* In the child (pid 1): set every rlimit in @rl (soft = hard, lowered to the current hard limit
 * where that is lower), RLIMIT_CORE to 0, and the CPU affinity for @rl->cpus. 0 or -errno. */
int cr_rlimits_apply(const struct cr_rlimits *rl);
