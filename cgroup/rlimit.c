/* SPDX-License-Identifier: MIT */
/* The rlimit fallback, applied by the sandbox's pid 1 before it forks the command. RLIMIT_NPROC
 * means something here: the sandbox runs under its own mapped uid in its own user namespace, and
 * has no capability in the initial one that would exempt it. */
#include <errno.h>
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

int cr_rlimits_apply(const struct cr_rlimits *rl)
{
	int r;

	for (unsigned i = 0; rl && i < rl->n; i++) {
		r = set_one(rl->r[i].resource, (rlim_t)rl->r[i].value);
		if (r < 0)
			return r;
	}
	return set_one(RLIMIT_CORE, 0);
}
