/* SPDX-License-Identifier: MIT */
/* The sandbox's PATH: the caller's, less the directories the sandbox does not show. A toolchain
 * in HOME (~/.cargo/bin, pyenv's shims) works when a profile shows it, and an entry that would
 * name nothing inside is left out and reported, not kept to fail with "command not found". */
#pragma once

#include "policy.h"

/* Does the sandbox of @p show the host's @path at the same place? The deepest rule that holds it
 * decides, as the binds are made parent-first: the workspace, a read-only or writable path (yes),
 * a hidden path or a cache (no: what is there is not the host's); else one of @system_paths
 * (yes; may be NULL); else nothing shows it (the private HOME, /tmp: no). */
bool cr_policy_shows_host(const struct cr_policy *p, const char *const *system_paths,
			  const char *path);

/* The sandbox's PATH from @host_path (the caller's; NULL or empty: CR_DEFAULT_PATH): each
 * absolute entry that cr_policy_shows_host(), in order, duplicates once; the others (hidden,
 * relative or empty) in @ret_hidden, NULL-terminated, or NULL when none was left out. An empty
 * result is CR_DEFAULT_PATH. 0 or -ENOMEM. */
int cr_sandbox_path(const struct cr_policy *p, const char *const *system_paths,
		    const char *host_path, char **ret_path, char ***ret_hidden);
