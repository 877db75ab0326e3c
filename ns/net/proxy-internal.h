/* SPDX-License-Identifier: MIT */
/* What ns/net/proxy.c and ns/net/proxy-forwarder.c share. */
#pragma once

/* In corral, on the receiving thread: one message from the forwarder, a connected TCP socket
 * (O_CLOEXEC). The descriptor; -EAGAIN for a message without a usable one (anything else passed
 * along is closed); -EPIPE at end of file (the sandbox is gone); or -errno. */
int cr_proxy_receive_fd(int sock);
