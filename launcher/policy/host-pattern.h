/* SPDX-License-Identifier: MIT */
/* Host patterns, as --allow-host, a profile's allow_host and a capability's hosts give them
 * (host-pattern.c). Pure. */
#pragma once

#include <stdbool.h>

/* Is @s a host pattern: a DNS name ("github.com"), "*." and a DNS name ("*.github.com": any name
 * below it, not the name itself), or a dotted IPv4 address of four numbers; ASCII letters (case
 * does not matter), digits, '-' and '.', labels of 1-63 characters not starting or ending with
 * '-', at most 253 in all, and a last label that is not all digits unless the whole is an IPv4
 * address (so "127.1" is refused rather than read as an address); then optionally ":PORT", 1 to
 * 65535 in decimal without leading zeros ("github.com:443": that port only). 0 or -EINVAL. */
int cr_host_pattern_check(const char *s);
/* Does @pattern cover @host? @host may itself be a "*." pattern (a request for every name below
 * a domain), covered only by an equal or wider "*." pattern. A pattern without a port covers
 * every port of its names, and a host without one (a request for every port) is covered only
 * by such a pattern. Case-insensitive. */
bool cr_host_matches(const char *pattern, const char *host);
