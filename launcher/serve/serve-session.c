/* SPDX-License-Identifier: MIT */
/* `corral serve`'s sessions (a warm sandbox each, built from a profile) and its execs: the
 * decision, a worker, pipes for the output (kept up to a cap, drained past it), the timeout, the
 * response and the ledger line. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <json-c/printbuf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/base/time-util.h"
#include "launcher/policy/policy-build.h"
#include "launcher/policy/anchor.h"
#include "launcher/policy/cli.h"
#include "launcher/base/exit-codes.h"
#include "launcher/session/audit.h"
#include "launcher/session/caches.h"
#include "launcher/base/json-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/policy/policy.h"
#include "serve-internal.h"
#include "launcher/status.h"

extern char **environ;

struct serve_session *serve_session_find(struct serve *sv, const char *id)
{
	for (struct serve_session *s = sv->sessions; s; s = s->next)
		if (strcmp(s->id, id) == 0)
			return s;
	return NULL;
}

static void session_free(struct serve *sv, struct serve_session *s)
{
	json_object_put(s->enforced);
	if (s->w)
		s->w = sv->warm->free(s->w);
	for (size_t i = 0; i < s->n_approved; i++)
		free(s->approved[i]);
	free(s->approved);
	cr_capability_done(&s->baseline);
	cr_policy_done(&s->policy);
	cr_profile_done(&s->profile);
	if (s->have_store)
		cr_session_done(&s->store);
	free(s->id);
	free(s);
}

/* Root's sandbox runs as policy.uid, which must own the store's workspace to write it. */
static int hand_over_workspace(const struct cr_policy *p, char *msg, size_t size)
{
	_cleanup_close_ int fd =
		open(p->workspace, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 ||
	    ((st.st_uid != p->uid || st.st_gid != p->gid) && fchown(fd, p->uid, p->gid) < 0))
		return cr_msg(msg, size, negative_errno(),
			      "cannot give the session's workspace %s to uid %u: %m", p->workspace,
			      p->uid);
	return 0;
}

int serve_guard_own_files(struct serve *sv, const struct serve_session *s, struct cr_policy *p,
			  char *msg, size_t size)
{
	struct cr_anchor_sources src = {
		.dirs = &sv->dirs,
		.profile = s->profile.source, /* "builtin", or the file's canonical path */
		.state_dir = sv->state_dir,
		.audit_path = sv->audit_path,
		.env = environ,
	};
	struct cr_anchors anchors = {};
	int r;

	r = cr_anchors_collect(&src, &anchors);
	if (r < 0)
		return cr_msg(msg, size, r, "out of memory");
	r = cr_policy_guard(p, &anchors, s->have_store ? s->store.workspace : NULL, msg, size);
	cr_anchors_done(&anchors);
	if (r >= 0) /* the named caches, as for corral run */
		r = cr_caches_attach(p, sv->state_dir, msg, size);
	return r;
}

/* `corral run` options as if given on the command line with nothing but the workspace, so
 * every default (the sandbox's ids, the kill delay) is the one `corral run` has. */
static int synthetic_options(const char *workspace, struct cr_run_options *ret, char *msg,
			     size_t size)
{
	char *argv[] = {"run", "--workspace", (char *)workspace, "--", "true", NULL};
	char *bare[] = {"run", "--", "true", NULL};

	if (workspace)
		return cr_cli_parse_run(5, argv, ret, msg, size);
	return cr_cli_parse_run(3, bare, ret, msg, size);
}

/* The profile, the session store (without a workspace of its own), and the policy the warm
 * sandbox is built from: the profile's alone, as `corral run` builds it without options. */
static int session_policy(struct serve *sv, struct serve_session *s,
			  const struct cr_serve_request *req, char *msg, size_t size)
{
	struct cr_run_options o = {};
	struct cr_policy_input in = {
		.opts = &o,
		.system_paths = sv->drv->system_paths,
		.host_env = environ,
		.is_root = geteuid() == 0,
	};
	int r;

	r = cr_profile_load(req->profile ?: CR_DEFAULT_PROFILE, &sv->dirs, &s->profile, msg, size);
	if (r < 0)
		return r;
	if (!req->workspace) {
		if (!sv->state_dir)
			return cr_msg(msg, size, -ENOENT,
				      "no state directory for the session store: set "
				      "XDG_STATE_HOME or HOME, or give \"workspace\"");
		r = cr_session_open(sv->state_dir, s->id, s->profile.name, true, &s->store, msg,
				    size);
		if (r < 0)
			return r;
		s->have_store = true;
		in.session_workspace = s->store.workspace;
	}
	r = synthetic_options(req->workspace, &o, msg, size);
	if (r < 0)
		return r;
	in.profile = &s->profile;
	r = cr_policy_build_from(&in, &s->policy, NULL, &s->baseline, msg, size);
	s->policy.argv = NULL; /* points into the options; the warm sandbox takes none */
	cr_run_options_done(&o);
	if (r >= 0 && s->have_store && in.is_root)
		r = hand_over_workspace(&s->policy, msg, size);
	if (r >= 0)
		r = serve_guard_own_files(sv, s, &s->policy, msg, size);
	return r;
}

/* What every exec result of the session repeats: the layers and their modes, not the paths
 * (open_session_result has the whole report). NULL if it cannot be made whole. */
static json_object *report_summary(json_object *full)
{
	static const char *const keep[] = {"namespaces",   "network",      "degraded",
					   "capabilities", "no_new_privs", "warm"};

	return cr_audit_summary(full, keep, ELEMENTSOF(keep));
}

/* json-c serializer of an object frozen by freeze_text(): its text, made once. */
static int frozen_text(json_object *o, struct printbuf *pb, int level, int flags)
{
	const char *text = json_object_get_userdata(o);

	(void)level;
	(void)flags;
	return printbuf_memappend(pb, text, (int)strlen(text));
}

/* The summary goes unchanged into every exec result of the session: serialized here once
 * rather than at each answer. It is never changed afterwards. Without memory for the copy, it
 * is serialized each time, as before. */
static void freeze_text(json_object *o)
{
	int flags = JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE;
	const char *text = json_object_to_json_string_ext(o, flags);
	char *copy = text ? strdup(text) : NULL;

	if (copy)
		json_object_set_serializer(o, frozen_text, copy, json_object_free_userdata);
}

static int session_start(struct serve *sv, struct serve_session *s, char *msg, size_t size)
{
	struct cr_setup_error e = {};
	json_object *full;
	int r;

	r = sv->warm->start(&s->policy, sv->o.pool, &s->w, &e);
	if (r >= 0 && (full = json_object_new_object())) {
		if (sv->warm->report(s->w, full) < 0)
			cr_log_warning("serve: the enforcement report of session %s is incomplete",
				       s->id);
		json_object_put(s->enforced);
		s->enforced = report_summary(full);
		if (s->enforced)
			freeze_text(s->enforced);
		json_object_put(full);
	}
	if (r < 0)
		return cr_msg(msg, size, r, "cannot build the session's sandbox%s%s%s: %s",
			      e.stage[0] ? " (stage " : "", e.stage, e.stage[0] ? ")" : "",
			      e.message[0] ? e.message : strerror(-r));
	return 0;
}

static json_object *open_result(struct serve *sv, struct serve_session *s, json_object *id)
{
	json_object *o = cr_serve_response("open_session_result", id);
	json_object *enforced = json_object_new_object();
	int r;

	if (!o || !enforced) {
		json_object_put(o);
		json_object_put(enforced);
		return NULL;
	}
	if (sv->warm->report(s->w, enforced) < 0)
		cr_log_warning("serve: the enforcement report of session %s is incomplete", s->id);
	r = cr_json_add(o, "session", json_object_new_string(s->id));
	r = r ?: cr_json_add(o, "workspace", json_object_new_string(s->policy.workspace));
	r = r ?: cr_json_add(o, "profile", json_object_new_string(s->profile.name));
	r = r ?: cr_json_add(o, "pid", json_object_new_int(sv->warm->pid(s->w)));
	if (r < 0)
		json_object_put(enforced);
	r = r ?: cr_json_add(o, "enforced", enforced);
	return cr_json_whole(o, r);
}

void serve_open_session(struct serve *sv, uint64_t client, struct cr_serve_request *req)
{
	struct serve_session *s;
	char msg[1024] = "";
	int r;

	if (!sv->warm)
		return serve_send_error(sv, client, req->id, "not_supported",
					"the %s driver has no warm sandboxes", sv->drv->name);
	if (serve_session_find(sv, req->session))
		return serve_send_error(sv, client, req->id, "session_exists",
					"session \"%s\" is already open", req->session);
	s = calloc(1, sizeof(*s));
	if (!s || !(s->id = strdup(req->session))) {
		free(s);
		return serve_send_error(sv, client, req->id, "internal", "out of memory");
	}
	r = session_policy(sv, s, req, msg, sizeof(msg));
	if (r >= 0)
		r = serve_socket_check(sv, &s->policy, msg, sizeof(msg));
	if (r >= 0)
		r = session_start(sv, s, msg, sizeof(msg));
	if (r < 0) {
		session_free(sv, s);
		return serve_send_error(sv, client, req->id,
					r == -ENOENT || r == -EINVAL || r == -EPERM
						? "bad_session"
						: "sandbox_failed",
					"%s", msg);
	}
	s->next = sv->sessions;
	sv->sessions = s;
	cr_debug("session %s open: profile %s, workspace %s, pid %d", s->id, s->profile.name,
		 s->policy.workspace, sv->warm->pid(s->w));
	serve_send(sv, client, open_result(sv, s, req->id));
}

/* --- execs ------------------------------------------------------------------------------- */

static void exec_unlink(struct serve *sv, struct serve_exec *x)
{
	for (struct serve_exec **p = &sv->execs; *p; p = &(*p)->next)
		if (*p == x) {
			*p = x->next;
			return;
		}
}

void serve_exec_free(struct serve *sv, struct serve_exec *x)
{
	exec_unlink(sv, x);
	if (x->e)
		x->e = sv->warm->exec_free(x->e);
	serve_cold_kill(x);
	json_object_put(x->enforced);
	cr_capability_done(&x->caps);
	cr_capability_done(&x->excess);
	for (int i = 0; i < 2; i++) {
		if (x->out[i].fd >= 0)
			(void)close(x->out[i].fd);
		if (x->out[i].spent_fd >= 0)
			(void)close(x->out[i].spent_fd);
		free(x->out[i].buf);
	}
	if (x->stdin_fd >= 0)
		(void)close(x->stdin_fd);
	free(x->stdin_data);
	strv_freep(&x->argv);
	strv_freep(&x->envp);
	free(x->cwd);
	free(x->command_line);
	cr_risk_done(&x->risk);
	json_object_put(x->id);
	free(x);
}

/* The session's environment with the request's overrides. */
static int exec_env(const struct serve_session *s, char *const *over, char ***ret)
{
	size_t n = 0, m = 0, k = 0;
	_cleanup_strv_ char **v = NULL;

	for (char *const *e = s->policy.env; e && *e; e++)
		n++;
	for (char *const *e = over; e && *e; e++)
		m++;
	v = calloc(n + m + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (char *const *e = s->policy.env; e && *e; e++) {
		size_t klen = strcspn(*e, "=") + 1;
		bool replaced = false;

		for (char *const *o = over; o && *o && !replaced; o++)
			replaced = strncmp(*e, *o, klen) == 0;
		if (!replaced && !(v[k++] = strdup(*e)))
			return -ENOMEM;
	}
	for (char *const *o = over; o && *o; o++)
		if (!(v[k++] = strdup(*o)))
			return -ENOMEM;
	*ret = TAKE_PTR(v);
	return 0;
}

static char *join_argv(char *const *argv)
{
	size_t len = 1;
	char *s;

	for (char *const *a = argv; *a; a++)
		len += strlen(*a) + 1;
	s = calloc(1, len);
	for (char *const *a = argv; s && *a; a++) {
		if (a != argv)
			strcat(s, " ");
		strcat(s, *a);
	}
	return s;
}

static int exec_fill(struct serve_exec *x, struct serve_session *s, struct cr_serve_request *req)
{
	static char *const sh[] = {"/bin/sh", "-c", NULL};
	int r;

	x->timeout_ms = req->timeout_ms;
	if (s->policy.timeout_ms && (!x->timeout_ms || x->timeout_ms > s->policy.timeout_ms))
		x->timeout_ms = s->policy.timeout_ms; /* the profile's [limits] timeout caps it */
	x->has_caps = req->has_caps;
	x->caps = req->caps;
	req->caps = (struct cr_capability){};
	req->has_caps = false;
	x->max_output = req->max_output;
	x->out[0].limit = req->max_output / 2 + req->max_output % 2;
	x->out[1].limit = req->max_output / 2;
	x->stdin_data = TAKE_PTR(req->stdin_data);
	x->stdin_len = req->stdin_len;
	if (req->shell) {
		x->argv = calloc(4, sizeof(char *));
		if (!x->argv || !(x->argv[0] = strdup(sh[0])) || !(x->argv[1] = strdup(sh[1])) ||
		    !(x->argv[2] = strdup(req->shell)))
			return -ENOMEM;
		x->command_line = strdup(req->shell);
	} else {
		x->argv = TAKE_PTR(req->argv);
		x->command_line = join_argv(x->argv);
	}
	x->cwd = strdup(req->cwd ?: s->policy.workspace);
	if (!x->command_line || !x->cwd)
		return -ENOMEM;
	r = exec_env(s, req->env, &x->envp);
	return r;
}

static struct serve_exec *exec_new(struct serve_session *s, uint64_t client, json_object *id)
{
	struct serve_exec *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->session = s;
	x->client = client;
	x->id = json_object_get(id);
	x->stdin_fd = x->out[0].fd = x->out[1].fd = x->result_fd = -EBADF;
	x->out[0].spent_fd = x->out[1].spent_fd = -EBADF;
	return x;
}

/* Where the request's capabilities put the exec: within the profile's baseline (the warm
 * sandbox), within the baseline joined with the session's grants (a one-off sandbox, no
 * question), or beyond (a one-off sandbox once approved; x->excess is what is missing). */
static int caps_check(struct serve_session *s, struct serve_exec *x, char *msg, size_t size)
{
	struct cr_capability grants = {}, joined = {};
	int r = 0;

	if (!x->has_caps || cr_capability_is_within(&x->caps, &s->baseline))
		return 0;
	x->cold = true;
	if (s->have_store)
		r = cr_session_grants(&s->store, &grants, msg, size);
	if (r >= 0)
		r = cr_capability_join(&s->baseline, &grants, &joined);
	if (r >= 0 && !cr_capability_is_within(&x->caps, &joined)) {
		r = cr_capability_excess(&x->caps, &joined, &x->excess);
		x->needs_grant = r >= 0;
	}
	if (r >= 0 && !x->needs_grant)
		x->approval = "grant";
	cr_capability_done(&grants);
	cr_capability_done(&joined);
	return r == -ENOMEM ? cr_msg(msg, size, r, "out of memory") : r;
}

static void respond_denied(struct serve *sv, struct serve_exec *x, const char *reason)
{
	json_object *o = cr_serve_response("denied", x->id);
	int r;

	r = cr_json_add(o, "session", json_object_new_string(x->session->id));
	if (x->request_id[0])
		r = r ?: cr_json_add(o, "request_id", json_object_new_string(x->request_id));
	r = r ?: cr_json_add(o, "reason", json_object_new_string(reason));
	r = r ?: serve_decision_json(x, o);
	serve_send(sv, x->client, cr_json_whole(o, r));
}

static void respond_ask(struct serve *sv, struct serve_exec *x)
{
	json_object *o = cr_serve_response("needs_approval", x->id);
	int r;

	r = cr_json_add(o, "session", json_object_new_string(x->session->id));
	r = r ?: cr_json_add(o, "request_id", json_object_new_string(x->request_id));
	r = r ?: cr_json_add(o, "reason", json_object_new_string(x->rule_why));
	r = r ?: cr_json_add(o, "command", json_object_new_string(x->command_line));
	r = r ?: serve_decision_json(x, o);
	if (x->needs_grant)
		r = r ?: cr_json_add(o, "capabilities", cr_capability_to_json(&x->excess, true));
	else
		r = r ?: cr_json_add_null(o, "capabilities");
	serve_send(sv, x->client, cr_json_whole(o, r));
}

void serve_exec(struct serve *sv, uint64_t client, struct cr_serve_request *req)
{
	struct serve_session *s = serve_session_find(sv, req->session);
	struct serve_exec *x;
	char msg[1024] = "";
	int v;

	if (!s)
		return serve_send_error(sv, client, req->id, "no_such_session",
					"no open session \"%s\"", req->session);
	x = exec_new(s, client, req->id);
	if (!x || exec_fill(x, s, req) < 0) {
		if (x)
			serve_exec_free(sv, x);
		return serve_send_error(sv, client, req->id, "internal", "out of memory");
	}
	x->next = sv->execs;
	sv->execs = x;
	v = caps_check(s, x, msg, sizeof(msg));
	if (v >= 0)
		v = serve_decide(sv, x, msg, sizeof(msg));
	if (v == SERVE_RUN && x->needs_grant) { /* the command is fine; its request is not */
		x->approval = NULL;
		(void)snprintf(x->request_id, sizeof(x->request_id), "r-%llu",
			       (unsigned long long)++sv->next_request);
		(void)snprintf(x->rule_why, sizeof(x->rule_why), "%s",
			       "the command requests capabilities beyond the session's profile and "
			       "grants");
		v = SERVE_ASK;
	}
	switch (v) {
	case SERVE_RUN:
		serve_exec_start(sv, x);
		break;
	case SERVE_ASK:
		x->state = SERVE_EXEC_PARKED;
		serve_audit(sv, x, "ask", NULL);
		respond_ask(sv, x);
		break;
	case SERVE_DENY:
		serve_audit(sv, x, "denied", NULL);
		respond_denied(sv, x, x->rule_why);
		serve_exec_free(sv, x);
		break;
	default:
		serve_send_error(sv, client, req->id, "internal", "%s",
				 msg[0] ? msg : "out of memory");
		serve_exec_free(sv, x);
		break;
	}
}

static struct serve_exec *find_parked(struct serve *sv, const char *request_id)
{
	for (struct serve_exec *x = sv->execs; x; x = x->next)
		if (x->state == SERVE_EXEC_PARKED && strcmp(x->request_id, request_id) == 0)
			return x;
	return NULL;
}

/* An approved request beyond the session, kept as a grant of the session (as `corral run
 * --grant session` keeps it). Without the session store there is nowhere to keep it. */
static void grant_store(struct serve_exec *x)
{
	struct serve_session *s = x->session;
	char msg[512] = "";

	if (!s->have_store) {
		cr_log_warning("serve: session %s has a workspace of its own, not the session "
			       "store: the grant lasts for this command only",
			       s->id);
		return;
	}
	if (cr_session_grant_add(&s->store, &x->excess, s->profile.name, msg, sizeof(msg)) < 0)
		cr_log_error("serve: %s", msg);
}

void serve_answer(struct serve *sv, uint64_t client, struct cr_serve_request *req)
{
	bool approve = req->type == CR_SERVE_APPROVE;
	struct serve_exec *x = find_parked(sv, req->request_id);
	json_object *o;
	int r;

	if (!x)
		return serve_send_error(sv, client, req->id, "no_such_request",
					"no command waits for approval as \"%s\"", req->request_id);
	o = cr_serve_response(approve ? "approve_result" : "deny_result", req->id);
	r = cr_json_add(o, "request_id", json_object_new_string(x->request_id));
	if (approve)
		r = r ?: cr_json_add(o, "scope",
				     json_object_new_string(cr_serve_scope_to_string(req->scope)));
	serve_send(sv, client, cr_json_whole(o, r));
	if (!approve) {
		x->approval = NULL;
		serve_audit(sv, x, "denied", NULL);
		respond_denied(sv, x, "the client denied it");
		return serve_exec_free(sv, x);
	}
	if (x->rule == CR_COMMAND_ASK && serve_approval_store(sv, x, req->scope) < 0)
		cr_log_warning("serve: cannot store the approval of %s", x->request_id);
	if (x->needs_grant && req->scope != CR_SERVE_SCOPE_ONCE)
		grant_store(x);
	x->approval = cr_serve_scope_to_string(req->scope);
	serve_exec_start(sv, x);
}

/* Pipes for the command's stdio; the command's ends go to the worker and are closed here. */
static int exec_pipes(struct serve *sv, struct serve_exec *x, int child[3])
{
	int p[2], rd[2], wr[2], r;

	r = serve_pipes_take(sv, rd, wr);
	if (r < 0)
		return r;
	for (int i = 0; i < 2; i++) {
		x->out[i].fd = rd[i];
		child[i + 1] = wr[i];
	}
	if (!x->stdin_data)
		return 0; /* the server's /dev/null */
	if (pipe2(p, O_CLOEXEC) < 0)
		return negative_errno();
	x->stdin_fd = p[1];
	child[0] = p[0];
	(void)fcntl(p[1], F_SETFL, O_NONBLOCK);
	return 0;
}

static void fail_exec(struct serve *sv, struct serve_exec *x, const char *code, const char *what,
		      int r)
{
	if (r < 0)
		serve_send_error(sv, x->client, x->id, code, "%s: %s", what, strerror(-r));
	else
		serve_send_error(sv, x->client, x->id, code, "%s", what);
	serve_audit(sv, x, "error", NULL);
	serve_exec_free(sv, x);
}

static void close_pipes(struct serve_exec *x)
{
	for (int i = 0; i < 2; i++)
		if (x->out[i].fd >= 0)
			x->out[i].fd = (close(x->out[i].fd), -EBADF);
	if (x->stdin_fd >= 0)
		x->stdin_fd = (close(x->stdin_fd), -EBADF);
}

/* The command on a ready worker of the warm sandbox. */
static int start_warm(struct serve *sv, struct serve_exec *x, const int child[3])
{
	struct cr_exec_request req = {.argv = x->argv, .envp = x->envp, .cwd = x->cwd};

	memcpy(req.stdio, child, sizeof(req.stdio));
	sv->warm->events(x->session->w, &x->oom_kills, &x->pids_max);
	x->start_ms = cr_now_ms_f();
	return sv->warm->exec(x->session->w, &req, &x->e);
}

/* The command in a one-off sandbox with its request (serve-cold.c). */
static int start_cold(struct serve *sv, struct serve_exec *x, const int child[3])
{
	struct cr_policy p = {};
	char msg[1024] = "";
	int r;

	r = serve_cold_policy(sv, x, &p, msg, sizeof(msg));
	if (r < 0) {
		serve_send_error(sv, x->client, x->id, "sandbox_failed", "%s", msg);
		return r;
	}
	x->start_ms = cr_now_ms_f();
	r = serve_cold_start(sv, x, &p, child);
	p.argv = NULL; /* the exec's */
	cr_policy_done(&p);
	return r;
}

/* Hand @x to a ready worker (or a one-off sandbox), or queue it until a worker is ready. */
void serve_exec_start(struct serve *sv, struct serve_exec *x)
{
	int child[3] = {-EBADF, -EBADF, -EBADF};
	struct serve_session *s = x->session;
	int r;

	if (!s->w && !x->cold)
		return fail_exec(
			sv, x, "sandbox_lost",
			"the session's sandbox died and could not be rebuilt; close the session",
			0);
	if (!x->cold && sv->warm->ready(s->w) == 0) {
		x->state = SERVE_EXEC_QUEUED;
		return;
	}
	r = exec_pipes(sv, x, child);
	if (r >= 0 && !x->stdin_data)
		child[0] = sv->devnull_fd;
	if (r >= 0)
		r = x->cold ? start_cold(sv, x, child) : start_warm(sv, x, child);
	for (int i = 0; i < 3; i++)
		if (child[i] >= 0 && child[i] != sv->devnull_fd)
			(void)close(child[i]);
	if (r == -EAGAIN && !x->cold) { /* raced with the pool: wait for the next ready worker */
		close_pipes(x);
		x->state = SERVE_EXEC_QUEUED;
		return;
	}
	if (r < 0 && x->cold) { /* answered by start_cold() or here */
		serve_audit(sv, x, "error", NULL);
		return serve_exec_free(sv, x);
	}
	if (r < 0)
		return fail_exec(sv, x, "exec_failed", "cannot start the command", r);
	x->state = SERVE_EXEC_RUNNING;
	s->execs_total++;
	sv->execs_total++;
	if (x->timeout_ms && !x->cold) /* a one-off sandbox has the timeout in its policy */
		x->deadline_ms = x->start_ms + (double)x->timeout_ms;
	if (!x->stdin_len && x->stdin_fd >= 0)
		x->stdin_fd = (close(x->stdin_fd), -EBADF);
}

static void start_queued(struct serve *sv, struct serve_session *s)
{
	struct serve_exec *q[64];
	size_t n = 0;

	/* The list is newest first: start the oldest first. */
	for (struct serve_exec *x = sv->execs; x && n < ELEMENTSOF(q); x = x->next)
		if (x->session == s && x->state == SERVE_EXEC_QUEUED)
			q[n++] = x;
	while (n > 0 && s->w && sv->warm->ready(s->w) > 0)
		serve_exec_start(sv, q[--n]);
}

/* The sandbox died: its running commands died with it. They are answered with an error, and a
 * new sandbox is built from the same policy for the queued and later ones. */
static void session_lost(struct serve *sv, struct serve_session *s)
{
	char msg[1024] = "";

	cr_log_warning("serve: the sandbox of session %s is gone; replacing it", s->id);
	for (struct serve_exec *x = sv->execs, *next; x; x = next) {
		next = x->next;
		if (x->session == s && x->state == SERVE_EXEC_RUNNING)
			fail_exec(sv, x, "sandbox_lost", "the session's sandbox died", 0);
	}
	s->w = sv->warm->free(s->w);
	s->restarts++;
	if (session_start(sv, s, msg, sizeof(msg)) >= 0)
		return;
	cr_log_error("serve: session %s: %s", s->id, msg);
	for (struct serve_exec *x = sv->execs, *next; x; x = next) {
		next = x->next;
		if (x->session == s && x->state == SERVE_EXEC_QUEUED)
			serve_exec_start(sv, x); /* fails them: there is no sandbox */
	}
}

void serve_session_handle(struct serve *sv, struct serve_session *s)
{
	int r = sv->warm->handle(s->w);

	if (r == -EPIPE)
		session_lost(sv, s);
	else if (r < 0 && r != -EAGAIN)
		cr_debug("session %s: handle: %s", s->id, strerror(-r));
	start_queued(sv, s);
}

void serve_client_gone(struct serve *sv, uint64_t client)
{
	for (struct serve_exec *x = sv->execs, *next; x; x = next) {
		next = x->next;
		if (x->client == client)
			serve_exec_free(sv, x); /* kills what is left of the command */
	}
}

void serve_close_session(struct serve *sv, uint64_t client, struct cr_serve_request *req)
{
	struct serve_session *s = serve_session_find(sv, req->session);
	json_object *o;
	int r;

	if (!s)
		return serve_send_error(sv, client, req->id, "no_such_session",
					"no open session \"%s\"", req->session);
	for (struct serve_exec *x = sv->execs, *next; x; x = next) {
		next = x->next;
		if (x->session == s)
			fail_exec(sv, x, "session_closed", "the session was closed", 0);
	}
	for (struct serve_session **p = &sv->sessions; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			break;
		}
	session_free(sv, s);
	o = cr_serve_response("close_session_result", req->id);
	r = cr_json_add(o, "session", json_object_new_string(req->session));
	serve_send(sv, client, cr_json_whole(o, r));
}

void serve_shutdown(struct serve *sv)
{
	while (sv->execs)
		serve_exec_free(sv, sv->execs);
	while (sv->sessions) {
		struct serve_session *s = sv->sessions;

		sv->sessions = s->next;
		session_free(sv, s);
	}
}
