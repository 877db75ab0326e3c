/* SPDX-License-Identifier: MIT */
/* The policy gate of `corral run`: the profile that gives the baseline, the session and its
 * grants, the decision on the run's request, and the audit ledger line. Everything here happens
 * once in the launcher, before the sandbox exists or after it is gone. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "launcher/policy/capability.h"
#include "launcher/policy/request.h"
#include "launcher/policy/profile.h"
#include "session.h"

struct json_object;

enum cr_decision {
	CR_DECISION_ALLOWED, /* within the profile */
	CR_DECISION_GRANTED, /* beyond it, with a grant (once, session, or one given earlier) */
	CR_DECISION_DENIED,
	_CR_DECISION_MAX,
};

struct cr_gate {
	struct cr_profile_dirs dirs;
	struct cr_profile profile;
	char *state_dir; /* NULL when neither a session nor the default ledger needs it */
	char *state_skipped; /* why the places before state_dir were skipped; NULL: none was */
	struct cr_session session;
	bool have_session;
	struct cr_capability request, baseline;
	struct cr_capability excess; /* what the request needs beyond the baseline and grants */
	enum cr_decision decision;
	const char *grant;	 /* "once", "session", "cached", or NULL */
	int audit_fd;		 /* -EBADF with --no-audit */
	char *audit_path;
};

/* Load the profile, open the session (creating it on first use) and the audit ledger, from the
 * options and the environment. 0 or -errno with @msg; the gate must be freed either way. */
int cr_gate_open(struct cr_gate *g, const struct cr_run_options *o, char *const *env, char *msg,
		 size_t size);

/* Decide on g->request against g->baseline (both filled by cr_policy_build_from()), the
 * session's grants and --grant; store a session grant. 0 (see g->decision) or -errno with @msg
 * (a grant that cannot be stored, a store that does not parse). */
int cr_gate_decide(struct cr_gate *g, const struct cr_run_options *o, char *msg, size_t size);

/* The denial: {"denied": "capability", "needs": {...}, "baseline": PROFILE, "session": ID|null,
 * "message": TEXT}. A one-line human text goes to @text. NULL on allocation failure. */
struct json_object *cr_gate_denial(const struct cr_gate *g, char *text, size_t size);

/* Add "profile", "session", "decision", "grant" and "request" (and "denied" when denied) to the
 * JSON status @st. 0 or -ENOMEM. */
int cr_gate_status(const struct cr_gate *g, struct json_object *st);

/* Append the ledger line for the run whose JSON status is @st. 0 (also with --no-audit) or
 * -errno with @msg. */
int cr_gate_audit(const struct cr_gate *g, char *const *argv, struct json_object *st, char *msg,
		  size_t size);

void cr_gate_done(struct cr_gate *g);
