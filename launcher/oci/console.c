/* SPDX-License-Identifier: MIT */
/* process.terminal with --console-socket: the engine's socket, connected here on the host, where
 * its path means something; the container's init (or exec's process) makes the pseudo-terminal
 * in the container's own devpts and sends its master there (ns/console.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "console.h"
#include "launcher/base/macro.h"

int cr_oci_console_connect(const char *path, char *err, size_t size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return snprintf(err, size, "--console-socket %s: %m", path), negative_errno();
	if (strlen(path) >= sizeof(sa.sun_path))
		return snprintf(err, size, "--console-socket %s: path too long", path), -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return snprintf(err, size, "--console-socket %s: %m", path), negative_errno();
	return TAKE_FD(s);
}
