/* SPDX-License-Identifier: MIT */
/* A container's console, made inside it (console.c). */
#pragma once

#include <stddef.h>
#include <sys/types.h>

struct cr_console {
	int sock;	     /* a connected unix socket the master is sent on */
	unsigned short rows; /* the window's size; 0: the kernel's default */
	unsigned short cols;
	uid_t uid;	     /* the terminal's owner: the process's ids */
	gid_t gid;
};

/* In the container's root and session, before its ids change: open a pseudo-terminal of the
 * devpts /dev/ptmx names (checked to be one), send its master with its name (/dev/pts/N) on
 * @c->sock (SCM_RIGHTS, as engines expect), make its peer 0, 1, 2 and the session's controlling
 * terminal. 0, or -errno with @detail. */
int cr_console_make(const struct cr_console *c, char *detail, size_t size);
