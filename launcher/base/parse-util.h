/* SPDX-License-Identifier: MIT */
/* Numbers and durations as corral's options and files spell them: one copy for every caller. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* "1.5" -> 1500. Seconds as a non-negative decimal; fraction digits past the third are ignored.
 * 0, -EINVAL, or -ERANGE past UINT64_MAX milliseconds. */
int cr_parse_seconds(const char *s, uint64_t *ret_ms);
/* A whole number in [min, max]. 0 or -EINVAL / -ERANGE. */
int cr_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret);
/* 7200000 -> "7200", 1500 -> "1.5", 1 -> "0.001": milliseconds as seconds the way a user types
 * them (cr_parse_seconds() reads the text back to the same value), without a trailing zero or
 * exponent. Truncated to @size like snprintf(). */
void cr_format_seconds(uint64_t ms, char *buf, size_t size);
