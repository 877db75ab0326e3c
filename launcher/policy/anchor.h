/* SPDX-License-Identifier: MIT */
/* corral's own files, its trust anchors: what a later run reads as policy (the profile
 * directories, a profile or seccomp profile named by path, the state directory with its sessions,
 * grants and approvals, the ledger, the compiled seccomp cache). No command in a sandbox may
 * change them, or where corral finds them: see docs/policy.md, "corral's own files". */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct cr_policy;
struct cr_profile_dirs;

#define CR_ANCHORS_MAX 8

struct cr_anchor {
	const char *what; /* for messages: "profile directory", "state directory", ... */
	char *path;	  /* as corral finds it: absolute, not canonical */
	bool file;	  /* a file corral has already opened; never made here */
	unsigned mode;	  /* a directory made when missing: its mode, and its missing parents' */
};

struct cr_anchors {
	struct cr_anchor a[CR_ANCHORS_MAX];
	size_t n;
};

/* Where a run (or a serve session) finds its policy. NULL members are left out. */
struct cr_anchor_sources {
	const struct cr_profile_dirs *dirs; /* the user's and the system's profile directories */
	const char *profile;		    /* the profile as given: a name, or a path with a '/' */
	const char *seccomp_profile;	    /* --seccomp-profile as given */
	const char *state_dir;		    /* sessions, grants, approvals, the default ledger */
	const char *audit_path;		    /* the ledger (--audit FILE, or the default one) */
	char *const *env;		    /* XDG_CACHE_HOME, HOME: the seccomp cache */
};

/* The anchors of @src: the corral directory above each profile directory, the profile and the
 * seccomp profile when given by path (a relative one against the working directory), the state
 * directory, the ledger, and the corral directory of the cache. 0 or -ENOMEM. */
int cr_anchors_collect(const struct cr_anchor_sources *src, struct cr_anchors *ret);
void cr_anchors_done(struct cr_anchors *a);

/* Keep @anchors out of reach of the sandbox @p describes. Each anchor is resolved as corral
 * resolves it (symbolic links followed, the missing rest appended). Refused, -EPERM with both
 * paths in @msg: a path the sandbox may write (the workspace, a read-write rule) inside or equal to
 * an anchor, unless it lies inside @session_workspace (the session's own workspace, which corral
 * assigns under the state directory; may be NULL), and an anchor reached through a symbolic
 * link in a directory the sandbox may write (it could replace the link). For an anchor the
 * sandbox could otherwise change: the anchor is made when missing (a directory, with its mode),
 * shown read-only (a CR_PATH_RO rule), and every directory on its way that the sandbox could
 * rename or remove becomes a pinned rule (CR_PATH_RW with .pin: a bind of the directory onto
 * itself, a mount point the sandbox cannot move). Nothing is added for an anchor no writable path
 * reaches, so a run whose writable paths are elsewhere costs one lstat() per component of each
 * anchor. 0, or -errno with @msg. */
int cr_policy_guard(struct cr_policy *p, const struct cr_anchors *anchors,
		    const char *session_workspace, char *msg, size_t size);
