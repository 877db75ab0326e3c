/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "compat.h"

/* As OpenBSD's: realloc(p, n * size), or NULL and ENOMEM when the product overflows. */
void *reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, n * size);
}
