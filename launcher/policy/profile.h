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
#include "limits.h"
#include "policy.h"
#include "launcher/risk/risk.h"

#define CR_DEFAULT_PROFILE "workspace"
#define CR_PROFILE_MAX_SIZE (64 * 1024) /* bytes of a profile file */
#define CR_PROFILE_NAME_MAX 64		/* a name is 1-64 of [A-Za-z0-9_-] */
#ifndef CR_SYSCONF_PROFILES
#define CR_SYSCONF_PROFILES "/etc/corral/profiles"
#endif

/* What `corral serve` does with a command ([commands] in a profile): run it, ask the user, or
 * refuse it. */
enum cr_command_rule {
	CR_COMMAND_ALLOW,
	CR_COMMAND_ASK,
	CR_COMMAND_DENY,
	_CR_COMMAND_RULE_MAX,
	_CR_COMMAND_RULE_INVALID = -EINVAL,
};

/* "allow", "ask", "deny"; NULL if out of range. And back. */
const char *cr_command_rule_to_string(enum cr_command_rule r);
enum cr_command_rule cr_command_rule_from_string(const char *s);

/* A path as the profile gives it: "~" and a leading "${WORKSPACE}" already expanded or still
 * marked (see cr_profile_resolve()), never relative. */
struct cr_profile_path {
	char *path;	/* absolute after "~" expansion; may start with "${WORKSPACE}" */
	unsigned line;	/* where it was given (for a built-in, in the text cr_profile_builtin_text()
			 * gives, which `corral profile show NAME --ini` prints); 0 if unknown */
	bool optional;	/* read_if_exists / write_if_exists: skipped when missing */
};

struct cr_profile {
	char *name;	   /* "workspace", or the file name without ".ini" */
	char *source;	   /* "builtin", or the file's canonical path */
	char *description; /* one line; may be empty */
	bool workspace_ro; /* [filesystem] workspace = ro */
	struct cr_profile_path *read, *write, *hide;
	size_t n_read, n_write, n_hide;
	enum cr_net_cap net;   /* [network] mode */
	char **hosts;	       /* [network] allow_host, NULL-terminated; with CR_NETCAP_HOSTS */
	size_t n_hosts;
	bool spawn;	       /* [process] spawn; default yes */
	struct cr_limits limits; /* [limits]: .set[l] for those given; .required for enforce */
	uint64_t timeout_ms;	 /* [limits] timeout; 0: none */
	enum cr_seccomp_mode seccomp;	/* [security] seccomp: default, strict or off */
	enum cr_landlock_mode landlock; /* [security] landlock: best-effort, required or off */
	/* [commands]: the rule of each risk tier (default: allow, allow, allow, ask), and the
	 * command lines that are always allowed: exactly (allow) or by their first words
	 * (allow_prefix). Both lists NULL-terminated. */
	enum cr_command_rule tier_rule[_CR_RISK_MAX];
	char **allow_commands;
	size_t n_allow_commands;
	char **allow_prefixes;
	size_t n_allow_prefixes;
};

/* Where named profiles are looked for. NULL members are skipped. */
struct cr_profile_dirs {
	const char *home;     /* for "~"; NULL: a "~" in a profile is an error */
	const char *user_dir; /* $XDG_CONFIG_HOME/corral/profiles (or ~/.config/corral/profiles) */
	const char *system_dir; /* CR_SYSCONF_PROFILES */
};

/* Fill @ret from the environment (HOME, XDG_CONFIG_HOME; a relative XDG_CONFIG_HOME is ignored,
 * as the XDG spec says; without an absolute HOME, the password database's home directory).
 * Strings are allocated; free them with cr_profile_dirs_done(). 0 or -ENOMEM. */
int cr_profile_dirs_from_env(char *const *env, struct cr_profile_dirs *ret);
void cr_profile_dirs_done(struct cr_profile_dirs *d);

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

/* The built-in profiles: names in order (NULL-terminated), and the INI text of one (NULL if
 * @name is not built in). */
extern const char *const cr_profile_builtin_names[];
const char *cr_profile_builtin_text(const char *name);

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

/* Is @s a profile name: 1-CR_PROFILE_NAME_MAX letters, digits, '_' or '-'? */
bool cr_profile_name_is_valid(const char *s);

/* A profile's text as found, before parsing. */
struct cr_profile_file {
	char *name;   /* the profile name, or the file name without ".ini" */
	char *source; /* "builtin", or the file's canonical path */
	char *text;   /* @size bytes, NUL-terminated after them (the text itself may hold NUL) */
	size_t size;
};

/* Find and read @name_or_path as cr_profile_load() does, without parsing it. Same errors. */
int cr_profile_find(const char *name_or_path, const struct cr_profile_dirs *dirs,
		    struct cr_profile_file *ret, char *msg, size_t msg_size);
void cr_profile_file_done(struct cr_profile_file *f);

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
