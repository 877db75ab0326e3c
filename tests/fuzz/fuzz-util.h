/* SPDX-License-Identifier: MIT */
/* What every harness shares: the libFuzzer entry point's prototype, an invariant check that
 * aborts (libFuzzer then saves the input as crash-*), and splitting the input into strings. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant: on failure, say which and abort, so that libFuzzer reports the input. */
#define FUZZ_CHECK(cond, ...)                                                                \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "%s:%d: invariant failed: %s: ", __FILE__, __LINE__, \
				#cond);                                                      \
			fprintf(stderr, __VA_ARGS__);                                        \
			fputc('\n', stderr);                                                 \
			abort();                                                             \
		}                                                                            \
	} while (0)

/* A NUL-terminated copy of @size bytes at @data (which may hold NUL: the string then ends
 * there). Aborts on allocation failure, which is no finding. */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* The input split at NUL bytes into at most @max strings: a NULL-terminated vector whose strings
 * all live in one allocation (*@ret_buf). The number of strings is in *@ret_n. */
static inline char **fuzz_split(const uint8_t *data, size_t size, size_t max, char **ret_buf,
				size_t *ret_n)
{
	char *buf = fuzz_strndup(data, size);
	char **v = calloc(max + 1, sizeof(char *));
	size_t n = 0;

	if (!v)
		abort();
	for (char *p = buf; n < max && p <= buf + size; p += strlen(p) + 1)
		v[n++] = p;
	*ret_buf = buf;
	*ret_n = n;
	return v;
}

static inline bool fuzz_strv_equal(char *const *a, char *const *b)
{
	size_t i;

	for (i = 0; a[i] && b[i]; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return !a[i] && !b[i];
}
