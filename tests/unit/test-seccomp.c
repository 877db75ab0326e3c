/* SPDX-License-Identifier: MIT */
/* Unit tests for seccomp/: the programs generated at build time, checked instruction by
 * instruction with a small BPF interpreter for both architectures (arch check first, exactly the
 * syscalls of the groups, the argument conditions, other ABIs refused); the native program
 * installed for real in forked children (every denied syscall fails with EPERM, ordinary ones
 * and threads still work, and the same calls without the filter do not fail with EPERM); user
 * profiles (parsing, errors with line numbers, compilation, the cache); and the generator's
 * reproducibility. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/policy/policy-build.h"
#include "launcher/policy/cli.h"
#include "launcher/base/hex.h"
#include "launcher/base/macro.h"
#include "launcher/policy/policy.h"
#include "seccomp/seccomp-internal.h"
#include "seccomp/seccomp.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#define NS_FLAGS                                                                                   \
	(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |             \
	 CLONE_NEWPID | CLONE_NEWNET)
/* What glibc's pthread_create passes to clone. */
#define THREAD_FLAGS                                                                               \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |         \
	 CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

static const char *const arches[] = { "x86_64", "aarch64" };

/* ---- a classic BPF interpreter, enough for libseccomp's output ---- */

struct sim {
	uint32_t ret;
	bool read_args; /* the verdict depended on the arguments */
	bool ok;	/* the program ran to a return without a fault */
};

static struct sim run_bpf(const struct sock_filter *f, size_t len, const struct seccomp_data *d)
{
	struct sim s = {};
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = {};

	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *i = &f[pc];
		uint32_t k = i->k;

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (k % 4 || k + 4 > sizeof(*d))
				return s;
			memcpy(&a, (const char *)d + k, 4);
			if (k >= offsetof(struct seccomp_data, args))
				s.read_args = true;
			break;
		case BPF_LD | BPF_MEM:
			if (k >= BPF_MEMWORDS)
				return s;
			a = mem[k];
			break;
		case BPF_ST:
			if (k >= BPF_MEMWORDS)
				return s;
			mem[k] = a;
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= k;
			break;
		case BPF_MISC | BPF_TAX:
			x = a;
			break;
		case BPF_MISC | BPF_TXA:
			a = x;
			break;
		case BPF_JMP | BPF_JA:
			pc += k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			pc += a > k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += a & k ? i->jt : i->jf;
			break;
		case BPF_RET | BPF_K:
			s.ret = k;
			s.ok = true;
			return s;
		default:
			print_error("unknown BPF opcode 0x%x at %zu\n", i->code, pc);
			return s;
		}
	}
	return s; /* ran off the end: a fault */
}

static const struct cr_sc_builtin *builtin(const char *profile, const char *arch)
{
	const struct cr_sc_builtin *b = cr_sc_builtin_find(profile, arch);

	assert_non_null(b);
	return b;
}

static uint32_t verdict(const struct cr_sc_builtin *b, int nr, uint64_t a0, uint64_t a1)
{
	struct seccomp_data d = { .nr = nr, .arch = b->audit_arch, .args = { a0, a1 } };
	struct sim s = run_bpf(b->insns, b->len, &d);

	assert_true(s.ok);
	return s.ret;
}

/* The verdict for syscall @nr with @value in argument @arg, the others 0. */
static uint32_t verdict_arg(const struct cr_sc_builtin *b, int nr, unsigned arg, uint64_t value)
{
	struct seccomp_data d = { .nr = nr, .arch = b->audit_arch };
	struct sim s;

	d.args[arg] = value;
	s = run_bpf(b->insns, b->len, &d);
	assert_true(s.ok);
	return s.ret;
}

static int nr_of(const char *name, const char *arch)
{
	int nr = cr_sc_syscall_nr(name, arch);

	if (nr < 0)
		print_error("%s has no syscall %s\n", arch, name);
	assert_true(nr >= 0);
	return nr;
}

/* ---- the generated programs ---- */

static void test_builtins_present(void **state)
{
	static const char *const profiles[] = { "default", "strict", "spawn", "default-ptrace",
						"strict-ptrace", "setid", "basic" };

	assert_int_equal(cr_sc_n_builtins, 14);
	for (size_t p = 0; p < ELEMENTSOF(profiles); p++)
		for (size_t a = 0; a < ELEMENTSOF(arches); a++) {
			const struct cr_sc_builtin *b = builtin(profiles[p], arches[a]);

			assert_int_equal(b->audit_arch, cr_sc_audit_arch(arches[a]));
			assert_true(b->len > 4 && b->len <= BPF_MAXINSNS);
		}
	assert_null(cr_sc_builtin_find("default", "riscv64"));
	assert_int_equal(cr_seccomp_builtin_syscalls("default"),
			 cr_sc_builtin_find("default", CR_SECCOMP_NATIVE_ARCH)->n_syscalls);
}

/* Structure: the architecture is checked first, every jump lands inside the program, and it
 * ends in returns. */
static void test_builtins_structure(void **state)
{
	for (size_t i = 0; i < cr_sc_n_builtins; i++) {
		const struct cr_sc_builtin *b = &cr_sc_builtins[i];

		assert_int_equal(b->insns[0].code, BPF_LD | BPF_W | BPF_ABS);
		assert_int_equal(b->insns[0].k, offsetof(struct seccomp_data, arch));
		assert_int_equal(b->insns[1].code, BPF_JMP | BPF_JEQ | BPF_K);
		assert_int_equal(b->insns[1].k, b->audit_arch);
		assert_int_equal(b->insns[1].jt, 0);
		assert_int_equal(b->insns[2].code, BPF_LD | BPF_W | BPF_ABS);
		assert_int_equal(b->insns[2].k, offsetof(struct seccomp_data, nr));
		for (size_t pc = 0; pc < b->len; pc++) {
			const struct sock_filter *f = &b->insns[pc];

			if (BPF_CLASS(f->code) != BPF_JMP)
				continue;
			if (BPF_OP(f->code) == BPF_JA)
				assert_true(pc + 1 + f->k < b->len);
			else
				assert_true(pc + 1 + f->jt < b->len && pc + 1 + f->jf < b->len);
		}
		assert_int_equal(b->insns[b->len - 1].code, BPF_RET | BPF_K);
	}
}

struct expected {
	const char *arch;
	bool has[1024];
	size_t n;
};

static int expect_entry(const struct cr_sc_entry *e, void *userdata)
{
	struct expected *x = userdata;
	int nr = cr_sc_syscall_nr(e->name, x->arch);

	if (nr < 0)
		return 0; /* not on this architecture */
	assert_true(nr < 1024);
	if (!x->has[nr])
		x->n++;
	x->has[nr] = true;
	return 0;
}

/* Exactly the syscalls of the group have a rule: the verdict is not ALLOW with zero arguments,
 * or it depends on them. As many as the generator counted, on each architecture. */
static void check_rule_set(const char *profile, const char *arch)
{
	const struct cr_sc_builtin *b = builtin(profile, arch);
	struct expected x = { .arch = arch };
	char group[32];
	size_t n = 0;

	(void)snprintf(group, sizeof(group), "@%s", profile);
	assert_int_equal(cr_sc_group_walk(cr_sc_group_find(group), expect_entry, &x), 0);
	for (int nr = 0; nr < 1024; nr++) {
		struct seccomp_data d = { .nr = nr, .arch = b->audit_arch };
		struct sim s = run_bpf(b->insns, b->len, &d);
		bool rule = s.ret != CR_SC_ALLOW || s.read_args;

		assert_true(s.ok);
		if (rule != x.has[nr])
			print_error("%s/%s: syscall %d: rule %d, expected %d\n", profile, arch, nr,
				    rule, x.has[nr]);
		assert_int_equal(rule, x.has[nr]);
		n += rule;
	}
	assert_int_equal(n, x.n);
	assert_int_equal(b->n_syscalls, x.n);
}

static void test_builtins_rule_sets(void **state)
{
	for (size_t a = 0; a < ELEMENTSOF(arches); a++) {
		check_rule_set("default", arches[a]);
		check_rule_set("strict", arches[a]);
		check_rule_set("spawn", arches[a]);
		check_rule_set("setid", arches[a]);
	}
	/* aarch64 lacks only x86's own syscalls (fork, vfork, iopl, ioperm, umount2's old twin,
	 * the a.out and module-era ones): the same rules where both have the syscall. */
	assert_true(builtin("default", "aarch64")->n_syscalls >= 45);
	assert_true(builtin("default", "x86_64")->n_syscalls >= 50);
	assert_true(builtin("strict", "x86_64")->n_syscalls > builtin("default", "x86_64")->n_syscalls);
}

/* The verdict of every entry, under its condition, on both architectures. */
static void check_entry(const struct cr_sc_builtin *b, const struct cr_sc_entry *e)
{
	int nr = cr_sc_syscall_nr(e->name, b->arch);
	uint32_t deny = CR_SC_ERRNO(e->err);

	if (nr < 0)
		return;
	switch (e->cond) {
	case CR_SC_ALWAYS:
		assert_int_equal(verdict(b, nr, 0, 0), deny);
		assert_int_equal(verdict(b, nr, ~0ull, ~0ull), deny);
		break;
	case CR_SC_CLONE_NS:
	case CR_SC_UNSHARE_NS:
		for (int bit = 0; bit < 32; bit++) {
			uint64_t flag = 1ull << bit;
			bool ns = (flag & NS_FLAGS) ||
				  (e->cond == CR_SC_UNSHARE_NS && flag == CLONE_NEWTIME);

			assert_int_equal(verdict(b, nr, flag, 0), ns ? deny : CR_SC_ALLOW);
			/* Garbage in the high word changes nothing. */
			assert_int_equal(verdict(b, nr, flag | 0xffffffff00000000ull, 0),
					 ns ? deny : CR_SC_ALLOW);
		}
		assert_int_equal(verdict(b, nr, THREAD_FLAGS, 0), CR_SC_ALLOW);
		assert_int_equal(verdict(b, nr, THREAD_FLAGS | CLONE_NEWUSER, 0), deny);
		break;
	case CR_SC_NO_THREAD:
		assert_int_equal(verdict(b, nr, SIGCHLD, 0), deny);
		assert_int_equal(verdict(b, nr, CLONE_VM | CLONE_VFORK | SIGCHLD, 0), deny);
		assert_int_equal(verdict(b, nr, THREAD_FLAGS, 0), CR_SC_ALLOW);
		break;
	case CR_SC_TTY_INJECT:
		assert_int_equal(verdict(b, nr, 0, TIOCSTI), deny);
		assert_int_equal(verdict(b, nr, 0, TIOCLINUX), deny);
		/* The kernel reads the request as 32 bits: the high word must not help. */
		assert_int_equal(verdict(b, nr, 0, 0x100000000ull | TIOCSTI), deny);
		assert_int_equal(verdict(b, nr, 0, 0xffffffff00000000ull | TIOCLINUX), deny);
		assert_int_equal(verdict(b, nr, 0, TCGETS), CR_SC_ALLOW);
		assert_int_equal(verdict(b, nr, 0, TIOCSWINSZ), CR_SC_ALLOW);
		assert_int_equal(verdict(b, nr, 0, FIONREAD), CR_SC_ALLOW);
		break;
	case CR_SC_TIOCSETD:
		assert_int_equal(verdict(b, nr, 0, TIOCSETD), deny);
		assert_int_equal(verdict(b, nr, 0, 0x700000000ull | TIOCSETD), deny);
		assert_int_equal(verdict(b, nr, 0, TIOCGETD), CR_SC_ALLOW);
		break;
	case CR_SC_AF_VSOCK:
		assert_int_equal(verdict(b, nr, AF_VSOCK, SOCK_STREAM), deny);
		assert_int_equal(verdict(b, nr, 0x100000000ull | AF_VSOCK, SOCK_DGRAM), deny);
		assert_int_equal(verdict(b, nr, AF_INET, SOCK_STREAM), CR_SC_ALLOW);
		assert_int_equal(verdict(b, nr, AF_UNIX, SOCK_STREAM), CR_SC_ALLOW);
		assert_int_equal(verdict(b, nr, AF_NETLINK, SOCK_RAW), CR_SC_ALLOW);
		break;
	case CR_SC_PERSONALITY: {
		static const uint64_t denied[] = { 8, 0x0040000, 0x0400000, 0x0020000, 0x80000000,
						   0xfffffffe, 0x7fffffff, 0x10000000, 1,
						   0x1fffffffeull, 0xdeadbeef };

		assert_int_equal(verdict(b, nr, 0, 0), CR_SC_ALLOW);
		assert_int_equal(verdict(b, nr, 0xffffffff, 0), CR_SC_ALLOW);
		/* The kernel truncates to 32 bits: these are personality(0) and the query. */
		assert_int_equal(verdict(b, nr, 0x100000000ull, 0), CR_SC_ALLOW);
		assert_int_equal(verdict(b, nr, 0x1ffffffffull, 0), CR_SC_ALLOW);
		for (size_t i = 0; i < ELEMENTSOF(denied); i++)
			assert_int_equal(verdict(b, nr, denied[i], 0), deny);
		for (int bit = 0; bit < 32; bit++) {
			assert_int_equal(verdict(b, nr, 1ull << bit, 0), deny);
			assert_int_equal(verdict(b, nr, 0xffffffffu & ~(1u << bit), 0), deny);
		}
		break;
	}
	case CR_SC_SETID_A1:
	case CR_SC_SETID_A2:
	case CR_SC_SETID_A3: {
		static const uint64_t denied[] = { 04755, 02755, 06777, S_ISUID, S_ISGID,
						   0xffff0000ull | 04000 };
		static const uint64_t allowed[] = { 0, 0755, 0644, 01777, 0777, 0xffff0000ull };
		unsigned arg = e->cond - CR_SC_SETID_A1 + 1;

		for (size_t i = 0; i < ELEMENTSOF(denied); i++)
			assert_int_equal(verdict_arg(b, nr, arg, denied[i]), deny);
		for (size_t i = 0; i < ELEMENTSOF(allowed); i++)
			assert_int_equal(verdict_arg(b, nr, arg, allowed[i]), CR_SC_ALLOW);
		/* The other arguments are not the mode. */
		assert_int_equal(verdict_arg(b, nr, arg == 1 ? 2 : 1, 04755), CR_SC_ALLOW);
		break;
	}
	case CR_SC_SETID_OPEN_A2:
	case CR_SC_SETID_OPEN_A3: {
		unsigned fl = e->cond == CR_SC_SETID_OPEN_A2 ? 1 : 2;
		struct seccomp_data d = { .nr = nr, .arch = b->audit_arch };
		static const struct {
			uint64_t flags, mode;
			bool denied;
		} cases[] = {
			{ O_CREAT | O_WRONLY, 04755, true },   { O_CREAT, 02755, true },
			{ O_TMPFILE | O_RDWR, 04700, true },   { O_CREAT | O_EXCL, 06777, true },
			{ 0xffff0000ull | O_CREAT, 04000, true },
			{ O_CREAT | O_WRONLY, 0755, false },   { O_CREAT, 01777, false },
			{ O_RDONLY, 04755, false },	       { O_WRONLY | O_APPEND, 06777, false },
			{ O_DIRECTORY, 02000, false },	       { O_TMPFILE | O_RDWR, 0600, false },
		};

		for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
			struct sim s;

			d.args[fl] = cases[i].flags;
			d.args[fl + 1] = cases[i].mode;
			s = run_bpf(b->insns, b->len, &d);
			assert_true(s.ok);
			assert_int_equal(s.ret, cases[i].denied ? deny : CR_SC_ALLOW);
		}
		break;
	}
	default:
		fail();
	}
}

struct check_ctx {
	const struct cr_sc_builtin *b;
};

static int check_entry_cb(const struct cr_sc_entry *e, void *userdata)
{
	check_entry(((struct check_ctx *)userdata)->b, e);
	return 0;
}

static void test_builtins_verdicts(void **state)
{
	static const char *const profiles[] = { "default", "strict", "spawn", "setid", "basic" };

	for (size_t p = 0; p < ELEMENTSOF(profiles); p++)
		for (size_t a = 0; a < ELEMENTSOF(arches); a++) {
			struct check_ctx c = { builtin(profiles[p], arches[a]) };
			char group[32];

			(void)snprintf(group, sizeof(group), "@%s", profiles[p]);
			assert_int_equal(cr_sc_group_walk(cr_sc_group_find(group), check_entry_cb, &c),
					 0);
		}
	/* clone3 gets ENOSYS, so that libc falls back to clone, whose flags the filter sees. */
	assert_int_equal(verdict(builtin("default", "x86_64"), nr_of("clone3", "x86_64"), 0, 0),
			 CR_SC_ERRNO(ENOSYS));
	assert_int_equal(verdict(builtin("spawn", "aarch64"), nr_of("clone3", "aarch64"), 0, 0),
			 CR_SC_ERRNO(ENOSYS));
	/* spawn: fork and vfork on x86_64 (aarch64 has only clone). */
	assert_int_equal(verdict(builtin("spawn", "x86_64"), nr_of("fork", "x86_64"), 0, 0),
			 CR_SC_ERRNO(EPERM));
	assert_int_equal(verdict(builtin("spawn", "x86_64"), nr_of("vfork", "x86_64"), 0, 0),
			 CR_SC_ERRNO(EPERM));
	/* ...which the default allows. */
	assert_int_equal(verdict(builtin("default", "x86_64"), nr_of("fork", "x86_64"), 0, 0),
			 CR_SC_ALLOW);
	assert_int_equal(verdict(builtin("default", "x86_64"), nr_of("clone", "x86_64"), SIGCHLD, 0),
			 CR_SC_ALLOW);
}

/* basic (the bwrap personality's hardened mode): what clients need passes, the rest does not. */
static void test_builtin_basic(void **state)
{
	static const char *const allowed[] = { "unshare", "mount", "ptrace", "pivot_root", "setns",
					       "open_tree", "perf_event_open" };
	static const char *const refused[] = { "io_uring_setup", "keyctl", "bpf", "init_module",
					       "kexec_load", "userfaultfd", "settimeofday" };

	for (size_t a = 0; a < ELEMENTSOF(arches); a++) {
		const struct cr_sc_builtin *b = builtin("basic", arches[a]);

		for (size_t i = 0; i < ELEMENTSOF(allowed); i++)
			assert_int_equal(verdict(b, nr_of(allowed[i], arches[a]), CLONE_NEWUSER, 0),
					 CR_SC_ALLOW);
		for (size_t i = 0; i < ELEMENTSOF(refused); i++)
			assert_int_equal(verdict(b, nr_of(refused[i], arches[a]), 0, 0),
					 CR_SC_ERRNO(EPERM));
		assert_int_equal(verdict(b, nr_of("ioctl", arches[a]), 0, TIOCSTI),
				 CR_SC_ERRNO(EPERM));
	}
}

/* --ptrace=sandbox's programs: the same verdict as default's and strict's for every syscall
 * and argument, except ptrace, process_vm_readv and process_vm_writev, which they allow; the
 * rest of @debug (pidfd_getfd, perf_event_open) stays refused. */
static void test_builtins_ptrace(void **state)
{
	static const char *const bases[] = { "default", "strict" };
	static const char *const freed[] = { "ptrace", "process_vm_readv", "process_vm_writev" };

	for (size_t a = 0; a < ELEMENTSOF(arches); a++)
		for (size_t i = 0; i < ELEMENTSOF(bases); i++) {
			const struct cr_sc_builtin *b = builtin(bases[i], arches[a]);
			char name[32];
			const struct cr_sc_builtin *pt;

			(void)snprintf(name, sizeof(name), "%s-ptrace", bases[i]);
			pt = builtin(name, arches[a]);
			assert_int_equal(pt->n_syscalls, b->n_syscalls - ELEMENTSOF(freed));
			for (int nr = 0; nr < 1024; nr++) {
				bool is_freed = false;

				for (size_t f = 0; f < ELEMENTSOF(freed); f++)
					is_freed |= nr == cr_sc_syscall_nr(freed[f], arches[a]);
				if (is_freed) {
					assert_int_equal(verdict(b, nr, 0, 0), CR_SC_ERRNO(EPERM));
					assert_int_equal(verdict(pt, nr, 0, 0), CR_SC_ALLOW);
					assert_int_equal(verdict(pt, nr, ~0ull, ~0ull), CR_SC_ALLOW);
					continue;
				}
				assert_int_equal(verdict(pt, nr, 0, 0), verdict(b, nr, 0, 0));
				assert_int_equal(verdict(pt, nr, ~0ull, ~0ull),
						 verdict(b, nr, ~0ull, ~0ull));
				assert_int_equal(verdict(pt, nr, SIGCHLD, TIOCSTI),
						 verdict(b, nr, SIGCHLD, TIOCSTI));
			}
			assert_int_equal(verdict(pt, nr_of("pidfd_getfd", arches[a]), 0, 0),
					 CR_SC_ERRNO(EPERM));
			assert_int_equal(verdict(pt, nr_of("perf_event_open", arches[a]), 0, 0),
					 CR_SC_ERRNO(EPERM));
		}
}

/* Ordinary syscalls pass, on both architectures, in default and strict, without the filter
 * looking at their arguments. (socket is ordinary too, but @vsock reads its domain: the
 * AF_VSOCK verdicts check that every other domain passes.) */
static void test_builtins_allowlist(void **state)
{
	static const char *const ordinary[] = {
		"read", "write", "openat", "close", "mmap", "mprotect", "munmap", "brk", "execve",
		"execveat", "wait4", "exit_group", "futex", "getpid", "gettid", "connect",
		"bind", "listen", "accept4", "sendto", "recvfrom", "pipe2", "dup3", "fcntl", "statx",
		"newfstatat", "getdents64", "renameat2", "unlinkat", "mkdirat", "chdir", "fchdir",
		"getcwd", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "prctl", "seccomp",
		"getrandom", "clock_gettime", "clock_nanosleep", "nanosleep", "set_tid_address",
		"set_robust_list", "rseq", "prlimit64", "sched_getaffinity", "sched_yield",
		"madvise", "mremap", "memfd_create", "pidfd_open", "pidfd_send_signal", "kill",
		"tgkill", "epoll_create1", "epoll_ctl", "epoll_pwait", "ppoll", "pselect6",
		"eventfd2", "timerfd_create", "signalfd4", "inotify_init1", "inotify_add_watch",
		"faccessat", "faccessat2", "readlinkat", "symlinkat", "linkat", "fchmodat",
		"fchownat", "utimensat", "ftruncate", "fallocate", "fsync", "fdatasync", "lseek",
		"pread64", "pwrite64", "readv", "writev", "copy_file_range", "sendfile", "splice",
		"tee", "uname", "sysinfo", "getrusage", "times", "umask", "setsid", "setpgid",
		"getuid", "geteuid", "setresuid", "capget", "landlock_create_ruleset",
		"landlock_restrict_self", "mincore", "msync", "shmget", "semget", "msgget",
		"mq_open", "io_setup", "io_submit", "flock", "sync_file_range", "chroot",
		"sethostname", "mknodat",
	};

	for (size_t a = 0; a < ELEMENTSOF(arches); a++) {
		const struct cr_sc_builtin *p[] = { builtin("default", arches[a]),
						    builtin("strict", arches[a]) };

		for (size_t j = 0; j < ELEMENTSOF(p); j++)
			for (size_t i = 0; i < ELEMENTSOF(ordinary); i++) {
				int nr = nr_of(ordinary[i], arches[a]);
				struct seccomp_data d = { .nr = nr, .arch = p[j]->audit_arch };
				struct sim s = run_bpf(p[j]->insns, p[j]->len, &d);

				if (s.ret != CR_SC_ALLOW || s.read_args)
					print_error("%s %s: %s refused\n", p[j]->profile, arches[a],
						    ordinary[i]);
				assert_true(s.ok && s.ret == CR_SC_ALLOW && !s.read_args);
			}
	}
}

/* Syscalls of any other ABI are refused: i386 (int 0x80) and x32 on x86_64, arm on aarch64. */
static void test_builtins_other_abis(void **state)
{
	static const uint32_t foreign[] = { AUDIT_ARCH_I386, AUDIT_ARCH_ARM, AUDIT_ARCH_X86_64,
					    AUDIT_ARCH_AARCH64, AUDIT_ARCH_RISCV64, 0 };

	for (size_t i = 0; i < cr_sc_n_builtins; i++) {
		const struct cr_sc_builtin *b = &cr_sc_builtins[i];

		for (size_t f = 0; f < ELEMENTSOF(foreign); f++)
			for (int nr = 0; nr < 512; nr += 7) {
				struct seccomp_data d = { .nr = nr, .arch = foreign[f] };
				struct sim s = run_bpf(b->insns, b->len, &d);

				assert_true(s.ok);
				if (foreign[f] != b->audit_arch)
					assert_int_equal(s.ret, CR_SC_ERRNO(EPERM));
			}
	}
	/* x32: the same AUDIT_ARCH_X86_64 with bit 30 set in the number. */
	for (int nr = 0; nr < 600; nr++) {
		const struct cr_sc_builtin *b = builtin("default", "x86_64");
		struct seccomp_data d = { .nr = 0x40000000 | nr, .arch = AUDIT_ARCH_X86_64 };

		assert_int_equal(run_bpf(b->insns, b->len, &d).ret, CR_SC_ERRNO(EPERM));
	}
}

/* The user-profile path and the build-time path are one compiler: a profile that only names
 * its base compiles to the very bytes generated at build time. */
static void test_profile_base_matches_builtin(void **state)
{
	static const char *const bases[] = { "default", "strict" };

	for (size_t i = 0; i < ELEMENTSOF(bases); i++) {
		struct cr_sc_ruleset rs = {};
		struct cr_bpf bpf = {};
		char text[64], msg[256] = "";
		const struct cr_sc_builtin *b;

		(void)snprintf(text, sizeof(text), "[profile]\nbase = %s\n", bases[i]);
		assert_int_equal(cr_sc_profile_parse(text, strlen(text), "p.ini", &rs, msg,
						     sizeof(msg)),
				 0);
		for (size_t a = 0; a < ELEMENTSOF(arches); a++) {
			b = builtin(bases[i], arches[a]);
			assert_int_equal(cr_sc_compile(&rs, arches[a], &bpf), 0);
			assert_int_equal(bpf.len, b->len);
			assert_memory_equal(bpf.insns, b->insns, b->len * sizeof(*b->insns));
			cr_bpf_done(&bpf);
		}
		cr_sc_ruleset_done(&rs);
	}
}

/* ---- the native program, installed for real ---- */

struct live {
	const char *name;
	uint64_t a[6];
	bool unpriv_eperm; /* unfiltered, the kernel itself answers EPERM without privileges */
};

/* Every syscall of @default with harmless arguments: invalid flags, bad pointers (1) or bad
 * descriptors (-1), so that unfiltered it fails early (or, at worst, acts on the child alone:
 * personality, vhangup without a terminal). */
#define L(n, ...)  { .name = n, .a = { __VA_ARGS__ } }
#define LP(n, ...) { .name = n, .a = { __VA_ARGS__ }, .unpriv_eperm = true }

/* clang-format off */
static const struct live live_default[] = {
	L("ptrace", -1ull),
	L("process_vm_readv", 0, 0, 0, 0, 0, 1),
	L("process_vm_writev", 0, 0, 0, 0, 0, 1),
	L("pidfd_getfd", -1ull, 0, 0),
	L("perf_event_open", 1, 0, -1ull, -1ull, 0),
	L("mount", 1, 1, 1, 0, 0),
	L("umount2", 1, ~0u),
	LP("pivot_root", 1, 1),
	L("move_mount", -1ull, 1, -1ull, 1, ~0u),
	L("open_tree", -1ull, 1, ~0u),
	LP("fsopen", 1, ~0u),
	L("fsconfig", -1ull, ~0u, 0, 0, 0),
	LP("fsmount", -1ull, ~0u, 0),
	LP("fspick", -1ull, 1, ~0u),
	L("mount_setattr", -1ull, 1, ~0u, 0, 0),
	L("unshare", CLONE_NEWUSER | 1),
	L("clone", CLONE_NEWUSER | CLONE_THREAD),
	L("clone3", 0, 0),
	L("setns", -1ull, 0),
	L("keyctl", -1ull),
	L("add_key", 1, 1, 0, 0, 0),
	L("request_key", 1, 1, 1, 0),
	LP("bpf", -1ull, 0, 0),
	LP("io_uring_setup", 0, 1),
	L("io_uring_enter", -1ull, 0, 0, 0, 0, 0),
	L("io_uring_register", -1ull, 0, 0, 0),
	LP("userfaultfd", ~0u),
	LP("open_by_handle_at", -1ull, 1, 0),
	L("name_to_handle_at", -1ull, 1, 0, 0, ~0u),
	LP("kexec_load", 0, 0, 0, 0xdeadbeef),
	LP("kexec_file_load", -1ull, -1ull, 0, 0, ~0ul),
	LP("reboot", 0, 0, 0, 0),
	LP("init_module", 0, 0, 1),
	LP("finit_module", -1ull, 1, ~0u),
	LP("delete_module", 1, 0),
	L("create_module", 1, 0),
	L("query_module", 1, 0, 0, 0, 0),
	L("get_kernel_syms", 1),
	L("iopl", 4),
	L("ioperm", 0x10000, 1, 1),
	LP("swapon", 1, 0),
	LP("swapoff", 1),
	L("settimeofday", 1, 0),
	L("clock_settime", CLOCK_REALTIME, 1),
	L("clock_adjtime", CLOCK_REALTIME, 1),
	L("adjtimex", 1),
	LP("acct", 1),
	L("quotactl", ~0u, 1, 0, 0),
	L("quotactl_fd", -1ull, 0, 0, 0),
	LP("syslog", -1ull, 0, 0),
	LP("vhangup"),
	L("uselib", 1),
	L("personality", 0x0040000),
	L("ioctl", -1ull, TIOCSTI, 0),
	L("ioctl", -1ull, TIOCLINUX, 0),
	L("ioctl", -1ull, 0xffffffff00000000ull | TIOCSTI, 0),
	L("socket", AF_VSOCK, SOCK_STREAM, 0),
};

static const struct live live_strict[] = {
	L("_sysctl", 1),
	L("sysfs", -1ull),
	L("ustat", 0, 1),
	LP("lookup_dcookie", 0, 1, 0),
	L("remap_file_pages", 1, 0, 0, 0, ~0u),
	L("kcmp", -1ull, -1ull, 99, 0, 0),
	L("process_madvise", -1ull, 0, 0, 0, 0),
	L("migrate_pages", -1ull, 0, 0, 0),
	L("move_pages", -1ull, 1, 1, 0, 0, ~0u),
	L("modify_ldt", 99, 0, 0),
	L("vmsplice", -1ull, 0, 0, 0),
	LP("fanotify_init", ~0u, 0),
	L("ioctl", -1ull, TIOCSETD, 0),
	L("cachestat", -1ull, 0, 0, 0),
};
/* clang-format on */

static bool in_table(const struct live *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return true;
	return false;
}

struct coverage {
	const struct live *t;
	size_t n;
	bool all;
};

static int cover(const struct cr_sc_entry *e, void *userdata)
{
	struct coverage *c = userdata;

	if (cr_sc_syscall_nr(e->name, CR_SECCOMP_NATIVE_ARCH) >= 0 && !in_table(c->t, c->n, e->name)) {
		print_error("no live test for %s\n", e->name);
		c->all = false;
	}
	return 0;
}

/* Run @t in a forked child, with the programs of @s installed (NULL: none); returns in
 * @ret_err the errno of each call (0 for success). */
static void run_live(const struct cr_seccomp *s, const struct live *t, size_t n, int *ret_err)
{
	int fds[2], status;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		(void)close(fds[0]);
		(void)setsid(); /* no controlling terminal: vhangup() hangs up nothing */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || (s && cr_seccomp_install(s) < 0))
			_exit(100);
		for (size_t i = 0; i < n; i++) {
			int nr = cr_sc_syscall_nr(t[i].name, CR_SECCOMP_NATIVE_ARCH);
			pid_t self = getpid();
			long r = nr < 0 ? -1 : syscall(nr, t[i].a[0], t[i].a[1], t[i].a[2], t[i].a[3],
						       t[i].a[4], t[i].a[5]);
			int err = nr < 0 ? -1 : r < 0 ? errno : 0;

			if (getpid() != self)
				_exit(0); /* a fork that was not refused: the new process stops here */
			if (write(fds[1], &err, sizeof(err)) != sizeof(err))
				_exit(101);
		}
		_exit(0);
	}
	(void)close(fds[1]);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(read(fds[0], &ret_err[i], sizeof(int)), sizeof(int));
	(void)close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void check_live(enum cr_seccomp_mode mode, const struct live *t, size_t n)
{
	struct cr_seccomp *s = NULL;
	int filtered[64], plain[64];
	char msg[256];
	size_t checked = 0;

	assert_true(n <= ELEMENTSOF(filtered));
	assert_int_equal(cr_seccomp_prepare(mode, NULL, true, false, &s, msg, sizeof(msg)), 0);
	run_live(s, t, n, filtered);
	run_live(NULL, t, n, plain);
	for (size_t i = 0; i < n; i++) {
		int want = strcmp(t[i].name, "clone3") == 0 ? ENOSYS : EPERM;

		if (filtered[i] == -1)
			continue; /* not a syscall of this architecture */
		if (filtered[i] != want || plain[i] == want)
			print_error("%s: filtered errno %d (want %d), unfiltered %d\n", t[i].name,
				    filtered[i], want, plain[i]);
		assert_int_equal(filtered[i], want);
		/* Unfiltered, the same call fails otherwise (or succeeds): the filter, not the
		 * kernel, refused it. Without privileges some calls check them first. */
		if (!(t[i].unpriv_eperm && geteuid() != 0))
			assert_int_not_equal(plain[i], want);
		checked++;
	}
	assert_true(checked >= n / 2);
	cr_seccomp_free(s);
}

static void test_live_default_denied(void **state)
{
	struct coverage c = { live_default, ELEMENTSOF(live_default), true };

	assert_int_equal(cr_sc_group_walk(cr_sc_group_find("@default"), cover, &c), 0);
	assert_true(c.all);
	check_live(CR_SECCOMP_DEFAULT, live_default, ELEMENTSOF(live_default));
}

static void test_live_strict_denied(void **state)
{
	struct coverage c = { live_strict, ELEMENTSOF(live_strict), true };
	const char *const strict_only[] = { "@obsolete", "@process-inspect", "@cpu-emulation",
					    "@vmsplice", "@fanotify", "@line-discipline",
					    "@cachestat" };

	for (size_t i = 0; i < ELEMENTSOF(strict_only); i++)
		assert_int_equal(cr_sc_group_walk(cr_sc_group_find(strict_only[i]), cover, &c), 0);
	assert_true(c.all);
	check_live(CR_SECCOMP_STRICT, live_strict, ELEMENTSOF(live_strict));
	/* strict refuses everything default does. */
	check_live(CR_SECCOMP_STRICT, live_default, ELEMENTSOF(live_default));
}

static void *thread_main(void *arg)
{
	return (void *)((uintptr_t)arg + 1);
}

/* What ordinary programs do still works under the filter: 0 or the failing step. */
static int ordinary_work(void)
{
	char buf[16] = "", tmpl[] = "/tmp/corral-seccomp-test.XXXXXX";
	struct termios_like {
		char c[64];
	} t;
	pthread_t th;
	void *ret = NULL;
	int fd, p[2], status;
	pid_t pid;

	if (getpid() <= 0 || syscall(SYS_getppid) <= 0)
		return 1;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0 || write(fd, "x", 1) != 1 || close(fd) < 0)
		return 2;
	if (pipe2(p, O_CLOEXEC) < 0 || write(p[1], "ok", 2) != 2 || read(p[0], buf, 2) != 2)
		return 3;
	if (pthread_create(&th, NULL, thread_main, (void *)41) != 0 || pthread_join(th, &ret) != 0 ||
	    ret != (void *)42)
		return 4;
	pid = fork();
	if (pid == 0)
		_exit(7);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || WEXITSTATUS(status) != 7)
		return 5;
	fd = memfd_create("gpu", MFD_CLOEXEC);
	if (fd < 0)
		return 6;
	(void)close(fd);
	if (personality(0xffffffff) < 0 || personality(0) < 0)
		return 7;
	/* ioctl passes the filter: a bad descriptor is the kernel's answer, not EPERM. */
	if (ioctl(-1, TCGETS, &t) == 0 || errno != EBADF)
		return 8;
	fd = mkstemp(tmpl);
	if (fd < 0 || unlink(tmpl) < 0)
		return 9;
	(void)close(fd);
	/* A plain unshare without a namespace flag is allowed. */
	if (unshare(CLONE_FILES) < 0)
		return 10;
	return 0;
}

static void check_ordinary(enum cr_seccomp_mode mode, bool spawn, int want)
{
	struct cr_seccomp *s = NULL;
	char msg[256];
	int status;
	pid_t pid;

	assert_int_equal(cr_seccomp_prepare(mode, NULL, spawn, false, &s, msg, sizeof(msg)), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || cr_seccomp_install(s) < 0)
			_exit(100);
		_exit(ordinary_work());
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != want)
		print_error("mode %d spawn %d: status 0x%x, want exit %d\n", mode, spawn, status,
			    want);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), want);
	cr_seccomp_free(s);
}

static void test_live_ordinary_work(void **state)
{
	check_ordinary(CR_SECCOMP_DEFAULT, true, 0);
	check_ordinary(CR_SECCOMP_STRICT, true, 0);
	check_ordinary(CR_SECCOMP_OFF, true, 0);
	/* --spawn=no: threads still work (step 4), fork is refused (step 5). */
	check_ordinary(CR_SECCOMP_DEFAULT, false, 5);
	check_ordinary(CR_SECCOMP_OFF, false, 5);
}

/* --spawn=no, for real: fork, vfork and clone without CLONE_THREAD fail with EPERM, clone3 with
 * ENOSYS; a thread is still created. */
static void test_live_spawn(void **state)
{
	static const struct live t[] = {
		L("fork"),
		L("vfork"),
		L("clone", SIGCHLD),
		L("clone3", 0, 0),
	};
	struct cr_seccomp *s = NULL;
	int errs[ELEMENTSOF(t)];
	char msg[256];

	assert_int_equal(cr_seccomp_prepare(CR_SECCOMP_OFF, NULL, false, false, &s, msg, sizeof(msg)), 0);
	run_live(s, t, ELEMENTSOF(t), errs);
	for (size_t i = 0; i < ELEMENTSOF(t); i++)
		if (errs[i] != -1)
			assert_int_equal(errs[i], i == 3 ? ENOSYS : EPERM);
	cr_seccomp_free(s);
}

/* ---- prepare and describe ---- */

/* @sha256 is the digest of the built-in program @name for this architecture. */
static void assert_builtin_digest(const char *name, const char *sha256)
{
	const struct cr_sc_builtin *b = builtin(name, CR_SECCOMP_NATIVE_ARCH);
	uint8_t d[32];
	char hex[65];

	cr_sc_sha256(b->insns, b->len * sizeof(*b->insns), d);
	cr_hex(d, 32, hex);
	assert_string_equal(sha256, hex);
}

static void test_describe(void **state)
{
	struct cr_seccomp *s = NULL;
	struct cr_seccomp_info i;
	char msg[256];

	assert_int_equal(cr_seccomp_prepare(CR_SECCOMP_DEFAULT, NULL, true, false, &s, msg, sizeof(msg)), 0);
	cr_seccomp_describe(s, &i);
	assert_string_equal(i.mode, "default");
	assert_string_equal(i.profile, "default");
	assert_string_equal(i.architecture, CR_SECCOMP_NATIVE_ARCH);
	assert_string_equal(i.cache, "none");
	assert_string_equal(i.ptrace, "refused");
	assert_true(i.spawn);
	assert_int_equal(i.n_programs, 1);
	assert_int_equal(strlen(i.sha256), 64);
	assert_builtin_digest("default", i.sha256);
	s = cr_seccomp_free(s);

	assert_int_equal(cr_seccomp_prepare(CR_SECCOMP_STRICT, NULL, false, false, &s, msg, sizeof(msg)), 0);
	cr_seccomp_describe(s, &i);
	assert_string_equal(i.mode, "strict");
	assert_false(i.spawn);
	assert_int_equal(i.n_programs, 2);
	s = cr_seccomp_free(s);

	/* --ptrace=sandbox: the built-in program without @ptrace, reported as such. */
	assert_int_equal(cr_seccomp_prepare(CR_SECCOMP_STRICT, NULL, true, true, &s, msg, sizeof(msg)), 0);
	cr_seccomp_describe(s, &i);
	assert_string_equal(i.ptrace, "sandbox");
	assert_builtin_digest("strict-ptrace", i.sha256);
	s = cr_seccomp_free(s);
	assert_int_equal(cr_seccomp_prepare(CR_SECCOMP_PROFILE, "/nonexistent", true, true, &s, msg,
					    sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "--ptrace=sandbox"));

	assert_int_equal(cr_seccomp_prepare(CR_SECCOMP_OFF, NULL, true, false, &s, msg, sizeof(msg)), 0);
	cr_seccomp_describe(s, &i);
	assert_string_equal(i.mode, "off");
	assert_string_equal(i.ptrace, "sandbox"); /* no filter: the pid namespace alone bounds it */
	assert_null(i.profile);
	assert_null(i.sha256);
	assert_null(i.architecture);
	assert_int_equal(i.n_programs, 0);
	assert_int_equal(cr_seccomp_install(s), 0); /* nothing to install */
	s = cr_seccomp_free(s);
	assert_int_equal(cr_seccomp_install(NULL), 0);
	assert_null(cr_seccomp_free(NULL));
}

/* ---- user profiles ---- */

static int parse(const char *text, struct cr_sc_ruleset *rs, char *msg, size_t size)
{
	return cr_sc_profile_parse(text, strlen(text), "p.ini", rs, msg, size);
}

static void parse_fails_n(const char *text, size_t size, const char *want)
{
	struct cr_sc_ruleset rs = {};
	char msg[512] = "";

	assert_int_equal(cr_sc_profile_parse(text, size, "p.ini", &rs, msg, sizeof(msg)), -EINVAL);
	if (!strstr(msg, want))
		print_error("message '%s' lacks '%s'\n", msg, want);
	assert_non_null(strstr(msg, want));
	assert_int_equal(rs.n_rules, 0);
}

static void parse_fails(const char *text, const char *want)
{
	parse_fails_n(text, strlen(text), want);
}

static const struct cr_sc_rule *find_rule(const struct cr_sc_ruleset *rs, const char *name,
					  size_t nth)
{
	for (size_t i = 0; i < rs->n_rules; i++)
		if (strcmp(rs->rules[i].name, name) == 0 && nth-- == 0)
			return &rs->rules[i];
	return NULL;
}

static void test_profile_parse(void **state)
{
	static const char text[] =
		"# a profile\n"
		"[profile]\n"
		"base = default ; the built-in denylist\n"
		"default = allow\n"
		"\n"
		"[rules]\n"
		"ptrace = kill\n"
		"mkdir = errno:EROFS\n"
		"mkdirat = errno:30\n"
		"@io-uring = allow\n"
		"@namespace = errno:EACCES\n"
		"chroot = log\r\n"
		"clone3 = deny\n";
	struct cr_sc_ruleset rs = {};
	char msg[256] = "";

	assert_int_equal(parse(text, &rs, msg, sizeof(msg)), 0);
	assert_int_equal(rs.default_action, CR_SC_ALLOW);
	assert_int_equal(find_rule(&rs, "ptrace", 0)->action, CR_SC_KILL_PROCESS);
	assert_null(find_rule(&rs, "ptrace", 1)); /* replaced, not added */
	assert_int_equal(find_rule(&rs, "mkdir", 0)->action, CR_SC_ERRNO(EROFS));
	assert_int_equal(find_rule(&rs, "mkdirat", 0)->action, CR_SC_ERRNO(EROFS));
	assert_int_equal(find_rule(&rs, "io_uring_setup", 0)->action, CR_SC_ALLOW);
	assert_int_equal(find_rule(&rs, "setns", 0)->action, CR_SC_ERRNO(EACCES));
	/* The group keeps its conditions; clone3 keeps ENOSYS. */
	assert_int_equal(find_rule(&rs, "clone", 0)->cond, CR_SC_CLONE_NS);
	assert_int_equal(find_rule(&rs, "clone", 0)->action, CR_SC_ERRNO(EACCES));
	assert_int_equal(find_rule(&rs, "clone3", 0)->action, CR_SC_ERRNO(ENOSYS));
	assert_int_equal(find_rule(&rs, "chroot", 0)->action, CR_SC_LOG);
	/* Base rules the file does not name are still there. */
	assert_int_equal(find_rule(&rs, "bpf", 0)->action, CR_SC_ERRNO(EPERM));
	assert_int_equal(find_rule(&rs, "ioctl", 0)->cond, CR_SC_TTY_INJECT);
	cr_sc_ruleset_done(&rs);

	/* An allowlist: nothing but what it names, on no base. */
	assert_int_equal(parse("[profile]\nbase=none\ndefault=errno:ENOSYS\n[rules]\nread=allow\n"
			       "write = allow\n@debug = kill\n",
			       &rs, msg, sizeof(msg)),
			 0);
	assert_int_equal(rs.default_action, CR_SC_ERRNO(ENOSYS));
	assert_null(find_rule(&rs, "mount", 0));
	assert_int_equal(find_rule(&rs, "read", 0)->action, CR_SC_ALLOW);
	assert_int_equal(find_rule(&rs, "ptrace", 0)->action, CR_SC_KILL_PROCESS);
	cr_sc_ruleset_done(&rs);

	/* Strict's two ioctl conditions are one line: both stay. */
	assert_int_equal(parse("[profile]\nbase = strict\n[rules]\n@line-discipline = errno:EIO\n",
			       &rs, msg, sizeof(msg)),
			 0);
	assert_non_null(find_rule(&rs, "ioctl", 0));
	assert_null(find_rule(&rs, "ioctl", 1)); /* TTY_INJECT was replaced by the line */
	assert_int_equal(find_rule(&rs, "ioctl", 0)->cond, CR_SC_TIOCSETD);
	cr_sc_ruleset_done(&rs);
	assert_int_equal(parse("[profile]\nbase = strict\n", &rs, msg, sizeof(msg)), 0);
	assert_non_null(find_rule(&rs, "ioctl", 1));
	cr_sc_ruleset_done(&rs);

	/* Empty: the default base. */
	assert_int_equal(parse("", &rs, msg, sizeof(msg)), 0);
	assert_non_null(find_rule(&rs, "ptrace", 0));
	cr_sc_ruleset_done(&rs);

	/* A byte order mark, CRLF line ends and indented comments, as in a profile. */
	assert_int_equal(parse("\xef\xbb\xbf[rules]\r\n  ; kill it\r\nptrace = kill\r\n", &rs, msg,
			       sizeof(msg)),
			 0);
	assert_int_equal(find_rule(&rs, "ptrace", 0)->action, CR_SC_KILL_PROCESS);
	cr_sc_ruleset_done(&rs);
}

static void test_profile_errors(void **state)
{
	char long_line[300];

	parse_fails("[rules]\nptrace = kill\nptrakce = kill\n", "p.ini:3: unknown syscall 'ptrakce'");
	parse_fails("[rules]\n@mounts = deny\n", "p.ini:2: unknown group '@mounts'");
	parse_fails("[rules]\n\n\nptrace = maybe\n",
		    "p.ini:4: unknown action 'maybe' for ptrace (expected allow, deny, errno:NAME");
	parse_fails("[rules]\nptrace = errno:ENOTANERRNO\n", "p.ini:2: unknown action");
	parse_fails("[rules]\nptrace = errno:0\n", "p.ini:2: unknown action");
	parse_fails("[rules]\nptrace = errno:5000\n", "p.ini:2: unknown action");
	parse_fails("[profile]\nbase = lenient\n", "p.ini:2: unknown base 'lenient'");
	parse_fails("[profile]\ndefault = nope\n", "p.ini:2: unknown action 'nope'");
	parse_fails("[profile]\nbase = none\nbase = strict\n", "p.ini:3: 'base' is given twice");
	parse_fails("[profile]\nname = x\n", "p.ini:2: unknown key 'name' in [profile]");
	parse_fails("ptrace = kill\n", "p.ini:1: 'ptrace' comes before any section");
	/* The reader is the profiles' (launcher/base/ini.c): the same line rules, the same
	 * messages. A section is checked on its own line, with keys or without. */
	parse_fails("[rule]\nptrace = kill\n",
		    "p.ini:1: unknown section [rule] (expected [profile] or [rules])");
	parse_fails("[rules]\n[empty]\n", "p.ini:2: unknown section [empty]");
	parse_fails("[rules]\nptrace kill\n", "p.ini:2: syntax error");
	parse_fails("[rules\n", "p.ini:1: a section line needs its ']'");
	parse_fails("[rules] ptrace = kill\n", "p.ini:1: unexpected text after the section's ']'");
	parse_fails("[rules]\nptrace: kill\n", "p.ini:2: expected KEY = VALUE");
	parse_fails("[rules]\nptrace = kill\n  mount = deny\n", "p.ini:3: the line is indented");
	parse_fails("[rules]\nptrace = \x1b\n", "p.ini:2: line 2 holds control character 0x1b");
	/* The first error is the one reported. */
	parse_fails("[rules]\nbad1 = kill\nbad2 = kill\n", "p.ini:2: unknown syscall 'bad1'");
	parse_fails("[rules]\nptrace kill\nbad2 = kill\n", "p.ini:2: syntax error");
	parse_fails("[rules]\nbad1 = kill\nptrace kill\n", "p.ini:2: unknown syscall 'bad1'");
	/* Lines inih would cut: refused whole, with their number. */
	memset(long_line, 'a', sizeof(long_line));
	(void)snprintf(long_line, sizeof(long_line), "[rules]\n# %0250d\n", 0);
	parse_fails(long_line, "p.ini:2: line 2 is longer than 197 bytes");
	parse_fails_n("[rules]\nptrace = kill\0\n", 22, "p.ini:2: line 2 holds a NUL byte");
}

/* ---- the cache ---- */

static char cache_root[64];

static int cache_setup(void **state)
{
	(void)snprintf(cache_root, sizeof(cache_root), "/tmp/corral-sc-cache.XXXXXX");
	if (!mkdtemp(cache_root))
		return -1;
	(void)setenv("XDG_CACHE_HOME", cache_root, 1);
	return 0;
}

static int cache_teardown(void **state)
{
	char cmd[128];

	(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cache_root);
	(void)unsetenv("XDG_CACHE_HOME");
	return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static struct cr_seccomp *prepare_profile(const char *path, const char *want_cache)
{
	struct cr_seccomp *s = NULL;
	struct cr_seccomp_info i;
	char msg[512] = "";
	int r;

	r = cr_seccomp_prepare(CR_SECCOMP_PROFILE, path, true, false, &s, msg, sizeof(msg));
	if (r < 0)
		print_error("prepare: %s\n", msg);
	assert_int_equal(r, 0);
	cr_seccomp_describe(s, &i);
	assert_string_equal(i.mode, "profile");
	assert_string_equal(i.profile, path);
	assert_string_equal(i.cache, want_cache);
	return s;
}

static size_t count_entries(const char *dir)
{
	char cmd[256], out[32] = "";
	FILE *f;

	(void)snprintf(cmd, sizeof(cmd), "ls -A '%s' 2>/dev/null | grep -c '\\.bpf$'", dir);
	f = popen(cmd, "r");
	assert_non_null(f);
	(void)!fgets(out, sizeof(out), f);
	(void)pclose(f);
	return (size_t)atoi(out);
}

static void test_cache_miss_hit_corrupt(void **state)
{
	char path[128], dir[128], entry[512], cmd[600];
	struct cr_seccomp *s1, *s2;
	struct cr_seccomp_info i1, i2;

	(void)snprintf(path, sizeof(path), "%s/p.ini", cache_root);
	(void)snprintf(dir, sizeof(dir), "%s/corral/seccomp", cache_root);
	write_file(path, "[rules]\nmkdir = errno:EROFS\n");
	s1 = prepare_profile(path, "miss");
	assert_int_equal(count_entries(dir), 1);
	s2 = prepare_profile(path, "hit");
	cr_seccomp_describe(s1, &i1);
	cr_seccomp_describe(s2, &i2);
	assert_string_equal(i1.sha256, i2.sha256);
	cr_seccomp_free(s2);

	/* A flipped byte: the digest no longer matches, so it is a miss, and the entry is
	 * rewritten. */
	(void)snprintf(cmd, sizeof(cmd),
		       "f=$(ls '%s'/*.bpf) && printf '\\377' | dd of=\"$f\" bs=1 seek=100 conv=notrunc status=none",
		       dir);
	assert_int_equal(system(cmd), 0);
	s2 = prepare_profile(path, "miss");
	cr_seccomp_free(s2);
	s2 = prepare_profile(path, "hit");
	cr_seccomp_describe(s2, &i2);
	assert_string_equal(i1.sha256, i2.sha256);
	cr_seccomp_free(s2);

	/* Truncated: a miss. */
	(void)snprintf(cmd, sizeof(cmd), "truncate -s -8 '%s'/*.bpf", dir);
	assert_int_equal(system(cmd), 0);
	cr_seccomp_free(prepare_profile(path, "miss"));

	/* Other content, other entry; a comment is content too. */
	write_file(path, "[rules]\nmkdir = errno:EROFS\n# changed\n");
	cr_seccomp_free(prepare_profile(path, "miss"));
	assert_int_equal(count_entries(dir), 2);

	/* Writable by others: not trusted, a miss (and rewritten with our own mode). */
	(void)snprintf(entry, sizeof(entry), "chmod 0666 '%s'/*.bpf", dir);
	assert_int_equal(system(entry), 0);
	cr_seccomp_free(prepare_profile(path, "miss"));
	cr_seccomp_free(prepare_profile(path, "hit"));
	/* No temporary files are left behind. */
	(void)snprintf(cmd, sizeof(cmd), "! ls -A '%s' | grep -q tmp", dir);
	assert_int_equal(system(cmd), 0);
	cr_seccomp_free(s1);
}

static void test_cache_unwritable(void **state)
{
	_cleanup_free_ char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char path[128];

	(void)snprintf(path, sizeof(path), "%s/p.ini", cache_root);
	write_file(path, "[rules]\nptrace = kill\n");
	/* A cache that cannot be written is not an error. */
	(void)setenv("XDG_CACHE_HOME", "/proc/self", 1);
	cr_seccomp_free(prepare_profile(path, "miss"));
	cr_seccomp_free(prepare_profile(path, "miss"));
	(void)unsetenv("XDG_CACHE_HOME");
	(void)setenv("HOME", "relative", 1);
	cr_seccomp_free(prepare_profile(path, "miss"));
	if (home)
		(void)setenv("HOME", home, 1);
	else
		(void)unsetenv("HOME");
	(void)setenv("XDG_CACHE_HOME", cache_root, 1);
}

static void test_profile_prepare_errors(void **state)
{
	struct cr_seccomp *s = NULL;
	char path[128], msg[512] = "";

	(void)snprintf(path, sizeof(path), "%s/bad.ini", cache_root);
	write_file(path, "[rules]\nptrace = kill\nnot_a_syscall = deny\n");
	assert_int_equal(cr_seccomp_prepare(CR_SECCOMP_PROFILE, path, true, false, &s, msg, sizeof(msg)),
			 -EINVAL);
	assert_null(s);
	assert_non_null(strstr(msg, "bad.ini:3: unknown syscall 'not_a_syscall'"));
	assert_int_equal(cr_seccomp_prepare(CR_SECCOMP_PROFILE, cache_root, true, false, &s, msg,
					    sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "not a regular file"));
	(void)snprintf(path, sizeof(path), "%s/missing.ini", cache_root);
	assert_int_equal(cr_seccomp_prepare(CR_SECCOMP_PROFILE, path, true, false, &s, msg, sizeof(msg)),
			 -ENOENT);
	assert_non_null(strstr(msg, "missing.ini"));
}

/* A profile's rules, installed for real: its errno, its kill, and the base it keeps. */
static void test_profile_live(void **state)
{
	struct cr_seccomp *s = NULL;
	char path[128], dir[128], msg[256];
	int status;
	pid_t pid;

	(void)snprintf(path, sizeof(path), "%s/live.ini", cache_root);
	(void)snprintf(dir, sizeof(dir), "%s/d", cache_root);
	write_file(path, "[rules]\nmkdir = errno:EROFS\nmkdirat = errno:EROFS\n"
			 "getppid = kill\n@keyring = errno:EACCES\n");
	assert_int_equal(cr_seccomp_prepare(CR_SECCOMP_PROFILE, path, true, false, &s, msg, sizeof(msg)), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || cr_seccomp_install(s) < 0)
			_exit(100);
		if (mkdir(dir, 0700) == 0 || errno != EROFS)
			_exit(1);
		if (syscall(SYS_keyctl, -1, 0, 0, 0, 0) == 0 || errno != EACCES)
			_exit(2);
		if (syscall(SYS_ptrace, -1, 0, 0, 0) == 0 || errno != EPERM) /* the base */
			_exit(3);
		if (getpid() <= 0)
			_exit(4);
		(void)syscall(SYS_getppid); /* killed here */
		_exit(5);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFSIGNALED(status))
		print_error("status 0x%x\n", status);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGSYS);
	cr_seccomp_free(s);
}

/* ---- the options: --seccomp, --seccomp-profile, --spawn, and the policy they make ---- */

static int cli(struct cr_run_options *o, char *msg, size_t size, ...)
{
	char *argv[16];
	int argc = 0;
	va_list ap;

	va_start(ap, size);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	return cr_cli_parse_run(argc, argv, o, msg, size);
}

static void test_cli_options(void **state)
{
	struct cr_run_options o;
	char msg[256] = "";

	assert_int_equal(cli(&o, msg, sizeof(msg), "run", "true", NULL), 0);
	assert_int_equal(o.seccomp, CR_SECCOMP_DEFAULT);
	assert_null(o.seccomp_profile);
	assert_false(o.no_spawn);
	cr_run_options_done(&o);
	assert_int_equal(cli(&o, msg, sizeof(msg), "run", "--seccomp=strict", "--spawn", "no",
			     "true", NULL),
			 0);
	assert_int_equal(o.seccomp, CR_SECCOMP_STRICT);
	assert_true(o.no_spawn);
	cr_run_options_done(&o);
	assert_int_equal(cli(&o, msg, sizeof(msg), "run", "--seccomp", "off", "--spawn=yes", "true",
			     NULL),
			 0);
	assert_int_equal(o.seccomp, CR_SECCOMP_OFF);
	assert_false(o.no_spawn);
	cr_run_options_done(&o);
	/* default is what a profile builds on unless it says otherwise: no conflict. */
	assert_int_equal(cli(&o, msg, sizeof(msg), "run", "--seccomp=default",
			     "--seccomp-profile", "p.ini", "true", NULL),
			 0);
	assert_string_equal(o.seccomp_profile, "p.ini");
	cr_run_options_done(&o);

	assert_int_equal(cli(&o, msg, sizeof(msg), "run", "--seccomp=profile", "true", NULL),
			 -EINVAL);
	assert_non_null(strstr(msg, "--seccomp: unknown mode 'profile'"));
	assert_int_equal(cli(&o, msg, sizeof(msg), "run", "--spawn=0", "true", NULL), -EINVAL);
	assert_non_null(strstr(msg, "--spawn: '0' is not yes or no"));
	assert_int_equal(cli(&o, msg, sizeof(msg), "run", "--seccomp-profile", "p.ini",
			     "--seccomp=off", "true", NULL),
			 -EINVAL);
	assert_non_null(strstr(msg, "cannot be combined with --seccomp=off"));
	assert_int_equal(cli(&o, msg, sizeof(msg), "run", "--seccomp=strict", "--seccomp-profile",
			     "p.ini", "true", NULL),
			 -EINVAL);
	assert_non_null(strstr(msg, "cannot be combined with --seccomp=strict"));
	assert_string_equal(cr_seccomp_mode_to_string(CR_SECCOMP_PROFILE), "profile");
	assert_null(cr_seccomp_mode_to_string(_CR_SECCOMP_MAX));
}

static void test_policy_profile(void **state)
{
	char *argv[] = { "true", NULL }, *env[] = { "PATH=/usr/bin:/bin", "HOME=/", NULL };
	char path[128], msg[256] = "";
	struct cr_run_options o = { .argv = argv, .uid = 65534, .gid = 65534, .no_spawn = true };
	struct cr_policy p = {};

	o.workspace = cache_root;
	assert_int_equal(cr_policy_build(&o, env, false, &p, msg, sizeof(msg)), 0);
	assert_int_equal(p.seccomp, CR_SECCOMP_DEFAULT);
	assert_null(p.seccomp_profile);
	assert_true(p.no_spawn);
	cr_policy_done(&p);

	(void)snprintf(path, sizeof(path), "%s/./p.ini", cache_root);
	write_file(path, "[rules]\n");
	o.seccomp_profile = path;
	assert_int_equal(cr_policy_build(&o, env, false, &p, msg, sizeof(msg)), 0);
	assert_int_equal(p.seccomp, CR_SECCOMP_PROFILE);
	(void)snprintf(path, sizeof(path), "%s/p.ini", cache_root);
	assert_string_equal(p.seccomp_profile, path); /* canonical */
	cr_policy_done(&p);

	o.seccomp_profile = cache_root;
	assert_true(cr_policy_build(&o, env, false, &p, msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "is not a regular file"));
	o.seccomp_profile = "/nonexistent/p.ini";
	assert_int_equal(cr_policy_build(&o, env, false, &p, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "--seccomp-profile '/nonexistent/p.ini': no such file"));
}

/* ---- the generator ---- */

static char *slurp(const char *cmd, size_t *ret_size)
{
	FILE *f = popen(cmd, "r");
	char *buf = NULL;
	size_t size = 0, n;

	assert_non_null(f);
	for (;;) {
		buf = realloc(buf, size + 65536);
		assert_non_null(buf);
		n = fread(buf + size, 1, 65536, f);
		size += n;
		if (n == 0)
			break;
	}
	assert_int_equal(pclose(f), 0);
	*ret_size = size;
	return buf;
}

/* Same input, same bytes: two runs of the generator, and the file compiled into corral. */
static void test_generator_reproducible(void **state)
{
	const char *gen = getenv("CR_SECCOMP_GEN"), *built = getenv("CR_SECCOMP_PROGRAMS");
	_cleanup_free_ char *a = NULL, *b = NULL, *c = NULL;
	size_t na, nb, nc;
	char cmd[1024];

	if (!gen || !built) {
		print_message("CR_SECCOMP_GEN and CR_SECCOMP_PROGRAMS are not set (run through meson)\n");
		fail();
	}
	(void)snprintf(cmd, sizeof(cmd), "'%s'", gen);
	a = slurp(cmd, &na);
	(void)snprintf(cmd, sizeof(cmd), "cd / && env -i '%s'", gen);
	b = slurp(cmd, &nb);
	(void)snprintf(cmd, sizeof(cmd), "cat '%s'", built);
	c = slurp(cmd, &nc);
	assert_true(na > 10000);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	assert_int_equal(na, nc);
	assert_memory_equal(a, c, na);
}

#define C(fn) cmocka_unit_test_setup_teardown(fn, cache_setup, cache_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtins_present),
		cmocka_unit_test(test_builtins_structure),
		cmocka_unit_test(test_builtins_rule_sets),
		cmocka_unit_test(test_builtins_verdicts),
		cmocka_unit_test(test_builtin_basic),
		cmocka_unit_test(test_builtins_ptrace),
		cmocka_unit_test(test_builtins_allowlist),
		cmocka_unit_test(test_builtins_other_abis),
		cmocka_unit_test(test_profile_base_matches_builtin),
		cmocka_unit_test(test_live_default_denied),
		cmocka_unit_test(test_live_strict_denied),
		cmocka_unit_test(test_live_ordinary_work),
		cmocka_unit_test(test_live_spawn),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_profile_parse),
		cmocka_unit_test(test_profile_errors),
		C(test_cache_miss_hit_corrupt),
		C(test_cache_unwritable),
		C(test_profile_prepare_errors),
		C(test_profile_live),
		cmocka_unit_test(test_cli_options),
		C(test_policy_profile),
		cmocka_unit_test(test_generator_reproducible),
	};

	return cmocka_run_group_tests_name("seccomp", tests, NULL, NULL);
}
