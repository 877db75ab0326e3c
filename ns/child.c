/* SPDX-License-Identifier: MIT */
/* The sandbox's pid 1: builds the sandbox, starts the command as pid 2, forwards interrupt
 * signals to everything in the namespace, reaps, and reports the command's wait status. When it
 * exits, the kernel kills whatever is left in the pid namespace: nothing the command started
 * outlives it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/close_range.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/policy/env.h"
#include "launcher/base/stamp.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/fd-util.h"
#include "linux-internal.h"
#include "launcher/base/macro.h"
#include "ns/net/proxy.h"
#include "seccomp/seccomp.h"
#include "zygote.h"

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };

static void send_msg(int fd, const struct cr_child_msg *msg)
{
	/* One write below PIPE_BUF is atomic; if the parent is gone there is no one to tell. */
	(void)!write(fd, msg, sizeof(*msg));
}

static void report_error(struct cr_child_ctx *ctx, enum cr_stage stage, int r)
{
	struct cr_child_msg msg = { .type = CR_MSG_ERROR, .stage = stage, .err = -r };

	(void)snprintf(msg.detail, sizeof(msg.detail), "%s", ctx->detail);
	send_msg(ctx->msg_fd, &msg);
}

/* Close every descriptor above 2 but the report pipe and the ones the policy passes through. */
static int close_fds(struct cr_child_ctx *ctx)
{
	const struct cr_policy *p = ctx->policy;
	int keep[p->n_keep_fds + 2];
	size_t n = 0;

	keep[n++] = ctx->msg_fd;
	if (cr_stamp_fd() >= 0) /* close-on-exec: corral-bench's stamps, up to the execve() */
		keep[n++] = cr_stamp_fd();
	for (size_t i = 0; i < p->n_keep_fds; i++) {
		if (p->keep_fds[i] <= 2)
			continue;
		if (fcntl(p->keep_fds[i], F_SETFD, 0) < 0)
			return negative_errno();
		keep[n++] = p->keep_fds[i];
	}
	/* the filters are in already (cr_child_filters_early()), which may refuse close_range:
	 * every descriptor but those kept was made close-on-exec before */
	if (p->ex.on && p->ex.new_privs)
		return 0;
	return cr_close_all_except(3, keep, n);
}

/* execve() with a PATH search in the sandbox's own environment, as execvp(3) does it: an empty
 * entry (leading, trailing or doubled ':') means the working directory. Returns -errno. */
int cr_exec_command(char *const argv[], char *const envp[])
{
	return cr_exec_file(argv[0], argv, envp);
}

int cr_exec_file(const char *file, char *const argv[], char *const envp[])
{
	const char *path = cr_env_get(envp, "PATH") ?: CR_DEFAULT_PATH;
	char buf[PATH_MAX];
	bool saw_eacces = false;

	if (strchr(file, '/')) {
		execve(file, argv, envp);
		return negative_errno();
	}
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		int len = (int)(end - p);

		if (snprintf(buf, sizeof(buf), "%.*s/%s", len ? len : 1, len ? p : ".", file) <
		    (int)sizeof(buf)) {
			execve(buf, argv, envp);
			if (errno == EACCES)
				saw_eacces = true;
			else if (errno != ENOENT && errno != ENOTDIR)
				return negative_errno();
		}
		if (!*end)
			break;
		p = end;
	}
	return saw_eacces ? -EACCES : -ENOENT;
}

/* redirect_stdio (corral serve's one-off sandboxes): the policy's three descriptors become 0, 1
 * and 2, before the close-all that then drops the originals. A source below 3 is first moved up,
 * so that no dup2() overwrites a source still to be used. */
static int redirect_stdio(const struct cr_policy *p)
{
	int fds[3];

	for (int i = 0; i < 3; i++) {
		fds[i] = p->stdio[i];
		if (fds[i] < 3 && fds[i] != i && (fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3)) < 0)
			return negative_errno();
	}
	for (int i = 0; i < 3; i++)
		if (fds[i] == i ? fcntl(i, F_SETFD, 0) < 0 : dup2(fds[i], i) < 0)
			return negative_errno();
	return 0;
}

/* An explicit policy's command: PWD says where it starts, and argv[0] may be another name than
 * the file executed. */
static int exec_explicit(struct cr_child_ctx *ctx)
{
	const struct cr_policy *p = ctx->policy;
	size_t n = 0, argc = 0;
	char cwd[PATH_MAX + 4] = "PWD=";

	while (p->env && p->env[n])
		n++;
	while (p->argv[argc])
		argc++;
	char *env[n + 2], *argv[argc + 1];
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (strncmp(p->env[i], "PWD=", 4) != 0)
			env[k++] = p->env[i];
	if (getcwd(cwd + 4, sizeof(cwd) - 4))
		env[k++] = cwd;
	env[k] = NULL;
	memcpy(argv, p->argv, (argc + 1) * sizeof(char *));
	if (p->ex.argv0)
		argv[0] = p->ex.argv0;
	return cr_exec_file(p->argv[0], argv, env);
}

int cr_install_programs(const struct cr_policy *p)
{
	for (size_t i = 0; i < p->ex.n_seccomp_programs; i++) {
		struct sock_fprog prog = {
			.len = (unsigned short)(p->ex.seccomp_programs[i].size /
						sizeof(struct sock_filter)),
			.filter = p->ex.seccomp_programs[i].insns,
		};

		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
			return negative_errno();
	}
	return 0;
}

int cr_child_filters_early(struct cr_child_ctx *ctx)
{
	int r = 0;

	/* A bundle's allowlist may lack close_range (older profiles): the command's process only
	 * clears the flag on the descriptors it keeps (close_fds()). */
	if (syscall(SYS_close_range, 3, ~0u, CLOSE_RANGE_CLOEXEC) < 0)
		r = negative_errno();
	r = r ?: cr_seccomp_install(ctx->seccomp);
	r = r ?: cr_install_programs(ctx->policy);
	if (r < 0)
		(void)snprintf(ctx->detail, sizeof(ctx->detail),
			       "cannot install the syscall filters before the capabilities are dropped (no no_new_privs)");
	return r;
}

_Noreturn void cr_command_main(struct cr_child_ctx *ctx)
{
	struct cr_child_msg msg = { .type = CR_MSG_ERROR };
	sigset_t none;
	int r;

	cr_stamp_who('C');
	cr_stamp("forked");
	for (size_t i = 0; i < ELEMENTSOF(forwarded); i++)
		(void)signal(forwarded[i],
			     sigismember(&ctx->ignored, forwarded[i]) == 1 ? SIG_IGN : SIG_DFL);
	(void)sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);

	r = ctx->policy->redirect_stdio ? redirect_stdio(ctx->policy) : 0;
	/* A console (an OCI container's terminal): its stdin becomes the session's terminal. */
	if (r >= 0 && ctx->policy->ex.on && ctx->policy->ex.ctty && ioctl(0, TIOCSCTTY, 0) < 0)
		r = negative_errno();
	if (r >= 0)
		r = close_fds(ctx);
	cr_stamp("close_fds");
	if (r < 0) {
		msg.stage = CR_STAGE_FDS;
	} else if (!(ctx->policy->ex.on && ctx->policy->ex.new_privs) &&
		   ((r = cr_seccomp_install(ctx->seccomp)) < 0 ||
		    (r = cr_install_programs(ctx->policy)) < 0)) {
		/* The syscall filter: last before execve, after no_new_privs (set by pid 1 and
		 * inherited), so that nothing of corral's own setup has to pass it. Pid 1 stays
		 * unfiltered. */
		msg.stage = CR_STAGE_SECCOMP;
	} else if (ctx->policy->ex.on) {
		r = exec_explicit(ctx);
	} else {
		cr_stamp("seccomp");
		r = cr_exec_command(ctx->policy->argv, ctx->policy->env);
		msg.stage = CR_STAGE_EXEC;
		(void)snprintf(msg.detail, sizeof(msg.detail), "%s", ctx->policy->argv[0]);
	}
	msg.err = -r;
	send_msg(ctx->msg_fd, &msg);
	_exit(r == -ENOENT && msg.stage == CR_STAGE_EXEC ? CR_EXIT_NOTFOUND : CR_EXIT_NOEXEC);
}

static void forward_signal(int sig)
{
	int saved = errno;

	/* Past the deadline, corral's SIGTERM is the timeout's, which pid 1 may have sent. */
	if (sig == SIGTERM && cr_jobs_timeout_term())
		return;
	/* From pid 1, every other process in the namespace. */
	(void)cr_jobs_kill_all(sig);
	errno = saved;
}

static void interrupted_setup(int sig)
{
	_exit(CR_EXIT_SIGNAL_BASE + sig);
}

/* The forwarded signals, and those of job control and the deadline (ns/jobs.c). */
static void mask_forwarded(int how)
{
	sigset_t set;

	(void)sigemptyset(&set);
	for (size_t i = 0; i < ELEMENTSOF(forwarded); i++)
		(void)sigaddset(&set, forwarded[i]);
	(void)sigaddset(&set, SIGTSTP);
	(void)sigaddset(&set, SIGCONT);
	(void)sigaddset(&set, SIGALRM);
	(void)sigprocmask(how, &set, NULL);
}

/* Each handler runs with every other signal blocked: they share ns/jobs.c's state. */
static void set_handlers(void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler };

	(void)sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < ELEMENTSOF(forwarded); i++)
		(void)sigaction(forwarded[i], &sa, NULL);
}

/* allow_hosts: the forwarder, which hands every connection to 127.0.0.1:3128 to corral's proxy.
 * A process of its own rather than a loop in pid 1: pid 1 blocks in waitpid() and must exit the
 * moment the command does, and the forwarder needs nothing of pid 1's descriptors. Forked after
 * the last stage, it is as confined as the command (no capabilities, no_new_privs, Landlock,
 * rlimits, the syscall filter) and non-dumpable, keeps only the listener and the socketpair,
 * counts against --pids, and dies with the pid namespace when pid 1 exits. pid 1 keeps neither
 * descriptor, so the command never has them. */
static int start_forwarder(struct cr_child_ctx *ctx)
{
	pid_t pid;

	if (ctx->proxy_fd < 0 || ctx->proxy_listen_fd < 0)
		return 0;
	pid = cr_proxy_fork_forwarder(ctx->proxy_listen_fd, ctx->proxy_fd,
				      ctx->warm_pool ? &ctx->landlock : NULL, ctx->seccomp);
	closep(&ctx->proxy_listen_fd);
	closep(&ctx->proxy_fd);
	ctx->proxy_listen_fd = ctx->proxy_fd = -EBADF;
	return pid < 0 ? pid : 0;
}

/* An explicit policy's lock files: init holds a read lock on each while the sandbox lives, so
 * that whoever waits for a write lock learns when it ended. Returns how many descriptors it
 * put in @fds, or -errno. */
static int take_locks(const struct cr_policy *p, int *fds, size_t max)
{
	size_t n = 0;

	for (char **l = p->ex.lock_files; l && *l && n < max; l++) {
		struct flock lk = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
		int fd = open(*l, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || fcntl(fd, F_SETLK, &lk) < 0)
			return negative_errno();
		fds[n++] = fd;
	}
	return (int)n;
}

/* An explicit policy's block descriptor: the command starts once it has data or is closed.
 * Its ready descriptor first gets one byte and is closed: the sandbox is built and waiting. */
static int wait_block_fd(const struct cr_policy *p)
{
	char c;

	if (p->ex.on && p->ex.ready_fd >= 0) {
		if (write(p->ex.ready_fd, "r", 1) != 1)
			return errno ? negative_errno() : -EIO;
		(void)close(p->ex.ready_fd);
	}
	if (!p->ex.on || p->ex.block_fd < 0)
		return 0;
	while (read(p->ex.block_fd, &c, 1) < 0)
		if (errno != EINTR)
			return negative_errno();
	return 0;
}

/* The command's process shares pid 1's memory until its execve() (CLONE_VM | CLONE_VFORK, as
 * posix_spawn() does), so that neither pid 1's pages nor their mappings are copied for a
 * process that replaces them at once, and nothing is faulted back in afterwards. pid 1 is
 * suspended until the execve() or the exit, holding no lock. The command's process runs on this
 * stack; it has its own descriptor table, signal handlers and mask (copied, not shared), and
 * changes nothing of pid 1's memory but this stack, errno and the stamp's process tag. */
static char command_stack[128 * 1024] __attribute__((aligned(16)));

static int command_entry(void *ctx)
{
	cr_command_main(ctx);
}

static pid_t start_command(struct cr_child_ctx *ctx)
{
	pid_t pid;

	if (CR_SANITIZED) { /* see linux-internal.h */
		pid = fork();
		if (pid == 0)
			cr_command_main(ctx);
	} else
		pid = clone(command_entry, command_stack + sizeof(command_stack),
			    CLONE_VM | CLONE_VFORK | SIGCHLD, ctx);
	cr_stamp_who('1');
	return pid < 0 ? negative_errno() : pid;
}

_Noreturn void cr_child_main(struct cr_child_ctx *ctx)
{
	enum cr_stage failed = CR_STAGE_SYNC;
	int keep[18] = { ctx->msg_fd, ctx->parent_stat_fd };
	size_t n_keep = 2;
	pid_t cmd;
	int r, status;

	cr_stamp_who('1');
	cr_stamp("started");
	/* As pid 1 of its namespace this process ignores every signal it has no handler for, even
	 * from corral: an interrupt during setup must end it. */
	set_handlers(interrupted_setup);
	mask_forwarded(SIG_UNBLOCK);
	r = ctx->warm_pool ? cr_zygote_stdio() : 0;
	if (r >= 0)
		r = cr_stages_run(ctx, &failed);
	if (r < 0) {
		report_error(ctx, failed, r);
		_exit(CR_EXIT_SETUP_SILENT);
	}
	/* Held until the command exists, so that none is forwarded to nobody. */
	mask_forwarded(SIG_BLOCK);
	set_handlers(forward_signal);
	/* The command runs as the same uid as this process: without this it could read our
	 * descriptors through /proc/1/fd, or write forged reports into the pipe. The command gets
	 * its own dumpable flag back at execve. */
	if (!ctx->policy->ex.init_dumpable && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
		report_error(ctx, CR_STAGE_FORK, negative_errno());
		_exit(CR_EXIT_SETUP_SILENT);
	}

	r = start_forwarder(ctx);
	if (r < 0) {
		report_error(ctx, CR_STAGE_FORK, r);
		_exit(CR_EXIT_SETUP_SILENT);
	}
	cr_stamp("pre_fork");

	/* A warm sandbox (corral serve): no command; pid 1 keeps workers ready instead. */
	if (ctx->warm_pool)
		cr_zygote_main(ctx);
	r = wait_block_fd(ctx->policy);
	if (r < 0) {
		report_error(ctx, CR_STAGE_FORK, r);
		_exit(CR_EXIT_SETUP_SILENT);
	}
	/* --as-pid-1: no init before the command; the parent reads its end from its wait status. */
	if (ctx->policy->ex.as_pid_1)
		cr_command_main(ctx);
	r = take_locks(ctx->policy, keep + 2, ELEMENTSOF(keep) - 2);
	if (r < 0) {
		report_error(ctx, CR_STAGE_FORK, r);
		_exit(CR_EXIT_SETUP_SILENT);
	}
	n_keep = 2 + (size_t)r;
	cmd = start_command(ctx);
	if (cmd < 0) {
		report_error(ctx, CR_STAGE_FORK, cmd);
		_exit(CR_EXIT_SETUP_SILENT);
	}
	cr_jobs_set_command(cmd);
	cr_stamp("fork");
	cr_stamp_end(); /* the descriptor is closed next */
	/* pid 1 needs nothing of what corral was started with but the report pipe, and corral's
	 * state to follow it; if it cannot drop the rest, the sandbox ends (the command with it:
	 * pid 1 of its namespace). */
	r = cr_close_all_except(3, keep, n_keep);
	if (r < 0) {
		report_error(ctx, CR_STAGE_FDS, r);
		_exit(CR_EXIT_SETUP_SILENT);
	}
	/* The command has its environment; pid 1's copy of it (corral's memory, cloned) holds the
	 * secrets' values. pid 1 is not dumpable, so the command cannot read them; wiped anyway. */
	for (char **e = ctx->policy->env; e && *e; e++)
		explicit_bzero(*e, strlen(*e));
	r = cr_jobs_start(ctx);
	if (r < 0) {
		(void)kill(cmd, SIGKILL);
		report_error(ctx, CR_STAGE_FORK, r);
		_exit(CR_EXIT_SETUP_SILENT);
	}
	mask_forwarded(SIG_UNBLOCK);

	for (;;) {
		pid_t pid = waitpid(-1, &status, 0);

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			_exit(CR_EXIT_SETUP_SILENT);
		if (pid == cmd) {
			struct cr_child_msg msg = { .type = CR_MSG_EXIT, .status = status };

			send_msg(ctx->msg_fd, &msg);
			_exit(0);
		}
	}
}
