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
	char why[_CR_LIMIT_MAX][512]; /* for a finite limit in mode none: why it is not enforced */
	unsigned cpus; /* the CPUs the command may run on (affinity) for --cpu; 0: not narrowed */
};

/* {"memory": {"value": N|"max"|null, "mode": "cgroup2|cgroup1|rlimit|none"}, ...}: the
 * enforced.limits object of the JSON status. NULL on allocation failure. */
struct json_object *cr_limits_report_json(const struct cr_limits_report *rep);
