/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "gate.h"
#include "state.h"
#include "launcher/base/json-util.h"
#include "launcher/base/log.h"
#include "launcher/base/parse-util.h"
#include "launcher/base/macro.h"

static const char *const decision_names[_CR_DECISION_MAX] = {
	[CR_DECISION_ALLOWED] = "allowed",
	[CR_DECISION_GRANTED] = "granted",
	[CR_DECISION_DENIED] = "denied",
};

/* The state directory is needed for a session and for the default ledger only. A place skipped
 * on the way (another user's HOME, a read-only one) is warned about. */
static int open_state(struct cr_gate *g, const struct cr_run_options *o, char *const *env,
		      char *msg, size_t size)
{
	if (!o->session && (o->no_audit || o->audit))
		return 0;
	return cr_state_dir_warn(env, &g->state_dir, &g->state_skipped, msg, size);
}

static int open_audit(struct cr_gate *g, const struct cr_run_options *o, char *msg, size_t size)
{
	char inner[512] = "";
	int fd;

	if (o->no_audit)
		return 0;
	if (o->audit)
		g->audit_path = strdup(o->audit);
	else if (asprintf(&g->audit_path, "%s/" CR_AUDIT_FILE, g->state_dir) < 0)
		g->audit_path = NULL;
	if (!g->audit_path)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	fd = cr_audit_open(g->audit_path, !o->audit, inner, sizeof(inner));
	if (fd < 0)
		return cr_msg(msg, size, fd, "%s (nothing was run; --no-audit runs without the ledger)",
			    inner);
	g->audit_fd = fd;
	return 0;
}

int cr_gate_open(struct cr_gate *g, const struct cr_run_options *o, char *const *env, char *msg,
		 size_t size)
{
	int r;

	*g = (struct cr_gate){ .audit_fd = -EBADF };
	r = cr_profile_dirs_from_env(env, &g->dirs);
	if (r < 0)
		return cr_msg(msg, size, r, "out of memory");
	g->dirs.lenient = !o->profile;
	r = cr_profile_load(o->profile ?: CR_DEFAULT_PROFILE, &g->dirs, &g->profile, msg, size);
	if (r >= 0 && g->dirs.skipped)
		cr_log_warning("skipped the profile directory %s; using profile '%s' (%s)",
			       g->dirs.skipped, g->profile.name, g->profile.source);
	if (r >= 0)
		r = open_state(g, o, env, msg, size);
	if (r >= 0 && o->session) {
		r = cr_session_open(g->state_dir, o->session, g->profile.name, true, &g->session,
				    msg, size);
		g->have_session = r >= 0;
	}
	if (r >= 0)
		r = open_audit(g, o, msg, size);
	return r;
}

/* The request within the baseline joined with every grant of the session? */
static int within_session_grants(struct cr_gate *g, bool *ret, char *msg, size_t size)
{
	struct cr_capability grants = {}, joined = {};
	int r;

	*ret = false;
	if (!g->have_session)
		return 0;
	r = cr_session_grants(&g->session, &grants, msg, size);
	if (r < 0)
		return r;
	r = cr_capability_join(&g->baseline, &grants, &joined);
	cr_capability_done(&grants);
	if (r < 0)
		return cr_msg(msg, size, r, "out of memory");
	*ret = cr_capability_is_within(&g->request, &joined);
	if (!*ret) { /* what is still missing, for the denial */
		cr_capability_done(&g->excess);
		r = cr_capability_excess(&g->request, &joined, &g->excess);
	}
	cr_capability_done(&joined);
	return r < 0 ? cr_msg(msg, size, r, "out of memory") : 0;
}

int cr_gate_decide(struct cr_gate *g, const struct cr_run_options *o, char *msg, size_t size)
{
	bool cached;
	int r;

	if (cr_capability_is_within(&g->request, &g->baseline)) {
		g->decision = CR_DECISION_ALLOWED;
		return 0;
	}
	r = cr_capability_excess(&g->request, &g->baseline, &g->excess);
	if (r < 0)
		return cr_msg(msg, size, r, "out of memory");
	r = within_session_grants(g, &cached, msg, size);
	if (r < 0)
		return r;
	g->decision = CR_DECISION_GRANTED;
	if (cached)
		g->grant = "cached";
	else if (o->grant == CR_GRANT_ONCE)
		g->grant = "once";
	else if (o->grant == CR_GRANT_SESSION) {
		struct cr_capability beyond = {};

		/* Keep what goes beyond the profile, so later runs within it pass. */
		r = cr_capability_excess(&g->request, &g->baseline, &beyond);
		if (r >= 0)
			r = cr_session_grant_add(&g->session, &beyond, g->profile.name, msg, size);
		cr_capability_done(&beyond);
		if (r < 0)
			return r;
		g->grant = "session";
	} else
		g->decision = CR_DECISION_DENIED;
	return 0;
}

/* "read /srv/data; write /x; network: all; ..." */
static void describe(const struct cr_capability *c, char *buf, size_t size)
{
	size_t n = 0;

#define ADD(...)                                                                                   \
	do {                                                                                       \
		int _k = snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__);                \
		if (_k > 0)                                                                        \
			n += (size_t)_k;                                                           \
	} while (0)
	buf[0] = '\0';
	for (size_t i = 0; i < c->n_fs_read; i++)
		ADD("%sread %s", n ? "; " : "", c->fs_read[i]);
	for (size_t i = 0; i < c->n_fs_write; i++)
		ADD("%swrite %s", n ? "; " : "", c->fs_write[i]);
	if (c->net == CR_NETCAP_ALL)
		ADD("%sthe whole network", n ? "; " : "");
	for (size_t i = 0; c->net == CR_NETCAP_HOSTS && i < c->n_hosts; i++)
		ADD("%shost %s", n ? "; " : "", c->hosts[i]);
	if (c->spawn)
		ADD("%sstart processes", n ? "; " : "");
	for (int l = 0; l < _CR_LIMIT_MAX; l++)
		if (c->limit[l]) {
			char v[32];

			cr_limit_format(l, c->limit[l], v, sizeof(v));
			ADD("%s%s %s", n ? "; " : "", cr_limit_option(l), v);
		}
	if (c->timeout_ms) {
		char t[32];

		cr_format_seconds(c->timeout_ms, t, sizeof(t));
		ADD("%s--timeout %ss", n ? "; " : "", t);
	}
	if (c->unconfined & CR_UNCONFINED_SECCOMP)
		ADD("%sa weaker seccomp filter", n ? "; " : "");
	if (c->unconfined & CR_UNCONFINED_LANDLOCK)
		ADD("%sa weaker Landlock mode", n ? "; " : "");
	if (c->unconfined & CR_UNCONFINED_USERNS)
		ADD("%sto run without namespaces (--allow-degraded)", n ? "; " : "");
	if (c->unconfined & CR_UNCONFINED_LIMITS)
		ADD("%slimits that may go unenforced", n ? "; " : "");
	if (c->unconfined & CR_UNCONFINED_PTRACE)
		ADD("%sptrace between the sandbox's processes (--ptrace=sandbox)", n ? "; " : "");
#undef ADD
	if (n >= size && size > 4)
		memcpy(buf + size - 4, "...", 4);
}

json_object *cr_gate_denial(const struct cr_gate *g, char *text, size_t size)
{
	json_object *o = json_object_new_object();
	char needs[1024];
	int r = 0;

	if (!o)
		return NULL;
	describe(&g->excess, needs, sizeof(needs));
	(void)snprintf(text, size,
		       "denied: the command needs what profile '%s' does not allow: %s. Ask the user; rerun with --grant once%s to allow it",
		       g->profile.name, needs,
		       g->have_session ? " or --grant session" : " (or --session ID --grant session)");
	r = cr_json_add(o, "denied", json_object_new_string("capability"));
	r = r ?: cr_json_add(o, "needs", cr_capability_to_json(&g->excess, true));
	r = r ?: cr_json_add(o, "baseline", json_object_new_string(g->profile.name));
	r = r ?: cr_json_add_str(o, "session", g->have_session ? g->session.id : NULL);
	r = r ?: cr_json_add(o, "message", json_object_new_string(text));
	return cr_json_whole(o, r);
}

int cr_gate_status(const struct cr_gate *g, json_object *st)
{
	int r = 0;

	if (!g->profile.name) /* the profile itself could not be loaded */
		return 0;
	r = cr_json_add(st, "profile", json_object_new_string(g->profile.name));
	r = r ?: cr_json_add_str(st, "session", g->have_session ? g->session.id : NULL);
	r = r ?: cr_json_add(st, "decision", json_object_new_string(decision_names[g->decision]));
	r = r ?: cr_json_add_str(st, "grant", g->grant);
	r = r ?: cr_json_add(st, "request", cr_capability_to_json(&g->request, true));
	if (g->decision == CR_DECISION_DENIED) {
		char text[1536];

		r = r ?: cr_json_add(st, "denied", cr_gate_denial(g, text, sizeof(text)));
	}
	/* The fallbacks a home CI gave forced, also said on stderr. */
	if (g->dirs.skipped)
		r = r ?: cr_json_add_str(st, "profile_dir_skipped", g->dirs.skipped);
	if (g->state_skipped) {
		json_object *o = json_object_new_object();
		int q = o ? 0 : -ENOMEM;

		q = q ?: cr_json_add_str(o, "path", g->state_dir);
		q = q ?: cr_json_add_str(o, "skipped", g->state_skipped);
		r = r ?: cr_json_add(st, "state_dir_fallback", cr_json_whole(o, q));
	}
	return r;
}

/* The enforcement modes, short: namespaces, network, seccomp and Landlock modes, limit modes;
 * null without a report. 0 or -ENOMEM. */
static int add_modes(json_object *e, json_object *enforced)
{
	static const char *const keep[] = { "namespaces", "network", "degraded" };

	if (!enforced)
		return cr_json_add_null(e, "enforced");
	return cr_json_add(e, "enforced", cr_audit_summary(enforced, keep, ELEMENTSOF(keep)));
}

/* @key of the status @st, or null where it has none. 0 or -ENOMEM. */
static int copy_key(json_object *to, json_object *st, const char *key)
{
	if (!json_object_object_get_ex(st, key, NULL))
		return cr_json_add_null(to, key);
	return cr_json_copy(to, st, key);
}

int cr_gate_audit(const struct cr_gate *g, char *const *argv, json_object *st, char *msg,
		  size_t size)
{
	static const char *const from_status[] = { "outcome",	 "exit_code",  "signal",
						   "timed_out",	 "oom_killed", "duration_ms",
						   "error" };
	json_object *e, *enforced = NULL;
	char hash[65];
	int r;

	if (g->audit_fd < 0 || !g->profile.name)
		return 0;
	e = json_object_new_object();
	cr_audit_argv_hash(argv, hash);
	(void)json_object_object_get_ex(st, "enforced", &enforced);
	r = cr_json_add(e, "time", cr_audit_time());
	r = r ?: cr_json_add(e, "corral_version", json_object_new_string(CR_VERSION));
	r = r ?: cr_json_add(e, "pid", json_object_new_int(getpid()));
	r = r ?: cr_json_add_str(e, "session", g->have_session ? g->session.id : NULL);
	r = r ?: cr_json_add(e, "profile", json_object_new_string(g->profile.name));
	r = r ?: cr_json_add(e, "argv0", json_object_new_string(argv[0]));
	r = r ?: cr_json_add(e, "argv_sha256", json_object_new_string(hash));
	r = r ?: cr_json_add(e, "requested", cr_capability_to_json(&g->request, true));
	if (g->decision == CR_DECISION_GRANTED)
		r = r ?: cr_json_add(e, "granted", cr_capability_to_json(&g->excess, true));
	else
		r = r ?: cr_json_add_null(e, "granted");
	r = r ?: cr_json_add(e, "decision", json_object_new_string(decision_names[g->decision]));
	r = r ?: cr_json_add_str(e, "grant", g->grant);
	r = r ?: add_modes(e, enforced);
	for (size_t i = 0; r == 0 && i < ELEMENTSOF(from_status); i++)
		r = copy_key(e, st, from_status[i]);
	/* An entry that cannot be made whole is not written in part: the run reports the error. */
	if (r < 0) {
		json_object_put(e);
		return cr_msg(msg, size, r, "out of memory writing the ledger");
	}
	r = cr_audit_append(g->audit_fd, e, msg, size);
	json_object_put(e);
	return r;
}

void cr_gate_done(struct cr_gate *g)
{
	if (g->audit_fd >= 0)
		(void)close(g->audit_fd);
	free(g->audit_path);
	cr_capability_done(&g->excess);
	cr_capability_done(&g->request);
	cr_capability_done(&g->baseline);
	if (g->have_session)
		cr_session_done(&g->session);
	free(g->state_dir);
	free(g->state_skipped);
	cr_profile_done(&g->profile);
	cr_profile_dirs_done(&g->dirs);
	*g = (struct cr_gate){ .audit_fd = -EBADF };
}
