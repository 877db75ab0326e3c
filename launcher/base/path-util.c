/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "path-util.h"

int cr_path_check(const char *path, bool need_absolute)
{
	size_t len;

	if (!path || !*path)
		return -EINVAL;
	len = strnlen(path, PATH_MAX);
	if (len >= PATH_MAX)
		return -ENAMETOOLONG;
	for (const char *p = path; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return -EINVAL;
	if (need_absolute && path[0] != '/')
		return -EINVAL;
	return 0;
}

int cr_path_canonicalize(const char *path, char **ret)
{
	char *r;

	r = realpath(path, NULL);
	if (!r)
		return negative_errno();
	*ret = r;
	return 0;
}

bool cr_path_is_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	if (strncmp(path, dir, n) != 0)
		return false;
	return path[n] == '\0' || path[n] == '/';
}

unsigned cr_path_depth(const char *path)
{
	unsigned depth = 0;

	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			depth++;
	return depth;
}
