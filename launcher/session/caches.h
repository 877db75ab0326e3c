/* SPDX-License-Identifier: MIT */
/* The named caches' directories (launcher/policy/cache.h): STATE/caches/NAME, made and checked
 * as every directory of the state directory is (state.h). */
#pragma once

#include <stddef.h>

struct cr_policy;

/* Make (mode 0700) or open STATE/caches and STATE/caches/NAME for each cache of @p, below
 * @state_dir, as cr_state_open_dir() does: from the state directory on, no symbolic link,
 * nothing another user owns or may write. Sets each cache's .dir to the directory's canonical
 * path. The sandbox sees only that directory, at the cache's path: never the state directory
 * around it, which holds the ledger, the sessions and their grants. Nothing to do without
 * caches. 0, or -errno with @msg (no state directory: -ENOENT). */
int cr_caches_attach(struct cr_policy *p, const char *state_dir, char *msg, size_t size);
