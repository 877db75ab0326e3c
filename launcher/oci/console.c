/* SPDX-License-Identifier: MIT */
/* process.terminal with --console-socket: a pseudo-terminal whose master is sent to the
 * engine's socket (SCM_RIGHTS, as runtimes do: conmon and containerd's shim read it there) and
 * whose slave becomes the container's stdin, stdout, stderr and controlling terminal. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "console.h"
#include "launcher/base/macro.h"

static int send_fd(const char *path, int fd, const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { .iov_base = (void *)name, .iov_len = strlen(name) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	if (s < 0)
		return negative_errno();
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return negative_errno();
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(s, &msg, MSG_NOSIGNAL) < 0 ? negative_errno() : 0;
}

int cr_oci_console(const char *socket_path, unsigned rows, unsigned cols, int *ret_slave,
		   char *err, size_t size)
{
	_cleanup_close_ int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	char name[64];
	int slave, r;

	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0 ||
	    ptsname_r(master, name, sizeof(name)) != 0)
		return snprintf(err, size, "cannot make a terminal: %m"), -errno;
	if (rows && cols)
		(void)ioctl(master, TIOCSWINSZ,
			    &(struct winsize){ .ws_row = (unsigned short)rows,
					       .ws_col = (unsigned short)cols });
	slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0)
		return snprintf(err, size, "%s: %m", name), -errno;
	r = send_fd(socket_path, master, name);
	if (r < 0) {
		(void)close(slave);
		return snprintf(err, size, "--console-socket %s: %s", socket_path, strerror(-r)), r;
	}
	*ret_slave = slave;
	return 0;
}
