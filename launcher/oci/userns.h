/* SPDX-License-Identifier: MIT */
/* Root's container without a user namespace of its own: one added, its root idmapped (corral's
 * default where the root can be idmapped), or the spec followed as written (userns.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "bundle.h"
#include "launcher/policy/policy.h"

enum cr_oci_userns {
	CR_OCI_USERNS_AUTO,	/* added where the root can be idmapped, else the spec's, said so */
	CR_OCI_USERNS_REQUIRED, /* added, or the container is refused */
	CR_OCI_USERNS_SPEC,	/* as config.json says: host root, with the capabilities it lists */
};

/* "auto", "required" or "spec" into *@ret; -EINVAL for anything else. */
int cr_oci_userns_parse(const char *value, enum cr_oci_userns *ret);

/* The runtime's mode (--userns @flag, else $CORRAL_OCI_USERNS, else auto) into *@ret; -EINVAL
 * with @err for a bad value. */
int cr_oci_userns_mode(const char *flag, enum cr_oci_userns *ret, char *err, size_t size);

/* The mode for @c: the runtime's @mode, narrowed by its io.corral.userns annotation (auto and
 * required always taken, spec only when @mode is spec: an annotation must not give host root).
 * 0, or -errno with @err. */
int cr_oci_userns_asked(const struct cr_oci_config *c, enum cr_oci_userns mode,
			enum cr_oci_userns *ret, char *err, size_t size);

/* Whether the caller is host root: uid 0 of the initial user namespace (root of another, as
 * rootless podman runs its runtime, is not, and cannot idmap). */
bool cr_oci_host_root(void);

/* For a caller that is @host_root running @c: when config.json has no user namespace and the
 * mode for @c is not spec, add one to @p's namespaces in which the process's ids are
 * CR_DEFAULT_SANDBOX_ID on the host, its root idmapped. 0, or -errno with @err. */
int cr_oci_userns_apply(const struct cr_oci_config *c, bool host_root, enum cr_oci_userns mode,
			struct cr_policy *p, char *err, size_t size);

/* Why @c, built into @p so far, cannot run in a user namespace corral adds (then auto follows
 * the spec, required refuses), or NULL. */
const char *cr_oci_userns_unfit(const struct cr_oci_config *c, const struct cr_policy *p);

/* Undo cr_oci_userns_apply() on @p (auto's fallback, when the root cannot be idmapped). */
void cr_oci_userns_drop(struct cr_policy *p);
