/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launcher/base/macro.h"
#include "path-open.h"

int cr_open_path_nofollow(const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS) /* FIXME: drop once Linux 5.6 is the baseline */
		fd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 ? negative_errno() : fd;
}
