/* SPDX-License-Identifier: MIT */
/* linux.sysctl (sysctl.c): which settings a container may have, and writing them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "bundle.h"
#include "launcher/policy/policy.h"

/* Only settings of the container's own network or IPC namespace (@namespaces: enum cr_ns_bit).
 * 0, or -errno with @err naming the key. */
int cr_oci_sysctl_check(const struct cr_oci_map *m, unsigned namespaces, char *err, size_t size);
/* Write them from inside the namespaces of the container's first process @init (its user
 * namespace first with @userns). 0, or -errno with @err. */
int cr_oci_sysctl_apply(const struct cr_oci_map *m, pid_t init, bool userns, char *err,
			size_t size);
