/* SPDX-License-Identifier: MIT */
/* UTF-8 (corral's strings) to UTF-16 (Win32's) and back, and the blocks CreateProcess takes. */
#pragma once

#include <wchar.h>

/* A newly allocated UTF-16 copy of @s: UTF-8, where the three-byte form of a surrogate (ED A0..BF
 * 80..BF) stands for an unpaired one (see cr_win_utf8()). 0, -EINVAL (anything else that is not
 * UTF-8, or a high form followed by a low one) or -ENOMEM. */
int cr_win_utf16(const char *s, wchar_t **ret);

/* A newly allocated UTF-8 copy of @w, each unpaired surrogate written as its three-byte form, so
 * that cr_win_utf16() gives @w back exactly (a Windows name may hold one). Such a string is not
 * UTF-8: JSON gets it through cr_json_text(), which makes each of those bytes U+FFFD. 0 or
 * -ENOMEM (-EINVAL only for a string longer than INT_MAX / 3). */
int cr_win_utf8(const wchar_t *w, char **ret);

/* The environment block of CREATE_UNICODE_ENVIRONMENT from @env (KEY=VALUE, NULL-terminated),
 * sorted by name without regard to case as CreateProcess documents; an entry without '=' or with
 * an empty name is -EINVAL. 0, -EINVAL or -ENOMEM. */
int cr_win_env_block(char *const *env, wchar_t **ret);
