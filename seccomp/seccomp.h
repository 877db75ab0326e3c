/* SPDX-License-Identifier: MIT */
/* seccomp: the syscall filter installed in the command's process, last before execve. The
 * built-in profiles are BPF compiled at build time and installed raw; a user profile is compiled
 * with libseccomp in corral's own process, before the sandbox exists, and cached. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "launcher/policy/policy.h"

/* Can this kernel install seccomp filters (CONFIG_SECCOMP_FILTER)? */
bool cr_seccomp_available(void);

/* How many syscalls the built-in @profile ("default", "strict") refuses on this architecture;
 * 0 if corral has no built-in program for it. */
size_t cr_seccomp_builtin_syscalls(const char *profile);

struct cr_seccomp; /* the programs one run installs, and what to report about them */

/* Prepare the programs for @mode (@profile_path with CR_SECCOMP_PROFILE) and, unless @spawn,
 * the one that refuses new processes. With @ptrace (--ptrace=sandbox) the built-in program
 * leaves out @ptrace (ptrace, process_vm_readv, process_vm_writev); with a profile that is
 * -EINVAL. Runs in corral's own process before the sandbox exists:
 * a built-in program is used as it is; a profile is read, checked, and compiled or taken from
 * the cache. Returns 0, or -errno with a one-line reason in @msg: a bad profile is -EINVAL with
 * "FILE:LINE: reason". */
int cr_seccomp_prepare(enum cr_seccomp_mode mode, const char *profile_path, bool spawn,
		       bool ptrace, struct cr_seccomp **ret, char *msg, size_t msg_size);

/* Add the program that refuses set-uid and set-gid bits in chmod, open and mknod modes (group
 * @setid), whatever the mode, --seccomp=off included: a run with idmapped mounts needs it (the
 * files the sandbox owns there are another host user's). 0 or -errno with a reason in @msg. */
int cr_seccomp_add_setid(struct cr_seccomp *s, char *msg, size_t size);

/* Install the prepared programs into the calling thread, which must have no_new_privs set.
 * Allocates nothing, so it is safe between fork and execve. Nothing to install (NULL, or
 * --seccomp=off with spawning allowed): 0. Returns 0 or -errno. */
int cr_seccomp_install(const struct cr_seccomp *s);

/* What a run enforces, for the JSON status. Strings belong to @s. */
struct cr_seccomp_info {
	const char *mode;	    /* "default", "strict", "profile", "off" */
	const char *profile;	    /* "default", "strict", the profile's path; NULL when off */
	const char *sha256;	    /* hex digest of every installed program, in order; NULL if none */
	const char *architecture;   /* the one ABI the rules apply to; NULL if nothing is installed */
	bool spawn;		    /* new processes allowed */
	const char *ptrace;	    /* "refused" (@ptrace is in the filter), "sandbox" (allowed;
				     * the pid namespace and dumpability bound it), "profile" (a
				     * --seccomp-profile decides) */
	bool setid;		    /* set-uid and set-gid modes refused (idmapped mounts) */
	const char *cache;	    /* "hit", "miss" (compiled now), "none" (no profile) */
	size_t n_programs;	    /* installed programs: the profile's, then the spawn one */
};

void cr_seccomp_describe(const struct cr_seccomp *s, struct cr_seccomp_info *ret);

/* Accepts NULL, returns NULL. */
struct cr_seccomp *cr_seccomp_free(struct cr_seccomp *s);

static inline void cr_seccomp_freep(struct cr_seccomp **s)
{
	*s = cr_seccomp_free(*s);
}

/* A filter a door describes whole (an OCI bundle's linux.seccomp), compiled with libseccomp for
 * the native architecture and installed after corral's own programs (cr_explicit's
 * seccomp_programs): the kernel applies the stricter answer of the two. Actions are the
 * kernel's SECCOMP_RET_* values with their data (SECCOMP_RET_ERRNO | EPERM). */
struct cr_seccomp_arg_spec {
	unsigned index;		 /* 0 to 5 */
	uint64_t value, value_two;
	int op;			 /* libseccomp's enum scmp_compare: 1 NE ... 7 MASKED_EQ */
};

struct cr_seccomp_rule_spec {
	const char *const *names; /* syscalls this architecture does not have are skipped */
	size_t n_names;
	uint32_t action;
	const struct cr_seccomp_arg_spec *args; /* all must hold; the same index twice: either */
	size_t n_args;
};

struct cr_seccomp_spec {
	uint32_t default_action;
	const struct cr_seccomp_rule_spec *rules;
	size_t n_rules;
};

/* Compile @s into @ret (its insns malloc'ed). 0, or -errno with @msg naming the syscall. */
int cr_seccomp_compile_spec(const struct cr_seccomp_spec *s, struct cr_bpf_program *ret,
			    char *msg, size_t size);
