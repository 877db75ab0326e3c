/* SPDX-License-Identifier: MIT */
/* A run's limits on the Linux driver (ns/limits.c): cgroups, rlimits and tmpfs sizes. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "cgroup/cgroup.h"
#include "linux-internal.h"

/* Physical memory, read once per process: the default memory limit and the tmpfs sizes are
 * shares of it. 0 if unknown. */
uint64_t cr_ns_host_ram(void);

/* The run's cgroups and rlimits into @ret_cg and @ctx, then the sizes of its tmpfs mounts in
 * @ctx's plan, which the memory limit bounds (what bounds them into @ret_basis). With @defer, v1
 * directories may be left to cr_ns_limits_realize() (never with the allow_hosts proxy or
 * namespaces an explicit policy made corral enter: the run could not start again). A limit given
 * on the command line that cannot be enforced is a warning (with @before, only if it was not
 * one already), or with --limits=required a failure: -errno with @err filled (stage "limits").
 * An explicit policy asking for no limit gets no cgroup (*@ret_cg stays NULL). */
int cr_ns_limits_prepare(const struct cr_policy *p, bool defer, struct cr_child_ctx *ctx,
			 struct cr_cgroup **ret_cg, enum cr_tmpfs_basis *ret_basis,
			 const struct cr_limits_report *before, struct cr_setup_error *err);

/* After the sync byte, while pid 1 builds the sandbox: the directories @cg deferred made, their
 * limits written, their tasks files sent to pid 1 on @sync_w (none: -EBADF, degraded mode, whose
 * parent moves the child itself). 0; 1 when that failed and the run must start again with
 * cgroups made before clone (pid 1, waiting for them, has forked nothing); or -errno. */
int cr_ns_limits_realize(struct cr_cgroup *cg, int sync_w);
