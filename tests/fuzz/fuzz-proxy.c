/* SPDX-License-Identifier: MIT */
/* The proxy's parsers and address classification: cr_http_head_end(),
 * cr_http_request_parse(), cr_http_authority_parse()/_format(), cr_http_forward_head()
 * (ns/net/proxy-parse.c), cr_addr_special*() and cr_addr_same() (ns/net/addr-class.c).
 * Invariants: the head ends at a blank line within the limit, and the same bytes cut there give
 * the same end while one byte less is incomplete; a parsed request names a valid lower-case host
 * and a port 1-65535 that format and parse back to the same, its offsets lie inside the head and
 * its framing is never ambiguous (chunked and Content-Length together); the head sent on is one
 * whole clean head without hop-by-hop headers that, put behind a request line again, parses with
 * the same framing (no smuggling through the rewrite); an address is classified the same in
 * every IPv6 form that carries it (IPv4-mapped, NAT64, 6to4, Teredo) and compares equal to its
 * mapped and NAT64 forms. The whole input is the head; its first 16 bytes are also an address. */
#include <arpa/inet.h>
#include <errno.h>
#include <strings.h>

#include "launcher/policy/host-pattern.h"
#include "fuzz-util.h"
#include "ns/net/addr-class.h"
#include "ns/net/proxy-parse.h"

static void check_authority(const char *a, size_t n, const char *def)
{
	char host[CR_HTTP_HOST_MAX], port[CR_HTTP_PORT_MAX], again_host[CR_HTTP_HOST_MAX],
		again_port[CR_HTTP_PORT_MAX], text[CR_HTTP_HOST_MAX + CR_HTTP_PORT_MAX + 1];
	const char *why = NULL;
	int r = cr_http_authority_parse(a, n, def, host, port, &why), k;

	FUZZ_CHECK(r == 0 || (r == -EINVAL && why), "authority: %d", r);
	if (r < 0)
		return;
	FUZZ_CHECK(cr_host_pattern_check(host) == 0 && host[0] != '*', "host '%s'", host);
	for (const char *p = host; *p; p++)
		FUZZ_CHECK(*p < 'A' || *p > 'Z', "host '%s' not lower case", host);
	FUZZ_CHECK(port[0] >= '1' && port[0] <= '9' && strtoul(port, NULL, 10) <= 65535, "port '%s'",
		   port);
	k = cr_http_authority_format(host, port, text, sizeof(text));
	FUZZ_CHECK(k > 0, "format: %d", k);
	r = cr_http_authority_parse(text, (size_t)k, NULL, again_host, again_port, &why);
	FUZZ_CHECK(r == 0 && strcmp(host, again_host) == 0 && strcmp(port, again_port) == 0,
		   "'%s' does not parse back (%d)", text, r);
}

/* Is any header line in @h (@n bytes of CRLF-ended lines) named @name? */
static bool has_header(const char *h, size_t n, const char *name)
{
	size_t k = strlen(name);

	for (const char *l = h, *end = h + n; l < end;) {
		const char *eol = memmem(l, (size_t)(end - l), "\r\n", 2);

		FUZZ_CHECK(eol, "a header line without CRLF");
		if ((size_t)(eol - l) > k && l[k] == ':' && strncasecmp(l, name, k) == 0)
			return true;
		l = eol + 2;
	}
	return false;
}

/* The head sent on for @rq: whole, clean, no hop-by-hop header, and the same framing when parsed
 * again behind an absolute-form request line. */
static void check_forward(const char *head, const struct cr_http_request *rq)
{
	static const char *const hop[] = { "connection", "proxy-connection", "keep-alive", "te",
					   "upgrade", "proxy-authorization" };
	static char out[CR_HTTP_HEAD_MAX + 512], again[CR_HTTP_HEAD_MAX + 1024];
	const char *eol, *hdr, *rest, *why;
	struct cr_http_request rq2;
	size_t len = 0, hlen;
	int n, m, r;

	n = cr_http_forward_head(head, rq, out, sizeof(out));
	FUZZ_CHECK(n > 0, "forward head: %d", n);
	FUZZ_CHECK(cr_http_head_end(out, (size_t)n, &len) == 0 && len == (size_t)n,
		   "the head sent on is not one whole head");
	eol = memmem(out, (size_t)n, "\r\n", 2);
	hdr = eol + 2;
	hlen = (size_t)n - (size_t)(hdr - out) - 2;
	FUZZ_CHECK(strncmp(hdr, "Host: ", 6) == 0, "Host is not first");
	rest = (const char *)memmem(hdr, hlen, "\r\n", 2) + 2;
	hlen -= (size_t)(rest - hdr) + strlen("Connection: close\r\n");
	FUZZ_CHECK(strncmp(rest + hlen, "Connection: close\r\n\r\n", 21) == 0, "no Connection: close");
	FUZZ_CHECK(!has_header(rest, hlen, "host"), "a second Host");
	for (size_t i = 0; i < sizeof(hop) / sizeof(*hop); i++)
		FUZZ_CHECK(!has_header(rest, hlen, hop[i]), "hop-by-hop header %s sent on", hop[i]);
	m = snprintf(again, sizeof(again), "%s http://a.example/ %s%.*s", rq->method, rq->version,
		     (int)(n - (eol - out)), eol);
	FUZZ_CHECK(m > 0 && (size_t)m < sizeof(again), "too long");
	if ((size_t)m > CR_HTTP_HEAD_MAX)
		return;
	/* -E2BIG: corral's Host and Connection lines took it over CR_HTTP_HEADERS_MAX */
	r = cr_http_request_parse(again, (size_t)m, &rq2, &why);
	FUZZ_CHECK(r == -EINVAL || r == -E2BIG || r == 0, "parse again: %d", r);
	if (r == 0)
		FUZZ_CHECK(rq2.content_length == rq->content_length && rq2.chunked == rq->chunked,
			   "framing changed: %lld/%d -> %lld/%d", (long long)rq->content_length,
			   rq->chunked, (long long)rq2.content_length, rq2.chunked);
}

static void check_request(const char *data, size_t size)
{
	struct cr_http_request rq;
	const char *why = NULL;
	size_t len = 0, len2 = 0;
	int r = cr_http_head_end(data, size, &len);

	FUZZ_CHECK(r == 0 || r == -EAGAIN || r == -EINVAL || r == -E2BIG, "head end: %d", r);
	FUZZ_CHECK(r != -E2BIG || size >= CR_HTTP_HEAD_MAX, "E2BIG for %zu bytes", size);
	if (r < 0)
		return;
	FUZZ_CHECK(len >= 4 && len <= size && len <= CR_HTTP_HEAD_MAX, "length %zu of %zu", len, size);
	FUZZ_CHECK(memcmp(data + len - 4, "\r\n\r\n", 4) == 0, "no blank line at the end");
	FUZZ_CHECK(cr_http_head_end(data, len, &len2) == 0 && len2 == len, "the head cut differs");
	FUZZ_CHECK(cr_http_head_end(data, len - 1, &len2) == -EAGAIN, "one byte less is complete");
	r = cr_http_request_parse(data, len, &rq, &why);
	FUZZ_CHECK(r == 0 || ((r == -EINVAL || r == -E2BIG) && why), "request: %d", r);
	if (r < 0)
		return;
	FUZZ_CHECK(rq.method[0] && rq.connect == (strcmp(rq.method, "CONNECT") == 0), "method");
	FUZZ_CHECK(!strcmp(rq.version, "HTTP/1.1") || !strcmp(rq.version, "HTTP/1.0"), "version");
	FUZZ_CHECK(rq.path_off + rq.path_len <= len && rq.headers_off + rq.headers_len + 2 == len,
		   "offsets outside the head");
	FUZZ_CHECK(rq.content_length >= -1 && !(rq.chunked && rq.content_length >= 0), "framing");
	check_authority(rq.host, strlen(rq.host), rq.port);
	if (!rq.connect)
		check_forward(data, &rq);
}

static bool refused4(uint32_t a)
{
	return cr_addr_special_v4(a) != NULL;
}

static bool refused6(const uint8_t prefix[16], size_t n, uint32_t v4, size_t at, bool invert)
{
	struct in6_addr a = {};
	uint32_t x = htonl(invert ? ~v4 : v4);

	memcpy(a.s6_addr, prefix, n);
	memcpy(a.s6_addr + at, &x, 4);
	return cr_addr_special_v6(&a) != NULL;
}

static void check_addresses(const uint8_t *data, size_t size)
{
	static const uint8_t mapped[16] = { [10] = 0xff, 0xff }, nat64[16] = { 0, 0x64, 0xff, 0x9b },
			     six[16] = { 0x20, 0x02 }, teredo[16] = { 0x20, 0x01, 0, 0, 1, 2, 3, 4 };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 }, m6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	uint8_t b[16] = {};
	uint32_t v4, eq;
	bool r4;

	memcpy(b, data, size < 16 ? size : 16);
	v4 = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	r4 = refused4(v4);
	FUZZ_CHECK(refused6(mapped, 12, v4, 12, false) == r4, "::ffff:%08x", v4);
	FUZZ_CHECK(refused6(nat64, 12, v4, 12, false) == r4, "64:ff9b::%08x", v4);
	FUZZ_CHECK(refused6(six, 2, v4, 2, false) == r4, "2002:%08x::", v4);
	FUZZ_CHECK(refused6(teredo, 8, v4, 12, true) == r4, "Teredo client %08x", v4);
	s4.sin_addr.s_addr = htonl(v4);
	memcpy(m6.sin6_addr.s6_addr, mapped, 12);
	memcpy(m6.sin6_addr.s6_addr + 12, &s4.sin_addr, 4);
	FUZZ_CHECK(cr_addr_same((struct sockaddr *)&s4, (struct sockaddr *)&m6) &&
			   cr_addr_same((struct sockaddr *)&m6, (struct sockaddr *)&s4),
		   "%08x and its mapped form differ", v4);
	FUZZ_CHECK((cr_addr_special((struct sockaddr *)&s4) != NULL) == r4, "sockaddr v4");
	/* any IPv6 address: classified like the IPv4 address it is another form of */
	memcpy(s6.sin6_addr.s6_addr, b, 16);
	if (cr_addr_v4_equivalent(&s6.sin6_addr, &eq))
		FUZZ_CHECK((cr_addr_special((struct sockaddr *)&s6) != NULL) == refused4(eq),
			   "v4-equivalent %08x", eq);
	FUZZ_CHECK(cr_addr_same((struct sockaddr *)&s6, (struct sockaddr *)&s6), "not reflexive");
	FUZZ_CHECK(cr_addr_special_v6(&s6.sin6_addr) == cr_addr_special_v6(&s6.sin6_addr),
		   "not deterministic");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	const char *nl = memchr(s, '\n', size);

	check_request(s, size);
	/* the first line alone as an authority, with and without a default port */
	check_authority(s, nl ? (size_t)(nl - s) : size, NULL);
	check_authority(s, nl ? (size_t)(nl - s) : size, "80");
	check_addresses(data, size);
	return 0;
}
