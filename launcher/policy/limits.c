/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "launcher/base/parse-util.h"
#include "limits.h"
#include "launcher/base/macro.h"

static const struct {
	const char *name, *option;
	uint64_t max; /* largest finite value */
} limits[_CR_LIMIT_MAX] = {
	[CR_LIMIT_MEMORY] = { "memory", "--memory", UINT64_MAX / 2 },
	[CR_LIMIT_MEMORY_SWAP] = { "memory_swap", "--memory-swap", UINT64_MAX / 2 },
	[CR_LIMIT_PIDS] = { "pids", "--pids", 4194304 },
	[CR_LIMIT_CPU] = { "cpu", "--cpu", 1024 * 1000 },
	[CR_LIMIT_CPU_TIME] = { "cpu_time", "--cpu-time", 366ull * 24 * 3600 },
	[CR_LIMIT_FILE_SIZE] = { "file_size", "--file-size", UINT64_MAX / 2 },
	[CR_LIMIT_OPEN_FILES] = { "open_files", "--open-files", 1 << 20 },
};

static const char *const mode_names[_CR_LIMIT_MODE_MAX] = {
	[CR_LIMIT_MODE_NONE] = "none",
	[CR_LIMIT_MODE_CGROUP2] = "cgroup2",
	[CR_LIMIT_MODE_CGROUP1] = "cgroup1",
	[CR_LIMIT_MODE_RLIMIT] = "rlimit",
};

const char *cr_limit_to_string(enum cr_limit l)
{
	return l >= 0 && l < _CR_LIMIT_MAX ? limits[l].name : NULL;
}

const char *cr_limit_option(enum cr_limit l)
{
	return l >= 0 && l < _CR_LIMIT_MAX ? limits[l].option : NULL;
}

const char *cr_limit_mode_to_string(enum cr_limit_mode m)
{
	return m >= 0 && m < _CR_LIMIT_MODE_MAX ? mode_names[m] : NULL;
}

static int parse_bytes(const char *s, uint64_t *ret)
{
	static const char units[] = "KMGT";
	const char *u;
	uint64_t v;
	char num[32];
	size_t n = strspn(s, "0123456789");
	int r;

	if (n == 0 || n >= sizeof(num))
		return n == 0 ? -EINVAL : -ERANGE;
	memcpy(num, s, n);
	num[n] = '\0';
	r = cr_parse_uint(num, 0, UINT64_MAX, &v);
	if (r < 0)
		return r;
	if (s[n] == '\0') {
		*ret = v;
		return 0;
	}
	u = strchr(units, s[n] >= 'a' ? s[n] - 'a' + 'A' : s[n]);
	if (!u || !*u || s[n + 1] != '\0')
		return -EINVAL;
	for (long i = 0; i <= u - units; i++) {
		if (v > UINT64_MAX / 1024)
			return -ERANGE;
		v *= 1024;
	}
	*ret = v;
	return 0;
}

int cr_limit_parse(enum cr_limit l, const char *s, uint64_t *ret)
{
	uint64_t v;
	int r;

	if (l < 0 || l >= _CR_LIMIT_MAX || !s)
		return -EINVAL;
	if (strcmp(s, "max") == 0) {
		*ret = CR_LIMIT_INFINITY;
		return 0;
	}
	switch (l) {
	case CR_LIMIT_MEMORY:
	case CR_LIMIT_MEMORY_SWAP:
	case CR_LIMIT_FILE_SIZE:
		r = parse_bytes(s, &v);
		break;
	case CR_LIMIT_CPU:
		r = cr_parse_seconds(s, &v); /* thousandths, as milliseconds */
		break;
	case CR_LIMIT_PIDS:
	case CR_LIMIT_CPU_TIME:
	case CR_LIMIT_OPEN_FILES:
	case _CR_LIMIT_MAX:
	case _CR_LIMIT_INVALID:
	default:
		r = cr_parse_uint(s, 0, UINT64_MAX, &v);
		break;
	}
	if (r < 0)
		return r;
	if (v == 0 || v > limits[l].max)
		return -ERANGE;
	*ret = v;
	return 0;
}

void cr_limit_format(enum cr_limit l, uint64_t v, char *buf, unsigned size)
{
	if (v == CR_LIMIT_INFINITY)
		(void)snprintf(buf, size, "max");
	else if (l == CR_LIMIT_CPU)
		(void)snprintf(buf, size, "%llu.%03llu", (unsigned long long)v / 1000,
			       (unsigned long long)v % 1000);
	else
		(void)snprintf(buf, size, "%llu", (unsigned long long)v);
}

uint64_t cr_limit_default_memory(uint64_t ram)
{
	uint64_t least = ram / 4 * 3, v = ram / 2;

	if (ram == 0) /* unknown */
		return CR_DEFAULT_MEMORY_MIN;
	if (least > CR_DEFAULT_MEMORY_MIN)
		least = CR_DEFAULT_MEMORY_MIN;
	if (v < least)
		v = least;
	v &= ~((1ull << 20) - 1); /* whole MiB: the value reads as it is meant */
	return v ? v : ram;
}
