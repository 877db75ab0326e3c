/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <unistd.h>

#include "fd-util.h"
#include "macro.h"

int cr_write_all(int fd, const void *data, size_t size)
{
	for (const char *p = data; size > 0;) {
		ssize_t n = write(fd, p, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return negative_errno();
		if (n == 0)
			return -EIO;
		p += n;
		size -= (size_t)n;
	}
	return 0;
}
