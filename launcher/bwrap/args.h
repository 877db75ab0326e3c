/* SPDX-License-Identifier: MIT */
/* bwrap's command line (bubblewrap 0.11's options and semantics) turned into a struct cr_policy
 * with an explicit filesystem (launcher/policy/fs-op.h), plus what only this door acts on. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "launcher/policy/policy.h"

/* How much corral adds to bwrap's semantics (corral-bwrap(1)). */
enum cr_bwrap_mode {
	CR_BWRAP_HARDENED, /* the default: what a correct client cannot tell apart, added */
	CR_BWRAP_COMPAT,   /* exactly bwrap's semantics */
	_CR_BWRAP_MODE_MAX,
	_CR_BWRAP_MODE_INVALID = -EINVAL,
};

const char *cr_bwrap_mode_to_string(enum cr_bwrap_mode m);
enum cr_bwrap_mode cr_bwrap_mode_from_string(const char *s);

struct cr_bwrap {
	struct cr_policy policy;
	enum cr_bwrap_mode mode;
	bool help, version;
	bool level_prefix;
	bool die_with_parent;
	bool unshare_user_try, unshare_cgroup_try;
	bool assert_userns_disabled;
	int info_fd, json_status_fd, sync_fd;
	int userns_fd, userns2_fd, pidns_fd;
	unsigned n_chdir; /* more than one: a warning, as bwrap gives */
	bool asked_new_session; /* --new-session was given (the door's record, before hardening) */
	char **options;	  /* the options as parsed, each --args FD replaced by what it held: the */
	size_t n_options; /* command line a pool builds the same policy from */
};

/* Parse @argv (argv[0] is the program: not an option) into @b, for a caller with @uid and the
 * capabilities @caller_caps. On a usage error returns -EINVAL with bwrap's message in @msg
 * ("Unknown option --foo"); other -errno with a message too. @b is filled either way and must be
 * released with cr_bwrap_done(). */
int cr_bwrap_parse(int argc, char **argv, uint32_t uid, uint32_t gid, uint64_t caller_caps,
		   enum cr_bwrap_mode mode, struct cr_bwrap *b, char *msg, size_t size);
void cr_bwrap_done(struct cr_bwrap *b);

/* The help text, for @prog ("usage: PROG [OPTIONS...] [--] COMMAND [ARGS...]"). */
void cr_bwrap_usage(const char *prog, FILE *out);
