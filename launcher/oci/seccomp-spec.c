/* SPDX-License-Identifier: MIT */
/* linux.seccomp: a bundle's own filter, compiled by the seccomp module and installed after
 * corral's built-in denylist, which stays as the floor under it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/macro.h"
#include "seccomp-spec.h"
#include "seccomp/seccomp.h"

static uint32_t action(enum cr_oci_seccomp_action a, uint32_t err)
{
	switch (a) {
	case CR_OCI_SC_KILL_THREAD:
		return 0x00000000u; /* SECCOMP_RET_KILL_THREAD */
	case CR_OCI_SC_KILL_PROCESS:
		return 0x80000000u;
	case CR_OCI_SC_TRAP:
		return 0x00030000u;
	case CR_OCI_SC_ERRNO:
		return 0x00050000u | (err & 0xffffu);
	case CR_OCI_SC_TRACE:
		return 0x7ff00000u | (err & 0xffffu);
	case CR_OCI_SC_LOG:
		return 0x7ffc0000u;
	case CR_OCI_SC_ALLOW:
	default:
		return 0x7fff0000u;
	}
}

int cr_oci_seccomp_compile(const struct cr_oci_seccomp *sc, struct cr_policy *p, char *err,
			   size_t size)
{
	_cleanup_free_ struct cr_seccomp_rule_spec *rules = NULL;
	struct cr_seccomp_spec spec;
	struct cr_bpf_program prog = {}, *v;
	char msg[256] = "";
	int r = 0;

	if (!sc->present)
		return 0;
	if (sc->flags.n)
		return snprintf(err, size, "linux.seccomp.flags: not supported (corral oci features lists no "
				     "linux.seccomp.supportedFlags): leave them out"),
		       -EOPNOTSUPP;
	rules = calloc(sc->n_rules + 1, sizeof(*rules));
	if (!rules)
		return -ENOMEM;
	struct cr_seccomp_arg_spec args[sc->n_rules ? sc->n_rules : 1][6];

	for (size_t i = 0; i < sc->n_rules; i++) {
		const struct cr_oci_seccomp_rule *o = &sc->rules[i];

		if (o->n_args > 6)
			return snprintf(err, size, "linux.seccomp.syscalls[%zu].args: more than 6", i),
			       -EINVAL;
		for (size_t k = 0; k < o->n_args; k++)
			args[i][k] = (struct cr_seccomp_arg_spec){ .index = o->args[k].index,
								   .value = o->args[k].value,
								   .value_two = o->args[k].value_two,
								   .op = (int)o->args[k].op + 1 };
		rules[i] = (struct cr_seccomp_rule_spec){ .names = o->names.v, .n_names = o->names.n,
							  .action = action(o->action, o->errno_ret),
							  .args = args[i], .n_args = o->n_args };
	}
	spec = (struct cr_seccomp_spec){ .default_action = action(sc->default_action,
								  sc->default_errno_ret),
					 .rules = rules, .n_rules = sc->n_rules };
	r = cr_seccomp_compile_spec(&spec, &prog, msg, sizeof(msg));
	if (r < 0)
		return snprintf(err, size, "linux.seccomp: %s", msg[0] ? msg : strerror(-r)), r;
	v = reallocarray(p->ex.seccomp_programs, p->ex.n_seccomp_programs + 1, sizeof(*v));
	if (!v) {
		free(prog.insns);
		return -ENOMEM;
	}
	v[p->ex.n_seccomp_programs++] = prog;
	p->ex.seccomp_programs = v;
	return 0;
}
