/* SPDX-License-Identifier: MIT */
/* Diagnostics on stderr. Library code logs at debug level only; the boundary (main, the driver's
 * orchestration) logs errors once, with context. */
#pragma once

#include "macro.h"

enum cr_log_level {
	CR_LOG_ERR,
	CR_LOG_WARNING,
	CR_LOG_INFO,
	CR_LOG_DEBUG,
};

/* Set the most verbose level that is printed (default CR_LOG_WARNING). */
void cr_log_set_level(enum cr_log_level level);
enum cr_log_level cr_log_get_level(void);

/* Print "corral: <message>" if @level is enabled. "%m" expands to strerror(-error). Returns
 * @error (a -errno value, or 0) so callers can write `return cr_log_errno(r, "...: %m");`. */
int cr_log_full(enum cr_log_level level, int error, const char *fmt, ...) _printf_(3, 4);

/* Write a message to @msg (if not NULL) and return @r, a -errno value: for functions that report
 * errors to their caller instead of logging, as `return cr_msg(msg, size, -EINVAL, "...");`. */
int cr_msg(char *msg, size_t size, int r, const char *fmt, ...) _printf_(4, 5);

/* cr_msg() with nothing to return: a detail or a note into @buf, as probes and reports write
 * them. */
#define cr_say(buf, size, ...) ((void)cr_msg((buf), (size), 0, __VA_ARGS__))

#define cr_log_errno(error, ...) cr_log_full(CR_LOG_ERR, (error), __VA_ARGS__)
#define cr_log_error(...)        (void)cr_log_full(CR_LOG_ERR, 0, __VA_ARGS__)
#define cr_log_warning(...)      (void)cr_log_full(CR_LOG_WARNING, 0, __VA_ARGS__)
#define cr_log_info(...)         (void)cr_log_full(CR_LOG_INFO, 0, __VA_ARGS__)
#define cr_debug(...)                                                                              \
	do {                                                                                       \
		if (cr_log_get_level() >= CR_LOG_DEBUG)                                            \
			(void)cr_log_full(CR_LOG_DEBUG, 0, __VA_ARGS__);                           \
	} while (0)
