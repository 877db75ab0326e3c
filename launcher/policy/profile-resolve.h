/* SPDX-License-Identifier: MIT */
/* A profile resolved against a workspace (profile-resolve.c): the path rules the policy mounts
 * and the baseline capability, for the policy builder, and everything it computed, for
 * `corral profile show`. */
#pragma once

#include <stddef.h>

#include "capability.h"
#include "policy.h"
#include "profile.h"

/* Resolve the profile against @workspace (canonical): expand ${WORKSPACE}, canonicalize every
 * path (symlinks, ".."), skip missing optional ones, refuse missing required ones (-ENOENT, with
 * "SOURCE:LINE"). Gives the path rules the policy mounts (read -> CR_PATH_RO, write ->
 * CR_PATH_RW, hide -> CR_PATH_HIDE; not the workspace itself) in @ret_rules/@ret_n, and the
 * baseline capability in @ret_baseline: fs_read = @system_paths + workspace + read + write,
 * fs_write = workspace (unless workspace_ro) + write, net and hosts, spawn, limits (unset:
 * unbounded), timeout, and unconfined for the layers the profile turns off. Either output may be
 * NULL. 0 or -errno with @msg. */
int cr_profile_resolve(const struct cr_profile *p, const char *workspace,
		       const char *const *system_paths, struct cr_path_rule **ret_rules,
		       size_t *ret_n, struct cr_capability *ret_baseline, char *msg,
		       size_t msg_size);

/* A path of the profile that cr_profile_resolve() left out because it does not exist (a
 * read_if_exists, write_if_exists or hide path). */
struct cr_profile_skip {
	char *path; /* with ${WORKSPACE} expanded, not canonical (it does not exist) */
	enum cr_path_access access;
	unsigned line;
};

/* Everything cr_profile_resolve() computes, for `corral profile show`. */
struct cr_profile_resolution {
	struct cr_path_rule *rules; /* what cr_profile_resolve() gives in @ret_rules */
	unsigned *lines;	    /* the line of each rule */
	size_t n_rules;
	struct cr_profile_skip *skipped;
	size_t n_skipped;
	struct cr_capability baseline;
};

/* cr_profile_resolve() with every result in @ret (filled only on success). 0 or -errno with
 * @msg. */
int cr_profile_resolve_full(const struct cr_profile *p, const char *workspace,
			    const char *const *system_paths, struct cr_profile_resolution *ret,
			    char *msg, size_t msg_size);
void cr_profile_resolution_done(struct cr_profile_resolution *r);
