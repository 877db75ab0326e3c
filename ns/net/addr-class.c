/* SPDX-License-Identifier: MIT */
/* The special-purpose address registries as tables. See addr-class.h. Rows are matched in order:
 * the first whose prefix holds the address decides. */
#include <arpa/inet.h>
#include <string.h>

#include "addr-class.h"
#include "launcher/base/macro.h"

struct row4 {
	uint32_t net;
	unsigned len;
	const char *name; /* NULL: globally reachable */
};

/* IANA IPv4 Special-Purpose Address Registry, plus multicast. Every row whose "Globally
 * Reachable" is False; the two True /32 inside 192.0.0.0/24 come first. Three rows that the
 * registry calls globally reachable are refused too: AS112 and AMT are anycast infrastructure
 * (DNS sinks, a UDP multicast relay) that no HTTP host lives on, and the 6to4 relay anycast is
 * deprecated. */
static const struct row4 rows4[] = {
	{ 0xc0000009, 32, NULL }, /* 192.0.0.9/32 Port Control Protocol anycast, RFC 7723 */
	{ 0xc000000a, 32, NULL }, /* 192.0.0.10/32 TURN anycast, RFC 8155 */
	{ 0x00000000, 8, "\"this network\", RFC 791" },			/* 0.0.0.0/8 */
	{ 0x0a000000, 8, "private use, RFC 1918" },			/* 10.0.0.0/8 */
	{ 0x64400000, 10, "shared address space (carrier-grade NAT), RFC 6598" }, /* 100.64/10 */
	{ 0x7f000000, 8, "loopback, RFC 1122" },			/* 127.0.0.0/8 */
	{ 0xa9fe0000, 16, "link-local, RFC 3927" },			/* 169.254.0.0/16 */
	{ 0xac100000, 12, "private use, RFC 1918" },			/* 172.16.0.0/12 */
	/* 192.0.0.0/24 with its /29 service continuity prefix, dummy address and NAT64 discovery */
	{ 0xc0000000, 24, "IETF protocol assignments, RFC 6890" },
	{ 0xc0000200, 24, "documentation (TEST-NET-1), RFC 5737" },	/* 192.0.2.0/24 */
	{ 0xc01fc400, 24, "AS112 anycast DNS, RFC 7535" },		/* 192.31.196.0/24 */
	{ 0xc034c100, 24, "AMT relay anycast, RFC 7450" },		/* 192.52.193.0/24 */
	{ 0xc0586300, 24, "deprecated 6to4 relay anycast, RFC 7526" },	/* 192.88.99.0/24 */
	{ 0xc0a80000, 16, "private use, RFC 1918" },			/* 192.168.0.0/16 */
	{ 0xc0af3000, 24, "AS112 direct delegation anycast DNS, RFC 7534" }, /* 192.175.48.0/24 */
	{ 0xc6120000, 15, "benchmarking, RFC 2544" },			/* 198.18.0.0/15 */
	{ 0xc6336400, 24, "documentation (TEST-NET-2), RFC 5737" },	/* 198.51.100.0/24 */
	{ 0xcb007100, 24, "documentation (TEST-NET-3), RFC 5737" },	/* 203.0.113.0/24 */
	{ 0xe0000000, 4, "multicast, RFC 5771" },			/* 224.0.0.0/4 */
	{ 0xffffffff, 32, "limited broadcast, RFC 919" },		/* 255.255.255.255/32 */
	{ 0xf0000000, 4, "reserved, RFC 1112" },			/* 240.0.0.0/4 */
};

const char *cr_addr_special_v4(uint32_t a)
{
	for (size_t i = 0; i < ELEMENTSOF(rows4); i++) {
		uint32_t mask = rows4[i].len == 0 ? 0 : ~(uint32_t)0 << (32 - rows4[i].len);

		if ((a & mask) == rows4[i].net)
			return rows4[i].name;
	}
	return NULL;
}

enum row6_kind {
	V6_GLOBAL,  /* globally reachable */
	V6_REFUSED, /* not globally reachable */
	V6_LAST32,  /* the IPv4 address in the last 32 bits decides */
	V6_6TO4,    /* the IPv4 address in bits 16-47 decides */
	V6_TEREDO,  /* the complement of the last 32 bits (the client's address) decides */
};

struct row6 {
	uint8_t net[16];
	unsigned len;
	enum row6_kind kind;
	const char *name;
};

/* IANA IPv6 Special-Purpose Address Registry, plus multicast and the space outside 2000::/3. The
 * registry gives 2002::/16 and 2001::/32 no "Globally Reachable" (N/A): 6to4 and Teredo addresses
 * lead to whatever IPv4 address they carry, so that address decides, as for the IPv4-mapped and
 * NAT64 forms. The True rows inside 2001::/23 come first, but AMT and AS112 (refused in IPv4 as
 * well). 64:ff9b:1::/48 is False in the registry (local-use translation), so refused whole. */
static const struct row6 rows6[] = {
	{ { 0 }, 128, V6_REFUSED, "unspecified, RFC 4291" },			      /* ::/128 */
	{ { [15] = 1 }, 128, V6_REFUSED, "loopback, RFC 4291" },		      /* ::1/128 */
	{ { [10] = 0xff, 0xff }, 96, V6_LAST32, "IPv4-mapped, RFC 4291" },	      /* ::ffff:0:0/96 */
	{ { 0 }, 96, V6_LAST32, "IPv4-compatible (deprecated), RFC 4291" },	      /* ::/96 */
	{ { 0, 0x64, 0xff, 0x9b }, 96, V6_LAST32, "NAT64, RFC 6052" },		      /* 64:ff9b::/96 */
	{ { 0, 0x64, 0xff, 0x9b, 0, 1 }, 48, V6_REFUSED, "local-use IPv4/IPv6 translation, RFC 8215" },
	{ { 1, 0 }, 64, V6_REFUSED, "discard-only, RFC 6666" },		      /* 100::/64 */
	/* 100:0:0:1::/64 */
	{ { 1, 0, 0, 0, 0, 0, 0, 1 }, 64, V6_REFUSED, "dummy prefix, RFC 9780" },
	/* 2001:1::1 PCP anycast (RFC 7723), 2001:1::2 TURN anycast (RFC 8155), 2001:1::3 DNS-SD
	 * service registration anycast (RFC 9665) */
	{ { 0x20, 0x01, 0, 1, [15] = 1 }, 128, V6_GLOBAL, NULL },
	{ { 0x20, 0x01, 0, 1, [15] = 2 }, 128, V6_GLOBAL, NULL },
	{ { 0x20, 0x01, 0, 1, [15] = 3 }, 128, V6_GLOBAL, NULL },
	{ { 0x20, 0x01, 0, 0 }, 32, V6_TEREDO, "Teredo, RFC 4380" },	   /* 2001::/32 */
	{ { 0x20, 0x01, 0, 0x20 }, 28, V6_GLOBAL, NULL },		   /* ORCHIDv2, RFC 7343 */
	{ { 0x20, 0x01, 0, 0x30 }, 28, V6_GLOBAL, NULL },		   /* DRIP, RFC 9374 */
	/* 2001::/23 with benchmarking 2001:2::/48 (RFC 5180), AMT 2001:3::/32 (RFC 7450), AS112
	 * 2001:4:112::/48 (RFC 7535) and the deprecated ORCHID 2001:10::/28 (RFC 4843) */
	{ { 0x20, 0x01 }, 23, V6_REFUSED, "IETF protocol assignments, RFC 2928" },
	{ { 0x20, 0x01, 0x0d, 0xb8 }, 32, V6_REFUSED, "documentation, RFC 3849" }, /* 2001:db8::/32 */
	{ { 0x20, 0x02 }, 16, V6_6TO4, "6to4, RFC 3056" },			      /* 2002::/16 */
	{ { 0x3f, 0xff }, 20, V6_REFUSED, "documentation, RFC 9637" },	      /* 3fff::/20 */
	{ { 0x5f, 0x00 }, 16, V6_REFUSED, "segment routing (SRv6) SIDs, RFC 9602" }, /* 5f00::/16 */
	{ { 0xfc }, 7, V6_REFUSED, "unique-local, RFC 4193" },		      /* fc00::/7 */
	{ { 0xfe, 0x80 }, 10, V6_REFUSED, "link-local, RFC 4291" },		      /* fe80::/10 */
	{ { 0xfe, 0xc0 }, 10, V6_REFUSED, "site-local (deprecated), RFC 3879" },   /* fec0::/10 */
	{ { 0xff }, 8, V6_REFUSED, "multicast, RFC 4291" },			      /* ff00::/8 */
	{ { 0x20 }, 3, V6_GLOBAL, NULL }, /* 2000::/3, global unicast, RFC 4291 */
	{ { 0 }, 0, V6_REFUSED, "not global unicast (outside 2000::/3), RFC 4291" },
};

static bool prefix_has(const uint8_t net[16], unsigned len, const uint8_t a[16])
{
	unsigned full = len / 8, rest = len % 8;

	if (memcmp(net, a, full) != 0)
		return false;
	return rest == 0 || ((net[full] ^ a[full]) & (0xff << (8 - rest)) & 0xff) == 0;
}

static uint32_t v4_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

const char *cr_addr_special_v6(const struct in6_addr *a)
{
	const uint8_t *b = a->s6_addr;

	for (size_t i = 0; i < ELEMENTSOF(rows6); i++) {
		if (!prefix_has(rows6[i].net, rows6[i].len, b))
			continue;
		switch (rows6[i].kind) {
		case V6_GLOBAL:
			return NULL;
		case V6_REFUSED:
			return rows6[i].name;
		case V6_LAST32:
			return cr_addr_special_v4(v4_at(b + 12));
		case V6_6TO4:
			return cr_addr_special_v4(v4_at(b + 2));
		case V6_TEREDO:
			return cr_addr_special_v4(~v4_at(b + 12));
		default:
			break;
		}
	}
	return "not global unicast, RFC 4291"; /* not reached: the last row holds every address */
}

const char *cr_addr_special(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return cr_addr_special_v4(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr));
	if (sa->sa_family == AF_INET6)
		return cr_addr_special_v6(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return "not an internet address";
}

bool cr_addr_v4_equivalent(const struct in6_addr *a, uint32_t *ret)
{
	static const uint8_t nat64[12] = { 0x00, 0x64, 0xff, 0x9b };

	if (IN6_IS_ADDR_UNSPECIFIED(a) || IN6_IS_ADDR_LOOPBACK(a))
		return false;
	if (!IN6_IS_ADDR_V4MAPPED(a) && !IN6_IS_ADDR_V4COMPAT(a) &&
	    memcmp(a->s6_addr, nat64, sizeof(nat64)) != 0)
		return false;
	*ret = v4_at(a->s6_addr + 12);
	return true;
}

/* @sa as an IPv4 address (host order), if it is one or an equivalent form of one. */
static bool as_v4(const struct sockaddr *sa, uint32_t *ret)
{
	if (sa->sa_family == AF_INET) {
		*ret = ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr);
		return true;
	}
	return sa->sa_family == AF_INET6 &&
	       cr_addr_v4_equivalent(&((const struct sockaddr_in6 *)sa)->sin6_addr, ret);
}

bool cr_addr_same(const struct sockaddr *a, const struct sockaddr *b)
{
	uint32_t x, y;
	bool ax = as_v4(a, &x), by = as_v4(b, &y);

	if (ax || by)
		return ax && by && x == y;
	return a->sa_family == AF_INET6 && b->sa_family == AF_INET6 &&
	       memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		      &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr)) == 0;
}
