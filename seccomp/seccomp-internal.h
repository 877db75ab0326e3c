/* SPDX-License-Identifier: MIT */
/* Inside the seccomp module: the syscall groups, the rule lists compiled from them, the compiler
 * (libseccomp, owned here), the profile parser, the cache and the programs generated at build
 * time. Shared by the module's files, its build-time generator (seccomp/gen/), the unit tests
 * and the benchmark. */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The native architecture's name, as reported and as the generated programs are labelled. */
#if defined(__x86_64__)
#define CR_SECCOMP_NATIVE_ARCH "x86_64"
#elif defined(__aarch64__)
#define CR_SECCOMP_NATIVE_ARCH "aarch64"
#else
#define CR_SECCOMP_NATIVE_ARCH NULL /* no built-in program: only --seccomp-profile or off */
#endif

/* Actions are the kernel's own SECCOMP_RET_* values (linux/seccomp.h), which libseccomp's
 * SCMP_ACT_* share. */
#define CR_SC_ALLOW	   0x7fff0000u
#define CR_SC_LOG	   0x7ffc0000u
#define CR_SC_ERRNO(e)	   (0x00050000u | ((uint32_t)(e)&0xffffu))
#define CR_SC_KILL_PROCESS 0x80000000u
#define CR_SC_IS_ERRNO(a)  (((a)&0xffff0000u) == 0x00050000u)

/* When a rule applies. Each becomes one or more libseccomp rules (filter.c). */
enum cr_sc_cond {
	CR_SC_ALWAYS,
	CR_SC_CLONE_NS,	   /* clone: flags (arg 0) hold a CLONE_NEW* bit */
	CR_SC_UNSHARE_NS,  /* unshare: flags (arg 0) hold a CLONE_NEW* bit, CLONE_NEWTIME too */
	CR_SC_NO_THREAD,   /* clone: flags (arg 0) lack CLONE_THREAD: a new process */
	CR_SC_TTY_INJECT,  /* ioctl: request (arg 1, low 32 bits) is TIOCSTI or TIOCLINUX */
	CR_SC_TIOCSETD,	   /* ioctl: request (arg 1, low 32 bits) is TIOCSETD */
	CR_SC_PERSONALITY, /* personality: arg 0 (low 32 bits) is neither 0 nor 0xffffffff */
	CR_SC_AF_VSOCK,	   /* socket: the domain (arg 0, low 32 bits) is AF_VSOCK */
	CR_SC_SETID_A1,	   /* a mode (arg 1) with S_ISUID or S_ISGID: chmod, creat, mknod */
	CR_SC_SETID_A2,	   /* the same in arg 2: fchmodat, fchmodat2, mknodat */
	CR_SC_SETID_A3,	   /* the same in arg 3 */
	CR_SC_SETID_OPEN_A2, /* open: the mode (arg 2) with S_ISUID or S_ISGID when it counts,
			      * that is with O_CREAT or O_TMPFILE in the flags (arg 1) */
	CR_SC_SETID_OPEN_A3, /* the same for openat: flags arg 2, mode arg 3 */
	_CR_SC_COND_MAX,
};

/* One member of a group: a syscall, when it is refused, and the errno its group's refusal
 * gives (EPERM; ENOSYS for clone3, so that libc falls back to clone). */
struct cr_sc_entry {
	const char *name;
	enum cr_sc_cond cond;
	int err;
};

struct cr_sc_group {
	const char *name; /* "@mount" */
	const char *why;  /* one line: what it covers, and why it is refused */
	const struct cr_sc_entry *entries;   /* ends with a NULL name; may be NULL */
	const char *const *includes;	     /* other groups, NULL-terminated; may be NULL */
};

extern const struct cr_sc_group cr_sc_groups[];
extern const size_t cr_sc_n_groups;

/* The group named @name (with its '@'), or NULL. */
const struct cr_sc_group *cr_sc_group_find(const char *name);
/* Call @fn for every entry of @g and of the groups it includes, depth first, in order. */
int cr_sc_group_walk(const struct cr_sc_group *g,
		     int (*fn)(const struct cr_sc_entry *e, void *userdata), void *userdata);
/* Is entry @e (a pointer into the groups' own arrays) a member of @g or of a group it includes?
 * False for a NULL @g. */
bool cr_sc_group_has(const struct cr_sc_group *g, const struct cr_sc_entry *e);

/* A compiled rule: the syscall (by name, resolved by the compiler), its condition, its action. */
struct cr_sc_rule {
	const char *name;
	enum cr_sc_cond cond;
	uint32_t action;
};

struct cr_sc_ruleset {
	uint32_t default_action;
	struct cr_sc_rule *rules;
	size_t n_rules;
	char **owned; /* names the rules point to that are not the groups' own */
	size_t n_owned;
};

void cr_sc_ruleset_done(struct cr_sc_ruleset *rs);
/* Append the entries of group @g refused by their own errno (the built-in refusal). */
int cr_sc_ruleset_add_group(struct cr_sc_ruleset *rs, const struct cr_sc_group *g);
/* The same, leaving out the members of @except (NULL: none): "@default" without "@ptrace" is
 * the --ptrace=sandbox program. */
int cr_sc_ruleset_add_group_except(struct cr_sc_ruleset *rs, const struct cr_sc_group *g,
				   const struct cr_sc_group *except);

/* A BPF program as the kernel takes it. */
struct cr_bpf {
	struct sock_filter *insns;
	size_t len;
};

void cr_bpf_done(struct cr_bpf *bpf);

/* Is @name a syscall libseccomp knows (on any architecture)? */
bool cr_sc_syscall_known(const char *name);
/* The number of syscall @name on @arch; negative if @arch has no such syscall. */
int cr_sc_syscall_nr(const char *name, const char *arch);
/* libseccomp's name for the architecture @arch ("x86_64", "aarch64"): its SCMP_ARCH_ token, or
 * 0 if unknown. */
uint32_t cr_sc_arch_token(const char *arch);
/* The AUDIT_ARCH_ value a program for @arch checks first; 0 if unknown. */
uint32_t cr_sc_audit_arch(const char *arch);

/* Compile @rs for @arch into a BPF program. Syscalls that do not exist on @arch are skipped;
 * every other architecture's syscalls (i386 and x32 on x86_64) are refused with EPERM. Returns
 * 0 or -errno (-EINVAL: a name libseccomp does not know). */
int cr_sc_compile(const struct cr_sc_ruleset *rs, const char *arch, struct cr_bpf *ret);
/* Compile @rs for the native architecture with libseccomp and load it into the calling thread
 * (seccomp_load): what a launcher without precompiled programs does at spawn. Benchmark only. */
int cr_sc_compile_and_load(const struct cr_sc_ruleset *rs);
/* libseccomp's version, "2.5.4". */
const char *cr_sc_libseccomp_version(void);

/* A user profile (profile.c). @data is the file's content, @path names it in messages. On a
 * bad profile returns -EINVAL with "PATH:LINE: reason" in @msg. */
int cr_sc_profile_parse(const char *data, size_t size, const char *path, struct cr_sc_ruleset *ret,
			char *msg, size_t msg_size);
/* The largest profile file read. */
#define CR_SC_PROFILE_MAX_SIZE (1024 * 1024)

/* The compiled-program cache (cache.c): $XDG_CACHE_HOME/corral/seccomp, or ~/.cache/...
 * @key is a SHA-256 digest. Load returns 0 on a hit (the entry's size and digest check out),
 * -ENOENT on a miss, or another -errno; store writes atomically. Neither may be fatal. */
int cr_sc_cache_dir(char *buf, size_t size);
int cr_sc_cache_load(const char *dir, const uint8_t key[32], struct cr_bpf *ret);
int cr_sc_cache_store(const char *dir, const uint8_t key[32], const struct cr_bpf *bpf);

/* SHA-256 (libmd). */
void cr_sc_sha256(const void *data, size_t size, uint8_t ret[32]);

/* The programs generated at build time (seccomp-programs.c, written by seccomp/gen/gen.c). */
struct cr_sc_builtin {
	const char *profile;	/* "default", "strict", "spawn", "default-ptrace", "strict-ptrace" */
	const char *arch;	/* "x86_64", "aarch64" */
	uint32_t audit_arch;
	size_t n_syscalls;	/* syscalls with a rule on this architecture */
	const struct sock_filter *insns;
	size_t len;
};

extern const struct cr_sc_builtin cr_sc_builtins[];
extern const size_t cr_sc_n_builtins;

/* The built-in program @profile for @arch, or NULL. */
const struct cr_sc_builtin *cr_sc_builtin_find(const char *profile, const char *arch);
