/* SPDX-License-Identifier: MIT */
/* The proxy's pure parts: the special-purpose address registries (an address inside each row and
 * one just outside), the forms that carry an IPv4 address, and the HTTP parsers (head end,
 * authority, URL, request head, framing, the head sent on). */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ns/net/addr-class.h"
#include "launcher/base/macro.h"
#include "ns/net/proxy-parse.h"

/* cr_addr_special() of an address written as text (IPv4 or IPv6). */
static const char *special(const char *text)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = { .sin_family = AF_INET };

	if (inet_pton(AF_INET, text, &a4.sin_addr) == 1)
		return cr_addr_special((struct sockaddr *)&a4);
	assert_int_equal(inet_pton(AF_INET6, text, &a6.sin6_addr), 1);
	return cr_addr_special((struct sockaddr *)&a6);
}

static void check_refused(const char *text, const char *what)
{
	const char *r = special(text);

	if (!r || !strstr(r, what))
		fail_msg("%s: expected refused as '%s', got %s", text, what, r ? r : "globally reachable");
}

static void check_global(const char *text)
{
	const char *r = special(text);

	if (r)
		fail_msg("%s: expected globally reachable, got '%s'", text, r);
}

/* Each IPv4 row: its first and last address refused, the addresses just outside reachable. */
static void test_v4_registry(void **state)
{
	static const struct {
		const char *first, *last, *before, *after, *what;
	} rows[] = {
		{ "0.0.0.0", "0.255.255.255", NULL, "1.0.0.0", "RFC 791" },
		{ "10.0.0.0", "10.255.255.255", "9.255.255.255", "11.0.0.0", "RFC 1918" },
		{ "100.64.0.0", "100.127.255.255", "100.63.255.255", "100.128.0.0", "RFC 6598" },
		{ "127.0.0.0", "127.255.255.255", "126.255.255.255", "128.0.0.0", "RFC 1122" },
		{ "169.254.0.0", "169.254.255.255", "169.253.255.255", "169.255.0.0", "RFC 3927" },
		{ "172.16.0.0", "172.31.255.255", "172.15.255.255", "172.32.0.0", "RFC 1918" },
		{ "192.0.0.0", "192.0.0.255", "191.255.255.255", NULL, "RFC 6890" },
		{ "192.0.2.0", "192.0.2.255", "192.0.1.255", "192.0.3.0", "RFC 5737" },
		{ "192.31.196.0", "192.31.196.255", "192.31.195.255", "192.31.197.0", "RFC 7535" },
		{ "192.52.193.0", "192.52.193.255", "192.52.192.255", "192.52.194.0", "RFC 7450" },
		{ "192.88.99.0", "192.88.99.255", "192.88.98.255", "192.88.100.0", "RFC 7526" },
		{ "192.168.0.0", "192.168.255.255", "192.167.255.255", "192.169.0.0", "RFC 1918" },
		{ "192.175.48.0", "192.175.48.255", "192.175.47.255", "192.175.49.0", "RFC 7534" },
		{ "198.18.0.0", "198.19.255.255", "198.17.255.255", "198.20.0.0", "RFC 2544" },
		{ "198.51.100.0", "198.51.100.255", "198.51.99.255", "198.51.101.0", "RFC 5737" },
		{ "203.0.113.0", "203.0.113.255", "203.0.112.255", "203.0.114.0", "RFC 5737" },
		{ "224.0.0.0", "239.255.255.255", "223.255.255.255", NULL, "multicast" },
		{ "240.0.0.0", "255.255.255.254", NULL, NULL, "RFC 1112" },
		{ "255.255.255.255", "255.255.255.255", NULL, NULL, "RFC 919" },
	};

	for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
		check_refused(rows[i].first, rows[i].what);
		check_refused(rows[i].last, rows[i].what);
		if (rows[i].before)
			check_global(rows[i].before);
		if (rows[i].after)
			check_global(rows[i].after);
	}
	/* the globally reachable exceptions inside 192.0.0.0/24, and their neighbours */
	check_global("192.0.0.9");
	check_global("192.0.0.10");
	check_refused("192.0.0.8", "RFC 6890");
	check_refused("192.0.0.11", "RFC 6890");
	check_refused("192.0.0.170", "RFC 6890");
	check_global("1.1.1.1");
	check_global("11.0.0.7");
}

static void test_v6_registry(void **state)
{
	static const struct {
		const char *in, *out, *what;
	} rows[] = {
		{ "::", "::2:0:0:0", "unspecified" },
		{ "::1", "::1:0:0:0", "loopback" },
		{ "100::", "100:0:0:2::", "RFC 6666" },
		{ "100::ffff:ffff:ffff:ffff", "ff::", "RFC 6666" },
		{ "100:0:0:1::5", "100:0:0:2::", "RFC 9780" },
		{ "64:ff9b:1::1", "64:ff9b:2::1", "RFC 8215" },
		{ "64:ff9b:1:ffff::1", "64:ff9b:0:1::1", "RFC 8215" },
		{ "2001:2::1", "2001:200::1", "RFC 2928" },	    /* benchmarking; 2001:200:: is outside /23 */
		{ "2001:1ff:ffff::1", "2001:200::", "RFC 2928" },   /* the /23's last /32 */
		{ "2001:1::4", "2001:20::1", "RFC 2928" },	    /* next to the anycast /128s; ORCHIDv2 */
		{ "2001:3::1", "2001:30::1", "RFC 2928" },	    /* AMT; DRIP */
		{ "2001:4:112::1", "2001:2f:ffff::1", "RFC 2928" }, /* AS112; ORCHIDv2's end */
		{ "2001:10::1", "2001:3f:ffff::1", "RFC 2928" },    /* deprecated ORCHID; DRIP's end */
		{ "2001:db8::1", "2001:db9::1", "RFC 3849" },
		{ "2001:db8:ffff:ffff::1", "2001:db7:ffff::1", "RFC 3849" },
		{ "3fff::1", "3ffe:ffff::1", "RFC 9637" },
		{ "3fff:fff:ffff::1", "2a00::1", "RFC 9637" },
		{ "5f00::1", "5eff::1", "RFC 9602" }, /* outside 2000::/3 anyway */
		{ "fc00::1", "2600::1", "RFC 4193" },
		{ "fdff:ffff::1", "2400::1", "RFC 4193" },
		{ "fe80::1", "2a01::1", "link-local" },
		{ "febf::1", "2a02::1", "link-local" },
		{ "fec0::1", "2a03::1", "site-local" },
		{ "ff02::1", "2a04::1", "multicast" },
		{ "ff0e::1", "2a05::1", "multicast" },
		{ "4000::1", "3fff:ffff::1", "outside 2000::/3" },
		{ "1fff:ffff::1", "2000::1", "outside 2000::/3" },
	};

	for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
		const char *out = special(rows[i].out);

		check_refused(rows[i].in, rows[i].what);
		/* just outside the row: globally reachable, or refused by another row */
		if (out && strstr(out, rows[i].what))
			fail_msg("%s: expected outside '%s', got '%s'", rows[i].out, rows[i].what, out);
	}
	check_refused("::2:0:0:0", "outside 2000::/3");
	check_refused("100:0:0:2::", "outside 2000::/3");
	/* the globally reachable anycast /128s inside 2001::/23 */
	check_global("2001:1::1");
	check_global("2001:1::2");
	check_global("2001:1::3");
	check_refused("2001:1::", "RFC 2928");
	check_global("2620:4f:8000::1"); /* AS112 direct delegation (True) */
}

/* Every form that carries an IPv4 address is refused exactly when that address is. */
static void test_v6_embedded(void **state)
{
	/* IPv4-mapped, IPv4-compatible, NAT64 well-known prefix */
	check_refused("::ffff:10.0.0.1", "RFC 1918");
	check_refused("::ffff:198.51.100.7", "RFC 5737");
	check_refused("::ffff:127.0.0.1", "loopback");
	check_global("::ffff:1.1.1.1");
	check_refused("::10.0.0.1", "RFC 1918");
	check_global("::1.1.1.1");
	check_refused("64:ff9b::192.168.1.1", "RFC 1918");
	check_refused("64:ff9b::203.0.113.9", "RFC 5737");
	check_global("64:ff9b::1.1.1.1");
	/* 6to4: bits 16-47 */
	check_refused("2002:c633:6407::1", "RFC 5737"); /* 198.51.100.7 */
	check_refused("2002:7f00:1::1", "loopback");
	check_refused("2002:a00:1::", "RFC 1918");
	check_refused("2002:c000:0202::", "RFC 5737"); /* 192.0.2.2 */
	check_global("2002:101:101::1");		 /* 1.1.1.1 */
	/* Teredo: the client is the complement of the last 32 bits */
	check_refused("2001:0:4136:e378:8000:63bf:f5ff:fffe", "RFC 1918"); /* ~f5fffffe = 10.0.0.1 */
	check_refused("2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"); /* 127.0.0.1 */
	check_global("2001:0:4136:e378:8000:63bf:fefe:fefe");		    /* 1.1.1.1 */
	check_refused("2001:0:4136:e378:8000:63bf:ffff:ffff", "RFC 791");  /* 0.0.0.0 */
}

static void test_v4_equivalent(void **state)
{
	struct in6_addr a;
	uint32_t v4 = 0;

	assert_int_equal(inet_pton(AF_INET6, "::ffff:192.0.2.2", &a), 1);
	assert_true(cr_addr_v4_equivalent(&a, &v4));
	assert_int_equal(v4, 0xc0000202);
	assert_int_equal(inet_pton(AF_INET6, "64:ff9b::1.2.3.4", &a), 1);
	assert_true(cr_addr_v4_equivalent(&a, &v4));
	assert_int_equal(v4, 0x01020304);
	assert_int_equal(inet_pton(AF_INET6, "::1", &a), 1);
	assert_false(cr_addr_v4_equivalent(&a, &v4));
	assert_int_equal(inet_pton(AF_INET6, "2002:c000:0202::", &a), 1);
	assert_false(cr_addr_v4_equivalent(&a, &v4)); /* 6to4 leads to a relay, not there */
	assert_int_equal(inet_pton(AF_INET6, "2001:db8::1", &a), 1);
	assert_false(cr_addr_v4_equivalent(&a, &v4));
}

static void test_addr_same(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(1) },
			   b = { .sin_family = AF_INET, .sin_port = htons(2) };
	struct sockaddr_in6 c = { .sin6_family = AF_INET6 }, d = { .sin6_family = AF_INET6 };

	assert_int_equal(inet_pton(AF_INET, "192.0.2.2", &a.sin_addr), 1);
	assert_int_equal(inet_pton(AF_INET, "192.0.2.2", &b.sin_addr), 1);
	assert_true(cr_addr_same((struct sockaddr *)&a, (struct sockaddr *)&b)); /* ports ignored */
	assert_int_equal(inet_pton(AF_INET6, "::ffff:192.0.2.2", &c.sin6_addr), 1);
	assert_true(cr_addr_same((struct sockaddr *)&a, (struct sockaddr *)&c));
	assert_true(cr_addr_same((struct sockaddr *)&c, (struct sockaddr *)&a));
	assert_int_equal(inet_pton(AF_INET6, "64:ff9b::192.0.2.2", &d.sin6_addr), 1);
	assert_true(cr_addr_same((struct sockaddr *)&c, (struct sockaddr *)&d));
	assert_int_equal(inet_pton(AF_INET, "192.0.2.3", &b.sin_addr), 1);
	assert_false(cr_addr_same((struct sockaddr *)&a, (struct sockaddr *)&b));
	assert_int_equal(inet_pton(AF_INET6, "2001:db8::1", &c.sin6_addr), 1);
	assert_false(cr_addr_same((struct sockaddr *)&a, (struct sockaddr *)&c));
	assert_int_equal(inet_pton(AF_INET6, "2001:db8::1", &d.sin6_addr), 1);
	assert_true(cr_addr_same((struct sockaddr *)&c, (struct sockaddr *)&d));
	assert_int_equal(inet_pton(AF_INET6, "2001:db8::2", &d.sin6_addr), 1);
	assert_false(cr_addr_same((struct sockaddr *)&c, (struct sockaddr *)&d));
}

static int head_end(const char *s, size_t *len)
{
	return cr_http_head_end(s, strlen(s), len);
}

static void test_head_end(void **state)
{
	static char big[CR_HTTP_HEAD_MAX + 10];
	size_t len = 0;

	assert_int_equal(head_end("GET http://a/ HTTP/1.1\r\n\r\n", &len), 0);
	assert_int_equal(len, 26);
	/* what follows the blank line is not looked at: a body with LF and control characters */
	assert_int_equal(head_end("POST http://a/ HTTP/1.1\r\nContent-Length: 4\r\n\r\na\nb\x01", &len), 0);
	assert_int_equal(len, 46);
	assert_int_equal(cr_http_head_end("CONNECT a:443 HTTP/1.1\r\n\r\n\x16\x03\x01\0\xff", 31, &len), 0);
	assert_int_equal(len, 26);
	assert_int_equal(head_end("GET http://a/ HTTP/1.1\r\n", &len), -EAGAIN);
	assert_int_equal(head_end("GET http://a/ HTTP/1.1\r\n\r", &len), -EAGAIN);
	assert_int_equal(head_end("GET http://a/ HTTP/1.1\r", &len), -EAGAIN);
	assert_int_equal(head_end("", &len), -EAGAIN);
	assert_int_equal(head_end("GET http://a/ HTTP/1.1\n\n", &len), -EINVAL);
	assert_int_equal(head_end("GET http://a/ HTTP/1.1\rX", &len), -EINVAL);
	assert_int_equal(head_end("GET http://a/ HTTP/1.1\r\nX: \x01\r\n", &len), -EINVAL);
	assert_int_equal(head_end("GET http://a/ HTTP/1.1\r\nX: \x7f", &len), -EINVAL);
	assert_int_equal(head_end("GET http://a/ HTTP/1.1\r\nX:\ty\r\n\r\n", &len), 0);
	memset(big, 'a', sizeof(big));
	assert_int_equal(cr_http_head_end(big, CR_HTTP_HEAD_MAX, &len), -E2BIG);
	assert_int_equal(cr_http_head_end(big, CR_HTTP_HEAD_MAX - 1, &len), -EAGAIN);
	memcpy(big + CR_HTTP_HEAD_MAX - 4, "\r\n\r\n", 4);
	assert_int_equal(cr_http_head_end(big, sizeof(big), &len), 0);
	assert_int_equal(len, CR_HTTP_HEAD_MAX);
}

static void check_authority(const char *a, const char *def, int want, const char *host,
			    const char *port)
{
	char h[CR_HTTP_HOST_MAX] = "", p[CR_HTTP_PORT_MAX] = "";
	const char *why = NULL;
	int r = cr_http_authority_parse(a, strlen(a), def, h, p, &why);

	if (r != want)
		fail_msg("'%s': %d (%s), expected %d", a, r, why ? why : "", want);
	if (r == 0) {
		assert_string_equal(h, host);
		assert_string_equal(p, port);
	} else {
		assert_non_null(why);
	}
}

static void test_authority(void **state)
{
	char buf[300];

	check_authority("github.com:443", NULL, 0, "github.com", "443");
	check_authority("GitHub.COM.:443", NULL, 0, "github.com", "443");
	check_authority("github.com", "80", 0, "github.com", "80");
	check_authority("1.2.3.4:080", NULL, 0, "1.2.3.4", "80");
	check_authority("a:65535", NULL, 0, "a", "65535");
	check_authority("github.com", NULL, -EINVAL, NULL, NULL); /* CONNECT needs a port */
	check_authority("a:0", NULL, -EINVAL, NULL, NULL);
	check_authority("a:65536", NULL, -EINVAL, NULL, NULL);
	check_authority("a:123456", NULL, -EINVAL, NULL, NULL);
	check_authority("a:", "80", -EINVAL, NULL, NULL);
	check_authority("a:+1", NULL, -EINVAL, NULL, NULL);
	check_authority(":443", NULL, -EINVAL, NULL, NULL);
	check_authority(".:443", NULL, -EINVAL, NULL, NULL);
	check_authority("[::1]:443", NULL, -EINVAL, NULL, NULL);
	check_authority("[2001:db8::1]", "80", -EINVAL, NULL, NULL);
	check_authority("::1:443", NULL, -EINVAL, NULL, NULL);
	check_authority("user@a:443", NULL, -EINVAL, NULL, NULL);
	check_authority("*.a:443", NULL, -EINVAL, NULL, NULL);
	check_authority("a_b:443", NULL, -EINVAL, NULL, NULL);
	check_authority("127.1:80", NULL, -EINVAL, NULL, NULL);
	check_authority("a..b:80", NULL, -EINVAL, NULL, NULL);
	/* the NUL inside is part of the host, not its end */
	{
		char h[CR_HTTP_HOST_MAX], p[CR_HTTP_PORT_MAX];
		const char *why;

		assert_int_equal(cr_http_authority_parse("a\0b:80", 6, NULL, h, p, &why), -EINVAL);
		assert_int_equal(cr_http_authority_parse("a:8\0", 4, NULL, h, p, &why), -EINVAL);
	}
	memset(buf, 'a', sizeof(buf));
	memcpy(buf + 250, ":80", 4);
	check_authority(buf, NULL, -EINVAL, NULL, NULL); /* a 250-character label */
	assert_int_equal(cr_http_authority_format("a.b", "443", buf, sizeof(buf)), 7);
	assert_string_equal(buf, "a.b:443");
	assert_int_equal(cr_http_authority_format("a.b", "443", buf, 7), -E2BIG);
}

static void test_url(void **state)
{
	struct cr_http_request rq = {};
	const char *why;
	size_t off = 0;

	assert_int_equal(cr_http_url_parse("http://a.b:8080/x?y", 19, &rq, &off, &why), 0);
	assert_string_equal(rq.host, "a.b");
	assert_string_equal(rq.port, "8080");
	assert_int_equal(off, 15);
	assert_int_equal(cr_http_url_parse("HTTP://A.B", 10, &rq, &off, &why), 0);
	assert_string_equal(rq.host, "a.b");
	assert_string_equal(rq.port, "80");
	assert_int_equal(off, 10);
	assert_int_equal(cr_http_url_parse("http://a.b?q", 12, &rq, &off, &why), 0);
	assert_int_equal(off, 10);
	assert_int_equal(cr_http_url_parse("http://a.b#f", 12, &rq, &off, &why), 0);
	assert_int_equal(cr_http_url_parse("https://a.b/", 12, &rq, &off, &why), -EINVAL);
	assert_non_null(strstr(why, "CONNECT"));
	assert_int_equal(cr_http_url_parse("ftp://a.b/", 10, &rq, &off, &why), -EINVAL);
	assert_int_equal(cr_http_url_parse("/x", 2, &rq, &off, &why), -EINVAL);
	assert_int_equal(cr_http_url_parse("http://", 7, &rq, &off, &why), -EINVAL);
	assert_int_equal(cr_http_url_parse("http://u:p@a.b/", 15, &rq, &off, &why), -EINVAL);
	assert_int_equal(cr_http_url_parse("http://[::1]/", 13, &rq, &off, &why), -EINVAL);
	/* only @n bytes are read: the host ends where the length says */
	assert_int_equal(cr_http_url_parse("http://a.bcd", 10, &rq, &off, &why), 0);
	assert_string_equal(rq.host, "a.b");
}

static int parse(const char *head, struct cr_http_request *rq, const char **why)
{
	return cr_http_request_parse(head, strlen(head), rq, why);
}

static void test_request(void **state)
{
	static const char get[] = "GET http://Example.com:8080/p?q#frag HTTP/1.1\r\nHost: x\r\n"
				  "Accept: */*\r\n\r\n";
	struct cr_http_request rq;
	const char *why;

	assert_int_equal(parse(get, &rq, &why), 0);
	assert_string_equal(rq.method, "GET");
	assert_false(rq.connect);
	assert_string_equal(rq.version, "HTTP/1.1");
	assert_string_equal(rq.host, "example.com");
	assert_string_equal(rq.port, "8080");
	assert_int_equal(rq.path_len, 4);
	assert_memory_equal(get + rq.path_off, "/p?q", 4);
	assert_memory_equal(get + rq.headers_off, "Host: x\r\nAccept: */*\r\n", rq.headers_len);
	assert_int_equal(rq.content_length, -1);
	assert_false(rq.chunked);

	assert_int_equal(parse("CONNECT a.b:443 HTTP/1.0\r\n\r\n", &rq, &why), 0);
	assert_true(rq.connect);
	assert_string_equal(rq.host, "a.b");
	assert_string_equal(rq.port, "443");
	assert_int_equal(rq.headers_len, 0);

	/* the request line */
	assert_int_equal(parse("GARBAGE\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("GET /x HTTP/1.1\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("get http://a/ HTTP/1.1\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("GET http://a/ HTTP/2.0\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("GET  http://a/ HTTP/1.1\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("GET http://a/ HTTP/1.1 \r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("GETTTTTTTTTTTTTTTT http://a/ HTTP/1.1\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("GET http://a/\x80 HTTP/1.1\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("CONNECT a HTTP/1.1\r\n\r\n", &rq, &why), -EINVAL);
	assert_string_equal(why, "CONNECT needs host:port");
	/* not a whole head, or more than one */
	assert_int_equal(parse("GET http://a/ HTTP/1.1\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("GET http://a/ HTTP/1.1\r\n\r\nX", &rq, &why), -EINVAL);
	/* header lines */
	assert_int_equal(parse("GET http://a/ HTTP/1.1\r\nNoColon\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("GET http://a/ HTTP/1.1\r\n: v\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("GET http://a/ HTTP/1.1\r\nA B: v\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("GET http://a/ HTTP/1.1\r\nA : v\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("GET http://a/ HTTP/1.1\r\nA: v\r\n folded\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("GET http://a/ HTTP/1.1\r\nA:\r\n\r\n", &rq, &why), 0);
}

static void test_header_limit(void **state)
{
	static char head[CR_HTTP_HEAD_MAX];
	struct cr_http_request rq;
	const char *why;
	size_t n;

	n = (size_t)snprintf(head, sizeof(head), "GET http://a/ HTTP/1.1\r\n");
	for (int i = 0; i < CR_HTTP_HEADERS_MAX; i++)
		n += (size_t)snprintf(head + n, sizeof(head) - n, "X%d: y\r\n", i);
	(void)snprintf(head + n, sizeof(head) - n, "\r\n");
	assert_int_equal(parse(head, &rq, &why), 0);
	(void)snprintf(head + n, sizeof(head) - n, "Y: z\r\n\r\n");
	assert_int_equal(parse(head, &rq, &why), -E2BIG);
	assert_string_equal(why, "more than 128 header lines");
}

static void test_framing(void **state)
{
	struct cr_http_request rq;
	const char *why;

	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nContent-Length: 12\r\n\r\n", &rq, &why), 0);
	assert_int_equal(rq.content_length, 12);
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\ncontent-length:  5 , 5\r\n"
			       "Content-Length: 5\r\n\r\n", &rq, &why), 0);
	assert_int_equal(rq.content_length, 5);
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nContent-Length: 5, 6\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
			       &rq, &why), -EINVAL);
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nContent-Length:\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nContent-Length: 5,\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nContent-Length: 1234567890123456789\r\n\r\n",
			       &rq, &why), -EINVAL);
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &rq, &why), 0);
	assert_true(rq.chunked);
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n", &rq, &why), 0);
	assert_true(rq.chunked);
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: gzip\r\n"
			       "Transfer-Encoding: chunked\r\n\r\n", &rq, &why), 0);
	/* request smuggling: ambiguous framing is refused */
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
			       &rq, &why), -EINVAL);
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
			       "Transfer-Encoding: gzip\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: xchunked\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nTransfer-Encoding:\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: gzip,,chunked\r\n\r\n", &rq, &why), -EINVAL);
	assert_int_equal(parse("POST http://a/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", &rq, &why), -EINVAL);
}

static void test_forward_head(void **state)
{
	static const char head[] = "POST http://a.b:8080/x?y#z HTTP/1.1\r\nHost: evil\r\n"
				   "Proxy-Connection: keep-alive\r\nContent-Length: 3\r\nConnection: x\r\n"
				   "X-A: 1\r\nTE: trailers\r\nUpgrade: h2c\r\nProxy-Authorization: s\r\n\r\n";
	static const char want[] = "POST /x?y HTTP/1.1\r\nHost: a.b:8080\r\nContent-Length: 3\r\n"
				   "X-A: 1\r\nConnection: close\r\n\r\n";
	struct cr_http_request rq;
	const char *why;
	char out[512];
	int n;

	assert_int_equal(parse(head, &rq, &why), 0);
	n = cr_http_forward_head(head, &rq, out, sizeof(out));
	assert_int_equal(n, (int)strlen(want));
	assert_memory_equal(out, want, (size_t)n);
	assert_int_equal(cr_http_forward_head(head, &rq, out, 40), -E2BIG);
	assert_int_equal(cr_http_forward_head(head, &rq, out, (size_t)n), -E2BIG);

	assert_int_equal(parse("GET http://a.b HTTP/1.0\r\n\r\n", &rq, &why), 0);
	n = cr_http_forward_head("GET http://a.b HTTP/1.0\r\n\r\n", &rq, out, sizeof(out));
	assert_int_equal(n, (int)strlen("GET / HTTP/1.0\r\nHost: a.b\r\nConnection: close\r\n\r\n"));
	assert_memory_equal(out, "GET / HTTP/1.0\r\nHost: a.b\r\nConnection: close\r\n\r\n", (size_t)n);
	assert_int_equal(parse("GET http://a.b?q HTTP/1.1\r\n\r\n", &rq, &why), 0);
	n = cr_http_forward_head("GET http://a.b?q HTTP/1.1\r\n\r\n", &rq, out, sizeof(out));
	assert_memory_equal(out, "GET /?q HTTP/1.1\r\n", 18);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v4_registry),   cmocka_unit_test(test_v6_registry),
		cmocka_unit_test(test_v6_embedded),   cmocka_unit_test(test_v4_equivalent),
		cmocka_unit_test(test_addr_same),     cmocka_unit_test(test_head_end),
		cmocka_unit_test(test_authority),     cmocka_unit_test(test_url),
		cmocka_unit_test(test_request),	      cmocka_unit_test(test_header_limit),
		cmocka_unit_test(test_framing),	      cmocka_unit_test(test_forward_head),
	};

	return cmocka_run_group_tests_name("proxy", tests, NULL, NULL);
}
