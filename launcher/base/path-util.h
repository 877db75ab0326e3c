/* SPDX-License-Identifier: MIT */
/* Path checks shared by every backend. Pure except cr_path_canonicalize(). */
#pragma once

#include <stdbool.h>

/* Is @path usable as a sandbox path: non-empty, no newline or other control character that would
 * corrupt mount tables and logs, shorter than PATH_MAX bytes, and absolute if @need_absolute?
 * 0, -EINVAL, or -ENAMETOOLONG. (A C string cannot hold NUL; callers reading lengths check that themselves.) */
int cr_path_check(const char *path, bool need_absolute);

/* Resolve symlinks, "." and ".." against the current directory. 0 or -errno (-ENOENT, ...). */
int cr_path_canonicalize(const char *path, char **ret);

/* Does directory @dir contain @path (or equal it)? Compared by component, never by string
 * prefix: "/srv/a" does not contain "/srv/ab". Both must be canonical. */
bool cr_path_is_within(const char *path, const char *dir);

/* Number of components: "/" is 0, "/usr/lib" is 2. For ordering mounts parent-first. */
unsigned cr_path_depth(const char *path);
