/* SPDX-License-Identifier: MIT */
#include "hex.h"

void cr_hex(const uint8_t *data, size_t size, char *ret)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < size; i++) {
		ret[2 * i] = digits[data[i] >> 4];
		ret[2 * i + 1] = digits[data[i] & 15];
	}
	ret[2 * size] = '\0';
}
