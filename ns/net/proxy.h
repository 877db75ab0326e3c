/* SPDX-License-Identifier: MIT */
/* --net=allow_hosts: the sandbox keeps its own network namespace with only loopback, and reaches
 * the outside only through an HTTP proxy that corral runs in its own process, in the host's
 * network namespace. Inside, a forwarder process forked by pid 1 accepts TCP connections on
 * 127.0.0.1:3128 and passes each socket to corral over an AF_UNIX SOCK_SEQPACKET socketpair
 * (SCM_RIGHTS). corral serves each on a thread of its own: CONNECT host:port and absolute-form
 * http:// requests, to the hosts of cr_policy.allow_hosts only. A host name never leads to an
 * address that is not globally reachable (ns/net/addr-class.h: the IANA special-purpose registries)
 * or that belongs to one of corral's host's own interfaces, unless that IPv4 address is itself
 * listed. The parsers are in ns/net/proxy-parse.h; the forwarder in ns/net/proxy-forwarder.c. */
#pragma once

#include <sys/types.h>

#include "launcher/policy/policy.h"

struct cr_proxy;
struct cr_run;
struct json_object;

#define CR_PROXY_PORT	 3128
#define CR_PROXY_ADDRESS "127.0.0.1:3128"

/* In the parent, when the run is prepared (only with CR_NET_HOSTS): the socketpair, and a copy
 * of @p whose environment points http_proxy, https_proxy, all_proxy (and their upper-case forms)
 * at the forwarder and sets no_proxy, each pair unless the policy already sets either name, and
 * whose --tcp-connect list, if any, also has port 3128. Starts nothing. 0 or -errno. @p must
 * outlive the proxy. */
int cr_proxy_new(const struct cr_policy *p, struct cr_proxy **ret);
/* The policy the sandbox runs with: @p of cr_proxy_new() but for the environment. */
const struct cr_policy *cr_proxy_policy(const struct cr_proxy *px);
/* The sandbox's end of the socketpair, inherited by the clone; -EBADF once started. */
int cr_proxy_sandbox_fd(const struct cr_proxy *px);
/* In the parent, after clone: close the sandbox's end and start the thread that receives the
 * connections (every signal blocked in it and in the threads it starts). 0 or -errno. */
int cr_proxy_start(struct cr_proxy *px);
/* Add "allow_hosts" (the list) and "proxy" to @enforced: {"address": "127.0.0.1:3128",
 * "allowed": connections served, "denied": refused by allow_hosts (403: a host not listed, or one
 * that resolves only to refused addresses), "failed": malformed requests and hosts that could
 * not be resolved or reached, and connections over the limit (400, 408, 431, 502, 503, 504)}. @px may be NULL: nothing is added.
 * 0 or -ENOMEM. */
int cr_proxy_report(const struct cr_proxy *px, struct json_object *enforced);
/* Stop receiving, cut every connection in flight and join the receiving thread. A connection
 * thread still inside getaddrinfo() ends on its own when it returns: each owns a reference to
 * what it uses, never the run's memory. Accepts NULL, returns NULL. */
struct cr_proxy *cr_proxy_free(struct cr_proxy *px);
static inline void cr_proxy_freep(struct cr_proxy **px)
{
	*px = cr_proxy_free(*px);
}

/* In the sandbox's pid 1, once loopback is up (before Landlock, which may restrict bind): a TCP
 * listener on 127.0.0.1:3128. The descriptor, or -errno. */
int cr_proxy_listen(void);
struct cr_seccomp;
/* In the sandbox's pid 1, after its last setup stage: fork the forwarder, which keeps only
 * @listen_fd and @sock_fd, ignores every signal it can, installs @filter (the command's), and
 * loops on accept() -> sendmsg() -> close(). The forwarder's pid, or -errno. */
pid_t cr_proxy_fork_forwarder(int listen_fd, int sock_fd, const struct cr_seccomp *filter);

/* The run's proxy, NULL unless its network mode is allow_hosts (ns/driver.c). */
const struct cr_proxy *cr_ns_run_proxy(const struct cr_run *run);
