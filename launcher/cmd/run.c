/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launcher/base/time-util.h"
#include "launcher/policy/policy-build.h"
#include "launcher/policy/anchor.h"
#include "launcher/policy/cli.h"
#include "launcher/driver.h"
#include "launcher/base/exit-codes.h"
#include "launcher/session/caches.h"
#include "launcher/session/gate.h"
#include "launcher/base/json-text.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/parse-util.h"
#include "launcher/base/path-util.h"
#include "launcher/base/stamp.h"
#include "launcher/policy/policy.h"
#include "launcher/pool/pool.h"
#include "run.h"
#include "launcher/status.h"

extern char **environ;

struct run_state {
	const struct cr_driver *drv;
	struct cr_gate gate;
	bool gate_open;
	struct cr_run *run;
	struct cr_outcome outcome;
	bool have_outcome;
	bool timed_out;
	struct cr_setup_error error;
	bool have_error;
	double duration_ms;
	json_object *enforced; /* the driver's report, made while the sandbox built itself */
	json_object *pool_enforced; /* the run went through the pool: its sandbox's report */
	const char *via;	    /* "pool" or "cold" */
	char pool_note[512];	    /* why a run with a pool went cold */
	int pool_fd;		    /* the connection to the pool, made before the policy */
	char pool_absent[512];	    /* or why there is none */
};

/* What the sandbox enforces, for the status. Nothing in it depends on how the run ends, but
 * for the allow_hosts proxy's connection counts. NULL when out of memory. */
static json_object *enforced_object(const struct run_state *s)
{
	json_object *enforced = json_object_new_object();

	if (enforced && s->drv->report(s->run, enforced) < 0)
		cr_log_warning("the enforcement report is incomplete");
	return enforced;
}

/* Wait for the sandbox; on timeout stop it politely, then by force after the grace period. */
static int supervise(struct run_state *s, const struct cr_policy *p)
{
	int r;

	r = s->drv->wait(s->run, p->timeout_ms ? (int64_t)p->timeout_ms : -1, &s->outcome);
	if (r != -ETIMEDOUT)
		goto done;
	s->timed_out = true;
	cr_debug("timeout after %llu ms; sending SIGTERM", (unsigned long long)p->timeout_ms);
	(void)s->drv->stop(s->run, false);
	r = s->drv->wait(s->run, (int64_t)p->kill_after_ms, &s->outcome);
	if (r != -ETIMEDOUT)
		goto done;
	cr_debug("still running %llu ms later; killing", (unsigned long long)p->kill_after_ms);
	(void)s->drv->stop(s->run, true);
	r = s->drv->wait(s->run, -1, &s->outcome);
done:
	if (r == 0)
		s->have_outcome = true;
	/* corral was stopped past the deadline, which the sandbox kept */
	if (r == 0 && s->outcome.timed_out)
		s->timed_out = true;
	return r;
}

static int execute(struct run_state *s, const struct cr_policy *p)
{
	double start;
	int r;

	r = s->drv->prepare(p, &s->run, &s->error);
	if (r < 0) {
		s->have_error = true;
		if (!s->error.message[0])
			(void)snprintf(s->error.message, sizeof(s->error.message),
				       "cannot prepare the sandbox: %s", strerror(-r));
		if (!s->error.stage[0])
			(void)snprintf(s->error.stage, sizeof(s->error.stage), "prepare");
		s->error.err = s->error.err ?: -r;
		return r;
	}
	start = cr_now_ms_f();
	r = s->drv->spawn(s->run);
	cr_stamp("spawn");
	if (r >= 0) {
		/* While pid 1 builds the sandbox, which the launcher would wait for idle: the
		 * status's enforcement report, and the time zone the ledger's line is written in.
		 * Not with allow_hosts: the proxy's counts in the report grow as the command runs. */
		if (p->net != CR_NET_HOSTS)
			s->enforced = enforced_object(s);
		tzset();
		cr_stamp("prebuild");
		r = supervise(s, p);
	}
	else if (s->drv->wait(s->run, -1, &s->outcome) == 0)
		s->have_outcome = true; /* the backend knows more about the failure than -errno */
	cr_stamp("wait");
	s->duration_ms = cr_now_ms_f() - start;
	if (r < 0 && !s->have_outcome) {
		s->have_error = true;
		(void)snprintf(s->error.stage, sizeof(s->error.stage), "spawn");
		s->error.err = -r;
		(void)snprintf(s->error.message, sizeof(s->error.message),
			       "cannot start the sandbox: %s", strerror(-r));
	}
	return r;
}

static void report(const struct run_state *s, const struct cr_setup_error *err,
		   const struct cr_policy *p)
{
	char t[32];

	cr_format_seconds(p->timeout_ms, t, sizeof(t));
	if (s->timed_out)
		cr_log_error("timed out after %ss; the sandbox was stopped", t);
	else if (err && strcmp(err->stage, "exec") == 0)
		cr_log_error("%s", err->message);
	else if (err)
		cr_log_error("sandbox setup failed at stage '%s': %s", err->stage, err->message);
	if (!s->timed_out && s->have_outcome && s->outcome.oom_killed)
		cr_log_error("out of memory: the kernel's OOM killer killed a process of the sandbox (--memory); exit 137");
	if (s->have_outcome && s->outcome.pids_limit_hit)
		cr_log_warning("the sandbox reached its process limit (--pids): a fork failed");
}

static json_object *status_object(const struct run_state *s, const struct cr_setup_error *err,
				  int code, char *const *argv, bool denied)
{
	json_object *enforced = NULL, *st;
	struct cr_status in = {
		.driver = s->drv->name,
		.argv = argv,
		.outcome = s->have_outcome ? &s->outcome : NULL,
		.error = err,
		.timed_out = s->timed_out,
		.denied = denied,
		.exit_code = code,
		.duration_ms = s->duration_ms,
	};

	if (s->pool_enforced)
		in.enforced = json_object_get(s->pool_enforced);
	else if (s->run && (!err || strcmp(err->stage, "exec") == 0)) {
		enforced = s->enforced ? json_object_get(s->enforced) : enforced_object(s);
		in.enforced = enforced;
	}
	st = cr_status_build(&in);
	json_object_put(in.enforced);
	if (st && s->gate_open && cr_gate_status(&s->gate, st) < 0) {
		json_object_put(st);
		st = NULL;
	}
	if (st && s->via && cr_pool_status(st, s->via, s->pool_note) < 0) {
		json_object_put(st);
		st = NULL;
	}
	return st;
}

/* The JSON status to @dest (if any; it replaces the "started" record) and the ledger line. A
 * ledger that cannot take the line is reported: the run happened, but its record is missing. */
static void finish(struct run_state *s, const struct cr_setup_error *err, int code,
		   char *const *argv, bool denied, struct cr_status_dest *dest)
{
	json_object *st = status_object(s, err, code, argv, denied);
	char msg[512];
	int r;

	if (!st) {
		cr_log_error("out of memory while writing the JSON status");
		return;
	}
	if (dest) {
		r = cr_status_put(dest, st);
		if (r < 0)
			cr_log_errno(r, "cannot write the JSON status: %m");
	}
	if (s->gate_open && cr_gate_audit(&s->gate, argv, st, msg, sizeof(msg)) < 0)
		cr_log_error("%s", msg);
	json_object_put(st);
}

static void record_error(struct run_state *s, const char *stage, int r, const char *msg)
{
	s->have_error = true;
	(void)snprintf(s->error.stage, sizeof(s->error.stage), "%s", stage);
	s->error.err = -r;
	(void)snprintf(s->error.message, sizeof(s->error.message), "%s", msg);
}

/* Root's sandbox runs as p->uid, which must own the session's workspace to write it. */
static int hand_over_workspace(const struct cr_policy *p, char *msg, size_t size)
{
	_cleanup_close_ int fd = open(p->workspace, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 ||
	    ((st.st_uid != p->uid || st.st_gid != p->gid) && fchown(fd, p->uid, p->gid) < 0)) {
		(void)snprintf(msg, size, "cannot give the session's workspace %s to uid %u: %m",
			       p->workspace, p->uid);
		return negative_errno();
	}
	return 0;
}

/* corral's own files (anchor.h) out of the command's reach: its profiles, the state directory
 * (sessions, grants, the ledger) and the ledger, also when no session needs the state now. */
static int guard_own_files(struct cr_policy *p, const struct cr_run_options *o,
			   const struct cr_gate *g, char *msg, size_t size)
{
	_cleanup_free_ char *state = NULL;
	struct cr_anchor_sources src = {
		.dirs = &g->dirs,
		.profile = o->profile,
		.seccomp_profile = o->seccomp_profile,
		.state_dir = g->state_dir,
		.audit_path = g->audit_path,
		.env = environ,
	};
	struct cr_anchors anchors = {};
	int r;

	if (!g->state_dir && cr_state_dir(environ, &state) == 0)
		src.state_dir = state;
	r = cr_anchors_collect(&src, &anchors);
	if (r < 0)
		return cr_msg(msg, size, r, "out of memory");
	r = cr_policy_guard(p, &anchors, g->have_session ? g->session.workspace : NULL, msg, size);
	cr_anchors_done(&anchors);
	/* The caches live in the state directory, out of the guard's writable paths: the sandbox
	 * gets each one's own directory, at the cache's path, and nothing around it. */
	if (r >= 0)
		r = cr_caches_attach(p, src.state_dir, msg, size);
	return r;
}

/* The profile, the session, the ledger, then the policy on top of the profile, and the
 * decision on what the options ask for beyond it. */
static int build(struct cr_run_options *o, struct cr_policy *p, struct run_state *s)
{
	struct cr_policy_input in = {
		.opts = o,
		.system_paths = s->drv->system_paths,
		.host_env = environ,
		.is_root = geteuid() == 0,
	};
	char msg[1024] = "";
	int r;

	r = cr_gate_open(&s->gate, o, environ, msg, sizeof(msg));
	s->gate_open = true;
	cr_stamp("gate_open");
	if (r < 0) {
		cr_log_error("%s", msg);
		record_error(s, "policy", r, msg);
		return r;
	}
	in.profile = &s->gate.profile;
	in.session_workspace = s->gate.have_session && !o->workspace ? s->gate.session.workspace
								      : NULL;
	r = cr_policy_build_from(&in, p, &s->gate.request, &s->gate.baseline, msg, sizeof(msg));
	if (r >= 0 && in.session_workspace && in.is_root)
		r = hand_over_workspace(p, msg, sizeof(msg));
	if (r >= 0)
		r = guard_own_files(p, o, &s->gate, msg, sizeof(msg));
	cr_stamp("policy");
	if (r >= 0)
		r = cr_gate_decide(&s->gate, o, msg, sizeof(msg));
	cr_stamp("decide");
	if (r < 0) {
		cr_log_error("%s", msg);
		record_error(s, "options", r, msg);
	}
	return r;
}

/* --pool, else CORRAL_POOL: an option error like any other. */
static int pool_mode(const struct cr_run_options *o, enum cr_pool_mode *ret)
{
	char msg[256];
	int r = cr_pool_mode_resolve(o->pool, environ, ret, msg, sizeof(msg));

	if (r < 0)
		cr_log_error("%s", msg);
	return r;
}

/* Through a pre-built sandbox of `corral pool` (launcher/pool/), when one runs and can serve
 * the policy; true when it ran there (or failed for good: --pool=require, a pool that died). */
static bool via_pool(struct run_state *s, enum cr_pool_mode mode, const struct cr_policy *p,
		     int argc, char **argv)
{
	struct cr_pool_call call = { .fd = TAKE_FD(s->pool_fd), .policy = p, .argc = argc,
				     .argv = argv, .env = environ };
	struct cr_pool_result res = {};
	int r;

	s->via = "cold";
	if (mode == CR_POOL_NEVER)
		return false;
	if (call.fd < 0) {
		/* another user's socket at our path is a fallback to report, not the absence */
		r = call.fd == -EPERM ? -EPERM : -ENOENT;
		(void)snprintf(res.reason, sizeof(res.reason), "%s", s->pool_absent);
	} else
		r = cr_pool_run(&call, &res);
	if (r == 0) {
		s->via = "pool";
		s->outcome = res.outcome;
		s->have_outcome = true;
		s->timed_out = res.timed_out;
		s->duration_ms = res.duration_ms;
		s->pool_enforced = res.enforced;
		return true;
	}
	/* No pool at all is the usual way, not a fallback: said with -v only. */
	if (r != -ENOENT || mode == CR_POOL_REQUIRE)
		(void)snprintf(s->pool_note, sizeof(s->pool_note), "%s", res.reason);
	if (r == -EPIPE || mode == CR_POOL_REQUIRE) {
		cr_log_error("pool: %s", res.reason);
		record_error(s, "pool", r == -EPIPE ? r : -ENOENT, res.reason);
		return true;
	}
	/* Cold is the same sandbox, only slower: the status says why (pool_fallback), stderr
	 * only with -v, so that a running pool adds no line to runs it cannot serve. */
	cr_debug("pool: %s; running cold", res.reason);
	return false;
}

/* A refused run: one human line and one JSON line on stderr, for the agent and its user. */
static void deny(struct run_state *s)
{
	char text[1536];
	json_object *d = cr_gate_denial(&s->gate, text, sizeof(text));

	cr_log_error("%s", text);
	if (d)
		(void)cr_json_puts(d, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, stderr);
	json_object_put(d);
}

/* The "started" record, first: a status that stays "started" means corral died (SIGKILL) before
 * it could write the final one. Where no file can be made beside a destination that exists, the
 * final record alone is written in place, and the user is told. */
static int start_status(const struct cr_run_options *o, struct cr_status_dest *d)
{
	json_object *st;
	char msg[512] = "";
	int r;

	if (!cr_status_replaces(d))
		return 0;
	st = cr_status_build_started(cr_driver_native()->name, o->argv, (int)getpid());
	r = st ? cr_status_put(d, st) : -ENOMEM;
	json_object_put(st);
	if (r >= 0)
		return 0;
	if (access(o->json_status, F_OK) < 0) {
		cr_log_error("--json-status '%s': %s", o->json_status, strerror(-r));
		cr_status_close(d); /* nothing more goes there */
		return r;
	}
	cr_log_warning("--json-status %s: cannot replace it (%s): the final record alone is written in place, with no \"started\" record before it",
		       o->json_status, strerror(-r));
	r = cr_status_open_in_place(o->json_status, d, msg, sizeof(msg));
	if (r < 0)
		cr_log_error("%s", msg);
	return r;
}

/* Options are fully checked (and the status destination opened) before anything starts. */
static int parse(int argc, char **argv, struct cr_run_options *o, struct cr_status_dest *d)
{
	char msg[512] = "";
	int r;

	r = cr_cli_parse_run(argc, argv, o, msg, sizeof(msg));
	if (r < 0) {
		cr_log_error("%s", msg);
		return r;
	}
	if (o->help)
		return 0;
	cr_log_set_level(o->verbose > 0 ? CR_LOG_DEBUG : CR_LOG_WARNING);
	if (!o->json_status)
		return 0;
	r = cr_status_open(o->json_status, d, msg, sizeof(msg));
	if (r < 0) {
		cr_log_error("%s", msg);
		return r;
	}
	for (size_t i = 0; d->fd >= 0 && i < o->n_keep_fds; i++)
		if (o->keep_fds[i] == d->fd) {
			cr_log_error("--keep-fd %d: that descriptor receives the JSON status", d->fd);
			return -EINVAL;
		}
	return start_status(o, d);
}

int cr_run_main(int argc, char **argv)
{
	struct cr_run_options opts = {};
	struct cr_policy policy = {};
	struct run_state s = { .drv = cr_driver_native(), .pool_fd = -EBADF };
	const struct cr_setup_error *err;
	struct cr_status_dest dest = CR_STATUS_DEST_INIT;
	enum cr_pool_mode pool = CR_POOL_AUTO;
	bool denied = false, have_dest;
	int code, r;

	cr_stamp_init();
	cr_stamp("main");
	r = parse(argc, argv, &opts, &dest);
	cr_stamp("parse");
	if (r >= 0 && !opts.help)
		r = pool_mode(&opts, &pool);
	have_dest = dest.fd >= 0 || cr_status_replaces(&dest);
	if (r >= 0 && opts.help) {
		fputs(cr_run_usage, stdout);
		cr_run_options_done(&opts);
		return 0;
	}
	if (r < 0 && have_dest)
		record_error(&s, "options", r, "invalid options (see the message on stderr)");
	/* The pool checks who connects while the policy is built. */
	if (r >= 0 && pool != CR_POOL_NEVER)
		s.pool_fd = cr_pool_connect(environ, s.pool_absent, sizeof(s.pool_absent));
	if (r >= 0)
		r = build(&opts, &policy, &s);
	denied = r >= 0 && s.gate.decision == CR_DECISION_DENIED;
	if (denied)
		deny(&s);
	else if (r >= 0 && !via_pool(&s, pool, &policy, argc, argv))
		(void)execute(&s, &policy);
	err = s.have_outcome && (s.outcome.kind == CR_OUTCOME_SETUP_FAILED ||
				 s.outcome.kind == CR_OUTCOME_EXEC_FAILED)
		      ? &s.outcome.error
	      : s.have_error ? &s.error
			     : NULL;
	code = denied		? CR_EXIT_DENIED
	       : s.have_outcome ? cr_exit_code(&s.outcome, s.timed_out)
	       : s.timed_out	? CR_EXIT_TIMEOUT
				: CR_EXIT_SETUP;
	if (r >= 0 && !denied) /* option errors were reported as they were found */
		report(&s, err, &policy);
	if (have_dest || s.gate_open)
		finish(&s, err, code, opts.argv, denied, have_dest ? &dest : NULL);
	cr_status_close(&dest);
	cr_stamp("status");
	s.run = s.drv->run_free(s.run);
	cr_stamp("run_free");
	json_object_put(s.enforced);
	json_object_put(s.pool_enforced);
	closep(&s.pool_fd);
	if (s.gate_open)
		cr_gate_done(&s.gate);
	cr_policy_done(&policy);
	cr_run_options_done(&opts);
	return code;
}
