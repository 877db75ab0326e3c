/* SPDX-License-Identifier: MIT */
/* linux.uidMappings and gidMappings (idmaps.c): which maps a caller may have written, and their
 * text for /proc/PID/uid_map. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "bundle.h"

/* The kernel's limit on lines of one map (user_namespaces(7)). */
#define CR_OCI_IDMAP_MAX 340

/* Check @n ranges of @field ("uidMappings") for a caller of host id @caller whose process runs
 * as @inside, and format them as uid_map's text into *@ret_text (NULL when the one id is the
 * caller's, the map corral writes anyway). A caller other than root may map only @inside to
 * itself (one id, as the kernel lets it without a set-id helper); root may map ranges, which
 * must not overlap on either side, must map @inside, and must not map host id 0 (no host root
 * in a container whose maps are ranges). *@ret_outside: @inside's host id. Pure. 0, or -errno
 * with @err naming the field. */
int cr_oci_idmap_text(const struct cr_oci_idmap *m, size_t n, uint32_t inside, uint32_t caller,
		      const char *field, char **ret_text, uint32_t *ret_outside, char *err,
		      size_t size);
