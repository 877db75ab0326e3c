/* SPDX-License-Identifier: MIT */
/* The proxy's HTTP parsers. See proxy-parse.h. Every function reads only the bytes it is given
 * (no NUL is assumed after them). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "launcher/policy/host-pattern.h"
#include "launcher/base/macro.h"
#include "proxy-parse.h"

int cr_http_head_end(const char *buf, size_t n, size_t *ret_len)
{
	size_t m = n < CR_HTTP_HEAD_MAX ? n : CR_HTTP_HEAD_MAX;

	for (size_t i = 0; i < m; i++) {
		unsigned char ch = (unsigned char)buf[i];

		if (ch == '\r' && i + 1 < n && buf[i + 1] != '\n')
			return -EINVAL; /* a bare CR */
		if (ch == '\n' && (i == 0 || buf[i - 1] != '\r'))
			return -EINVAL; /* a bare LF */
		if (ch == '\n' && i >= 3 && memcmp(buf + i - 3, "\r\n\r\n", 4) == 0) {
			*ret_len = i + 1;
			return 0;
		}
		if ((ch < 0x20 && ch != '\r' && ch != '\n' && ch != '\t') || ch == 0x7f)
			return -EINVAL;
	}
	return n >= CR_HTTP_HEAD_MAX ? -E2BIG : -EAGAIN;
}

/* The length of the longest prefix of @s (at most @n bytes) made of characters in @set. */
static size_t span(const char *s, size_t n, const char *set)
{
	size_t i = 0;

	while (i < n && s[i] && strchr(set, s[i]))
		i++;
	return i;
}

static int parse_port(const char *p, size_t n, char port[CR_HTTP_PORT_MAX])
{
	unsigned long v = 0;

	if (n == 0 || n > 5 || span(p, n, "0123456789") != n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (unsigned long)(p[i] - '0');
	if (v == 0 || v > 65535)
		return -EINVAL;
	(void)snprintf(port, CR_HTTP_PORT_MAX, "%lu", v);
	return 0;
}

int cr_http_authority_parse(const char *a, size_t n, const char *default_port,
			    char host[CR_HTTP_HOST_MAX], char port[CR_HTTP_PORT_MAX],
			    const char **why)
{
	const char *colon = memrchr(a, ':', n);
	size_t hlen = colon ? (size_t)(colon - a) : n;
	char h[CR_HTTP_HOST_MAX];

	if (n > 0 && a[0] == '[') {
		*why = "IPv6 literals are not supported: allow_hosts names DNS names and IPv4 addresses";
		return -EINVAL;
	}
	if (memchr(a, '@', n)) {
		*why = "user information in the URL is not supported";
		return -EINVAL;
	}
	if (!colon && !default_port) {
		*why = "CONNECT needs host:port";
		return -EINVAL;
	}
	*why = "the port is not a number from 1 to 65535";
	if (colon ? parse_port(colon + 1, n - hlen - 1, port) < 0
		  : parse_port(default_port, strlen(default_port), port) < 0)
		return -EINVAL;
	*why = "the host is not a DNS name or an IPv4 address";
	if (hlen > 0 && a[hlen - 1] == '.')
		hlen--; /* "github.com." is github.com */
	if (hlen == 0 || hlen >= CR_HTTP_HOST_MAX || memchr(a, ':', hlen) || memchr(a, '\0', hlen))
		return -EINVAL;
	for (size_t i = 0; i < hlen; i++)
		h[i] = (a[i] >= 'A' && a[i] <= 'Z') ? (char)(a[i] - 'A' + 'a') : a[i];
	h[hlen] = '\0';
	if (h[0] == '*' || cr_host_pattern_check(h) < 0)
		return -EINVAL;
	memcpy(host, h, hlen + 1);
	return 0;
}

int cr_http_authority_format(const char *host, const char *port, char *buf, size_t size)
{
	int k = snprintf(buf, size, "%s:%s", host, port);

	return k < 0 || (size_t)k >= size ? -E2BIG : k;
}

int cr_http_url_parse(const char *t, size_t n, struct cr_http_request *rq, size_t *ret_path_off,
		      const char **why)
{
	size_t alen = 0;
	int r;

	if (n >= 8 && strncasecmp(t, "https://", 8) == 0) {
		*why = "https:// URLs go through CONNECT (set https_proxy), not as a proxy request";
		return -EINVAL;
	}
	if (n < 7 || strncasecmp(t, "http://", 7) != 0) {
		*why = "corral's proxy serves CONNECT host:port and absolute http:// URLs only";
		return -EINVAL;
	}
	while (7 + alen < n && !strchr("/?#", t[7 + alen]))
		alen++;
	r = cr_http_authority_parse(t + 7, alen, "80", rq->host, rq->port, why);
	if (r < 0)
		return r;
	*ret_path_off = 7 + alen;
	return 0;
}

/* Is @line (@n bytes, no CRLF) the header @name? */
static bool header_is(const char *line, size_t n, const char *name)
{
	size_t k = strlen(name);

	return n > k && line[k] == ':' && strncasecmp(line, name, k) == 0;
}

/* The value of header line @l (@n bytes), without the whitespace around it. */
static const char *header_value(const char *l, size_t n, size_t *ret_len)
{
	const char *v = memchr(l, ':', n) + 1, *end = l + n;

	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*ret_len = (size_t)(end - v);
	return v;
}

/* Content-Length: digits, or a list of the same number ("5, 5"); equal to an earlier one. */
static int content_length(const char *v, size_t n, int64_t *cl)
{
	for (;;) {
		size_t d = span(v, n, "0123456789"), k;
		int64_t x = 0;

		if (d == 0 || d > 18)
			return -EINVAL;
		for (size_t i = 0; i < d; i++)
			x = x * 10 + (v[i] - '0');
		if (*cl >= 0 && *cl != x)
			return -EINVAL;
		*cl = x;
		k = d + span(v + d, n - d, " \t");
		if (k == n)
			return 0;
		if (v[k] != ',')
			return -EINVAL;
		k += 1 + span(v + k + 1, n - k - 1, " \t");
		v += k;
		n -= k;
	}
}

/* Transfer-Encoding: a list of codings, of which chunked may be the last only. *@chunked says
 * whether the last one seen so far is chunked; -EINVAL for chunked before another coding. */
static int transfer_encoding(const char *v, size_t n, bool *chunked)
{
	while (n > 0) {
		size_t k = 0, e;

		while (k < n && v[k] != ',')
			k++;
		e = k;
		while (e > 0 && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (*chunked)
			return -EINVAL; /* something after chunked */
		if (e == 0)
			return -EINVAL;
		*chunked = e == 7 && strncasecmp(v, "chunked", 7) == 0;
		if (k < n)
			k++;
		k += span(v + k, n - k, " \t");
		v += k;
		n -= k;
	}
	return 0;
}

#define TOKEN_CHARS                                                                                \
	"!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

/* The header lines in [@l, @end): each a token, a colon and a value; the body's framing. */
static int parse_headers(const char *l, const char *end, struct cr_http_request *rq,
			 const char **why)
{
	bool te = false;
	unsigned count = 0;

	rq->content_length = -1;
	rq->chunked = false;
	for (; l < end; count++) {
		const char *eol = memmem(l, (size_t)(end - l), "\r\n", 2), *v;
		size_t len, name, vlen;

		if (count >= CR_HTTP_HEADERS_MAX) {
			*why = "more than 128 header lines";
			return -E2BIG;
		}
		len = (size_t)(eol - l);
		name = span(l, len, TOKEN_CHARS);
		*why = "malformed header line (a token, a colon and a value; no folding)";
		if (name == 0 || name == len || l[name] != ':')
			return -EINVAL;
		v = header_value(l, len, &vlen);
		*why = "malformed Content-Length, or several that differ";
		if (header_is(l, len, "content-length") && content_length(v, vlen, &rq->content_length) < 0)
			return -EINVAL;
		*why = "a Transfer-Encoding must end in chunked";
		if (header_is(l, len, "transfer-encoding")) {
			te = true;
			if (transfer_encoding(v, vlen, &rq->chunked) < 0)
				return -EINVAL;
		}
		l = eol + 2;
	}
	*why = "a Transfer-Encoding must end in chunked, without a Content-Length, in HTTP/1.1";
	if (te && (!rq->chunked || rq->content_length >= 0 || strcmp(rq->version, "HTTP/1.1") != 0))
		return -EINVAL;
	return 0;
}

/* The request line (METHOD SP TARGET SP HTTP/1.x): *@ret_target and *@ret_tlen. */
static int parse_request_line(const char *line, const char *eol, struct cr_http_request *rq,
			      const char **ret_target, size_t *ret_tlen)
{
	const char *sp1 = memchr(line, ' ', (size_t)(eol - line)), *sp2, *target;
	size_t mlen, tlen;

	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	if (!sp2 || memchr(sp2 + 1, ' ', (size_t)(eol - sp2 - 1)))
		return -EINVAL;
	mlen = (size_t)(sp1 - line);
	target = sp1 + 1;
	tlen = (size_t)(sp2 - target);
	if (mlen == 0 || mlen >= sizeof(rq->method) ||
	    span(line, mlen, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") < mlen || tlen == 0)
		return -EINVAL;
	if (eol - sp2 - 1 != 8 ||
	    (strncmp(sp2 + 1, "HTTP/1.1", 8) != 0 && strncmp(sp2 + 1, "HTTP/1.0", 8) != 0))
		return -EINVAL;
	for (size_t i = 0; i < tlen; i++)
		if ((unsigned char)target[i] <= 0x20 || (unsigned char)target[i] >= 0x7f)
			return -EINVAL;
	memcpy(rq->method, line, mlen);
	rq->method[mlen] = '\0';
	memcpy(rq->version, sp2 + 1, 8);
	rq->version[8] = '\0';
	rq->connect = strcmp(rq->method, "CONNECT") == 0;
	*ret_target = target;
	*ret_tlen = tlen;
	return 0;
}

int cr_http_request_parse(const char *head, size_t n, struct cr_http_request *rq, const char **why)
{
	const char *eol, *target;
	size_t len, tlen, path_off;
	int r;

	*rq = (struct cr_http_request){ .content_length = -1 };
	*why = "malformed request head";
	if (cr_http_head_end(head, n, &len) < 0 || len != n)
		return -EINVAL;
	eol = memmem(head, n, "\r\n", 2);
	if (parse_request_line(head, eol, rq, &target, &tlen) < 0)
		return -EINVAL;
	rq->headers_off = (size_t)(eol + 2 - head);
	rq->headers_len = n - 2 - rq->headers_off;
	r = parse_headers(head + rq->headers_off, head + n - 2, rq, why);
	if (r < 0)
		return r;
	if (rq->connect)
		return cr_http_authority_parse(target, tlen, NULL, rq->host, rq->port, why);
	r = cr_http_url_parse(target, tlen, rq, &path_off, why);
	if (r < 0)
		return r;
	rq->path_off = (size_t)(target - head) + path_off;
	rq->path_len = tlen - path_off;
	for (size_t i = 0; i < rq->path_len; i++)
		if (head[rq->path_off + i] == '#') /* a fragment is not sent */
			rq->path_len = i;
	return 0;
}

/* Headers corral sets itself or that concern only the hop to the proxy. */
static bool hop_header(const char *line, size_t n)
{
	static const char *const names[] = { "host",	     "connection", "proxy-connection",
					     "keep-alive",   "te",	   "upgrade",
					     "proxy-authorization" };

	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (header_is(line, n, names[i]))
			return true;
	return false;
}

int cr_http_forward_head(const char *head, const struct cr_http_request *rq, char *out, size_t size)
{
	const char *path = head + rq->path_off;
	bool default_port = strcmp(rq->port, "80") == 0;
	size_t n;
	int k;

	k = snprintf(out, size, "%s %s%.*s %s\r\nHost: %s%s%s\r\n", rq->method,
		     rq->path_len == 0 || path[0] != '/' ? "/" : "", (int)rq->path_len, path,
		     rq->version, rq->host, default_port ? "" : ":", default_port ? "" : rq->port);
	if (k < 0 || (size_t)k >= size)
		return -E2BIG;
	n = (size_t)k;
	for (const char *l = head + rq->headers_off, *end = l + rq->headers_len; l < end;) {
		const char *eol = memmem(l, (size_t)(end - l), "\r\n", 2);
		size_t len = (size_t)(eol - l) + 2;

		if (!hop_header(l, len - 2)) {
			if (n + len >= size)
				return -E2BIG;
			memcpy(out + n, l, len);
			n += len;
		}
		l += len;
	}
	k = snprintf(out + n, size - n, "Connection: close\r\n\r\n");
	if (k < 0 || (size_t)k >= size - n)
		return -E2BIG;
	return (int)(n + (size_t)k);
}
