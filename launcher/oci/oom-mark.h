/* SPDX-License-Identifier: MIT */
/* The OOM mark (oom-mark.c): an `oom` file in the bundle, an engine's convention for "the kernel
 * OOM-killed a process of this container". */
#pragma once

#include <stddef.h>

/* Create @bundle/oom (empty, not through a symlink; one already there is kept). The caller
 * calls it only when the container's memory cgroup counted an OOM kill. 0, or -errno with @err. */
int cr_oci_oom_mark(const char *bundle, char *err, size_t size);
