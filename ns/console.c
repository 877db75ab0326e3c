/* SPDX-License-Identifier: MIT */
/* A container's console made inside it (console.h): the pseudo-terminal of the container's own
 * devpts, so that the process's terminal is one it can name (/dev/pts/N of its /dev) and the
 * host's devpts is never reached. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/vfs.h>
#include <termios.h>
#include <unistd.h>

#include "console.h"
#include "launcher/base/fd-util.h"
#include "launcher/base/macro.h"

/* The master of a new pseudo-terminal of the devpts that /dev/ptmx names here; refused when that
 * is not a devpts' ptmx (a root file system's own /dev/ptmx, a FIFO, a regular file). */
static int open_master(char *detail, size_t size)
{
	_cleanup_close_ int fd = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	struct statfs sf;
	int unlock = 0;

	if (fd < 0)
		return snprintf(detail, size, "console: /dev/ptmx: %m"), negative_errno();
	if (fstatfs(fd, &sf) < 0)
		return negative_errno();
	if (sf.f_type != DEVPTS_SUPER_MAGIC)
		return snprintf(detail, size, "console: /dev/ptmx is not a devpts' ptmx"), -ENOTTY;
	if (ioctl(fd, TIOCSPTLCK, &unlock) < 0)
		return snprintf(detail, size, "console: unlocking the terminal: %m"),
		       negative_errno();
	return TAKE_FD(fd);
}

int cr_console_make(const struct cr_console *c, char *detail, size_t size)
{
	_cleanup_close_ int master = -EBADF, slave = -EBADF;
	char name[32];
	unsigned n = 0;
	int r;

	master = open_master(detail, size);
	if (master < 0)
		return master;
	/* the peer from the master itself: no path is looked up again */
	slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0 || ioctl(master, TIOCGPTN, &n) < 0)
		return snprintf(detail, size, "console: the terminal's peer: %m"), negative_errno();
	if (slave < 3) { /* a closed 0, 1 or 2 got it: move it up, or dup2() below keeps it */
		int up = fcntl(slave, F_DUPFD_CLOEXEC, 3);

		if (up < 0)
			return negative_errno();
		(void)close(slave);
		slave = up;
	}
	if (c->rows && c->cols &&
	    ioctl(master, TIOCSWINSZ,
		  &(struct winsize){ .ws_row = c->rows, .ws_col = c->cols }) < 0)
		return snprintf(detail, size, "console: its size: %m"), negative_errno();
	/* the process's own terminal, as a login's: it may reopen /dev/pts/N */
	if ((c->uid != geteuid() || c->gid != getegid()) && fchown(slave, c->uid, c->gid) < 0)
		return snprintf(detail, size, "console: giving it to uid %u: %m", c->uid),
		       negative_errno();
	(void)snprintf(name, sizeof(name), "/dev/pts/%u", n);
	r = cr_send_fds(c->sock, name, strlen(name), &master, 1, 0);
	if (r < 0)
		return snprintf(detail, size, "console: --console-socket: %s", strerror(-r)), r;
	for (int i = 0; i < 3; i++)
		if (dup2(slave, i) < 0)
			return negative_errno();
	/* a session leader without a terminal yet: this one becomes it */
	if (ioctl(0, TIOCSCTTY, 0) < 0)
		return snprintf(detail, size, "console: making it the controlling terminal: %m"),
		       negative_errno();
	return 0;
}
