/* SPDX-License-Identifier: MIT */
/* TCP port lists as --tcp-connect and --tcp-bind take them: "80,443,8000-8100". Pure. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct cr_port_range {
	uint16_t first, last; /* inclusive; first <= last */
};

/* Parse @s, a comma-separated list of ports and FIRST-LAST ranges, each port from @min to 65535,
 * and append it to *@ranges (reallocated; *@n counts). An empty list, an empty item, a reversed
 * range or anything but digits, '-' and ',' is -EINVAL; a port out of range is -ERANGE; on
 * failure nothing is appended. 0, -EINVAL, -ERANGE or -ENOMEM. */
int cr_ports_parse(const char *s, unsigned min, struct cr_port_range **ranges, size_t *n);

/* "80" or "8000-8100", as the JSON status and the messages show a range. */
void cr_port_range_format(const struct cr_port_range *r, char *buf, size_t size);

/* The number of ports in @n ranges (a port listed twice counts twice). */
size_t cr_ports_count(const struct cr_port_range *ranges, size_t n);
