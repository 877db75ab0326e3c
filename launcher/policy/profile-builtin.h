/* SPDX-License-Identifier: MIT */
/* The built-in profiles (profile-builtin.c), as INI text. */
#pragma once

/* Their names, in order, NULL-terminated. */
extern const char *const cr_profile_builtin_names[];

/* The INI text of the built-in profile @name; NULL if @name is not built in. */
const char *cr_profile_builtin_text(const char *name);
