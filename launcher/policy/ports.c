/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/macro.h"
#include "ports.h"

/* One decimal port at *@p, advancing it. At most five digits, so no overflow is possible. */
static int parse_port(const char **p, unsigned min, uint16_t *ret)
{
	unsigned v = 0, digits = 0;

	for (; **p >= '0' && **p <= '9'; (*p)++, digits++)
		if (digits < 6)
			v = v * 10 + (unsigned)(**p - '0');
	if (digits == 0)
		return -EINVAL;
	if (digits > 5 || v > 65535 || v < min)
		return -ERANGE;
	*ret = (uint16_t)v;
	return 0;
}

/* One item at *@p: PORT or FIRST-LAST, followed by ',' or the end. */
static int parse_item(const char **p, unsigned min, struct cr_port_range *ret)
{
	int r;

	r = parse_port(p, min, &ret->first);
	if (r < 0)
		return r;
	ret->last = ret->first;
	if (**p == '-') {
		(*p)++;
		r = parse_port(p, min, &ret->last);
		if (r < 0)
			return r;
		if (ret->last < ret->first)
			return -EINVAL;
	}
	return **p == ',' || **p == '\0' ? 0 : -EINVAL;
}

int cr_ports_parse(const char *s, unsigned min, struct cr_port_range **ranges, size_t *n)
{
	struct cr_port_range *all;
	const char *p = s;
	size_t items = 1, count = 0;
	int r;

	if (!s || !*s)
		return -EINVAL;
	for (const char *c = s; *c; c++)
		items += *c == ',';
	/* Room for every item up front: nothing is appended unless the whole list is good. */
	all = reallocarray(*ranges, *n + items, sizeof(*all));
	if (!all)
		return -ENOMEM;
	*ranges = all;
	for (;; p++) {
		r = parse_item(&p, min, &all[*n + count]);
		if (r < 0)
			return r;
		count++;
		if (*p == '\0')
			break;
	}
	*n += count;
	return 0;
}

void cr_port_range_format(const struct cr_port_range *r, char *buf, size_t size)
{
	if (r->first == r->last)
		(void)snprintf(buf, size, "%u", r->first);
	else
		(void)snprintf(buf, size, "%u-%u", r->first, r->last);
}

size_t cr_ports_count(const struct cr_port_range *ranges, size_t n)
{
	size_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += (size_t)ranges[i].last - ranges[i].first + 1;
	return total;
}
