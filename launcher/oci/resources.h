/* SPDX-License-Identifier: MIT */
/* linux.resources beyond corral's own limits, read into the cgroup files they write
 * (struct cr_cgroup_file, in its v1 and v2 forms): resources.c. For bundle-linux.c. */
#pragma once

#include <json-c/json.h>
#include <stdint.h>

#include "bundle-internal.h"

/* linux.resources.cpu's exact @quota and @period (-1: not set), realtimePeriod,
 * realtimeRuntime, cpus and mems of @cpu (may be NULL), appended to @res->files. 0, -EINVAL
 * (the error in @x) or -ENOMEM. */
int oci_resources_cpu(struct oci_ctx *x, json_object *cpu, int64_t quota, int64_t period,
		      struct cr_oci_resources *res);

/* memory's reservation, kernel, kernelTCP, swappiness and disableOOMKiller (@mem may be NULL),
 * blockIO, hugepageLimits and network of linux.resources @o, and @res->devices, appended to
 * @res->files. 0, -EINVAL or -ENOMEM. */
int oci_resources_more(struct oci_ctx *x, json_object *o, json_object *mem,
		       struct cr_oci_resources *res);
