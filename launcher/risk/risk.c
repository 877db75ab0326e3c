/* SPDX-License-Identifier: MIT */
/* Command risk analysis: the simple commands launcher/risk/shell-parse.c finds, classified by a
 * table of known programs and by the paths they touch. A command starts safe; every finding is a
 * reason with a tier, and the line takes the worst.
 *
 *   safe       read-only tools (ls, cat, grep, find, git status, ...) on workspace paths
 *   caution    destructive but common: rm, mv, cp, chmod, sed -i, git reset, writes through >,
 *              package installs, the network, and reading or writing outside the workspace
 *   unknown    a program not in the table, code corral cannot see (python3 -c, make, sh FILE,
 *              sh -c "$VAR"), a path the line computes for rm -r, a line that does not parse
 *   dangerous  sudo/su/doas/pkexec, rm -r or chmod/chown on / or a system directory or the
 *              home directory, writes to system paths and disk devices, mkfs, shutdown,
 *              kill -1, downloaded code run (curl | sh, sh -c "$(curl)", bash <(curl)), fork
 *              bombs, LD_PRELOAD/BASH_ENV/... injection, eval of computed text, nc -e, reading
 *              secrets (~/.ssh/id_*, ~/.aws/credentials, ...), git push --force
 *
 * A program is looked up by its base name; wrappers (command, exec, nohup, time, nice, timeout,
 * env, xargs, sudo, ...) are seen through, and sh -c, bash -c, eval and here-documents fed to a
 * shell are analysed as shell text of their own. "~" and "$HOME" are outside the workspace.
 *
 * This file holds the entry points: a line's commands, each to its handler, and the reasons
 * gathered. The handlers and the table of programs are in risk-handlers.c, what they share
 * (words, paths, the line around a command) in risk-rules.c: risk-internal.h. */
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/json-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "risk-internal.h"
#include "risk.h"
#include "shell-parse.h"

#define MAX_NESTING 8 /* sh -c 'sh -c ...' and eval levels */

static const char *const tier_names[_CR_RISK_MAX] = {
	[CR_RISK_SAFE] = "safe",
	[CR_RISK_CAUTION] = "caution",
	[CR_RISK_UNKNOWN] = "unknown",
	[CR_RISK_DANGEROUS] = "dangerous",
};

const char *cr_risk_tier_to_string(enum cr_risk_tier t)
{
	return t >= 0 && t < _CR_RISK_MAX ? tier_names[t] : NULL;
}

enum cr_risk_tier cr_risk_tier_from_string(const char *s)
{
	for (int i = 0; s && i < _CR_RISK_MAX; i++)
		if (strcmp(s, tier_names[i]) == 0)
			return i;
	return _CR_RISK_INVALID;
}

static int strv_push(char ***v, size_t *n, char *s)
{
	char **a;

	if (!s)
		return -ENOMEM;
	a = reallocarray(*v, *n + 2, sizeof(*a));
	if (!a)
		return free(s), -ENOMEM;
	*v = a;
	a[(*n)++] = s;
	a[*n] = NULL;
	return 0;
}

void risk_reason(struct ctx *c, enum cr_risk_tier t, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int r;

	if (t > c->risk->tier)
		c->risk->tier = t;
	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0) {
		c->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < c->risk->n_reasons; i++)
		if (strcmp(c->risk->reasons[i], s) == 0)
			return free(s);
	if (strv_push(&c->risk->reasons, &c->risk->n_reasons, s) < 0)
		c->err = -ENOMEM;
}

static bool is_function(const struct ctx *c, const char *name)
{
	for (size_t i = 0; i < c->script->n_functions; i++)
		if (strcmp(c->script->functions[i], name) == 0)
			return true;
	return false;
}

/* The program of @a and its arguments. */
void risk_classify_args(struct ctx *c, const struct args *a)
{
	const struct cr_sh_word *w0 = &a->w[0];
	const char *name = base_name(w0->text);
	const struct cr_sh_command *cmd = a->cmd;
	char buf[64];
	handler h;

	if (++c->depth > MAX_NESTING * 8) {
		risk_reason(c, CR_RISK_UNKNOWN, "commands nested too deeply to analyse");
	} else if (w0->flags & (CR_SH_WORD_EXPANDS | CR_SH_WORD_SUBST | CR_SH_WORD_PROCSUBST)) {
		risk_reason(c,
			    cmd && risk_downloads_inside(c, cmd) ? CR_RISK_DANGEROUS
								 : CR_RISK_UNKNOWN,
			    "the program to run depends on %s, which corral cannot know",
			    depends_on(w0, buf, sizeof(buf)));
	} else if (is_function(c, w0->text)) {
		if (cmd && cmd->function && strcmp(cmd->function, w0->text) == 0 &&
		    (cmd->piped_in || cmd->piped_out || cmd->background))
			risk_reason(c, CR_RISK_DANGEROUS,
				    "a fork bomb: function %s starts copies of itself without end",
				    w0->text);
		/* A function named like a known program does not hide it: the definition may not
		 * be in force here (a branch not taken, a subshell, `unset -f`), and `command
		 * NAME` skips it. Judge the program as well. */
		if ((h = risk_find_handler(name)))
			h(c, a, name);
	} else if ((h = risk_find_handler(name))) {
		h(c, a, name);
	} else {
		risk_unknown_program(c, a, name);
	}
	c->depth--;
}

/* Redirections of @cmd: writes and reads of files. */
static void check_redirs(struct ctx *c, const struct cr_sh_command *cmd)
{
	/* A command of redirections only (`> f`, or those after a compound command) has no name. */
	const char *name = cmd->n_words ? base_name(cmd->words[0].text) : "a command";

	for (size_t i = 0; i < cmd->n_redirs; i++) {
		const struct cr_sh_redir *r = &cmd->redirs[i];

		switch (r->op) {
		case CR_SH_REDIR_OUT:
		case CR_SH_REDIR_APPEND:
		case CR_SH_REDIR_RDWR:
		case CR_SH_REDIR_OUT_ERR:
		case CR_SH_REDIR_APPEND_ERR:
			if (!is_computed(&r->target) &&
			    risk_classify_path(c, &r->target) == P_HARMLESS)
				break;
			risk_reason(c, CR_RISK_CAUTION, "%s writes to %s through a redirection",
				    name, r->target.text);
			risk_check_write(c, name, &r->target);
			break;
		case CR_SH_REDIR_IN:
			risk_check_read(c, name, &r->target);
			break;
		case CR_SH_REDIR_DUP:
		case CR_SH_REDIR_HEREDOC:
		case CR_SH_REDIR_HERESTRING:
		default:
			break;
		}
	}
}

/* "A=1 prog arg ...", for the list of commands. */
static int add_command_text(struct ctx *c, const struct cr_sh_command *cmd)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f;

	if (cmd->n_words + cmd->n_assigns == 0)
		return 0;
	f = open_memstream(&s, &len);
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < cmd->n_assigns; i++)
		fprintf(f, "%s%s", i ? " " : "", cmd->assigns[i].text);
	for (size_t i = 0; i < cmd->n_words; i++)
		fprintf(f, "%s%s", i || cmd->n_assigns ? " " : "", cmd->words[i].text);
	if (fclose(f) != 0) {
		free(s);
		return -ENOMEM;
	}
	return strv_push(&c->risk->commands, &c->risk->n_commands, s);
}

static void classify_command(struct ctx *c, const struct cr_sh_command *cmd)
{
	if (add_command_text(c, cmd) < 0)
		c->err = -ENOMEM;
	for (size_t i = 0; i < cmd->n_assigns; i++)
		risk_check_assignment(c, cmd->assigns[i].text);
	check_redirs(c, cmd);
	if (cmd->n_words > 0)
		risk_classify_args(c, &(struct args){cmd->words, cmd->n_words, cmd});
}

static void classify_script(struct ctx *c, const struct cr_sh_script *s)
{
	const struct cr_sh_script *saved = c->script;

	c->script = s;
	for (size_t i = 0; i < s->n_commands; i++)
		classify_command(c, &s->commands[i]);
	c->script = saved;
}

/* Shell text found inside the line (sh -c, eval, a here-document fed to a shell). */
void risk_analyse_text(struct ctx *c, const char *text, const char *what)
{
	struct cr_sh_script s = {};
	char msg[256];
	int r;

	if (c->depth >= MAX_NESTING * 4) {
		risk_reason(c, CR_RISK_UNKNOWN, "%s: shell text nested too deeply to analyse",
			    what);
		return;
	}
	r = cr_sh_parse(text, &s, msg, sizeof(msg));
	if (r == -ENOMEM) {
		c->err = r;
		return;
	}
	if (r < 0) {
		risk_reason(c, CR_RISK_UNKNOWN, "%s runs text that does not parse: %s", what, msg);
		return;
	}
	c->depth += 4;
	classify_script(c, &s);
	c->depth -= 4;
	cr_sh_script_done(&s);
}

static int ctx_init(struct ctx *c, const char *workspace, struct cr_risk *risk)
{
	*risk = (struct cr_risk){.tier = CR_RISK_SAFE};
	*c = (struct ctx){.workspace = workspace, .risk = risk};
	if (workspace && !(c->cwd = strdup(workspace)))
		return -ENOMEM;
	return 0;
}

static int ctx_finish(struct ctx *c, struct cr_risk *ret)
{
	free(c->cwd);
	if (c->err < 0) {
		cr_risk_done(c->risk);
		return c->err;
	}
	*ret = *c->risk;
	return 0;
}

int cr_risk_shell(const char *script, const char *workspace, struct cr_risk *ret)
{
	struct cr_sh_script s = {};
	struct cr_risk risk;
	struct ctx c;
	char msg[256];
	int r;

	r = ctx_init(&c, workspace, &risk);
	if (r < 0)
		return r;
	r = cr_sh_parse(script, &s, msg, sizeof(msg));
	if (r == -ENOMEM)
		c.err = r;
	else if (r < 0)
		risk_reason(&c, CR_RISK_UNKNOWN, "the command line does not parse: %s", msg);
	else
		classify_script(&c, &s);
	cr_sh_script_done(&s);
	return ctx_finish(&c, ret);
}

int cr_risk_argv(char *const *argv, const char *workspace, struct cr_risk *ret)
{
	_cleanup_free_ struct cr_sh_word *w = NULL;
	struct cr_sh_command cmd = {.owner = -1};
	struct cr_sh_script s = {.commands = &cmd, .n_commands = 1};
	struct cr_risk risk;
	struct ctx c;
	size_t n = 0;
	int r;

	while (argv && argv[n])
		n++;
	r = ctx_init(&c, workspace, &risk);
	if (r < 0)
		return r;
	w = calloc(n + 1, sizeof(*w));
	if (!w)
		c.err = -ENOMEM;
	for (size_t i = 0; w && i < n; i++)
		w[i].text = argv[i]; /* literal words: no shell reads them */
	cmd.words = w;
	cmd.n_words = n;
	if (w && n > 0)
		classify_script(&c, &s);
	return ctx_finish(&c, ret);
}

json_object *cr_risk_to_json(const struct cr_risk *r)
{
	json_object *o = json_object_new_object();
	int e;

	e = cr_json_add(o, "tier",
			json_object_new_string(cr_risk_tier_to_string(r->tier) ?: "unknown"));
	e = e ?: cr_json_add(o, "reasons", cr_json_strv(r->reasons, r->n_reasons));
	e = e ?: cr_json_add(o, "commands", cr_json_strv(r->commands, r->n_commands));
	return cr_json_whole(o, e);
}

void cr_risk_done(struct cr_risk *r)
{
	strv_freep(&r->reasons);
	strv_freep(&r->commands);
	*r = (struct cr_risk){};
}
