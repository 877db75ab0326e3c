/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "driver.h"
#include "exit-codes.h"
#include "log.h"
#include "macro.h"
#include "policy.h"
#include "run.h"
#include "status.h"

extern char **environ;

struct run_state {
	const struct cr_driver *drv;
	struct cr_run *run;
	struct cr_outcome outcome;
	bool have_outcome;
	bool timed_out;
	struct cr_setup_error error;
	bool have_error;
	double duration_ms;
};

static double now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
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
	start = now_ms();
	r = s->drv->spawn(s->run);
	if (r >= 0)
		r = supervise(s, p);
	else if (s->drv->wait(s->run, -1, &s->outcome) == 0)
		s->have_outcome = true; /* the backend knows more about the failure than -errno */
	s->duration_ms = now_ms() - start;
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
	if (s->timed_out)
		cr_log_error("timed out after %gs; the sandbox was stopped", p->timeout_ms / 1e3);
	else if (err && strcmp(err->stage, "exec") == 0)
		cr_log_error("%s", err->message);
	else if (err)
		cr_log_error("sandbox setup failed at stage '%s': %s", err->stage, err->message);
	if (!s->timed_out && s->have_outcome && s->outcome.oom_killed)
		cr_log_error("out of memory: the kernel's OOM killer killed a process of the sandbox (--memory); exit 137");
	if (s->have_outcome && s->outcome.pids_limit_hit)
		cr_log_warning("the sandbox reached its process limit (--pids): a fork failed");
}

static int write_status(const struct run_state *s, const struct cr_setup_error *err, int code,
			char *const *argv, int fd)
{
	json_object *enforced = NULL, *st;
	struct cr_status in = {
		.driver = s->drv->name,
		.argv = argv,
		.outcome = s->have_outcome ? &s->outcome : NULL,
		.error = err,
		.timed_out = s->timed_out,
		.exit_code = code,
		.duration_ms = s->duration_ms,
	};
	int r;

	if (s->run && (!err || strcmp(err->stage, "exec") == 0)) {
		enforced = json_object_new_object();
		if (enforced && s->drv->report(s->run, enforced) < 0)
			cr_log_warning("the enforcement report is incomplete");
		in.enforced = enforced;
	}
	st = cr_status_build(&in);
	r = st ? cr_status_write(st, fd) : -ENOMEM;
	json_object_put(st);
	json_object_put(enforced);
	if (r < 0)
		cr_log_errno(r, "cannot write the JSON status: %m");
	return r;
}

/* Options are fully checked (and the status destination opened) before anything starts. */
static int parse(int argc, char **argv, struct cr_run_options *o, struct cr_policy *p,
		 int *status_fd, bool *status_owned, struct run_state *s)
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
	if (o->json_status) {
		*status_fd = cr_status_open(o->json_status, status_owned, msg, sizeof(msg));
		if (*status_fd < 0) {
			cr_log_error("%s", msg);
			return *status_fd;
		}
		for (size_t i = 0; i < o->n_keep_fds; i++)
			if (o->keep_fds[i] == *status_fd) {
				(void)snprintf(msg, sizeof(msg),
					       "--keep-fd %d: that descriptor receives the JSON status",
					       *status_fd);
				r = -EINVAL;
			}
	}
	if (r >= 0)
		r = cr_policy_build(o, environ, geteuid() == 0, p, msg, sizeof(msg));
	if (r < 0) {
		cr_log_error("%s", msg);
		s->have_error = true;
		(void)snprintf(s->error.stage, sizeof(s->error.stage), "options");
		s->error.err = -r;
		(void)snprintf(s->error.message, sizeof(s->error.message), "%s", msg);
	}
	return r;
}

int cr_run_main(int argc, char **argv)
{
	struct cr_run_options opts = {};
	struct cr_policy policy = {};
	struct run_state s = { .drv = cr_driver_native() };
	const struct cr_setup_error *err;
	bool status_owned = false;
	int status_fd = -1, code, r;

	r = parse(argc, argv, &opts, &policy, &status_fd, &status_owned, &s);
	if (r >= 0 && opts.help) {
		fputs(cr_run_usage, stdout);
		cr_run_options_done(&opts);
		return 0;
	}
	if (r >= 0)
		(void)execute(&s, &policy);
	err = s.have_outcome && (s.outcome.kind == CR_OUTCOME_SETUP_FAILED ||
				 s.outcome.kind == CR_OUTCOME_EXEC_FAILED)
		      ? &s.outcome.error
	      : s.have_error ? &s.error
			     : NULL;
	code = s.have_outcome ? cr_exit_code(&s.outcome, s.timed_out)
	       : s.timed_out  ? CR_EXIT_TIMEOUT
			      : CR_EXIT_SETUP;
	if (r >= 0) /* option errors were reported as they were found */
		report(&s, err, &policy);
	if (status_fd >= 0)
		(void)write_status(&s, err, code, opts.argv, status_fd);
	if (status_owned)
		(void)close(status_fd);
	s.run = s.drv->run_free(s.run);
	cr_policy_done(&policy);
	cr_run_options_done(&opts);
	return code;
}
