/* SPDX-License-Identifier: MIT */
#include <errno.h>

#include "launcher/base/exit-codes.h"
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
