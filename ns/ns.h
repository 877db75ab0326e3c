/* SPDX-License-Identifier: MIT */
/* The Linux driver's parts that the rest of ns/ and the unit tests share. */
#pragma once

#include "launcher/driver.h"
#include "idmap.h"
#include "mount-plan.h"

struct json_object;
struct cr_landlock_plan;
struct cr_degraded;

/* The namespaces corral creates for @net: all seven, less "net" when sharing the host's. */
unsigned long cr_ns_clone_flags(enum cr_net_mode net);
/* "user", "mount", ... for one CLONE_NEW* flag; NULL for anything else. */
const char *cr_ns_name(unsigned long flag);

/* One sentence on how to allow user namespaces on this host (which sysctl or AppArmor knob). */
void cr_ns_userns_fix(char *buf, size_t size);

/* What this host can enforce (driver.probe). */
int cr_ns_probe(struct cr_probe *ret);
/* What a run enforced, as JSON (driver.report). */
int cr_ns_report(const struct cr_run *run, struct json_object *enforced);

const struct cr_policy *cr_ns_run_policy(const struct cr_run *run);
const struct cr_idmap *cr_ns_run_idmap(const struct cr_run *run);
unsigned long cr_ns_run_clone_flags(const struct cr_run *run);
const struct cr_mount_plan *cr_ns_run_plan(const struct cr_run *run);
/* What sized the plan's writable tmpfs mounts, and the physical memory (bytes) it took a share
 * of. */
enum cr_tmpfs_basis cr_ns_run_tmpfs(const struct cr_run *run, uint64_t *ret_ram);
/* The run's Landlock plan (in degraded mode, the one on host paths); the degraded-mode state,
 * NULL unless the run fell back to it. */
const struct cr_landlock_plan *cr_ns_run_landlock(const struct cr_run *run);
const struct cr_degraded *cr_ns_run_degraded(const struct cr_run *run);
/* The run's resource limits and their modes; NULL before prepare created them. */
const struct cr_limits_report *cr_ns_run_limits(const struct cr_run *run);
/* The run's syscall filter; NULL before prepare made it. */
const struct cr_seccomp *cr_ns_run_seccomp(const struct cr_run *run);
