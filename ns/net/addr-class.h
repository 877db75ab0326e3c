/* SPDX-License-Identifier: MIT */
/* Which addresses a host name of allow_hosts may lead to: the IANA IPv4 and IPv6 Special-Purpose
 * Address Registries (every row whose "Globally Reachable" is False is refused), multicast, and
 * the IPv4 addresses that IPv6 forms carry. Pure functions, no I/O (the proxy adds the host's own
 * interface addresses, ns/net/proxy.c). */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* Why IPv4 address @a (host order) is no destination for a host name: its registry row, as
 * "documentation (TEST-NET-2), RFC 5737"; NULL when it is globally reachable unicast. */
const char *cr_addr_special_v4(uint32_t a);
/* The same for an IPv6 address. An address that carries an IPv4 one (IPv4-mapped,
 * IPv4-compatible, NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo's client 2001::/32) is refused
 * when that IPv4 address is; unicast outside 2000::/3 (no registry row allocates it) is refused. */
const char *cr_addr_special_v6(const struct in6_addr *a);
/* cr_addr_special_v4()/_v6() for an AF_INET or AF_INET6 address; any other family is refused. */
const char *cr_addr_special(const struct sockaddr *sa);
/* The IPv4 address that IPv6 address @a is another name of, the same destination: IPv4-mapped
 * ::ffff:0:0/96, IPv4-compatible ::/96 (but :: and ::1) or NAT64's well-known prefix
 * 64:ff9b::/96; host order in *@ret. Not 6to4 or Teredo, which lead to a relay. */
bool cr_addr_v4_equivalent(const struct in6_addr *a, uint32_t *ret);
/* Do @a and @b name the same destination (an IPv4 address and its cr_addr_v4_equivalent()
 * forms are equal)? Ports are ignored. */
bool cr_addr_same(const struct sockaddr *a, const struct sockaddr *b);
