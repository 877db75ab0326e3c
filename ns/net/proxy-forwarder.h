/* SPDX-License-Identifier: MIT */
/* The sandbox's side of --net=allow_hosts (proxy-forwarder.c): a listener on 127.0.0.1:3128 and
 * the forwarder process that passes each connection to corral's proxy (proxy.h). */
#pragma once

#include <sys/types.h>

struct cr_seccomp;

#define CR_PROXY_PORT	 3128
#define CR_PROXY_ADDRESS "127.0.0.1:3128"

/* In the sandbox's pid 1, once loopback is up (before Landlock, which may restrict bind): a TCP
 * listener on 127.0.0.1:3128. The descriptor, or -errno. */
int cr_proxy_listen(void);
/* In the sandbox's pid 1, after its last setup stage: fork the forwarder, which keeps only
 * @listen_fd and @sock_fd, ignores every signal it can, installs @filter (the command's), and
 * loops on accept() -> sendmsg() -> close(). The forwarder's pid, or -errno. */
pid_t cr_proxy_fork_forwarder(int listen_fd, int sock_fd, const struct cr_seccomp *filter);
