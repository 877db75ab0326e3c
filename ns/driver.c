/* SPDX-License-Identifier: MIT */
/* The Linux driver: one clone into new user, mount, pid, net, ipc, uts and cgroup namespaces;
 * the parent writes the id maps, forwards signals and collects the child's reports. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <json-c/json.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "degraded.h"
#include "launcher/base/stamp.h"
#include "launcher/base/exit-codes.h"
#include "landlock-plan.h"
#include "launcher/base/time-util.h"
#include "linux-internal.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "ns.h"
#include "ns-limits.h"
#include "launcher/base/path-util.h"
#include "ns/net/proxy.h"
#include "seccomp/seccomp.h"
#include "zygote.h"

struct cr_run {
	const struct cr_policy *policy;
	struct cr_child_ctx ctx;
	unsigned long clone_flags;
	pid_t pid;
	int msg_fd;
	int sig_fd;
	int sync_w; /* held open while the sandbox lives: its pid 1 sees POLLHUP if corral dies */
	sigset_t old_mask;
	bool mask_saved;
	bool reaped;
	bool msg_eof;
	int init_status;   /* wait status of the sandbox's pid 1 */
	bool have_exit;
	int cmd_status;	   /* wait status of the command */
	bool have_error;
	struct cr_setup_error error;
	struct cr_cgroup *cgroup; /* the run's cgroups and rlimits; created in prepare */
	struct cr_seccomp *seccomp; /* the command's syscall filter; prepared in prepare */
	bool oom_killed, pids_limit_hit;
	bool deadline_hit; /* pid 1 reported the deadline (corral was stopped past it, or late) */
	bool stopped;	   /* degraded mode: corral stopped the command's process group */
	struct cr_degraded *degraded; /* --allow-degraded, and clone could not make namespaces */
	struct cr_proxy *proxy; /* allow_hosts: the proxy, and the policy the sandbox runs with */
	enum cr_tmpfs_basis tmpfs_basis; /* what sized the plan's writable tmpfs mounts */
	struct cr_idmap_helpers idmap_helpers; /* made the idmapped mounts' user namespaces */
};

static const struct {
	unsigned long flag;
	const char *name;
} namespaces[] = {
	{ CLONE_NEWUSER, "user" }, { CLONE_NEWNS, "mount" }, { CLONE_NEWPID, "pid" },
	{ CLONE_NEWNET, "net" },   { CLONE_NEWIPC, "ipc" },  { CLONE_NEWUTS, "uts" },
	{ CLONE_NEWCGROUP, "cgroup" },
};

unsigned long cr_ns_clone_flags(enum cr_net_mode net)
{
	unsigned long flags = 0;

	for (size_t i = 0; i < ELEMENTSOF(namespaces); i++)
		flags |= namespaces[i].flag;
	if (net == CR_NET_HOST)
		flags &= ~(unsigned long)CLONE_NEWNET;
	return flags;
}

static void set_error(struct cr_setup_error *e, enum cr_stage stage, int err, const char *fmt, ...)
	_printf_(4, 5);
static void set_error(struct cr_setup_error *e, enum cr_stage stage, int err, const char *fmt, ...)
{
	va_list ap;

	(void)snprintf(e->stage, sizeof(e->stage), "%s", cr_stage_to_string(stage));
	e->err = err;
	va_start(ap, fmt);
	(void)vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
}

/* Paths the sandbox gets from the kernel, not from the host. */
static const char *const synthetic_roots[] = { "/proc", "/dev" };

static int check_policy(const struct cr_policy *p, struct cr_setup_error *err)
{
	if (p->ex.on)
		goto ids;
	for (size_t i = 0; i < p->n_paths; i++)
		for (size_t j = 0; j < ELEMENTSOF(synthetic_roots); j++)
			if (cr_path_is_within(p->paths[i].path, synthetic_roots[j])) {
				set_error(err, CR_STAGE_MOUNTS, EINVAL,
					  "--%s %s: paths under %s are made by the sandbox itself and cannot be bound or hidden",
					  cr_path_access_to_string(p->paths[i].access),
					  p->paths[i].path, synthetic_roots[j]);
				return -EINVAL;
			}
	for (size_t i = 0; i < p->n_caches; i++)
		for (size_t j = 0; j < ELEMENTSOF(synthetic_roots); j++)
			if (cr_path_is_within(p->caches[i].path, synthetic_roots[j]) ||
			    !p->caches[i].dir) {
				set_error(err, CR_STAGE_MOUNTS, EINVAL,
					  !p->caches[i].dir
						  ? "cache %s: its directory was not made (%s)"
						  : "--cache %s=%s: paths under /proc and /dev are made by the sandbox itself",
					  p->caches[i].name, p->caches[i].path);
				return -EINVAL;
			}
	for (size_t j = 0; j < ELEMENTSOF(synthetic_roots); j++)
		if (cr_path_is_within(p->workspace, synthetic_roots[j])) {
			set_error(err, CR_STAGE_MOUNTS, EINVAL,
				  "--workspace %s: paths under %s cannot be the workspace",
				  p->workspace, synthetic_roots[j]);
			return -EINVAL;
		}
ids:
	if (geteuid() != getuid()) {
		set_error(err, CR_STAGE_CREDS, EPERM,
			  "corral is running set-uid; it must be run by the user it sandboxes");
		return -EPERM;
	}
	return 0;
}

static bool idmapped(const struct cr_mount_plan *plan, const char *dst)
{
	for (size_t i = 0; i < plan->n_ops; i++)
		if ((plan->ops[i].flags & CR_MNT_IDMAPPED) && strcmp(plan->ops[i].dst, dst) == 0)
			return true;
	return false;
}

static void warn_unwritable_workspace(const struct cr_policy *p, const struct cr_idmap *m,
				      const struct cr_mount_plan *plan)
{
	struct stat st;

	if (getuid() != 0 || p->workspace_ro || idmapped(plan, p->workspace) ||
	    stat(p->workspace, &st) < 0)
		return;
	if ((st.st_uid == m->outside_uid && (st.st_mode & S_IWUSR)) ||
	    (st.st_gid == m->outside_gid && (st.st_mode & S_IWGRP)) || (st.st_mode & S_IWOTH))
		return;
	if (st.st_uid == m->outside_uid)
		cr_log_warning("the sandbox runs as host uid %u, the owner of the workspace %s, whose mode %04o does not let its owner write; chmod u+w it to make it writable",
			       m->outside_uid, p->workspace, (unsigned)(st.st_mode & 07777));
	else if (st.st_uid != 0)
		cr_log_warning("the sandbox runs as host uid %u, which cannot write to the workspace %s; "
			       "pass --uid %u (its owner) to make it writable",
			       m->outside_uid, p->workspace, st.st_uid);
	else
		cr_log_warning("the sandbox runs as host uid %u, which cannot write to the workspace %s "
			       "(owned by root); chown it to uid %u or pass --uid of a user that owns it",
			       m->outside_uid, p->workspace, m->outside_uid);
}

/* The caller's PATH entries that the sandbox does not show (launcher/policy/path-env.h). */
static void warn_path_hidden(const struct cr_policy *p)
{
	char list[1024] = "";
	size_t n = 0;

	for (char **e = p->path_hidden; e && *e && n < sizeof(list); e++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "",
				      **e ? *e : "(empty: the working directory)");
	if (n)
		cr_log_warning("PATH inside the sandbox leaves out what it does not show: %s (to keep one, show its directory: --ro DIR, or read_if_exists = DIR in a profile)",
			       list);
}

/* The Landlock plan: the rights this kernel has, the rules from the mount plan. --landlock=required
 * or --landlock-min-abi that the kernel cannot satisfy fail here, at stage "landlock". */
static int prepare_landlock(struct cr_run *run, struct cr_setup_error *err)
{
	char msg[512] = "";
	int r;

	r = cr_ns_landlock_prepare(run->policy, &run->ctx.plan, &run->ctx.landlock, msg,
				   sizeof(msg));
	if (r < 0)
		set_error(err, CR_STAGE_LANDLOCK, -r, "%s", msg[0] ? msg : strerror(-r));
	return r;
}


static bool userns_refused(int r)
{
	return r == -EPERM || r == -ENOSPC || r == -EACCES || r == -EINVAL;
}

/* Root's run: the writable binds other host users own become idmapped trees (ns/idmap.h), and the
 * command gets the filter that refuses set-id bits, which would be the owner's there. */
static int prepare_idmapped(struct cr_run *run, struct cr_seccomp *seccomp,
			    struct cr_setup_error *err)
{
	const struct cr_mount_plan *plan = &run->ctx.plan;
	char msg[512] = "";
	double t0 = cr_now_ms_f();
	size_t n = 0;
	int r;

	if (getuid() != 0 || (run->policy->ex.on && !run->policy->ex.idmap_root))
		return 0;
	r = cr_idmap_plan(&run->ctx.plan, &run->ctx.idmap, &run->idmap_helpers, &n, msg,
			  sizeof(msg));
	if (r < 0 && userns_refused(r) && run->policy->allow_degraded) {
		/* Degraded mode, if it comes to that, has no mounts to idmap: say so, go on. */
		cr_log_warning("%s; going on without idmapped mounts (--allow-degraded)", msg);
		for (size_t i = 0; i < plan->n_ops; i++)
			if (plan->ops[i].flags & CR_MNT_IDMAPPED) {
				closep(&run->ctx.plan.ops[i].src_fd);
				run->ctx.plan.ops[i].flags &= ~(unsigned)CR_MNT_IDMAPPED;
			}
		return 0;
	}
	if (r >= 0 && n > 0)
		r = cr_seccomp_add_setid(seccomp, msg, sizeof(msg));
	if (r < 0) {
		set_error(err, CR_STAGE_MOUNTS, -r, "%s", msg[0] ? msg : strerror(-r));
		return r;
	}
	for (size_t i = 0; i < plan->n_ops; i++)
		if (plan->ops[i].flags & CR_MNT_IDMAPPED)
			cr_debug("idmapped %s: host uid %u gid %u (its owner) is the sandbox's %u/%u there",
				 plan->ops[i].dst, plan->ops[i].owner_uid, plan->ops[i].owner_gid,
				 run->ctx.idmap.outside_uid, run->ctx.idmap.outside_gid);
	if (n > 0)
		cr_debug("idmapped mounts (user namespaces, trees): %.3f ms", cr_now_ms_f() - t0);
	return 0;
}

/* The syscall filter, ready before clone: a built-in program, or a profile compiled (or taken
 * from the cache) here, in corral's own process, never in the sandbox. */
static int prepare_seccomp(const struct cr_policy *p, struct cr_seccomp **ret,
			   struct cr_setup_error *err)
{
	char msg[512] = "";
	int r;

	r = cr_seccomp_prepare(p->seccomp, p->seccomp_profile, !p->no_spawn, p->ptrace, ret, msg,
			       sizeof(msg));
	if (r < 0) {
		set_error(err, CR_STAGE_SECCOMP, -r, "%s", msg[0] ? msg : strerror(-r));
		return r;
	}
	return 0;
}

/* allow_hosts: the proxy's socketpair, and the policy the sandbox gets, whose environment points
 * at the proxy. Nothing runs yet: the proxy's thread starts after clone. Without allow_hosts,
 * nothing at all. */
static int prepare_proxy(const struct cr_policy *p, struct cr_proxy **ret,
			 struct cr_setup_error *err)
{
	int r;

	if (p->net != CR_NET_HOSTS)
		return 0;
	r = cr_proxy_new(p, ret);
	if (r < 0)
		set_error(err, CR_STAGE_LOOPBACK, -r, "cannot prepare the allow_hosts proxy: %s",
			  strerror(-r));
	return r;
}

static int linux_prepare(const struct cr_policy *p, struct cr_run **ret,
			 struct cr_setup_error *err)
{
	_cleanup_free_ struct cr_run *run = NULL;
	_cleanup_(cr_seccomp_freep) struct cr_seccomp *seccomp = NULL;
	_cleanup_(cr_proxy_freep) struct cr_proxy *proxy = NULL;
	struct cr_setup_error scratch;
	int r;

	if (!err)
		err = &scratch;
	r = check_policy(p, err);
	if (r < 0)
		return r;
	r = prepare_seccomp(p, &seccomp, err);
	if (r < 0)
		return r;
	cr_stamp("seccomp");
	r = prepare_proxy(p, &proxy, err);
	if (r < 0)
		return r;
	if (proxy)
		p = cr_proxy_policy(proxy);
	run = calloc(1, sizeof(*run));
	if (!run)
		return -ENOMEM;
	*run = (struct cr_run){
		.policy = p,
		.clone_flags = cr_ns_clone_flags(p->net),
		.pid = -1,
		.msg_fd = -EBADF,
		.sig_fd = -EBADF,
		.sync_w = -EBADF,
		.ctx = { .policy = p, .sync_fd = -EBADF, .msg_fd = -EBADF, .max_userns_fd = -EBADF,
			 .proxy_fd = proxy ? cr_proxy_sandbox_fd(proxy) : -EBADF,
			 .proxy_listen_fd = -EBADF, .parent_stat_fd = -EBADF, .proc_fd = -EBADF },
	};
	if (p->ex.on) {
		run->clone_flags = cr_ns_explicit_clone_flags(p->ex.namespaces);
		cr_idmap_explicit(&p->ex, getuid(), getgid(), &run->ctx.idmap);
	} else {
		cr_idmap_compute(getuid(), getgid(), p->map_root, p->uid, p->gid, &run->ctx.idmap);
	}
	r = cr_mount_plan_build(p, &cr_host_view_real, &run->ctx.plan);
	if (r < 0)
		return r;
	cr_stamp("mount_plan");
	r = prepare_idmapped(run, seccomp, err);
	if (r >= 0)
		r = prepare_landlock(run, err);
	cr_stamp("landlock_plan");
	if (r < 0) {
		cr_mount_plan_done(&run->ctx.plan);
		cr_idmap_reap(&run->idmap_helpers);
		return r;
	}
	r = cr_ns_limits_prepare(p, true, &run->ctx, &run->cgroup, &run->tmpfs_basis, NULL, err);
	cr_stamp("cgroup");
	if (r < 0) {
		cr_mount_plan_done(&run->ctx.plan);
		cr_idmap_reap(&run->idmap_helpers);
		cr_landlock_plan_done(&run->ctx.landlock);
		return r;
	}
	if (!p->ex.on)
		warn_unwritable_workspace(p, &run->ctx.idmap, &run->ctx.plan);
	warn_path_hidden(p);
	for (size_t i = 0; i < run->ctx.plan.n_ops; i++) {
		const struct cr_mount_op *op = &run->ctx.plan.ops[i];
		const char *src = op->kind == CR_MOUNT_TEXT ? NULL : op->src; /* not the id */

		cr_debug("mount plan: %-7s %s%s%s%s%s", cr_mount_kind_to_string(op->kind), op->dst,
			 src ? " <- " : "", src ?: "",
			 op->flags & CR_MNT_WRITABLE ? " (writable)" : "",
			 op->flags & CR_MNT_IDMAPPED ? " (idmapped)" : "");
	}
	run->seccomp = TAKE_PTR(seccomp);
	run->ctx.seccomp = run->seccomp;
	run->proxy = TAKE_PTR(proxy);
	*ret = TAKE_PTR(run);
	return 0;
}

/* With @cgroup_fd (a cgroup v2 directory), the child starts inside that cgroup: it is never,
 * even briefly, outside it. *ret_in_cgroup says whether that happened. */
static pid_t clone_child(unsigned long flags, int cgroup_fd, bool *ret_in_cgroup)
{
	struct clone_args args = { .flags = flags, .exit_signal = SIGCHLD };
	long pid;

	if (cgroup_fd >= 0) {
		args.flags |= CLONE_INTO_CGROUP;
		args.cgroup = (uint64_t)cgroup_fd;
	}
	*ret_in_cgroup = cgroup_fd >= 0;
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid < 0 && errno == ENOSYS) { /* FIXME: drop once Linux 5.7 is the baseline */
		*ret_in_cgroup = false;
		pid = syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0);
	}
	return (pid_t)pid;
}

/* Take SIGCHLD, the interrupt signals and those of job control through a signalfd. One that
 * corral was started with ignored (nohup, a background job) stays ignored, for corral and for the
 * command: a blocked signal is queued even when ignored, so it must not be blocked. */
static void block_signals(struct cr_run *run, sigset_t *set)
{
	static const int interrupts[] = { SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGTTIN, SIGTTOU };
	struct sigaction sa;

	(void)sigemptyset(set);
	(void)sigemptyset(&run->ctx.ignored);
	(void)sigaddset(set, SIGCHLD);
	(void)sigaddset(set, SIGCONT);
	for (size_t i = 0; i < ELEMENTSOF(interrupts); i++) {
		if (sigaction(interrupts[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			(void)sigaddset(&run->ctx.ignored, interrupts[i]);
		else
			(void)sigaddset(set, interrupts[i]);
	}
	(void)sigprocmask(SIG_BLOCK, set, &run->old_mask);
	run->mask_saved = true;
}

/* The sync pipe (parent -> child) and the report pipe (child -> parent), both O_CLOEXEC. The
 * sync channel is a socket (sync_pipe[0] the child's end) when it also carries the tasks files of
 * cgroups made after clone (cr_ns_limits_realize()). */
static int make_pipes(int sync_pipe[2], int msg_pipe[2], bool socket)
{
	if (socket ? socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sync_pipe) < 0
		   : pipe2(sync_pipe, O_CLOEXEC) < 0)
		return negative_errno();
	if (pipe2(msg_pipe, O_CLOEXEC) < 0) {
		int r = negative_errno();

		(void)close(sync_pipe[0]);
		(void)close(sync_pipe[1]);
		return r;
	}
	return 0;
}

/* The cgroups deferred to after clone could not be made: pid 1 (waiting for them, nothing forked
 * yet) goes, and the limits are prepared again as if nothing had been deferred: the modes, the
 * rlimits and the tmpfs sizes of a run that made them before clone, and its warnings. */
static int limits_again(struct cr_run *run)
{
	struct cr_limits_report before = *cr_cgroup_report(run->cgroup);
	int r;

	if (run->pid > 0) {
		(void)kill(run->pid, SIGKILL);
		(void)waitpid(run->pid, NULL, 0);
		run->pid = -1;
	}
	closep(&run->msg_fd); /* closep() leaves the number: reset, as others close them again */
	closep(&run->sync_w);
	run->msg_fd = run->sync_w = -EBADF;
	run->cgroup = run->ctx.cgroup = cr_cgroup_free(run->cgroup);
	run->ctx.rlimits = NULL;
	r = cr_ns_limits_prepare(run->policy, false, &run->ctx, &run->cgroup, &run->tmpfs_basis,
				 &before, &run->error);
	if (r < 0)
		run->have_error = true;
	return r;
}

/* Degraded mode, once clone could not make the namespaces (@clone_err): the command in a plain
 * child, placed in the run's cgroups, started once it is there. */
static int start_degraded(struct cr_run *run, int clone_err)
{
	int sync_pipe[2], msg_pipe[2], r;
	bool in_cgroup;
	pid_t pid, parent = getpid();

	r = cr_degraded_prepare(&run->ctx, clone_err, &run->degraded, &run->error);
	if (r < 0) {
		run->have_error = true;
		return r;
	}
	r = cr_ns_limits_realize(run->cgroup, -EBADF); /* nothing to overlap: made now */
	if (r > 0)
		r = limits_again(run);
	if (r < 0)
		return r;
	r = make_pipes(sync_pipe, msg_pipe, false);
	if (r < 0)
		return r;
	closep(&run->msg_fd);
	run->msg_fd = msg_pipe[0];
	run->ctx.msg_fd = msg_pipe[1];
	pid = clone_child(0, cr_cgroup_clone_fd(run->cgroup), &in_cgroup);
	if (pid == 0) {
		(void)close(sync_pipe[1]);
		(void)close(msg_pipe[0]);
		cr_degraded_child_main(&run->ctx, run->degraded, sync_pipe[0], parent);
	}
	(void)close(sync_pipe[0]);
	closep(&run->ctx.msg_fd);
	run->sync_w = sync_pipe[1];
	if (pid < 0)
		return negative_errno();
	run->pid = pid;
	r = cr_cgroup_attach(run->cgroup, pid, in_cgroup, true);
	if (r < 0) {
		set_error(&run->error, CR_STAGE_LIMITS, -r,
			  "cannot move the command into its cgroup: %s", strerror(-r));
		run->have_error = true;
		(void)kill(pid, SIGKILL);
		return r;
	}
	if (write(run->sync_w, "1", 1) != 1)
		return negative_errno();
	cr_cgroup_sweep(run->cgroup);
	return 0;
}

static int start_child(struct cr_run *run, int *sync_w)
{
	int sync_pipe[2], msg_pipe[2], r;
	bool in_cgroup;
	pid_t pid;

	r = cr_ns_explicit_enter(run->policy, &run->error);
	if (r < 0) {
		run->have_error = true;
		return r;
	}
	r = make_pipes(sync_pipe, msg_pipe, cr_cgroup_pending(run->cgroup));
	if (r < 0)
		return r;
	run->ctx.sync_fd = sync_pipe[0];
	run->ctx.msg_fd = msg_pipe[1];
	cr_stamp("pre_clone");
	pid = clone_child(run->clone_flags, cr_cgroup_clone_fd(run->cgroup), &in_cgroup);
	if (pid == 0) {
		(void)close(sync_pipe[1]);
		(void)close(msg_pipe[0]);
		cr_child_main(&run->ctx);
	}
	cr_stamp("clone");
	closep(&run->ctx.sync_fd);
	closep(&run->ctx.msg_fd);
	run->msg_fd = msg_pipe[0];
	*sync_w = sync_pipe[1];
	if (pid < 0) {
		char fix[256] = "";
		bool warm = run->ctx.warm_pool > 0;

		r = negative_errno();
		closep(sync_w);
		/* A warm sandbox is its namespaces: never degraded. */
		if (userns_refused(r) && run->policy->allow_degraded && !warm)
			return start_degraded(run, -r);
		if (userns_refused(r))
			cr_ns_userns_fix(fix, sizeof(fix));
		set_error(&run->error, CR_STAGE_CLONE, -r,
			  "cannot create the namespaces%s: %s%s%s; 'corral doctor' checks this host%s",
			  warm ? " a warm sandbox needs (it has no degraded mode)" : "",
			  strerror(-r), fix[0] ? "; fix: " : "", fix,
			  userns_refused(r) && run->ctx.landlock.enabled && !warm
				  ? "; or pass --allow-degraded to run under Landlock without them"
				  : "");
		run->have_error = true;
		return r;
	}
	run->pid = pid;
	/* Where clone3 could not place it in the v2 directory (no clone3), the child is moved now,
	 * while it still waits for the sync byte and has done nothing. It joins its v1 hierarchies
	 * itself, right after the sync byte (stage_cgroup(): far cheaper than a write here). */
	r = cr_cgroup_attach(run->cgroup, pid, in_cgroup, false);
	if (r < 0) {
		set_error(&run->error, CR_STAGE_LIMITS, -r,
			  "cannot move the sandbox into its cgroup: %s", strerror(-r));
		run->have_error = true;
		(void)kill(pid, SIGKILL);
		return r;
	}
	cr_debug("cgroup setup (create, limits, placement%s): %.3f ms",
		 in_cgroup ? " by CLONE_INTO_CGROUP" : "", cr_cgroup_setup_ms(run->cgroup));
	return 0;
}

/* Clone the sandbox's pid 1, start the proxy, write the id maps, send the sync byte, make the
 * cgroups left until after clone: spawn less the launcher's signal handling, which a warm
 * sandbox does without. 1: those cgroups failed, pid 1 must go and the run start again. */
static int spawn_once(struct cr_run *run)
{
	const char *file = "uid_map";
	int r;

	/* Root's supplementary groups (0 among them) would otherwise follow it into the sandbox,
	 * where setgroups is denied and they could never be dropped. */
	if (getuid() == 0 && !run->policy->ex.on && setgroups(0, NULL) < 0)
		return negative_errno();
	r = start_child(run, &run->sync_w);
	if (r < 0 || run->degraded)
		return r;
	if (run->proxy) {
		r = cr_proxy_start(run->proxy);
		run->ctx.proxy_fd = -EBADF; /* closed: the sandbox has its copy */
		if (r < 0) {
			set_error(&run->error, CR_STAGE_LOOPBACK, -r,
				  "cannot start the allow_hosts proxy: %s", strerror(-r));
			run->have_error = true;
			(void)kill(run->pid, SIGKILL);
			return r;
		}
	}
	r = run->clone_flags & CLONE_NEWUSER ? cr_idmap_write(run->pid, &run->ctx.idmap, &file) : 0;
	cr_stamp("uid_map");
	if (r < 0) {
		set_error(&run->error, CR_STAGE_UID_MAP, -r, "cannot write %s of the sandbox: %s",
			  file, strerror(-r));
		run->have_error = true;
		(void)kill(run->pid, SIGKILL);
		return r;
	}
	if (write(run->sync_w, "1", 1) != 1)
		return negative_errno();
	/* While the sandbox builds itself: the sweep first, while pid 1's first stages make few
	 * system calls; the directories pid 1 joins only before its fork. */
	cr_cgroup_sweep(run->cgroup);
	cr_stamp("sweep");
	return cr_ns_limits_realize(run->cgroup, run->sync_w);
}

static int spawn_sandbox(struct cr_run *run)
{
	int r = spawn_once(run);

	if (r > 0) {
		r = limits_again(run);
		if (r >= 0)
			r = spawn_once(run); /* nothing is deferred now: never 1 */
	}
	return r;
}

/* What pid 1 needs to follow corral's job control and keep the deadline (ns/jobs.c): corral's
 * state, readable through an open /proc file whatever pid 1 later mounts or becomes, and the
 * deadline, which starts now. */
static void prepare_jobs(struct cr_run *run)
{
	const struct cr_policy *p = run->policy;
	run->ctx.parent_stat_fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	if (run->ctx.parent_stat_fd < 0)
		cr_debug("cannot open /proc/self/stat (%m): the sandbox will not follow a SIGSTOP");
	run->ctx.kill_after_ms = p->kill_after_ms;
	if (p->timeout_ms)
		run->ctx.deadline_ns = cr_now_ns() + (int64_t)p->timeout_ms * 1000000;
}

static int linux_spawn(struct cr_run *run)
{
	sigset_t set;
	int r;

	block_signals(run, &set);
	run->sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (run->sig_fd < 0)
		return negative_errno();
	prepare_jobs(run);
	r = spawn_sandbox(run);
	closep(&run->ctx.parent_stat_fd); /* pid 1 has its copy */
	run->ctx.parent_stat_fd = -EBADF;
	return r;
}

static void take_msg(struct cr_run *run, const struct cr_child_msg *m);

/* corral serve (ns/zygote.c): the sandbox of a prepared run, whose pid 1 becomes the zygote of
 * @pool workers and talks over @control_fd. No signal is blocked or forwarded: the server has its
 * own handling, and pid 1 is reaped by run_free(). */
int cr_ns_spawn_warm(struct cr_run *run, unsigned pool, int control_fd,
		     struct cr_setup_error *ret_error)
{
	int r;

	run->ctx.warm_pool = pool;
	run->ctx.warm_fd = control_fd;
	r = spawn_sandbox(run);
	/* pid 1 went before it took the sync byte or its cgroups (EPIPE): the reason it sent
	 * first, e.g. EMFILE, rather than the broken pipe it left */
	if (r == -EPIPE && !run->have_error && run->msg_fd >= 0) {
		struct pollfd pfd = { .fd = run->msg_fd, .events = POLLIN };
		struct cr_child_msg m;

		if (poll(&pfd, 1, 1000) > 0 && read(run->msg_fd, &m, sizeof(m)) == sizeof(m))
			take_msg(run, &m);
	}
	if (r < 0 && run->have_error)
		*ret_error = run->error;
	else if (r < 0)
		set_error(ret_error, CR_STAGE_CLONE, -r, "cannot start the warm sandbox: %s",
			  strerror(-r));
	return r;
}

pid_t cr_ns_run_pid(const struct cr_run *run)
{
	return run->pid;
}

int cr_ns_run_msg_fd(const struct cr_run *run)
{
	return run->msg_fd;
}

struct cr_cgroup *cr_ns_run_cgroup(const struct cr_run *run)
{
	return run->cgroup;
}

/* For EMFILE: the limit in force, which the sandbox's pid 1 shares with corral (it opens every
 * mount source before it mounts: about 24 descriptors for the default policy). */
static const char *emfile_hint(int err, char *buf, size_t size)
{
	struct rlimit rl;

	if (err != EMFILE || getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return "";
	(void)snprintf(buf, size, " (RLIMIT_NOFILE is %llu; raise it, e.g. ulimit -n 1024)",
		       (unsigned long long)rl.rlim_cur);
	return buf;
}

static void take_msg(struct cr_run *run, const struct cr_child_msg *m)
{
	char hint[96];

	if (m->type == CR_MSG_TIMEOUT) {
		run->deadline_hit = true;
		return;
	}
	if (m->type == CR_MSG_EXIT) {
		run->have_exit = true;
		run->cmd_status = m->status;
		return;
	}
	if (m->type != CR_MSG_ERROR || run->have_error)
		return;
	run->have_error = true;
	if (m->stage == CR_STAGE_EXEC)
		set_error(&run->error, CR_STAGE_EXEC, m->err, "cannot execute '%s': %s%s", m->detail,
			  strerror(m->err), m->err == ENOENT ? " (not found in the sandbox)" : "");
	else
		set_error(&run->error, (enum cr_stage)m->stage, m->err, "%s%s%s%s",
			  m->detail, m->detail[0] ? ": " : "", strerror(m->err),
			  emfile_hint(m->err, hint, sizeof(hint)));
}

static void read_msgs(struct cr_run *run)
{
	struct cr_child_msg m;
	ssize_t n;

	while ((n = read(run->msg_fd, &m, sizeof(m))) == sizeof(m))
		take_msg(run, &m);
	if (n == 0)
		run->msg_eof = true;
}

/* Job control: SIGTSTP, SIGTTIN or SIGTTOU stop the sandbox, then corral itself (its shell sees
 * it stopped); SIGCONT continues the sandbox. pid 1 does both (ns/jobs.c) and knows whether the
 * sandbox is stopped; degraded, the command's process group is stopped and continued. */
static void job_control(struct cr_run *run, int sig)
{
	if (sig == SIGCONT && run->degraded && run->stopped) {
		(void)kill(-run->pid, SIGCONT);
		run->stopped = false;
	} else if (sig == SIGCONT && !run->degraded) {
		(void)kill(run->pid, SIGCONT);
	} else if (sig != SIGCONT) {
		cr_debug("signal %d: stopping the sandbox, then corral", sig);
		(void)kill(run->degraded ? -run->pid : run->pid, run->degraded ? SIGSTOP : SIGTSTP);
		run->stopped = run->degraded != NULL;
		(void)raise(SIGSTOP);
	}
}

static void read_signals(struct cr_run *run)
{
	struct signalfd_siginfo si;

	while (read(run->sig_fd, &si, sizeof(si)) == sizeof(si)) {
		int sig = (int)si.ssi_signo;

		if (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU || sig == SIGCONT) {
			if (!run->reaped)
				job_control(run, sig);
			continue;
		}
		if (sig != SIGCHLD) {
			/* pid 1 forwards it to everything in the sandbox; degraded, the command's
			 * process group gets it. */
			(void)kill(run->degraded ? -run->pid : run->pid, sig);
			continue;
		}
		if (!run->reaped && waitpid(run->pid, &run->init_status, WNOHANG) == run->pid)
			run->reaped = true;
	}
}

static void fill_outcome(const struct cr_run *run, struct cr_outcome *o)
{
	*o = (struct cr_outcome){};
	if (run->have_error) {
		o->kind = strcmp(run->error.stage, "exec") == 0 ? CR_OUTCOME_EXEC_FAILED
								 : CR_OUTCOME_SETUP_FAILED;
		o->error = run->error;
	} else if (run->have_exit && WIFEXITED(run->cmd_status)) {
		o->kind = CR_OUTCOME_EXITED;
		o->status = WEXITSTATUS(run->cmd_status);
	} else if (run->have_exit) {
		o->kind = CR_OUTCOME_SIGNALED;
		o->status = WTERMSIG(run->cmd_status);
	} else if (WIFSIGNALED(run->init_status)) {
		/* pid 1 itself was killed (a forced stop): so was everything in the sandbox. */
		o->kind = CR_OUTCOME_SIGNALED;
		o->status = WTERMSIG(run->init_status);
	} else if (WEXITSTATUS(run->init_status) > CR_EXIT_SIGNAL_BASE) {
		int sig = WEXITSTATUS(run->init_status) - CR_EXIT_SIGNAL_BASE;

		o->kind = CR_OUTCOME_SETUP_FAILED;
		set_error(&o->error, CR_STAGE_SYNC, EINTR,
			  "setup was interrupted by signal %d (%s) before the command started", sig,
			  strsignal(sig));
	} else {
		o->kind = CR_OUTCOME_SETUP_FAILED;
		set_error(&o->error, CR_STAGE_SYNC, EPROTO,
			  "the sandbox's init exited with status %d before reporting",
			  WEXITSTATUS(run->init_status));
	}
	o->oom_killed = run->oom_killed;
	o->pids_limit_hit = run->pids_limit_hit;
	o->timed_out = run->deadline_hit;
}

static int linux_wait(struct cr_run *run, int64_t timeout_ms, struct cr_outcome *ret)
{
	int64_t deadline = timeout_ms < 0 ? -1 : cr_now_ms() + timeout_ms;

	if (run->pid < 0 && run->have_error) { /* clone itself failed */
		fill_outcome(run, ret);
		return 0;
	}
	if (run->pid < 0)
		return -ECHILD;
	while (!run->reaped || !run->msg_eof) {
		struct pollfd fds[2] = {
			{ .fd = run->msg_eof ? -1 : run->msg_fd, .events = POLLIN },
			{ .fd = run->sig_fd, .events = POLLIN },
		};
		int64_t left = deadline < 0 ? -1 : deadline - cr_now_ms();
		int n;

		if (deadline >= 0 && left <= 0)
			return -ETIMEDOUT;
		n = poll(fds, 2, left < 0 ? -1 : (int)(left > INT32_MAX ? INT32_MAX : left));
		if (n < 0 && errno != EINTR)
			return negative_errno();
		if (fds[0].revents)
			read_msgs(run);
		if (fds[1].revents)
			read_signals(run);
		/* The child may have exited before we blocked SIGCHLD's fd was polled. */
		if (!run->reaped && waitpid(run->pid, &run->init_status, WNOHANG) == run->pid)
			run->reaped = true;
	}
	if ((run->degraded || run->policy->ex.as_pid_1) && !run->have_exit && !run->have_error) {
		/* No pid 1 reports: the child is the command. What it left behind goes now. */
		run->have_exit = true;
		run->cmd_status = run->init_status;
		if (run->degraded)
			cr_degraded_kill(run->degraded, run->pid, 0, true);
	}
	cr_cgroup_events(run->cgroup, &run->oom_killed, &run->pids_limit_hit);
	fill_outcome(run, ret);
	return 0;
}

static int linux_stop(struct cr_run *run, bool force)
{
	if (run->pid < 0 || run->reaped)
		return 0;
	if (run->degraded) {
		cr_degraded_kill(run->degraded, run->pid, force ? SIGKILL : SIGTERM, force);
		return 0;
	}
	if (kill(run->pid, force ? SIGKILL : SIGTERM) < 0)
		return negative_errno();
	return 0;
}

static struct cr_run *linux_run_free(struct cr_run *run)
{
	if (!run)
		return NULL;
	if (run->pid > 0 && !run->reaped) {
		(void)kill(run->pid, SIGKILL);
		(void)waitpid(run->pid, NULL, 0);
	}
	run->degraded = cr_degraded_free(run->degraded);
	closep(&run->msg_fd);
	closep(&run->sig_fd);
	closep(&run->sync_w);
	if (run->mask_saved)
		(void)sigprocmask(SIG_SETMASK, &run->old_mask, NULL);
	if (run->cgroup) {
		double t0 = cr_now_ms_f();

		run->cgroup = cr_cgroup_free(run->cgroup);
		cr_debug("cgroup teardown (kill, rmdir): %.3f ms", cr_now_ms_f() - t0);
	}
	cr_mount_plan_done(&run->ctx.plan);
	cr_idmap_reap(&run->idmap_helpers);
	cr_landlock_plan_done(&run->ctx.landlock);
	cr_seccomp_free(run->seccomp);
	/* The sandbox is gone: cut what the proxy still relays, join its thread. Last: run->policy
	 * is the proxy's copy. */
	run->proxy = cr_proxy_free(run->proxy);
	free(run);
	return NULL;
}

static const struct cr_driver linux_driver = {
	.name = "linux",
	.system_paths = cr_mount_plan_system_dirs,
	.probe = cr_ns_probe,
	.prepare = linux_prepare,
	.spawn = linux_spawn,
	.wait = linux_wait,
	.stop = linux_stop,
	.report = cr_ns_report,
	.run_free = linux_run_free,
	.warm = &linux_warm_ops,
};

const struct cr_driver *cr_driver_native(void)
{
	return &linux_driver;
}

/* Read-only access to the run for ns/report.c. */
const struct cr_policy *cr_ns_run_policy(const struct cr_run *run)
{
	return run->policy;
}

const struct cr_idmap *cr_ns_run_idmap(const struct cr_run *run)
{
	return &run->ctx.idmap;
}

unsigned long cr_ns_run_clone_flags(const struct cr_run *run)
{
	return run->clone_flags;
}

enum cr_tmpfs_basis cr_ns_run_tmpfs(const struct cr_run *run, uint64_t *ret_ram)
{
	*ret_ram = cr_ns_host_ram();
	return run->tmpfs_basis;
}

const struct cr_mount_plan *cr_ns_run_plan(const struct cr_run *run)
{
	return &run->ctx.plan;
}

const struct cr_landlock_plan *cr_ns_run_landlock(const struct cr_run *run)
{
	return &run->ctx.landlock;
}

const struct cr_degraded *cr_ns_run_degraded(const struct cr_run *run)
{
	return run->degraded;
}

const struct cr_limits_report *cr_ns_run_limits(const struct cr_run *run)
{
	return run->cgroup ? cr_cgroup_report(run->cgroup) : NULL;
}

const struct cr_seccomp *cr_ns_run_seccomp(const struct cr_run *run)
{
	return run->seccomp;
}

const struct cr_proxy *cr_ns_run_proxy(const struct cr_run *run)
{
	return run->proxy;
}

const char *cr_ns_name(unsigned long flag)
{
	for (size_t i = 0; i < ELEMENTSOF(namespaces); i++)
		if (namespaces[i].flag == flag)
			return namespaces[i].name;
	return NULL;
}
