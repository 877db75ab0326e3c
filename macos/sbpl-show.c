/* SPDX-License-Identifier: MIT */
/* The macos driver's profile for a corral profile, printed for review on any host. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "launcher/policy/policy-build.h"
#include "launcher/policy/request.h"
#include "launcher/base/json-text.h"
#include "launcher/base/json-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/policy/policy.h"
#include "launcher/policy/profile.h"
#include "sbpl.h"

/* Where the driver makes the run's private directory: $(getconf DARWIN_USER_TEMP_DIR) plus a
 * unique name; shown as a placeholder, since it only exists during a run on a Mac. */
#define TMPDIR_PLACEHOLDER "/private/var/folders/XX/T/corral-run.XXXXXX"

static int print_json(const struct cr_sbpl *s)
{
	json_object *o = json_object_new_object(), *params = json_object_new_object();
	int r = 0;

	for (size_t i = 0; r == 0 && i < s->n_params; i++) {
		const char *eq = strchr(s->params[i], '=');
		char name[64];

		(void)snprintf(name, sizeof(name), "%.*s", (int)(eq - s->params[i]), s->params[i]);
		r = cr_json_add(params, name, json_object_new_string(eq + 1));
	}
	params = cr_json_whole(params, r);
	r = cr_json_add(o, "backend", json_object_new_string("macos"));
	r = r ?: cr_json_add(o, "profile", json_object_new_string(s->profile));
	if (r < 0)
		json_object_put(params);
	r = r ?: cr_json_add(o, "params", params);
	if (r == 0)
		r = cr_json_puts(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, stdout);
	json_object_put(o);
	return r;
}

int cr_sbpl_show(const struct cr_profile *prof, const char *workspace, char *const *env,
		 bool json, char *msg, size_t size)
{
	static const char *const none[] = { NULL };
	char *argv[] = { "true", NULL };
	struct cr_run_options o = {
		.workspace = workspace,
		.argv = argv,
		.uid = CR_DEFAULT_SANDBOX_ID,
		.gid = CR_DEFAULT_SANDBOX_ID,
		.kill_after_ms = CR_DEFAULT_KILL_AFTER_MS,
	};
	struct cr_policy_input in = {
		.opts = &o, .profile = prof, .system_paths = none, .host_env = env,
	};
	struct cr_policy p;
	struct cr_sbpl s;
	int r;

	r = cr_policy_build_from(&in, &p, NULL, NULL, msg, size);
	if (r < 0)
		return r;
	r = cr_sbpl_from_policy(&p, TMPDIR_PLACEHOLDER, false, &s, msg, size);
	cr_policy_done(&p);
	if (r < 0)
		return r;
	if (json) {
		r = print_json(&s);
	} else {
		printf(";; corral profile '%s' for the macos driver: sandbox-exec -p PROFILE -D NAME=VALUE ...\n",
		       prof->name);
		printf(";; parameters (TMPDIR is made for each run):\n");
		for (size_t i = 0; i < s.n_params; i++)
			printf(";;   %s\n", s.params[i]);
		fputs(s.profile, stdout);
	}
	cr_sbpl_done(&s);
	return r;
}
