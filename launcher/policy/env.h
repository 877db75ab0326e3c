/* SPDX-License-Identifier: MIT */
/* The command's environment: cleared to a short allowlist, then what the user asked for. */
#pragma once

#include <stddef.h>

/* The sandbox's PATH, whatever the caller's is (--keep-env PATH or --setenv PATH replace it). */
#define CR_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* Build the sandbox environment from @host (KEY=VALUE, NULL-terminated): PATH is CR_DEFAULT_PATH,
 * TERM and LANG are copied if set, HOME is set to @home, then each name in
 * @keep is copied if set, then each KEY=VALUE in @set replaces or adds. Returns 0 or -ENOMEM. */
int cr_env_build(char *const *host, const char *home, const char *const *keep, size_t n_keep,
		 const char *const *set, size_t n_set, char ***ret_env);

/* Value of @key in @env, or NULL. */
const char *cr_env_get(char *const *env, const char *key);
