/* SPDX-License-Identifier: MIT */
/* String conversions for the windows driver. A Windows name is UTF-16 that need not be well formed:
 * NTFS and the environment accept an unpaired surrogate. corral's strings carry one as its own
 * three-byte form (ED A0..BF 80..BF, the "generalized UTF-8" that UTF-8 forbids), so every name
 * converts back to itself and names the same file; the rest must be well-formed UTF-8 (overlong
 * forms and other invalid bytes are refused, MB_ERR_INVALID_CHARS / WC_ERR_INVALID_CHARS). JSON
 * text is made with cr_json_text() (launcher/base/json-text.c), which turns each byte of such a form
 * into U+FFFD. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "launcher/base/macro.h"
#include "wstr.h"

/* The unpaired surrogate at @w[@i] (a high one not followed by a low one, or a low one not after a
 * high one), or 0. @w is NUL-terminated and @w[@i] is not its end. */
static wchar_t lone_surrogate(const wchar_t *w, size_t i)
{
	if (IS_HIGH_SURROGATE(w[i]) && !IS_LOW_SURROGATE(w[i + 1]))
		return w[i];
	if (IS_LOW_SURROGATE(w[i]) && (i == 0 || !IS_HIGH_SURROGATE(w[i - 1])))
		return w[i];
	return 0;
}

/* The unpaired surrogate whose three-byte form begins at @s (NUL-terminated), or 0. */
static wchar_t surrogate_form(const unsigned char *s)
{
	if (s[0] != 0xed || s[1] < 0xa0 || s[1] > 0xbf || (s[2] & 0xc0) != 0x80)
		return 0;
	return (wchar_t)(0xd000 | (s[1] & 0x3f) << 6 | (s[2] & 0x3f));
}

int cr_win_utf16(const char *s, wchar_t **ret)
{
	size_t len = strlen(s), o = 0, start = 0;
	_cleanup_free_ wchar_t *w = NULL;

	if (len >= INT_MAX)
		return -EINVAL;
	w = malloc((len + 1) * sizeof(wchar_t)); /* never more units than bytes */
	if (!w)
		return -ENOMEM;
	for (size_t i = 0; i <= len; i++) {
		wchar_t c = i < len ? surrogate_form((const unsigned char *)s + i) : 0;

		if (i < len && !c)
			continue;
		if (i > start) { /* the well-formed UTF-8 before it */
			int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s + start,
						    (int)(i - start), w + o, (int)(len + 1 - o));

			if (n <= 0)
				return -EINVAL;
			o += (size_t)n;
		}
		/* A high form then a low one would be a pair, whose form is four bytes of its own:
		 * refused, so that each name has one spelling. */
		if (c && IS_LOW_SURROGATE(c) && o > 0 && IS_HIGH_SURROGATE(w[o - 1]))
			return -EINVAL;
		if (c) {
			w[o++] = c;
			i += 2;
		}
		start = i + 1;
	}
	w[o] = L'\0';
	*ret = TAKE_PTR(w);
	return 0;
}

int cr_win_utf8(const wchar_t *w, char **ret)
{
	size_t len = wcslen(w), o = 0, start = 0;
	_cleanup_free_ char *s = NULL;

	if (len >= INT_MAX / 3)
		return -EINVAL;
	s = malloc(len * 3 + 1); /* at most three bytes a unit (four for a pair of two) */
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i <= len; i++) {
		wchar_t c = i < len ? lone_surrogate(w, i) : 0;

		if (i < len && !c)
			continue;
		if (i > start) { /* the well-formed UTF-16 before it */
			int n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w + start,
						    (int)(i - start), s + o, (int)(len * 3 + 1 - o),
						    NULL, NULL);

			if (n <= 0)
				return -EINVAL;
			o += (size_t)n;
		}
		if (c) {
			s[o++] = (char)(0xe0 | c >> 12);
			s[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			s[o++] = (char)(0x80 | (c & 0x3f));
		}
		start = i + 1;
	}
	s[o] = '\0';
	*ret = TAKE_PTR(s);
	return 0;
}

/* Names compared up to '=' without regard to case, as Windows treats them. */
static int env_cmp(const void *a, const void *b)
{
	const wchar_t *x = *(wchar_t *const *)a, *y = *(wchar_t *const *)b;
	size_t nx = wcscspn(x, L"="), ny = wcscspn(y, L"=");
	int r = _wcsnicmp(x, y, nx < ny ? nx : ny);

	return r ? r : (nx > ny) - (nx < ny);
}

static void wstrv_free(wchar_t **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int cr_win_env_block(char *const *env, wchar_t **ret)
{
	size_t n = 0, len = 1, k = 0;
	wchar_t **v, *block;
	int r = 0;

	while (env[n])
		n++;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n && r >= 0; i++) {
		const char *eq = strchr(env[i], '=');

		r = !eq || eq == env[i] ? -EINVAL : cr_win_utf16(env[i], &v[i]);
		if (r >= 0)
			len += wcslen(v[i]) + 1;
	}
	if (r < 0) {
		wstrv_free(v, n);
		return r;
	}
	qsort(v, n, sizeof(*v), env_cmp);
	block = malloc((len + 1) * sizeof(wchar_t));
	if (!block) {
		wstrv_free(v, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		size_t l = wcslen(v[i]) + 1;

		memcpy(block + k, v[i], l * sizeof(wchar_t));
		k += l;
	}
	block[k++] = L'\0';
	if (n == 0) /* an empty block is two NULs */
		block[k++] = L'\0';
	wstrv_free(v, n);
	*ret = block;
	return 0;
}
