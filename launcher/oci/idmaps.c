/* SPDX-License-Identifier: MIT */
/* linux.uidMappings and gidMappings: the caller's ranges checked and written out as the kernel
 * reads them ("INSIDE OUTSIDE COUNT" lines). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "idmaps.h"

static bool overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* @inside's host id under the ranges, or -ENOENT. */
static int64_t host_of(const struct cr_oci_idmap *m, size_t n, uint32_t inside)
{
	for (size_t i = 0; i < n; i++)
		if (inside >= m[i].container_id && inside - m[i].container_id < m[i].size)
			return (int64_t)m[i].host_id + (inside - m[i].container_id);
	return -ENOENT;
}

static int check_ranges(const struct cr_oci_idmap *m, size_t n, const char *field, char *err,
			size_t size)
{
	if (n > CR_OCI_IDMAP_MAX)
		return cr_msg(err, size, -E2BIG, "linux.%s: %zu ranges, more than the kernel's %d",
			      field, n, CR_OCI_IDMAP_MAX);
	for (size_t i = 0; i < n; i++) {
		if (m[i].host_id == 0 || overlap(m[i].host_id, m[i].size, 0, 1))
			return cr_msg(err, size, -EPERM,
				      "linux.%s[%zu]: maps host id 0 (root) into the container: corral maps ranges of other ids only",
				      field, i);
		for (size_t k = 0; k < i; k++)
			if (overlap(m[i].container_id, m[i].size, m[k].container_id, m[k].size) ||
			    overlap(m[i].host_id, m[i].size, m[k].host_id, m[k].size))
				return cr_msg(err, size, -EINVAL, "linux.%s[%zu]: overlaps [%zu]",
					      field, i, k);
	}
	return 0;
}

static int format(const struct cr_oci_idmap *m, size_t n, char **ret)
{
	/* each line at most "4294967295 4294967295 4294967296\n" */
	char *text = malloc(n * 34 + 1), *p = text;

	if (!text)
		return -ENOMEM;
	*p = '\0';
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%u %u %u\n", m[i].container_id, m[i].host_id, m[i].size);
	*ret = text;
	return 0;
}

int cr_oci_idmap_text(const struct cr_oci_idmap *m, size_t n, uint32_t inside, uint32_t caller,
		      const char *field, char **ret_text, uint32_t *ret_outside, char *err,
		      size_t size)
{
	int64_t host;
	int r;

	*ret_text = NULL;
	*ret_outside = caller;
	/* the one id: the process's as the caller (a user's only choice without newuidmap) */
	if (n == 0 || (n == 1 && m[0].host_id == caller && m[0].container_id == inside &&
			m[0].size == 1))
		return 0;
	if (caller != 0)
		return cr_msg(err, size, -EPERM,
			      "linux.%s: a caller other than root maps one id, the process's (%u) to its own (%u): corral runs no set-id helper (newuidmap) for ranges",
			      field, inside, caller);
	r = check_ranges(m, n, field, err, size);
	if (r < 0)
		return r;
	host = host_of(m, n, inside);
	if (host < 0)
		return cr_msg(err, size, -EINVAL,
			      "linux.%s: the process's id %u is not mapped", field, inside);
	*ret_outside = (uint32_t)host;
	return format(m, n, ret_text);
}
