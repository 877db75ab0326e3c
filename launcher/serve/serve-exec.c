/* SPDX-License-Identifier: MIT */
/* A running exec of `corral serve`: its stdin fed from the request, its stdout and stderr kept
 * up to their caps (and drained past them, so the command never blocks on a full pipe), its
 * timeout (SIGTERM to all of it, SIGKILL CR_SERVE_KILL_GRACE_MS later), and the response once
 * it has ended and its output is at end of file. Also `stats`. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/base/json-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/time-util.h"
#include "serve-internal.h"
#include "launcher/status.h"

/* One read() of a command's output: 64 KiB is a pipe's default capacity, so one read usually
 * empties the pipe. */
#define READ_CHUNK (64 * 1024)
/* The first read of an output, and its first buffer: most commands print little. */
#define OUTPUT_MIN 4096
#define OUTPUT_READS 8

static void exec_done(struct serve *sv, struct serve_exec *x);

/* Room for @want more bytes (and a NUL) in @o's buffer, which grows by doubling. */
static int output_reserve(struct serve_output *o, size_t want)
{
	size_t cap = o->cap ? o->cap : OUTPUT_MIN;
	char *p;

	if (o->len + want + 1 <= o->cap)
		return 0;
	while (cap < o->len + want + 1)
		cap *= 2;
	p = realloc(o->buf, cap);
	if (!p)
		return -ENOMEM;
	o->buf = p;
	o->cap = cap;
	return 0;
}

/* Keep what fits under the cap, read straight into the kept output (at most as much at once as
 * is kept already, so that the buffer stays within twice the output); read and drop the rest,
 * counted as truncation (also when memory runs out). Returns whether there may be more to read
 * at once: a read of a pipe that is short of what it asked for emptied the pipe. */
static bool output_read(struct serve_output *o)
{
	static char dropped[READ_CHUNK]; /* the server has one thread */
	size_t room = o->len < o->limit ? o->limit - o->len : 0;
	size_t want = o->len > OUTPUT_MIN ? o->len : OUTPUT_MIN;
	bool keep;
	ssize_t n;

	want = want < READ_CHUNK ? want : READ_CHUNK;
	want = want < room ? want : room;
	keep = want > 0 && output_reserve(o, want) == 0;
	if (!keep)
		want = sizeof(dropped);
	n = read(o->fd, keep ? o->buf + o->len : dropped, want);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return false;
	if (n <= 0) { /* closed with the exec (serve_exec_free()), after the answer */
		o->spent_fd = TAKE_FD(o->fd);
		o->eof = true;
		return false;
	}
	if (keep)
		o->len += (size_t)n;
	else
		o->truncated = true;
	return (size_t)n == want;
}

/* What the pipe holds now, in one wake-up: enough reads to empty a full pipe from the first,
 * smallest one (4, 4, 8, 16, 32 KiB), and no more, so that a command that writes without end
 * cannot keep the server from its other clients. */
static void output_drain(struct serve_output *o)
{
	for (int i = 0; i < OUTPUT_READS && output_read(o); i++)
		;
}

static void stdin_write(struct serve_exec *x)
{
	ssize_t n = write(x->stdin_fd, x->stdin_data + x->stdin_off, x->stdin_len - x->stdin_off);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0)
		x->stdin_off += (size_t)n;
	if (n <= 0 || x->stdin_off == x->stdin_len) /* EPIPE: the command stopped reading */
		x->stdin_fd = (close(x->stdin_fd), -EBADF);
}

static bool exec_complete(const struct serve_exec *x)
{
	return x->ended && x->out[0].fd < 0 && x->out[1].fd < 0;
}

void serve_exec_event(struct serve *sv, struct serve_exec *x, int fd, short revents)
{
	if (fd == x->stdin_fd)
		stdin_write(x);
	else if (fd == x->out[0].fd)
		output_drain(&x->out[0]);
	else if (fd == x->out[1].fd)
		output_drain(&x->out[1]);
	else if (x->cold && !x->ended && fd == x->result_fd) {
		serve_cold_result(x);
		for (int i = 0; i < 2; i++)
			while (x->out[i].fd >= 0 && output_read(&x->out[i]))
				;
	} else if (!x->ended && x->e && fd == sv->warm->exec_fd(x->e)) {
		int r = sv->warm->exec_handle(x->e, &x->res);

		if (r == 0) {
			uint64_t oom, pids;

			x->ended = true;
			x->end_ms = cr_now_ms_f();
			/* The session's sandbox is the one the exec started in: a lost sandbox fails
			 * its running execs before it is replaced. Execs of one session that overlap
			 * share its counters: an event while they overlap is reported by each. */
			sv->warm->events(x->session->w, &oom, &pids);
			x->res.oom_killed = oom > x->oom_kills;
			x->res.pids_limit_hit = pids > x->pids_max;
			if (x->stdin_fd >= 0)
				x->stdin_fd = (close(x->stdin_fd), -EBADF);
			/* Everything has ended: what is left in the pipes is there now, and the
			 * response need not wait for another turn of the loop. */
			for (int i = 0; i < 2; i++)
				while (x->out[i].fd >= 0 && output_read(&x->out[i]))
					;
		} else if (r != -EAGAIN) {
			serve_send_error(sv, x->client, x->id, "sandbox_lost",
					 "lost track of the command: %s", strerror(-r));
			serve_audit(sv, x, "error", NULL);
			return serve_exec_free(sv, x);
		}
	}
	if (exec_complete(x))
		exec_done(sv, x);
}

/* Output ends at a whole character when the cap cut one in two. */
static size_t utf8_trim(const char *s, size_t len)
{
	size_t back = 0;

	while (back < 3 && back < len && ((unsigned char)s[len - 1 - back] & 0xc0) == 0x80)
		back++;
	if (back < len && ((unsigned char)s[len - 1 - back] & 0x80) &&
	    !cr_serve_utf8_valid(s + len - 1 - back, back + 1))
		return len - 1 - back;
	return len;
}

/* "stdout": text when it is UTF-8, else "stdout_base64". 0 or -ENOMEM. */
static int add_output(json_object *o, const char *name, const struct serve_output *out)
{
	char key[32];
	size_t len = out->len;
	int r;

	if (out->truncated)
		len = utf8_trim(out->buf, len);
	if (cr_serve_utf8_valid(out->buf ?: "", len)) {
		r = cr_json_add(o, name, json_object_new_string_len(out->buf ?: "", (int)len));
	} else {
		_cleanup_free_ char *b = cr_serve_base64_encode(out->buf, out->len);

		(void)snprintf(key, sizeof(key), "%s_base64", name);
		r = b ? cr_json_add(o, key, json_object_new_string(b)) : -ENOMEM;
	}
	(void)snprintf(key, sizeof(key), "%s_truncated", name);
	return r ?: cr_json_add(o, key, json_object_new_boolean(out->truncated));
}

static json_object *exec_result(struct serve *sv, struct serve_exec *x)
{
	struct cr_outcome oc = {
		.kind = x->res.kind, .status = x->res.status, .oom_killed = x->res.oom_killed};
	json_object *o = cr_serve_response("exec_result", x->id);
	bool sig = x->res.kind == CR_OUTCOME_SIGNALED;
	const char *name = sig ? cr_signal_name(x->res.status) : NULL;
	double ms = x->end_ms - x->start_ms;
	json_object *enforced = x->cold ? x->enforced : x->session->enforced;
	char text[32];
	int r;

	oc.error.err = x->res.err;
	(void)snprintf(text, sizeof(text), "%.3f", ms);
	r = cr_json_add(o, "session", json_object_new_string(x->session->id));
	r = r ?: cr_json_add(o, "exit_code", json_object_new_int(cr_exit_code(&oc, x->timed_out)));
	if (sig)
		r = r ?: cr_json_add(o, "signal", json_object_new_int(x->res.status));
	else
		r = r ?: cr_json_add_null(o, "signal");
	r = r ?: cr_json_add_str(o, "signal_name", name);
	r = r ?: cr_json_add(o, "timed_out", json_object_new_boolean(x->timed_out));
	r = r ?: cr_json_add(o, "oom_killed", json_object_new_boolean(x->res.oom_killed));
	r = r ?: cr_json_add(o, "pids_limit_hit", json_object_new_boolean(x->res.pids_limit_hit));
	if (x->res.kind == CR_OUTCOME_EXEC_FAILED)
		r = r ?: cr_json_add(o, "exec_error", json_object_new_string(strerror(x->res.err)));
	r = r ?: cr_json_add(o, "duration_ms", json_object_new_double_s(ms, text));
	r = r ?: add_output(o, "stdout", &x->out[0]);
	r = r ?: add_output(o, "stderr", &x->out[1]);
	if (enforced)
		r = r ?: cr_json_add(o, "enforced", json_object_get(enforced));
	else
		r = r ?: cr_json_add_null(o, "enforced");
	r = r ?: cr_json_add(o, "sandbox", json_object_new_string(x->cold ? "one-off" : "warm"));
	r = r ?: serve_decision_json(x, o);
	if (r < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static void exec_done(struct serve *sv, struct serve_exec *x)
{
	json_object *o;

	if (x->cold_failed) {
		serve_send_error(sv, x->client, x->id, "sandbox_failed",
				 "the one-off sandbox for the request failed: %s", x->cold_error);
		serve_audit(sv, x, "error", NULL);
		return serve_exec_free(sv, x);
	}
	o = exec_result(sv, x);
	if (!o) {
		serve_send_error(sv, x->client, x->id, "internal",
				 "out of memory building the result of the request");
		serve_audit(sv, x, "error", NULL);
		return serve_exec_free(sv, x);
	}
	/* The answer first, the ledger line right after: off the client's wait. */
	serve_send(sv, x->client, json_object_get(o));
	serve_audit(sv, x, x->approval ? "approved" : "allowed", o);
	json_object_put(o);
	serve_exec_free(sv, x);
}

static double earliest(double a, double b)
{
	if (b <= 0)
		return a;
	return a < 0 || b < a ? b : a;
}

/* Timeouts and grace periods; returns the poll timeout. */
int serve_execs_tick(struct serve *sv)
{
	double now = cr_now_ms_f(), next = -1;

	for (struct serve_exec *x = sv->execs, *nx; x; x = nx) {
		nx = x->next;
		if (x->state != SERVE_EXEC_RUNNING)
			continue;
		if (!x->ended && x->deadline_ms > 0 && now >= x->deadline_ms && !x->term_sent) {
			cr_debug("exec %s: timed out; SIGTERM", x->command_line);
			x->timed_out = x->term_sent = true;
			(void)sv->warm->exec_kill(x->e, SIGTERM);
			x->kill_ms = now + CR_SERVE_KILL_GRACE_MS;
		}
		if (!x->ended && x->term_sent && x->kill_ms > 0 && now >= x->kill_ms) {
			(void)sv->warm->exec_kill(x->e, SIGKILL);
			x->kill_ms = 0;
		}
		if (x->ended && now >= x->end_ms + CR_SERVE_EOF_GRACE_MS) {
			/* Something still holds the output open: answer with what there is. */
			for (int i = 0; i < 2; i++)
				if (x->out[i].fd >= 0)
					x->out[i].fd = (close(x->out[i].fd), -EBADF);
			exec_done(sv, x);
			continue;
		}
		next = earliest(next, x->ended ? x->end_ms + CR_SERVE_EOF_GRACE_MS : -1);
		next = earliest(next, !x->ended && x->kill_ms > 0 ? x->kill_ms : -1);
		next = earliest(next, !x->ended && !x->term_sent ? x->deadline_ms : -1);
	}
	if (next < 0)
		return -1;
	return next <= now ? 0 : (int)(next - now) + 1;
}
