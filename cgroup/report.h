/* SPDX-License-Identifier: MIT */
/* What a run's limits are and how each is enforced, and its JSON (report.c): enforced.limits. */
#pragma once

#include <stdint.h>

#include "launcher/policy/limits.h"

struct json_object;

/* What a run enforces and how. Filled by cr_cgroup_create(), read by the JSON report. */
struct cr_limits_report {
	uint64_t value[_CR_LIMIT_MAX];
	enum cr_limit_mode mode[_CR_LIMIT_MAX];
	char why[_CR_LIMIT_MAX][512]; /* for a finite limit in mode none: why it is not enforced;
				       * for memory as an rlimit, CR_RLIMIT_AS_WHY */
	unsigned cpus; /* the CPUs the command may run on (affinity) for --cpu; 0: not narrowed */
};

/* What memory as RLIMIT_AS does, in the JSON status and on stderr: it bounds address space,
 * not memory, and whatever reserves more than it uses stops at it. */
#define CR_RLIMIT_AS_WHY                                                                       \
	"RLIMIT_AS bounds address space, not memory: AddressSanitizer cannot reserve its shadow "  \
	"memory under it (every ASan binary aborts at start), and Go, Java and other runtimes "    \
	"that reserve large ranges fail too; a memory cgroup (see corral doctor) bounds memory "   \
	"itself, --memory max lifts it"

/* {"memory": {"value": N|"max"|null, "mode": "cgroup2|cgroup1|rlimit|none"}, ...}: the
 * enforced.limits object of the JSON status. NULL on allocation failure. */
struct json_object *cr_limits_report_json(const struct cr_limits_report *rep);
