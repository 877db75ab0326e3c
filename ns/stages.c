/* SPDX-License-Identifier: MIT */
/* The child's setup, as a table of stages run in order. Each returns 0 or -errno, and may say
 * what it was doing in ctx->detail; the first failure is reported to the parent with the stage's
 * name, and the child exits. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "caps.h"
#include "console.h"
#include "cgroup/cgroup.h"
#include "linux-internal.h"
#include "launcher/base/stamp.h"
#include "launcher/base/log.h"
#include "launcher/policy/env.h"
#include "launcher/base/macro.h"
#include "ns/net/net.h"
#include "ns/net/proxy.h"
#include "zygote.h"

/* Where the new root is assembled. It is mounted over in the child's own mount namespace only, and
 * every source is opened before, so nothing under the host's /tmp is hidden from the plan. */
#define NEW_ROOT "/tmp"

static const char *const stage_names[_CR_STAGE_MAX] = {
	[CR_STAGE_SYNC] = "sync",
	[CR_STAGE_MOUNT_NS] = "mount_namespace",
	[CR_STAGE_OPEN_SOURCES] = "open_sources",
	[CR_STAGE_CREDS] = "credentials",
	[CR_STAGE_USERNS_LIMIT] = "userns_limit",
	[CR_STAGE_ROOT] = "new_root",
	[CR_STAGE_MOUNTS] = "mounts",
	[CR_STAGE_PIVOT_ROOT] = "pivot_root",
	[CR_STAGE_REMOUNT_RO] = "remount_ro",
	[CR_STAGE_LOOPBACK] = "loopback",
	[CR_STAGE_HOSTNAME] = "hostname",
	[CR_STAGE_CWD] = "cwd",
	[CR_STAGE_CAPS] = "capabilities",
	[CR_STAGE_NO_NEW_PRIVS] = "no_new_privs",
	[CR_STAGE_LANDLOCK] = "landlock",
	[CR_STAGE_LIMITS] = "limits",
	[CR_STAGE_FORK] = "fork",
	[CR_STAGE_FDS] = "close_fds",
	[CR_STAGE_SECCOMP] = "seccomp",
	[CR_STAGE_EXEC] = "exec",
	[CR_STAGE_CLONE] = "clone",
	[CR_STAGE_UID_MAP] = "uid_map",
	[CR_STAGE_DEGRADED] = "degraded",
};

const char *cr_stage_to_string(enum cr_stage stage)
{
	return stage < _CR_STAGE_MAX ? stage_names[stage] : "unknown";
}

static int stage_sync(struct cr_child_ctx *ctx)
{
	char c;

	/* If corral dies, so does the sandbox: pid 1 of the namespace takes everything with it. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return negative_errno();
	/* A new session without a controlling terminal: TIOCSTI cannot push keystrokes into the
	 * caller's terminal, and terminal signals reach corral, which forwards them. An explicit
	 * policy says whether it wants one. */
	if ((!ctx->policy->ex.on || ctx->policy->ex.new_session) && setsid() < 0)
		return negative_errno();
	if (read(ctx->sync_fd, &c, 1) != 1)
		_exit(CR_EXIT_SETUP_SILENT); /* the parent failed or died; it reports */
	return 0;
}

/* Right after the sync byte, before anything a limit counts: pid 1 moves itself into the run's
 * cgroup v1 hierarchies (the parent placed it in the v2 one at clone). Reported as stage
 * "limits", as the parent's move was. Done by the child because moving oneself skips a global
 * lock whose writer waits for an RCU grace period (cr_cgroup_join()). */
static int stage_cgroup(struct cr_child_ctx *ctx)
{
	int r = cr_cgroup_join(ctx->cgroup);

	if (r < 0)
		(void)snprintf(ctx->detail, sizeof(ctx->detail),
			       "cannot move the sandbox into its cgroup");
	return r;
}

/* The descriptors of an SCM_RIGHTS message @mh received, into @fds (at most @max): their count,
 * or -EPROTO for a truncated or oversized message (its descriptors then stay open: the caller
 * fails and pid 1 exits). */
static int take_fds(struct msghdr *mh, int *fds, size_t max)
{
	size_t n = 0;

	if (mh->msg_flags & (MSG_CTRUNC | MSG_TRUNC))
		return -EPROTO;
	for (struct cmsghdr *h = CMSG_FIRSTHDR(mh); h; h = CMSG_NXTHDR(mh, h)) {
		size_t k = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS || n + k > max)
			return -EPROTO;
		memcpy(fds + n, CMSG_DATA(h), k * sizeof(int));
		n += k;
	}
	return (int)n;
}

/* When corral made the run's v1 cgroups after clone, while this process built the sandbox
 * (cr_ns_limits_realize()): their tasks files come on the sync channel, and pid 1 joins them
 * here, before the rlimits and the fork, so that the command starts inside them. End of file
 * (corral failed to make them and kills this process, or died) ends pid 1 before it forks
 * anything. pid 1's own setup is charged to corral's cgroups, the command's work to the run's. */
static int stage_cgroup_late(struct cr_child_ctx *ctx)
{
	char cbuf[CMSG_SPACE(CR_CGROUP_TASKS_MAX * sizeof(int))] = {}, c = 0;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	int tasks[CR_CGROUP_TASKS_MAX], r;
	ssize_t len;

	if (!cr_cgroup_pending(ctx->cgroup))
		return 0;
	do
		len = recvmsg(ctx->sync_fd, &mh, MSG_CMSG_CLOEXEC);
	while (len < 0 && errno == EINTR);
	if (len <= 0)
		_exit(CR_EXIT_SETUP_SILENT); /* corral failed or died; it reports */
	closep(&ctx->sync_fd);
	ctx->sync_fd = -EBADF;
	r = take_fds(&mh, tasks, ELEMENTSOF(tasks));
	if (r >= 0 && c != 'c')
		r = -EPROTO;
	if (r >= 0)
		r = cr_cgroup_join_tasks(tasks, (size_t)r);
	if (r < 0)
		(void)snprintf(ctx->detail, sizeof(ctx->detail),
			       "cannot move the sandbox into its cgroup");
	return r;
}

static int stage_mount_ns(struct cr_child_ctx *ctx)
{
	/* Nothing we mount propagates back to the host, nothing the host mounts later leaks in. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return negative_errno();
	return 0;
}

static int stage_open_sources(struct cr_child_ctx *ctx)
{
	return cr_mounts_open_sources(ctx);
}

static int stage_creds(struct cr_child_ctx *ctx)
{
	/* Root's sandbox becomes the unprivileged host id now: files it creates, and every access
	 * check from here on, are those of that id. Capabilities in the new namespace are kept
	 * (uid 0 is not mapped, or maps to that same id), so setup can go on. */
	if (setresgid(ctx->idmap.inside_gid, ctx->idmap.inside_gid, ctx->idmap.inside_gid) < 0)
		return negative_errno();
	if (setresuid(ctx->idmap.inside_uid, ctx->idmap.inside_uid, ctx->idmap.inside_uid) < 0)
		return negative_errno();
	/* A change of ids clears the parent-death signal: set it again, then make sure corral did
	 * not die in between (it holds the sync pipe's write end open for the sandbox's life). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return negative_errno();
	/* The channel still brings the tasks files of cgroups made after clone: stage_cgroup_late()
	 * reads it, and ends pid 1 there if corral died. */
	if (cr_cgroup_pending(ctx->cgroup))
		return 0;
	if (poll(&(struct pollfd){ .fd = ctx->sync_fd, .events = POLLIN }, 1, 0) > 0) {
		char c;

		if (read(ctx->sync_fd, &c, 1) <= 0)
			_exit(CR_EXIT_SETUP_SILENT);
	}
	closep(&ctx->sync_fd);
	return 0;
}

static int stage_userns_limit(struct cr_child_ctx *ctx)
{
	_cleanup_close_ int fd = -EBADF;

	if (ctx->policy->ex.on) {
		/* Its user namespace is made after the root changed (explicit_userns()). */
		ctx->proc_fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
		return ctx->proc_fd < 0 ? negative_errno() : 0;
	}
	/* The limit belongs to the sandbox's own user namespace and binds everything in it: with
	 * no nested user namespace, the command can never regain capabilities to create any other
	 * namespace either. Written through the sandbox's /proc (cr_mounts_apply() opened it), or
	 * the host's where the plan has none. */
	fd = TAKE_FD(ctx->max_userns_fd);
	if (fd == -EBADF)
		fd = open("/proc/sys/user/max_user_namespaces", O_WRONLY | O_CLOEXEC);
	else if (fd < 0)
		errno = -fd;
	if (fd < 0 || write(fd, "0", 1) != 1) {
		(void)snprintf(ctx->detail, sizeof(ctx->detail),
			       "cannot forbid nested user namespaces (/proc/sys/user/max_user_namespaces)");
		return negative_errno();
	}
	return 0;
}

static int stage_root(struct cr_child_ctx *ctx)
{
	if (mount("tmpfs", NEW_ROOT, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0) {
		(void)snprintf(ctx->detail, sizeof(ctx->detail), "tmpfs on %s", NEW_ROOT);
		return negative_errno();
	}
	return 0;
}

static int stage_mounts(struct cr_child_ctx *ctx)
{
	return cr_mounts_apply(ctx, NEW_ROOT);
}

static int stage_pivot(struct cr_child_ctx *ctx)
{
	return cr_mounts_pivot(NEW_ROOT);
}

/* A mount namespace joined by path: the root just built, cloned whole as a detached tree,
 * becomes this process's root inside the joined namespace. Nothing is mounted there and no
 * other process's root changes (pivot_root would move theirs); the namespace's own root is out
 * of reach, even by `..` from outside the chroot: the clone is attached to nothing of it. */
static int join_mount_ns(struct cr_child_ctx *ctx)
{
	_cleanup_close_ int tree = open_tree(AT_FDCWD, "/", OPEN_TREE_CLONE | AT_RECURSIVE |
								    OPEN_TREE_CLOEXEC);

	if (tree < 0 || setns(ctx->policy->ex.mntns_fd, CLONE_NEWNS) < 0 || fchdir(tree) < 0 ||
	    chroot(".") < 0 || chdir("/") < 0) {
		(void)snprintf(ctx->detail, sizeof(ctx->detail),
			       "cannot join the mount namespace given by path");
		return negative_errno();
	}
	return 0;
}

static int stage_remount_ro(struct cr_child_ctx *ctx)
{
	unsigned long prop = ctx->policy->ex.root_propagation;
	struct mount_attr attr = { .propagation = prop & ~(unsigned long)MS_REC };

	/* An explicit filesystem is as its operations left it (--remount-ro is one), but for the
	 * root's propagation, which pivot_root() needs not shared until it is done. Private
	 * before (stage_mount_ns()): shared makes a peer group of the sandbox's own. */
	if (ctx->policy->ex.on && prop &&
	    mount_setattr(AT_FDCWD, "/", prop & MS_REC ? AT_RECURSIVE : 0, &attr, sizeof(attr)) < 0) {
		(void)snprintf(ctx->detail, sizeof(ctx->detail), "the root's propagation");
		return negative_errno();
	}
	if (ctx->policy->ex.on)
		return ctx->policy->ex.join_mnt ? join_mount_ns(ctx) : 0;
	return cr_mounts_seal(ctx);
}

static int stage_loopback(struct cr_child_ctx *ctx)
{
	int r;

	if (ctx->policy->net == CR_NET_HOST ||
	    (ctx->policy->ex.on && !(ctx->policy->ex.namespaces & CR_NS_NET)))
		return 0;
	r = cr_net_loopback_up();
	if (r < 0 || ctx->policy->net != CR_NET_HOSTS)
		return r;
	/* allow_hosts: the proxy's listener, bound now, before Landlock (--tcp-bind) may forbid it.
	 * The forwarder that serves it is forked after the last stage (cr_child_main()). */
	r = cr_proxy_listen();
	if (r < 0) {
		(void)snprintf(ctx->detail, sizeof(ctx->detail), "the proxy's listener on %s",
			       CR_PROXY_ADDRESS);
		return r;
	}
	ctx->proxy_listen_fd = r;
	return 0;
}

static int stage_hostname(struct cr_child_ctx *ctx)
{
	if (!ctx->policy->hostname)
		return 0;
	if (sethostname(ctx->policy->hostname, strlen(ctx->policy->hostname)) < 0)
		return negative_errno();
	return 0;
}

/* An explicit policy without a working directory of its own: the caller's if the sandbox shows
 * it, else $HOME, else /. */
static int cwd_fallback(struct cr_child_ctx *ctx)
{
	const char *home = cr_env_get(ctx->policy->env, "HOME");

	if (ctx->policy->cwd && chdir(ctx->policy->cwd) == 0)
		return 0;
	if (home && chdir(home) == 0)
		return 0;
	return chdir("/") < 0 ? negative_errno() : 0;
}

static int stage_cwd(struct cr_child_ctx *ctx)
{
	if (ctx->policy->ex.on && ctx->policy->ex.cwd_fallback)
		return cwd_fallback(ctx);
	/* An explicit policy's door words its own message: the directory alone. */
	if (ctx->policy->ex.on && chdir(ctx->policy->cwd) < 0) {
		(void)snprintf(ctx->detail, sizeof(ctx->detail), "%s", ctx->policy->cwd);
		return negative_errno();
	}
	if (chdir(ctx->policy->cwd) < 0) {
		int r = negative_errno();

		/* EACCES: it exists, but the sandbox's uid may not search it or a parent (mode 0700
		 * of a uid the sandbox does not map); "does not exist" misled. */
		if (r == -ENOENT || r == -ENOTDIR)
			(void)snprintf(ctx->detail, sizeof(ctx->detail),
				       "working directory %s does not exist in the sandbox",
				       ctx->policy->cwd);
		else
			(void)snprintf(ctx->detail, sizeof(ctx->detail),
				       "cannot enter the working directory %s as host uid %u (check its permissions and its parents')",
				       ctx->policy->cwd, ctx->idmap.outside_uid);
		return r;
	}
	return 0;
}

/* An explicit policy's console: made in the root just built, by pid 1 (a session leader, not yet
 * confined by Landlock, which then gives the terminal the rules 0-2 get). */
static int stage_console(struct cr_child_ctx *ctx)
{
	const struct cr_explicit *ex = &ctx->policy->ex;
	struct cr_console c = { .sock = ex->console_fd, .rows = ex->console_rows,
				.cols = ex->console_cols,
				.uid = ex->late_ids ? ex->late_uid : ex->uid,
				.gid = ex->late_ids ? ex->late_gid : ex->gid };
	int r;

	if (!ex->on || !ex->console)
		return 0;
	r = cr_console_make(&c, ctx->detail, sizeof(ctx->detail));
	(void)close(ex->console_fd);
	return r;
}

static int write_proc(int proc_fd, const char *file, const char *text)
{
	_cleanup_close_ int fd = openat(proc_fd, file, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return negative_errno();
	return write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : negative_errno();
}

/* The nested user namespace of --disable-userns: made and entered, with the command's ids
 * mapped to themselves. */
static int nest_userns(struct cr_child_ctx *ctx)
{
	char map[64];
	int r = unshare(CLONE_NEWUSER) < 0 ? negative_errno() : 0;

	if (r >= 0)
		r = write_proc(ctx->proc_fd, "self/setgroups", "deny");
	(void)cr_idmap_format(ctx->idmap.inside_uid, ctx->idmap.inside_uid, map, sizeof(map));
	if (r >= 0)
		r = write_proc(ctx->proc_fd, "self/uid_map", map);
	(void)cr_idmap_format(ctx->idmap.inside_gid, ctx->idmap.inside_gid, map, sizeof(map));
	if (r >= 0)
		r = write_proc(ctx->proc_fd, "self/gid_map", map);
	return r;
}

/* An explicit policy that forbids user namespaces: at most one more in the sandbox's own (the
 * limit counts there and binds every namespace under it), which this process makes at once and
 * enters, so that the command, inside it, can neither make another nor raise the limit again.
 * With userns_limit_own, none more: the command stays in the sandbox's own, whose limit no
 * process there can write back (no CAP_SYS_RESOURCE in any bounding set). Then, if asked, a
 * check that no user namespace can be made. */
static int explicit_userns(struct cr_child_ctx *ctx)
{
	const struct cr_explicit *ex = &ctx->policy->ex;
	const char *limit = ex->userns_limit_own ? "0" : "1";
	int r = 0, dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);

	if (!ex->nested_userns) {
		/* A root caller's sandbox whose ids now map to another host id (ranges: ex.uid_map;
		 * the user namespace corral added: ex.idmap_root) is no longer dumpable, and /proc/self's files are then host root's: for these
		 * writes only, as the process's own files again. */
		if (dumpable == 0 && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
			r = negative_errno();
		/* Through the sandbox's own /proc when the plan mounted one (open_max_userns()). */
		if (r >= 0 && ctx->max_userns_fd >= 0)
			r = write(ctx->max_userns_fd, limit, 1) == 1 ? 0 : negative_errno();
		else if (r >= 0)
			r = write_proc(ctx->proc_fd, "sys/user/max_user_namespaces", limit);
		closep(&ctx->max_userns_fd);
		if (r >= 0 && !ex->userns_limit_own)
			r = nest_userns(ctx);
		if (dumpable == 0 && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 && r >= 0)
			r = negative_errno();
		if (r < 0) {
			(void)snprintf(ctx->detail, sizeof(ctx->detail), "cannot disable user namespaces");
			return r;
		}
	}
	closep(&ctx->proc_fd);
	ctx->proc_fd = -EBADF;
	if (ex->userns2_fd >= 0 && setns(ex->userns2_fd, CLONE_NEWUSER) < 0) {
		(void)snprintf(ctx->detail, sizeof(ctx->detail), "Setting userns2 failed");
		return negative_errno();
	}
	if ((!ex->nested_userns || ex->assert_no_userns) && unshare(CLONE_NEWUSER) == 0) {
		(void)snprintf(ctx->detail, sizeof(ctx->detail),
			       "creation of new user namespaces was not disabled as requested");
		return -EEXIST;
	}
	return 0;
}

static int stage_caps(struct cr_child_ctx *ctx)
{
	int r;

	if (ctx->policy->ex.on) {
		r = explicit_userns(ctx);
		if (r >= 0 && ctx->policy->ex.late_ids)
			r = cr_caps_switch_ids(ctx->policy->ex.late_uid, ctx->policy->ex.late_gid,
					       ctx->policy->ex.groups, ctx->policy->ex.n_groups);
		if (r >= 0 && ctx->policy->ex.new_privs)
			r = cr_child_filters_early(ctx);
		if (r < 0)
			return r;
		/* Without user namespaces, no capability either in the nested one: none could be
		 * used to undo it. In the sandbox's own (userns_limit_own), those kept lack the one
		 * that could (CAP_SYS_RESOURCE). */
		if (!ctx->policy->ex.nested_userns && !ctx->policy->ex.userns_limit_own)
			return cr_caps_drop_all();
	}
	/* A warm sandbox's pid 1 keeps CAP_SYS_ADMIN (in its own user namespace) to give each
	 * worker a pid namespace; the workers drop it (ns/zygote.c). */
	if (ctx->policy->ex.on && ctx->policy->ex.caps && ctx->policy->ex.caps_exact)
		return cr_caps_set(ctx->policy->ex.caps, ctx->policy->ex.caps_inh,
				   ctx->policy->ex.caps_amb);
	if (ctx->policy->ex.on && ctx->policy->ex.caps)
		return cr_caps_keep(ctx->policy->ex.caps, ctx->policy->ex.caps_inheritable,
				    ctx->idmap.inside_uid != 0);
	return ctx->warm_pool ? cr_zygote_caps() : cr_caps_drop_all();
}

static int stage_no_new_privs(struct cr_child_ctx *ctx)
{
	if (ctx->policy->ex.on && ctx->policy->ex.new_privs)
		return 0; /* the filters are in already (stage_caps()) */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return negative_errno();
	return 0;
}

static int stage_limits(struct cr_child_ctx *ctx)
{
	if (ctx->policy->ex.on && !ctx->cgroup)
		return 0; /* an explicit policy that asked for no limit: not even RLIMIT_CORE */
	return cr_rlimits_apply(ctx->rlimits);
}

/* After no_new_privs, and before the fork: pid 1 enters the domain itself, so that it and the
 * command share one, and each can signal the other under LANDLOCK_SCOPE_SIGNAL. Before the
 * limits, which are the command's: a small --open-files or --memory must not starve the few
 * descriptors and pages the ruleset needs. Nothing after it opens a file. */
static int stage_landlock(struct cr_child_ctx *ctx)
{
	const struct cr_policy *p = ctx->policy;
	int fds[p->n_keep_fds + 3];

	/* A warm sandbox's pid 1 stays out of the domain: each worker enters it once it has mounted
	 * the /proc of its own pid namespace, which Landlock would forbid (ns/zygote.c). */
	if (ctx->warm_pool)
		return 0;
	if (!p->redirect_stdio)
		return cr_landlock_apply(&ctx->landlock, p->keep_fds, p->n_keep_fds, ctx->detail,
					 sizeof(ctx->detail));
	/* The command's 0, 1 and 2 will be these: give them the rules 0-2 get. */
	memcpy(fds, p->stdio, sizeof(p->stdio));
	if (p->n_keep_fds)
		memcpy(fds + 3, p->keep_fds, p->n_keep_fds * sizeof(int));
	return cr_landlock_apply(&ctx->landlock, fds, p->n_keep_fds + 3, ctx->detail,
				 sizeof(ctx->detail));
}

static const struct {
	enum cr_stage id;
	int (*run)(struct cr_child_ctx *ctx);
} stages[] = {
	{ CR_STAGE_SYNC, stage_sync },
	{ CR_STAGE_LIMITS, stage_cgroup }, /* keep right after sync: see stage_cgroup() */
	{ CR_STAGE_MOUNT_NS, stage_mount_ns },
	{ CR_STAGE_OPEN_SOURCES, stage_open_sources },
	{ CR_STAGE_CREDS, stage_creds },
	{ CR_STAGE_ROOT, stage_root },
	{ CR_STAGE_MOUNTS, stage_mounts },
	{ CR_STAGE_USERNS_LIMIT, stage_userns_limit }, /* after mounts: see open_max_userns() */
	{ CR_STAGE_PIVOT_ROOT, stage_pivot },
	{ CR_STAGE_REMOUNT_RO, stage_remount_ro },
	{ CR_STAGE_LOOPBACK, stage_loopback },
	{ CR_STAGE_HOSTNAME, stage_hostname },
	{ CR_STAGE_CWD, stage_cwd },
	{ CR_STAGE_FDS, stage_console },
	{ CR_STAGE_CAPS, stage_caps },
	{ CR_STAGE_NO_NEW_PRIVS, stage_no_new_privs },
	{ CR_STAGE_LANDLOCK, stage_landlock }, /* keep after no_new_privs: see stage_landlock() */
	{ CR_STAGE_LIMITS, stage_cgroup_late }, /* keep right before the rlimits and the fork */
	{ CR_STAGE_LIMITS, stage_limits },
};

int cr_stages_run(struct cr_child_ctx *ctx, enum cr_stage *ret_failed)
{
	for (size_t i = 0; i < ELEMENTSOF(stages); i++) {
		int r;

		ctx->detail[0] = '\0';
		/* one line a stage, however many steps it takes (the limits' late join) */
		if (i == 0 || stages[i - 1].id != stages[i].id)
			cr_debug("sandbox setup: %s", cr_stage_to_string(stages[i].id));
		r = stages[i].run(ctx);
		cr_stamp(stages[i].run == stage_cgroup	       ? "cgroup_join"
			 : stages[i].run == stage_cgroup_late ? "cgroup_join_late"
							      : cr_stage_to_string(stages[i].id));
		if (r < 0) {
			*ret_failed = stages[i].id;
			return r;
		}
	}
	return 0;
}
