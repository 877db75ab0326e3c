/* SPDX-License-Identifier: MIT */
/* linux.mountLabel: corral applies no SELinux label. Where SELinux is not enabled nothing could
 * (every runtime leaves it so), and the config is accepted with the fact reported, on stderr at
 * create and in status.json; where it is, a container left unlabelled would be less confined
 * than asked, and the config is refused. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "lsm.h"

bool cr_oci_selinux_enabled(void)
{
	return access("/sys/fs/selinux/enforce", F_OK) == 0;
}

int cr_oci_lsm_check(const struct cr_oci_config *c, bool enabled, char *note, size_t nsize,
		     char *err, size_t esize)
{
	note[0] = '\0';
	if (!c->mount_label || !c->mount_label[0])
		return 0;
	if (enabled)
		return snprintf(err, esize,
				"linux.mountLabel: SELinux is enabled on this host and corral applies no labels: refused rather than run unlabelled"),
		       -EOPNOTSUPP;
	(void)snprintf(note, nsize,
		       "linux.mountLabel: not applied: SELinux is not enabled on this host");
	return 0;
}
