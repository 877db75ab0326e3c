/* SPDX-License-Identifier: MIT */
/* Privilege drop before exec. */
#pragma once

/* Lock the securebits (no root fix-ups, no ambient raise), then empty every capability set:
 * bounding, ambient, inheritable, effective and permitted. 0 or -errno (-EPERM when libcap-ng
 * could not apply; its own codes are not errnos and are only logged at debug level). */
int cr_caps_drop_all(void);
