/* SPDX-License-Identifier: MIT */
/* The OOM mark. podman (4.3) takes an `oom` file in the container's bundle directory, when its
 * monitor reports the container's exit, as State.OOMKilled; its conmon writes one elsewhere (its
 * working directory). corral's container monitor knows from the kernel (the container's memory
 * cgroup's oom_kill counter, status.json's oom_killed) and writes the file itself, before it
 * exits like the container: only then, so that an exit 137 from a kill stays a kill. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launcher/base/fd-util.h"
#include "launcher/base/macro.h"
#include "oom-mark.h"

int cr_oci_oom_mark(const char *bundle, char *err, size_t size)
{
	_cleanup_close_ int dfd = open(bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd = -EBADF;

	if (dfd < 0)
		return snprintf(err, size, "bundle %s: %m", bundle), negative_errno();
	/* O_NOFOLLOW: the bundle is the caller's, but nothing there is followed */
	fd = openat(dfd, "oom", O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return snprintf(err, size, "%s/oom: %m", bundle), negative_errno();
	return 0;
}
