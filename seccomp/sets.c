/* SPDX-License-Identifier: MIT */
/* The syscall groups corral refuses, written once and compiled to BPF at build time
 * (seccomp/gen/gen.c) and, for user profiles, at run time. Modelled on systemd's
 * SyscallFilterSet. Names are libseccomp's; a name that does not exist on an architecture
 * (iopl on aarch64) is skipped there.
 *
 * @default is what every sandbox gets: interfaces an ordinary command never uses and that either
 * reach past the sandbox (other processes, the mount table, the clock, the kernel itself) or
 * carry a long record of kernel exploits. @strict adds what an agent's shell commands and builds
 * do not need either. @spawn is --spawn=no. @ptrace, part of @debug, is what --ptrace=sandbox
 * takes out of @default and @strict: debuggers, strace and LeakSanitizer need it, and in the
 * sandbox's own pid namespace it reaches only the sandbox's own dumpable processes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/macro.h"
#include "seccomp-internal.h"

#define E(n)	{ .name = n, .err = EPERM }
#define C(n, c) { .name = n, .cond = c, .err = EPERM }
#define END	{ .name = NULL }

/* clang-format off */
static const struct cr_sc_entry ptrace_set[] = {
	E("ptrace"), E("process_vm_readv"), E("process_vm_writev"), END,
};
static const struct cr_sc_entry debug_set[] = { E("pidfd_getfd"), E("perf_event_open"), END };
static const char *const debug_groups[] = { "@ptrace", NULL };
static const struct cr_sc_entry mount_set[] = {
	E("mount"), E("umount"), E("umount2"), E("pivot_root"), E("move_mount"), E("open_tree"),
	E("fsopen"), E("fsconfig"), E("fsmount"), E("fspick"), E("mount_setattr"), END,
};
static const struct cr_sc_entry namespace_set[] = {
	C("unshare", CR_SC_UNSHARE_NS), C("clone", CR_SC_CLONE_NS),
	/* Its flags live in memory, out of a filter's reach: ENOSYS makes libc use clone. */
	{ .name = "clone3", .err = ENOSYS },
	E("setns"), END,
};
static const struct cr_sc_entry keyring_set[] = { E("keyctl"), E("add_key"), E("request_key"), END };
static const struct cr_sc_entry bpf_set[] = { E("bpf"), END };
static const struct cr_sc_entry io_uring_set[] = {
	E("io_uring_setup"), E("io_uring_enter"), E("io_uring_register"), END,
};
static const struct cr_sc_entry userfaultfd_set[] = { E("userfaultfd"), END };
static const struct cr_sc_entry file_handle_set[] = { E("open_by_handle_at"), E("name_to_handle_at"), END };
static const struct cr_sc_entry reboot_set[] = { E("kexec_load"), E("kexec_file_load"), E("reboot"), END };
static const struct cr_sc_entry module_set[] = {
	E("init_module"), E("finit_module"), E("delete_module"), E("create_module"),
	E("query_module"), E("get_kernel_syms"), END,
};
static const struct cr_sc_entry raw_io_set[] = { E("iopl"), E("ioperm"), END };
static const struct cr_sc_entry swap_set[] = { E("swapon"), E("swapoff"), END };
static const struct cr_sc_entry clock_set[] = {
	E("settimeofday"), E("clock_settime"), E("clock_adjtime"), E("adjtimex"), END,
};
static const struct cr_sc_entry admin_set[] = {
	E("acct"), E("quotactl"), E("quotactl_fd"), E("syslog"), E("vhangup"), END,
};
static const struct cr_sc_entry legacy_set[] = { E("uselib"), END };
static const struct cr_sc_entry personality_set[] = { C("personality", CR_SC_PERSONALITY), END };
static const struct cr_sc_entry tty_set[] = { C("ioctl", CR_SC_TTY_INJECT), END };
static const struct cr_sc_entry vsock_set[] = { C("socket", CR_SC_AF_VSOCK), END };

/* strict */
static const struct cr_sc_entry obsolete_set[] = {
	E("_sysctl"), E("sysfs"), E("ustat"), E("lookup_dcookie"), E("remap_file_pages"), END,
};
static const struct cr_sc_entry process_inspect_set[] = {
	E("kcmp"), E("process_madvise"), E("migrate_pages"), E("move_pages"), END,
};
static const struct cr_sc_entry cpu_emulation_set[] = { E("modify_ldt"), E("vm86"), E("vm86old"), END };
static const struct cr_sc_entry vmsplice_set[] = { E("vmsplice"), END };
static const struct cr_sc_entry fanotify_set[] = { E("fanotify_init"), END };
static const struct cr_sc_entry line_discipline_set[] = { C("ioctl", CR_SC_TIOCSETD), END };
static const struct cr_sc_entry cachestat_set[] = { E("cachestat"), END };

static const struct cr_sc_entry spawn_set[] = {
	E("fork"), E("vfork"), C("clone", CR_SC_NO_THREAD), { .name = "clone3", .err = ENOSYS },
	END,
};

/* Installed when the sandbox writes through an idmapped mount (ns/idmap.c): there, a file it owns
 * is the host owner's (root's, for root's checkout), and a set-id bit on it would be a set-uid
 * binary of that owner on the host. openat2's mode is behind a pointer: ENOSYS, libc falls back to
 * openat; io_uring could open files with any mode (the default profile refuses it too). */
static const struct cr_sc_entry setid_set[] = {
	C("chmod", CR_SC_SETID_A1),    C("fchmod", CR_SC_SETID_A1),  C("fchmodat", CR_SC_SETID_A2),
	C("fchmodat2", CR_SC_SETID_A2), C("creat", CR_SC_SETID_A1),   C("open", CR_SC_SETID_OPEN_A2),
	C("openat", CR_SC_SETID_OPEN_A3),   C("mknod", CR_SC_SETID_A1),   C("mknodat", CR_SC_SETID_A2),
	{ .name = "openat2", .err = ENOSYS }, E("io_uring_setup"), END,
};

static const char *const default_groups[] = {
	"@debug", "@mount", "@namespace", "@keyring", "@bpf", "@io-uring", "@userfaultfd",
	"@file-handle", "@reboot", "@module", "@raw-io", "@swap", "@clock", "@admin", "@legacy",
	"@personality", "@tty", "@vsock", NULL,
};
/* What no client of the bwrap personality needs, whatever it sandboxes: namespaces, mounts and
 * ptrace stay (clients make nested sandboxes and debug their own processes). */
static const char *const basic_groups[] = {
	"@keyring", "@bpf", "@io-uring", "@userfaultfd", "@reboot", "@module", "@raw-io", "@swap",
	"@clock", "@tty", "@obsolete", "@line-discipline", NULL,
};
static const char *const strict_groups[] = {
	"@default", "@obsolete", "@process-inspect", "@cpu-emulation", "@vmsplice", "@fanotify",
	"@line-discipline", "@cachestat", NULL,
};

const struct cr_sc_group cr_sc_groups[] = {
	{ "@ptrace", "trace, read or write another process: ptrace, process_vm_readv, process_vm_writev (--ptrace=sandbox allows them)", ptrace_set, NULL },
	{ "@debug", "read, write or trace other processes: @ptrace, pidfd_getfd, perf_event_open", debug_set, debug_groups },
	{ "@mount", "change the mount table, old and new mount API", mount_set, NULL },
	{ "@namespace", "create or join namespaces (clone and unshare with a CLONE_NEW* flag; clone3, whose flags cannot be inspected, gets ENOSYS)", namespace_set, NULL },
	{ "@keyring", "the kernel keyrings, shared beyond the sandbox", keyring_set, NULL },
	{ "@bpf", "eBPF programs and maps", bpf_set, NULL },
	{ "@io-uring", "io_uring, which bypasses per-syscall filtering and has a long record of kernel bugs", io_uring_set, NULL },
	{ "@userfaultfd", "userfaultfd, a building block of kernel exploits", userfaultfd_set, NULL },
	{ "@file-handle", "open files by handle, bypassing path-based checks", file_handle_set, NULL },
	{ "@reboot", "reboot or load a new kernel", reboot_set, NULL },
	{ "@module", "load or unload kernel modules", module_set, NULL },
	{ "@raw-io", "raw I/O port access", raw_io_set, NULL },
	{ "@swap", "turn swap on or off", swap_set, NULL },
	{ "@clock", "set the system clock", clock_set, NULL },
	{ "@admin", "process accounting, disk quotas, the kernel log, hanging up the terminal", admin_set, NULL },
	{ "@legacy", "uselib: load an a.out library", legacy_set, NULL },
	{ "@personality", "change the execution domain (personality other than 0, or the query 0xffffffff)", personality_set, NULL },
	{ "@tty", "push input into a terminal or the console (ioctl TIOCSTI, TIOCLINUX)", tty_set, NULL },
	{ "@vsock", "sockets to a hypervisor or its host (socket AF_VSOCK): WSL's interop with Windows goes this way", vsock_set, NULL },
	{ "@default", "what every sandbox gets (--seccomp=default)", NULL, default_groups },

	{ "@obsolete", "interfaces nothing current calls: _sysctl, sysfs, ustat, lookup_dcookie, remap_file_pages", obsolete_set, NULL },
	{ "@process-inspect", "compare or move other processes' kernel objects and memory", process_inspect_set, NULL },
	{ "@cpu-emulation", "16-bit segments and vm86 (DOS and Wine only; x86)", cpu_emulation_set, NULL },
	{ "@vmsplice", "vmsplice: user pages into a pipe; rarely used, a record of exploits", vmsplice_set, NULL },
	{ "@fanotify", "filesystem-wide monitoring (inotify stays)", fanotify_set, NULL },
	{ "@line-discipline", "switch a terminal's line discipline (ioctl TIOCSETD)", line_discipline_set, NULL },
	{ "@cachestat", "cachestat: page-cache residency of any readable file, a side channel", cachestat_set, NULL },
	{ "@strict", "@default and the groups above (--seccomp=strict)", NULL, strict_groups },

	{ "@setid", "set-uid and set-gid bits in chmod and mknod modes and in open's when it creates; openat2 gets ENOSYS (installed with idmapped mounts)", setid_set, NULL },
	{ "@basic", "what no client of a door needs: keyrings, eBPF, io_uring, userfaultfd, reboot and kexec, modules, raw I/O, swap, the clock, TIOCSTI, obsolete calls, line disciplines (the bwrap personality's hardened mode)", NULL, basic_groups },
	{ "@spawn", "new processes: fork, vfork, clone without CLONE_THREAD; clone3 gets ENOSYS (--spawn=no)", spawn_set, NULL },
};
/* clang-format on */
const size_t cr_sc_n_groups = ELEMENTSOF(cr_sc_groups);

const struct cr_sc_group *cr_sc_group_find(const char *name)
{
	for (size_t i = 0; i < cr_sc_n_groups; i++)
		if (strcmp(cr_sc_groups[i].name, name) == 0)
			return &cr_sc_groups[i];
	return NULL;
}

int cr_sc_group_walk(const struct cr_sc_group *g,
		     int (*fn)(const struct cr_sc_entry *e, void *userdata), void *userdata)
{
	int r;

	for (const char *const *inc = g->includes; inc && *inc; inc++) {
		const struct cr_sc_group *sub = cr_sc_group_find(*inc);

		if (!sub)
			return -EINVAL;
		r = cr_sc_group_walk(sub, fn, userdata);
		if (r < 0)
			return r;
	}
	for (const struct cr_sc_entry *e = g->entries; e && e->name; e++) {
		r = fn(e, userdata);
		if (r < 0)
			return r;
	}
	return 0;
}

void cr_sc_ruleset_done(struct cr_sc_ruleset *rs)
{
	free(rs->rules);
	for (size_t i = 0; i < rs->n_owned; i++)
		free(rs->owned[i]);
	free(rs->owned);
	*rs = (struct cr_sc_ruleset){};
}

static int find_entry(const struct cr_sc_entry *e, void *userdata)
{
	return e == userdata ? -EEXIST : 0;
}

bool cr_sc_group_has(const struct cr_sc_group *g, const struct cr_sc_entry *e)
{
	/* Entries are the groups' own static arrays: the same member is the same pointer. */
	return g && cr_sc_group_walk(g, find_entry, (void *)e) == -EEXIST;
}

struct add_ctx {
	struct cr_sc_ruleset *rs;
	const struct cr_sc_group *except;
};

static int add_entry(const struct cr_sc_entry *e, void *userdata)
{
	struct add_ctx *ctx = userdata;
	struct cr_sc_ruleset *rs = ctx->rs;
	struct cr_sc_rule *a;

	if (cr_sc_group_has(ctx->except, e))
		return 0;
	a = reallocarray(rs->rules, rs->n_rules + 1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a[rs->n_rules++] = (struct cr_sc_rule){ e->name, e->cond, CR_SC_ERRNO(e->err) };
	rs->rules = a;
	return 0;
}

int cr_sc_ruleset_add_group(struct cr_sc_ruleset *rs, const struct cr_sc_group *g)
{
	return cr_sc_ruleset_add_group_except(rs, g, NULL);
}

int cr_sc_ruleset_add_group_except(struct cr_sc_ruleset *rs, const struct cr_sc_group *g,
				   const struct cr_sc_group *except)
{
	struct add_ctx ctx = { rs, except };

	return cr_sc_group_walk(g, add_entry, &ctx);
}

void cr_bpf_done(struct cr_bpf *bpf)
{
	free(bpf->insns);
	bpf->insns = NULL;
	bpf->len = 0;
}
