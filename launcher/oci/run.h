/* SPDX-License-Identifier: MIT */
/* A container's life on the host (run.c): `create` forks the container's monitor, which builds
 * the sandbox with the Linux driver, leaves its first process waiting on ROOT/ID/exec.fifo,
 * says so to `create` (which writes the monitor's pid to --pid-file and returns), then waits for
 * the sandbox to end and exits with the process's status, for the caller (conmon, containerd's
 * shim) that reaps it. */
#pragma once

#include "bundle.h"
#include "launcher/policy/policy.h"
#include "oci-internal.h"

/* Create container @c->id from @config, turned into @policy (which this fills further), in the
 * bundle @bundle. Returns the exit status of `create`. */
int oci_run_create(const struct oci_opts *o, const struct create_opts *c,
		   const struct cr_oci_config *config, struct cr_policy *policy, const char *bundle);
