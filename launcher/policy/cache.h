/* SPDX-License-Identifier: MIT */
/* Named caches (--cache NAME=PATH, [filesystem] cache = NAME:PATH): writable directories that
 * corral keeps for the user under its state directory (STATE/caches/NAME) and shows at PATH, so
 * that a build finds what an earlier run downloaded or compiled. Here: the names, the paths and
 * the list in the policy; launcher/session/caches.h makes the directories. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

/* The longest cache name, in bytes. */
#define CR_CACHE_NAME_MAX 64

/* Is @name (@len bytes) a cache name: 1 to CR_CACHE_NAME_MAX of letters, digits, '_', '.' and
 * '-', not starting with '.' (so never "." or "..", never a path)? */
bool cr_cache_name_ok(const char *name, size_t len);

/* Split @spec, NAME @sep PATH as option @opt gave it, into a checked name and a sandbox path:
 * "~" and a leading "~/" expand to @home (the sandbox's HOME); the path must then be absolute,
 * with no "." or ".." component, not "/", and usable (cr_path_check()). Both results allocated.
 * 0, -EINVAL with the reason (naming @opt) in @msg, or -ENOMEM. */
int cr_cache_spec_parse(const char *opt, const char *spec, char sep, const char *home,
			char **ret_name, char **ret_path, char *msg, size_t size);

/* Add the cache @name at @path (both taken, freed on failure) to @p. A cache for a path an
 * earlier one has is refused unless that one came from the profile (index below @n_profile),
 * which it then replaces. A cache at or above the workspace is refused: it would cover it.
 * 0, -EINVAL with @msg naming @opt, or -ENOMEM. */
int cr_cache_add(struct cr_policy *p, size_t n_profile, char *name, char *path, const char *opt,
		 char *msg, size_t size);
