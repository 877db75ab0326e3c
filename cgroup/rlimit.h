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
};

/* In the child (pid 1): set every rlimit in @rl (soft = hard, lowered to the current hard limit
 * where that is lower), and RLIMIT_CORE to 0. 0 or -errno. */
int cr_rlimits_apply(const struct cr_rlimits *rl);
