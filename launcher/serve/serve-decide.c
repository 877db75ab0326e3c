/* SPDX-License-Identifier: MIT */
/* `corral serve`'s decisions: the command's risk tier (launcher/risk/risk.h), the profile's rule
 * for it (allow, ask, deny, and its allowlist), approvals cached by scope (once: nothing kept;
 * session: in memory for the session; permanent: <state>/approvals.jsonl, per profile), and
 * the ledger line of every decision. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "launcher/session/audit.h"
#include "launcher/base/json-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "serve-internal.h"
#include "launcher/session/session-internal.h"

/* approvals.jsonl is read whole at start-up: an approval is a line of a few hundred bytes, so
 * 16 MiB holds tens of thousands of them and refuses a file that grew beyond any real use. */
#define APPROVALS_MAX (16 * 1024 * 1024)

static const char *const rule_names[] = {
	[CR_COMMAND_ALLOW] = "allow",
	[CR_COMMAND_ASK] = "ask",
	[CR_COMMAND_DENY] = "deny",
};

static int strv_push(char ***v, size_t *n, char *s)
{
	char **p;

	if (!s)
		return -ENOMEM;
	p = realloc(*v, (*n + 2) * sizeof(char *));
	if (!p) {
		free(s);
		return -ENOMEM;
	}
	p[(*n)++] = s;
	p[*n] = NULL;
	*v = p;
	return 0;
}

int serve_strv_push(char ***v, char *s)
{
	size_t n = 0;

	while (*v && (*v)[n])
		n++;
	return strv_push(v, &n, s);
}

static bool strv_has(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static char *permanent_key(const struct serve_exec *x)
{
	char *k;

	if (asprintf(&k, "%s\n%s", x->session->profile.name, x->command_line) < 0)
		return NULL;
	return k;
}

/* An earlier approval that covers @x: the same command line, approved for the session or
 * permanently for the session's profile. */
static const char *cached_approval(struct serve *sv, const struct serve_exec *x)
{
	_cleanup_free_ char *key = NULL;

	if (strv_has(x->session->approved, x->session->n_approved, x->command_line))
		return "session";
	key = permanent_key(x);
	if (key && strv_has(sv->approved, sv->n_approved, key))
		return "permanent";
	return NULL;
}

/* The rule as a sentence: the allowlist entry that matched, or the tier's rule. */
static void explain(struct serve_exec *x, const char *why)
{
	const char *tier = cr_risk_tier_to_string(x->risk.tier) ?: "unknown";
	const char *prof = x->session->profile.name;

	if (why && strcmp(why, tier) != 0)
		(void)snprintf(x->rule_why, sizeof(x->rule_why),
			       "allowlisted in profile %s by '%s'", prof, why);
	else if (x->rule == CR_COMMAND_ASK)
		(void)snprintf(x->rule_why, sizeof(x->rule_why),
			       "profile %s asks before running %s commands", prof, tier);
	else if (x->rule == CR_COMMAND_DENY)
		(void)snprintf(x->rule_why, sizeof(x->rule_why), "profile %s denies %s commands",
			       prof, tier);
	else
		(void)snprintf(x->rule_why, sizeof(x->rule_why), "profile %s allows %s commands",
			       prof, tier);
}

int serve_decide(struct serve *sv, struct serve_exec *x, char *msg, size_t size)
{
	const char *ws = x->session->policy.workspace, *why = NULL;
	int r;

	if (x->argv[0] && strcmp(x->argv[0], "/bin/sh") == 0 && x->argv[1] &&
	    strcmp(x->argv[1], "-c") == 0 && x->argv[2] && !x->argv[3] &&
	    strcmp(x->argv[2], x->command_line) == 0)
		r = cr_risk_shell(x->command_line, ws, &x->risk);
	else
		r = cr_risk_argv(x->argv, ws, &x->risk);
	if (r < 0)
		return cr_msg(msg, size, r, "cannot classify the command: %s", strerror(-r));
	x->rule = cr_profile_command_rule(&x->session->profile, x->command_line, &x->risk, &why);
	explain(x, why);
	switch (x->rule) {
	case CR_COMMAND_ALLOW:
		return SERVE_RUN;
	case CR_COMMAND_DENY:
		return SERVE_DENY;
	case CR_COMMAND_ASK:
		x->approval = cached_approval(sv, x);
		if (x->approval) {
			x->approval = strcmp(x->approval, "session") == 0 ? "cached_session"
									  : "cached_permanent";
			return SERVE_RUN;
		}
		(void)snprintf(x->request_id, sizeof(x->request_id), "r-%llu",
			       (unsigned long long)++sv->next_request);
		return SERVE_ASK;
	default:
		return cr_msg(msg, size, -EINVAL, "the profile gave no rule for the command");
	}
}

/* Permanent approvals, one JSON object per line: {"time","profile","command"}. */
static int approvals_parse(struct serve *sv, const char *text, size_t len)
{
	size_t line = 0;

	for (const char *p = text, *end = text + len; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		json_object *o = n ? json_tokener_parse(strndupa(p, n)) : NULL;
		json_object *prof, *cmd;

		if (o && json_object_object_get_ex(o, "profile", &prof) &&
		    json_object_object_get_ex(o, "command", &cmd) &&
		    json_object_is_type(prof, json_type_string) &&
		    json_object_is_type(cmd, json_type_string)) {
			char *k;

			if (asprintf(&k, "%s\n%s", json_object_get_string(prof),
				     json_object_get_string(cmd)) < 0 ||
			    strv_push(&sv->approved, &sv->n_approved, k) < 0) {
				json_object_put(o);
				return -ENOMEM;
			}
		} else if (n)
			cr_log_warning("serve: %s:%zu: not an approval; ignored",
				       sv->approvals_path, line + 1);
		json_object_put(o);
		p += n + 1;
	}
	return 0;
}

int serve_approvals_load(struct serve *sv, char *msg, size_t size)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -EBADF;
	ssize_t n;
	off_t len;

	if (asprintf(&sv->approvals_path, "%s/approvals.jsonl", sv->state_dir) < 0)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	if (access(sv->approvals_path, F_OK) < 0)
		return 0;
	fd = cr_audit_open(sv->approvals_path, false, msg, size);
	if (fd < 0)
		return fd;
	len = lseek(fd, 0, SEEK_END);
	if (len < 0 || len > APPROVALS_MAX)
		return cr_msg(msg, size, -EFBIG, "%s is larger than %d bytes", sv->approvals_path,
			      APPROVALS_MAX);
	text = malloc((size_t)len + 1);
	if (!text)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	n = pread(fd, text, (size_t)len, 0);
	if (n < 0)
		return cr_msg(msg, size, negative_errno(), "cannot read %s: %m",
			      sv->approvals_path);
	if (approvals_parse(sv, text, (size_t)n) < 0)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	cr_debug("serve: %zu permanent approvals from %s", sv->n_approved, sv->approvals_path);
	return 0;
}

static int approval_append(struct serve *sv, const struct serve_exec *x)
{
	_cleanup_close_ int fd = -EBADF;
	char msg[512] = "", now[32];
	json_object *o;
	int r;

	if (!sv->approvals_path) {
		cr_log_warning("serve: no state directory: the permanent approval lasts until the "
			       "server stops");
		return 0;
	}
	fd = cr_audit_open(sv->approvals_path, true, msg, sizeof(msg));
	if (fd < 0) {
		cr_log_error("serve: %s", msg);
		return fd;
	}
	cr_audit_now(now);
	o = json_object_new_object();
	r = cr_json_add(o, "time", json_object_new_string(now));
	r = r ?: cr_json_add(o, "profile", json_object_new_string(x->session->profile.name));
	r = r ?: cr_json_add(o, "command", json_object_new_string(x->command_line));
	if (r < 0)
		(void)snprintf(msg, sizeof(msg), "out of memory writing the approval");
	else
		r = cr_audit_append(fd, o, msg, sizeof(msg));
	json_object_put(o);
	if (r < 0)
		cr_log_error("serve: %s", msg);
	return r;
}

int serve_approval_store(struct serve *sv, struct serve_exec *x, enum cr_serve_scope scope)
{
	struct serve_session *s = x->session;
	int r;

	if (scope == CR_SERVE_SCOPE_ONCE)
		return 0;
	if (!strv_has(s->approved, s->n_approved, x->command_line)) {
		r = strv_push(&s->approved, &s->n_approved, strdup(x->command_line));
		if (r < 0)
			return r;
	}
	if (scope != CR_SERVE_SCOPE_PERMANENT)
		return 0;
	r = strv_push(&sv->approved, &sv->n_approved, permanent_key(x));
	if (r < 0)
		return r;
	return approval_append(sv, x);
}

int serve_decision_json(const struct serve_exec *x, json_object *o)
{
	int r;

	r = cr_json_add(o, "tier",
			json_object_new_string(cr_risk_tier_to_string(x->risk.tier) ?: "unknown"));
	r = r ?: cr_json_add(o, "reasons", cr_json_strv(x->risk.reasons, x->risk.n_reasons));
	r = r ?: cr_json_add(o, "rule", json_object_new_string(rule_names[x->rule]));
	r = r ?: cr_json_add_str(o, "approval", x->approval);
	return r;
}

/* The ledger line of @x, whole, in *@ret; -ENOMEM if any part of it cannot be made. */
static int audit_entry(const struct serve_exec *x, const char *decision, json_object *result,
		       json_object **ret)
{
	static const char *const from_result[] = {"exit_code", "signal", "timed_out", "oom_killed",
						  "duration_ms"};
	json_object *e = json_object_new_object();
	char hash[65];
	int r;

	cr_audit_argv_hash(x->argv, hash);
	r = cr_json_add(e, "time", cr_audit_time());
	r = r ?: cr_json_add(e, "corral_version", json_object_new_string(CR_VERSION));
	r = r ?: cr_json_add(e, "pid", json_object_new_int(getpid()));
	r = r ?: cr_json_add(e, "via", json_object_new_string("serve"));
	r = r ?: cr_json_add(e, "session", json_object_new_string(x->session->id));
	r = r ?: cr_json_add(e, "profile", json_object_new_string(x->session->profile.name));
	r = r ?: cr_json_add(e, "argv0", json_object_new_string(x->argv[0]));
	r = r ?: cr_json_add(e, "argv_sha256", json_object_new_string(hash));
	r = r ?: cr_json_add(e, "decision", json_object_new_string(decision));
	r = r ?: cr_json_add_str(e, "request_id", x->request_id[0] ? x->request_id : NULL);
	r = r ?: cr_json_add_str(e, "approval_scope", x->approval);
	if (x->has_caps)
		r = r ?: cr_json_add(e, "requested", cr_capability_to_json(&x->caps, true));
	else
		r = r ?: cr_json_add_null(e, "requested");
	if (x->needs_grant)
		r = r ?: cr_json_add(e, "granted", cr_capability_to_json(&x->excess, true));
	else
		r = r ?: cr_json_add_null(e, "granted");
	r = r ?: cr_json_add(e, "sandbox", json_object_new_string(x->cold ? "one-off" : "warm"));
	r = r ?: serve_decision_json(x, e);
	if (r == 0)
		json_object_object_del(e, "approval"); /* "approval_scope" in the ledger */
	r = r ?: cr_json_add(e, "outcome", json_object_new_string(result ? "ran" : decision));
	for (size_t i = 0; r == 0 && i < ELEMENTSOF(from_result); i++)
		r = cr_json_copy(e, result, from_result[i]);
	if (r < 0) {
		json_object_put(e);
		return r;
	}
	*ret = e;
	return 0;
}

void serve_audit(struct serve *sv, const struct serve_exec *x, const char *decision,
		 json_object *result)
{
	json_object *e;
	char msg[512];

	if (sv->audit_fd < 0)
		return;
	/* An entry that cannot be made whole is not written in part. */
	if (audit_entry(x, decision, result, &e) < 0)
		return cr_log_error("serve: out of memory writing the ledger");
	if (cr_audit_append(sv->audit_fd, e, msg, sizeof(msg)) < 0)
		cr_log_error("serve: %s", msg);
	json_object_put(e);
}
