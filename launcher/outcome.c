/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>

#include "launcher/base/exit-codes.h"
#include "launcher/base/json-util.h"
#include "outcome.h"

int cr_exit_code(const struct cr_outcome *o, bool timed_out)
{
	if (timed_out)
		return CR_EXIT_TIMEOUT;
	if (!o)
		return CR_EXIT_SETUP;
	if (o->oom_killed && (o->kind == CR_OUTCOME_EXITED || o->kind == CR_OUTCOME_SIGNALED))
		return CR_EXIT_OOM;
	switch (o->kind) {
	case CR_OUTCOME_EXITED:
		return o->status;
	case CR_OUTCOME_SIGNALED:
		return CR_EXIT_SIGNAL_BASE + o->status;
	case CR_OUTCOME_EXEC_FAILED:
		return o->error.err == ENOENT ? CR_EXIT_NOTFOUND : CR_EXIT_NOEXEC;
	case CR_OUTCOME_SETUP_FAILED:
	default:
		return CR_EXIT_SETUP;
	}
}

const char *cr_outcome_name(const struct cr_outcome *o, bool timed_out, bool denied)
{
	if (timed_out)
		return "timed_out";
	if (denied)
		return "denied";
	if (!o)
		return "setup_failed";
	switch (o->kind) {
	case CR_OUTCOME_EXITED:
		return "exited";
	case CR_OUTCOME_SIGNALED:
		return "signaled";
	case CR_OUTCOME_EXEC_FAILED:
		return "exec_failed";
	case CR_OUTCOME_SETUP_FAILED:
	default:
		return "setup_failed";
	}
}

static json_object *error_json(const struct cr_setup_error *e, const char *errno_name)
{
	json_object *o = json_object_new_object();
	int r;

	r = cr_json_add(o, "stage", json_object_new_string(e->stage));
	r = r ?: cr_json_add(o, "errno", json_object_new_int(e->err));
	r = r ?: cr_json_add_str(o, "errno_name", errno_name);
	r = r ?: cr_json_add(o, "message", json_object_new_string(e->message));
	return cr_json_whole(o, r);
}

int cr_outcome_status_json(json_object *o, const struct cr_outcome_status *s)
{
	const struct cr_outcome *out = s->outcome;
	int sig = out && out->kind == CR_OUTCOME_SIGNALED ? out->status : 0;
	char duration[32];
	int r;

	/* Microsecond resolution is what the clock gives; more digits would be noise. */
	(void)snprintf(duration, sizeof(duration), "%.3f", s->duration_ms);
	r = cr_json_add(o, "outcome",
			json_object_new_string(cr_outcome_name(out, s->timed_out, s->denied)));
	r = r ?: cr_json_add(o, "exit_code", json_object_new_int(s->exit_code));
	if (sig)
		r = r ?: cr_json_add(o, "signal", json_object_new_int(sig));
	else
		r = r ?: cr_json_add_null(o, "signal");
	r = r ?: cr_json_add_str(o, "signal_name", sig ? s->signal_name : NULL);
	r = r ?: cr_json_add(o, "timed_out", json_object_new_boolean(s->timed_out));
	r = r ?: cr_json_add(o, "oom_killed", json_object_new_boolean(out && out->oom_killed));
	r = r ?: cr_json_add(o, "pids_limit_hit",
			     json_object_new_boolean(out && out->pids_limit_hit));
	r = r ?: cr_json_add(o, "duration_ms", json_object_new_double_s(s->duration_ms, duration));
	/* The driver says so in its report; repeated here, where no reader can miss it. */
	r = r ?: cr_json_add(o, "degraded", json_object_new_boolean(s->degraded));
	if (s->enforced)
		r = r ?: cr_json_add(o, "enforced", json_object_get(s->enforced));
	else
		r = r ?: cr_json_add_null(o, "enforced");
	if (s->error)
		r = r ?: cr_json_add(o, "error", error_json(s->error, s->errno_name));
	else
		r = r ?: cr_json_add_null(o, "error");
	return r;
}
