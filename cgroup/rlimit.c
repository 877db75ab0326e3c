/* SPDX-License-Identifier: MIT */
/* The rlimit fallback, applied by the sandbox's pid 1 before it forks the command. RLIMIT_NPROC
 * means something here: the sandbox runs under its own mapped uid in its own user namespace, and
 * has no capability in the initial one that would exempt it. */
#include <errno.h>
#include <sched.h>
#include <sys/resource.h>

#include "rlimit.h"
#include "launcher/base/macro.h"

static int set_one(int resource, rlim_t v)
{
	/* RLIMIT_CPU: SIGXCPU at the limit, SIGKILL a second later if that is ignored. */
	struct rlimit cur, want = { v, resource == RLIMIT_CPU ? v + 1 : v };

	if (getrlimit(resource, &cur) < 0)
		return negative_errno();
	if (cur.rlim_max != RLIM_INFINITY && cur.rlim_max < want.rlim_max)
		want.rlim_max = cur.rlim_max; /* raising needs CAP_SYS_RESOURCE */
	if (want.rlim_cur > want.rlim_max)
		want.rlim_cur = want.rlim_max;
	if (setrlimit(resource, &want) < 0)
		return negative_errno();
	return 0;
}

/* Keep the first @cpus CPUs of the caller's affinity mask in @set; how many are kept. */
static unsigned first_cpus(unsigned cpus, cpu_set_t *set)
{
	unsigned kept = 0;

	if (cpus == 0 || sched_getaffinity(0, sizeof(*set), set) < 0)
		return 0;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set) && kept++ >= cpus)
			CPU_CLR(c, set);
	return kept < cpus ? kept : cpus;
}

unsigned cr_rlimits_cpus(unsigned cpus)
{
	cpu_set_t set;

	return first_cpus(cpus, &set);
}

int cr_rlimits_apply(const struct cr_rlimits *rl)
{
	cpu_set_t set;
	int r;

	for (unsigned i = 0; rl && i < rl->n; i++) {
		r = set_one(rl->r[i].resource, (rlim_t)rl->r[i].value);
		if (r < 0)
			return r;
	}
	if (rl && first_cpus(rl->cpus, &set) > 0 && sched_setaffinity(0, sizeof(set), &set) < 0)
		return negative_errno();
	return set_one(RLIMIT_CORE, 0);
}
