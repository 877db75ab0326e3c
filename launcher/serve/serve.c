/* SPDX-License-Identifier: MIT */
/* `corral serve`: options, the transport (JSON lines on stdin/stdout or a unix socket) and the
 * poll loop. Everything runs on the main thread: the sandboxes' pid 1 has its parent-death
 * signal bound to the thread that created it, so killing the server kills every sandbox. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "launcher/base/time-util.h"
#include "launcher/session/audit.h"
#include "launcher/policy/request.h"
#include "launcher/base/parse-util.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/json-text.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/peer.h"
#include "serve-internal.h"
#include "serve.h"

extern char **environ;

/* A client's input buffer grows by this much, and one read() takes at most this much: 64 KiB is
 * a pipe's default capacity, so one read usually drains what a client wrote. */
#define READ_CHUNK (64 * 1024)

/* Connections the kernel queues on --socket before the server accepts them: the server accepts
 * on every loop pass, so this only has to absorb a burst of clients connecting at once. */
#define LISTEN_BACKLOG 64
/* At most one "refused a client" line per this many milliseconds on stderr (log_refusal()). */
#define REFUSAL_LOG_INTERVAL_MS 1000
/* At the end, what is queued for the clients gets this long in all (a client that does not read
 * must not keep a stopping server alive), polled in steps of FLUSH_POLL_MS so the total is kept. */
#define FLUSH_BUDGET_MS 1000
#define FLUSH_POLL_MS   100

static const char usage[] =
	"Usage: corral serve --stdio | --socket PATH [OPTIONS]\n"
	"\n"
	"Keep sandboxes warm and run commands in them on request: one JSON object per line in,\n"
	"one per line out (the protocol is in docs/protocol.md). Each session has a sandbox\n"
	"built once from its profile, with a pool of workers ready to exec a command.\n"
	"\n"
	"Transport:\n"
	"      --stdio            requests on stdin, responses on stdout; end of file on stdin\n"
	"                         stops the server (for an agent that spawns it)\n"
	"      --socket PATH      listen on a unix socket created with mode 0600 (an existing\n"
	"                         socket is replaced, any other file refused); only peers of\n"
	"                         the same uid outside every corral sandbox are served, and\n"
	"                         no session may see the socket\n"
	"\n"
	"Options:\n"
	"      --pool N           ready workers per session, 1-16 (default 2)\n"
	"      --max-message N    longest request line in bytes, 64-268435456 (default\n"
	"                         1048576); a longer one is answered with error too_large\n"
	"                         and skipped\n"
	"      --audit FILE       the audit ledger (default $XDG_STATE_HOME/corral/audit.jsonl)\n"
	"      --no-audit         keep no ledger\n"
	"  -v, --verbose          log what the server does on stderr\n"
	"  -h, --help             this text\n"
	"\n"
	"SIGTERM or SIGINT stop the server: every sandbox is killed, nothing more is answered,\n"
	"exit status 0. Killing it any other way kills its sandboxes too. Exit status 125 on\n"
	"bad usage, or when the server cannot start or fails.\n";

static int parse_options(int argc, char **argv, struct serve_opts *o)
{
	static const struct option longopts[] = {
		{"stdio", no_argument, NULL, 's'},
		{"socket", required_argument, NULL, 'S'},
		{"pool", required_argument, NULL, 'p'},
		{"max-message", required_argument, NULL, 'm'},
		{"audit", required_argument, NULL, 'a'},
		{"no-audit", no_argument, NULL, 'A'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	uint64_t n;
	int c;

	*o = (struct serve_opts){.pool = CR_SERVE_DEFAULT_POOL,
				 .max_message = CR_SERVE_DEFAULT_MESSAGE};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+vh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->stdio = true;
			break;
		case 'S':
			o->socket = optarg;
			break;
		case 'p':
			if (cr_parse_uint(optarg, 1, CR_SERVE_MAX_POOL, &n) < 0)
				return cr_log_errno(-EINVAL, "serve: --pool takes 1 to %d",
						    CR_SERVE_MAX_POOL);
			o->pool = (unsigned)n;
			break;
		case 'm':
			if (cr_parse_uint(optarg, CR_SERVE_MIN_MESSAGE, CR_SERVE_MAX_MESSAGE,
					  &n) < 0)
				return cr_log_errno(-EINVAL,
						    "serve: --max-message takes %d to %d bytes",
						    CR_SERVE_MIN_MESSAGE, CR_SERVE_MAX_MESSAGE);
			o->max_message = (size_t)n;
			break;
		case 'a':
			o->audit = optarg;
			break;
		case 'A':
			o->no_audit = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			o->help = true;
			return 0;
		default:
			return cr_log_errno(-EINVAL,
					    "serve: unknown option '%s' (try: corral serve --help)",
					    argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cr_log_errno(-EINVAL, "serve: unexpected argument '%s'", argv[optind]);
	if (o->stdio == (o->socket != NULL))
		return cr_log_errno(-EINVAL, "serve: give --stdio or --socket PATH (one of them)");
	if (o->audit && o->no_audit)
		return cr_log_errno(-EINVAL, "serve: --audit and --no-audit exclude each other");
	return 0;
}

/* --- clients ----------------------------------------------------------------------------- */

static struct serve_client *client_find(struct serve *sv, uint64_t id)
{
	for (struct serve_client *c = sv->clients; c; c = c->next)
		if (c->id == id && !c->dead)
			return c;
	return NULL;
}

static int client_add(struct serve *sv, int in_fd, int out_fd)
{
	struct serve_client *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->id = ++sv->next_client;
	c->in_fd = in_fd;
	c->out_fd = out_fd;
	c->next = sv->clients;
	sv->clients = c;
	cr_debug("client %llu connected", (unsigned long long)c->id);
	return 0;
}

static void client_free(struct serve_client *c)
{
	if (c->in_fd > 2)
		(void)close(c->in_fd);
	if (c->out_fd > 2 && c->out_fd != c->in_fd)
		(void)close(c->out_fd);
	free(c->in);
	free(c->out);
	free(c);
}

static void client_write(struct serve_client *c);

static int out_append(struct serve_client *c, const char *text, size_t len)
{
	size_t pending = c->out_len - c->out_off;
	char *buf;

	if (c->out_off > 0) { /* compact what was written */
		memmove(c->out, c->out + c->out_off, pending);
		c->out_len = pending;
		c->out_off = 0;
	}
	buf = realloc(c->out, c->out_len + len + 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf + c->out_len, text, len);
	buf[c->out_len + len] = '\n';
	c->out = buf;
	c->out_len += len + 1;
	return 0;
}

void serve_send(struct serve *sv, uint64_t client, json_object *o)
{
	struct serve_client *c = client_find(sv, client);
	_cleanup_free_ char *text = NULL;

	if (!o) {
		cr_log_error("serve: out of memory building a response");
		return;
	}
	text = cr_json_text(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (c && !sv->quit && text && out_append(c, text, strlen(text)) < 0) {
		cr_log_error("serve: out of memory queueing a response; dropping client %llu",
			     (unsigned long long)c->id);
		c->dead = true;
	} else if (c && !c->dead && !sv->quit)
		client_write(c); /* at once: most responses fit in the pipe or socket buffer */
	json_object_put(o);
}

void serve_send_error(struct serve *sv, uint64_t client, json_object *id, const char *code,
		      const char *fmt, ...)
{
	char message[1024];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	cr_debug("client %llu: error %s: %s", (unsigned long long)client, code, message);
	serve_send(sv, client, cr_serve_error_json(id, code, message));
}

static void dispatch(struct serve *sv, uint64_t client, const char *line, size_t len)
{
	struct cr_serve_request req = {};
	struct cr_serve_error err = {};
	int r;

	r = cr_serve_parse(line, len, &req, &err);
	if (r < 0) {
		serve_send_error(sv, client, err.id, err.code ?: "internal", "%s",
				 err.message[0] ? err.message : strerror(-r));
		cr_serve_error_done(&err);
		return;
	}
	switch (req.type) {
	case CR_SERVE_OPEN_SESSION:
		serve_open_session(sv, client, &req);
		break;
	case CR_SERVE_EXEC:
		serve_exec(sv, client, &req);
		break;
	case CR_SERVE_APPROVE:
	case CR_SERVE_DENY:
		serve_answer(sv, client, &req);
		break;
	case CR_SERVE_CLOSE_SESSION:
		serve_close_session(sv, client, &req);
		break;
	case CR_SERVE_STATS:
		serve_stats(sv, client, &req);
		break;
	default:
		break;
	}
	cr_serve_request_done(&req);
}

/* Is @c's queue of unread responses past its bound? Then nothing more of it is read, requests
 * or its commands' output, until it reads (docs/protocol.md, "Flow control"). */
static bool client_backlogged(const struct serve_client *c)
{
	return c->out_len - c->out_off > CR_SERVE_CLIENT_BACKLOG;
}

/* Are @c's requests to wait unread: its responses pile up, or it has as many commands queued
 * or running as it may? */
static bool client_held(const struct serve_client *c)
{
	return client_backlogged(c) || c->active >= CR_SERVE_CLIENT_EXECS;
}

/* How many execs @c has queued or running (c->active, as client_held() needs it now). */
static void client_count(struct serve *sv, struct serve_client *c)
{
	c->active = 0;
	for (struct serve_exec *x = sv->execs; x; x = x->next)
		if (x->client == c->id && x->state != SERVE_EXEC_PARKED)
			c->active++;
}

/* Every whole line in the buffer, until the client is held; a line past --max-message is
 * refused and skipped. */
static void client_lines(struct serve *sv, struct serve_client *c)
{
	size_t start = 0;
	bool held = false;
	char *nl;

	while (!sv->quit && !(held = (client_count(sv, c), client_held(c))) &&
	       (nl = memchr(c->in + start, '\n', c->in_len - start))) {
		size_t len = (size_t)(nl - (c->in + start));

		if (c->skipping)
			c->skipping = false;
		else if (len > sv->o.max_message)
			serve_send_error(sv, c->id, NULL, "too_large",
					 "a message of %zu bytes is longer than --max-message %zu",
					 len, sv->o.max_message);
		else if (len > 0 && !(len == 1 && c->in[start] == '\r'))
			dispatch(sv, c->id, c->in + start, len);
		start += len + 1;
	}
	memmove(c->in, c->in + start, c->in_len - start);
	c->in_len -= start;
	if (held) /* the lines left are read once it is no longer held */
		return;
	if (c->in_len > sv->o.max_message && !c->skipping) {
		serve_send_error(sv, c->id, NULL, "too_large",
				 "a message is longer than --max-message %zu bytes; it is skipped "
				 "up to its end",
				 sv->o.max_message);
		c->skipping = true;
	}
	if (c->skipping)
		c->in_len = 0;
}

static void client_read(struct serve *sv, struct serve_client *c)
{
	ssize_t n;

	if (c->in_cap < c->in_len + READ_CHUNK) {
		char *buf = realloc(c->in, c->in_len + READ_CHUNK);

		if (!buf) {
			c->dead = true;
			return;
		}
		c->in = buf;
		c->in_cap = c->in_len + READ_CHUNK;
	}
	n = read(c->in_fd, c->in + c->in_len, READ_CHUNK);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		cr_debug("client %llu: end of input", (unsigned long long)c->id);
		c->eof = true;
		if (c->in_len > 0 && !c->skipping) /* a last line without its newline */
			serve_send_error(sv, c->id, NULL, "bad_json",
					 "the input ended inside a message (no newline)");
		c->in_len = 0;
		if (sv->o.stdio) /* answer the commands already running, then stop */
			sv->draining = true;
		return;
	}
	c->in_len += (size_t)n;
	client_lines(sv, c);
}

static void client_write(struct serve_client *c)
{
	ssize_t n = write(c->out_fd, c->out + c->out_off, c->out_len - c->out_off);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		c->dead = true;
		return;
	}
	c->out_off += (size_t)n;
	if (c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
}

static void clients_reap(struct serve *sv)
{
	for (struct serve_client **p = &sv->clients; *p;) {
		struct serve_client *c = *p;

		if (c->dead || (c->eof && c->out_len == c->out_off && !sv->o.stdio)) {
			if (sv->o.stdio) /* stdout is gone: nobody can be answered any more */
				sv->quit = true;
			*p = c->next;
			serve_client_gone(sv, c->id);
			cr_debug("client %llu gone", (unsigned long long)c->id);
			client_free(c);
		} else
			p = &c->next;
	}
}

/* --- the socket -------------------------------------------------------------------------- */

static int socket_listen(struct serve *sv)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	const char *path = sv->o.socket;
	_cleanup_close_ int fd = -EBADF;
	struct stat st;
	mode_t old;
	int r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return cr_log_errno(-ENAMETOOLONG, "serve: --socket %s: the path is too long",
				    path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return cr_log_errno(
				-EEXIST,
				"serve: --socket %s exists and is not a socket; not replacing it",
				path);
		if (unlink(path) < 0)
			return cr_log_errno(negative_errno(), "serve: cannot replace %s: %m", path);
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return cr_log_errno(negative_errno(), "serve: socket: %m");
	old = umask(077);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? negative_errno() : 0;
	(void)umask(old);
	if (r < 0)
		return cr_log_errno(r, "serve: cannot bind %s: %m", path);
	if (chmod(path, 0600) < 0 || listen(fd, LISTEN_BACKLOG) < 0) {
		r = negative_errno();
		(void)unlink(path);
		return cr_log_errno(r, "serve: cannot listen on %s: %m", path);
	}
	sv->listen_fd = TAKE_FD(fd);
	return 0;
}

/* The canonical path the socket will have: its directory resolved, its name kept. */
static int socket_resolve(struct serve *sv)
{
	const char *path = sv->o.socket, *slash = strrchr(path, '/');
	_cleanup_free_ char *dir = slash ? strndup(path, (size_t)(slash - path)) : NULL;
	_cleanup_free_ char *canon = NULL;

	if (slash && !dir)
		return cr_log_errno(-ENOMEM, "serve: out of memory");
	canon = realpath(!slash ? "." : dir[0] ? dir : "/", NULL);
	if (!canon)
		return cr_log_errno(negative_errno(),
				    "serve: --socket %s: cannot resolve its directory: %m", path);
	if (asprintf(&sv->socket_path, "%s/%s", strcmp(canon, "/") == 0 ? "" : canon,
		     slash ? slash + 1 : path) < 0) {
		sv->socket_path = NULL;
		return cr_log_errno(-ENOMEM, "serve: out of memory");
	}
	return serve_socket_check(sv, &(struct cr_policy){}, NULL, 0);
}

int serve_socket_check(struct serve *sv, const struct cr_policy *p, char *msg, size_t size)
{
	const char *where =
		sv->socket_path ? cr_serve_policy_shows(p, sv->drv->system_paths, sv->socket_path)
				: NULL;

	if (!where)
		return 0;
	if (!msg) /* at start-up: every sandbox would see it */
		return cr_log_errno(
			-EPERM,
			"serve: --socket %s lies inside %s, which every sandbox sees: "
			"its commands could talk to the server; put the socket elsewhere",
			sv->socket_path, where);
	return cr_msg(msg, size, -EPERM,
		      "the server's socket %s lies inside %s, which the sandbox would see: its "
		      "commands could talk to the server; give a workspace (and paths) that do "
		      "not hold the socket, or move the socket (--socket)",
		      sv->socket_path, where);
}

/* At most one line a second: a sandboxed command that connects in a loop must not fill a stderr
 * that nobody reads, which would block the server. */
static void log_refusal(const char *why)
{
	static double last_ms = -1e9;
	static unsigned suppressed;
	double now = cr_now_ms_f();

	if (now - last_ms < REFUSAL_LOG_INTERVAL_MS) {
		suppressed++;
		return;
	}
	if (suppressed > 0)
		cr_log_warning("serve: refused a client: %s (and %u more refused since the last "
			       "such line)",
			       why, suppressed);
	else
		cr_log_warning("serve: refused a client: %s", why);
	last_ms = now;
	suppressed = 0;
}

/* A peer that is not of our uid, or that runs inside a corral sandbox (launcher/base/peer.h), gets
 * one error line and is closed; the server says why on its stderr. */
static void socket_accept(struct serve *sv)
{
	static const char refused[] =
		"{\"type\":\"error\",\"id\":null,\"error\":\"forbidden\",\"message\":\"corral "
		"serve serves only its own uid, outside every corral sandbox\"}\n";
	_cleanup_close_ int fd = accept4(sv->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	char why[256];

	if (fd < 0)
		return;
	if (cr_peer_check(fd, why, sizeof(why)) < 0) {
		log_refusal(why);
		(void)!write(fd, refused, sizeof(refused) - 1); /* one try: the buffer is empty */
		/* What it sent unread would turn the close into a reset, which loses the line. */
		while (recv(fd, why, sizeof(why), MSG_DONTWAIT) > 0)
			;
		return;
	}
	if (client_add(sv, fd, fd) >= 0)
		fd = -EBADF;
}

/* --- setup and the loop ------------------------------------------------------------------ */

static int open_ledger(struct serve *sv)
{
	char msg[512] = "";
	int fd;

	if (sv->o.no_audit)
		return 0;
	if (sv->o.audit)
		sv->audit_path = strdup(sv->o.audit);
	else if (!sv->state_dir || asprintf(&sv->audit_path, "%s/" CR_AUDIT_FILE, sv->state_dir) < 0)
		sv->audit_path = NULL;
	if (!sv->audit_path && !sv->state_dir)
		return cr_log_errno(
			-ENOENT,
			"serve: no state directory for the audit ledger: set XDG_STATE_HOME or "
			"HOME to an absolute path, or pass --audit FILE or --no-audit");
	if (!sv->audit_path)
		return cr_log_errno(-ENOMEM, "serve: out of memory");
	fd = cr_audit_open(sv->audit_path, !sv->o.audit, msg, sizeof(msg));
	if (fd < 0)
		return cr_log_errno(fd, "serve: %s (--no-audit serves without the ledger)", msg);
	sv->audit_fd = fd;
	return 0;
}

static int setup(struct serve *sv)
{
	char msg[512] = "";
	sigset_t mask;
	int r;

	(void)signal(SIGPIPE, SIG_IGN); /* a client that went away is seen as EPIPE */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ||
	    (sv->sig_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
		return cr_log_errno(negative_errno(), "serve: signalfd: %m");
	sv->devnull_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (sv->devnull_fd < 0)
		return cr_log_errno(negative_errno(), "serve: /dev/null: %m");
	r = cr_profile_dirs_from_env(environ, &sv->dirs);
	if (r < 0)
		return cr_log_errno(r, "serve: out of memory");
	if (sv->dirs.skipped) /* each session names its profile: an unreadable directory stays */
		cr_log_warning("serve: %s the profile directory %s",
			       sv->dirs.user_dir ? "cannot read" : "skipped", sv->dirs.skipped);
	r = cr_state_dir_warn(environ, &sv->state_dir, NULL, msg, sizeof(msg));
	if (r < 0)
		return cr_log_errno(r, "serve: %s", msg);
	r = open_ledger(sv);
	if (r >= 0 && sv->state_dir)
		r = serve_approvals_load(sv, msg, sizeof(msg));
	if (r < 0 && msg[0])
		cr_log_error("serve: %s", msg);
	if (r >= 0 && sv->o.socket)
		r = socket_resolve(sv);
	if (r >= 0 && sv->o.socket)
		r = socket_listen(sv);
	if (r >= 0 && sv->o.stdio) {
		(void)fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
		(void)fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);
		r = client_add(sv, 0, 1);
	}
	return r;
}

/* What each pollfd stands for. */
struct watch {
	enum {
		W_SIGNAL,
		W_LISTEN,
		W_CLIENT_IN,
		W_CLIENT_OUT,
		W_SESSION,
		W_EXEC
	} kind;
	void *ptr;
};

static size_t add_fd(struct pollfd *fds, struct watch *w, size_t n, int fd, short ev, int kind,
		     void *ptr)
{
	fds[n] = (struct pollfd){.fd = fd, .events = ev};
	w[n] = (struct watch){.kind = kind, .ptr = ptr};
	return n + 1;
}

static size_t count_fds(const struct serve *sv)
{
	size_t n = 2;

	for (struct serve_client *c = sv->clients; c; c = c->next)
		n += 2;
	for (struct serve_session *s = sv->sessions; s; s = s->next)
		n++;
	for (struct serve_exec *x = sv->execs; x; x = x->next)
		n += 4;
	return n;
}

/* The lines a client sent that waited (it was held) and may be read now; then each client's
 * execs queued or running, the output kept for its running ones, and the oldest of those. */
static void clients_account(struct serve *sv)
{
	for (struct serve_client *c = sv->clients; c && !sv->quit; c = c->next)
		if (!c->dead && c->in_len > 0 && memchr(c->in, '\n', c->in_len) &&
		    (client_count(sv, c), !client_held(c)))
			client_lines(sv, c);
	for (struct serve_client *c = sv->clients; c; c = c->next)
		c->active = 0, c->kept = 0, c->oldest = NULL;
	for (struct serve_exec *x = sv->execs; x; x = x->next) {
		struct serve_client *c =
			x->state == SERVE_EXEC_PARKED ? NULL : client_find(sv, x->client);

		if (!c)
			continue;
		c->active++;
		if (x->state != SERVE_EXEC_RUNNING)
			continue;
		c->kept += x->out[0].len + x->out[1].len;
		if (!c->oldest || x->start_ms < c->oldest->start_ms)
			c->oldest = x;
	}
}

/* Is the output of @x to be read now? Not while its client's responses pile up: the command
 * blocks on a full pipe (its timeout still runs). Past CR_SERVE_CLIENT_KEPT kept for the
 * client's running commands, only the oldest's and output past its cap (read and dropped). */
static bool output_wanted(struct serve *sv, const struct serve_exec *x, int i)
{
	const struct serve_client *c = client_find(sv, x->client);

	if (!c)
		return true; /* gone: the exec is about to be dropped */
	if (client_backlogged(c))
		return false;
	return c->kept <= CR_SERVE_CLIENT_KEPT || c->oldest == x ||
	       x->out[i].len >= x->out[i].limit;
}

static size_t build_fds(struct serve *sv, struct pollfd *fds, struct watch *w)
{
	size_t n = 0;

	n = add_fd(fds, w, n, sv->sig_fd, POLLIN, W_SIGNAL, NULL);
	if (sv->listen_fd >= 0)
		n = add_fd(fds, w, n, sv->listen_fd, POLLIN, W_LISTEN, NULL);
	for (struct serve_client *c = sv->clients; c; c = c->next) {
		if (!c->eof && !client_held(c))
			n = add_fd(fds, w, n, c->in_fd, POLLIN, W_CLIENT_IN, c);
		if (c->out_len > c->out_off)
			n = add_fd(fds, w, n, c->out_fd, POLLOUT, W_CLIENT_OUT, c);
	}
	for (struct serve_session *s = sv->sessions; s; s = s->next)
		if (s->w)
			n = add_fd(fds, w, n, sv->warm->fd(s->w), POLLIN, W_SESSION, s);
	for (struct serve_exec *x = sv->execs; x; x = x->next) {
		if (x->state != SERVE_EXEC_RUNNING)
			continue;
		if (!x->ended && x->cold)
			n = add_fd(fds, w, n, x->result_fd, POLLIN, W_EXEC, x);
		else if (!x->ended)
			n = add_fd(fds, w, n, sv->warm->exec_fd(x->e), POLLIN, W_EXEC, x);
		for (int i = 0; i < 2; i++)
			if (x->out[i].fd >= 0 && output_wanted(sv, x, i))
				n = add_fd(fds, w, n, x->out[i].fd, POLLIN, W_EXEC, x);
		if (x->stdin_fd >= 0)
			n = add_fd(fds, w, n, x->stdin_fd, POLLOUT, W_EXEC, x);
	}
	return n;
}

/* One pass: poll, then act on what is ready. Objects may go away while acting, so an exec is
 * looked up again before each event. */
static int loop_once(struct serve *sv)
{
	_cleanup_free_ struct pollfd *fds = NULL;
	_cleanup_free_ struct watch *w = NULL;
	size_t cap, n;
	int timeout, k;

	clients_account(sv);
	clients_reap(sv); /* the lines that waited may have ended a client */
	serve_pipes_refill(sv); /* the pass after an exec took them: its runner is under way */
	cap = count_fds(sv);
	fds = calloc(cap, sizeof(*fds));
	w = calloc(cap, sizeof(*w));
	if (!fds || !w)
		return -ENOMEM;
	n = build_fds(sv, fds, w);
	timeout = serve_execs_tick(sv);
	k = poll(fds, n, timeout);
	if (k < 0)
		return errno == EINTR ? 0 : negative_errno();
	for (size_t i = 0; i < n && !sv->quit; i++) {
		if (!fds[i].revents)
			continue;
		switch (w[i].kind) {
		case W_SIGNAL: {
			struct signalfd_siginfo si;

			if (read(sv->sig_fd, &si, sizeof(si)) == sizeof(si)) {
				cr_debug("serve: signal %u: stopping", si.ssi_signo);
				sv->quit = true;
			}
			break;
		}
		case W_LISTEN:
			socket_accept(sv);
			break;
		case W_CLIENT_IN:
			client_read(sv, w[i].ptr);
			break;
		case W_CLIENT_OUT:
			client_write(w[i].ptr);
			break;
		case W_SESSION: /* a request of this turn may have closed it */
			for (struct serve_session *s = sv->sessions; s; s = s->next)
				if (s == w[i].ptr && s->w && sv->warm->fd(s->w) == fds[i].fd) {
					serve_session_handle(sv, s);
					break;
				}
			break;
		case W_EXEC:
			for (struct serve_exec *x = sv->execs; x; x = x->next)
				if (x == w[i].ptr) {
					serve_exec_event(sv, x, fds[i].fd, fds[i].revents);
					break;
				}
			break;
		default:
			break;
		}
	}
	clients_reap(sv);
	return 0;
}

/* Is a command queued or running? (One waiting for an approval will get none once the input
 * has ended.) */
static bool serve_busy(const struct serve *sv)
{
	for (const struct serve_exec *x = sv->execs; x; x = x->next)
		if (x->state != SERVE_EXEC_PARKED)
			return true;
	return false;
}

/* Flush what is queued for the clients, briefly: the server is stopping. */
static void flush_clients(struct serve *sv)
{
	double end = cr_now_ms_f() + FLUSH_BUDGET_MS;

	for (struct serve_client *c = sv->clients; c; c = c->next) {
		while (!c->dead && c->out_len > c->out_off && cr_now_ms_f() < end) {
			struct pollfd p = {.fd = c->out_fd, .events = POLLOUT};

			if (poll(&p, 1, FLUSH_POLL_MS) > 0)
				client_write(c);
		}
	}
}

static void teardown(struct serve *sv)
{
	serve_shutdown(sv);
	serve_pipes_done(sv);
	while (sv->clients) {
		struct serve_client *c = sv->clients;

		sv->clients = c->next;
		client_free(c);
	}
	if (sv->listen_fd >= 0) {
		(void)close(sv->listen_fd);
		(void)unlink(sv->o.socket);
	}
	free(sv->socket_path);
	if (sv->sig_fd >= 0)
		(void)close(sv->sig_fd);
	if (sv->devnull_fd >= 0)
		(void)close(sv->devnull_fd);
	if (sv->audit_fd >= 0)
		(void)close(sv->audit_fd);
	for (size_t i = 0; i < sv->n_approved; i++)
		free(sv->approved[i]);
	free(sv->approved);
	free(sv->approvals_path);
	free(sv->audit_path);
	free(sv->state_dir);
	cr_profile_dirs_done(&sv->dirs);
}

int cr_serve_main(int argc, char **argv)
{
	struct serve sv = {
		.drv = cr_driver_native(),
		.audit_fd = -EBADF,
		.listen_fd = -EBADF,
		.sig_fd = -EBADF,
		.devnull_fd = -EBADF,
		.start_ms = cr_now_ms_f(),
	};
	int r;

	if (parse_options(argc, argv, &sv.o) < 0)
		return CR_EXIT_SETUP;
	if (sv.o.help) {
		fputs(usage, stdout);
		return 0;
	}
	cr_log_set_level(sv.o.verbose > 0 ? CR_LOG_DEBUG : CR_LOG_WARNING);
	sv.warm = sv.drv->warm;
	if (!sv.warm)
		cr_log_warning("serve: the %s driver has no warm sandboxes: open_session will fail",
			       sv.drv->name);
	r = setup(&sv); /* logs its own errors */
	while (r >= 0 && !sv.quit && !(sv.draining && !serve_busy(&sv))) {
		r = loop_once(&sv);
		if (r < 0)
			cr_log_errno(r, "serve: %m");
	}
	if (r >= 0)
		flush_clients(&sv);
	teardown(&sv);
	return r < 0 ? CR_EXIT_SETUP : 0;
}
