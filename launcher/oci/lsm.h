/* SPDX-License-Identifier: MIT */
/* linux.mountLabel (lsm.c): a SELinux label corral does not apply, accepted only where SELinux
 * is not enabled on the host (no label means anything there), and then said. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "bundle.h"

/* Is SELinux enabled on this host (its file system mounted)? */
bool cr_oci_selinux_enabled(void);

/* @c's SELinux fields against a host where SELinux is @enabled: 0 with the note to report in
 * @note ("" when none), or -EOPNOTSUPP with @err naming the field (a label corral would leave
 * unapplied where SELinux enforces labels). Pure. */
int cr_oci_lsm_check(const struct cr_oci_config *c, bool enabled, char *note, size_t nsize,
		     char *err, size_t esize);
