/* SPDX-License-Identifier: MIT */
/* The SBPL profile of the macOS driver: what `sandbox-exec -p PROFILE -D NAME=VALUE ...` gets
 * for a policy. Portable C, built and unit-tested on every host, so that anyone can review the
 * profile from Linux (`corral profile show NAME --backend macos`).
 *
 * Injection-proof by construction: the profile text is assembled from fixed fragments and
 * parameter names only (WORKSPACE, TMPDIR, READ_0, ...); every path goes in a -D parameter and is
 * referenced as (param "NAME"). Two policies with the same shape give byte-identical profile
 * texts whatever their paths contain. Every path is still checked first (absolute, valid UTF-8,
 * no NUL or control character, canonical), so a bad path is refused the same way on every host.
 *
 * Deny by default. Allowed: starting processes (the command's tree), reading the system
 * locations a shell and toolchains need, reading and writing the workspace and a private
 * temporary directory, /dev/null, /dev/zero, /dev/random, /dev/urandom, /dev/tty and ptys when
 * interactive, a short list of mach services, sysctl reads. The last rules deny the sensitive
 * paths (~/.ssh, ~/.aws, ~/.gnupg, keychains, browser profiles, ...) even inside an allowed
 * tree: SBPL takes the last matching rule. Network: none, loopback only, or all. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

enum cr_sbpl_net {
	CR_SBPL_NET_NONE,     /* (deny network*) */
	CR_SBPL_NET_LOOPBACK, /* only to and from localhost */
	CR_SBPL_NET_ALL,      /* (allow network*) */
	_CR_SBPL_NET_MAX,
	_CR_SBPL_NET_INVALID = -EINVAL,
};

struct cr_sbpl_input {
	const char *workspace;	/* canonical; read-write unless workspace_ro */
	bool workspace_ro;
	const char *tmpdir;	/* the run's private temporary directory, read-write */
	const char *home;	/* the user's home: the sensitive paths under it are denied */
	const char *const *read; /* more read-only paths */
	size_t n_read;
	const char *const *write; /* more read-write paths */
	size_t n_write;
	const char *const *hide; /* paths denied even under an allowed tree */
	size_t n_hide;
	enum cr_sbpl_net net;
	bool spawn;	  /* may start processes (fork); exec of the command itself is always allowed */
	bool interactive; /* a terminal: /dev/tty and ptys */
};

struct cr_sbpl {
	char *profile; /* the SBPL text; contains no path */
	char **params; /* "NAME=VALUE", NULL-terminated, in the order the profile uses them */
	size_t n_params;
};

/* Check one path given as @size bytes (so that an embedded NUL is seen): absolute, valid UTF-8,
 * no NUL or control character, no ".", ".." or empty component, no trailing '/' (but "/"), at
 * most 1024 bytes. 0, or -EINVAL with the reason in @msg (which names @what). */
int cr_sbpl_check_path(const char *what, const char *path, size_t size, char *msg,
		       size_t msg_size);

/* Generate the profile and its parameters. 0, -EINVAL (a bad path, with the reason in @msg) or
 * -ENOMEM. */
int cr_sbpl_generate(const struct cr_sbpl_input *in, struct cr_sbpl *ret, char *msg,
		     size_t msg_size);

/* The sensitive paths under a home directory that every profile denies, relative to it
 * ("/.ssh", ...), NULL-terminated. */
extern const char *const cr_sbpl_home_secrets[];

void cr_sbpl_done(struct cr_sbpl *s);

struct cr_policy;

/* The profile for @policy as the macOS driver would run it: the workspace (read-only with
 * workspace_ro), the --ro/--rw/--hide rules, the home directory's secrets, the network (none,
 * or all for --net=host; allow_hosts needs corral's proxy, which the macOS driver does not have:
 * -ENOTSUP), spawn. @tmpdir is the run's private temporary directory. 0 or -errno with @msg. */
int cr_sbpl_from_policy(const struct cr_policy *policy, const char *tmpdir, bool interactive,
			struct cr_sbpl *ret, char *msg, size_t msg_size);

struct cr_profile;

/* `corral profile show NAME --backend macos`: print the profile text and the -D parameters the
 * macos driver would use for @profile with workspace @workspace (canonical) and the caller's
 * environment, as text (parameters as comments first) or, with @json, as {"backend": "macos",
 * "profile": TEXT, "params": {NAME: VALUE, ...}}. 0 or -errno with @msg. */
int cr_sbpl_show(const struct cr_profile *profile, const char *workspace, char *const *env,
		 bool json, char *msg, size_t msg_size);
