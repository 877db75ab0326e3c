/* SPDX-License-Identifier: MIT */
/* Small helpers every module uses: scope-bound cleanup and explicit ownership transfer. */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((__cleanup__(f)))
#define _unused_     __attribute__((__unused__))
#define _printf_(a, b) __attribute__((__format__(printf, a, b)))

static inline void freep(void *p)
{
	free(*(void **)p);
}

/* Never retry close() on EINTR: the descriptor is gone either way on Linux. The variable is
 * reset, so that a closep() before the scope's end is not followed by a second close() of the
 * same number by _cleanup_close_: in a process with threads (the pool's builder), the number
 * may by then name another thread's descriptor. */
static inline void closep(int *fd)
{
	if (*fd >= 0) {
		(void)close(*fd);
		*fd = -EBADF;
	}
}

static inline void strv_freep(char ***p)
{
	char **v = *p;

	if (!v)
		return;
	for (char **s = v; *s; s++)
		free(*s);
	free(v);
}

static inline void fclosep(FILE **f)
{
	if (*f)
		(void)fclose(*f);
}

#define _cleanup_free_   _cleanup_(freep)
#define _cleanup_close_  _cleanup_(closep)
#define _cleanup_strv_   _cleanup_(strv_freep)
#define _cleanup_fclose_ _cleanup_(fclosep)

#define TAKE_PTR(p)                                                                                \
	({                                                                                         \
		typeof(p) *_pp = &(p);                                                             \
		typeof(p) _v = *_pp;                                                               \
		*_pp = NULL;                                                                       \
		_v;                                                                                \
	})
#define TAKE_FD(fd)                                                                                \
	({                                                                                         \
		int *_pf = &(fd);                                                                  \
		int _v = *_pf;                                                                     \
		*_pf = -EBADF;                                                                     \
		_v;                                                                                \
	})

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* A value to return from a failed libc call: -errno, never 0 even if errno was not set. */
static inline int negative_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}
