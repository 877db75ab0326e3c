/* SPDX-License-Identifier: MIT */
/* String conversions for the windows driver. MB_ERR_INVALID_CHARS / WC_ERR_INVALID_CHARS make the
 * conversions refuse what cannot round-trip instead of substituting U+FFFD. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "macro.h"
#include "wstr.h"

int cr_win_utf16(const char *s, wchar_t **ret)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	wchar_t *w;

	if (n <= 0)
		return -EINVAL;
	w = malloc((size_t)n * sizeof(wchar_t));
	if (!w)
		return -ENOMEM;
	if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
		free(w);
		return -EINVAL;
	}
	*ret = w;
	return 0;
}

int cr_win_utf8(const wchar_t *w, char **ret)
{
	int n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, NULL, 0, NULL, NULL);
	char *s;

	if (n <= 0)
		return -EINVAL;
	s = malloc((size_t)n);
	if (!s)
		return -ENOMEM;
	if (WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, s, n, NULL, NULL) != n) {
		free(s);
		return -EINVAL;
	}
	*ret = s;
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
