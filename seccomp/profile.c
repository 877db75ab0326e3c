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
 * inih (the system library) calls the handler without line numbers, so the profile is fed to
 * ini_parse_stream() by a reader that counts them. Its lines are at most INI_MAX_LINE (200)
 * bytes with "\r\n\0": a longer line is refused here, before inih would cut it. Any non-zero
 * return of ini_parse_stream() is an error. */
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/macro.h"
#include "seccomp-internal.h"

/* One line of the file: the syscalls it names get these rules, replacing earlier ones. */
struct assign {
	char *name; /* a syscall, or a group with its '@' */
	uint32_t action;
	bool deny;  /* "deny": each syscall's own refusal */
};

struct parse {
	const char *data, *end, *pos;
	const char *path;
	int line;
	int err_line; /* the first error found by us, 0 if none */
	char *msg;
	size_t msg_size;
	const char *base;
	bool have_base, have_default;
	uint32_t default_action;
	struct assign *assigns;
	size_t n_assigns;
};

static int fail(struct parse *p, const char *fmt, ...) _printf_(2, 3);
static int fail(struct parse *p, const char *fmt, ...)
{
	char reason[256];
	va_list ap;

	if (p->err_line)
		return 0;
	va_start(ap, fmt);
	(void)vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	p->err_line = p->line;
	(void)snprintf(p->msg, p->msg_size, "%s:%d: %s", p->path, p->line, reason);
	return 0; /* inih: an error on this line */
}

/* fgets() over the profile in memory, counting lines. inih's buffer (@size, INI_MAX_LINE) must
 * be 3 bytes longer than the longest line ("\r\n\0"): a longer line is an error here, and inih
 * sees it empty. */
static char *reader(char *buf, int size, void *userdata)
{
	struct parse *p = userdata;
	const char *nl;
	size_t len, max = size > 3 ? (size_t)size - 3 : 0;

	if (p->pos >= p->end)
		return NULL;
	nl = memchr(p->pos, '\n', (size_t)(p->end - p->pos));
	len = (size_t)((nl ? nl : p->end) - p->pos);
	p->line++;
	if (len > 0 && p->pos[len - 1] == '\r')
		len--;
	if (memchr(p->pos, '\0', len))
		(void)fail(p, "the line holds a NUL byte");
	if (len > max) {
		(void)fail(p, "the line is longer than %zu characters", max);
		len = 0; /* inih sees an empty line */
	}
	memcpy(buf, p->pos, len);
	buf[len] = '\0';
	p->pos = nl ? nl + 1 : p->end;
	return buf;
}

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

	if (strchr(value, '='))
		return fail(p,
			    "'%s' reads as a continuation of the rule for '%s' because it is indented; remove the indentation",
			    value, name);
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
		return fail(p, "out of memory");
	}
	n[p->n_assigns++] = a;
	p->assigns = n;
	return 1;
}

static int handler(void *userdata, const char *section, const char *name, const char *value)
{
	struct parse *p = userdata;

	if (strcmp(section, "profile") == 0)
		return on_profile_key(p, name, value);
	if (strcmp(section, "rules") == 0)
		return on_rule(p, name, value);
	if (!section[0])
		return fail(p, "'%s' comes before any section (expected [profile] or [rules])", name);
	return fail(p, "unknown section [%s] (expected [profile] or [rules])", section);
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
		.data = data, .end = data + size, .pos = data, .path = path,
		.msg = msg, .msg_size = msg_size, .base = "@default",
	};
	struct cr_sc_ruleset rs = {};
	int r;

	r = ini_parse_stream(reader, &p, handler, &p);
	if (p.err_line && (r == 0 || r >= p.err_line)) {
		r = -EINVAL; /* ours comes first (the reader's, for a long line, is not inih's) */
	} else if (r != 0) {
		/* inih's own complaint, on an earlier line than any of ours. */
		(void)snprintf(msg, msg_size,
			       r > 0 ? "%s:%d: syntax error (expected [SECTION], KEY = VALUE or a comment)"
				     : "%s: cannot be parsed (%d)",
			       path, r);
		r = -EINVAL;
	} else {
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
