/* SPDX-License-Identifier: MIT */
/* Bytes as lower-case hex: digests in session ids, ledger hashes and seccomp cache keys. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Lower-case hex of @data into @ret (2 * @size + 1 bytes, NUL-terminated). */
void cr_hex(const uint8_t *data, size_t size, char *ret);
