/* SPDX-License-Identifier: MIT */
/* What the parts of `corral serve` share: the parsed request (serve-proto.c, pure and
 * unit-tested), the server's sessions and execs (serve-session.c), the decisions
 * (serve-decide.c) and the transport (serve.c). Not for other modules. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "launcher/policy/capability.h"
#include "launcher/driver.h"
#include "launcher/base/macro.h"
#include "launcher/policy/profile.h"
#include "launcher/risk/risk.h"
#include "launcher/session/session.h"

struct json_object;

#define CR_SERVE_DEFAULT_MESSAGE (1024 * 1024) /* --max-message */
#define CR_SERVE_MAX_MESSAGE     (256 * 1024 * 1024)
#define CR_SERVE_DEFAULT_OUTPUT  (1024 * 1024) /* max_output_bytes, stdout + stderr */
#define CR_SERVE_MAX_OUTPUT      (64ull * 1024 * 1024)
#define CR_SERVE_DEFAULT_POOL    2
#define CR_SERVE_MAX_POOL        16   /* --pool: the warm sandbox's bound (CR_WARM_MAX_POOL) */
#define CR_SERVE_MIN_MESSAGE     64   /* --max-message: below it no request fits */
#define CR_SERVE_KILL_GRACE_MS   1000 /* SIGTERM at the timeout, SIGKILL this much later */
#define CR_SERVE_EOF_GRACE_MS    500  /* after the end, how long output may still arrive */
#define CR_SERVE_MAX_ENV         4096 /* entries of "env" */
#define CR_SERVE_MAX_ARGV        65536
/* What one client may have buffered (docs/protocol.md, "Flow control"): past this much of
 * responses queued and unread, its requests and its commands' output are no longer read until it
 * reads; past this much output kept for its running commands, only its oldest one's is read;
 * with this many commands queued or running, its next requests wait unread. */
#define CR_SERVE_CLIENT_BACKLOG  (4 * 1024 * 1024)
#define CR_SERVE_CLIENT_KEPT     (16 * 1024 * 1024)
#define CR_SERVE_CLIENT_EXECS    64

enum cr_serve_type {
	CR_SERVE_OPEN_SESSION,
	CR_SERVE_EXEC,
	CR_SERVE_APPROVE,
	CR_SERVE_DENY,
	CR_SERVE_CLOSE_SESSION,
	CR_SERVE_STATS,
	_CR_SERVE_TYPE_MAX,
	_CR_SERVE_TYPE_INVALID = -EINVAL,
};

enum cr_serve_scope {
	CR_SERVE_SCOPE_ONCE,
	CR_SERVE_SCOPE_SESSION,
	CR_SERVE_SCOPE_PERMANENT,
	_CR_SERVE_SCOPE_MAX,
};

/* One request, validated. Strings point into @root (kept alive by it) unless said otherwise. */
struct cr_serve_request {
	enum cr_serve_type type;
	struct json_object *root; /* the whole message (owned) */
	struct json_object *id;   /* the client's "id" (borrowed from root) or NULL */
	const char *session;      /* open_session "id"; exec / close_session "session" */
	const char *profile;      /* open_session; NULL: CR_DEFAULT_PROFILE */
	const char *workspace;    /* open_session; NULL: the session store's */
	char **argv;              /* exec: owned, NULL-terminated; NULL with shell */
	const char *shell;        /* exec: a shell command line, or NULL */
	const char *cwd;          /* exec; NULL: the workspace */
	char **env;               /* exec: KEY=VALUE overrides, owned, NULL-terminated; or NULL */
	char *stdin_data;         /* exec: owned, @stdin_len bytes (decoded base64), or NULL */
	size_t stdin_len;
	uint64_t timeout_ms;       /* 0: none */
	uint64_t max_output;       /* bytes of stdout + stderr kept */
	bool has_caps;             /* exec "request" given */
	struct cr_capability caps; /* exec "request" */
	const char *request_id;    /* approve / deny */
	enum cr_serve_scope scope; /* approve */
};

/* A refused message: the error code (see docs/protocol.md) and a sentence. */
struct cr_serve_error {
	const char
		*code; /* "bad_json", "bad_utf8", "too_large", "unknown_type", "bad_field", ... */
	char message[512];
	struct json_object *id; /* the client's id if it could be read (a reference), or NULL */
};

/* Is @s (@len bytes) well-formed UTF-8: no overlong forms, no surrogates, nothing past
 * U+10FFFF? */
bool cr_serve_utf8_valid(const char *s, size_t len);

/* Parse and validate one line (without its newline) of @len bytes. 0 and @ret filled (free it
 * with cr_serve_request_done()), -EINVAL with @err filled (cr_serve_error_done() it), or
 * -ENOMEM. */
int cr_serve_parse(const char *line, size_t len, struct cr_serve_request *ret,
		   struct cr_serve_error *err);
void cr_serve_request_done(struct cr_serve_request *r);
void cr_serve_error_done(struct cr_serve_error *e);

/* {"type":"error","id":ID,"error":CODE,"message":TEXT}; @id is borrowed. NULL on OOM. */
struct json_object *cr_serve_error_json(struct json_object *id, const char *code,
					const char *message);
/* {"type":TYPE,"id":ID} to add to; @id is borrowed (a reference is taken). NULL on OOM. */
struct json_object *cr_serve_response(const char *type, struct json_object *id);

/* Base64 (RFC 4648, with padding). Encoding returns a malloc()ed string or NULL; decoding 0,
 * -EINVAL or -ENOMEM. */
char *cr_serve_base64_encode(const void *data, size_t len);
int cr_serve_base64_decode(const char *s, size_t len, char **ret, size_t *ret_len);

/* Which host path of @p (its workspace, a --ro / --rw path) or of @system_paths (shown
 * read-only to every sandbox) shows @path (canonical) to the sandbox; NULL if none. The paths a
 * sandbox sees from the host are these binds; /tmp, $HOME, /dev and /proc are its own. */
const char *cr_serve_policy_shows(const struct cr_policy *p, const char *const *system_paths,
				  const char *path);

/* "once", "session", "permanent"; NULL if out of range. */
const char *cr_serve_scope_to_string(enum cr_serve_scope s);

/* --- the server (serve.c, serve-session.c, serve-exec.c, serve-cold.c, serve-decide.c,
 * serve-stats.c) ------------------------------------------------------------------------- */

/* A connection: its partial input line and the output not yet written. */
struct serve_client {
	struct serve_client *next;
	uint64_t id;
	int in_fd, out_fd; /* the same socket, or 0 and 1 with --stdio */
	char *in;
	size_t in_len, in_cap;
	bool skipping; /* inside a message longer than --max-message: drop up to its newline */
	char *out;
	size_t out_len, out_off;
	bool eof, dead;
	/* Counted again before each poll: the client's execs queued or running, the output kept
	 * for its running ones, and the oldest of those. */
	unsigned active;
	size_t kept;
	struct serve_exec *oldest;
};

struct serve_opts {
	bool stdio;
	const char *socket;
	unsigned pool;
	size_t max_message;
	const char *audit;
	bool no_audit;
	int verbose;
	bool help;
};

struct serve {
	const struct cr_driver *drv;
	const struct cr_warm_ops *warm;
	struct serve_opts o;
	struct cr_profile_dirs dirs;
	char *state_dir; /* NULL when the environment gives none (no session store then) */
	int audit_fd;    /* -EBADF with --no-audit */
	char *audit_path;
	char *approvals_path; /* <state>/approvals.jsonl: permanent approvals */
	char **approved;      /* permanent approvals, "PROFILE\nCOMMAND LINE" */
	size_t n_approved;
	int listen_fd, sig_fd;
	char *socket_path; /* --socket, canonical; NULL with --stdio */
	int devnull_fd;    /* the stdin of commands that get none */
	bool quit;
	bool draining; /* --stdio input ended: answer what runs, then quit */
	struct serve_client *clients;
	uint64_t next_client;
	struct serve_session *sessions;
	struct serve_exec *execs;
	uint64_t next_request; /* for "r-N" */
	uint64_t execs_total;
	double start_ms;
	bool have_spare;  /* the next exec's output pipes, made ahead (serve-pipes.c) */
	int spare[2][2];  /* with have_spare: [stdout, stderr][read end, write end] */
};

/* How an exec's decision came out. */
enum serve_verdict {
	SERVE_RUN,  /* allowed by the rule, the allowlist or an approval */
	SERVE_ASK,  /* parked until approve / deny */
	SERVE_DENY, /* refused by the rule */
};

struct serve_output {
	int fd;
	int spent_fd; /* fd once at end of file: closed with the exec, after its answer */
	char *buf;
	size_t len, cap, limit;
	bool truncated, eof;
};

enum serve_exec_state {
	SERVE_EXEC_PARKED,  /* waiting for approve / deny */
	SERVE_EXEC_QUEUED,  /* waiting for a ready worker */
	SERVE_EXEC_RUNNING, /* started; waiting for its end and the end of its output */
};

struct serve_exec {
	struct serve_exec *next;
	struct serve_session *session;
	uint64_t client;
	struct json_object *id;
	enum serve_exec_state state;
	char **argv, **envp;
	char *cwd;
	char *command_line; /* the shell line, or argv joined by spaces: what approvals match */
	struct cr_risk risk;
	enum cr_command_rule rule;
	char rule_why[256]; /* why the rule applies, a sentence */
	char request_id[24];  /* "r-N" when it was asked for; else empty */
	const char *approval; /* "once", "session", "permanent", "cached-session", ... or NULL */
	char *stdin_data;
	size_t stdin_len, stdin_off;
	int stdin_fd;
	struct serve_output out[2];
	uint64_t timeout_ms, max_output;
	struct cr_exec *e;
	bool has_caps; /* the exec's "request" */
	struct cr_capability caps;
	bool cold;                   /* beyond the warm sandbox: a one-off sandbox (serve-cold.c) */
	bool needs_grant;            /* beyond the session's grants too: asked for */
	struct cr_capability excess; /* with needs_grant: what is missing */
	pid_t helper;                /* the one-off sandbox's helper process */
	int result_fd;               /* its outcome */
	bool cold_failed;
	char cold_error[512];
	struct json_object *enforced; /* a one-off sandbox's report */
	bool ended, timed_out, term_sent;
	uint64_t oom_kills, pids_max; /* the warm sandbox's event counters when the exec started */
	struct cr_exec_result res;
	double start_ms, deadline_ms, kill_ms, end_ms;
};

struct serve_session {
	struct serve_session *next;
	char *id;
	struct cr_profile profile;
	struct cr_policy policy;
	struct cr_capability baseline;
	struct cr_session store;
	bool have_store;
	struct cr_warm *w;
	char **approved; /* command lines approved for the session */
	size_t n_approved;
	uint64_t execs_total;
	unsigned restarts;
	struct json_object *enforced; /* the warm sandbox's report, in short, for exec results */
};

/* Queue @o (consumed) as one line to client @client (gone: dropped). */
void serve_send(struct serve *sv, uint64_t client, struct json_object *o);
void serve_send_error(struct serve *sv, uint64_t client, struct json_object *id, const char *code,
		      const char *fmt, ...) _printf_(5, 6);

/* Requests (serve-session.c), each answering on @client. */
void serve_open_session(struct serve *sv, uint64_t client, struct cr_serve_request *req);
void serve_close_session(struct serve *sv, uint64_t client, struct cr_serve_request *req);
void serve_exec(struct serve *sv, uint64_t client, struct cr_serve_request *req);
void serve_answer(struct serve *sv, uint64_t client, struct cr_serve_request *req);
void serve_stats(struct serve *sv, uint64_t client, struct cr_serve_request *req);
/* Sessions and execs in the poll loop. */
struct serve_session *serve_session_find(struct serve *sv, const char *id);
void serve_session_handle(struct serve *sv, struct serve_session *s);
void serve_exec_start(struct serve *sv, struct serve_exec *x);
/* Unlink and free @x (kills what is left of the command). */
void serve_exec_free(struct serve *sv, struct serve_exec *x);
void serve_exec_event(struct serve *sv, struct serve_exec *x, int fd, short revents);
/* Deadlines: timeouts, kills, output grace. Returns the poll timeout in ms (-1: none). */
int serve_execs_tick(struct serve *sv);
/* Drop every exec of @client (it is gone) / of every client, and every session. */
void serve_client_gone(struct serve *sv, uint64_t client);
void serve_shutdown(struct serve *sv);

/* corral's own files (anchor.h) out of reach of the commands of session @s run under @p (the
 * warm sandbox's policy, or a cold exec's): cr_policy_guard(). 0 or -errno with @msg. */
int serve_guard_own_files(struct serve *sv, const struct serve_session *s, struct cr_policy *p,
			  char *msg, size_t size);

/* -EPERM with a sentence in @msg if a sandbox of policy @p would see the server's socket
 * (@msg NULL: at start-up, logged); else 0. */
int serve_socket_check(struct serve *sv, const struct cr_policy *p, char *msg, size_t size);

/* The one-off sandbox of a cold exec (serve-cold.c). */
int serve_cold_policy(struct serve *sv, struct serve_exec *x, struct cr_policy *ret, char *msg,
		      size_t size);
/* Fork the helper that runs @p (consumed by the helper's copy; the caller frees its own) with
 * the command's stdio @child. 0 or -errno. */
int serve_cold_start(struct serve *sv, struct serve_exec *x, struct cr_policy *p,
		     const int child[3]);
/* Read the helper's outcome into @x (x->res, or x->cold_failed) and reap it. */
void serve_cold_result(struct serve_exec *x);
/* Kill the helper (and with it its sandbox) if it still runs. */
void serve_cold_kill(struct serve_exec *x);

/* The output pipes of an exec (serve-pipes.c): stdout's and stderr's read ends (non-blocking)
 * and write ends, all O_CLOEXEC, taken from the pair made ahead or made now. 0 or -errno. */
int serve_pipes_take(struct serve *sv, int ret_read[2], int ret_write[2]);
/* Make the next exec's pair, off the request path (the loop calls it before it sleeps). */
void serve_pipes_refill(struct serve *sv);
void serve_pipes_done(struct serve *sv);

/* Append @s (consumed; NULL: -ENOMEM) to the NULL-terminated *@v. */
int serve_strv_push(char ***v, char *s);

/* Decisions (serve-decide.c). */
int serve_decide(struct serve *sv, struct serve_exec *x, char *msg, size_t size);
int serve_approvals_load(struct serve *sv, char *msg, size_t size);
int serve_approval_store(struct serve *sv, struct serve_exec *x, enum cr_serve_scope scope);
/* {"tier","reasons"} etc. added to a response or a ledger line. 0 or -ENOMEM. */
int serve_decision_json(const struct serve_exec *x, struct json_object *o);
/* One ledger line for @x: its decision and, when it ran, its outcome (@result may be NULL). */
void serve_audit(struct serve *sv, const struct serve_exec *x, const char *decision,
		 struct json_object *result);
