/* SPDX-License-Identifier: MIT */
/* Warm sandboxes for `corral serve` (launcher/driver.h, struct cr_warm_ops).
 *
 * start() builds the sandbox exactly as a run does (ns/driver.c: prepare, clone, id maps, the
 * stages, the cgroup, the proxy), but its pid 1 forks no command: it becomes the zygote. Of its
 * capabilities it keeps only CAP_SYS_ADMIN, in the sandbox's own user namespace, to create pid
 * namespaces; it is non-dumpable, under no_new_privs and Landlock like a run's pid 1, and holds
 * only its control socket, the report pipe and /dev/null as 0-2.
 *
 * Processes (pids as seen from the session's pid namespace):
 *   zygote  pid 1. Keeps `pool` workers ready; makes one more for each ZY_WANT, once a command
 *           ends or 10 ms later (cr_zygote_main()).
 *   worker  clone(CLONE_NEWPID) of the zygote: pid 1 of a nested pid namespace, one per command.
 *           Drops every capability, ignores the interrupt signals, mounts nothing (/proc stays
 *           the session's), forks the runner, then waits: for the runner's end, and for signal
 *           numbers on its status channel (kill(-1, sig) in its namespace). When the runner
 *           ends it SIGKILLs everything left in its namespace, reaps it all, reports the
 *           runner's wait status and exits: nothing the command started outlives it, and no
 *           command can signal another's processes (it sees them: see below).
 *   runner  the worker's child: every signal at its default, every descriptor but its exec
 *           channel closed, a Landlock domain of its own (own_domain()), the run's seccomp
 *           filter installed, then blocked in recvmsg(). The request's stdio become 0-2, it
 *           changes to the request's directory and execve()s (the PATH search of a run's
 *           command, cr_exec_command()). The command is this process: nothing is forked or set
 *           up on the request path.
 * Every command sees the session's /proc (so `ps` shows the other commands), but can neither
 * signal them (another pid namespace) nor read their /proc/PID/fd, environ or mem (another
 * Landlock domain). An idle worker costs two processes of the session's --pids limit.
 *
 * Messages, all on AF_UNIX SOCK_SEQPACKET socketpairs (one message per send):
 *   control (server <-> zygote)  zygote: struct zy_msg ZY_READY + SCM_RIGHTS [exec, status],
 *                                the server's ends of a new worker's channels;
 *                                server: struct zy_msg ZY_WANT (count): make that many more.
 *   exec (server <-> runner)     server: struct exec_hdr, then cwd, argv and envp as
 *                                NUL-terminated strings, + SCM_RIGHTS [stdin, stdout, stderr];
 *                                runner, on failure only: struct exec_err. The runner's end is
 *                                O_CLOEXEC: end of file means execve() succeeded.
 *   status (server <-> worker)   server: int32_t signal number; worker: struct worker_status,
 *                                once, when the command and all it started are gone. End of
 *                                file from the server is SIGKILL.
 *
 * The server must keep the policy alive as long as the sandbox (as for a run), and must not reap
 * with waitpid(-1): free() reaps pid 1. pid 1 dies with the thread that called start()
 * (PR_SET_PDEATHSIG), so that thread must live as long as the sandbox.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher/base/json-util.h"
#include "cgroup/cgroup.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/fd-util.h"
#include "landlock/landlock-sys.h"
#include "landlock/landlock.h"
#include "launcher/base/time-util.h"
#include "linux-internal.h"
#include "launcher/base/macro.h"
#include "ns.h"
#include "ns/net/proxy.h"
#include "seccomp/seccomp.h"
#include "zygote.h"

/* The largest request (cwd, argv, envp and their NULs): below the default socket send buffer
 * (net.core.wmem_default, 212992), which bounds one SOCK_SEQPACKET message. */
#define CR_WARM_MAX_REQUEST (128 * 1024)
#define CR_WARM_MAX_POOL    16
/* Ready workers the server holds at most: the pool, and what a burst of ZY_WANT adds. */
#define CR_WARM_MAX_READY   (2 * CR_WARM_MAX_POOL)
/* The longest a refill waits for a command to end (cr_zygote_main()). */
#define CR_WARM_REFILL_DELAY_MS 10
/* How long start() waits for the sandbox's setup. */
#define CR_WARM_START_MS    30000

enum { ZY_READY = 1, ZY_WANT = 2 };

struct zy_msg {
	uint32_t type;
	uint32_t count; /* ZY_WANT: workers to add */
};

struct exec_hdr {
	uint32_t argc, envc;
	uint32_t len; /* bytes of strings after the header */
};

/* What failed in the runner, on the exec channel. */
enum { EXEC_STAGE_REQUEST = 1, EXEC_STAGE_STDIO, EXEC_STAGE_CWD, EXEC_STAGE_EXEC };

struct exec_err {
	int32_t stage;
	int32_t err; /* positive errno */
};

struct worker_status {
	int32_t wait_status; /* the runner's (the command's) */
};

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
 * header). Allocates the two pointer arrays, once. */
static int unpack_request(char *buf, size_t n, const char **ret_cwd, char ***ret_argv,
			  char ***ret_envp)
{
	struct exec_hdr h;
	char **v, *s, *end = buf + n;
	size_t want;

	if (n < sizeof(h) + 1 || buf[n - 1] != '\0')
		return -EBADMSG;
	memcpy(&h, buf, sizeof(h));
	if (h.argc < 1 || h.len != n - sizeof(h) || (uint64_t)h.argc + h.envc > h.len)
		return -EBADMSG;
	v = calloc((size_t)h.argc + h.envc + 2, sizeof(char *));
	if (!v)
		return -ENOMEM;
	s = buf + sizeof(h);
	*ret_cwd = s;
	want = (size_t)h.argc + h.envc;
	for (size_t i = 0, j = 0; i < want; i++, j++) {
		s += strlen(s) + 1;
		if (s >= end) {
			free(v);
			return -EBADMSG;
		}
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
 * of one nested in it, and the same check guards /proc/PID/fd, environ and mem: so no command
 * reaches another command of its session through the session's /proc, which every command
 * sees. Nothing without Landlock. */
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

/* The runner: as confined as a run's command before it, blocked until the one request. */
static _Noreturn void runner_main(const struct cr_child_ctx *ctx, int exec_fd)
{
	int fds[3], keep[] = { exec_fd }, r;
	char cbuf[CMSG_SPACE(sizeof(fds))], **argv, **envp, *buf;
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	const char *cwd;
	sigset_t none;
	ssize_t n;

	(void)sigemptyset(&none);
	reset_signals(&ctx->ignored, &none);
	buf = malloc(CR_WARM_MAX_REQUEST);
	if (!buf || cr_close_all_except(3, keep, 1) < 0)
		_exit(CR_EXIT_NOEXEC);
	r = own_domain(&ctx->landlock);
	if (r >= 0)
		r = cr_seccomp_install(ctx->seccomp);
	if (r < 0)
		runner_fail(exec_fd, EXEC_STAGE_REQUEST, r);
	iov = (struct iovec){ .iov_base = buf, .iov_len = CR_WARM_MAX_REQUEST };
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
	r = unpack_request(buf, (size_t)n, &cwd, &argv, &envp);
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

static _Noreturn void worker_main(const struct cr_child_ctx *ctx, int exec_fd, int status_fd)
{
	static const int ignored[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE };
	int keep[] = { exec_fd, status_fd }, sig_fd, status;
	struct worker_status ws;
	pid_t runner;

	for (size_t i = 0; i < ELEMENTSOF(ignored); i++)
		(void)signal(ignored[i], SIG_IGN);
	if (drop_caps() < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    cr_close_all_except(3, keep, 2) < 0)
		_exit(CR_EXIT_SETUP);
	sig_fd = signalfd_for(SIGCHLD); /* SIGCHLD is blocked since the zygote */
	if (sig_fd < 0)
		_exit(CR_EXIT_SETUP);
	runner = fork();
	if (runner < 0)
		_exit(CR_EXIT_SETUP);
	if (runner == 0) {
		(void)close(status_fd);
		(void)close(sig_fd);
		runner_main(ctx, exec_fd);
	}
	(void)close(exec_fd);
	status = worker_wait(runner, status_fd, sig_fd);
	/* The command has ended: so does everything it started, before the server hears of it. */
	(void)kill(-1, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	ws = (struct worker_status){ .wait_status = status };
	(void)send(status_fd, &ws, sizeof(ws), MSG_NOSIGNAL);
	_exit(0);
}

/* Send @fds with the message @m on @sock. 0 or -errno. */
static int send_with_fds(int sock, const void *m, size_t size, const int *fds, size_t n_fds,
			 int flags)
{
	char cbuf[CMSG_SPACE(3 * sizeof(int))] = {};
	struct iovec iov = { .iov_base = (void *)m, .iov_len = size };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (n_fds) {
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(n_fds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(n_fds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, n_fds * sizeof(int));
	}
	if (sendmsg(sock, &mh, flags | MSG_NOSIGNAL) < 0)
		return negative_errno();
	return 0;
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
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid == 0) {
		(void)close(ex[0]);
		(void)close(st[0]);
		worker_main(ctx, ex[1], st[1]);
	}
	r = pid < 0 ? negative_errno() : 0;
	fds[0] = ex[0];
	fds[1] = st[0];
	if (r == 0)
		r = send_with_fds(control_fd, &m, sizeof(m), fds, 2, 0);
	(void)close(st[0]);
	(void)close(st[1]);
out_close_ex:
	(void)close(ex[0]);
	(void)close(ex[1]);
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

/* How long to wait in poll(): a worker to retry (100 ms), a refill that is due, or nothing. */
static int zygote_timeout(unsigned want, unsigned deferred, int64_t due)
{
	int64_t left = due - cr_now_ms();

	if (want > 0)
		return 100;
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
	int sig_fd = -EBADF, r;
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
		 * process ends, or in 100 ms. */
		while (want > 0 && start_worker(ctx, ctx->warm_fd) == 0)
			want--;
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

/* --- in the server ------------------------------------------------------------------------- */

struct worker {
	int exec_fd, status_fd;
};

struct cr_warm {
	struct cr_run *run;
	unsigned pool;
	int control_fd;
	struct worker ready[CR_WARM_MAX_READY];
	unsigned n_ready;
	unsigned want_unsent; /* replacements not yet asked for (the control socket was full) */
	char *buf;	      /* the request being packed, reused */
	size_t buf_size;
	char *const *extra_env; /* allow_hosts: the proxy's variables, added to every request that
				 * sets neither name of a pair, as a run's environment gets them */
};

struct cr_exec {
	int exec_fd, status_fd;
	bool done;
	struct cr_exec_result result;
};

static void worker_close(struct worker *wk)
{
	closep(&wk->exec_fd);
	closep(&wk->status_fd);
	wk->exec_fd = wk->status_fd = -EBADF;
}

/* Receive one message with up to two descriptors. The message's size, 0 at end of file, or
 * -errno (-EAGAIN: nothing now). */
static ssize_t recv_with_fds(int sock, void *m, size_t size, int fds[2], size_t *ret_n_fds)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { .iov_base = m, .iov_len = size };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	ssize_t n;

	*ret_n_fds = 0;
	n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return negative_errno();
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			memcpy(fds, CMSG_DATA(c), k * sizeof(int));
			*ret_n_fds = k;
		}
	return n;
}

/* Ask the zygote for the replacements owed, without blocking: if the control socket is full,
 * the next handle() or exec() asks again. */
static void flush_wants(struct cr_warm *w)
{
	struct zy_msg m = { .type = ZY_WANT, .count = w->want_unsent };

	if (w->want_unsent &&
	    send(w->control_fd, &m, sizeof(m), MSG_DONTWAIT | MSG_NOSIGNAL) == sizeof(m))
		w->want_unsent = 0;
}

static int warm_handle(struct cr_warm *w)
{
	struct zy_msg m;
	int fds[2];
	size_t n_fds;
	ssize_t n;

	for (;;) {
		n = recv_with_fds(w->control_fd, &m, sizeof(m), fds, &n_fds);
		if (n == -EINTR)
			continue;
		if (n == -EAGAIN)
			break;
		if (n <= 0)
			return n == 0 ? -EPIPE : (int)n;
		if (n == sizeof(m) && m.type == ZY_READY && n_fds == 2 &&
		    w->n_ready < CR_WARM_MAX_READY) {
			w->ready[w->n_ready++] = (struct worker){ fds[0], fds[1] };
			continue;
		}
		for (size_t i = 0; i < n_fds; i++)
			(void)close(fds[i]);
	}
	flush_wants(w);
	return 0;
}

static void set_error(struct cr_setup_error *e, enum cr_stage stage, int err, const char *msg)
{
	(void)snprintf(e->stage, sizeof(e->stage), "%s", cr_stage_to_string(stage));
	e->err = err;
	(void)snprintf(e->message, sizeof(e->message), "%s", msg);
}

/* The report pipe: a stage that failed, or pid 1 gone without a word. */
static int read_setup_error(struct cr_warm *w, struct cr_setup_error *err)
{
	struct cr_child_msg m;
	char text[512];
	ssize_t n = read(cr_ns_run_msg_fd(w->run), &m, sizeof(m));

	if (n == sizeof(m) && m.type == CR_MSG_ERROR) {
		(void)snprintf(text, sizeof(text), "%.200s%s%s", m.detail, m.detail[0] ? ": " : "",
			       strerror(m.err));
		set_error(err, (enum cr_stage)m.stage, m.err, text);
		return -m.err;
	}
	set_error(err, CR_STAGE_SYNC, EPROTO, "the warm sandbox's init exited before reporting");
	return -EPROTO;
}

/* Until the sandbox is built (a first worker is ready) or its setup failed. */
static int wait_started(struct cr_warm *w, struct cr_setup_error *err)
{
	struct pollfd p[2] = { { .fd = w->control_fd, .events = POLLIN },
			       { .fd = cr_ns_run_msg_fd(w->run), .events = POLLIN } };
	int r;

	while (w->n_ready == 0) {
		r = poll(p, 2, CR_WARM_START_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			set_error(err, CR_STAGE_SYNC, r == 0 ? ETIMEDOUT : errno,
				  "the warm sandbox did not start");
			return r == 0 ? -ETIMEDOUT : negative_errno();
		}
		if (p[1].revents)
			return read_setup_error(w, err);
		r = warm_handle(w);
		if (r == -EPIPE) /* pid 1 died: the report pipe says why */
			return read_setup_error(w, err);
		if (r < 0)
			return r;
	}
	return 0;
}

static struct cr_warm *warm_free(struct cr_warm *w)
{
	if (!w)
		return NULL;
	for (unsigned i = 0; i < w->n_ready; i++)
		worker_close(&w->ready[i]);
	closep(&w->control_fd);
	/* SIGKILL to pid 1 takes the whole pid namespace, workers and commands; then the cgroup,
	 * the proxy, the plans. */
	w->run = cr_driver_native()->run_free(w->run);
	free(w->buf);
	free(w);
	return NULL;
}

/* allow_hosts: the variables the proxy adds to the policy's environment (cr_proxy_new() appends
 * them after a copy of it); NULL without a proxy. */
static char *const *proxy_env(const struct cr_run *run, const struct cr_policy *p)
{
	const struct cr_proxy *px = cr_ns_run_proxy(run);
	size_t n = 0;

	if (!px)
		return NULL;
	while (p->env && p->env[n])
		n++;
	return cr_proxy_policy(px)->env + n;
}

static int warm_start(const struct cr_policy *p, unsigned pool, struct cr_warm **ret,
		      struct cr_setup_error *err)
{
	struct cr_setup_error scratch;
	struct cr_warm *w;
	int sv[2], r;

	if (!err)
		err = &scratch;
	if (pool < 1 || pool > CR_WARM_MAX_POOL) {
		set_error(err, CR_STAGE_FORK, EINVAL, "a warm sandbox's pool is 1 to 16 workers");
		return -EINVAL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->pool = pool;
	w->control_fd = -EBADF;
	r = cr_driver_native()->prepare(p, &w->run, err);
	if (r < 0) {
		free(w);
		return r;
	}
	w->extra_env = proxy_env(w->run, p);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		r = negative_errno();
		set_error(err, CR_STAGE_FORK, -r, "cannot make the control socket");
		warm_free(w);
		return r;
	}
	w->control_fd = sv[0];
	r = cr_ns_spawn_warm(w->run, pool, sv[1], err);
	(void)close(sv[1]);
	if (r >= 0)
		r = wait_started(w, err);
	if (r < 0) {
		warm_free(w);
		return r;
	}
	*ret = w;
	return 0;
}

static int warm_fd(const struct cr_warm *w)
{
	return w->control_fd;
}

static unsigned warm_ready(const struct cr_warm *w)
{
	return w->n_ready;
}

static int warm_pid(const struct cr_warm *w)
{
	return (int)cr_ns_run_pid(w->run);
}

/* Does @env set the variable of @kv ("NAME=value"), in either case (http_proxy, HTTP_PROXY)? */
static bool env_sets(char *const *env, const char *kv)
{
	size_t n = strcspn(kv, "=");

	for (; env && *env; env++)
		if (strncasecmp(*env, kv, n) == 0 && (*env)[n] == '=')
			return true;
	return false;
}

static size_t put_string(char *buf, size_t off, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(buf + off, s, n);
	return off + n;
}

/* The request as one message: struct exec_hdr, cwd, argv, envp (NUL-terminated strings), in
 * w->buf. Its size, or -E2BIG past CR_WARM_MAX_REQUEST. */
static ssize_t pack_request(struct cr_warm *w, const struct cr_exec_request *req)
{
	struct exec_hdr h = {};
	size_t len = strlen(req->cwd) + 1, off;

	for (char *const *s = req->argv; *s; s++, h.argc++)
		len += strlen(*s) + 1;
	for (char *const *s = req->envp; s && *s; s++, h.envc++)
		len += strlen(*s) + 1;
	for (char *const *s = w->extra_env; s && *s; s++)
		if (!env_sets(req->envp, *s)) {
			len += strlen(*s) + 1;
			h.envc++;
		}
	if (h.argc == 0)
		return -EINVAL;
	if (sizeof(h) + len > CR_WARM_MAX_REQUEST)
		return -E2BIG;
	if (w->buf_size < sizeof(h) + len) {
		char *b = realloc(w->buf, CR_WARM_MAX_REQUEST);

		if (!b)
			return -ENOMEM;
		w->buf = b;
		w->buf_size = CR_WARM_MAX_REQUEST;
	}
	h.len = (uint32_t)len;
	memcpy(w->buf, &h, sizeof(h));
	off = put_string(w->buf, sizeof(h), req->cwd);
	for (char *const *s = req->argv; *s; s++)
		off = put_string(w->buf, off, *s);
	for (char *const *s = req->envp; s && *s; s++)
		off = put_string(w->buf, off, *s);
	for (char *const *s = w->extra_env; s && *s; s++)
		if (!env_sets(req->envp, *s))
			off = put_string(w->buf, off, *s);
	return (ssize_t)off;
}

static int warm_exec(struct cr_warm *w, const struct cr_exec_request *req, struct cr_exec **ret)
{
	struct cr_exec *e;
	ssize_t size;
	int r = -EAGAIN;

	if (!req->cwd || req->cwd[0] != '/')
		return -EINVAL;
	if (w->n_ready == 0)
		return -EAGAIN;
	size = pack_request(w, req);
	if (size < 0)
		return (int)size;
	e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	while (w->n_ready > 0) {
		struct worker wk = w->ready[--w->n_ready];

		w->want_unsent++; /* its replacement, asked for below */
		r = send_with_fds(wk.exec_fd, w->buf, (size_t)size, req->stdio, 3, MSG_DONTWAIT);
		if (r >= 0) {
			*e = (struct cr_exec){ .exec_fd = wk.exec_fd, .status_fd = wk.status_fd };
			break;
		}
		if (r == -EBADF) { /* the request's descriptors: the worker is still good */
			w->ready[w->n_ready++] = wk;
			w->want_unsent--;
			break;
		}
		worker_close(&wk); /* a worker that died idle: try the next */
		if (r != -EPIPE && r != -ECONNRESET)
			break;
		r = -EAGAIN;
	}
	flush_wants(w);
	if (r < 0) {
		free(e);
		return r;
	}
	*ret = e;
	return 0;
}

static int warm_exec_fd(const struct cr_exec *e)
{
	return e->status_fd;
}

static void fill_result(struct cr_exec *e, const struct worker_status *ws)
{
	struct exec_err ee;
	int st = ws->wait_status;

	e->result = (struct cr_exec_result){};
	/* The runner writes here only when it could not execute the command. */
	if (recv(e->exec_fd, &ee, sizeof(ee), MSG_DONTWAIT) == sizeof(ee)) {
		e->result.kind = CR_OUTCOME_EXEC_FAILED;
		e->result.err = ee.err;
		e->result.status = ee.stage == EXEC_STAGE_EXEC && ee.err == ENOENT
					   ? CR_EXIT_NOTFOUND
					   : CR_EXIT_NOEXEC;
	} else if (WIFEXITED(st)) {
		e->result.kind = CR_OUTCOME_EXITED;
		e->result.status = WEXITSTATUS(st);
	} else {
		e->result.kind = CR_OUTCOME_SIGNALED;
		e->result.status = WIFSIGNALED(st) ? WTERMSIG(st) : SIGKILL;
	}
	e->done = true; /* oom_killed and pids_limit_hit: the caller's, from events() */
}

static int warm_exec_handle(struct cr_exec *e, struct cr_exec_result *ret)
{
	struct worker_status ws;
	ssize_t n;

	if (!e->done) {
		n = recv(e->status_fd, &ws, sizeof(ws), MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return -EAGAIN;
		if (n != sizeof(ws)) /* the worker was killed: the whole sandbox was */
			ws = (struct worker_status){ .wait_status = SIGKILL };
		fill_result(e, &ws);
	}
	*ret = e->result;
	return 0;
}

static int warm_exec_kill(struct cr_exec *e, int sig)
{
	int32_t s = sig;

	if (sig <= 0 || sig >= _NSIG)
		return -EINVAL;
	if (e->done)
		return 0;
	if (send(e->status_fd, &s, sizeof(s), MSG_DONTWAIT | MSG_NOSIGNAL) < 0 && errno != EPIPE &&
	    errno != ECONNRESET)
		return negative_errno();
	return 0;
}

static struct cr_exec *warm_exec_free(struct cr_exec *e)
{
	if (!e)
		return NULL;
	/* The worker reads end of file on its status channel as SIGKILL. */
	closep(&e->exec_fd);
	closep(&e->status_fd);
	free(e);
	return NULL;
}

static int warm_report(const struct cr_warm *w, struct json_object *enforced)
{
	json_object *o = json_object_new_object(), *caps = json_object_new_array();
	int r = o && caps ? 0 : -ENOMEM;

	/* The commands have no capability ("capabilities"); the zygote keeps this one, in the
	 * sandbox's user namespace, to make the workers' pid namespaces. */
	r = r ?: cr_json_append(caps, json_object_new_string("CAP_SYS_ADMIN"));
	r = r ?: cr_json_add(o, "pool", json_object_new_int((int)w->pool));
	r = r ?: cr_json_add(o, "nested_pid_namespaces", json_object_new_boolean(true));
	r = r ?: cr_json_add(o, "landlock_domain_per_command",
		     json_object_new_boolean(cr_ns_run_landlock(w->run)->enabled));
	r = r ?: cr_json_add(o, "init_capabilities", TAKE_PTR(caps));
	r = r ?: cr_ns_report(w->run, enforced);
	r = r ?: cr_json_add(enforced, "warm", TAKE_PTR(o));
	json_object_put(caps);
	json_object_put(o);
	return r;
}

static void warm_events(const struct cr_warm *w, uint64_t *ret_oom, uint64_t *ret_pids)
{
	cr_cgroup_counters(cr_ns_run_cgroup(w->run), ret_oom, ret_pids);
}

const struct cr_warm_ops linux_warm_ops = {
	.start = warm_start,
	.fd = warm_fd,
	.handle = warm_handle,
	.ready = warm_ready,
	.exec = warm_exec,
	.exec_fd = warm_exec_fd,
	.exec_handle = warm_exec_handle,
	.exec_kill = warm_exec_kill,
	.exec_free = warm_exec_free,
	.report = warm_report,
	.events = warm_events,
	.pid = warm_pid,
	.free = warm_free,
};
