/* SPDX-License-Identifier: MIT */
/* The pool's client, in `corral run`: one connection per run (pool-internal.h has the messages).
 * The gate, the ledger and the JSON status stay in `corral run`; the pool gets the command, its
 * environment and directory, the policy's fingerprint and the three standard descriptors. */
#include <errno.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "launcher/base/json-util.h"
#include "launcher/base/fd-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/time-util.h"
#include "launcher/driver.h"
#include "launcher/policy/policy.h"
#include "pool-internal.h"
#include "pool.h"

static const char *const mode_names[_CR_POOL_MODE_MAX] = {
	[CR_POOL_AUTO] = "auto",
	[CR_POOL_REQUIRE] = "require",
	[CR_POOL_NEVER] = "never",
};

enum cr_pool_mode cr_pool_mode_from_string(const char *s)
{
	for (int m = 0; s && m < _CR_POOL_MODE_MAX; m++)
		if (strcmp(s, mode_names[m]) == 0)
			return (enum cr_pool_mode)m;
	return _CR_POOL_MODE_INVALID;
}

const char *cr_pool_mode_to_string(enum cr_pool_mode m)
{
	return m >= 0 && m < _CR_POOL_MODE_MAX ? mode_names[m] : NULL;
}

int cr_pool_mode_resolve(const char *opt, char *const *env, enum cr_pool_mode *ret, char *msg,
			 size_t size)
{
	const char *v = opt, *from = "--pool";
	enum cr_pool_mode m;

	for (char *const *e = env; !v && e && *e; e++)
		if (strncmp(*e, "CORRAL_POOL=", 12) == 0) {
			v = *e + 12;
			from = "CORRAL_POOL";
		}
	if (!v) {
		*ret = CR_POOL_AUTO;
		return 0;
	}
	m = cr_pool_mode_from_string(v);
	if (m < 0)
		return cr_msg(msg, size, -EINVAL, "%s=%s: expected auto, require or never", from, v);
	*ret = m;
	return 0;
}

/* The interrupt signals through a signalfd, to relay them; one corral was started with ignored
 * stays ignored (as a cold run leaves it). */
static int block_interrupts(sigset_t *old)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	sigset_t set;

	(void)sigemptyset(&set);
	for (size_t i = 0; i < ELEMENTSOF(sigs); i++)
		if (sigaction(sigs[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
			(void)sigaddset(&set, sigs[i]);
	(void)sigprocmask(SIG_BLOCK, &set, old);
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

int cr_pool_connect(char *const *env, char *reason, size_t size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -EBADF;
	int r;

	r = cr_pool_socket_path(env, false, &path);
	if (r < 0)
		return cr_msg(reason, size, -ENOENT, "no pool: cannot locate its socket: %s",
			      strerror(-r));
	if (strlen(path) >= sizeof(sa.sun_path))
		return cr_msg(reason, size, -ENOENT, "no pool: its socket path %s is too long", path);
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return cr_msg(reason, size, -ENOENT, "no pool is running (%s: %s)", path,
			      strerror(errno));
	/* Not a byte before the listener is known to be ours: said on stderr too, since nothing
	 * but another user's socket at our path makes this fail. */
	r = pool_server_check(fd, path, reason, size);
	if (r < 0) {
		cr_log_warning("pool: %s", reason);
		return r;
	}
	/* The pool offers a sandbox while the client builds its policy (POOL_OFFER). */
	(void)cr_send_fds(fd, &(struct pool_req){ .type = POOL_HELLO, .proto = CR_POOL_PROTO },
			  sizeof(struct pool_req), NULL, 0, 0);
	return TAKE_FD(fd);
}

static int send_exec(int fd, const struct cr_pool_call *call, char *buf)
{
	const struct cr_policy *p = call->policy;
	char *const head[] = { (char *)CR_VERSION, p->cwd };
	struct pool_req *h = (struct pool_req *)buf;
	int stdio[3] = { 0, 1, 2 };
	size_t off = 0, n_env = 0, argc = 0;
	ssize_t size;

	while (p->env && p->env[n_env])
		n_env++;
	while (p->argv[argc])
		argc++;
	*h = (struct pool_req){ .type = POOL_EXEC, .proto = CR_POOL_PROTO,
				.timeout_ms = p->timeout_ms, .kill_after_ms = p->kill_after_ms,
				.n_strings = (uint32_t)(2 + argc + n_env), .argc = (uint32_t)argc };
	cr_pool_fingerprint(p, h->fp);
	size = pool_pack(buf, sizeof(*h), head, 2, &off);
	if (size >= 0)
		size = pool_pack(buf, sizeof(*h), p->argv, argc, &off);
	if (size >= 0)
		size = pool_pack(buf, sizeof(*h), p->env, n_env, &off);
	if (size < 0)
		return (int)size;
	if (p->redirect_stdio)
		memcpy(stdio, p->stdio, sizeof(stdio));
	return cr_send_fds(fd, buf, (size_t)size, stdio, 3, 0);
}

/* After a miss the pool asks how to build this policy: corral run's own arguments, directory and
 * environment. Best effort: the command runs cold whatever happens here. */
static void send_spec(int fd, const struct cr_pool_call *call, char *buf)
{
	struct pool_req *h = (struct pool_req *)buf;
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	size_t off = 0, n_env = 0;
	ssize_t size;

	if (!cwd)
		return;
	while (call->env && call->env[n_env])
		n_env++;
	*h = (struct pool_req){ .type = POOL_SPEC, .proto = CR_POOL_PROTO,
				.n_strings = (uint32_t)(1 + call->argc + n_env),
				.argc = (uint32_t)call->argc };
	cr_pool_fingerprint(call->policy, h->fp);
	size = pool_pack(buf, sizeof(*h), &cwd, 1, &off);
	if (size >= 0)
		size = pool_pack(buf, sizeof(*h), call->argv, (size_t)call->argc, &off);
	if (size >= 0)
		size = pool_pack(buf, sizeof(*h), call->env, n_env, &off);
	if (size >= 0)
		(void)cr_send_fds(fd, buf, (size_t)size, NULL, 0, 0);
}

static void fill_result(const struct pool_reply *rp, char *const *argv, struct cr_pool_result *ret)
{
	struct cr_outcome *o = &ret->outcome;

	*o = (struct cr_outcome){ .kind = (enum cr_outcome_kind)rp->kind, .status = rp->status,
				  .oom_killed = rp->oom_killed, .pids_limit_hit = rp->pids_limit_hit,
				  .timed_out = rp->timed_out };
	ret->timed_out = rp->timed_out;
	if (o->kind == CR_OUTCOME_EXEC_FAILED || o->kind == CR_OUTCOME_SETUP_FAILED) {
		(void)snprintf(o->error.stage, sizeof(o->error.stage), "exec");
		o->error.err = rp->err;
		(void)snprintf(o->error.message, sizeof(o->error.message),
			       "cannot execute '%s': %s%s", argv[0], strerror(rp->err),
			       rp->err == ENOENT ? " (not found in the sandbox)" : "");
	}
}

/* Read one reply: 1 when the run is over (result or miss), 0 to wait more, -errno. */
static int take_reply(int fd, const struct cr_pool_call *call, char *buf,
		      struct cr_pool_result *ret)
{
	struct pool_reply rp;
	ssize_t n = recv(fd, buf, CR_POOL_MAX_MSG - 1, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n < (ssize_t)sizeof(rp))
		return cr_msg(ret->reason, sizeof(ret->reason), -EPIPE,
			      "the pool ended during the run; the command ended with it");
	memcpy(&rp, buf, sizeof(rp));
	buf[n] = '\0';
	if (rp.type == POOL_MISS) {
		(void)snprintf(ret->reason, sizeof(ret->reason), "%s", buf + sizeof(rp));
		if (rp.want_spec)
			send_spec(fd, call, buf);
		return -EAGAIN;
	}
	/* The command runs: what the status and the ledger line need besides its outcome is made
	 * now, while it does, not after. */
	if (rp.type == POOL_STARTED && !ret->enforced) {
		ret->enforced = buf[sizeof(rp)] ? json_tokener_parse(buf + sizeof(rp)) : NULL;
		tzset();
		return 0;
	}
	if (rp.type != POOL_RESULT)
		return cr_msg(ret->reason, sizeof(ret->reason), -EPIPE,
			      "the pool sent an unexpected message (type %u, %zd bytes)", rp.type, n);
	fill_result(&rp, call->policy->argv, ret);
	return 1;
}

static void close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			(void)close(fds[i]);
}

/* The pool's answer to POOL_HELLO: 1 and @chan (the lent worker's two channels, then the
 * counter files or -EBADF) when it offers a sandbox of @call's policy, its report in @buf;
 * 0 when it offers none or one of another policy (whose channels are closed: the
 * pool discards it when the POOL_EXEC comes); -errno with ret->reason when it cannot serve. */
static int take_offer(int fd, const struct cr_pool_call *call, char *buf, int chan[4],
		      struct cr_pool_result *ret)
{
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = { .iov_base = buf, .iov_len = CR_POOL_MAX_MSG - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct pool_reply rp;
	uint8_t fp[32];
	size_t n_fds = 0;
	ssize_t n;

	do
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	for (struct cmsghdr *m = CMSG_FIRSTHDR(&mh); m; m = CMSG_NXTHDR(&mh, m))
		if (m->cmsg_level == SOL_SOCKET && m->cmsg_type == SCM_RIGHTS) {
			n_fds = (m->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			n_fds = n_fds > 4 ? 4 : n_fds;
			memcpy(chan, CMSG_DATA(m), n_fds * sizeof(int));
		}
	if (n < (ssize_t)sizeof(rp)) {
		close_fds(chan, n_fds);
		return cr_msg(ret->reason, sizeof(ret->reason), -EAGAIN,
			      "the pool did not answer: %s", n < 0 ? strerror(errno) : "closed");
	}
	memcpy(&rp, buf, sizeof(rp));
	buf[n] = '\0';
	if (rp.type == POOL_MISS) { /* e.g. another protocol */
		close_fds(chan, n_fds);
		return cr_msg(ret->reason, sizeof(ret->reason), -EAGAIN, "%s", buf + sizeof(rp));
	}
	cr_pool_fingerprint(call->policy, fp);
	if (rp.type != POOL_OFFER || n_fds != (rp.counters ? 4u : 2u) ||
	    memcmp(fp, rp.fp, sizeof(fp)) != 0) {
		close_fds(chan, n_fds);
		return 0;
	}
	if (!rp.counters)
		chan[2] = chan[3] = -EBADF;
	return 1; /* the report, in @buf, is parsed once the command runs */
}

static int relay(int fd, int sig_fd)
{
	struct signalfd_siginfo si;
	struct pool_req h = { .type = POOL_SIGNAL, .proto = CR_POOL_PROTO };

	while (read(sig_fd, &si, sizeof(si)) == sizeof(si)) {
		h.sig = (int32_t)si.ssi_signo;
		(void)cr_send_fds(fd, &h, sizeof(h), NULL, 0, 0);
	}
	return 0;
}

/* The run's end: 1 (it ran) -> 0, or the error; the report goes with a run that did not end. */
static int finish(int r, double start, struct cr_pool_result *ret)
{
	ret->duration_ms = cr_now_ms_f() - start;
	if (r <= 0) {
		json_object_put(ret->enforced);
		ret->enforced = NULL;
	}
	return r > 0 ? 0 : r;
}

/* A note from the pool during a direct run: 1 read (POOL_TIMEOUT sets ret->timed_out), 0 none
 * now, -EPIPE the pool is gone. */
static int take_note(int fd, char *buf, struct cr_pool_result *ret)
{
	struct pool_reply rp;
	ssize_t n = recv(fd, buf, CR_POOL_MAX_MSG, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n < (ssize_t)sizeof(rp))
		return -EPIPE;
	memcpy(&rp, buf, sizeof(rp));
	if (rp.type == POOL_TIMEOUT)
		ret->timed_out = true;
	return 1;
}

/* The command straight to the offered sandbox (@chan): the request to its runner, the end from
 * its worker, with no hop through the pool, which keeps the timeout (POOL_TAKEN) and relays
 * the signals. 1 when it ran, -errno with ret->reason. */
static int run_direct(int fd, int sig_fd, const struct cr_pool_call *call, char *buf,
		      const int chan[4], struct cr_pool_result *ret)
{
	const struct cr_warm_ops *ops = cr_driver_native()->warm;
	const struct cr_policy *p = call->policy;
	struct cr_exec_request req = { .argv = p->argv, .envp = p->env, .cwd = p->cwd,
				       .stdio = { 0, 1, 2 } };
	struct pool_req taken = { .type = POOL_TAKEN, .proto = CR_POOL_PROTO,
				  .timeout_ms = p->timeout_ms, .kill_after_ms = p->kill_after_ms };
	struct pool_reply rp = {};
	struct cr_exec_result res;
	uint64_t oom, pids;
	int r, gone = 0;

	if (p->redirect_stdio)
		memcpy(req.stdio, p->stdio, sizeof(req.stdio));
	r = ops->send_request(chan, &req);
	if (r < 0)
		return cr_msg(ret->reason, sizeof(ret->reason), -EAGAIN,
			      "the pre-built sandbox did not take the command: %s", strerror(-r));
	(void)cr_send_fds(fd, &taken, sizeof(taken), NULL, 0, 0);
	/* While the command runs: its report, the time zone for the status. */
	ret->enforced = buf[sizeof(rp)] ? json_tokener_parse(buf + sizeof(rp)) : NULL;
	tzset();
	for (r = -EAGAIN; r == -EAGAIN;) {
		struct pollfd pf[3] = { { .fd = chan[1], .events = POLLIN },
					{ .fd = gone ? -1 : fd, .events = POLLIN },
					{ .fd = sig_fd, .events = POLLIN } };

		if (poll(pf, 3, -1) < 0 && errno != EINTR)
			return cr_msg(ret->reason, sizeof(ret->reason), -EPIPE, "poll: %s",
				      strerror(errno));
		if (pf[2].revents)
			(void)relay(fd, sig_fd);
		while (pf[1].revents && !gone && (gone = take_note(fd, buf, ret)) > 0)
			gone = 0;
		if (pf[0].revents)
			r = ops->read_result(chan, &res);
	}
	/* A timeout note is sent before the signal that ends the command: it is here by now. */
	while (!gone && (gone = take_note(fd, buf, ret)) > 0)
		gone = 0;
	if (r == -EPIPE && gone) /* the pool died: its sandboxes with it */
		return cr_msg(ret->reason, sizeof(ret->reason), -EPIPE,
			      "the pool ended during the run; the command ended with it");
	if (r == -EPIPE) /* the worker was killed: the whole sandbox was */
		res = (struct cr_exec_result){ .kind = CR_OUTCOME_SIGNALED, .status = SIGKILL };
	else /* the worker emptied the sandbox before it said so: no hurry to destroy it */
		(void)cr_send_fds(fd, &(struct pool_req){ .type = POOL_DONE, .proto = CR_POOL_PROTO },
				  sizeof(struct pool_req), NULL, 0, MSG_DONTWAIT);
	ops->counters_at(chan + 2, &oom, &pids);
	rp = (struct pool_reply){ .kind = (int32_t)res.kind, .status = res.status, .err = res.err,
				  .oom_killed = oom > 0, .pids_limit_hit = pids > 0,
				  .timed_out = ret->timed_out };
	fill_result(&rp, p->argv, ret);
	return 1;
}

int cr_pool_run(const struct cr_pool_call *call, struct cr_pool_result *ret)
{
	const char *unfit = cr_pool_unfit(call->policy);
	_cleanup_close_ int fd = call->fd, sig_fd = -EBADF;
	_cleanup_free_ char *buf = NULL;
	double start = cr_now_ms_f();
	int chan[4] = { -EBADF, -EBADF, -EBADF, -EBADF };
	sigset_t old;
	int r;

	if (!unfit && isatty(STDIN_FILENO))
		unfit = "a terminal: the pool does not follow job control";
	if (unfit)
		return cr_msg(ret->reason, sizeof(ret->reason), -EAGAIN, "%s", unfit);
	if (fd < 0)
		fd = cr_pool_connect(call->env, ret->reason, sizeof(ret->reason));
	if (fd < 0)
		return fd;
	buf = malloc(CR_POOL_MAX_MSG);
	if (!buf)
		return cr_msg(ret->reason, sizeof(ret->reason), -EAGAIN, "out of memory");
	sig_fd = block_interrupts(&old);
	r = take_offer(fd, call, buf, chan, ret);
	if (r != 0) {
		if (r > 0)
			r = run_direct(fd, sig_fd, call, buf, chan, ret);
		close_fds(chan, ELEMENTSOF(chan));
		(void)sigprocmask(SIG_SETMASK, &old, NULL);
		return finish(r, start, ret);
	}
	r = send_exec(fd, call, buf);
	if (r < 0) {
		(void)sigprocmask(SIG_SETMASK, &old, NULL);
		return cr_msg(ret->reason, sizeof(ret->reason), -EAGAIN,
			      "cannot send the request to the pool: %s", strerror(-r));
	}
	for (r = 0; r == 0;) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = sig_fd, .events = POLLIN } };

		if (poll(p, sig_fd >= 0 ? 2 : 1, -1) < 0 && errno != EINTR) {
			r = cr_msg(ret->reason, sizeof(ret->reason), -EPIPE, "poll: %s",
				   strerror(errno));
			break;
		}
		if (p[1].revents)
			(void)relay(fd, sig_fd);
		if (p[0].revents)
			r = take_reply(fd, call, buf, ret);
	}
	/* A signal that came meanwhile stays pending for corral itself once unblocked: a cold run
	 * after a miss gets it, as it would have. */
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	return finish(r, start, ret);
}

int cr_pool_status(struct json_object *st, const char *via, const char *note)
{
	int r = cr_json_add(st, "via", json_object_new_string(via));

	if (r >= 0 && note && note[0])
		r = cr_json_add(st, "pool_fallback", json_object_new_string(note));
	return r;
}
