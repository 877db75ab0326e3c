/* SPDX-License-Identifier: MIT */
/* Host patterns: "github.com", "*.github.com", "192.0.2.1", each with an optional ":PORT"; their
 * syntax, and whether one covers another. Pure. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "host-pattern.h"

static bool is_ipv4(const char *s)
{
	unsigned parts = 0;

	for (const char *p = s;; p++) {
		unsigned v = 0, digits = 0;

		for (; *p >= '0' && *p <= '9'; p++, digits++)
			v = v * 10 + (unsigned)(*p - '0');
		if (digits == 0 || digits > 3 || v > 255)
			return false;
		parts++;
		if (*p == '\0')
			return parts == 4;
		if (*p != '.' || parts == 4)
			return false;
	}
}

/* The name of a pattern or host without its ":PORT" (copied into @name, at most 253 bytes), and
 * the port: 0 for none (any port). -EINVAL for a port that is not 1-65535 in plain decimal. */
static int split_port(const char *s, char name[static 254], unsigned *ret_port)
{
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s), digits;
	unsigned long port = 0;

	if (n > 253)
		return -EINVAL;
	if (colon) {
		digits = strspn(colon + 1, "0123456789");
		if (digits == 0 || digits > 5 || colon[1] == '0' || colon[1 + digits] != '\0')
			return -EINVAL;
		port = strtoul(colon + 1, NULL, 10);
		if (port > 65535)
			return -EINVAL;
	}
	memcpy(name, s, n);
	name[n] = '\0';
	*ret_port = (unsigned)port;
	return 0;
}

static int name_pattern_check(const char *s)
{
	const char *name = strncmp(s, "*.", 2) == 0 ? s + 2 : s;
	const char *label;
	bool digits_only = true;
	size_t len = 0;

	if (!*name || strlen(name) > 253)
		return -EINVAL;
	if (is_ipv4(name))
		return name == s ? 0 : -EINVAL; /* "*.1.2.3.4" names nothing */
	for (const char *p = label = name;; p++) {
		if (*p == '.' || *p == '\0') {
			if (len == 0 || len > 63 || label[0] == '-' || p[-1] == '-')
				return -EINVAL;
			if (*p == '\0')
				break;
			label = p + 1;
			len = 0;
			digits_only = true;
			continue;
		}
		if (!isascii((unsigned char)*p) ||
		    !(isalnum((unsigned char)*p) || *p == '-'))
			return -EINVAL;
		digits_only &= *p >= '0' && *p <= '9';
		len++;
	}
	return digits_only ? -EINVAL : 0;
}

int cr_host_pattern_check(const char *s)
{
	char name[254];
	unsigned port;

	if (!s || split_port(s, name, &port) < 0)
		return -EINVAL;
	return name_pattern_check(name);
}

/* Does @name end with @suffix (".example.com"), case-insensitively? */
static bool ends_with(const char *name, const char *suffix)
{
	size_t n = strlen(name), m = strlen(suffix);

	return n >= m && strcasecmp(name + n - m, suffix) == 0;
}

static bool name_matches(const char *pattern, const char *host)
{
	bool host_wild = strncmp(host, "*.", 2) == 0;

	if (strncmp(pattern, "*.", 2) != 0)
		return !host_wild && strcasecmp(pattern, host) == 0;
	/* "*.example.com" covers "a.example.com" and "*.a.example.com" and "*.example.com", not
	 * "example.com". pattern + 1 is ".example.com"; a wildcard host is compared by its own
	 * suffix so that "*.example.com" is covered by itself. */
	if (host_wild)
		return ends_with(host + 1, pattern + 1);
	return strlen(host) > strlen(pattern + 1) && ends_with(host, pattern + 1);
}

bool cr_host_matches(const char *pattern, const char *host)
{
	char pname[254], hname[254];
	unsigned pport, hport;

	if (split_port(pattern, pname, &pport) < 0 || split_port(host, hname, &hport) < 0)
		return false;
	/* A pattern without a port covers every port; one with a port only that port. */
	return (pport == 0 || pport == hport) && name_matches(pname, hname);
}
