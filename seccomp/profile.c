/* SPDX-License-Identifier: MIT */
/* User profiles (--seccomp-profile FILE): an INI file of syscall names and groups, each with an
 * action, on top of a built-in base. Parsed with inih, the only file that calls it.
 *
 *   [profile]
 *   base = default        ; default, strict or none: the rules to start from (default: default)
 *   default = allow       ; the action for every syscall no rule names (default: allow)
 *   [rules]
 *   @debug = kill         ; a group: each of its syscalls, under the group's conditions
 *   mkdir = errno:EROFS   ; a syscall: all of its calls
 *
 * Actions: allow, deny (EPERM, or the syscall's own refusal: ENOSYS for clone3), errno:NAME or
 * errno:N, kill (the process), log (allowed, and logged by the kernel's audit). A rule replaces
 * whatever the base and earlier lines said about the syscalls it names.
 *
 * Read with launcher/base/ini.c, corral's one INI reader: its line-level rules (no indented
 * line, no control character, at most CR_INI_MAX_LINE bytes a line, ...) are those of the
 * profiles, and every error is "FILE:LINE: reason". */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/ini.h"
#include "launcher/base/macro.h"
#include "seccomp-internal.h"

/* One line of the file: the syscalls it names get these rules, replacing earlier ones. */
struct assign {
	char *name; /* a syscall, or a group with its '@' */
	uint32_t action;
	bool deny;  /* "deny": each syscall's own refusal */
};

struct parse {
	struct cr_ini ini; /* the reader: the path, the line, the first error */
	const char *base;
	bool have_base, have_default;
	uint32_t default_action;
	struct assign *assigns;
	size_t n_assigns;
};

#define fail(p, ...) cr_ini_fail(&(p)->ini, __VA_ARGS__)

/* The largest errno an errno:N action takes: the kernel's MAX_ERRNO, to which SECCOMP_RET_ERRNO
 * clamps anything larger (a syscall returns -1 to -4095 as an error). */
#define ERRNO_MAX 4095

static const char *const actions_help = "allow, deny, errno:NAME, errno:N, kill or log";

static int parse_errno(const char *s)
{
	char *end;
	long v;

	if (*s >= '0' && *s <= '9') {
		errno = 0;
		v = strtol(s, &end, 10);
		return errno || *end || v < 1 || v > ERRNO_MAX ? -EINVAL : (int)v;
	}
	for (int e = 1; e <= ERRNO_MAX; e++) {
		const char *name = strerrorname_np(e);

		if (name && strcmp(name, s) == 0)
			return e;
	}
	return -EINVAL;
}

/* Parse an action; *ret_deny marks "deny". 0 or -EINVAL. */
static int parse_action(const char *s, uint32_t *ret, bool *ret_deny)
{
	int e;

	*ret_deny = false;
	if (strcmp(s, "allow") == 0)
		*ret = CR_SC_ALLOW;
	else if (strcmp(s, "deny") == 0) {
		*ret = CR_SC_ERRNO(EPERM);
		*ret_deny = true;
	} else if (strcmp(s, "kill") == 0)
		*ret = CR_SC_KILL_PROCESS;
	else if (strcmp(s, "log") == 0)
		*ret = CR_SC_LOG;
	else if (strncmp(s, "errno:", 6) == 0 && (e = parse_errno(s + 6)) > 0)
		*ret = CR_SC_ERRNO(e);
	else
		return -EINVAL;
	return 0;
}

static int on_profile_key(struct parse *p, const char *name, const char *value)
{
	bool deny;

	if (strcmp(name, "base") == 0) {
		if (p->have_base)
			return fail(p, "'base' is given twice");
		if (strcmp(value, "default") != 0 && strcmp(value, "strict") != 0 &&
		    strcmp(value, "none") != 0)
			return fail(p, "unknown base '%s' (expected default, strict or none)", value);
		p->base = strcmp(value, "default") == 0 ? "@default"
			  : strcmp(value, "strict") == 0 ? "@strict"
							 : NULL;
		p->have_base = true;
		return 1;
	}
	if (strcmp(name, "default") == 0) {
		if (p->have_default)
			return fail(p, "'default' is given twice");
		if (parse_action(value, &p->default_action, &deny) < 0)
			return fail(p, "unknown action '%s' (expected %s)", value, actions_help);
		p->have_default = true;
		return 1;
	}
	return fail(p, "unknown key '%s' in [profile] (expected base or default)", name);
}

static int on_rule(struct parse *p, const char *name, const char *value)
{
	struct assign a = {};
	struct assign *n;

	if (name[0] == '@' ? !cr_sc_group_find(name) : !cr_sc_syscall_known(name))
		return fail(p, "unknown %s '%s'%s", name[0] == '@' ? "group" : "syscall", name,
			    name[0] == '@' ? " (corral help run lists the groups)" : "");
	if (parse_action(value, &a.action, &a.deny) < 0)
		return fail(p, "unknown action '%s' for %s (expected %s)", value, name,
			    actions_help);
	a.name = strdup(name);
	n = a.name ? reallocarray(p->assigns, p->n_assigns + 1, sizeof(*n)) : NULL;
	if (!n) {
		free(a.name);
		return cr_ini_fail_oom(&p->ini);
	}
	n[p->n_assigns++] = a;
	p->assigns = n;
	return 1;
}

static const char *const sections[] = { "profile", "rules", NULL };

static int on_key(struct cr_ini *ini, const char *section, const char *name, const char *value)
{
	struct parse *p = ini->userdata;

	if (strcmp(section, "profile") == 0)
		return on_profile_key(p, name, value);
	return on_rule(p, name, value);
}

/* The rules of one line, or of the base. @tag says which, so that a line replaces earlier ones
 * but not the other rules it adds itself (a group can hold ioctl twice). */
struct builder {
	struct cr_sc_ruleset *rs;
	size_t *tags;
	size_t tag;
	uint32_t action;
	bool deny;
	int r;
};

static void drop_earlier(struct builder *b, const char *name)
{
	size_t j = 0;

	for (size_t i = 0; i < b->rs->n_rules; i++)
		if (b->tags[i] == b->tag || strcmp(b->rs->rules[i].name, name) != 0) {
			b->tags[j] = b->tags[i];
			b->rs->rules[j++] = b->rs->rules[i];
		}
	b->rs->n_rules = j;
}

static int push(struct builder *b, const char *name, enum cr_sc_cond cond, uint32_t action)
{
	struct cr_sc_rule *r;
	size_t *t;

	drop_earlier(b, name);
	r = reallocarray(b->rs->rules, b->rs->n_rules + 1, sizeof(*r));
	if (r)
		b->rs->rules = r;
	t = r ? reallocarray(b->tags, b->rs->n_rules + 1, sizeof(*t)) : NULL;
	if (!t)
		return -ENOMEM;
	b->tags = t;
	b->tags[b->rs->n_rules] = b->tag;
	b->rs->rules[b->rs->n_rules++] = (struct cr_sc_rule){ name, cond, action };
	return 0;
}

/* A group member: its own refusal for "deny", and whatever the action for clone3, whose only
 * safe refusal is ENOSYS (libc then falls back to clone); "allow" drops the conditions. */
static int push_entry(const struct cr_sc_entry *e, void *userdata)
{
	struct builder *b = userdata;

	if (b->action == CR_SC_ALLOW)
		return push(b, e->name, CR_SC_ALWAYS, CR_SC_ALLOW);
	if (b->deny || e->err != EPERM)
		return push(b, e->name, e->cond, CR_SC_ERRNO(e->err));
	return push(b, e->name, e->cond, b->action);
}

/* "deny" of a syscall by name: its refusal in the built-in groups (ENOSYS for clone3). */
static int own_refusal(const char *name)
{
	for (size_t g = 0; g < cr_sc_n_groups; g++)
		for (const struct cr_sc_entry *e = cr_sc_groups[g].entries; e && e->name; e++)
			if (strcmp(e->name, name) == 0 && e->err != EPERM)
				return e->err;
	return EPERM;
}

static int build_rules(struct parse *p, struct cr_sc_ruleset *rs)
{
	_cleanup_free_ size_t *tags = NULL;
	struct builder b = { .rs = rs, .action = CR_SC_ERRNO(EPERM), .deny = true };
	int r = 0;

	rs->default_action = p->have_default ? p->default_action : CR_SC_ALLOW;
	if (p->base)
		r = cr_sc_group_walk(cr_sc_group_find(p->base), push_entry, &b);
	for (size_t i = 0; r >= 0 && i < p->n_assigns; i++) {
		const struct assign *a = &p->assigns[i];

		b.tag = i + 1;
		b.action = a->action;
		b.deny = a->deny;
		if (a->name[0] == '@') {
			r = cr_sc_group_walk(cr_sc_group_find(a->name), push_entry, &b);
			continue;
		}
		r = push(&b, a->name, CR_SC_ALWAYS,
			 a->deny ? CR_SC_ERRNO(own_refusal(a->name)) : a->action);
	}
	tags = b.tags;
	return r;
}

int cr_sc_profile_parse(const char *data, size_t size, const char *path, struct cr_sc_ruleset *ret,
			char *msg, size_t msg_size)
{
	struct parse p = {
		.ini = { .source = path, .sections = sections, .on_key = on_key },
		.base = "@default",
	};
	struct cr_sc_ruleset rs = {};
	int r;

	p.ini.userdata = &p;
	r = cr_ini_parse(&p.ini, data, size, msg, msg_size);
	if (r == 0) {
		r = build_rules(&p, &rs);
		if (r < 0)
			(void)snprintf(msg, msg_size, "%s: %s", path, strerror(-r));
	}
	if (r >= 0) {
		/* The rules point at the names of the file's lines: the ruleset keeps them. */
		rs.owned = calloc(p.n_assigns ?: 1, sizeof(char *));
		if (!rs.owned) {
			(void)snprintf(msg, msg_size, "out of memory");
			r = -ENOMEM;
		}
		for (size_t i = 0; r >= 0 && i < p.n_assigns; i++)
			rs.owned[rs.n_owned++] = TAKE_PTR(p.assigns[i].name);
	}
	if (r >= 0)
		*ret = rs;
	else
		cr_sc_ruleset_done(&rs);
	for (size_t i = 0; i < p.n_assigns; i++)
		free(p.assigns[i].name);
	free(p.assigns);
	return r;
}
