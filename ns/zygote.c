/* SPDX-License-Identifier: MIT */
/* Warm sandboxes for `corral serve` (launcher/driver.h, struct cr_warm_ops): the sandbox's
 * side. The server side, the ops themselves, is in zygote-server.c; the messages between the
 * two are in zygote-internal.h.
 *
 *
 * start() builds the sandbox exactly as a run does (ns/driver.c: prepare, clone, id maps, the
 * stages, the cgroup, the proxy), but its pid 1 forks no command: it becomes the zygote. Of its
 * capabilities it keeps only CAP_SYS_ADMIN, in the sandbox's own user namespace, to create pid
 * and mount namespaces and mount each worker's /proc; it is non-dumpable and under no_new_privs
 * like a run's pid 1, but outside the Landlock domain, which would forbid those mounts: each
 * worker enters the domain itself. It holds only its control socket, the report pipe and
 * /dev/null as 0-2.
 *
 * Processes (pids as seen from the session's pid namespace):
 *   zygote  pid 1. Keeps `pool` workers ready; makes one more for each ZY_WANT, once a worker
 *           exits (after the server has answered its command) or 10 ms later
 *           (cr_zygote_main()).
 *   worker  clone(CLONE_NEWPID | CLONE_NEWNS) of the zygote: pid 1 of a nested pid namespace,
 *           in a mount namespace of its own, one per command. Ignores the interrupt signals,
 *           mounts the /proc of its pid namespace over the session's (with the plan's read-only
 *           knobs under it: cr_mounts_worker_proc()), enters the session's Landlock domain
 *           (cr_landlock_apply(), as a run's pid 1 does), drops every capability, vfork()s the
 *           runner (and is suspended until the runner executes the command), then waits: for
 *           the runner's end, and for signal numbers on its status channel (kill(-1, sig) in
 *           its namespace). When the runner ends it SIGKILLs everything left in its namespace,
 *           reaps it all and reports the runner's wait status: nothing the command started
 *           outlives it, and no command can signal, or even see, another's processes. It exits
 *           when the server closes the status channel, once it has answered. A step of its
 *           setup that fails is reported on the status channel instead (worker_fail()): the
 *           command given to it fails with that error.
 *   runner  the worker's vfork() child, in the worker's memory until it executes (it allocates
 *           nothing: struct runner_buf), so that the command's execve() has no copy of it to
 *           tear down: every signal at its default, every descriptor but its exec channel
 *           closed, a Landlock domain of its own (own_domain()), the run's seccomp filter
 *           installed, then blocked in recvmsg(). The request's stdio become 0-2, it changes to
 *           the request's directory and execve()s (the PATH search of a run's command,
 *           cr_exec_command()). The command is this process: nothing is forked or set up on
 *           the request path.
 * Every command sees its own pid namespace's /proc: its own processes (and its worker as pid 1,
 * non-dumpable), none of another command's, whose pids, command lines, environments and
 * descriptors it therefore cannot read; `ps` works and finds itself at the pid getpid() gives.
 * Signals cannot cross either (another pid namespace; another Landlock domain). Making a worker
 * costs about 0.25 ms more than with the session's /proc (the mount namespace, 4 mounts, the
 * ruleset): off the request path while the pool lasts (docs/protocol.md has the figures). An
 * idle worker costs two processes of the session's --pids limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher/base/exit-codes.h"
#include "launcher/base/fd-util.h"
#include "landlock/landlock-sys.h"
#include "landlock/landlock.h"
#include "launcher/base/time-util.h"
#include "linux-internal.h"
#include "launcher/base/macro.h"
#include "ns.h"
#include "seccomp/seccomp.h"
#include "zygote-internal.h"
#include "zygote.h"

/* The longest a refill waits for a command to end (cr_zygote_main()). */
#define CR_WARM_REFILL_DELAY_MS 10
/* How soon a worker that could not be made (the pids limit, memory) is tried again when no process
 * ends first: soon enough to refill the pool while commands run, seldom enough not to spin. */
#define CR_WARM_RETRY_MS 100

/* --- in the sandbox ------------------------------------------------------------------------ */

static void report_setup_error(int msg_fd, int r)
{
	struct cr_child_msg msg = { .type = CR_MSG_ERROR, .stage = CR_STAGE_FORK, .err = -r };

	(void)snprintf(msg.detail, sizeof(msg.detail), "warm sandbox");
	(void)!write(msg_fd, &msg, sizeof(msg));
}

int cr_zygote_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};
	unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
			     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
			     SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;

	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
		return negative_errno();
	/* The bounding set limits only what execve() could grant; pid 1 never executes. */
	for (int c = 0; prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
			return negative_errno();
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return negative_errno();
	d[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective = CAP_TO_MASK(CAP_SYS_ADMIN);
	d[CAP_TO_INDEX(CAP_SYS_ADMIN)].permitted = CAP_TO_MASK(CAP_SYS_ADMIN);
	if (syscall(SYS_capset, &h, d) < 0)
		return negative_errno();
	return 0;
}

/* The worker's: no capability at all (the bounding and ambient sets are already empty). */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};

	if (syscall(SYS_capset, &h, d) < 0)
		return negative_errno();
	return 0;
}

/* Every signal to its default disposition (but those in @ignored), none blocked but @blocked. */
static void reset_signals(const sigset_t *ignored, const sigset_t *blocked)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, ign = { .sa_handler = SIG_IGN };

	for (int sig = 1; sig < _NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)sigaction(sig, ignored && sigismember(ignored, sig) == 1 ? &ign : &dfl,
					NULL);
	(void)sigprocmask(SIG_SETMASK, blocked, NULL);
}

static int signalfd_for(int sig)
{
	sigset_t set;

	(void)sigemptyset(&set);
	(void)sigaddset(&set, sig);
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static _Noreturn void runner_fail(int exec_fd, int stage, int r)
{
	struct exec_err e = { .stage = stage, .err = -r };

	(void)send(exec_fd, &e, sizeof(e), MSG_NOSIGNAL);
	_exit(stage == EXEC_STAGE_EXEC && r == -ENOENT ? CR_EXIT_NOTFOUND : CR_EXIT_NOEXEC);
}

/* Split a received request into cwd, argv and envp (pointers into @buf, @n bytes with the
 * header), the two pointer arrays in @v, @n_v entries. Allocates nothing: the runner shares its
 * worker's memory until it executes (worker_main()). */
static int unpack_request(char *buf, size_t n, char **v, size_t n_v, const char **ret_cwd,
			  char ***ret_argv, char ***ret_envp)
{
	struct exec_hdr h;
	char *s, *end = buf + n;
	size_t want;

	if (n < sizeof(h) + 1 || buf[n - 1] != '\0')
		return -EBADMSG;
	memcpy(&h, buf, sizeof(h));
	if (h.argc < 1 || h.len != n - sizeof(h) || (uint64_t)h.argc + h.envc > h.len)
		return -EBADMSG;
	if ((uint64_t)h.argc + h.envc + 2 > n_v)
		return -E2BIG;
	memset(v, 0, ((size_t)h.argc + h.envc + 2) * sizeof(char *));
	s = buf + sizeof(h);
	*ret_cwd = s;
	want = (size_t)h.argc + h.envc;
	for (size_t i = 0, j = 0; i < want; i++, j++) {
		s += strlen(s) + 1;
		if (s >= end)
			return -EBADMSG;
		if (i == h.argc)
			j++; /* argv's NULL */
		v[j] = s;
	}
	*ret_argv = v;
	*ret_envp = v + h.argc + 1;
	return 0;
}

/* A Landlock domain of the command's own, nested in the session's and denying nothing more:
 * it handles making block devices (which needs CAP_MKNOD anyway), from ABI 2 the refer right,
 * granted on / (a domain denies reparenting unless a rule grants it, handled or not), and from
 * ABI 6 signals out of it. Landlock lets a process ptrace only processes of its own domain or
 * of one nested in it, and the same check guards /proc/PID/fd, environ and mem: so a command
 * does not reach its worker (the pid 1 of its /proc), nor any other process of the session,
 * which each worker's separate entry into the session's domain already keeps apart. Nothing
 * without Landlock. */
static int own_domain(const struct cr_landlock_plan *plan)
{
	struct cr_ll_ruleset_attr attr = { .handled_access_fs = LANDLOCK_ACCESS_FS_MAKE_BLOCK };
	struct cr_ll_path_beneath_attr root = { .allowed_access = LANDLOCK_ACCESS_FS_REFER };
	_cleanup_close_ int fd = -EBADF, root_fd = -EBADF;
	int r;

	if (!plan->enabled)
		return 0;
	if (plan->abi >= 2)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (plan->abi >= 6)
		attr.scoped = LANDLOCK_SCOPE_SIGNAL;
	fd = sys_landlock_create_ruleset(&attr, plan->abi >= 6 ? sizeof(attr)
							     : sizeof(attr.handled_access_fs), 0);
	if (fd < 0)
		return fd;
	if (plan->abi >= 2) {
		root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root_fd < 0)
			return negative_errno();
		root.parent_fd = root_fd;
		r = sys_landlock_add_rule(fd, CR_LL_RULE_PATH_BENEATH, &root, 0);
		if (r < 0)
			return r;
	}
	r = sys_landlock_restrict_self(fd, 0);
	return r < 0 ? r : 0;
}

/* What the runner receives its request into: made by the worker before it starts the runner,
 * which allocates nothing itself (worker_main()). Every string of a request takes a byte at
 * least, so it has at most CR_WARM_MAX_REQUEST of them, and argv and envp a NULL each. The
 * pointers' pages are touched only as far as a request fills them. */
struct runner_buf {
	char msg[CR_WARM_MAX_REQUEST];
	char *v[CR_WARM_MAX_REQUEST + 2];
};

/* Each worker's own (a worker is a copy of the zygote, not a thread of it), in the binary's
 * zeroed data rather than mapped when the worker starts: under a memory limit that can only be
 * RLIMIT_AS, a process whose address space is already past it (an AddressSanitizer build's
 * shadow) could map nothing more, and its runner could not be made. */
static struct runner_buf runner_buf;

/* The runner: as confined as a run's command before it, blocked until the one request. */
static _Noreturn void runner_main(const struct cr_child_ctx *ctx, int exec_fd,
				  struct runner_buf *rb)
{
	int fds[3], keep[] = { exec_fd }, r;
	char cbuf[CMSG_SPACE(sizeof(fds))], **argv, **envp;
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	const char *cwd;
	sigset_t none;
	ssize_t n;

	(void)sigemptyset(&none);
	reset_signals(&ctx->ignored, &none);
	if (cr_close_all_except(3, keep, 1) < 0)
		_exit(CR_EXIT_NOEXEC);
	r = own_domain(&ctx->landlock);
	if (r >= 0)
		r = cr_seccomp_install(ctx->seccomp);
	if (r < 0)
		runner_fail(exec_fd, EXEC_STAGE_REQUEST, r);
	iov = (struct iovec){ .iov_base = rb->msg, .iov_len = sizeof(rb->msg) };
	do
		n = recvmsg(exec_fd, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		_exit(0); /* the server let go of this worker */
	c = CMSG_FIRSTHDR(&mh);
	if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || !c || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(fds)))
		runner_fail(exec_fd, EXEC_STAGE_REQUEST, -EBADMSG);
	memcpy(fds, CMSG_DATA(c), sizeof(fds));
	/* Received descriptors are above 2 (0-2 are /dev/null) and O_CLOEXEC: no dup2() here
	 * overwrites another's source, and execve() closes them. */
	for (int i = 0; i < 3; i++)
		if (dup2(fds[i], i) < 0)
			runner_fail(exec_fd, EXEC_STAGE_STDIO, negative_errno());
	r = unpack_request(rb->msg, (size_t)n, rb->v, ELEMENTSOF(rb->v), &cwd, &argv, &envp);
	if (r < 0)
		runner_fail(exec_fd, EXEC_STAGE_REQUEST, r);
	if (chdir(cwd) < 0)
		runner_fail(exec_fd, EXEC_STAGE_CWD, negative_errno());
	runner_fail(exec_fd, EXEC_STAGE_EXEC, cr_exec_command(argv, envp));
}

/* A signal number from the server, or end of file (the server let go: SIGKILL). */
static int read_kill_request(int status_fd)
{
	int32_t sig;
	ssize_t n = recv(status_fd, &sig, sizeof(sig), MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n != sizeof(sig))
		return SIGKILL;
	return sig > 0 && sig < _NSIG ? sig : 0;
}

/* Wait for the runner, relaying the server's signals to every process of the namespace. Returns
 * the runner's wait status. */
static int worker_wait(pid_t runner, int status_fd, int sig_fd)
{
	struct pollfd p[2] = { { .fd = status_fd, .events = POLLIN },
			       { .fd = sig_fd, .events = POLLIN } };
	struct signalfd_siginfo si;
	int status;
	pid_t pid;

	for (;;) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return W_EXITCODE(CR_EXIT_SETUP, 0);
		if (p[0].revents) {
			int sig = read_kill_request(status_fd);

			/* From a namespace's pid 1, -1 is every other process in it. */
			if (sig > 0)
				(void)kill(-1, sig);
			if (sig == SIGKILL)
				p[0].fd = -1; /* nothing more to relay */
		}
		while (read(sig_fd, &si, sizeof(si)) == sizeof(si))
			;
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			if (pid == runner)
				return status;
	}
}

const char *zygote_worker_step(int step)
{
	switch (step) {
	case WORKER_STEP_FDS:
		return "close the zygote's descriptors";
	case WORKER_STEP_PROC:
		return "mount the /proc of its pid namespace";
	case WORKER_STEP_LANDLOCK:
		return "enter the session's Landlock domain";
	case WORKER_STEP_CAPS:
		return "drop its capabilities";
	case WORKER_STEP_FORK:
		return "fork its runner";
	default:
		return "set up";
	}
}

/* A worker that cannot be made says which step failed and why on its status channel, where the
 * server finds it when it hands the worker a command (warm_exec(), fill_result()): it is not
 * lost without a word, and the command it was given fails with that error. */
static _Noreturn void worker_fail(int status_fd, int step, int r)
{
	struct worker_status ws = { .setup_step = step, .setup_err = -r };

	(void)send(status_fd, &ws, sizeof(ws), MSG_NOSIGNAL);
	_exit(CR_EXIT_SETUP);
}

/* The worker's confinement, before it drops its last capability: the zygote's descriptors closed
 * first (the mounts and the ruleset need a few of their own under the session's --open-files); in
 * its own mount namespace, the /proc of its own pid namespace (its command sees its own processes
 * and no other command's, and `ps` finds itself under the pid getpid() gives); then the session's
 * Landlock domain, as a run's pid 1 enters it; then no capability and no_new_privs. 0, or -errno
 * with the step in @ret_step. */
static int worker_confine(const struct cr_child_ctx *ctx, int *keep, int *ret_step)
{
	const struct cr_policy *p = ctx->policy;
	char msg[200];
	int r;

	*ret_step = WORKER_STEP_FDS;
	r = cr_close_all_except(3, keep, 2);
	if (r < 0)
		return r;
	*ret_step = WORKER_STEP_PROC;
	r = cr_mounts_worker_proc(&ctx->plan, msg, sizeof(msg));
	if (r < 0)
		return r;
	*ret_step = WORKER_STEP_LANDLOCK;
	r = cr_landlock_apply(&ctx->landlock, p->keep_fds, p->n_keep_fds, msg, sizeof(msg));
	if (r < 0)
		return r;
	*ret_step = WORKER_STEP_CAPS;
	r = drop_caps();
	if (r < 0)
		return r;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ? negative_errno() : 0;
}

static _Noreturn void worker_main(const struct cr_child_ctx *ctx, int exec_fd, int status_fd)
{
	static const int ignored[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE };
	int keep[] = { exec_fd, status_fd }, sig_fd, status, step, r;
	struct worker_status ws;
	pid_t runner;

	for (size_t i = 0; i < ELEMENTSOF(ignored); i++)
		(void)signal(ignored[i], SIG_IGN);
	r = worker_confine(ctx, keep, &step);
	if (r < 0)
		worker_fail(status_fd, step, r);
	sig_fd = signalfd_for(SIGCHLD); /* SIGCHLD is blocked since the zygote */
	if (sig_fd < 0)
		worker_fail(status_fd, WORKER_STEP_FORK, negative_errno());
	/* The runner shares the worker's memory until it executes the command, and the worker waits
	 * meanwhile (it has nothing to do before a command runs): the command's execve() then has
	 * no copy of the worker's memory to tear down, as posix_spawn() has none. */
	runner = CR_SANITIZED ? fork() : vfork(); /* see CR_SANITIZED */
	if (runner < 0)
		worker_fail(status_fd, WORKER_STEP_FORK, negative_errno());
	if (runner == 0)
		runner_main(ctx, exec_fd, &runner_buf);
	(void)close(exec_fd);
	status = worker_wait(runner, status_fd, sig_fd);
	/* The command has ended: so does everything it started, before the server hears of it.
	 * Every process of the namespace descends from the worker, its pid 1 (nothing in the
	 * sandbox may setns() into it), and an orphan is the worker's child: with no child left,
	 * the namespace is empty, and kill(-1) (a walk over every process of the host) is spared. */
	if (waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD) {
		(void)kill(-1, SIGKILL);
		while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
			;
	}
	ws = (struct worker_status){ .wait_status = status };
	(void)send(status_fd, &ws, sizeof(ws), MSG_NOSIGNAL);
	/* Exit only once the server lets go of the channel, after it has answered: the worker's
	 * exit (its memory torn down) and the refill it lets the zygote make (cr_zygote_main())
	 * then come after the reply, not in its way. */
	for (;;) {
		ssize_t n = recv(status_fd, &ws, sizeof(ws), 0);

		if (n == 0 || (n < 0 && errno != EINTR))
			_exit(0);
	}
}

/* One worker: its two channels, the clone into a new pid namespace, and ZY_READY with the
 * server's ends. 0 or -errno (nothing is left behind). */
static int start_worker(const struct cr_child_ctx *ctx, int control_fd)
{
	struct zy_msg m = { .type = ZY_READY };
	int ex[2], st[2], fds[2], r;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ex) < 0)
		return negative_errno();
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, st) < 0) {
		r = negative_errno();
		goto out_close_ex;
	}
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWNS | SIGCHLD, NULL, NULL, NULL,
			     NULL);
	if (pid == 0) {
		(void)close(ex[0]);
		(void)close(st[0]);
		worker_main(ctx, ex[1], st[1]);
	}
	r = pid < 0 ? negative_errno() : 0;
	fds[0] = ex[0];
	fds[1] = st[0];
	if (r == 0)
		r = cr_send_fds(control_fd, &m, sizeof(m), fds, 2, 0);
	(void)close(st[0]);
	(void)close(st[1]);
out_close_ex:
	(void)close(ex[0]);
	(void)close(ex[1]);
	return r;
}

/* Tell the server that a worker could not be made (@r), unless @told already said so: it logs
 * it, as the zygote cannot. Returns what the server now knows (0: nothing to tell). */
static int tell_failure(int control_fd, int r, int told)
{
	struct zy_msg m = { .type = ZY_FAILED, .count = (uint32_t)-r };

	if (r >= 0)
		return 0;
	if (r == told)
		return told;
	if (cr_send_fds(control_fd, &m, sizeof(m), NULL, 0, MSG_DONTWAIT) < 0)
		return told; /* the next turn tries again */
	return r;
}

/* ZY_WANT messages: how many workers the server asks for; -EPIPE once it is gone. */
static int read_wants(int control_fd, unsigned *want)
{
	struct zy_msg m;
	ssize_t n;

	while ((n = recv(control_fd, &m, sizeof(m), MSG_DONTWAIT)) > 0)
		if (n == sizeof(m) && m.type == ZY_WANT && m.count <= CR_WARM_MAX_READY)
			*want += m.count;
	if (n == 0 || (errno != EAGAIN && errno != EINTR))
		return -EPIPE;
	return 0;
}

int cr_zygote_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC), r = 0;

	if (fd < 0)
		return negative_errno();
	for (int i = 0; i < 3 && r == 0; i++)
		if (fd != i && dup2(fd, i) < 0)
			r = negative_errno();
	if (fd > 2)
		(void)close(fd);
	return r;
}

/* Set up pid 1 as the zygote: nothing open but the control socket, the report pipe and 0-2
 * (/dev/null since cr_zygote_stdio()), SIGCHLD through a signalfd. */
static int zygote_setup(struct cr_child_ctx *ctx, int *ret_sig_fd)
{
	int keep[] = { ctx->warm_fd, ctx->msg_fd }, r;
	sigset_t chld;

	(void)sigemptyset(&chld);
	(void)sigaddset(&chld, SIGCHLD);
	reset_signals(NULL, &chld);
	r = cr_close_all_except(3, keep, ELEMENTSOF(keep));
	if (r < 0)
		return r;
	*ret_sig_fd = signalfd_for(SIGCHLD);
	return *ret_sig_fd < 0 ? negative_errno() : 0;
}

/* How long to wait in poll(): a worker to retry (CR_WARM_RETRY_MS), a refill that is due, or
 * nothing. */
static int zygote_timeout(unsigned want, unsigned deferred, int64_t due)
{
	int64_t left = due - cr_now_ms();

	if (want > 0)
		return CR_WARM_RETRY_MS;
	if (deferred == 0)
		return -1;
	return left < 0 ? 0 : (int)left;
}

/* Refills: a ZY_WANT comes as its command starts, but the worker for it is made only when a
 * worker exits (a command ended) or CR_WARM_REFILL_DELAY_MS later, whichever comes first:
 * making one (two forks and the runner's setup) would otherwise take the CPU from the command
 * that just started, which a short command pays in full on a busy host. */
_Noreturn void cr_zygote_main(struct cr_child_ctx *ctx)
{
	unsigned want = ctx->warm_pool, deferred = 0;
	struct signalfd_siginfo si;
	int sig_fd = -EBADF, r, told = 0;
	int64_t due = 0;

	r = zygote_setup(ctx, &sig_fd);
	/* The first worker is part of the setup: if none can be made, start() says why. */
	if (r >= 0 && (r = start_worker(ctx, ctx->warm_fd)) >= 0)
		want--;
	if (r < 0) {
		report_setup_error(ctx->msg_fd, r);
		_exit(CR_EXIT_SETUP_SILENT);
	}
	for (;;) {
		struct pollfd p[2] = { { .fd = ctx->warm_fd, .events = POLLIN },
				       { .fd = sig_fd, .events = POLLIN } };
		bool reaped = false;

		/* A worker that cannot be made now (the pids limit, memory) is tried again when a
		 * process ends, or in CR_WARM_RETRY_MS; the server hears of each new error. */
		r = 0;
		while (want > 0 && (r = start_worker(ctx, ctx->warm_fd)) == 0)
			want--;
		told = tell_failure(ctx->warm_fd, r, told);
		if (poll(p, 2, zygote_timeout(want, deferred, due)) < 0 && errno != EINTR)
			_exit(CR_EXIT_SETUP_SILENT);
		if (p[0].revents) {
			if (deferred == 0)
				due = cr_now_ms() + CR_WARM_REFILL_DELAY_MS;
			if (read_wants(ctx->warm_fd, &deferred) < 0)
				_exit(0); /* the server is gone */
		}
		while (read(sig_fd, &si, sizeof(si)) == sizeof(si))
			;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			reaped = true;
		if (deferred > 0 && (reaped || cr_now_ms() >= due)) {
			want += deferred;
			deferred = 0;
		}
	}
}
