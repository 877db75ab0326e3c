/* SPDX-License-Identifier: MIT */
/* A pod's namespaces (pod.c): engines name the namespaces of a pod's first container (the pause
 * container, CRI) by the pid they were given for it, /proc/PID/ns/TYPE; with corral that pid is
 * the container's monitor, which lives in the caller's namespaces, not the container's. */
#pragma once

#include <stddef.h>

#include "bundle.h"

#define OCI_POD_PATH_MAX 64

/* Turn each namespace path of @c that is /proc/PID/ns/TYPE, PID the monitor of a container under
 * @root (its pid and start time in that container's state.json), into the same path of that
 * container's process, written in @buf (one OCI_POD_PATH_MAX slot per namespace, which @c then
 * points into). Other paths are left as they are. 0, or -ESRCH with @err when the container's
 * process is gone. */
int oci_pod_resolve(const char *root, struct cr_oci_config *c, char (*buf)[OCI_POD_PATH_MAX],
		    char *err, size_t size);
