/* SPDX-License-Identifier: MIT */
/* Profiles: INI files (read with inih) that give a session its baseline policy. Five are built in
 * (strict, workspace, ci, power_user, autonomous); a name is looked up in
 * $XDG_CONFIG_HOME/corral/profiles/NAME.ini, then CR_SYSCONF_PROFILES/NAME.ini, then the
 * built-ins; an argument with a '/' is a file. Every section, key and value is checked; an error
 * names the file and the line. The format is described in docs/policy.md and corral(1). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capability.h"
#include "profile-find.h"
#include "limits.h"
#include "policy.h"
#include "launcher/risk/risk.h"

#define CR_DEFAULT_PROFILE "workspace"
/* What `corral serve` does with a command ([commands] in a profile): run it, ask the user, or
 * refuse it. */
enum cr_command_rule {
	CR_COMMAND_ALLOW,
	CR_COMMAND_ASK,
	CR_COMMAND_DENY,
	_CR_COMMAND_RULE_MAX,
	_CR_COMMAND_RULE_INVALID = -EINVAL,
};

/* "allow", "ask", "deny"; NULL if out of range. */
const char *cr_command_rule_to_string(enum cr_command_rule r);

/* A path as the profile gives it: "~" and a leading "${WORKSPACE}" already expanded or still
 * marked (see cr_profile_resolve()), never relative. */
struct cr_profile_path {
	char *path;	/* absolute after "~" expansion; may start with "${WORKSPACE}" */
	unsigned line;	/* where it was given (for a built-in, in the text cr_profile_builtin_text()
			 * gives, which `corral profile show NAME --ini` prints); 0 if unknown */
	bool optional;	/* read_if_exists / write_if_exists: skipped when missing */
};

/* [filesystem] cache = NAME:PATH, checked (cache.h) but kept as written: "~" expands to the
 * sandbox's HOME when the policy is built. */
struct cr_profile_cache {
	char *spec;
	unsigned line;
};

struct cr_profile {
	char *name;	   /* "workspace", or the file name without ".ini" */
	char *source;	   /* "builtin", or the file's canonical path */
	char *description; /* one line; may be empty */
	bool workspace_ro; /* [filesystem] workspace = ro */
	struct cr_profile_path *read, *write, *hide;
	size_t n_read, n_write, n_hide;
	struct cr_profile_cache *caches;
	size_t n_caches;
	enum cr_net_cap net;   /* [network] mode */
	char **hosts;	       /* [network] allow_host, NULL-terminated; with CR_NETCAP_HOSTS */
	size_t n_hosts;
	bool spawn;	       /* [process] spawn; default yes */
	bool inherit_path;     /* [process] path = inherit: the caller's PATH, less what the
				* sandbox does not show (path-env.h); default standard */
	struct cr_limits limits; /* [limits]: .set[l] for those given; .required for enforce */
	uint64_t timeout_ms;	 /* [limits] timeout; 0: none */
	enum cr_seccomp_mode seccomp;	/* [security] seccomp: default, strict or off */
	enum cr_landlock_mode landlock; /* [security] landlock: best-effort, required or off */
	bool ptrace;			/* [security] ptrace = sandbox; default no */
	/* [commands]: the rule of each risk tier (default: allow, allow, allow, ask), and the
	 * command lines that are always allowed: exactly (allow) or by their first words
	 * (allow_prefix). Both lists NULL-terminated. */
	enum cr_command_rule tier_rule[_CR_RISK_MAX];
	char **allow_commands;
	size_t n_allow_commands;
	char **allow_prefixes;
	size_t n_allow_prefixes;
};

/* Parse profile text @text (@size bytes, which may contain NUL: refused with its line) read from
 * @source ("builtin" or a path, used in messages as "SOURCE:LINE: ..."). 0, -EINVAL with the
 * reason in @msg, or -ENOMEM. */
int cr_profile_parse(const char *text, size_t size, const char *name, const char *source,
		     const struct cr_profile_dirs *dirs, struct cr_profile *ret, char *msg,
		     size_t msg_size);

/* Find and parse @name_or_path in the search order above. A file must be a regular file owned by
 * the caller or root and writable by nobody else, not a symbolic link itself (its directories may
 * be), and at most CR_PROFILE_MAX_SIZE bytes. 0, -ENOENT ("no profile named ..., looked in
 * ..."), -EINVAL, -EPERM (ownership, mode, symlink, not a regular file), -EFBIG, another -errno
 * of open(2)/read(2), with the reason in @msg, or -ENOMEM. */
int cr_profile_load(const char *name_or_path, const struct cr_profile_dirs *dirs,
		    struct cr_profile *ret, char *msg, size_t msg_size);

void cr_profile_done(struct cr_profile *p);

/* What to do with @command_line, classified as @risk. The allowlist comes first: the line,
 * trimmed, equals an allow entry; or every simple command of the line (those inside $(...)
 * included) is allowlisted, its words equal to an allow entry's or starting with an
 * allow_prefix entry's, with no assignment before it, no substitution in its words and no
 * redirection but n>&m and writes to /dev/null. Otherwise (a command not allowlisted, no command,
 * a line that does not parse) the rule of @risk's tier applies; an out-of-range tier counts as
 * unknown. *@ret_why (if not NULL) is set to the allowlist entry that matched (it lives as long
 * as @p), or to the tier's name (static). */
enum cr_command_rule cr_profile_command_rule(const struct cr_profile *p, const char *command_line,
					     const struct cr_risk *risk, const char **ret_why);
