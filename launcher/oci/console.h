/* SPDX-License-Identifier: MIT */
/* A container's console (console.c). */
#pragma once

#include <stddef.h>

/* Make a pseudo-terminal of @rows x @cols (0: the kernel's default), send its master to the
 * unix socket @socket_path and return its slave in *@ret_slave. 0, or -errno with @err. */
int cr_oci_console(const char *socket_path, unsigned rows, unsigned cols, int *ret_slave,
		   char *err, size_t size);
