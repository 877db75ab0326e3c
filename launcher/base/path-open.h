/* SPDX-License-Identifier: MIT */
/* Opening paths that corral resolved earlier, without letting a symlink redirect them. */
#pragma once

/* O_PATH descriptor of @path, following no symbolic link on the way (openat2 with
 * RESOLVE_NO_SYMLINKS; before Linux 5.6, only the last component is checked). -errno on failure. */
int cr_open_path_nofollow(const char *path);
