/* SPDX-License-Identifier: MIT */
/* UTF-8 (corral's strings) to UTF-16 (Win32's) and back, and the blocks CreateProcess takes. */
#pragma once

#include <wchar.h>

/* A newly allocated UTF-16 copy of @s. 0, -EINVAL (not UTF-8) or -ENOMEM. */
int cr_win_utf16(const char *s, wchar_t **ret);

/* A newly allocated UTF-8 copy of @w. 0, -EINVAL (unpaired surrogate) or -ENOMEM. */
int cr_win_utf8(const wchar_t *w, char **ret);

/* The environment block of CREATE_UNICODE_ENVIRONMENT from @env (KEY=VALUE, NULL-terminated),
 * sorted by name without regard to case as CreateProcess documents; an entry without '=' or with
 * an empty name is -EINVAL. 0, -EINVAL or -ENOMEM. */
int cr_win_env_block(char *const *env, wchar_t **ret);
