/* SPDX-License-Identifier: MIT */
/* linux.seccomp compiled into a program of the policy (seccomp-spec.c). */
#pragma once

#include <stddef.h>

#include "bundle.h"
#include "launcher/policy/policy.h"

/* Compile @sc (when present) and append it to @p's ex.seccomp_programs, after corral's own.
 * 0; -EOPNOTSUPP, -EINVAL with @err naming the field; -ENOMEM. */
int cr_oci_seccomp_compile(const struct cr_oci_seccomp *sc, struct cr_policy *p, char *err,
			   size_t size);
