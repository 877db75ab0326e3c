/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>

#include "landlock-plan.h"
#include "landlock/landlock.h"
#include "landlock-rules.h"
#include "launcher/base/log.h"
#include "launcher/base/time-util.h"
#include "mount-plan.h"
#include "launcher/policy/policy.h"

void cr_ns_landlock_warn(const struct cr_landlock_plan *plan)
{
	char list[512];

	if (plan->mode == CR_LANDLOCK_OFF)
		return;
	if (plan->abi == 0) {
		cr_log_warning("Landlock is not available in this kernel: the sandbox runs without it ('corral doctor' says how to enable it; --landlock=required refuses to run without it)");
		return;
	}
	if (cr_landlock_dropped_text(plan, list, sizeof(list)) > 0)
		cr_log_warning(
			"Landlock ABI %d lacks what the policy asks for, so it is not enforced: %s ('corral doctor' lists it; --landlock=required refuses to run without it)",
			plan->abi, list);
}

int cr_ns_landlock_prepare(const struct cr_policy *p, const struct cr_mount_plan *mounts,
			   struct cr_landlock_plan *ret, char *msg, size_t size)
{
	struct cr_landlock_plan plan;
	int64_t t0 = cr_now_ns();
	int r;

	r = cr_landlock_plan_init(p, cr_landlock_abi(), false, &plan, msg, size);
	if (r < 0)
		return r;
	if (plan.enabled) {
		r = cr_landlock_rules_sandbox(mounts, &plan);
		if (r < 0) {
			cr_landlock_plan_done(&plan);
			return r;
		}
	}
	cr_debug("landlock: plan for ABI %d (%zu path rules) computed in %" PRId64 " us", plan.abi,
		 plan.n_rules, (cr_now_ns() - t0) / 1000);
	cr_ns_landlock_warn(&plan);
	if (p->net == CR_NET_NONE && (p->tcp_connect || p->tcp_bind) && plan.enabled)
		cr_log_warning("--tcp-connect/--tcp-bind are unnecessary with --net=none, whose network has only loopback; they restrict TCP on loopback");
	*ret = plan;
	return 0;
}
