/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "parse-util.h"
#include "stamp.h"

static int stamp_fd = -1;
static char stamp_whom = 'P';

void cr_stamp_init(void)
{
	const char *v = getenv("CORRAL_STAMP_FD");
	uint64_t fd;

	if (!v)
		return;
	if (cr_parse_uint(v, 3, 65535, &fd) == 0 &&
	    fcntl((int)fd, F_SETFD, FD_CLOEXEC) == 0)
		stamp_fd = (int)fd;
	(void)unsetenv("CORRAL_STAMP_FD");
}

void cr_stamp_who(char who)
{
	stamp_whom = who;
}

void cr_stamp(const char *name)
{
	struct timespec ts;
	char line[96];
	int n;

	if (stamp_fd < 0)
		return;
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	n = snprintf(line, sizeof(line), "%c %s %lld\n", stamp_whom, name,
		     (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	if (n > 0 && (size_t)n < sizeof(line))
		(void)!write(stamp_fd, line, (size_t)n);
}

void cr_stamp_end(void)
{
	stamp_fd = -1;
}

int cr_stamp_fd(void)
{
	return stamp_fd;
}
