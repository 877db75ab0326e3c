/* SPDX-License-Identifier: MIT */
/* Descriptors: writing all of a buffer (every host, fd-util.c), the one way corral closes what a
 * process must not pass on (Linux only, fd-close.c: close_range(2)), and a message sent with
 * descriptors (Linux only, fd-send.c). */
#pragma once

#include <stddef.h>

/* write(2) all of @data, retrying short writes and EINTR. 0 or -errno (-EIO if write returns 0). */
int cr_write_all(int fd, const void *data, size_t size);

/* Close every descriptor from @from up but the @n in @keep, which it sorts in place (entries
 * below @from, negative ones and repeats are skipped). Allocates nothing, so it is safe between
 * fork and execve. 0 or -errno; on failure some descriptors may still be open, so the caller
 * treats it as fatal: it must not go on to run anything in the sandbox. */
int cr_close_all_except(int from, int *keep, size_t n);

/* The most descriptors cr_send_fds() sends with one message: a command's stdin, stdout, stderr;
 * a pool's offer (a worker's two channels, two counter files). */
#define CR_SEND_FDS_MAX 4

/* Send the @size bytes at @m on the unix socket @sock with the @n_fds descriptors of @fds
 * (SCM_RIGHTS; none when 0), in one sendmsg(2) with @flags and MSG_NOSIGNAL. 0 or -errno
 * (-EINVAL for more than CR_SEND_FDS_MAX descriptors). */
int cr_send_fds(int sock, const void *m, size_t size, const int *fds, size_t n_fds, int flags);
