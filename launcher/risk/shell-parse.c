/* SPDX-License-Identifier: MIT */
/* The shell parser: a lexer that reads words (quotes, escapes, expansions, with $(...), `...`
 * and <(...) parsed recursively as they are met) and operators, and a recursive-descent parser
 * over lists, and-or lists, pipelines and commands. Compound commands are parsed well enough to
 * find the simple commands inside: subshells, { } groups, case and function definitions are
 * parsed properly; if/while/for keywords are skipped where they stand. Here-document bodies are
 * read when their operator is met and skipped when the lexer reaches them.
 *
 * This file holds the parser; the lexer is in shell-lex.c, and what both see in
 * shell-internal.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "shell-internal.h"
#include "shell-parse.h"

/* What parse_command() found. */
enum {
	CMD_EMPTY,
	CMD_TERM,
	CMD_DONE,
	NOT_RESERVED
};

int sh_syntax(struct parser *p, const char *fmt, ...)
{
	char reason[256];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return cr_msg(p->out->msg, p->out->msg_size, -EINVAL, "%s", reason);
}

static int parse_command(struct parser *p, enum ctx ctx);

static void command_done(struct cr_sh_command *c)
{
	for (size_t i = 0; i < c->n_assigns; i++)
		sh_word_done(&c->assigns[i]);
	for (size_t i = 0; i < c->n_words; i++)
		sh_word_done(&c->words[i]);
	for (size_t i = 0; i < c->n_redirs; i++)
		sh_word_done(&c->redirs[i].target);
	free(c->assigns);
	free(c->words);
	free(c->redirs);
	free(c->function);
	*c = (struct cr_sh_command){};
}

/* The commands read while token @t was, not yet in a command of their own, are @c's. */
static void adopt(struct parser *p, const struct cr_sh_command *c, const struct token *t)
{
	struct cr_sh_script *s = &p->out->script;

	for (size_t i = t->cmd_mark; i < s->n_commands; i++)
		if (s->commands[i].owner < 0 && s->commands[i].id > t->serial)
			s->commands[i].owner = (int)c->id;
}

static int add_word(struct cr_sh_word **v, size_t *n, struct cr_sh_word *w)
{
	struct cr_sh_word *a = reallocarray(*v, *n + 1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	*v = a;
	a[(*n)++] = *w;
	*w = (struct cr_sh_word){};
	return 0;
}

static int append_command(struct parser *p, struct cr_sh_command *c)
{
	struct cr_sh_script *s = &p->out->script;
	struct cr_sh_command *a;

	if (c->n_words + c->n_assigns + c->n_redirs == 0) {
		command_done(c);
		return 0;
	}
	if (p->function && !(c->function = strdup(p->function)))
		return command_done(c), -ENOMEM;
	a = reallocarray(s->commands, s->n_commands + 1, sizeof(*a));
	if (!a)
		return command_done(c), -ENOMEM;
	s->commands = a;
	a[s->n_commands++] = *c;
	*c = (struct cr_sh_command){};
	return 0;
}

/* The lines of a here-document from where the bodies of this line start, up to @delim. */
static int read_heredoc(struct parser *p, const char *delim, bool strip, bool literal,
			struct cr_sh_word *ret)
{
	const char *nl = memchr(p->s + p->pos, '\n', p->len - p->pos);
	size_t start = p->hd_pending ? p->hd_end : nl ? (size_t)(nl - p->s) + 1 : p->len;
	size_t line = start, next = p->len;
	struct buf b = {};
	struct parser sub;
	unsigned flags = CR_SH_WORD_QUOTED;
	int r = 0;

	while (line < p->len) {
		const char *e = memchr(p->s + line, '\n', p->len - line);
		size_t le = e ? (size_t)(e - p->s) : p->len, ls = line;

		while (strip && ls < le && p->s[ls] == '\t')
			ls++;
		if (le - ls == strlen(delim) && memcmp(p->s + ls, delim, le - ls) == 0) {
			next = e ? le + 1 : p->len;
			break;
		}
		if (r >= 0)
			r = sh_buf_add(&b, p->s + ls, (e ? le + 1 : le) - ls);
		line = e ? le + 1 : p->len;
	}
	if (!p->hd_pending)
		p->hd_start = start;
	p->hd_end = next;
	p->hd_pending = start < p->len || nl;
	if (r >= 0 && !literal && b.s) {
		struct buf exp = {};

		flags = 0;
		r = sh_sub_init(&sub, p, b.s, b.n);
		if (r >= 0)
			r = sh_lex_dquoted(&sub, &exp, &flags, &ret->var, true);
		if (sub.has_ahead) /* left by an error in a $(...) of the body */
			sh_token_done(&sub.ahead);
		free(b.s);
		b = exp;
	}
	if (r >= 0 && !b.s)
		r = sh_buf_add(&b, "", 0);
	if (r < 0)
		return free(b.s), r;
	ret->text = b.s;
	ret->flags = flags;
	return 0;
}

/* The target of redirection operator @t, into @c. */
static int parse_redir(struct parser *p, struct cr_sh_command *c, const struct token *t)
{
	static const enum cr_sh_redir_op map[] = {
		[R_IN] = CR_SH_REDIR_IN,
		[R_OUT] = CR_SH_REDIR_OUT,
		[R_APPEND] = CR_SH_REDIR_APPEND,
		[R_CLOBBER] = CR_SH_REDIR_OUT,
		[R_RDWR] = CR_SH_REDIR_RDWR,
		[R_HEREDOC] = CR_SH_REDIR_HEREDOC,
		[R_HEREDOC_STRIP] = CR_SH_REDIR_HEREDOC,
		[R_HERESTRING] = CR_SH_REDIR_HERESTRING,
		[R_DUP_IN] = CR_SH_REDIR_DUP,
		[R_DUP_OUT] = CR_SH_REDIR_DUP,
		[R_AND_OUT] = CR_SH_REDIR_OUT_ERR,
		[R_AND_APPEND] = CR_SH_REDIR_APPEND_ERR,
	};
	struct cr_sh_redir rd = {.fd = t->fd, .op = map[t->op]};
	struct cr_sh_redir *a;
	struct token w = {};
	int r;

	r = sh_next_token(p, &w);
	if (r < 0)
		return r;
	if (w.type != T_WORD)
		return sh_token_done(&w), sh_syntax(p, "a redirection without its target");
	if (t->op == R_HEREDOC || t->op == R_HEREDOC_STRIP) {
		r = read_heredoc(p, w.word.text, t->op == R_HEREDOC_STRIP,
				 w.word.flags & CR_SH_WORD_QUOTED, &rd.target);
		adopt(p, c, &w);
		sh_token_done(&w);
		if (r < 0)
			return sh_word_done(&rd.target), r;
	} else {
		adopt(p, c, &w);
		rd.target = w.word;
		if ((t->op == R_DUP_IN || t->op == R_DUP_OUT) &&
		    strspn(rd.target.text, "0123456789-") != strlen(rd.target.text))
			rd.op = t->op == R_DUP_IN ? CR_SH_REDIR_IN : CR_SH_REDIR_OUT_ERR;
	}
	a = reallocarray(c->redirs, c->n_redirs + 1, sizeof(*a));
	if (!a)
		return sh_word_done(&rd.target), -ENOMEM;
	c->redirs = a;
	a[c->n_redirs++] = rd;
	return 0;
}

/* Redirections after a compound command: a command of their own, with no words. */
static int parse_trailing_redirs(struct parser *p, unsigned id)
{
	struct cr_sh_command c = {.id = id, .owner = -1};
	struct token t = {};
	int r = 0;

	while (r >= 0 && (r = sh_next_token(p, &t)) >= 0 && t.type == T_REDIR)
		r = parse_redir(p, &c, &t);
	if (r >= 0)
		sh_push_back(p, &t);
	if (r >= 0)
		r = append_command(p, &c);
	command_done(&c);
	return r < 0 ? r : CMD_DONE;
}

/* The body of a list that must end with @close: "(" then ")", "{" then "}". */
static int parse_group(struct parser *p, enum ctx ctx, unsigned id)
{
	struct token t = {};
	int r;

	if (++p->depth > CR_SH_MAX_DEPTH)
		return sh_syntax(p, "nested more than %d levels deep", CR_SH_MAX_DEPTH);
	r = sh_parse_list(p, ctx);
	if (r >= 0)
		r = sh_next_token(p, &t);
	if (r >= 0 && ctx == CTX_PAREN && !(t.type == T_OP && t.op == OP_RPAREN))
		r = sh_syntax(p, "a '(' without its ')'");
	if (r >= 0 && ctx == CTX_BRACE && !(t.type == T_WORD && cr_sh_word_is(&t.word, "}")))
		r = sh_syntax(p, "a '{' without its '}'");
	sh_token_done(&t);
	p->depth--;
	return r < 0 ? r : parse_trailing_redirs(p, id);
}

/* Text up to the "))" that closes "((" at the parser's position: arithmetic, opaque. */
static int skip_arith(struct parser *p)
{
	unsigned depth = 0;

	do {
		int c = peekc(p, 0);

		if (c < 0)
			return sh_syntax(p, "a '((' without its '))'");
		depth += c == '(';
		depth -= c == ')';
		p->pos++;
	} while (depth > 0);
	return 0;
}

static int expect_word(struct parser *p, struct token *t, const char *what)
{
	int r = sh_next_token(p, t);

	if (r >= 0 && t->type != T_WORD)
		r = sh_syntax(p, "%s", what);
	return r;
}

static int skip_newlines(struct parser *p)
{
	struct token t = {};
	int r;

	while ((r = sh_next_token(p, &t)) >= 0 && t.type == T_NEWLINE)
		;
	if (r >= 0)
		sh_push_back(p, &t);
	return r;
}

/* case WORD in [(]PATTERN[|PATTERN]...) LIST ;; ... esac */
static int parse_case(struct parser *p, unsigned id)
{
	struct token t = {};
	int r;

	r = expect_word(p, &t, "case without its word");
	sh_token_done(&t);
	if (r >= 0 && (r = skip_newlines(p)) >= 0 && (r = sh_next_token(p, &t)) >= 0 &&
	    !(t.type == T_WORD && cr_sh_word_is(&t.word, "in")))
		r = sh_syntax(p, "case without 'in'");
	sh_token_done(&t);
	while (r >= 0 && (r = skip_newlines(p)) >= 0 && (r = sh_next_token(p, &t)) >= 0) {
		if (t.type == T_WORD && cr_sh_word_is(&t.word, "esac"))
			break;
		if (t.type == T_OP && t.op == OP_LPAREN)
			sh_token_done(&t), r = sh_next_token(p, &t);
		while (r >= 0 && t.type == T_WORD) {
			sh_token_done(&t);
			if ((r = sh_next_token(p, &t)) >= 0 && t.type == T_OP && t.op == OP_PIPE)
				sh_token_done(&t), r = sh_next_token(p, &t);
		}
		if (r >= 0 && !(t.type == T_OP && t.op == OP_RPAREN))
			r = sh_syntax(p, "a case pattern without its ')'");
		if (r >= 0 && ++p->depth > CR_SH_MAX_DEPTH)
			r = sh_syntax(p, "nested more than %d levels deep", CR_SH_MAX_DEPTH);
		if (r >= 0)
			r = sh_parse_list(p, CTX_CASE);
		p->depth--;
		sh_token_done(&t);
		if (r >= 0)
			r = sh_next_token(p, &t);
		if (r >= 0 && t.type == T_WORD && cr_sh_word_is(&t.word, "esac"))
			break;
		if (r >= 0 && !(t.type == T_OP &&
				(t.op == OP_DSEMI || t.op == OP_SEMI_AND || t.op == OP_DSEMI_AND)))
			r = sh_syntax(p, "case without its 'esac'");
		sh_token_done(&t);
	}
	sh_token_done(&t);
	return r < 0 ? r : parse_trailing_redirs(p, id);
}

/* A function's body, named @name, whatever compound command it is. */
static int parse_function_body(struct parser *p, const struct cr_sh_word *w)
{
	unsigned computed =
		CR_SH_WORD_QUOTED | CR_SH_WORD_EXPANDS | CR_SH_WORD_SUBST | CR_SH_WORD_PROCSUBST;
	struct cr_sh_script *s = &p->out->script;
	const char *saved = p->function, *name = w->text;
	bool valid = name[0] && !(w->flags & computed);
	char **v, *n = strdup(name);
	int r;

	v = n ? reallocarray(s->functions, s->n_functions + 1, sizeof(*v)) : NULL;
	if (!v)
		return free(n), -ENOMEM;
	s->functions = v;
	/* bash refuses a name that is empty, quoted or expanded ("not a valid identifier") and
	 * defines nothing: `"sudo"() { :; }; sudo ...` runs the real sudo. Such a name is not
	 * listed, so that later commands of that name are still classified as programs. */
	if (valid)
		v[s->n_functions++] = n;
	r = skip_newlines(p);
	p->function = n;
	if (r >= 0)
		r = parse_command(p, CTX_TOP);
	p->function = saved;
	if (!valid)
		free(n); /* the commands of the body keep copies */
	if (r >= 0 && r != CMD_DONE)
		r = sh_syntax(p, "function %s without its body", name);
	return r;
}

/* for NAME [in WORDS...] and for ((...)): the loop head, skipped. */
static int parse_for(struct parser *p)
{
	struct token t = {};
	int r;

	sh_skip_blanks(p);
	if (peekc(p, 0) == '(' && peekc(p, 1) == '(')
		return skip_arith(p) < 0 ? -EINVAL : CMD_EMPTY;
	r = expect_word(p, &t, "for without its variable");
	while (r >= 0) {
		sh_token_done(&t);
		r = sh_next_token(p, &t);
		if (r < 0 || t.type != T_WORD || cr_sh_word_is(&t.word, "do"))
			break;
	}
	if (r >= 0)
		sh_push_back(p, &t);
	sh_token_done(&t);
	return r < 0 ? r : CMD_EMPTY;
}

/* [[ ... ]] (bash): its operators are words; kept as a command "[[". Redirections after the
 * "]]" make a command of their own, which takes the id of the "]]": ids are unique (risk-rules.c
 * looks owners up by id), and "[[" already has the id of its first token. */
static int parse_dbracket(struct parser *p, struct token *first)
{
	struct cr_sh_command c = {.id = first->serial, .owner = -1};
	struct token t = {};
	unsigned close_id = 0;
	int r;

	r = add_word(&c.words, &c.n_words, &first->word);
	while (r >= 0 && (r = sh_next_token(p, &t)) >= 0 &&
	       !(t.type == T_WORD && cr_sh_word_is(&t.word, "]]"))) {
		if (t.type == T_EOF || t.type == T_NEWLINE)
			r = sh_syntax(p, "'[[' without its ']]'");
		if (t.type == T_WORD)
			adopt(p, &c, &t);
		sh_token_done(&t);
	}
	close_id = t.serial;
	sh_token_done(&t);
	if (r >= 0)
		r = append_command(p, &c);
	command_done(&c);
	return r < 0 ? r : parse_trailing_redirs(p, close_id);
}

/* A reserved word at the start of a command; NOT_RESERVED if @t is not one. */
static int parse_reserved(struct parser *p, enum ctx ctx, struct token *t)
{
	static const char *const skipped[] = {"!",     "if",    "then", "elif", "else",
					      "while", "until", "do",   NULL};
	struct token name = {};
	int r;

	for (size_t i = 0; skipped[i]; i++)
		if (cr_sh_word_is(&t->word, skipped[i])) {
			if (++p->depth > CR_SH_MAX_DEPTH)
				return sh_syntax(p, "nested more than %d levels deep",
						 CR_SH_MAX_DEPTH);
			r = parse_command(p, ctx);
			p->depth--;
			return r;
		}
	if (cr_sh_word_is(&t->word, "{"))
		return parse_group(p, CTX_BRACE, t->serial);
	if (cr_sh_word_is(&t->word, "fi") || cr_sh_word_is(&t->word, "done"))
		return parse_trailing_redirs(p, t->serial);
	if (cr_sh_word_is(&t->word, "}") || cr_sh_word_is(&t->word, "esac")) {
		if (ctx == (cr_sh_word_is(&t->word, "}") ? CTX_BRACE : CTX_CASE)) {
			sh_push_back(p, t);
			return CMD_TERM;
		}
		return sh_syntax(p, "unexpected '%s'", t->word.text);
	}
	if (cr_sh_word_is(&t->word, "for") || cr_sh_word_is(&t->word, "select"))
		return parse_for(p);
	if (cr_sh_word_is(&t->word, "case"))
		return parse_case(p, t->serial);
	if (cr_sh_word_is(&t->word, "[["))
		return parse_dbracket(p, t);
	if (!cr_sh_word_is(&t->word, "function"))
		return NOT_RESERVED;
	r = expect_word(p, &name, "function without its name");
	sh_skip_blanks(p);
	if (r >= 0 && peekc(p, 0) == '(' && peekc(p, 1) == ')')
		p->pos += 2;
	if (r >= 0)
		r = parse_function_body(p, &name.word);
	sh_token_done(&name);
	return r;
}

/* NAME ( ) after the first word: a function definition. */
static int maybe_function(struct parser *p, struct cr_sh_command *c, struct token *t, bool *ret)
{
	struct token close = {};
	int r;

	*ret = false;
	if (!(t->type == T_OP && t->op == OP_LPAREN) || c->n_words != 1 || c->n_assigns ||
	    c->n_redirs)
		return 0;
	r = sh_next_token(p, &close);
	if (r >= 0 && !(close.type == T_OP && close.op == OP_RPAREN))
		r = sh_syntax(p, "unexpected '(' after '%s'", c->words[0].text);
	sh_token_done(&close);
	if (r >= 0)
		r = parse_function_body(p, &c->words[0]);
	*ret = r >= 0;
	return r;
}

static int parse_simple(struct parser *p, struct token *t)
{
	struct cr_sh_command c = {.id = t->serial, .owner = -1};
	bool func = false;
	int r = 0;

	for (;;) {
		if (t->type == T_WORD) {
			adopt(p, &c, t);
			if (c.n_words == 0 &&
			    sh_is_assignment_prefix(
				    &(struct buf){.s = t->word.text,
						  .n = strcspn(t->word.text, "=") + 1},
				    0) &&
			    strchr(t->word.text, '='))
				r = add_word(&c.assigns, &c.n_assigns, &t->word);
			else
				r = add_word(&c.words, &c.n_words, &t->word);
		} else if (t->type == T_REDIR) {
			r = parse_redir(p, &c, t);
		} else {
			r = maybe_function(p, &c, t, &func);
			if (r >= 0 && !func)
				sh_push_back(p, t);
			break;
		}
		sh_token_done(t);
		if (r < 0 || (r = sh_next_token(p, t)) < 0)
			break;
	}
	sh_token_done(t);
	if (r >= 0 && !func)
		r = append_command(p, &c);
	command_done(&c);
	return r < 0 ? r : CMD_DONE;
}

static bool ends_command(const struct token *t)
{
	return t->type == T_EOF || t->type == T_NEWLINE || (t->type == T_OP && t->op != OP_LPAREN);
}

static int parse_command(struct parser *p, enum ctx ctx)
{
	struct token t = {};
	int r;

	r = sh_next_token(p, &t);
	if (r < 0)
		return r;
	if (ends_command(&t)) {
		bool term = t.type == T_EOF || (t.type == T_OP && t.op == OP_RPAREN) ||
			    (t.type == T_OP &&
			     (t.op == OP_DSEMI || t.op == OP_SEMI_AND || t.op == OP_DSEMI_AND));

		if (term && t.type == T_OP && t.op == OP_RPAREN && ctx != CTX_PAREN &&
		    ctx != CTX_CASE)
			return sh_syntax(p, "unexpected ')'");
		if (term && t.type == T_OP && t.op != OP_RPAREN && ctx != CTX_CASE)
			return sh_syntax(p, "unexpected ';;' outside case");
		sh_push_back(p, &t);
		return term ? CMD_TERM : CMD_EMPTY;
	}
	if (t.type == T_OP && t.op == OP_LPAREN) {
		if (peekc(p, 0) == '(' && p->pos--)
			return skip_arith(p) < 0 ? -EINVAL : parse_trailing_redirs(p, t.serial);
		return parse_group(p, CTX_PAREN, t.serial);
	}
	if (t.type == T_WORD) {
		r = parse_reserved(p, ctx, &t);
		if (r != NOT_RESERVED) {
			sh_token_done(&t);
			return r;
		}
	}
	return parse_simple(p, &t);
}

static void mark(struct parser *p, size_t from, bool *(*field)(struct cr_sh_command *))
{
	for (size_t i = from; i < p->out->script.n_commands; i++)
		*field(&p->out->script.commands[i]) = true;
}

static bool *field_piped_in(struct cr_sh_command *c)
{
	return &c->piped_in;
}

static bool *field_piped_out(struct cr_sh_command *c)
{
	return &c->piped_out;
}

static bool *field_background(struct cr_sh_command *c)
{
	return &c->background;
}

/* Is the next token one of the operators @a and @b? Consumed if so. */
static int next_is(struct parser *p, int a, int b)
{
	struct token t = {};
	int r = sh_next_token(p, &t);

	if (r < 0)
		return r;
	if (t.type == T_OP && (t.op == a || t.op == b))
		return 1;
	sh_push_back(p, &t);
	return 0;
}

static int parse_pipeline(struct parser *p, enum ctx ctx)
{
	size_t start = p->out->script.n_commands, next;
	int r = parse_command(p, ctx);

	while (r >= 0) {
		int s = next_is(p, OP_PIPE, OP_PIPE_AMP);

		if (s <= 0)
			return s < 0 ? s : r;
		if (r != CMD_DONE)
			return sh_syntax(p, "'|' without a command before it");
		mark(p, start, field_piped_out);
		next = p->out->script.n_commands;
		r = skip_newlines(p);
		if (r >= 0)
			r = parse_command(p, ctx);
		if (r >= 0 && r != CMD_DONE)
			return sh_syntax(p, "'|' without a command after it");
		mark(p, next, field_piped_in);
		start = next;
	}
	return r;
}

static int parse_and_or(struct parser *p, enum ctx ctx)
{
	int r = parse_pipeline(p, ctx);

	while (r >= 0) {
		int s = next_is(p, OP_AND, OP_OR);

		if (s <= 0)
			return s < 0 ? s : r;
		if (r != CMD_DONE)
			return sh_syntax(p, "'&&' or '||' without a command before it");
		r = skip_newlines(p);
		if (r >= 0)
			r = parse_pipeline(p, ctx);
		if (r >= 0 && r != CMD_DONE)
			return sh_syntax(p, "'&&' or '||' without a command after it");
	}
	return r;
}

/* Commands separated by ';', '&' and newlines, up to a token that ends @ctx's list, which is
 * left to be read. */
int sh_parse_list(struct parser *p, enum ctx ctx)
{
	struct token t = {};
	size_t start;
	int r;

	for (;;) {
		start = p->out->script.n_commands;
		r = parse_and_or(p, ctx);
		if (r >= 0)
			r = sh_next_token(p, &t);
		if (r < 0)
			return r;
		if (t.type == T_NEWLINE || (t.type == T_OP && t.op == OP_SEMI))
			continue;
		if (t.type == T_OP && t.op == OP_AMP) {
			mark(p, start, field_background);
			continue;
		}
		sh_push_back(p, &t);
		return 0;
	}
}

static int by_id(const void *a, const void *b)
{
	unsigned x = ((const struct cr_sh_command *)a)->id,
		 y = ((const struct cr_sh_command *)b)->id;

	return x < y ? -1 : x > y;
}

void cr_sh_script_done(struct cr_sh_script *s)
{
	for (size_t i = 0; i < s->n_commands; i++)
		command_done(&s->commands[i]);
	for (size_t i = 0; i < s->n_functions; i++)
		free(s->functions[i]);
	free(s->commands);
	free(s->functions);
	*s = (struct cr_sh_script){};
}

int cr_sh_parse(const char *text, struct cr_sh_script *ret, char *msg, size_t msg_size)
{
	struct out out = {.msg = msg, .msg_size = msg_size};
	struct parser p = {.out = &out, .s = text, .len = strlen(text)};
	struct token t = {};
	int r;

	if (p.len > CR_SH_MAX_INPUT)
		return cr_msg(msg, msg_size, -EINVAL, "the command line is longer than %d bytes",
			      CR_SH_MAX_INPUT);
	r = sh_parse_list(&p, CTX_TOP);
	if (r >= 0)
		r = sh_next_token(&p, &t);
	if (r >= 0 && t.type != T_EOF)
		r = sh_syntax(&p, "unexpected '%s'", sh_token_name(&t));
	sh_token_done(&t);
	if (p.has_ahead)
		sh_token_done(&p.ahead); /* left by an error */
	if (r < 0) {
		cr_sh_script_done(&out.script);
		return r == -ENOMEM ? cr_msg(msg, msg_size, r, "out of memory") : r;
	}
	if (out.script.n_commands > 1)
		qsort(out.script.commands, out.script.n_commands, sizeof(*out.script.commands),
		      by_id);
	*ret = out.script;
	return 0;
}
