/* SPDX-License-Identifier: MIT */
/* The pool's socket: one loop, one thread, every client connection and running command driven by
 * descriptors (the builder thread of pool-keys.c makes and destroys the sandboxes). A client
 * must pass cr_peer_check() (our uid, outside every corral sandbox) before a byte is read. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "launcher/base/fd-util.h"
#include "launcher/base/json-text.h"
#include "launcher/base/json-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/peer.h"
#include "launcher/base/time-util.h"
#include "pool-internal.h"
#include "pool-server.h"

#define POOL_MAX_CONNS 256

struct conn {
	int fd;
	struct pool_key *key;
	struct pool_sandbox *sb;
	struct cr_exec *e;
	int64_t deadline_ms; /* 0: none */
	uint64_t kill_after_ms;
	int stops;	     /* 1: SIGTERM sent at the timeout, 2: SIGKILL too */
	bool timed_out;
	bool lent;	     /* @e's worker was offered to the client: its end goes there */
	bool running;	     /* counted in ps.running */
	bool done;	     /* POOL_DONE: the client read the command's end */
	bool stale;	     /* on_hello() found the stock of the policy stale_fp names stale
			      * (pool_key_take()): the reason its request's miss gives */
	uint8_t stale_fp[32];
	struct conn *next;
};

struct server {
	struct pool_state ps;
	int listen_fd;
	struct conn *conns;
	unsigned n_conns;
	char *buf;
	bool stopping;
	int64_t last_refusal_ms;
};

/* The connection is over; reap_conns() frees it. */
static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		(void)close(c->fd);
	c->fd = -EBADF;
}

static int reply_fds(int fd, const struct pool_reply *rp, const char *text, char *buf,
		     const int *fds, size_t n_fds)
{
	struct pool_reply h = *rp;
	size_t len = text ? strlen(text) : 0;

	if (sizeof(h) + len > CR_POOL_MAX_MSG)
		len = CR_POOL_MAX_MSG - sizeof(h);
	h.len = (uint32_t)len;
	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), text, len);
	return cr_send_fds(fd, buf, sizeof(h) + len, fds, n_fds, 0);
}

static int reply(int fd, const struct pool_reply *rp, const char *text, char *buf)
{
	return reply_fds(fd, rp, text, buf, NULL, 0);
}

static void miss(struct server *sv, struct conn *c, const char *why, bool want_spec)
{
	struct pool_reply rp = { .type = POOL_MISS, .want_spec = want_spec };

	sv->ps.missed++;
	(void)reply(c->fd, &rp, why, sv->buf);
}

static const char *unfit_reason(struct pool_state *ps, const uint8_t fp[32])
{
	for (unsigned i = 0; i < ps->n_unfit && i < ELEMENTSOF(ps->unfit); i++)
		if (memcmp(ps->unfit[i].fp, fp, 32) == 0)
			return ps->unfit[i].why;
	return NULL;
}

static void remember_unfit(struct pool_state *ps, const uint8_t fp[32], const char *why)
{
	unsigned i = ps->n_unfit++ % ELEMENTSOF(ps->unfit);

	memcpy(ps->unfit[i].fp, fp, 32);
	(void)snprintf(ps->unfit[i].why, sizeof(ps->unfit[i].why), "%s", why);
}

/* POOL_EXEC: a ready sandbox of this policy runs the command, or the client is told to run it
 * cold (and why). */
static void on_exec(struct server *sv, struct conn *c, size_t n, int *fds, size_t n_fds)
{
	const struct cr_warm_ops *ops = cr_driver_native()->warm;
	struct pool_req h;
	struct cr_exec_request req = {};
	char why[512], **s = NULL;
	const char *unfit;
	int r;

	memcpy(&h, sv->buf, sizeof(h));
	if (n_fds != 3 || h.n_strings < 3 || h.argc < 1 || h.argc > h.n_strings - 2)
		return miss(sv, c, "malformed request", false);
	s = calloc((size_t)h.n_strings + 2, sizeof(char *));
	if (!s || pool_unpack(sv->buf, n, sizeof(h), h.n_strings, s) < 0) {
		free(s);
		return miss(sv, c, "malformed request", false);
	}
	if (strcmp(s[0], CR_VERSION) != 0) {
		(void)snprintf(why, sizeof(why), "the pool runs corral %s, not %s: restart it",
			       CR_VERSION, s[0]);
		free(s);
		return miss(sv, c, why, false);
	}
	c->key = pool_key_find(&sv->ps, h.fp);
	unfit = c->key ? NULL : unfit_reason(&sv->ps, h.fp);
	if (!c->key) {
		free(s);
		return miss(sv, c, unfit ?: "the pool has no sandbox of this policy yet: it builds "
					     "some for the next runs", !unfit);
	}
	c->sb = pool_key_take(&sv->ps, c->key, why, sizeof(why));
	if (!c->sb) {
		pool_refill(&sv->ps, c->key);
		free(s);
		/* the offer's look at this key already found its stock stale: that is why */
		if (c->stale && memcmp(c->stale_fp, h.fp, sizeof(c->stale_fp)) == 0)
			(void)snprintf(why, sizeof(why),
				       "a path of the policy changed since the sandboxes were built");
		return miss(sv, c, why, false);
	}
	/* argv, its NULL, then envp: shift the environment one up */
	memmove(s + h.argc + 3, s + h.argc + 2, (h.n_strings - h.argc - 2) * sizeof(char *));
	s[h.argc + 2] = NULL;
	req = (struct cr_exec_request){ .argv = s + 2, .envp = s + h.argc + 3, .cwd = s[1],
					.stdio = { fds[0], fds[1], fds[2] } };
	r = ops->exec(c->sb->w, &req, &c->e);
	free(s);
	if (r < 0) {
		pool_discard(&sv->ps, TAKE_PTR(c->sb));
		(void)snprintf(why, sizeof(why), "the pre-built sandbox did not take the command: %s",
			       strerror(-r));
		return miss(sv, c, why, false);
	}
	c->key->served++;
	sv->ps.served++;
	sv->ps.running++;
	c->running = true;
	c->kill_after_ms = h.kill_after_ms;
	if (h.timeout_ms)
		c->deadline_ms = cr_now_ms() + (int64_t)h.timeout_ms;
	/* The sandbox's report while the command runs: the client makes its status from it then,
	 * and only the outcome is left for after. */
	(void)reply(c->fd, &(struct pool_reply){ .type = POOL_STARTED }, c->key->enforced, sv->buf);
}

static void on_spec(struct server *sv, size_t n)
{
	struct pool_req h;
	char why[512] = "";
	char *copy = malloc(n);
	int r;

	if (!copy)
		return;
	memcpy(copy, sv->buf, n);
	memcpy(&h, copy, sizeof(h));
	if (unfit_reason(&sv->ps, h.fp)) {
		free(copy);
		return;
	}
	r = pool_key_add(&sv->ps, copy, n, why, sizeof(why));
	if (r < 0) {
		cr_debug("pool: not kept: %s", why);
		remember_unfit(&sv->ps, h.fp, why);
	}
}

/* The policies @ps keeps sandboxes for, as a JSON array; NULL on allocation failure. */
static struct json_object *status_policies(const struct pool_state *ps)
{
	struct json_object *a = json_object_new_array();
	int r = a ? 0 : -ENOMEM;

	for (size_t i = 0; i < POOL_MAX_KEYS && r == 0; i++) {
		const struct pool_key *k = &ps->keys[i];
		struct json_object *o;

		if (!k->used)
			continue;
		o = json_object_new_object();
		r = cr_json_add(o, "workspace", json_object_new_string(k->policy.workspace ?: ""));
		r = r ?: cr_json_add(o, "ready", json_object_new_int64(k->n_ready));
		r = r ?: cr_json_add(o, "building", json_object_new_int64(k->n_building));
		r = r ?: cr_json_add(o, "served", json_object_new_int64((int64_t)k->served));
		o = cr_json_whole(o, r);
		r = r ?: cr_json_append(a, o);
	}
	return cr_json_whole(a, r);
}

/* The pool's state, made with json-c as every JSON document corral writes: a path holding `"`,
 * `\` or a control character is escaped, and the text is never cut (at most four policies of
 * one path each fit well under CR_POOL_MAX_MSG). With no memory, a POOL_MISS: the client
 * reports the failure rather than print a cut document. */
static void on_status(struct server *sv, struct conn *c)
{
	struct pool_state *ps = &sv->ps;
	struct pool_reply rp = { .type = POOL_STATS };
	_cleanup_free_ char *text = NULL;
	struct json_object *o = json_object_new_object();
	int r;

	r = cr_json_add(o, "pid", json_object_new_int64(getpid()));
	r = r ?: cr_json_add(o, "socket", json_object_new_string(ps->socket_path));
	r = r ?: cr_json_add(o, "size", json_object_new_int64(ps->size));
	r = r ?: cr_json_add(o, "served", json_object_new_int64((int64_t)ps->served));
	r = r ?: cr_json_add(o, "missed", json_object_new_int64((int64_t)ps->missed));
	r = r ?: cr_json_add(o, "built", json_object_new_int64((int64_t)ps->built));
	r = r ?: cr_json_add(o, "build_failed", json_object_new_int64((int64_t)ps->build_failed));
	r = r ?: cr_json_add(o, "running", json_object_new_int64(ps->running));
	r = r ?: cr_json_add(o, "spent", json_object_new_int64(ps->n_spent));
	r = r ?: cr_json_add(o, "policies", status_policies(ps));
	o = cr_json_whole(o, r);
	if (o)
		text = cr_json_text(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(o);
	if (!text)
		rp.type = POOL_MISS;
	(void)reply(c->fd, &rp, text, sv->buf);
}

/* @c's command no longer counts as running (count_running() updates the count). */
static void stop_running(struct server *sv, struct conn *c)
{
	(void)sv;
	c->running = false;
}

/* The commands running now, counted from the connections (a count kept by increments alone
 * would stay wrong for good after one missed decrement, and the pool would never refill its
 * stock), and the sandboxes offered but not yet taken: in a burst, a client holding an offer
 * is about to run its command, and the pool is not idle while it does. When neither is left,
 * the pool is idle: the used sandboxes are destroyed, then the stock of every policy is built
 * up again. */
static void count_running(struct server *sv)
{
	unsigned n = 0, lent = 0;
	bool was_busy = sv->ps.running + sv->ps.lent > 0;

	for (struct conn *c = sv->conns; c; c = c->next) {
		n += c->running;
		lent += c->lent && c->sb && !c->running;
	}
	sv->ps.running = n;
	sv->ps.lent = lent;
	if (n + lent > 0 || !was_busy)
		return;
	pool_flush_spent(&sv->ps);
	for (size_t i = 0; i < POOL_MAX_KEYS; i++)
		pool_refill(&sv->ps, &sv->ps.keys[i]);
}

/* The command of @c is over (or abandoned): release it. */
static void exec_done(struct server *sv, struct conn *c)
{
	if (!c->e)
		return;
	c->e = cr_driver_native()->warm->exec_free(c->e);
	stop_running(sv, c);
}

/* The command's end: its outcome to the client, the sandbox to the builder to destroy. */
static void on_result(struct server *sv, struct conn *c)
{
	const struct cr_warm_ops *ops = cr_driver_native()->warm;
	struct cr_exec_result res;
	struct pool_reply rp = { .type = POOL_RESULT };
	uint64_t oom = 0, pids = 0;

	if (ops->exec_handle(c->e, &res) < 0)
		return;
	ops->events(c->sb->w, &oom, &pids);
	rp.kind = (int32_t)res.kind;
	rp.status = res.status;
	rp.err = res.err;
	rp.oom_killed = oom > 0; /* a fresh sandbox: every event is this command's */
	rp.pids_limit_hit = pids > 0;
	rp.timed_out = c->timed_out;
	(void)reply(c->fd, &rp, NULL, sv->buf);
	/* Then the sandbox ends, before its pid 1 makes a worker nobody will use (its worker waits
	 * until exec_free() lets go of the channel); the builder reaps it and removes its cgroup. */
	(void)kill(ops->pid(c->sb->w), SIGKILL);
	exec_done(sv, c);
	pool_discard(&sv->ps, TAKE_PTR(c->sb));
	/* Its replacement, once the command is over: not on its CPU. */
	pool_refill(&sv->ps, c->key);
	conn_close(c);
}

/* POOL_HELLO: offer the client a ready sandbox of the policy used last, its worker's channels
 * lent, so that the command goes from the client straight to the runner and its end from the
 * worker straight to the client. */
static void on_hello(struct server *sv, struct conn *c)
{
	const struct cr_warm_ops *ops = cr_driver_native()->warm;
	struct pool_reply rp = { .type = POOL_NO_OFFER };
	struct pool_key *k = pool_key_recent(&sv->ps);
	int fds[4] = { -EBADF, -EBADF, -EBADF, -EBADF };
	size_t n = 2;
	char why[256];
	int r;

	c->sb = k ? pool_key_take(&sv->ps, k, why, sizeof(why)) : NULL;
	if (k && !c->sb && strstr(why, "changed since")) {
		c->stale = true;
		memcpy(c->stale_fp, k->fp, sizeof(c->stale_fp));
	}
	if (c->sb && ops->lend(c->sb->w, &c->e, fds) < 0)
		pool_discard(&sv->ps, TAKE_PTR(c->sb));
	if (!c->sb) {
		if (k)
			pool_refill(&sv->ps, k);
		(void)reply(c->fd, &rp, NULL, sv->buf);
		return;
	}
	c->key = k;
	c->lent = true;
	ops->counter_fds(c->sb->w, fds + 2);
	if (fds[2] >= 0 && fds[3] >= 0) {
		rp.counters = 1;
		n = 4;
	}
	rp.type = POOL_OFFER;
	memcpy(rp.fp, k->fp, sizeof(rp.fp));
	r = reply_fds(c->fd, &rp, k->enforced, sv->buf, fds, n);
	for (size_t i = 0; i < ELEMENTSOF(fds); i++)
		if (fds[i] >= 0)
			(void)close(fds[i]);
	if (r < 0) { /* the client waits for an answer: none offered, the sandbox discarded */
		c->e = ops->exec_free(c->e);
		pool_discard(&sv->ps, TAKE_PTR(c->sb));
		c->lent = false;
		(void)reply(c->fd, &(struct pool_reply){ .type = POOL_NO_OFFER }, NULL, sv->buf);
	}
}

/* POOL_TAKEN: the client sent its command to the offered sandbox; the pool keeps its timeout. */
static void on_taken(struct server *sv, struct conn *c, const struct pool_req *h)
{
	if (!c->lent || c->running || !c->e)
		return;
	c->running = true;
	sv->ps.running++;
	c->key->served++;
	sv->ps.served++;
	c->kill_after_ms = h->kill_after_ms;
	if (h->timeout_ms)
		c->deadline_ms = cr_now_ms() + (int64_t)h->timeout_ms;
}

/* POOL_EXEC after an offer the client did not take (another policy): the offered sandbox's
 * channels have left the pool, so it is discarded; then the request as any other. */
static void on_exec_after_offer(struct server *sv, struct conn *c, size_t n, int *fds,
				size_t n_fds)
{
	(void)kill(cr_driver_native()->warm->pid(c->sb->w), SIGKILL);
	c->e = cr_driver_native()->warm->exec_free(c->e);
	pool_discard(&sv->ps, TAKE_PTR(c->sb));
	pool_refill(&sv->ps, c->key);
	c->lent = false;
	c->key = NULL;
	on_exec(sv, c, n, fds, n_fds);
}

static void on_signal(struct conn *c, const struct pool_req *h)
{
	if (c->e && h->sig > 0 && h->sig < _NSIG)
		(void)cr_driver_native()->warm->exec_kill(c->e, h->sig);
}

static void conn_drop(struct server *sv, struct conn *c)
{
	/* A lent sandbox whose command the client saw end waits for an idle moment, its worker
	 * held (its pid namespace is empty already); any other goes at once. */
	if (c->lent && c->sb && c->done && c->running) {
		c->sb->e = TAKE_PTR(c->e);
		pool_park(&sv->ps, TAKE_PTR(c->sb));
		stop_running(sv, c);
		pool_refill(&sv->ps, c->key);
		conn_close(c);
		return;
	}
	/* The worker takes the end of its channels as SIGKILL; a lent one's pid 1 goes at once,
	 * whatever the client did with its copies. */
	if (c->lent && c->sb)
		(void)kill(cr_driver_native()->warm->pid(c->sb->w), SIGKILL);
	exec_done(sv, c);
	if (c->sb) {
		pool_discard(&sv->ps, TAKE_PTR(c->sb));
		pool_refill(&sv->ps, c->key);
	}
	conn_close(c);
}

/* One message from a client. */
static void on_conn(struct server *sv, struct conn *c)
{
	char cbuf[CMSG_SPACE(3 * sizeof(int))];
	struct iovec iov = { .iov_base = sv->buf, .iov_len = CR_POOL_MAX_MSG };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	int fds[3] = { -EBADF, -EBADF, -EBADF };
	size_t n_fds = 0;
	struct pool_req h;
	ssize_t n;

	n = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	for (struct cmsghdr *m = CMSG_FIRSTHDR(&mh); m; m = CMSG_NXTHDR(&mh, m))
		if (m->cmsg_level == SOL_SOCKET && m->cmsg_type == SCM_RIGHTS) {
			n_fds = (m->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			n_fds = n_fds > 3 ? 3 : n_fds;
			memcpy(fds, CMSG_DATA(m), n_fds * sizeof(int));
		}
	if (n < (ssize_t)sizeof(h) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		conn_drop(sv, c);
		goto out;
	}
	memcpy(&h, sv->buf, sizeof(h));
	if (h.proto != CR_POOL_PROTO)
		miss(sv, c, "the pool speaks another protocol: restart it", false);
	else if (h.type == POOL_SIGNAL)
		on_signal(c, &h);
	else if (h.type == POOL_TAKEN)
		on_taken(sv, c, &h);
	else if (h.type == POOL_DONE)
		c->done = c->lent && c->running;
	else if (h.type == POOL_EXEC && c->lent && !c->running)
		on_exec_after_offer(sv, c, (size_t)n, fds, n_fds);
	else if (c->e || c->sb)
		; /* one command per connection */
	else if (h.type == POOL_HELLO)
		on_hello(sv, c);
	else if (h.type == POOL_EXEC)
		on_exec(sv, c, (size_t)n, fds, n_fds);
	else if (h.type == POOL_SPEC)
		on_spec(sv, (size_t)n);
	else if (h.type == POOL_STATUS)
		on_status(sv, c);
	else if (h.type == POOL_STOP) {
		sv->stopping = true;
		conn_close(c);
	}
out:
	for (size_t i = 0; i < n_fds; i++)
		(void)close(fds[i]);
}

/* At most one line a second: a sandboxed command that connects in a loop must not fill a
 * stderr nobody reads. */
static void on_accept(struct server *sv)
{
	char why[512];
	struct conn *c;
	int fd, r;

	while ((fd = accept4(sv->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
		r = cr_peer_check(fd, why, sizeof(why));
		if (r < 0 || sv->n_conns >= POOL_MAX_CONNS || !(c = calloc(1, sizeof(*c)))) {
			if (r < 0 && cr_now_ms() - sv->last_refusal_ms >= 1000) {
				cr_log_warning("pool: refused a client: %s", why);
				sv->last_refusal_ms = cr_now_ms();
			}
			(void)close(fd);
			continue;
		}
		c->fd = fd;
		c->next = sv->conns;
		sv->conns = c;
		sv->n_conns++;
	}
}

/* The timeout, as a cold run's pid 1 keeps it: SIGTERM, then SIGKILL --kill-after later. */
static void on_deadline(struct server *sv, struct conn *c)
{
	const struct cr_warm_ops *ops = cr_driver_native()->warm;

	/* A lent worker reports its end to the client: the client learns of the timeout first. */
	if (c->lent && !c->timed_out)
		(void)reply(c->fd, &(struct pool_reply){ .type = POOL_TIMEOUT }, NULL, sv->buf);
	c->timed_out = true;
	(void)ops->exec_kill(c->e, c->stops == 0 ? SIGTERM : SIGKILL);
	c->stops++;
	c->deadline_ms = c->stops == 1 ? cr_now_ms() + (int64_t)c->kill_after_ms : 0;
}

static void reap_conns(struct server *sv)
{
	for (struct conn **p = &sv->conns; *p;) {
		struct conn *c = *p;

		if (c->fd >= 0) {
			p = &c->next;
			continue;
		}
		conn_drop(sv, c);
		*p = c->next;
		sv->n_conns--;
		free(c);
	}
}

static int next_timeout(struct server *sv)
{
	int64_t now = cr_now_ms(), t = -1;

	for (struct conn *c = sv->conns; c; c = c->next)
		if (c->e && c->deadline_ms && (t < 0 || c->deadline_ms - now < t))
			t = c->deadline_ms - now < 0 ? 0 : c->deadline_ms - now;
	return (int)(t > 60000 ? 60000 : t);
}

static int loop_once(struct server *sv, struct pollfd *p, struct conn **who)
{
	const struct cr_warm_ops *ops = cr_driver_native()->warm;
	size_t n = 0;
	int64_t now;

	p[n++] = (struct pollfd){ .fd = sv->listen_fd, .events = POLLIN };
	p[n++] = (struct pollfd){ .fd = sv->ps.done[0], .events = POLLIN };
	for (struct conn *c = sv->conns; c; c = c->next) {
		who[n] = c;
		p[n++] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
		if (c->e && !c->lent) {
			who[n] = c;
			p[n++] = (struct pollfd){ .fd = ops->exec_fd(c->e), .events = POLLIN };
		}
	}
	if (poll(p, n, next_timeout(sv)) < 0 && errno != EINTR)
		return -errno;
	if (p[1].revents)
		pool_builder_done(&sv->ps);
	for (size_t i = 2; i < n; i++) {
		struct conn *c = who[i];

		if (!p[i].revents || c->fd < 0)
			continue;
		if (p[i].fd == c->fd)
			on_conn(sv, c);
		else if (c->e && !c->lent)
			on_result(sv, c);
	}
	now = cr_now_ms();
	for (struct conn *c = sv->conns; c; c = c->next)
		if (c->e && c->fd >= 0 && c->deadline_ms && c->deadline_ms <= now)
			on_deadline(sv, c);
	reap_conns(sv);
	count_running(sv);
	if (p[0].revents)
		on_accept(sv);
	return 0;
}

int pool_serve(int listen_fd, const char *socket_path, unsigned size)
{
	struct server sv = { .listen_fd = listen_fd };
	_cleanup_free_ struct pollfd *p = calloc(2 + 2 * POOL_MAX_CONNS, sizeof(*p));
	_cleanup_free_ struct conn **who = calloc(2 + 2 * POOL_MAX_CONNS, sizeof(*who));
	int r;

	sv.ps.size = size;
	sv.ps.socket_path = (char *)socket_path;
	sv.buf = malloc(CR_POOL_MAX_MSG);
	if (!p || !who || !sv.buf)
		return -ENOMEM;
	/* before the builder reads what it gives (pool_mounts_gen()) */
	sv.ps.mounts_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	(void)signal(SIGPIPE, SIG_IGN);
	r = pool_builder_start(&sv.ps);
	while (r >= 0 && !sv.stopping)
		r = loop_once(&sv, p, who);
	for (struct conn *c = sv.conns; c; c = c->next)
		conn_close(c);
	reap_conns(&sv);
	pool_builder_stop(&sv.ps);
	for (size_t i = 0; i < POOL_MAX_KEYS; i++)
		sv.ps.keys[i].ready = NULL; /* freed by the builder */
	free(sv.buf);
	if (sv.ps.mounts_fd >= 0)
		(void)close(sv.ps.mounts_fd);
	return r;
}
