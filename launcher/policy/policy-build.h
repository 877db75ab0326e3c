/* SPDX-License-Identifier: MIT */
/* A request (the options) and a profile turned into one struct cr_policy: what every door calls
 * before the gate and the driver. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

struct cr_run_options;
struct cr_profile;
struct cr_capability;

/* What a policy is built from. */
struct cr_policy_input {
	const struct cr_run_options *opts;
	const struct cr_profile *profile; /* the baseline; NULL: the options alone (tests) */
	const char *session_workspace;	  /* --session: the default workspace, and --cwd must lie
					   * inside the workspace; NULL without a session */
	const char *const *system_paths;  /* the driver's (struct cr_driver.system_paths) */
	char *const *host_env;
	bool is_root; /* --uid/--gid only mean something for root */
};

/* Build the policy from the profile and the options on top of it: the profile's paths, network,
 * spawn, limits, timeout, seccomp and Landlock modes apply unless an option says otherwise, and
 * an option for the same path replaces the profile's rule. With a profile, also gives
 * @ret_request (what the options ask for: --ro paths as fs_read, --rw as fs_write, --net=host,
 * --allow-host, --spawn=yes, limits, --timeout, and layers weakened relative to the profile) and
 * @ret_baseline (the profile's, from cr_profile_resolve()); the caller decides whether the request
 * is allowed. Returns 0, or -errno with a one-line reason in @msg; nothing is returned on
 * failure. */
int cr_policy_build_from(const struct cr_policy_input *in, struct cr_policy *ret_policy,
			 struct cr_capability *ret_request, struct cr_capability *ret_baseline,
			 char *msg, size_t msg_size);

/* Validate @opts and resolve it into a policy: paths canonicalized and checked to exist, the
 * environment built from @host_env, defaults filled in. @launcher_is_root selects the id rules
 * (--uid/--gid only mean something for root). Returns 0, or a -errno with a one-line reason that
 * names the offending option in @msg. @ret_policy->argv points into the options' argv. */
int cr_policy_build(const struct cr_run_options *opts, char *const *host_env, bool launcher_is_root,
		    struct cr_policy *ret_policy, char *msg, size_t msg_size);
