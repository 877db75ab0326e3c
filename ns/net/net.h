/* SPDX-License-Identifier: MIT */
/* Loopback in a fresh network namespace. */
#pragma once

/* Bring "lo" up over rtnetlink and wait for the kernel's acknowledgement; the kernel then adds
 * 127.0.0.1 and ::1 itself. 0 or -errno (the kernel's error from the ACK, if it refused). */
int cr_net_loopback_up(void);
