/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

static enum cr_log_level max_level = CR_LOG_WARNING;

void cr_log_set_level(enum cr_log_level level)
{
	max_level = level;
}

enum cr_log_level cr_log_get_level(void)
{
	return max_level;
}

int cr_log_full(enum cr_log_level level, int error, const char *fmt, ...)
{
	static const char *const prefix[] = {
		[CR_LOG_ERR] = "",
		[CR_LOG_WARNING] = "warning: ",
		[CR_LOG_INFO] = "",
		[CR_LOG_DEBUG] = "debug: ",
	};
	int saved_errno = errno;
	char buf[1024];
	va_list ap;

	if (level > max_level)
		return error;
	/* "%m" in glibc's printf prints strerror(errno): point it at the error we were given. */
	errno = error < 0 ? -error : saved_errno;
	va_start(ap, fmt);
	(void)vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	(void)fprintf(stderr, "corral: %s%s\n", prefix[level], buf);
	errno = saved_errno;
	return error;
}

int cr_msg(char *msg, size_t size, int r, const char *fmt, ...)
{
	va_list ap;

	if (msg && size > 0) {
		va_start(ap, fmt);
		(void)vsnprintf(msg, size, fmt, ap);
		va_end(ap);
	}
	return r;
}

