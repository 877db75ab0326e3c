/* SPDX-License-Identifier: MIT */
/* What the parts of the risk classifier share: risk.c (the entry points: each command of a line
 * to its handler, the reasons), risk-rules.c (words, paths, the line around a command) and
 * risk-handlers.c (a handler per program, and their table). Not for other modules. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "launcher/base/macro.h"
#include "risk.h"
#include "shell-parse.h"

/* The analysis of one line, and of the shell text found inside it. */
struct ctx {
	const char *workspace;
	char *cwd;                         /* where relative paths start; NULL: unknown */
	const struct cr_sh_script *script; /* the text being analysed now */
	struct cr_risk *risk;
	unsigned depth;
	int err; /* -ENOMEM once an allocation failed */
};

/* An argument vector: a slice of a command's words. */
struct args {
	const struct cr_sh_word *w;
	size_t n;
	const struct cr_sh_command *cmd; /* where they come from (pipes, redirections) */
};

typedef void (*handler)(struct ctx *c, const struct args *a, const char *name);

/* Where a path points (risk_classify_path()). */
enum path_class {
	P_WORKSPACE, /* in the workspace */
	P_OUTSIDE,   /* elsewhere */
	P_HOME,     /* the home directory itself, or all that is in it: "~", "~/" followed by "*" */
	P_SYSTEM,   /* in a system directory */
	P_TOP,      /* "/", or a directory or glob right below it ("/etc", "/" then "*") */
	P_DEVICE,   /* a disk or memory device */
	P_HARMLESS, /* /dev/null, /dev/stdout, ... */
};

/* --- risk.c -------------------------------------------------------------------------------- */

/* A finding: @c's tier rises to @t if lower; the reason is kept once. Failure to allocate is
 * left in c->err. */
void risk_reason(struct ctx *c, enum cr_risk_tier t, const char *fmt, ...) _printf_(3, 4);
/* The program of @a and its arguments. */
void risk_classify_args(struct ctx *c, const struct args *a);
/* Shell text found inside the line (sh -c, eval, a here-document fed to a shell). */
void risk_analyse_text(struct ctx *c, const char *text, const char *what);

/* --- risk-rules.c: words and paths --------------------------------------------------------- */

/* The small word predicates every part uses. */
static inline const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash && slash[1] ? slash + 1 : s;
}

static inline bool is(const struct cr_sh_word *w, const char *s)
{
	return strcmp(w->text, s) == 0;
}

static inline bool is_option(const struct cr_sh_word *w)
{
	return w->text[0] == '-' && w->text[1] != '\0';
}

/* Is @w computed when the line runs: an expansion or substitution other than a leading $HOME? */
static inline bool is_computed(const struct cr_sh_word *w)
{
	unsigned f = w->flags & (CR_SH_WORD_EXPANDS | CR_SH_WORD_SUBST | CR_SH_WORD_PROCSUBST);
	const char *t = w->text;
	size_t h;

	if (!f)
		return false;
	h = strncmp(t, "$HOME", 5) == 0 && !((t[5] >= 'A' && t[5] <= 'Z') || t[5] == '_') ? 5
	    : strncmp(t, "${HOME}", 7) == 0                                               ? 7
											  : 0;
	return h == 0 || strpbrk(t + h, "$`") != NULL;
}

/* What a computed word depends on, for reasons. */
static inline const char *depends_on(const struct cr_sh_word *w, char *buf, size_t size)
{
	if (w->var)
		(void)snprintf(buf, size, "$%s", w->var);
	else
		(void)snprintf(buf, size, "a command's output");
	return buf;
}

/* "/a/./b/../c" -> "/a/c", in place; the result is absolute. */
void risk_normalize(char *p);
/* Is @s one of the NULL-terminated @v? */
bool risk_is_in(const char *s, const char *const *v);
/* Where @w points. Computed words are the caller's business. */
enum path_class risk_classify_path(struct ctx *c, const struct cr_sh_word *w);
/* Program @name touches @w, which names a credential file (~/.ssh/id_*, ...): dangerous. */
void risk_check_secret(struct ctx *c, const char *name, const struct cr_sh_word *w);
/* @name reads @w: a secret is dangerous, a path outside the workspace caution. */
void risk_check_read(struct ctx *c, const char *name, const struct cr_sh_word *w);
/* @name writes @w: a secret, a device or a system path is dangerous; a path outside the
 * workspace, or one the line computes, caution. */
void risk_check_write(struct ctx *c, const char *name, const struct cr_sh_word *w);
/* @f on each operand of @a from @from on: the words that are not options (all after "--"). */
void risk_each_operand(struct ctx *c, const struct args *a, size_t from, const char *name,
		       void (*f)(struct ctx *, const char *, const struct cr_sh_word *));
/* The index of the @k-th operand (0-based) at or after @from; a->n if none. */
size_t risk_operand(const struct args *a, size_t from, size_t k);
/* Does @a give, before "--", one of the short options in @shorts (alone or in a cluster) or
 * one of the long ones in @longs (NULL-ended)? */
bool risk_has_option(const struct args *a, const char *shorts, const char *const *longs);

/* --- risk-rules.c: the line around a command ----------------------------------------------- */

/* Is a command inside @cmd's words (at any depth) a downloader? */
bool risk_downloads_inside(const struct ctx *c, const struct cr_sh_command *cmd);
/* A program reads code from its standard input: piped, here-document or here-string. */
void risk_code_from_stdin(struct ctx *c, const struct args *a, const char *name, bool shell);

/* --- risk-handlers.c ----------------------------------------------------------------------- */

/* The handler of program @name (a base name), or NULL if corral does not know it. */
handler risk_find_handler(const char *name);
/* A program corral does not know. */
void risk_unknown_program(struct ctx *c, const struct args *a, const char *name);
/* NAME=VALUE, or a bare NAME (export NAME): variables that make programs load code. */
void risk_check_assignment(struct ctx *c, const char *text);
