/* SPDX-License-Identifier: MIT */
/* Privilege drop before exec. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Lock the securebits (no root fix-ups, no ambient raise), then empty every capability set:
 * bounding, ambient, inheritable, effective and permitted. 0 or -errno. */
int cr_caps_drop_all(void);

/* Keep exactly @caps (bit N: capability N) in the effective, permitted and bounding sets, with
 * @inheritable in the inheritable one, and with @ambient in the inheritable and ambient ones
 * (what a uid other than 0 needs to keep them across execve); nothing else. 0 or -errno. */
int cr_caps_keep(uint64_t caps, bool inheritable, bool ambient);

/* Keep exactly @caps in the effective, permitted and bounding sets, @inheritable in the
 * inheritable one and raise @ambient (each within @caps, ambient within @inheritable: what an OCI
 * config lists). 0 or -errno (-EPERM: an ambient capability outside the other two). */
int cr_caps_set(uint64_t caps, uint64_t inheritable, uint64_t ambient);

/* Take @uid, @gid and the @n supplementary @groups, keeping the capabilities held (effective
 * again), for cr_caps_set() or cr_caps_drop_all() to narrow next. 0 or -errno. */
int cr_caps_switch_ids(uint32_t uid, uint32_t gid, const uint32_t *groups, size_t n);
