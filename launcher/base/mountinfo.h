/* SPDX-License-Identifier: MIT */
/* Lines of /proc/self/mountinfo, for the messages that name a mount. Pure. */
#pragma once

#include <stddef.h>

struct cr_mountinfo {
	unsigned long id;  /* the mount's id, as statx()'s STATX_MNT_ID gives it */
	char *mount_point; /* unescaped, in the line */
	char *fstype;      /* unescaped, in the line */
};

/* Split one line of mountinfo (without its newline) in place, decoding the kernel's escapes
 * (\ooo: it writes space, tab, newline and backslash so) of the mount point and the file system
 * type. 0, or -EINVAL for a line not in that format (or one that would decode to NUL). */
int cr_mountinfo_parse(char *line, struct cr_mountinfo *ret);

/* @s for a message on one line: control characters and backslash as \ooo, as mountinfo writes
 * them, the rest as it is. Truncated to @size (with its NUL). */
void cr_mountinfo_printable(const char *s, char *buf, size_t size);
