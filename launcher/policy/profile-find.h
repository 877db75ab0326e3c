/* SPDX-License-Identifier: MIT */
/* Finding a profile's text by name or path (profile-find.c): where named profiles are looked
 * for, and the file found, for cr_profile_load() and for `corral profile`, which shows a profile
 * as found. Knows nothing of the profile's contents (profile.h). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define CR_PROFILE_MAX_SIZE (64 * 1024) /* bytes of a profile file */
#define CR_PROFILE_NAME_MAX 64		/* a name is 1-64 of [A-Za-z0-9_-] */
#ifndef CR_SYSCONF_PROFILES
#define CR_SYSCONF_PROFILES "/etc/corral/profiles"
#endif

/* Where named profiles are looked for. NULL members are skipped. */
struct cr_profile_dirs {
	const char *home;     /* for "~"; NULL: a "~" in a profile is an error */
	const char *user_dir; /* $XDG_CONFIG_HOME/corral/profiles (or ~/.config/corral/profiles) */
	const char *system_dir; /* CR_SYSCONF_PROFILES */
	/* The user's directory when corral cannot take it: "DIR (REASON)"; NULL when it can. Another
	 * user's directory (its base, XDG_CONFIG_HOME or HOME, is not the caller's own) is left out:
	 * user_dir is NULL then. One corral cannot read stays in user_dir with user_unreadable set. */
	const char *skipped;
	bool user_unreadable;
	bool lenient; /* set by the caller: look past an unreadable user_dir (the default profile) */
};

/* Fill @ret from the environment (HOME, XDG_CONFIG_HOME; a relative XDG_CONFIG_HOME is ignored,
 * as the XDG spec says; without an absolute HOME, the password database's home directory), and
 * say in @ret->skipped when the user's directory is someone else's or cannot be read.
 * Strings are allocated; free them with cr_profile_dirs_done(). 0 or -ENOMEM. */
int cr_profile_dirs_from_env(char *const *env, struct cr_profile_dirs *ret);
void cr_profile_dirs_done(struct cr_profile_dirs *d);

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
