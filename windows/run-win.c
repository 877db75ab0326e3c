/* SPDX-License-Identifier: MIT */
/* `corral run --backend windows`: the policy from the options, the windows driver's prepare,
 * spawn, wait (with --timeout: a polite stop, then a forced one) and report, the JSON status. */
#include <windows.h> /* first: the other Win32 headers need it */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "cli-win.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/log.h"
#include "launcher/outcome.h"
#include "token.h"
#include "win-macro.h"

static double now_ms(void)
{
	LARGE_INTEGER t, f;

	(void)QueryPerformanceCounter(&t);
	(void)QueryPerformanceFrequency(&f);
	return (double)t.QuadPart * 1000.0 / (double)f.QuadPart;
}

/* Wait for the run; when --timeout expires, stop it politely, then by force. */
static int wait_run(const struct cr_driver *d, struct cr_run *run, const struct cr_policy *p,
		    struct cr_outcome *out, bool *timed_out)
{
	int r = d->wait(run, p->timeout_ms ? (int64_t)p->timeout_ms : -1, out);

	if (r != -ETIMEDOUT)
		return r;
	*timed_out = true;
	cr_log_info("--timeout expired: stopping the sandbox");
	if (d->stop(run, false) >= 0) {
		r = d->wait(run, (int64_t)p->kill_after_ms, out);
		if (r != -ETIMEDOUT)
			return r;
	}
	r = d->stop(run, true);
	return r < 0 ? r : d->wait(run, -1, out);
}

struct run_state {
	struct cr_policy policy;
	struct cr_setup_error error;
	struct cr_outcome outcome;
	bool have_outcome, timed_out;
	json_object *enforced;
	double duration_ms;
};

static int execute(const struct cr_win_run_options *o, char **env, struct run_state *s)
{
	const struct cr_driver *d = cr_driver_native();
	struct cr_run *run = NULL;
	double t0;
	int r;

	r = cr_win_policy_build(o, env, &s->policy, s->error.message, sizeof(s->error.message));
	if (r < 0) {
		(void)snprintf(s->error.stage, sizeof(s->error.stage), "options");
		s->error.err = -r;
		return r;
	}
	r = d->prepare(&s->policy, &run, &s->error);
	if (r < 0) {
		if (!s->error.stage[0])
			(void)snprintf(s->error.stage, sizeof(s->error.stage), "prepare");
		s->error.err = -r;
		return r;
	}
	t0 = now_ms();
	(void)d->spawn(run); /* a failure is in the outcome wait() gives */
	r = wait_run(d, run, &s->policy, &s->outcome, &s->timed_out);
	s->duration_ms = now_ms() - t0;
	if (r < 0) {
		(void)snprintf(s->error.stage, sizeof(s->error.stage), "wait");
		(void)snprintf(s->error.message, sizeof(s->error.message),
			       "waiting for the command failed: %s", strerror(-r));
		s->error.err = -r;
		run = d->run_free(run);
		return r;
	}
	s->have_outcome = true;
	if (s->outcome.kind != CR_OUTCOME_SETUP_FAILED) {
		s->enforced = json_object_new_object();
		if (s->enforced && d->report(run, s->enforced) < 0) /* as Linux's corral run says */
			cr_log_warning("the enforcement report is incomplete");
	}
	run = d->run_free(run);
	return 0;
}

/* A corral killed during its run left its workspace labelled Low: put such labels back first
 * (their journal, windows/token.c), and say so. */
static void recover_labels(void)
{
	char first[MAX_PATH * 3];
	unsigned failed, refused;
	int n = cr_win_label_recover(first, sizeof(first), &failed, &refused);

	if (n == 1)
		cr_log_warning("restored the integrity label of %s, which a corral killed during its run had left Low",
			       first);
	else if (n > 1)
		cr_log_warning("restored the integrity labels of %s and %d other directories, which corrals killed during their runs had left Low",
			       first, n - 1);
	if (refused)
		cr_log_warning("dropped %u label journal records that would have lowered a directory below Medium integrity (corral never records such a label; a Low process may have written them)",
			       refused);
	if (failed)
		cr_log_warning("%u integrity labels left by killed corrals could not be restored yet (kept in %%LOCALAPPDATA%%\\corral\\labels; the next run tries again)",
			       failed);
}

int cr_win_run_windows(const struct cr_win_run_options *o)
{
	struct run_state s = {0};
	char **env = NULL;
	json_object *st;
	int r, code;

	if (o->json_status && cr_win_status_check(o->json_status) < 0) {
		cr_log_error("--json-status '%s': cannot be written", o->json_status);
		return CR_EXIT_SETUP;
	}
	r = cr_win_environ(&env);
	if (r < 0)
		return cr_log_errno(r, "cannot read the environment"), CR_EXIT_SETUP;
	recover_labels();
	(void)execute(o, env, &s);
	if (!s.have_outcome)
		cr_log_error("%s: %s", s.error.stage, s.error.message);
	else if (s.outcome.kind == CR_OUTCOME_SETUP_FAILED ||
		 s.outcome.kind == CR_OUTCOME_EXEC_FAILED)
		cr_log_error("%s: %s", s.outcome.error.stage, s.outcome.error.message);
	if (s.have_outcome && s.outcome.oom_killed)
		cr_log_error("the job's memory limit (--memory) ended the command");
	code = cr_exit_code(s.have_outcome ? &s.outcome : NULL, s.timed_out);
	st = cr_win_status_build(&(struct cr_win_status){
		.driver = "windows",
		.argv = o->argv,
		.outcome = s.have_outcome ? &s.outcome : NULL,
		.error = s.have_outcome ? NULL : &s.error,
		.timed_out = s.timed_out,
		.duration_ms = s.duration_ms,
		.enforced = s.enforced,
	});
	if (o->json_status && cr_win_status_write(st, o->json_status) < 0)
		cr_log_error("--json-status '%s': cannot be written", o->json_status);
	json_object_put(st);
	json_object_put(s.enforced);
	cr_win_policy_done(&s.policy);
	for (size_t i = 0; env[i]; i++)
		free(env[i]);
	free(env);
	return code;
}
