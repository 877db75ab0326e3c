/* SPDX-License-Identifier: MIT */
/* What bundle.c and bundle-linux.c share: typed, path-naming getters over json-c. Each returns 0,
 * -EINVAL with the error written ("PATH: what is wrong"), or -ENOMEM; an absent key leaves
 * the output as it was. */
#pragma once

#include <json-c/json.h>

#include "bundle.h"
#include "launcher/base/macro.h"

struct oci_ctx {
	char *err;
	size_t size;
	char **ignored; /* the unknown keys met, ", "-joined (NULL: refuse them as well) */
};

/* "PATH: message". Always -EINVAL. */
int oci_fail(struct oci_ctx *x, const char *path, const char *fmt, ...) _printf_(3, 4);

/* @path.@key (or @path[@i] when @key is NULL) in @buf. */
const char *oci_path(char *buf, size_t size, const char *path, const char *key, size_t i);

/* Refuse every key of object @o not in the NULL-terminated @known, unless its value asks for
 * nothing (null, "", [] or {}) or runtime-spec does not define it (spec-keys.h): that one is
 * added to x->ignored. */
int oci_check_keys(struct oci_ctx *x, json_object *o, const char *path, const char *const *known);

int oci_get_object(struct oci_ctx *x, json_object *o, const char *path, const char *key,
		   json_object **ret);
int oci_get_array(struct oci_ctx *x, json_object *o, const char *path, const char *key,
		  json_object **ret);
int oci_get_string(struct oci_ctx *x, json_object *o, const char *path, const char *key,
		   const char **ret);
int oci_get_bool(struct oci_ctx *x, json_object *o, const char *path, const char *key, bool *ret);
/* An integer in [@min, @max]; @ret_set (may be NULL) says it was given. */
int oci_get_int(struct oci_ctx *x, json_object *o, const char *path, const char *key, int64_t min,
		int64_t max, int64_t *ret, bool *ret_set);
int oci_get_u64(struct oci_ctx *x, json_object *o, const char *path, const char *key,
		uint64_t *ret);
/* An array of strings; @absolute: each an absolute path. */
int oci_get_strv(struct oci_ctx *x, json_object *o, const char *path, const char *key,
		 bool absolute, struct cr_oci_strv *ret);
/* An object of strings (annotations, sysctl). */
int oci_get_map(struct oci_ctx *x, json_object *o, const char *path, const char *key,
		struct cr_oci_map *ret);

/* The "linux" object (bundle-linux.c). */
int oci_parse_linux(struct oci_ctx *x, json_object *lx, struct cr_oci_config *c);
