/* SPDX-License-Identifier: MIT */
/* /etc/corral/bwrap.conf, the bwrap door's settings (corral-bwrap(1), FILES): lines
 * "KEY = VALUE", KEY mode (compat or hardened) or pool (auto, require or never); blank lines and
 * comments ('#' or ';' first) skipped. Anything else is an error naming the file and the line,
 * never skipped: a typo'd key would otherwise leave the door in a mode nobody chose. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "args.h"
#include "launcher/pool/pool.h"

/* The largest file read: a few lines are expected. */
#define CR_BWRAP_CONF_MAX_SIZE 4096

struct cr_bwrap_conf {
	bool has_mode, has_pool; /* the file set them (else the defaults apply) */
	enum cr_bwrap_mode mode;
	enum cr_pool_mode pool;
};

/* Read the @size bytes at @text, the file @source (named in messages), into @ret (zeroed
 * first; the last line of a key wins). 0, or -EINVAL with "SOURCE:LINE: reason" in @msg. */
int cr_bwrap_conf_parse(const char *text, size_t size, const char *source,
			struct cr_bwrap_conf *ret, char *msg, size_t msg_size);

/* cr_bwrap_conf_parse() of the file @path; a missing file sets nothing. 0, or -errno with a
 * message in @msg. */
int cr_bwrap_conf_read(const char *path, struct cr_bwrap_conf *ret, char *msg, size_t msg_size);
