/* SPDX-License-Identifier: MIT */
/* Warm sandboxes for `corral serve`: the server side, struct cr_warm_ops (launcher/driver.h).
 * zygote.c is the sandbox's side, and describes its processes; zygote-internal.h, the messages.
 *
 * The server must keep the policy alive as long as the sandbox (as for a run), and must not reap
 * with waitpid(-1): free() reaps pid 1. pid 1 dies with the thread that called start()
 * (PR_SET_PDEATHSIG), so that thread must live as long as the sandbox.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/base/json-util.h"
#include "cgroup/cgroup.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/fd-util.h"
#include "linux-internal.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "ns.h"
#include "ns/net/proxy.h"
#include "zygote-internal.h"
#include "zygote.h"

/* How long start() waits for the sandbox's setup. */
#define CR_WARM_START_MS 30000

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
	unsigned idle_failures; /* workers in a row that could not be made, found before an exec */
};

/* Workers in a row that may fail their setup before an exec fails with their error rather than
 * waiting for the next one: a pids or memory limit that a command just filled frees up as its
 * processes end (the next worker is made then), while a limit too small for any worker fails
 * every one of them. */
#define CR_WARM_MAX_IDLE_FAILURES 3

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

/* A worker that could not be made (its status channel says which step failed, and why): logged,
 * for the server's stderr, and its error returned as -errno. */
static int setup_failed(const struct worker_status *ws)
{
	int err = ws->setup_err > 0 ? ws->setup_err : EPROTO;

	cr_log_error("warm sandbox: a worker could not %s: %s", zygote_worker_step(ws->setup_step),
		     strerror(err));
	return -err;
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
		if (n == sizeof(m) && m.type == ZY_FAILED)
			cr_log_warning("warm sandbox: a worker could not be made: %s; pid 1 tries "
				       "again as processes end",
				       strerror((int)m.count));
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

/* The request as one message: struct exec_hdr, cwd, argv, envp and @extra_env's variables that
 * envp does not set (NUL-terminated strings), in *@buf (of *@buf_size, grown to
 * CR_WARM_MAX_REQUEST when short). Its size, or -E2BIG past CR_WARM_MAX_REQUEST. */
static ssize_t pack_into(char **buf, size_t *buf_size, char *const *extra_env,
			 const struct cr_exec_request *req)
{
	struct exec_hdr h = {};
	size_t len = strlen(req->cwd) + 1, off;

	for (char *const *s = req->argv; *s; s++, h.argc++)
		len += strlen(*s) + 1;
	for (char *const *s = req->envp; s && *s; s++, h.envc++)
		len += strlen(*s) + 1;
	for (char *const *s = extra_env; s && *s; s++)
		if (!env_sets(req->envp, *s)) {
			len += strlen(*s) + 1;
			h.envc++;
		}
	if (h.argc == 0)
		return -EINVAL;
	if (sizeof(h) + len > CR_WARM_MAX_REQUEST)
		return -E2BIG;
	if (*buf_size < sizeof(h) + len) {
		char *b = realloc(*buf, CR_WARM_MAX_REQUEST);

		if (!b)
			return -ENOMEM;
		*buf = b;
		*buf_size = CR_WARM_MAX_REQUEST;
	}
	h.len = (uint32_t)len;
	memcpy(*buf, &h, sizeof(h));
	off = put_string(*buf, sizeof(h), req->cwd);
	for (char *const *s = req->argv; *s; s++)
		off = put_string(*buf, off, *s);
	for (char *const *s = req->envp; s && *s; s++)
		off = put_string(*buf, off, *s);
	for (char *const *s = extra_env; s && *s; s++)
		if (!env_sets(req->envp, *s))
			off = put_string(*buf, off, *s);
	return (ssize_t)off;
}

static ssize_t pack_request(struct cr_warm *w, const struct cr_exec_request *req)
{
	return pack_into(&w->buf, &w->buf_size, w->extra_env, req);
}

static void fill_result(struct cr_exec *e, const struct worker_status *ws)
{
	struct exec_err ee;
	int st = ws->wait_status;

	e->result = (struct cr_exec_result){};
	/* The worker took the request, then could not set itself up: the command never ran. The
	 * runner writes on the exec channel only when it could not execute the command. */
	if (ws->setup_step) {
		e->result.kind = CR_OUTCOME_EXEC_FAILED;
		e->result.err = -setup_failed(ws);
		e->result.status = CR_EXIT_NOEXEC;
	} else if (recv(e->exec_fd, &ee, sizeof(ee), MSG_DONTWAIT) == sizeof(ee)) {
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
		r = cr_send_fds(wk.exec_fd, w->buf, (size_t)size, req->stdio, 3,
					 MSG_DONTWAIT);
		if (r >= 0) {
			*e = (struct cr_exec){ .exec_fd = wk.exec_fd, .status_fd = wk.status_fd };
			w->idle_failures = 0;
			break;
		}
		if (r == -EBADF) { /* the request's descriptors: the worker is still good */
			w->ready[w->n_ready++] = wk;
			w->want_unsent--;
			break;
		}
		if (r == -EPIPE || r == -ECONNRESET) {
			struct worker_status ws;

			/* A worker that could not be made: the command never ran. It waits for the
			 * next worker (-EAGAIN) unless CR_WARM_MAX_IDLE_FAILURES in a row failed
			 * alike; then it fails with their error rather than wait for ever. */
			if (recv(wk.status_fd, &ws, sizeof(ws), MSG_DONTWAIT) == sizeof(ws) &&
			    ws.setup_step) {
				if (++w->idle_failures >= CR_WARM_MAX_IDLE_FAILURES) {
					*e = (struct cr_exec){ .exec_fd = wk.exec_fd,
							       .status_fd = wk.status_fd };
					fill_result(e, &ws);
					r = 0;
					break;
				}
				(void)setup_failed(&ws); /* logged; the next worker is waited for */
			}
			r = -EAGAIN; /* one that died idle: try the next */
		}
		worker_close(&wk);
		if (r != -EAGAIN)
			break;
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

/* --- a worker lent to another process ------------------------------------------------------- */

static int warm_lend(struct cr_warm *w, struct cr_exec **ret, int ret_fds[2])
{
	struct cr_exec *e;
	char c;

	while (w->n_ready > 0) {
		struct worker wk = w->ready[--w->n_ready];

		/* One that died idle, or could not set itself up, has closed or written its status
		 * channel: the next one. */
		if (recv(wk.status_fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) != -1 || errno != EAGAIN) {
			worker_close(&wk);
			continue;
		}
		e = malloc(sizeof(*e));
		ret_fds[0] = fcntl(wk.exec_fd, F_DUPFD_CLOEXEC, 3);
		ret_fds[1] = fcntl(wk.status_fd, F_DUPFD_CLOEXEC, 3);
		if (!e || ret_fds[0] < 0 || ret_fds[1] < 0) {
			free(e);
			closep(&ret_fds[0]);
			closep(&ret_fds[1]);
			w->ready[w->n_ready++] = wk;
			return -ENOMEM;
		}
		*e = (struct cr_exec){ .exec_fd = wk.exec_fd, .status_fd = wk.status_fd };
		*ret = e;
		return 0;
	}
	return -EAGAIN;
}

static int warm_send_request(const int fds[2], const struct cr_exec_request *req)
{
	_cleanup_free_ char *buf = NULL;
	size_t buf_size = 0;
	ssize_t size;

	if (!req->cwd || req->cwd[0] != '/')
		return -EINVAL;
	size = pack_into(&buf, &buf_size, NULL, req);
	if (size < 0)
		return (int)size;
	return cr_send_fds(fds[0], buf, (size_t)size, req->stdio, 3, MSG_DONTWAIT);
}

static int warm_read_result(const int fds[2], struct cr_exec_result *ret)
{
	struct cr_exec e = { .exec_fd = fds[0], .status_fd = fds[1] };
	struct worker_status ws;
	ssize_t n = recv(fds[1], &ws, sizeof(ws), MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return -EAGAIN;
	if (n != sizeof(ws))
		return -EPIPE;
	fill_result(&e, &ws);
	*ret = e.result;
	return 0;
}

static void warm_counter_fds(const struct cr_warm *w, int ret[2])
{
	cr_cgroup_counter_fds(cr_ns_run_cgroup(w->run), ret);
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
	.lend = warm_lend,
	.send_request = warm_send_request,
	.read_result = warm_read_result,
	.counter_fds = warm_counter_fds,
	.counters_at = cr_cgroup_counters_at,
};
