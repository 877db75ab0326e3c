/* SPDX-License-Identifier: MIT */
/* Resolving a profile against a workspace: its paths made canonical (or skipped when missing and
 * optional), the path rules the policy mounts, and the baseline capability of a session. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"
#include "profile-resolve.h"

#define WORKSPACE_VAR "${WORKSPACE}"

struct resolver {
	const struct cr_profile *p;
	const char *workspace;
	struct cr_profile_resolution *res;
	char *msg;
	size_t size;
};

static int fail(struct resolver *r, int err, unsigned line, const char *fmt, ...) _printf_(4, 5);
static int fail(struct resolver *r, int err, unsigned line, const char *fmt, ...)
{
	char reason[512];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	(void)snprintf(r->msg, r->size, "%s:%u: %s", r->p->source, line, reason);
	return err;
}

/* The key that gives rules of @access, for messages. */
static const char *key_name(enum cr_path_access access)
{
	return access == CR_PATH_RO ? "read" : access == CR_PATH_RW ? "write" : "hide";
}

static int expand_workspace(const char *path, const char *workspace, char **ret)
{
	size_t n = strlen(WORKSPACE_VAR);

	if (strncmp(path, WORKSPACE_VAR, n) != 0)
		*ret = strdup(path);
	else if (asprintf(ret, "%s%s", workspace, path + n) < 0)
		*ret = NULL;
	return *ret ? 0 : -ENOMEM;
}

static int push_skip(struct resolver *r, char *path, enum cr_path_access access, unsigned line)
{
	struct cr_profile_skip *v;

	v = reallocarray(r->res->skipped, r->res->n_skipped + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->res->skipped = v;
	v[r->res->n_skipped++] = (struct cr_profile_skip){ path, access, line };
	return 0;
}

static int push_rule(struct resolver *r, char *path, enum cr_path_access access, unsigned line)
{
	struct cr_profile_resolution *res = r->res;
	struct cr_path_rule *v;
	unsigned *l;

	v = reallocarray(res->rules, res->n_rules + 1, sizeof(*v));
	if (v)
		res->rules = v;
	l = v ? reallocarray(res->lines, res->n_rules + 1, sizeof(*l)) : NULL;
	if (!l)
		return -ENOMEM;
	res->lines = l;
	v[res->n_rules] = (struct cr_path_rule){ path, access };
	l[res->n_rules++] = line;
	return 0;
}

/* A canonical path against the workspace, "/" and the rules so far: 1 to add it, 0 to leave it
 * out (it changes nothing), or -EINVAL with the message. */
static int check_rule(struct resolver *r, const char *path, enum cr_path_access access,
		      unsigned line)
{
	if (strcmp(path, "/") == 0)
		return fail(r, -EINVAL, line,
			    "%s = %s: the root itself cannot be shown or hidden; name the directories the command needs",
			    key_name(access), path);
	if (strcmp(path, r->workspace) == 0) {
		if (access == CR_PATH_HIDE)
			return fail(r, -EINVAL, line, "hide = %s: that is the workspace", path);
		if (access == CR_PATH_RW && r->p->workspace_ro)
			return fail(r, -EINVAL, line,
				    "write = %s: that is the workspace, which this profile shows read-only (workspace = ro)",
				    path);
		return 0; /* the workspace is shown already */
	}
	for (size_t i = 0; i < r->res->n_rules; i++) {
		const struct cr_path_rule *o = &r->res->rules[i];

		if (strcmp(o->path, path) != 0)
			continue;
		if (o->access == access)
			return 0; /* the same rule again */
		return fail(r, -EINVAL, line, "%s = %s: line %u gives the same path as %s",
			    key_name(access), path, r->res->lines[i], key_name(o->access));
	}
	return 1;
}

static int resolve_one(struct resolver *r, const struct cr_profile_path *pp,
		       enum cr_path_access access)
{
	_cleanup_free_ char *path = NULL, *canon = NULL;
	int k;

	if (expand_workspace(pp->path, r->workspace, &path) < 0)
		return -ENOMEM;
	k = cr_path_canonicalize(path, &canon);
	/* An optional path (or one to hide) that is missing, or that this user cannot reach and so
	 * could not show anyway, is left out; `corral profile show` lists it as skipped. */
	if ((k == -ENOENT || k == -ENOTDIR || k == -EACCES) &&
	    (pp->optional || access == CR_PATH_HIDE)) {
		k = push_skip(r, path, access, pp->line);
		if (k >= 0)
			TAKE_PTR(path);
		return k;
	}
	if (k == -ENOENT)
		return fail(r, k, pp->line, "%s: no such file or directory", path);
	if (k < 0)
		return fail(r, k, pp->line, "%s: cannot resolve: %s", path, strerror(-k));
	k = check_rule(r, canon, access, pp->line);
	if (k <= 0)
		return k;
	k = push_rule(r, canon, access, pp->line);
	if (k >= 0)
		TAKE_PTR(canon);
	return k;
}

static int resolve_list(struct resolver *r, const struct cr_profile_path *v, size_t n,
			enum cr_path_access access)
{
	int k = 0;

	for (size_t i = 0; k >= 0 && i < n; i++)
		k = resolve_one(r, &v[i], access);
	return k;
}

static int build_baseline(struct resolver *r, const char *const *system_paths)
{
	const struct cr_profile *p = r->p;
	struct cr_capability *c = &r->res->baseline;
	int k = 0;

	for (size_t i = 0; k >= 0 && system_paths && system_paths[i]; i++)
		k = cr_capability_add_path(c, false, system_paths[i]);
	if (k >= 0)
		k = cr_capability_add_path(c, false, r->workspace);
	if (k >= 0 && !p->workspace_ro)
		k = cr_capability_add_path(c, true, r->workspace);
	for (size_t i = 0; k >= 0 && i < r->res->n_rules; i++) {
		const struct cr_path_rule *rule = &r->res->rules[i];

		if (rule->access != CR_PATH_HIDE)
			k = cr_capability_add_path(c, false, rule->path);
		if (k >= 0 && rule->access == CR_PATH_RW)
			k = cr_capability_add_path(c, true, rule->path);
	}
	for (size_t i = 0; k >= 0 && i < p->n_hosts; i++)
		k = cr_capability_add_host(c, p->hosts[i]);
	if (k < 0)
		return k;
	c->net = p->net;
	c->spawn = p->spawn;
	for (int l = 0; l < _CR_LIMIT_MAX; l++)
		c->limit[l] = p->limits.set[l] ? p->limits.value[l] : CR_LIMIT_INFINITY;
	c->timeout_ms = p->timeout_ms ?: UINT64_MAX; /* no timeout in the profile: no bound */
	c->unconfined = (p->seccomp == CR_SECCOMP_OFF ? CR_UNCONFINED_SECCOMP : 0) |
			(p->landlock == CR_LANDLOCK_OFF ? CR_UNCONFINED_LANDLOCK : 0) |
			(p->ptrace ? CR_UNCONFINED_PTRACE : 0);
	return 0;
}

int cr_profile_resolve_full(const struct cr_profile *p, const char *workspace,
			    const char *const *system_paths, struct cr_profile_resolution *ret,
			    char *msg, size_t msg_size)
{
	struct cr_profile_resolution res = {};
	struct resolver r = { p, workspace, &res, msg, msg_size };
	int k;

	k = resolve_list(&r, p->read, p->n_read, CR_PATH_RO);
	if (k >= 0)
		k = resolve_list(&r, p->write, p->n_write, CR_PATH_RW);
	if (k >= 0)
		k = resolve_list(&r, p->hide, p->n_hide, CR_PATH_HIDE);
	if (k >= 0)
		k = build_baseline(&r, system_paths);
	if (k == -ENOMEM)
		(void)snprintf(msg, msg_size, "out of memory");
	if (k < 0) {
		cr_profile_resolution_done(&res);
		return k;
	}
	*ret = res;
	return 0;
}

void cr_profile_resolution_done(struct cr_profile_resolution *r)
{
	for (size_t i = 0; i < r->n_rules; i++)
		free(r->rules[i].path);
	free(r->rules);
	free(r->lines);
	for (size_t i = 0; i < r->n_skipped; i++)
		free(r->skipped[i].path);
	free(r->skipped);
	cr_capability_done(&r->baseline);
	*r = (struct cr_profile_resolution){};
}

int cr_profile_resolve(const struct cr_profile *p, const char *workspace,
		       const char *const *system_paths, struct cr_path_rule **ret_rules,
		       size_t *ret_n, struct cr_capability *ret_baseline, char *msg,
		       size_t msg_size)
{
	struct cr_profile_resolution res;
	int k;

	k = cr_profile_resolve_full(p, workspace, system_paths, &res, msg, msg_size);
	if (k < 0)
		return k;
	if (ret_n)
		*ret_n = res.n_rules;
	if (ret_rules) {
		*ret_rules = TAKE_PTR(res.rules);
		res.n_rules = 0;
	}
	if (ret_baseline) {
		*ret_baseline = res.baseline;
		res.baseline = (struct cr_capability){};
	}
	cr_profile_resolution_done(&res);
	return 0;
}
