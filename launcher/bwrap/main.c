/* SPDX-License-Identifier: MIT */
/* The `bwrap` executable, installed as $libexecdir/corral/bwrap: put that directory first on
 * PATH and every client that runs `bwrap` gets corral's personality. It is a whole corral of its
 * own (not a wrapper that execs corral), so that a sandbox that runs /proc/self/exe again gets
 * bwrap's command line again. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "bwrap.h"

int main(int argc, char **argv)
{
	/* With 0, 1 or 2 closed, a pipe corral opens would land there and reach the command. */
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd)
			_exit(1);
	return cr_bwrap_main(argc, argv, argv[0]);
}
