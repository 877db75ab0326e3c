/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

#include "doctor.h"
#include "launcher/policy/policy-build.h"
#include "launcher/policy/request.h"
#include "launcher/driver.h"
#include "launcher/base/json-util.h"
#include "launcher/base/macro.h"
#include "launcher/policy/policy.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/log.h"
#include "run.h"
#include "launcher/session/state.h"
#include "launcher/status.h"

static const char *state_name(enum cr_check_state s)
{
	switch (s) {
	case CR_CHECK_OK:
		return "ok";
	case CR_CHECK_DEGRADED:
		return "degraded";
	case CR_CHECK_MISSING:
	default:
		return "missing";
	}
}

static json_object *check_json(const struct cr_check *c)
{
	json_object *j = json_object_new_object();
	int r;

	r = cr_json_add(j, "name", json_object_new_string(c->name));
	r = r ?: cr_json_add(j, "state", json_object_new_string(state_name(c->state)));
	r = r ?: cr_json_add(j, "required", json_object_new_boolean(c->required));
	r = r ?: cr_json_add(j, "value", json_object_new_string(c->value));
	r = r ?: cr_json_add(j, "detail", json_object_new_string(c->detail));
	r = r ?: cr_json_add_str(j, "fix", c->fix[0] ? c->fix : NULL);
	return cr_json_whole(j, r);
}

static json_object *checks_array(const struct cr_probe *p)
{
	json_object *a = json_object_new_array();
	int r = a ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < p->n_checks; i++)
		r = cr_json_append(a, check_json(&p->checks[i]));
	return cr_json_whole(a, r);
}

/* NULL on allocation failure: the report is whole or absent. */
static json_object *checks_json(const struct cr_probe *p, const char *driver, bool ready,
				const char *state_dir)
{
	json_object *o = json_object_new_object();
	int r;

	r = cr_json_add(o, "corral_version", json_object_new_string(CR_VERSION));
	r = r ?: cr_json_add(o, "driver", json_object_new_string(driver));
	r = r ?: cr_json_add(o, "ready", json_object_new_boolean(ready));
	r = r ?: cr_json_add_str(o, "state_dir", state_dir);
	r = r ?: cr_json_add(o, "checks", checks_array(p));
	return cr_json_whole(o, r);
}

/* Where sessions, grants, approvals and the ledger go (cr_state_locate()), as a check: ok from
 * XDG_STATE_HOME or HOME, degraded in the per-uid fallback, missing when that is refused. The
 * path itself (too long for a value) is in @ret_path. */
static void state_check(struct cr_probe *probe, char **ret_path)
{
	const char *source = NULL;
	char why[1024], text[PATH_MAX + 1200];
	struct cr_check *c;
	int r;

	if (probe->n_checks >= CR_PROBE_MAX_CHECKS)
		return;
	c = &probe->checks[probe->n_checks++];
	*c = (struct cr_check){ .state = CR_CHECK_MISSING };
	(void)strlcpy(c->name, "state_dir", sizeof(c->name));
	r = cr_state_locate(environ, ret_path, &source, why, sizeof(why));
	if (r < 0) {
		*ret_path = NULL;
		(void)strlcpy(c->value, "refused", sizeof(c->value));
		(void)strlcpy(c->detail, r == -ENOMEM ? "out of memory" : why, sizeof(c->detail));
		(void)strlcpy(c->fix, "set XDG_STATE_HOME to a directory you own", sizeof(c->fix));
		return;
	}
	c->state = strcmp(source, "fallback") == 0 ? CR_CHECK_DEGRADED : CR_CHECK_OK;
	(void)strlcpy(c->value, source, sizeof(c->value));
	(void)snprintf(text, sizeof(text), "sessions, grants and the ledger go to %s%s%s",
		       *ret_path, why[0] ? "; " : "", why);
	(void)strlcpy(c->detail, text, sizeof(c->detail)); /* a long reason is cut */
	if (c->state == CR_CHECK_DEGRADED)
		(void)snprintf(c->fix, sizeof(c->fix),
			       "set XDG_STATE_HOME, or HOME to a writable directory of your own, to keep state where cleaners of %s do not reach it",
			       CR_STATE_FALLBACK_BASE);
}

/* Start a real sandbox with the default policy and `true` in it: the probes say what the kernel
 * offers, this says whether corral can actually use it here. */
static void trial_run(const struct cr_driver *drv, struct cr_probe *probe)
{
	char tmpl[] = "/tmp/corral-doctor.XXXXXX", msg[512] = "";
	char *argv[] = { "true", NULL };
	struct cr_run_options o = {
		.argv = argv, .uid = CR_DEFAULT_SANDBOX_ID, .gid = CR_DEFAULT_SANDBOX_ID,
		.kill_after_ms = CR_DEFAULT_KILL_AFTER_MS,
	};
	struct cr_policy p = {};
	struct cr_setup_error err = {};
	struct cr_outcome out = {};
	struct cr_run *run = NULL;
	struct cr_check *c;
	enum cr_log_level level;
	int r;

	if (probe->n_checks >= CR_PROBE_MAX_CHECKS)
		return;
	c = &probe->checks[probe->n_checks++];
	*c = (struct cr_check){ .required = true, .state = CR_CHECK_MISSING };
	(void)strlcpy(c->name, "trial_run", sizeof(c->name));
	o.workspace = mkdtemp(tmpl);
	if (!o.workspace) {
		(void)snprintf(c->detail, sizeof(c->detail), "cannot make a workspace in /tmp: %m");
		return;
	}
	if (geteuid() == 0)
		(void)!chown(tmpl, CR_DEFAULT_SANDBOX_ID, CR_DEFAULT_SANDBOX_ID);
	/* The trial's warnings (a Landlock right this kernel lacks, say) are the probes' to report:
	 * the check says whether the run worked. */
	level = cr_log_get_level();
	cr_log_set_level(CR_LOG_ERR);
	r = cr_policy_build(&o, environ, geteuid() == 0, &p, msg, sizeof(msg));
	if (r >= 0)
		r = drv->prepare(&p, &run, &err);
	if (r >= 0)
		r = drv->spawn(run);
	if (run && drv->wait(run, 10000, &out) == 0 && out.kind == CR_OUTCOME_EXITED &&
	    out.status == 0) {
		c->state = CR_CHECK_OK;
		(void)strlcpy(c->value, "ok", sizeof(c->value));
		(void)snprintf(c->detail, sizeof(c->detail),
			       "a sandbox with the default policy ran 'true' and exited 0");
	} else {
		const struct cr_setup_error *e = out.error.stage[0] ? &out.error : &err;
		char text[1200];

		(void)strlcpy(c->value, "failed", sizeof(c->value));
		(void)snprintf(text, sizeof(text), "corral run -- true failed%s%s%s%s",
			       msg[0] || e->stage[0] ? ": " : "", msg[0] ? msg : e->stage,
			       e->message[0] ? ": " : "", e->message);
		(void)strlcpy(c->detail, text, sizeof(c->detail)); /* a long reason is cut */
		(void)snprintf(c->fix, sizeof(c->fix),
			       "see the failed checks above; 'corral run -v -- true' shows each setup step");
	}
	run = drv->run_free(run);
	cr_log_set_level(level);
	cr_policy_done(&p);
	(void)rmdir(tmpl);
}

int cr_doctor_main(int argc, char **argv)
{
	const struct cr_driver *drv = cr_driver_native();
	_cleanup_free_ char *state_dir = NULL;
	struct cr_probe probe;
	bool json = false, ready = true;
	int r;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs("Usage: corral doctor [--json]\n\n"
			      "Show what this host lets corral enforce and how to fix what is missing;\n"
			      "--json prints one JSON object instead (docs/json-status.md).\n"
			      "Exit status: 0 if corral run can work here, 1 if a required feature is missing,\n"
			      "125 on bad usage.\n",
			      stdout);
			return 0;
		} else {
			cr_log_error("doctor: unknown argument '%s' (usage: corral doctor [--json])",
				     argv[i]);
			return CR_EXIT_SETUP;
		}
	}
	r = drv->probe(&probe);
	if (r < 0)
		return cr_log_errno(r, "cannot probe the host: %m"), CR_EXIT_SETUP;
	state_check(&probe, &state_dir);
	trial_run(drv, &probe);
	for (size_t i = 0; i < probe.n_checks; i++)
		if (probe.checks[i].required && probe.checks[i].state == CR_CHECK_MISSING)
			ready = false;
	if (json) {
		json_object *o = checks_json(&probe, drv->name, ready, state_dir);

		r = o ? cr_status_write(o, 1) : -ENOMEM;
		json_object_put(o);
		return r < 0 ? CR_EXIT_SETUP : !ready;
	}
	printf("corral %s, driver %s: %s\n\n", CR_VERSION, drv->name,
	       ready ? "ready" : "NOT ready (a required feature is missing)");
	for (size_t i = 0; i < probe.n_checks; i++) {
		const struct cr_check *c = &probe.checks[i];

		printf("%-9s %-16s %s\n          %s\n", state_name(c->state), c->name, c->value,
		       c->detail);
		if (c->fix[0])
			printf("          fix: %s\n", c->fix);
	}
	return !ready;
}
