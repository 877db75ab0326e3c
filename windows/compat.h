/* SPDX-License-Identifier: MIT */
/* What wsl/cmdline.c takes from libbsd's overlay on Linux and MinGW's C runtime lacks. Forced
 * into that one file (-include) by windows/meson.build; wsl/ itself stays untouched. */
#pragma once

#include <stddef.h>

void *reallocarray(void *p, size_t n, size_t size);
