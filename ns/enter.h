/* SPDX-License-Identifier: MIT */
/* A command run inside a running sandbox (an OCI runtime's exec): the namespaces, root and
 * cgroups of the sandbox's first process joined, then confined as an explicit policy's command
 * is (ids, capabilities, no_new_privs, corral's syscall filter and the policy's own programs). */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "launcher/policy/policy.h"

/* Start @p's argv (with its env, cwd, ex.uid/gid, ex.caps, seccomp and ex.seccomp_programs)
 * inside the sandbox whose first process is @init on the host. Forks: the command is a child of
 * a child of the caller, which exits once it started it (a subreaper caller gets the command).
 * Returns the command's host pid, or -errno with @msg saying which step failed. */
pid_t cr_ns_enter(pid_t init, const struct cr_policy *p, char *msg, size_t size);
