/* SPDX-License-Identifier: MIT */
/* Who is at the other end of a unix socket. A corral server (`corral serve`, and any later
 * door that takes requests on a socket) serves only processes outside every corral sandbox:
 * the uid alone cannot tell the agent from a command it had sandboxed, which runs under the
 * same uid. Linux only (SO_PEERCRED, SO_PEERPIDFD, /proc). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5; not in every libc's headers yet */
#endif

/* May the peer of the connected unix socket @fd talk to a corral server? It must be of our uid,
 * in our user and pid namespaces, in no cgroup of a corral sandbox, and have no corral process
 * among its ancestors (degraded mode: a sandbox without namespaces stays a descendant of its
 * launcher, a child subreaper it cannot signal). A peer that cannot be inspected (gone, not
 * visible in our pid namespace, /proc unreadable) is refused too. 0 if it may; -EPERM with a
 * sentence in @why if not; another -errno if the check itself failed (@why says so too). */
int cr_peer_check(int fd, char *why, size_t size);

/* Does @text, the contents of /proc/PID/cgroup, place the process in a corral sandbox's
 * cgroup: a path component "run-PID-N" (a run's, or a warm session's, cgroup directory, see
 * cgroup/cgroup.c), on any hierarchy? Pure. */
bool cr_peer_cgroup_is_sandbox(const char *text);
