/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "parse-util.h"

int cr_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end != '\0')
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

int cr_parse_seconds(const char *s, uint64_t *ret_ms)
{
	uint64_t whole = 0, frac = 0;
	const char *p = s;
	int digits = 0;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			if (digits < 3)
				frac = frac * 10 + (uint64_t)(*p - '0');
		if (digits == 0)
			return -EINVAL;
		for (int i = digits; i < 3; i++)
			frac *= 10;
	}
	if (*p != '\0')
		return -EINVAL;
	if (whole > UINT64_MAX / 1000 || whole * 1000 > UINT64_MAX - frac)
		return -ERANGE;
	*ret_ms = whole * 1000 + frac;
	return 0;
}

void cr_format_seconds(uint64_t ms, char *buf, size_t size)
{
	unsigned frac = (unsigned)(ms % 1000);
	int digits = 3;

	if (frac == 0) {
		(void)snprintf(buf, size, "%llu", (unsigned long long)(ms / 1000));
		return;
	}
	for (; frac % 10 == 0; frac /= 10)
		digits--;
	(void)snprintf(buf, size, "%llu.%0*u", (unsigned long long)(ms / 1000), digits, frac);
}
