/* SPDX-License-Identifier: MIT */
/* corral's own annotations (io.corral.*), which config.json may carry: the bundle parser checks
 * them, `corral oci features` lists them. */
#pragma once

#include <stddef.h>

/* One io.corral.* annotation: its key and, for `corral oci features`, what it takes. */
struct cr_oci_annotation {
	const char *key;
	const char *doc;
	/* 0, or -EINVAL with @err saying what @value should be */
	int (*check)(const char *value, char *err, size_t size);
};

extern const struct cr_oci_annotation cr_oci_annotations[];
extern const size_t cr_oci_n_annotations;

/* Check an annotation of config.json: one outside io.corral.* is the caller's and always
 * accepted; an io.corral.* one must be known and its value valid. 0, or -EINVAL with @err. */
int cr_oci_annotation_check(const char *key, const char *value, char *err, size_t size);
