/* SPDX-License-Identifier: MIT */
/* Privilege drop before exec. */
#pragma once

/* Lock the securebits (no root fix-ups, no ambient raise), then empty every capability set:
 * bounding, ambient, inheritable, effective and permitted. 0 or -errno. */
int cr_caps_drop_all(void);
