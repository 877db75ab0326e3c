/* SPDX-License-Identifier: MIT */
/* A run's limits on the Linux driver: its cgroups and rlimits, made before clone, and the sizes
 * of its tmpfs mounts, which the memory limit bounds. The v1 run directories (a hybrid host's
 * memory and pids) are made after clone instead, while pid 1 builds the sandbox, and their tasks
 * files sent to pid 1 with the sync channel's second message; pid 1 joins them before it forks
 * the command (stage_cgroup_late()). The outcome is decided before clone, as if they had been
 * made; when making them fails, the run starts again as if nothing had been deferred. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "cgroup/cgroup.h"
#include "launcher/base/fd-util.h"
#include "launcher/base/log.h"
#include "launcher/base/stamp.h"
#include "linux-internal.h"
#include "ns-limits.h"

uint64_t cr_ns_host_ram(void)
{
	static uint64_t ram;
	struct sysinfo si;

	if (ram == 0 && sysinfo(&si) == 0)
		ram = (uint64_t)si.totalram * si.mem_unit;
	return ram;
}

static bool no_limits(const struct cr_limits *lim)
{
	for (int l = 0; l < _CR_LIMIT_MAX; l++)
		if (lim->value[l] != CR_LIMIT_UNSET && lim->value[l] != CR_LIMIT_INFINITY)
			return false;
	return true;
}

/* Whether the run could start again from scratch if the deferred directories fail: not with the
 * allow_hosts proxy (its socket goes to the first sandbox, once), nor with namespaces corral
 * itself entered for an explicit policy (they would be entered twice, and the directories made
 * from inside them). */
static bool may_defer(const struct cr_policy *p)
{
	return p->net != CR_NET_HOSTS &&
	       !(p->ex.on && (p->ex.userns_fd >= 0 || p->ex.joins || p->ex.pidns_fd >= 0));
}

static bool same_line(const struct cr_limits_report *a, const struct cr_limits_report *b, int l)
{
	return a && a->mode[l] == b->mode[l] && a->value[l] == b->value[l] &&
	       strcmp(a->why[l], b->why[l]) == 0;
}

/* One line per limit: a warning for one the command line asked for that is not enforced. With
 * @before (the report a failed deferral had given), only the lines that changed. */
static void log_limits(const struct cr_limits *lim, const struct cr_limits_report *rep,
		       const struct cr_limits_report *before)
{
	char v[32];

	for (int l = 0; l < _CR_LIMIT_MAX; l++) {
		if (same_line(before, rep, l))
			continue;
		cr_limit_format(l, rep->value[l], v, sizeof(v));
		if (rep->mode[l] == CR_LIMIT_MODE_RLIMIT && l == CR_LIMIT_MEMORY)
			cr_log_warning("%s %s is RLIMIT_AS: %s", cr_limit_option(l), v,
				       rep->why[l]);
		else if (rep->mode[l] != CR_LIMIT_MODE_NONE)
			cr_debug("limit %s=%s: %s", cr_limit_to_string(l), v,
				 cr_limit_mode_to_string(rep->mode[l]));
		else if (lim->set[l] && cr_limit_is_finite(lim->value[l]))
			cr_log_warning("%s %s is not enforced: %s", cr_limit_option(l), v,
				       rep->why[l]);
		else if (rep->why[l][0])
			cr_debug("default limit %s=%s: %s", cr_limit_to_string(l), v, rep->why[l]);
	}
}

int cr_ns_limits_prepare(const struct cr_policy *p, bool defer, struct cr_child_ctx *ctx,
			 struct cr_cgroup **ret_cg, enum cr_tmpfs_basis *ret_basis,
			 const struct cr_limits_report *before, struct cr_setup_error *err)
{
	struct cr_limits lim = p->limits;
	const struct cr_limits_report *rep;
	char msg[512] = "";
	int r;

	if (p->ex.on && no_limits(&lim))
		return 0; /* an explicit policy that asks for none: no cgroup, no rlimit */
	if (lim.value[CR_LIMIT_MEMORY] == CR_LIMIT_UNSET) /* as for pids: a default, not set */
		lim.value[CR_LIMIT_MEMORY] = cr_limit_default_memory(cr_ns_host_ram());
	r = cr_cgroup_create(&lim, defer && may_defer(p), ret_cg, msg, sizeof(msg));
	if (r < 0) {
		(void)snprintf(err->stage, sizeof(err->stage), "%s",
			       cr_stage_to_string(CR_STAGE_LIMITS));
		err->err = -r;
		(void)snprintf(err->message, sizeof(err->message), "%s",
			       msg[0] ? msg : strerror(-r));
		return r;
	}
	rep = cr_cgroup_report(*ret_cg);
	log_limits(&lim, rep, before);
	*ret_basis = cr_mount_plan_size_tmpfs(
		&ctx->plan, cr_ns_host_ram(), rep->value[CR_LIMIT_MEMORY],
		rep->mode[CR_LIMIT_MEMORY] == CR_LIMIT_MODE_CGROUP2 ||
			rep->mode[CR_LIMIT_MEMORY] == CR_LIMIT_MODE_CGROUP1);
	for (size_t i = 0; i < ctx->plan.n_ops; i++)
		if (ctx->plan.ops[i].size)
			cr_debug("tmpfs %s: size=%llu nr_inodes=%llu (%s)", ctx->plan.ops[i].dst,
				 (unsigned long long)ctx->plan.ops[i].size,
				 (unsigned long long)ctx->plan.ops[i].nr_inodes,
				 cr_tmpfs_basis_to_string(*ret_basis));
	ctx->rlimits = cr_cgroup_rlimits(*ret_cg);
	ctx->cgroup = *ret_cg;
	return 0;
}

int cr_ns_limits_realize(struct cr_cgroup *cg, int sync_w)
{
	int tasks[CR_CGROUP_TASKS_MAX];
	size_t n;
	int r;

	if (!cr_cgroup_pending(cg))
		return 0;
	r = cr_cgroup_realize(cg, tasks, &n);
	cr_stamp("cgroup_late");
	if (r < 0) {
		cr_debug("cgroup v1 directories after clone: %s; again, made before clone",
			 strerror(-r));
		return 1;
	}
	cr_debug("cgroup v1 directories and limits, after clone: %.3f ms in all",
		 cr_cgroup_setup_ms(cg));
	return sync_w < 0 ? 0 : cr_send_fds(sync_w, "c", 1, tasks, n, 0);
}
