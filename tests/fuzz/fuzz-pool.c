/* SPDX-License-Identifier: MIT */
/* launcher/pool/pool-proto.c: the strings of a pool message (pool_unpack()), as the pool reads
 * a client's request. The input's first byte is how many strings to ask for, the rest the
 * message after a 4-byte header.
 * Invariants: a message unpacks only if its strings lie within it; every string returned starts
 * inside the message and ends at a NUL inside it; the vector is NULL-terminated; packing what was
 * unpacked gives the same bytes back. */
#include <errno.h>

#include "fuzz-util.h"
#include "launcher/pool/pool-internal.h"

#define HDR 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n, len, off = 0;
	char *buf, *copy, *out[34];
	int r;

	if (size < 1 || size > 4096)
		return 0;
	n = data[0] % 33;
	len = HDR + size - 1;
	buf = calloc(1, CR_POOL_MAX_MSG);
	copy = calloc(1, CR_POOL_MAX_MSG);
	if (!buf || !copy)
		abort();
	memcpy(buf + HDR, data + 1, size - 1);
	r = pool_unpack(buf, len, HDR, n, out);
	FUZZ_CHECK(r == 0 || r == -EBADMSG, "unexpected %d", r);
	if (r == 0) {
		FUZZ_CHECK(out[n] == NULL, "the vector is not NULL-terminated");
		for (size_t i = 0; i < n; i++) {
			FUZZ_CHECK(out[i] >= buf + HDR && out[i] < buf + len, "string %zu outside", i);
			FUZZ_CHECK(out[i] + strlen(out[i]) < buf + len, "string %zu runs past the end",
				   i);
		}
		FUZZ_CHECK(pool_pack(copy, HDR, out, n, &off) >= 0, "cannot pack it again");
		FUZZ_CHECK(memcmp(copy + HDR, buf + HDR, off - HDR) == 0, "packed differently");
	}
	free(buf);
	free(copy);
	return 0;
}
