/* SPDX-License-Identifier: MIT */
/* A container's console (console.c). */
#pragma once

#include <stddef.h>

/* A unix socket connected to @path (--console-socket), for the container's console
 * (cr_explicit.console_fd). The descriptor, or -errno with @err. */
int cr_oci_console_connect(const char *path, char *err, size_t size);
