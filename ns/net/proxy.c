/* SPDX-License-Identifier: MIT */
/* --net=allow_hosts: the forwarder in the sandbox, and the proxy in corral that serves what it
 * forwards. See proxy.h. Everything a connection thread touches is reference-counted (struct
 * shared), so that no thread depends on the run's memory: a thread blocked in getaddrinfo(),
 * which nothing can interrupt, simply ends when it returns. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <json-c/json.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "launcher/base/json-util.h"
#include "addr-class.h"
#include "launcher/base/time-util.h"
#include "launcher/policy/host-pattern.h"
#include "launcher/policy/env.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "proxy-internal.h"
#include "proxy-parse.h"
#include "proxy.h"

#define HEAD_MAX	   CR_HTTP_HEAD_MAX
#define HEAD_TIMEOUT_MS	   30000       /* time for a client to send its request head (408) */
#define CONNECT_TIMEOUT_MS 10000       /* time to connect to the host, all its addresses (504) */
#define SEND_TIMEOUT_MS	   10000       /* time for a client to take a response corral writes */
#define RELAY_BUF	   (16 * 1024)
#define MAX_CONNS	   256	       /* connections served at once; more are answered 503 */
#define MAX_ADDRS	   16	       /* addresses of a host tried */
#define MAX_WARNED	   64	       /* hosts whose denial was logged as a warning */
#define THREAD_STACK	   (512 * 1024)

/* --- state shared by the threads ------------------------------------------------------------ */

struct shared {
	atomic_uint refs;
	int stop_fd;  /* an eventfd, readable once the run is freed: every thread then ends */
	char **hosts; /* allow_hosts, copied */
	atomic_uint active, allowed, denied, failed;
	pthread_mutex_t lock; /* for warned and the interface addresses */
	char *warned[MAX_WARNED];
	size_t n_warned;
	int if_err; /* 0 until the host's interface addresses are read; 1 once read; or -errno */
	struct sockaddr_storage *if_addrs;
	size_t n_if_addrs;
};

static struct shared *shared_ref(struct shared *s)
{
	atomic_fetch_add(&s->refs, 1);
	return s;
}

static void shared_unref(struct shared *s)
{
	if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	closep(&s->stop_fd);
	strv_freep(&s->hosts);
	for (size_t i = 0; i < s->n_warned; i++)
		free(s->warned[i]);
	free(s->if_addrs);
	(void)pthread_mutex_destroy(&s->lock);
	free(s);
}

static int shared_new(char *const *hosts, struct shared **ret)
{
	struct shared *s;
	size_t n = 0;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->refs = 1;
	s->stop_fd = -EBADF;
	(void)pthread_mutex_init(&s->lock, NULL);
	while (hosts && hosts[n])
		n++;
	s->hosts = calloc(n + 1, sizeof(char *));
	for (size_t i = 0; s->hosts && i < n; i++)
		if (!(s->hosts[i] = strdup(hosts[i]))) {
			shared_unref(s);
			return -ENOMEM;
		}
	if (!s->hosts) {
		shared_unref(s);
		return -ENOMEM;
	}
	s->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (s->stop_fd < 0) {
		int r = negative_errno();

		shared_unref(s);
		return r;
	}
	*ret = s;
	return 0;
}

/* Log the first denial of each host as a warning, so that whoever reads corral's stderr (an agent)
 * learns why the fetch failed; the later ones at debug level only. */
static void warn_denied(struct shared *s, const char *host, const char *why)
{
	bool first = true;

	(void)pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n_warned && first; i++)
		first = strcmp(s->warned[i], host) != 0;
	if (first && s->n_warned < MAX_WARNED && (s->warned[s->n_warned] = strdup(host)))
		s->n_warned++;
	(void)pthread_mutex_unlock(&s->lock);
	if (first)
		cr_log_warning("proxy: denied: %s", why);
	else
		cr_debug("proxy: denied '%s': %s", host, why);
}

/* Wait until @fd has @events, the run is freed (-ECANCELED) or @deadline passes (-ETIMEDOUT;
 * a negative deadline waits for ever). */
static int wait_fd(const struct shared *s, int fd, short events, int64_t deadline)
{
	for (;;) {
		struct pollfd fds[2] = { { .fd = fd, .events = events },
					 { .fd = s->stop_fd, .events = POLLIN } };
		int64_t left = deadline < 0 ? -1 : deadline - cr_now_ms();

		if (deadline >= 0 && left <= 0)
			return -ETIMEDOUT;
		if (poll(fds, 2, (int)(left > INT32_MAX ? INT32_MAX : left)) < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (fds[1].revents)
			return -ECANCELED;
		if (fds[0].revents)
			return 0;
	}
}

static bool stopped(const struct shared *s)
{
	return poll(&(struct pollfd){ .fd = s->stop_fd, .events = POLLIN }, 1, 0) > 0;
}

/* --- one connection ------------------------------------------------------------------------- */

struct conn {
	struct shared *shared;
	int client;
	int upstream;
	char peer[INET6_ADDRSTRLEN];
	size_t len;		  /* bytes read from the client */
	size_t head_len;	  /* the request head, blank line included */
	char head[HEAD_MAX];
	char out[HEAD_MAX + 512]; /* the request head sent on, for absolute-form requests */
	char buf[2][RELAY_BUF];	  /* client to host, host to client */
};

static void conn_free(struct conn *c)
{
	closep(&c->client);
	closep(&c->upstream);
	atomic_fetch_sub(&c->shared->active, 1);
	shared_unref(c->shared);
	free(c);
}

static int send_all(const struct conn *c, int fd, const char *p, size_t n)
{
	int64_t deadline = cr_now_ms() + SEND_TIMEOUT_MS;

	while (n > 0) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		int r;

		if (k < 0 && errno != EAGAIN && errno != EINTR)
			return negative_errno();
		if (k < 0 && (r = wait_fd(c->shared, fd, POLLOUT, deadline)) < 0)
			return r;
		if (k > 0) {
			p += k;
			n -= (size_t)k;
		}
	}
	return 0;
}

/* Answer the client with @code and a one-line plain-text body, then the connection ends. */
static void respond(const struct conn *c, int code, const char *reason, const char *fmt, ...)
	_printf_(4, 5);
static void respond(const struct conn *c, int code, const char *reason, const char *fmt, ...)
{
	char body[1024], msg[1280];
	va_list ap;
	int n, m;

	va_start(ap, fmt);
	n = vsnprintf(body, sizeof(body) - 1, fmt, ap);
	va_end(ap);
	n = n < 0 ? 0 : n >= (int)sizeof(body) - 1 ? (int)sizeof(body) - 2 : n;
	body[n++] = '\n';
	body[n] = '\0';
	m = snprintf(msg, sizeof(msg),
		     "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
		     "Content-Length: %d\r\nConnection: close\r\n\r\n%s",
		     code, reason, n, body);
	if (m > 0 && m < (int)sizeof(msg))
		(void)send_all(c, c->client, msg, (size_t)m);
}

/* Read until the blank line that ends the request head. What follows it (a body, or the start of
 * a TLS handshake) stays in c->head after head_len, and is sent on as it is. */
static int read_head(struct conn *c)
{
	int64_t deadline = cr_now_ms() + HEAD_TIMEOUT_MS;

	for (;;) {
		ssize_t n;
		int r;

		/* A bare LF or a control character is refused at once, not after HEAD_TIMEOUT_MS:
		 * the blank line a bare-LF client sends would never be seen. */
		r = cr_http_head_end(c->head, c->len, &c->head_len);
		if (r != -EAGAIN)
			return r;
		r = wait_fd(c->shared, c->client, POLLIN, deadline);
		if (r < 0)
			return r;
		n = recv(c->client, c->head + c->len, HEAD_MAX - c->len, 0);
		if (n == 0)
			return -EPIPE;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return negative_errno();
		if (n > 0)
			c->len += (size_t)n;
	}
}

/* The allow_hosts entry that covers @host (a name or an IPv4 address) on @port, or NULL. An
 * address is covered only by an entry that is that address (no "*." pattern names one). */
static const char *match_host(const struct shared *s, const char *host, const char *port)
{
	char hp[272];

	(void)snprintf(hp, sizeof(hp), "%s:%s", host, port);
	for (char **p = s->hosts; *p; p++)
		if (cr_host_matches(*p, hp))
			return *p;
	return NULL;
}

/* An entry for @host on another port than the request's: for the refusal's wording. */
static const char *match_name(const struct shared *s, const char *host)
{
	char name[256];

	for (char **p = s->hosts; *p; p++) {
		size_t n = strcspn(*p, ":");

		if (n >= sizeof(name))
			continue;
		memcpy(name, *p, n);
		name[n] = '\0';
		if (cr_host_matches(name, host))
			return *p;
	}
	return NULL;
}

/* An address as allow_hosts would list it: IPv4 dotted (also for an IPv6 form of one). */
static void addr_text(const struct sockaddr *sa, char *buf, size_t size)
{
	const void *a = sa->sa_family == AF_INET
				? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
				: (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
	int family = sa->sa_family;
	struct in_addr v4;
	uint32_t h;

	if (family == AF_INET6 && cr_addr_v4_equivalent(a, &h)) {
		v4.s_addr = htonl(h);
		a = &v4;
		family = AF_INET;
	}
	if (!inet_ntop(family, a, buf, (socklen_t)size))
		(void)snprintf(buf, size, "?");
}

/* One non-blocking connect, waited for until @deadline. The socket, or -errno. */
static int connect_one(const struct conn *c, const struct addrinfo *ai, int64_t deadline)
{
	_cleanup_close_ int fd = -EBADF;
	socklen_t len = sizeof(int);
	int err = 0, r;

	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return negative_errno();
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		return TAKE_FD(fd);
	if (errno != EINPROGRESS)
		return negative_errno();
	r = wait_fd(c->shared, fd, POLLOUT, deadline);
	if (r < 0)
		return r;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		return negative_errno();
	if (err != 0)
		return -err;
	return TAKE_FD(fd);
}

/* "a, *.b, 1.2.3.4", shortened to fit. */
static void hosts_text(const struct shared *s, char *buf, size_t size)
{
	buf[0] = '\0';
	for (char **h = s->hosts; *h; h++) {
		if (strlen(buf) + strlen(*h) + 7 >= size) {
			(void)strlcat(buf, ", ...", size);
			break;
		}
		if (h != s->hosts)
			(void)strlcat(buf, ", ", size);
		(void)strlcat(buf, *h, size);
	}
}

/* Answer a denial: 403, counted, logged. */
static void deny(struct conn *c, const struct cr_http_request *rq, const char *why)
{
	atomic_fetch_add(&c->shared->denied, 1);
	warn_denied(c->shared, rq->host, why);
	respond(c, 403, "Forbidden", "corral: %s", why);
}

static void fail(struct conn *c, int code, const char *reason, const char *why)
{
	atomic_fetch_add(&c->shared->failed, 1);
	cr_debug("proxy: %d %s: %s", code, reason, why);
	respond(c, code, reason, "corral: %s", why);
}

/* Read the addresses of the host's own interfaces, once per run, at the first request that
 * resolves a name (not on the spawn path). Called with s->lock held. */
static void load_if_addrs(struct shared *s)
{
	struct ifaddrs *list = NULL;
	size_t n = 0;

	if (getifaddrs(&list) < 0) {
		s->if_err = negative_errno();
		return;
	}
	for (struct ifaddrs *i = list; i; i = i->ifa_next)
		n++;
	s->if_addrs = calloc(n ? n : 1, sizeof(*s->if_addrs));
	if (!s->if_addrs) {
		s->if_err = -ENOMEM;
		freeifaddrs(list);
		return;
	}
	for (struct ifaddrs *i = list; i; i = i->ifa_next) {
		const struct sockaddr *sa = i->ifa_addr;

		if (sa && (sa->sa_family == AF_INET || sa->sa_family == AF_INET6))
			memcpy(&s->if_addrs[s->n_if_addrs++], sa,
			       sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
							: sizeof(struct sockaddr_in6));
	}
	freeifaddrs(list);
	s->if_err = 1;
	cr_debug("proxy: the host has %zu interface addresses, which names do not reach", s->n_if_addrs);
}

/* Is @sa one of the host's own interface addresses (in any form, cr_addr_same())? 1, 0, or
 * -errno when they cannot be read. */
static int own_address(struct shared *s, const struct sockaddr *sa)
{
	int r = 0;

	(void)pthread_mutex_lock(&s->lock);
	if (s->if_err == 0)
		load_if_addrs(s);
	if (s->if_err < 0)
		r = s->if_err;
	for (size_t i = 0; r == 0 && i < s->n_if_addrs; i++)
		r = cr_addr_same((const struct sockaddr *)&s->if_addrs[i], sa);
	(void)pthread_mutex_unlock(&s->lock);
	return r;
}

/* Whether a host name may lead to @sa: not when it is not globally reachable
 * (cr_addr_special()) or is one of the host's own addresses, unless that address (IPv4) is
 * itself listed for @port. 0 when it may; 1 with the address in @text and its registry row in
 * *@ret_what (NULL: one of the host's own) when not; -errno when the host's addresses cannot be
 * read. */
static int refused_address(struct shared *s, const struct sockaddr *sa, const char *port,
			   char *text, size_t size, const char **ret_what)
{
	const char *special = cr_addr_special(sa);
	int own = special ? 0 : own_address(s, sa);

	if (own < 0)
		return own;
	if (!special && !own)
		return 0;
	addr_text(sa, text, size);
	if (!strchr(text, ':') && match_host(s, text, port))
		return 0;
	*ret_what = special;
	return 1;
}

/* Deny @rq because every address of its host was refused: @addr, the first, is in registry row
 * @what, or (NULL) one of the host's own. */
static void deny_address(struct conn *c, const struct cr_http_request *rq, const char *addr,
			 const char *what)
{
	bool v6 = strchr(addr, ':');
	char why[640], kind[160];

	if (what)
		(void)snprintf(kind, sizeof(kind), "an address off the public internet (%s)", what);
	else
		(void)snprintf(kind, sizeof(kind), "an address of corral's host's own network interfaces");
	(void)snprintf(why, sizeof(why),
		       "host '%s' resolves to %s, %s, which a host name reaches only when that address is itself in allow_hosts (DNS rebinding)%s%s",
		       rq->host, addr, kind, v6 ? "" : "; to allow it, add --allow-host ", v6 ? "" : addr);
	deny(c, rq, why);
}

/* The allow_hosts check, then the host's addresses, then a connection to the first acceptable
 * one that answers. 0 with c->upstream set, or -errno once the client has been answered. */
static int open_upstream(struct conn *c, const struct cr_http_request *rq)
{
	struct in_addr v4;
	bool literal = inet_pton(AF_INET, rq->host, &v4) == 1;
	const char *pattern = match_host(c->shared, rq->host, rq->port), *what = NULL;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = literal ? AI_NUMERICHOST : 0 },
			*res = NULL;
	char why[640], refused[INET6_ADDRSTRLEN] = "", text[INET6_ADDRSTRLEN];
	int64_t deadline;
	bool tried = false;
	int r, n = 0;

	if (!pattern) {
		char list[256];

		hosts_text(c->shared, list, sizeof(list));
		if (match_name(c->shared, rq->host))
			(void)snprintf(why, sizeof(why),
				       "port %s of host '%s' is not in this sandbox's allow_hosts (%s); only the ports listed with it are reachable",
				       rq->port, rq->host, list);
		else
			(void)snprintf(why, sizeof(why),
				       "host '%s' is not in this sandbox's allow_hosts (%s); only those hosts are reachable, through this proxy",
				       rq->host, list);
		deny(c, rq, why);
		return -EPERM;
	}
	r = getaddrinfo(rq->host, rq->port, &hints, &res);
	if (stopped(c->shared)) { /* the run ended meanwhile */
		if (res)
			freeaddrinfo(res);
		return -ECANCELED;
	}
	if (r != 0) {
		(void)snprintf(why, sizeof(why), "cannot resolve '%s': %s", rq->host,
			       r == EAI_SYSTEM ? strerror(errno) : gai_strerror(r));
		fail(c, 502, "Bad Gateway", why);
		return -EHOSTUNREACH;
	}
	deadline = cr_now_ms() + CONNECT_TIMEOUT_MS;
	r = -EHOSTUNREACH;
	for (const struct addrinfo *ai = res; ai && n < MAX_ADDRS; ai = ai->ai_next, n++) {
		/* An address named literally is listed (pattern): that is the exception itself. */
		const char *w = NULL;
		int k = literal ? 0 : refused_address(c->shared, ai->ai_addr, rq->port, text,
							 sizeof(text), &w);

		if (k < 0) {
			r = k;
			break;
		}
		if (k > 0 && !refused[0]) {
			memcpy(refused, text, sizeof(text));
			what = w;
		}
		if (k > 0)
			continue;
		tried = true;
		r = connect_one(c, ai, deadline);
		if (r >= 0 || r == -ETIMEDOUT || r == -ECANCELED)
			break;
	}
	freeaddrinfo(res);
	if (r >= 0) {
		c->upstream = r;
		atomic_fetch_add(&c->shared->allowed, 1);
		cr_debug("proxy: %s %s:%s allowed (allow_hosts entry '%s')", rq->method, rq->host,
			 rq->port, pattern);
		return 0;
	}
	if (r == -ECANCELED)
		return r;
	if (refused[0] && !tried) {
		deny_address(c, rq, refused, what);
		return -EPERM;
	}
	if (r != -EHOSTUNREACH && !tried)
		(void)snprintf(why, sizeof(why), "cannot read corral's host's interface addresses: %s",
			       strerror(-r));
	else
		(void)snprintf(why, sizeof(why), "cannot connect to %s:%s: %s", rq->host, rq->port,
			       strerror(-r));
	if (r == -ETIMEDOUT)
		fail(c, 504, "Gateway Timeout", why);
	else
		fail(c, 502, "Bad Gateway", why);
	return r;
}

struct half {
	int from, to;
	char *buf;
	size_t len, off;
	bool eof, done;
};

/* Move what is ready in one direction. After end of file, and once everything read is written,
 * the write side of @to is shut down: the other direction goes on until it ends too. */
static int relay_step(struct half *h)
{
	ssize_t k;

	if (h->off < h->len) {
		k = send(h->to, h->buf + h->off, h->len - h->off, MSG_NOSIGNAL);
		if (k < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : negative_errno();
		h->off += (size_t)k;
	} else {
		k = recv(h->from, h->buf, RELAY_BUF, 0);
		if (k < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : negative_errno();
		h->eof = k == 0;
		h->len = (size_t)k;
		h->off = 0;
	}
	if (h->eof && h->off >= h->len) {
		(void)shutdown(h->to, SHUT_WR);
		h->done = true;
	}
	return 0;
}

/* Both directions until both have ended, an error, or the end of the run. @pending (already read
 * from the client) goes to the host first. */
static void relay(struct conn *c, const char *pending, size_t n_pending)
{
	struct half h[2] = {
		{ .from = c->client, .to = c->upstream, .buf = c->buf[0] },
		{ .from = c->upstream, .to = c->client, .buf = c->buf[1] },
	};

	memcpy(h[0].buf, pending, n_pending);
	h[0].len = n_pending;
	while (!h[0].done || !h[1].done) {
		struct pollfd fds[3];
		int idx[2] = { -1, -1 }, n = 0;

		for (int i = 0; i < 2; i++) {
			if (h[i].done)
				continue;
			idx[i] = n;
			fds[n++] = h[i].off < h[i].len
					   ? (struct pollfd){ .fd = h[i].to, .events = POLLOUT }
					   : (struct pollfd){ .fd = h[i].from, .events = POLLIN };
		}
		fds[n] = (struct pollfd){ .fd = c->shared->stop_fd, .events = POLLIN };
		if (poll(fds, (nfds_t)n + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (fds[n].revents)
			return;
		for (int i = 0; i < 2; i++)
			if (idx[i] >= 0 && fds[idx[i]].revents && relay_step(&h[i]) < 0)
				return;
	}
}

static void serve(struct conn *c)
{
	struct cr_http_request rq;
	const char *why;
	int r;

	r = read_head(c);
	if (r == -E2BIG)
		fail(c, 431, "Request Header Fields Too Large", "the request head is longer than 16 KiB");
	else if (r == -EINVAL)
		fail(c, 400, "Bad Request",
		     "malformed request head (every line must end in CRLF; no control characters)");
	else if (r == -ETIMEDOUT)
		fail(c, 408, "Request Timeout", "no complete request head within 30 s");
	if (r < 0)
		return; /* answered, or the client left, or the run ended */
	r = cr_http_request_parse(c->head, c->head_len, &rq, &why);
	if (r == -E2BIG) {
		fail(c, 431, "Request Header Fields Too Large", why);
		return;
	}
	if (r >= 0 && !rq.connect &&
	    (r = cr_http_forward_head(c->head, &rq, c->out, sizeof(c->out))) < 0)
		why = "the request head is too long to send on";
	if (r < 0) {
		fail(c, 400, "Bad Request", why);
		return;
	}
	if (open_upstream(c, &rq) < 0)
		return;
	if (rq.connect) {
		static const char established[] = "HTTP/1.1 200 Connection Established\r\n\r\n";

		if (send_all(c, c->client, established, sizeof(established) - 1) < 0)
			return;
	} else if (send_all(c, c->upstream, c->out, (size_t)r) < 0) {
		return;
	}
	/* What came after the head in the same reads: the start of the body, or of the TLS
	 * handshake in the tunnel. */
	relay(c, c->head + c->head_len, c->len - c->head_len);
}

static void *conn_main(void *arg)
{
	struct conn *c = arg;

	serve(c);
	conn_free(c);
	return NULL;
}

/* A thread for @fd (owned), detached: it holds its own reference to the shared state. */
static void start_conn(struct shared *s, int fd)
{
	static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 60\r\n"
				   "Connection: close\r\n\r\n"
				   "corral: too many proxy connections at once; try again later\n";
	pthread_attr_t attr;
	pthread_t t;
	struct conn *c;

	if (atomic_fetch_add(&s->active, 1) >= MAX_CONNS) {
		atomic_fetch_sub(&s->active, 1);
		atomic_fetch_add(&s->failed, 1);
		(void)send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		(void)close(fd);
		return;
	}
	c = malloc(sizeof(*c));
	if (!c || fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
		atomic_fetch_sub(&s->active, 1);
		free(c);
		(void)close(fd);
		return;
	}
	c->shared = shared_ref(s);
	c->client = fd;
	c->upstream = -EBADF;
	c->len = c->head_len = 0;
	(void)pthread_attr_init(&attr);
	(void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	(void)pthread_attr_setstacksize(&attr, THREAD_STACK);
	/* The new thread inherits this thread's mask: every signal blocked. */
	if (pthread_create(&t, &attr, conn_main, c) != 0)
		conn_free(c);
	(void)pthread_attr_destroy(&attr);
}

/* --- receiving the connections ---------------------------------------------------------------- */

struct cr_proxy {
	struct cr_policy policy; /* the run's, shallow, but for env and tcp_connect */
	char **env;		 /* owned */
	struct cr_port_range *tcp_connect; /* owned: --tcp-connect and the proxy's port */
	int sock;		 /* corral's end of the socketpair */
	int sandbox_sock;	 /* the sandbox's end, until the clone has it */
	struct shared *shared;
	pthread_t receiver;
	bool started;
};

static void *receive_main(void *arg)
{
	struct cr_proxy *px = arg;

	for (;;) {
		int fd = wait_fd(px->shared, px->sock, POLLIN, -1);

		if (fd >= 0)
			fd = cr_proxy_receive_fd(px->sock);
		if (fd == -EAGAIN)
			continue;
		if (fd < 0)
			break;
		start_conn(px->shared, fd);
	}
	cr_debug("proxy: the sandbox's forwarder is gone or the run ended; no new connections");
	return NULL;
}

/* --- the parent's interface ------------------------------------------------------------------ */

static const char *const proxy_vars[][2] = {
	{ "http_proxy", "HTTP_PROXY" },
	{ "https_proxy", "HTTPS_PROXY" },
	{ "all_proxy", "ALL_PROXY" },
	{ "no_proxy", "NO_PROXY" },
};

/* @env with the proxy's variables added; a pair the policy sets either name of is left alone. */
static int build_env(char *const *env, char ***ret)
{
	_cleanup_strv_ char **v = NULL;
	size_t n = 0;

	while (env && env[n])
		n++;
	v = calloc(n + 2 * ELEMENTSOF(proxy_vars) + 1, sizeof(char *));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!(v[i] = strdup(env[i])))
			return -ENOMEM;
	for (size_t i = 0; i < ELEMENTSOF(proxy_vars); i++) {
		const char *value = strcmp(proxy_vars[i][0], "no_proxy") == 0
					    ? "localhost,127.0.0.1,::1"
					    : "http://" CR_PROXY_ADDRESS;

		if (cr_env_get(env, proxy_vars[i][0]) || cr_env_get(env, proxy_vars[i][1]))
			continue;
		for (size_t k = 0; k < 2; k++)
			if (asprintf(&v[n++], "%s=%s", proxy_vars[i][k], value) < 0) {
				v[n - 1] = NULL;
				return -ENOMEM;
			}
	}
	*ret = TAKE_PTR(v);
	return 0;
}

int cr_proxy_new(const struct cr_policy *p, struct cr_proxy **ret)
{
	_cleanup_(cr_proxy_freep) struct cr_proxy *px = NULL;
	int sv[2], r;

	px = calloc(1, sizeof(*px));
	if (!px)
		return -ENOMEM;
	px->sock = px->sandbox_sock = -EBADF;
	r = shared_new(p->allow_hosts, &px->shared);
	if (r < 0)
		return r;
	r = build_env(p->env, &px->env);
	if (r < 0)
		return r;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return negative_errno();
	px->sock = sv[0];
	px->sandbox_sock = sv[1];
	px->policy = *p;
	px->policy.env = px->env;
	/* Where Landlock restricts connect (--tcp-connect), the command must still reach the proxy:
	 * in a network with only loopback, that port leads nowhere else. */
	if (p->tcp_connect) {
		px->tcp_connect = reallocarray(NULL, p->n_tcp_connect + 1, sizeof(*p->tcp_connect));
		if (!px->tcp_connect)
			return -ENOMEM;
		memcpy(px->tcp_connect, p->tcp_connect, p->n_tcp_connect * sizeof(*p->tcp_connect));
		px->tcp_connect[p->n_tcp_connect] = (struct cr_port_range){ CR_PROXY_PORT, CR_PROXY_PORT };
		px->policy.tcp_connect = px->tcp_connect;
		px->policy.n_tcp_connect = p->n_tcp_connect + 1;
	}
	*ret = TAKE_PTR(px);
	return 0;
}

const struct cr_policy *cr_proxy_policy(const struct cr_proxy *px)
{
	return &px->policy;
}

int cr_proxy_sandbox_fd(const struct cr_proxy *px)
{
	return px->sandbox_sock;
}

int cr_proxy_start(struct cr_proxy *px)
{
	sigset_t all, old;
	int r;

	/* From now on the forwarder's copy is the only one: its end means the sandbox's. */
	closep(&px->sandbox_sock);
	px->sandbox_sock = -EBADF;
	/* The driver reads SIGCHLD and the interrupts from a signalfd, on the main thread: none
	 * may be delivered to a proxy thread. */
	(void)sigfillset(&all);
	(void)pthread_sigmask(SIG_BLOCK, &all, &old);
	r = pthread_create(&px->receiver, NULL, receive_main, px);
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0)
		return -r;
	px->started = true;
	return 0;
}

int cr_proxy_report(const struct cr_proxy *px, json_object *enforced)
{
	json_object *hosts, *o;
	int r = 0;

	if (!px)
		return 0;
	hosts = json_object_new_array();
	for (char **h = px->shared->hosts; hosts && *h && r == 0; h++)
		r = cr_json_append(hosts, json_object_new_string(*h));
	if (r < 0 || cr_json_add(enforced, "allow_hosts", hosts) < 0)
		return -ENOMEM;
	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	r = cr_json_add(o, "address", json_object_new_string(CR_PROXY_ADDRESS));
	r = r ?: cr_json_add(o, "allowed", json_object_new_int64(atomic_load(&px->shared->allowed)));
	r = r ?: cr_json_add(o, "denied", json_object_new_int64(atomic_load(&px->shared->denied)));
	r = r ?: cr_json_add(o, "failed", json_object_new_int64(atomic_load(&px->shared->failed)));
	if (r < 0) {
		json_object_put(o);
		return r;
	}
	return cr_json_add(enforced, "proxy", o);
}

struct cr_proxy *cr_proxy_free(struct cr_proxy *px)
{
	if (!px)
		return NULL;
	if (px->shared)
		(void)eventfd_write(px->shared->stop_fd, 1);
	if (px->started)
		(void)pthread_join(px->receiver, NULL);
	closep(&px->sock);
	closep(&px->sandbox_sock);
	shared_unref(px->shared);
	strv_freep(&px->env);
	free(px->tcp_connect);
	free(px);
	return NULL;
}
