/* SPDX-License-Identifier: MIT */
/* The number parsers behind --memory ... --open-files, [limits], --timeout, --kill-after,
 * --uid and --tcp-connect / --tcp-bind: cr_limit_parse(), cr_parse_seconds(), cr_parse_uint(),
 * cr_ports_parse().
 * Invariants: a value that parses is within its documented range (non-zero, at most the limit's
 * maximum, "max" only as CR_LIMIT_INFINITY) and, printed back (cr_limit_format(), the port
 * format) and parsed again, gives the same value; sizes with a suffix equal the plain byte
 * count; seconds are monotone in their text (no overflow wraps); a port list that fails appends
 * nothing. The input is: one byte choosing the limit, then the text. */
#include <errno.h>
#include <inttypes.h>

#include "launcher/policy/limits.h"
#include "fuzz-util.h"
#include "launcher/policy/request.h"
#include "launcher/base/parse-util.h"
#include "launcher/policy/ports.h"
#include "launcher/base/macro.h"

static void check_limit(enum cr_limit l, const char *s)
{
	uint64_t v = 0, again = 0;
	char buf[64];
	int r;

	r = cr_limit_parse(l, s, &v);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE, "cr_limit_parse: %d", r);
	if (r < 0)
		return;
	FUZZ_CHECK(v != CR_LIMIT_UNSET, "'%s' parsed as unset", s);
	FUZZ_CHECK((v == CR_LIMIT_INFINITY) == (strcmp(s, "max") == 0), "'%s' -> %" PRIu64, s, v);
	cr_limit_format(l, v, buf, sizeof(buf));
	FUZZ_CHECK(cr_limit_parse(l, buf, &again) == 0, "'%s' -> '%s' does not parse", s, buf);
	FUZZ_CHECK(again == v, "'%s' -> %" PRIu64 " -> '%s' -> %" PRIu64, s, v, buf, again);
	if (l == CR_LIMIT_MEMORY && v != CR_LIMIT_INFINITY) {
		(void)snprintf(buf, sizeof(buf), "%" PRIu64, v);
		FUZZ_CHECK(cr_limit_parse(l, buf, &again) == 0 && again == v, "'%s' != '%s'", s,
			   buf);
	}
}

static void check_seconds(const char *s)
{
	uint64_t ms = 0, again = 0, whole = 0;
	_cleanup_free_ char *digits = NULL;
	char buf[64];
	int r;

	r = cr_parse_seconds(s, &ms);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE, "cr_parse_seconds: %d", r);
	if (r < 0)
		return;
	(void)snprintf(buf, sizeof(buf), "%" PRIu64 ".%03" PRIu64, ms / 1000, ms % 1000);
	FUZZ_CHECK(cr_parse_seconds(buf, &again) == 0 && again == ms, "'%s' -> %" PRIu64 " -> '%s'",
		   s, ms, buf);
	/* The whole seconds alone parse to no more, and to exactly ms rounded down. */
	digits = strndup(s, strspn(s, "0123456789"));
	if (!digits)
		abort();
	FUZZ_CHECK(cr_parse_seconds(digits, &whole) == 0 && whole == ms / 1000 * 1000,
		   "'%s' -> %" PRIu64 " but '%s' -> %" PRIu64, s, ms, digits, whole);
}

static void check_uint(const char *s)
{
	uint64_t v = 0, again = 0;
	char buf[32];
	int r;

	r = cr_parse_uint(s, 1, UINT32_MAX - 1, &v);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE, "cr_parse_uint: %d", r);
	if (r < 0)
		return;
	FUZZ_CHECK(v >= 1 && v <= UINT32_MAX - 1, "'%s' -> %" PRIu64 " out of range", s, v);
	(void)snprintf(buf, sizeof(buf), "%" PRIu64, v);
	FUZZ_CHECK(cr_parse_uint(buf, 1, UINT32_MAX - 1, &again) == 0 && again == v, "'%s'", s);
}

static void check_ports(const char *s, unsigned min)
{
	_cleanup_free_ struct cr_port_range *v = NULL, *again = NULL;
	_cleanup_free_ char *text = NULL;
	size_t n = 1, n_again = 0, len = 0;
	char item[16];
	int r;

	v = calloc(1, sizeof(*v)); /* one range there already, which must stay as it is */
	if (!v)
		abort();
	v[0] = (struct cr_port_range){7, 9};
	r = cr_ports_parse(s, min, &v, &n);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE, "cr_ports_parse: %d", r);
	FUZZ_CHECK(v[0].first == 7 && v[0].last == 9, "the range before was changed");
	if (r < 0) {
		FUZZ_CHECK(n == 1, "a failed parse appended %zu ranges", n - 1);
		return;
	}
	FUZZ_CHECK(n > 1, "'%s' parsed to nothing", s);
	text = calloc(n, sizeof(item));
	if (!text)
		abort();
	for (size_t i = 1; i < n; i++) {
		FUZZ_CHECK(v[i].first >= min && v[i].first <= v[i].last, "'%s': %u-%u", s,
			   v[i].first, v[i].last);
		cr_port_range_format(&v[i], item, sizeof(item));
		len += (size_t)sprintf(text + len, "%s%s", i > 1 ? "," : "", item);
	}
	FUZZ_CHECK(cr_ports_parse(text, min, &again, &n_again) == 0 && n_again == n - 1,
		   "'%s' -> '%s' does not parse back", s, text);
	FUZZ_CHECK(memcmp(again, v + 1, n_again * sizeof(*v)) == 0, "'%s' -> '%s' differs", s,
		   text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *s = NULL;

	if (size < 1 || size > 4096)
		return 0;
	s = fuzz_strndup(data + 1, size - 1);
	check_limit((enum cr_limit)(data[0] % _CR_LIMIT_MAX), s);
	check_seconds(s);
	check_uint(s);
	check_ports(s, data[0] & 0x80 ? 1 : 0);
	return 0;
}
