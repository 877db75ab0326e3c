/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <json-c/json.h>

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

json_object *cr_outcome_error_json(const struct cr_setup_error *e, const char *errno_name)
{
	json_object *o = json_object_new_object();
	int r;

	r = cr_json_add(o, "stage", json_object_new_string(e->stage));
	r = r ?: cr_json_add(o, "errno", json_object_new_int(e->err));
	r = r ?: cr_json_add_str(o, "errno_name", errno_name);
	r = r ?: cr_json_add(o, "message", json_object_new_string(e->message));
	return cr_json_whole(o, r);
}
