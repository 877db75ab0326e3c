/* SPDX-License-Identifier: MIT */
/* A small configuration file read whole (Linux only, read-file.c): pool.conf, bwrap.conf. */
#pragma once

#include <stddef.h>

/* The file at @path, at most @max bytes, into a new buffer @ret_text (NUL-terminated, @ret_len
 * bytes, for the caller to free). A missing file is 0 with @ret_text NULL: the defaults. Else 0,
 * or -errno with "PATH: reason" in @msg (-EFBIG: larger than @max). */
int cr_read_config_file(const char *path, size_t max, char **ret_text, size_t *ret_len, char *msg,
			size_t msg_size);
