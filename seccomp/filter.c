/* SPDX-License-Identifier: MIT */
/* The compiler: a rule list to a BPF program, with libseccomp. The only file that calls it. Used
 * at build time by the generator, and at run time (in corral's own process, before clone) for
 * --seccomp-profile. libseccomp 2.5.4 has no seccomp_export_bpf_mem(): the program is exported
 * to a memfd and read back. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "seccomp-internal.h"
#include "seccomp.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* The asm-generic ioctl numbers, which x86 and arm64 use. */
#define SC_TIOCSTI   0x5412u
#define SC_TIOCLINUX 0x541cu
#define SC_TIOCSETD  0x5423u
#define SC_AF_VSOCK  40u /* AF_VSOCK in <sys/socket.h>, on every architecture */
/* ioctl's request and personality's argument are 32-bit in the kernel: compare the low word
 * only, so that garbage in the high word cannot slip past an equality test. */
#define LOW32 0xffffffffu

static inline void scmp_ctx_releasep(scmp_filter_ctx *c)
{
	if (*c)
		seccomp_release(*c);
}
#define _cleanup_scmp_ctx_ _cleanup_(scmp_ctx_releasep)

static const struct {
	const char *name;
	uint32_t token;
	uint32_t audit;
} arches[] = {
	{ "x86_64", SCMP_ARCH_X86_64, AUDIT_ARCH_X86_64 },
	{ "aarch64", SCMP_ARCH_AARCH64, AUDIT_ARCH_AARCH64 },
};

uint32_t cr_sc_arch_token(const char *arch)
{
	for (size_t i = 0; arch && i < ELEMENTSOF(arches); i++)
		if (strcmp(arches[i].name, arch) == 0)
			return arches[i].token;
	return 0;
}

uint32_t cr_sc_audit_arch(const char *arch)
{
	for (size_t i = 0; arch && i < ELEMENTSOF(arches); i++)
		if (strcmp(arches[i].name, arch) == 0)
			return arches[i].audit;
	return 0;
}

const char *cr_sc_libseccomp_version(void)
{
	static char buf[32];
	const struct scmp_version *v = seccomp_version();

	(void)snprintf(buf, sizeof(buf), "%u.%u.%u", v->major, v->minor, v->micro);
	return buf;
}

bool cr_sc_syscall_known(const char *name)
{
	/* A name the native architecture lacks resolves to a negative pseudo-number, not to
	 * __NR_SCMP_ERROR: it is still a syscall libseccomp knows. */
	return seccomp_syscall_resolve_name(name) != __NR_SCMP_ERROR;
}

int cr_sc_syscall_nr(const char *name, const char *arch)
{
	uint32_t token = cr_sc_arch_token(arch);

	return token ? seccomp_syscall_resolve_name_arch(token, name) : -1;
}

/* Rules are added with native syscall numbers, which libseccomp translates by name to the
 * filter's architecture; a syscall the architecture lacks is skipped there. */
static int add_rule(scmp_filter_ctx ctx, const struct cr_sc_rule *rule)
{
	static const uint32_t ns_flags[] = { CLONE_NEWNS,  CLONE_NEWCGROUP, CLONE_NEWUTS,
					     CLONE_NEWIPC, CLONE_NEWUSER,   CLONE_NEWPID,
					     CLONE_NEWNET, CLONE_NEWTIME };
	int nr = seccomp_syscall_resolve_name(rule->name);
	uint32_t a = rule->action;
	int r = 0;

	if (nr == __NR_SCMP_ERROR)
		return -EINVAL;
	switch (rule->cond) {
	case CR_SC_ALWAYS:
		return seccomp_rule_add(ctx, a, nr, 0);
	case CR_SC_CLONE_NS:
	case CR_SC_UNSHARE_NS:
		/* In clone's flags the low byte is the exit signal: CLONE_NEWTIME is unshare's. */
		for (size_t i = 0; r == 0 && i < ELEMENTSOF(ns_flags); i++)
			if (rule->cond == CR_SC_UNSHARE_NS || ns_flags[i] != CLONE_NEWTIME)
				r = seccomp_rule_add(ctx, a, nr, 1,
						     SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i],
							     ns_flags[i]));
		return r;
	case CR_SC_NO_THREAD:
		return seccomp_rule_add(ctx, a, nr, 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
	case CR_SC_TTY_INJECT:
		r = seccomp_rule_add(ctx, a, nr, 1, SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, SC_TIOCSTI));
		return r ?: seccomp_rule_add(ctx, a, nr, 1,
					     SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, SC_TIOCLINUX));
	case CR_SC_TIOCSETD:
		return seccomp_rule_add(ctx, a, nr, 1, SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, SC_TIOCSETD));
	case CR_SC_AF_VSOCK:
		return seccomp_rule_add(ctx, a, nr, 1, SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, SC_AF_VSOCK));
	case CR_SC_SETID_A1:
	case CR_SC_SETID_A2:
	case CR_SC_SETID_A3: {
		unsigned arg = rule->cond - CR_SC_SETID_A1 + 1;

		r = seccomp_rule_add(ctx, a, nr, 1,
				     (struct scmp_arg_cmp){ arg, SCMP_CMP_MASKED_EQ, S_ISUID, S_ISUID });
		return r ?: seccomp_rule_add(ctx, a, nr, 1,
					     (struct scmp_arg_cmp){ arg, SCMP_CMP_MASKED_EQ, S_ISGID,
								    S_ISGID });
	}
	case CR_SC_SETID_OPEN_A2:
	case CR_SC_SETID_OPEN_A3: {
		/* The mode counts only when the call may create: a stray mode without O_CREAT or
		 * O_TMPFILE (which some programs pass) is no set-id file. */
		static const uint64_t creating[] = { O_CREAT, O_TMPFILE & ~O_DIRECTORY },
				      bits[] = { S_ISUID, S_ISGID };
		unsigned flags = rule->cond == CR_SC_SETID_OPEN_A2 ? 1 : 2;

		for (size_t i = 0; r == 0 && i < ELEMENTSOF(creating); i++)
			for (size_t k = 0; r == 0 && k < ELEMENTSOF(bits); k++)
				r = seccomp_rule_add(ctx, a, nr, 2,
						     (struct scmp_arg_cmp){ flags, SCMP_CMP_MASKED_EQ,
									    creating[i], creating[i] },
						     (struct scmp_arg_cmp){ flags + 1,
									    SCMP_CMP_MASKED_EQ, bits[k],
									    bits[k] });
		return r;
	}
	case CR_SC_PERSONALITY:
		/* libseccomp allows one comparison per argument and rule, and rules are OR-ed: a
		 * 32-bit value other than all zeros and all ones has a set bit followed
		 * (cyclically) by a clear one, which one of these 32 rules matches. */
		for (unsigned i = 0; r == 0 && i < 32; i++) {
			uint32_t bit = 1u << i, next = 1u << ((i + 1) % 32);

			r = seccomp_rule_add(ctx, a, nr, 1,
					     SCMP_A0(SCMP_CMP_MASKED_EQ, bit | next, bit));
		}
		return r;
	default:
		return -EINVAL;
	}
}

static int build(const struct cr_sc_ruleset *rs, uint32_t token, scmp_filter_ctx *ret)
{
	_cleanup_scmp_ctx_ scmp_filter_ctx ctx = NULL;
	int r;

	ctx = seccomp_init(rs->default_action);
	if (!ctx)
		return -ENOMEM;
	if (token != seccomp_arch_native()) {
		r = seccomp_arch_add(ctx, token);
		if (r < 0)
			return r;
		r = seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE);
		if (r < 0)
			return r;
	}
	/* Syscalls of any other architecture (i386 via int 0x80, x32 numbers on x86_64) are all
	 * refused: nothing corral runs needs them, and one program per ABI keeps this simple. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(EPERM));
	if (r < 0)
		return r;
	/* A binary tree of syscall numbers rather than a linear chain: an allowed syscall passes
	 * ~6 comparisons instead of ~55, and so does the kernel when it installs the program and
	 * runs it for every syscall number to build its cache of constant verdicts (5.11+), which
	 * is most of the cost of seccomp(2) here. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (r < 0)
		return r;
	/* seccomp_load() would otherwise turn every kernel error into -ECANCELED. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
	if (r < 0)
		return r;
	for (size_t i = 0; i < rs->n_rules; i++) {
		/* libseccomp refuses a rule whose action is the default one. */
		if (rs->rules[i].action == rs->default_action)
			continue;
		r = add_rule(ctx, &rs->rules[i]);
		if (r < 0) {
			cr_debug("seccomp: rule for %s: %s", rs->rules[i].name, strerror(-r));
			return r;
		}
	}
	*ret = TAKE_PTR(ctx);
	return 0;
}

static int read_all(int fd, struct cr_bpf *ret)
{
	_cleanup_free_ struct sock_filter *insns = NULL;
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) != 0 ||
	    st.st_size > BPF_MAXINSNS * (off_t)sizeof(struct sock_filter))
		return -E2BIG;
	insns = malloc((size_t)st.st_size);
	if (!insns)
		return -ENOMEM;
	n = pread(fd, insns, (size_t)st.st_size, 0);
	if (n != st.st_size)
		return n < 0 ? negative_errno() : -EIO;
	ret->insns = TAKE_PTR(insns);
	ret->len = (size_t)st.st_size / sizeof(struct sock_filter);
	return 0;
}

int cr_sc_compile(const struct cr_sc_ruleset *rs, const char *arch, struct cr_bpf *ret)
{
	_cleanup_scmp_ctx_ scmp_filter_ctx ctx = NULL;
	_cleanup_close_ int fd = -EBADF;
	uint32_t token = cr_sc_arch_token(arch);
	int r;

	if (!token)
		return -EAFNOSUPPORT;
	r = build(rs, token, &ctx);
	if (r < 0)
		return r;
	fd = memfd_create("corral-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0)
		return r;
	return read_all(fd, ret);
}

int cr_sc_compile_and_load(const struct cr_sc_ruleset *rs)
{
	_cleanup_scmp_ctx_ scmp_filter_ctx ctx = NULL;
	int r;

	r = build(rs, seccomp_arch_native(), &ctx);
	if (r < 0)
		return r;
	return seccomp_load(ctx);
}

/* --- a door's own filter (cr_seccomp_compile_spec) ------------------------------------------ */

static int add_spec_rule(scmp_filter_ctx ctx, const struct cr_seccomp_rule_spec *r, int nr)
{
	struct scmp_arg_cmp cmp[6];
	bool repeated = false;
	int k;

	if (r->n_args > 6)
		return -EINVAL;
	for (size_t i = 0; i < r->n_args; i++) {
		cmp[i] = (struct scmp_arg_cmp){ .arg = r->args[i].index,
						.op = (enum scmp_compare)r->args[i].op,
						.datum_a = r->args[i].value,
						.datum_b = r->args[i].value_two };
		for (size_t j = 0; j < i; j++)
			repeated |= r->args[j].index == r->args[i].index;
	}
	if (!repeated)
		return seccomp_rule_add_array(ctx, r->action, nr, (unsigned)r->n_args, cmp);
	/* the same argument compared twice: each comparison a rule of its own (either matches) */
	for (size_t i = 0; i < r->n_args; i++)
		if ((k = seccomp_rule_add_array(ctx, r->action, nr, 1, &cmp[i])) < 0)
			return k;
	return 0;
}

int cr_seccomp_compile_spec(const struct cr_seccomp_spec *s, struct cr_bpf_program *ret,
			    char *msg, size_t size)
{
	_cleanup_scmp_ctx_ scmp_filter_ctx ctx = seccomp_init(s->default_action);
	_cleanup_close_ int fd = -EBADF;
	struct cr_bpf bpf;
	int r;

	if (!ctx)
		return snprintf(msg, size, "cannot make a filter with that default action"), -EINVAL;
	/* corral sets no_new_privs itself; exporting, not loading, anyway */
	(void)seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	for (size_t i = 0; i < s->n_rules; i++) {
		const struct cr_seccomp_rule_spec *rule = &s->rules[i];

		if (rule->action == s->default_action)
			continue; /* nothing to say: libseccomp refuses such rules */
		for (size_t n = 0; n < rule->n_names; n++) {
			int nr = seccomp_syscall_resolve_name(rule->names[n]);

			if (nr == __NR_SCMP_ERROR)
				continue; /* not a syscall of this architecture */
			r = add_spec_rule(ctx, rule, nr);
			if (r < 0)
				return snprintf(msg, size, "syscalls[%zu] (%s): %s", i, rule->names[n],
						strerror(-r)),
				       r;
		}
	}
	fd = memfd_create("corral-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	r = seccomp_export_bpf(ctx, fd);
	r = r < 0 ? r : read_all(fd, &bpf);
	if (r < 0)
		return snprintf(msg, size, "cannot compile it: %s", strerror(-r)), r;
	ret->insns = bpf.insns;
	ret->size = bpf.len * sizeof(struct sock_filter);
	return 0;
}
