/* SPDX-License-Identifier: MIT */
/* Lines of /proc/self/mountinfo (proc(5)):
 *   id parent major:minor root mount-point options [optional...] - fstype source super-options
 * each field escaped by the kernel (space, tab, newline and backslash as \ooo). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mountinfo.h"

static bool octal(char c)
{
	return c >= '0' && c <= '7';
}

/* Decode @s in place: -EINVAL if an escape stands for NUL. */
static int unescape(char *s)
{
	char *out = s;

	for (const char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && octal(p[2]) && octal(p[3])) {
			*out = (char)((p[1] - '0') << 6 | (p[2] - '0') << 3 | (p[3] - '0'));
			if (*out++ == '\0')
				return -EINVAL;
			p += 3;
		} else {
			*out++ = *p;
		}
	}
	*out = '\0';
	return 0;
}

int cr_mountinfo_parse(char *line, struct cr_mountinfo *ret)
{
	char *field[5], *p = line, *end, *sep, *fstype;

	for (size_t i = 0; i < 5; i++) {
		field[i] = strsep(&p, " ");
		if (!field[i][0] || !p)
			return -EINVAL;
	}
	sep = strstr(p, " - ");
	if (!sep)
		return -EINVAL;
	fstype = sep + 3;
	fstype[strcspn(fstype, " ")] = '\0';
	if (!fstype[0] || field[4][0] != '/')
		return -EINVAL;
	errno = 0;
	ret->id = strtoul(field[0], &end, 10);
	if (errno || *end || unescape(field[4]) < 0 || unescape(fstype) < 0)
		return -EINVAL;
	ret->mount_point = field[4];
	ret->fstype = fstype;
	return 0;
}

void cr_mountinfo_printable(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	if (size == 0)
		return;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		bool esc = c < 0x20 || c == 0x7f || c == '\\';

		if (n + (esc ? 4 : 1) >= size)
			break;
		if (esc)
			n += (size_t)snprintf(buf + n, size - n, "\\%03o", c);
		else
			buf[n++] = (char)c;
	}
	buf[n] = '\0';
}
