/* SPDX-License-Identifier: MIT */
/* The proxy's parsers for what a sandboxed client sends (ns/net/proxy.c): the end of a request head,
 * the request line and header lines, an authority (host:port), an absolute-form http:// URL, and
 * the head corral sends on. Pure functions: no I/O, no allocation, each refusal with a reason for
 * the client. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CR_HTTP_HEAD_MAX    (16 * 1024) /* a longer request head is refused (431) */
#define CR_HTTP_HEADERS_MAX 128		/* more header lines are refused (431) */
#define CR_HTTP_HOST_MAX    254		/* a host name and its NUL */
#define CR_HTTP_PORT_MAX    6		/* "65535" and its NUL */

struct cr_http_request {
	char method[16];
	bool connect;
	char version[9];	      /* "HTTP/1.1" or "HTTP/1.0" */
	char host[CR_HTTP_HOST_MAX];  /* lower case, without a trailing dot */
	char port[CR_HTTP_PORT_MAX];  /* decimal, no leading zero */
	size_t path_off, path_len;    /* absolute form: the path and query in the head; 0 means "/" */
	size_t headers_off, headers_len; /* the header lines, each ending in CRLF, no blank line */
	int64_t content_length;		 /* -1 when none */
	bool chunked;			 /* Transfer-Encoding ends in chunked */
};

/* Where the request head in @buf (@n bytes received so far) ends: 0 and its length, blank line
 * included, in *@ret_len (what follows, a body or early TLS data, is not looked at); -EAGAIN
 * when no blank line has come yet; -EINVAL for a bare CR or LF or a control character in the
 * head (known at once, so a bare-LF client is not left waiting); -E2BIG when the head is longer
 * than CR_HTTP_HEAD_MAX. */
int cr_http_head_end(const char *buf, size_t n, size_t *ret_len);

/* "host:port", or "host" when @default_port is not NULL. The host is lower-cased, loses one
 * trailing dot, and must be a DNS name or an IPv4 address (what allow_hosts can name); a
 * bracketed IPv6 literal, user information or a bad port is refused. 0 with @host and @port
 * set, or -EINVAL and a reason in *@why. */
int cr_http_authority_parse(const char *a, size_t n, const char *default_port,
			    char host[CR_HTTP_HOST_MAX], char port[CR_HTTP_PORT_MAX],
			    const char **why);

/* An absolute-form target, http://authority[/path][?query][#fragment]: its host and port (80 by
 * default) into @rq, and where the rest begins in *@ret_path_off (relative to @t). 0 or -EINVAL
 * and a reason. */
int cr_http_url_parse(const char *t, size_t n, struct cr_http_request *rq, size_t *ret_path_off,
		      const char **why);

/* A request head of @n bytes (as cr_http_head_end() measured it): METHOD SP TARGET SP HTTP/1.x,
 * CONNECT with host:port or another method with an absolute http:// URL, then header lines
 * ("name: value", a token as name, no folding, at most CR_HTTP_HEADERS_MAX) with the body's
 * framing: Content-Length (digits; repeated only with the same value) or Transfer-Encoding ending
 * in chunked, not both. 0 with *@rq filled; -EINVAL, or -E2BIG for too many header lines, with a
 * reason in *@why. */
int cr_http_request_parse(const char *head, size_t n, struct cr_http_request *rq, const char **why);

/* The head sent on for absolute-form request @rq parsed from @head: origin-form target, Host
 * from the URL, the client's end-to-end header lines (not Host, Connection, Proxy-Connection,
 * Keep-Alive, TE, Upgrade, Proxy-Authorization) and "Connection: close", into @out. Its length,
 * or -E2BIG when @size is too small. */
int cr_http_forward_head(const char *head, const struct cr_http_request *rq, char *out,
			 size_t size);

/* "host:port" into @buf: what cr_http_authority_parse() reads back as the same host and port.
 * Its length, or -E2BIG. */
int cr_http_authority_format(const char *host, const char *port, char *buf, size_t size);
