/* SPDX-License-Identifier: MIT */
/* The shell parser: a lexer that reads words (quotes, escapes, expansions, with $(...), `...`
 * and <(...) parsed recursively as they are met) and operators, and a recursive-descent parser
 * over lists, and-or lists, pipelines and commands. Compound commands are parsed well enough to
 * find the simple commands inside: subshells, { } groups, case and function definitions are
 * parsed properly; if/while/for keywords are skipped where they stand. Here-document bodies are
 * read when their operator is met and skipped when the lexer reaches them. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "shell-parse.h"

enum tok_type {
	T_EOF,
	T_NEWLINE,
	T_WORD,
	T_OP,
	T_REDIR
};

enum op {
	OP_SEMI,
	OP_DSEMI,
	OP_SEMI_AND,
	OP_DSEMI_AND,
	OP_AMP,
	OP_AND,
	OP_OR,
	OP_PIPE,
	OP_PIPE_AMP,
	OP_LPAREN,
	OP_RPAREN
};

enum redir_kind {
	R_IN,
	R_OUT,
	R_APPEND,
	R_CLOBBER,
	R_RDWR,
	R_HEREDOC,
	R_HEREDOC_STRIP,
	R_HERESTRING,
	R_DUP_IN,
	R_DUP_OUT,
	R_AND_OUT,
	R_AND_APPEND
};

/* clang-format off */
static const struct { const char *s; enum tok_type type; int op; } operators[] = {
	{ ";;&", T_OP, OP_DSEMI_AND }, { ";;", T_OP, OP_DSEMI }, { ";&", T_OP, OP_SEMI_AND },
	{ ";", T_OP, OP_SEMI }, { "&&", T_OP, OP_AND }, { "&>>", T_REDIR, R_AND_APPEND },
	{ "&>", T_REDIR, R_AND_OUT }, { "&", T_OP, OP_AMP }, { "||", T_OP, OP_OR },
	{ "|&", T_OP, OP_PIPE_AMP }, { "|", T_OP, OP_PIPE }, { "(", T_OP, OP_LPAREN },
	{ ")", T_OP, OP_RPAREN }, { "<<<", T_REDIR, R_HERESTRING }, { "<<-", T_REDIR, R_HEREDOC_STRIP },
	{ "<<", T_REDIR, R_HEREDOC }, { "<>", T_REDIR, R_RDWR }, { "<&", T_REDIR, R_DUP_IN },
	{ "<", T_REDIR, R_IN }, { ">>", T_REDIR, R_APPEND }, { ">|", T_REDIR, R_CLOBBER },
	{ ">&", T_REDIR, R_DUP_OUT }, { ">", T_REDIR, R_OUT },
};
/* clang-format on */

/* What ends a list: the context it is parsed in. */
enum ctx {
	CTX_TOP,
	CTX_PAREN,
	CTX_BRACE,
	CTX_CASE
};

/* What parse_command() found. */
enum {
	CMD_EMPTY,
	CMD_TERM,
	CMD_DONE,
	NOT_RESERVED
};

struct buf {
	char *s;
	size_t n, cap;
};

struct token {
	enum tok_type type;
	int op; /* enum op or enum redir_kind */
	int fd;
	struct cr_sh_word word;
	size_t raw; /* where the token starts in the text */
	unsigned serial;
	size_t cmd_mark; /* the number of commands when it was read */
};

/* Shared by a parser and the parsers of the backquoted strings and here-documents inside. */
struct out {
	struct cr_sh_script script;
	unsigned serial;
	char *msg;
	size_t msg_size;
};

struct parser {
	struct out *out;
	const char *s;
	size_t len, pos;
	size_t hd_start, hd_end; /* here-document bodies still to skip */
	bool hd_pending;
	struct token ahead;
	bool has_ahead;
	unsigned depth;
	const char *function; /* borrowed from out->script.functions */
};

static int parse_list(struct parser *p, enum ctx ctx);
static int parse_command(struct parser *p, enum ctx ctx);
static int lex_dquoted(struct parser *p, struct buf *b, unsigned *flags, char **var, bool heredoc);

static int syntax(struct parser *p, const char *fmt, ...) _printf_(2, 3);
static int syntax(struct parser *p, const char *fmt, ...)
{
	char reason[256];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return cr_msg(p->out->msg, p->out->msg_size, -EINVAL, "%s", reason);
}

/* --- words ----------------------------------------------------------------------------------- */

static int buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 32;
		char *v;

		while (cap < b->n + n + 1)
			cap *= 2;
		v = realloc(b->s, cap);
		if (!v)
			return -ENOMEM;
		b->s = v;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
	return 0;
}

static int buf_addc(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

static void word_done(struct cr_sh_word *w)
{
	free(w->text);
	free(w->var);
	*w = (struct cr_sh_word){};
}

bool cr_sh_word_is(const struct cr_sh_word *w, const char *s)
{
	unsigned bad =
		CR_SH_WORD_QUOTED | CR_SH_WORD_EXPANDS | CR_SH_WORD_SUBST | CR_SH_WORD_PROCSUBST;

	return !(w->flags & bad) && w->text && strcmp(w->text, s) == 0;
}

static int peekc(const struct parser *p, size_t off)
{
	return p->pos + off < p->len ? (unsigned char)p->s[p->pos + off] : -1;
}

static bool is_name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(int c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static int set_var(char **var, const char *name, size_t n)
{
	if (*var)
		return 0;
	*var = strndup(name, n);
	return *var ? 0 : -ENOMEM;
}

/* A parser over @s (@len bytes) that writes into @parent's output, one level deeper. */
static int sub_init(struct parser *sub, const struct parser *parent, const char *s, size_t len)
{
	*sub = (struct parser){.out = parent->out,
			       .s = s,
			       .len = len,
			       .depth = parent->depth + 1,
			       .function = parent->function};
	if (sub->depth > CR_SH_MAX_DEPTH)
		return syntax(sub, "nested more than %d levels deep", CR_SH_MAX_DEPTH);
	return 0;
}

/* How @t is written, for messages. */
static const char *token_name(const struct token *t)
{
	if (t->type == T_WORD)
		return t->word.text;
	for (size_t i = 0; i < ELEMENTSOF(operators); i++)
		if (operators[i].type == t->type && operators[i].op == t->op)
			return operators[i].s;
	return t->type == T_NEWLINE ? "newline" : "end of input";
}

static void token_done(struct token *t)
{
	word_done(&t->word);
}

static int next_token(struct parser *p, struct token *t);

static void push_back(struct parser *p, struct token *t)
{
	p->ahead = *t;
	p->has_ahead = true;
	*t = (struct token){};
}

/* $(...) or <(...): the list up to the ')' that ends it, parsed in place. */
static int lex_subst(struct parser *p, const char *what)
{
	struct token t = {};
	int r;

	if (++p->depth > CR_SH_MAX_DEPTH)
		return syntax(p, "nested more than %d levels deep", CR_SH_MAX_DEPTH);
	r = parse_list(p, CTX_PAREN);
	if (r >= 0)
		r = next_token(p, &t);
	if (r >= 0 && !(t.type == T_OP && t.op == OP_RPAREN))
		r = syntax(p, "%s without its ')'", what);
	token_done(&t);
	p->depth--;
	return r;
}

/* `...`: the text up to the closing backquote, unescaped, parsed by a parser of its own. */
static int lex_backquote(struct parser *p, struct buf *b, bool in_dquote)
{
	struct buf inner = {};
	struct parser sub;
	size_t start = p->pos;
	int c, r = 0;

	for (p->pos++; (c = peekc(p, 0)) != '`'; p->pos++) {
		if (c < 0)
			return free(inner.s), syntax(p, "a '`' without its closing '`'");
		if (c == '\\' &&
		    (strchr("$`\\", peekc(p, 1)) || (in_dquote && peekc(p, 1) == '"')) &&
		    peekc(p, 1) > 0)
			c = p->s[++p->pos];
		if (buf_addc(&inner, (char)c) < 0)
			return free(inner.s), -ENOMEM;
	}
	p->pos++;
	r = sub_init(&sub, p, inner.s ?: "", inner.n);
	if (r >= 0)
		r = parse_list(&sub, CTX_TOP);
	if (r >= 0 && (sub.has_ahead ? sub.ahead.type : T_EOF) != T_EOF)
		r = syntax(p, "unexpected '%s' inside `...`",
			   sub.ahead.type == T_OP ? ")" : "token");
	if (sub.has_ahead)
		token_done(&sub.ahead);
	free(inner.s);
	if (r >= 0)
		r = buf_add(b, p->s + start, p->pos - start);
	return r;
}

/* ${...}: kept as written; substitutions inside are parsed. */
static int lex_brace_param(struct parser *p, struct buf *b, unsigned *flags, char **var)
{
	size_t start = p->pos, name, end;
	unsigned depth = 0;
	int c, r;

	p->pos += 2;
	name = p->pos + strspn(p->s + p->pos, "#!");
	end = name;
	while (end < p->len && is_name_char((unsigned char)p->s[end]))
		end++;
	if (end == name && end < p->len && strchr("@*#?$!-", p->s[end]))
		end++;
	if (end > name && (r = set_var(var, p->s + name, end - name)) < 0)
		return r;
	for (;;) {
		c = peekc(p, 0);
		if (c < 0)
			return syntax(p, "a '${' without its '}'");
		if (c == '}' && depth == 0)
			break;
		if (c == '\\') {
			p->pos += 2;
		} else if (c == '$' && peekc(p, 1) == '(') {
			p->pos += 2;
			if ((r = lex_subst(p, "$(")) < 0)
				return r;
			*flags |= CR_SH_WORD_SUBST;
		} else if (c == '`') {
			struct buf ignored = {};

			r = lex_backquote(p, &ignored, false);
			free(ignored.s);
			if (r < 0)
				return r;
			*flags |= CR_SH_WORD_SUBST;
		} else {
			depth += c == '{';
			depth -= c == '}';
			p->pos++;
		}
	}
	p->pos++;
	*flags |= CR_SH_WORD_EXPANDS;
	return buf_add(b, p->s + start, p->pos - start);
}

/* $((...)): opaque. */
static int lex_arith(struct parser *p, struct buf *b, unsigned *flags)
{
	size_t start = p->pos;
	unsigned depth = 2;
	int c;

	for (p->pos += 3; depth > 0; p->pos++) {
		c = peekc(p, 0);
		if (c < 0)
			return syntax(p, "a '$((' without its '))'");
		depth += c == '(';
		depth -= c == ')';
	}
	*flags |= CR_SH_WORD_EXPANDS;
	return buf_add(b, p->s + start, p->pos - start);
}

/* An expansion at '$', or a literal '$'. */
static int lex_dollar(struct parser *p, struct buf *b, unsigned *flags, char **var)
{
	int c = peekc(p, 1), r;
	size_t start = p->pos;

	if (c == '(' && peekc(p, 2) == '(')
		return lex_arith(p, b, flags);
	if (c == '(') {
		p->pos += 2;
		r = lex_subst(p, "$(");
		*flags |= CR_SH_WORD_SUBST;
		return r < 0 ? r : buf_add(b, p->s + start, p->pos - start);
	}
	if (c == '{')
		return lex_brace_param(p, b, flags, var);
	if (is_name_start(c)) {
		for (p->pos++; is_name_char(peekc(p, 0)); p->pos++)
			;
	} else if (c >= 0 && strchr("0123456789@*#?$!-", c)) {
		p->pos += 2;
	} else {
		p->pos++;
		return buf_addc(b, '$');
	}
	*flags |= CR_SH_WORD_EXPANDS;
	if ((r = set_var(var, p->s + start + 1, p->pos - start - 1)) < 0)
		return r;
	return buf_add(b, p->s + start, p->pos - start);
}

/* The inside of "...", after the opening quote; or a here-document's body (@heredoc: up to the
 * end, '"' is literal). */
static int lex_dquoted(struct parser *p, struct buf *b, unsigned *flags, char **var, bool heredoc)
{
	int c, r;

	for (;;) {
		c = peekc(p, 0);
		if (c < 0 && heredoc)
			return 0;
		if (c < 0)
			return syntax(p, "a '\"' without its closing '\"'");
		if (c == '"' && !heredoc) {
			p->pos++;
			return 0;
		}
		if (c == '\\' && peekc(p, 1) == '\n') {
			p->pos += 2;
			continue;
		}
		if (c == '\\' && peekc(p, 1) > 0 &&
		    strchr(heredoc ? "$`\\" : "$`\"\\", peekc(p, 1))) {
			r = buf_addc(b, p->s[p->pos + 1]);
			p->pos += 2;
		} else if (c == '$') {
			r = lex_dollar(p, b, flags, var);
		} else if (c == '`') {
			r = lex_backquote(p, b, true);
			*flags |= CR_SH_WORD_SUBST;
		} else {
			r = buf_addc(b, (char)c);
			p->pos++;
		}
		if (r < 0)
			return r;
	}
}

static int hex_value(int c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* Up to @max digits of base @base at the parser's position. */
static uint32_t read_number(struct parser *p, unsigned base, unsigned max)
{
	uint32_t v = 0;
	int d;

	for (unsigned i = 0; i < max && (d = hex_value(peekc(p, 0))) >= 0 && (unsigned)d < base;
	     i++) {
		v = v * base + (uint32_t)d;
		p->pos++;
	}
	return v;
}

static int add_utf8(struct buf *b, uint32_t u)
{
	char s[4];

	if (u < 0x80)
		return buf_addc(b, (char)u);
	if (u < 0x800) {
		s[0] = (char)(0xc0 | u >> 6);
		s[1] = (char)(0x80 | (u & 0x3f));
		return buf_add(b, s, 2);
	}
	if (u < 0x10000) {
		s[0] = (char)(0xe0 | u >> 12);
		s[1] = (char)(0x80 | ((u >> 6) & 0x3f));
		s[2] = (char)(0x80 | (u & 0x3f));
		return buf_add(b, s, 3);
	}
	s[0] = (char)(0xf0 | (u >> 18 & 0x07));
	s[1] = (char)(0x80 | ((u >> 12) & 0x3f));
	s[2] = (char)(0x80 | ((u >> 6) & 0x3f));
	s[3] = (char)(0x80 | (u & 0x3f));
	return buf_add(b, s, 4);
}

/* $'...' (bash): the escapes of C. */
static int lex_ansi(struct parser *p, struct buf *b)
{
	static const char from[] = "abefnrtv\\'\"?E", to[] = "\a\b\x1b\f\n\r\t\v\\'\"?\x1b";
	const char *e;
	int c, r;

	for (p->pos += 2; (c = peekc(p, 0)) != '\'';) {
		if (c < 0)
			return syntax(p, "a \"$'\" without its closing \"'\"");
		p->pos++;
		if (c != '\\') {
			r = buf_addc(b, (char)c);
		} else if ((c = peekc(p, 0)) < 0) {
			r = buf_addc(b, '\\');
		} else if (c == 'x' || c == 'u' || c == 'U') {
			p->pos++;
			r = c == 'x' ? buf_addc(b, (char)read_number(p, 16, 2))
				     : add_utf8(b, read_number(p, 16, c == 'u' ? 4 : 8) & 0x1fffff);
		} else if (c >= '0' && c <= '7') {
			r = buf_addc(b, (char)read_number(p, 8, 3));
		} else if ((e = strchr(from, c))) {
			p->pos++;
			r = buf_addc(b, to[e - from]);
		} else {
			p->pos++;
			r = buf_addc(b, '\\');
			if (r >= 0)
				r = buf_addc(b, (char)c);
		}
		if (r < 0)
			return r;
	}
	p->pos++;
	return 0;
}

/* NAME= or NAME+= so far, unquoted: an assignment, whose value may be an array "(...)". */
static bool is_assignment_prefix(const struct buf *b, unsigned flags)
{
	size_t n = b->n;

	if (flags || n < 2 || b->s[n - 1] != '=' || !is_name_start((unsigned char)b->s[0]))
		return false;
	n -= 1 + (b->s[n - 2] == '+');
	for (size_t i = 1; i < n; i++)
		if (!is_name_char((unsigned char)b->s[i]))
			return false;
	return true;
}

/* bash's NAME=(a b c): kept as written. */
static int lex_array(struct parser *p, struct buf *b)
{
	size_t start = p->pos;
	unsigned depth = 0;
	int c;

	do {
		c = peekc(p, 0);
		if (c < 0)
			return syntax(p, "an array '(' without its ')'");
		if (c == '\\')
			p->pos++;
		depth += c == '(';
		depth -= c == ')';
		p->pos++;
	} while (depth > 0);
	return buf_add(b, p->s + start, p->pos - start);
}

static int lex_single_quoted(struct parser *p, struct buf *b)
{
	const char *end = memchr(p->s + p->pos + 1, '\'', p->len - p->pos - 1);
	int r;

	if (!end)
		return syntax(p, "a \"'\" without its closing \"'\"");
	r = buf_add(b, p->s + p->pos + 1, (size_t)(end - p->s) - p->pos - 1);
	p->pos = (size_t)(end - p->s) + 1;
	return r;
}

/* One piece of a word at the parser's position. */
static int lex_word_part(struct parser *p, struct buf *b, unsigned *flags, char **var)
{
	int c = peekc(p, 0), n = peekc(p, 1);

	switch (c) {
	case '\\':
		*flags |= CR_SH_WORD_QUOTED;
		p->pos += n < 0 ? 1 : 2;
		return n == '\n' ? 0 : buf_addc(b, n < 0 ? '\\' : (char)n);
	case '\'':
		*flags |= CR_SH_WORD_QUOTED;
		return lex_single_quoted(p, b);
	case '"':
		*flags |= CR_SH_WORD_QUOTED;
		p->pos++;
		return lex_dquoted(p, b, flags, var, false);
	case '$':
		if (n == '\'') {
			*flags |= CR_SH_WORD_QUOTED;
			return lex_ansi(p, b);
		}
		if (n == '"') {
			*flags |= CR_SH_WORD_QUOTED;
			p->pos += 2;
			return lex_dquoted(p, b, flags, var, false);
		}
		return lex_dollar(p, b, flags, var);
	case '`':
		*flags |= CR_SH_WORD_SUBST;
		return lex_backquote(p, b, false);
	case '*':
	case '?':
	case '[':
		*flags |= CR_SH_WORD_GLOB;
		break;
	case '~':
		if (b->n == 0 && !(*flags & CR_SH_WORD_QUOTED))
			*flags |= CR_SH_WORD_TILDE;
		break;
	default:
		break;
	}
	p->pos++;
	return buf_addc(b, (char)c);
}

static int lex_word(struct parser *p, struct cr_sh_word *w)
{
	struct buf b = {};
	unsigned flags = 0;
	char *var = NULL;
	int c, r = 0;

	while (r >= 0 && (c = peekc(p, 0)) >= 0) {
		if ((c == '<' || c == '>') && peekc(p, 1) == '(' && b.n == 0 && !flags) {
			size_t start = p->pos;

			p->pos += 2;
			flags |= CR_SH_WORD_PROCSUBST;
			r = lex_subst(p, c == '<' ? "<(" : ">(");
			if (r >= 0)
				r = buf_add(&b, p->s + start, p->pos - start);
		} else if (c == '(' && is_assignment_prefix(&b, flags)) {
			r = lex_array(p, &b);
		} else if (strchr(" \t\n;&|()<>", c)) {
			break;
		} else {
			r = lex_word_part(p, &b, &flags, &var);
		}
	}
	if (r >= 0 && !b.s)
		r = buf_add(&b, "", 0);
	if (r < 0) {
		free(b.s);
		free(var);
		return r;
	}
	*w = (struct cr_sh_word){.text = b.s, .flags = flags, .var = var};
	return 0;
}

/* Blanks, line continuations and a comment. */
static void skip_blanks(struct parser *p)
{
	for (;;) {
		int c = peekc(p, 0);

		if (c == ' ' || c == '\t')
			p->pos++;
		else if (c == '\\' && peekc(p, 1) == '\n')
			p->pos += 2;
		else if (c == '#')
			while (p->pos < p->len && p->s[p->pos] != '\n')
				p->pos++;
		else
			return;
	}
}

static bool lex_operator(struct parser *p, struct token *t)
{
	for (size_t i = 0; i < ELEMENTSOF(operators); i++) {
		size_t n = strlen(operators[i].s);

		if (p->len - p->pos >= n && memcmp(p->s + p->pos, operators[i].s, n) == 0) {
			t->type = operators[i].type;
			t->op = operators[i].op;
			p->pos += n;
			return true;
		}
	}
	return false;
}

static int next_token(struct parser *p, struct token *t)
{
	size_t digits;
	int c;

	if (p->has_ahead) {
		*t = p->ahead;
		p->has_ahead = false;
		return 0;
	}
	skip_blanks(p);
	*t = (struct token){.fd = -1,
			    .raw = p->pos,
			    .serial = p->out->serial++,
			    .cmd_mark = p->out->script.n_commands};
	c = peekc(p, 0);
	if (c < 0) {
		t->type = T_EOF;
		return 0;
	}
	if (c == '\n') {
		t->type = T_NEWLINE;
		p->pos++;
		if (p->hd_pending && p->pos == p->hd_start) {
			p->pos = p->hd_end;
			p->hd_pending = false;
		}
		return 0;
	}
	digits = strspn(p->s + p->pos, "0123456789");
	if (digits > 0 && digits < 6 && p->pos + digits < p->len &&
	    strchr("<>", p->s[p->pos + digits]) && p->s[p->pos + digits + 1] != '(') {
		t->fd = atoi(p->s + p->pos);
		p->pos += digits;
	}
	if (!((c == '<' || c == '>') && peekc(p, 1) == '(') && lex_operator(p, t))
		return 0;
	t->type = T_WORD;
	return lex_word(p, &t->word);
}

/* --- commands -------------------------------------------------------------------------------- */

static void command_done(struct cr_sh_command *c)
{
	for (size_t i = 0; i < c->n_assigns; i++)
		word_done(&c->assigns[i]);
	for (size_t i = 0; i < c->n_words; i++)
		word_done(&c->words[i]);
	for (size_t i = 0; i < c->n_redirs; i++)
		word_done(&c->redirs[i].target);
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
			r = buf_add(&b, p->s + ls, (e ? le + 1 : le) - ls);
		line = e ? le + 1 : p->len;
	}
	if (!p->hd_pending)
		p->hd_start = start;
	p->hd_end = next;
	p->hd_pending = start < p->len || nl;
	if (r >= 0 && !literal && b.s) {
		struct buf exp = {};

		flags = 0;
		r = sub_init(&sub, p, b.s, b.n);
		if (r >= 0)
			r = lex_dquoted(&sub, &exp, &flags, &ret->var, true);
		if (sub.has_ahead) /* left by an error in a $(...) of the body */
			token_done(&sub.ahead);
		free(b.s);
		b = exp;
	}
	if (r >= 0 && !b.s)
		r = buf_add(&b, "", 0);
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

	r = next_token(p, &w);
	if (r < 0)
		return r;
	if (w.type != T_WORD)
		return token_done(&w), syntax(p, "a redirection without its target");
	if (t->op == R_HEREDOC || t->op == R_HEREDOC_STRIP) {
		r = read_heredoc(p, w.word.text, t->op == R_HEREDOC_STRIP,
				 w.word.flags & CR_SH_WORD_QUOTED, &rd.target);
		adopt(p, c, &w);
		token_done(&w);
		if (r < 0)
			return word_done(&rd.target), r;
	} else {
		adopt(p, c, &w);
		rd.target = w.word;
		if ((t->op == R_DUP_IN || t->op == R_DUP_OUT) &&
		    strspn(rd.target.text, "0123456789-") != strlen(rd.target.text))
			rd.op = t->op == R_DUP_IN ? CR_SH_REDIR_IN : CR_SH_REDIR_OUT_ERR;
	}
	a = reallocarray(c->redirs, c->n_redirs + 1, sizeof(*a));
	if (!a)
		return word_done(&rd.target), -ENOMEM;
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

	while (r >= 0 && (r = next_token(p, &t)) >= 0 && t.type == T_REDIR)
		r = parse_redir(p, &c, &t);
	if (r >= 0)
		push_back(p, &t);
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
		return syntax(p, "nested more than %d levels deep", CR_SH_MAX_DEPTH);
	r = parse_list(p, ctx);
	if (r >= 0)
		r = next_token(p, &t);
	if (r >= 0 && ctx == CTX_PAREN && !(t.type == T_OP && t.op == OP_RPAREN))
		r = syntax(p, "a '(' without its ')'");
	if (r >= 0 && ctx == CTX_BRACE && !(t.type == T_WORD && cr_sh_word_is(&t.word, "}")))
		r = syntax(p, "a '{' without its '}'");
	token_done(&t);
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
			return syntax(p, "a '((' without its '))'");
		depth += c == '(';
		depth -= c == ')';
		p->pos++;
	} while (depth > 0);
	return 0;
}

static int expect_word(struct parser *p, struct token *t, const char *what)
{
	int r = next_token(p, t);

	if (r >= 0 && t->type != T_WORD)
		r = syntax(p, "%s", what);
	return r;
}

static int skip_newlines(struct parser *p)
{
	struct token t = {};
	int r;

	while ((r = next_token(p, &t)) >= 0 && t.type == T_NEWLINE)
		;
	if (r >= 0)
		push_back(p, &t);
	return r;
}

/* case WORD in [(]PATTERN[|PATTERN]...) LIST ;; ... esac */
static int parse_case(struct parser *p, unsigned id)
{
	struct token t = {};
	int r;

	r = expect_word(p, &t, "case without its word");
	token_done(&t);
	if (r >= 0 && (r = skip_newlines(p)) >= 0 && (r = next_token(p, &t)) >= 0 &&
	    !(t.type == T_WORD && cr_sh_word_is(&t.word, "in")))
		r = syntax(p, "case without 'in'");
	token_done(&t);
	while (r >= 0 && (r = skip_newlines(p)) >= 0 && (r = next_token(p, &t)) >= 0) {
		if (t.type == T_WORD && cr_sh_word_is(&t.word, "esac"))
			break;
		if (t.type == T_OP && t.op == OP_LPAREN)
			token_done(&t), r = next_token(p, &t);
		while (r >= 0 && t.type == T_WORD) {
			token_done(&t);
			if ((r = next_token(p, &t)) >= 0 && t.type == T_OP && t.op == OP_PIPE)
				token_done(&t), r = next_token(p, &t);
		}
		if (r >= 0 && !(t.type == T_OP && t.op == OP_RPAREN))
			r = syntax(p, "a case pattern without its ')'");
		if (r >= 0 && ++p->depth > CR_SH_MAX_DEPTH)
			r = syntax(p, "nested more than %d levels deep", CR_SH_MAX_DEPTH);
		if (r >= 0)
			r = parse_list(p, CTX_CASE);
		p->depth--;
		token_done(&t);
		if (r >= 0)
			r = next_token(p, &t);
		if (r >= 0 && t.type == T_WORD && cr_sh_word_is(&t.word, "esac"))
			break;
		if (r >= 0 && !(t.type == T_OP &&
				(t.op == OP_DSEMI || t.op == OP_SEMI_AND || t.op == OP_DSEMI_AND)))
			r = syntax(p, "case without its 'esac'");
		token_done(&t);
	}
	token_done(&t);
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
		r = syntax(p, "function %s without its body", name);
	return r;
}

/* for NAME [in WORDS...] and for ((...)): the loop head, skipped. */
static int parse_for(struct parser *p)
{
	struct token t = {};
	int r;

	skip_blanks(p);
	if (peekc(p, 0) == '(' && peekc(p, 1) == '(')
		return skip_arith(p) < 0 ? -EINVAL : CMD_EMPTY;
	r = expect_word(p, &t, "for without its variable");
	while (r >= 0) {
		token_done(&t);
		r = next_token(p, &t);
		if (r < 0 || t.type != T_WORD || cr_sh_word_is(&t.word, "do"))
			break;
	}
	if (r >= 0)
		push_back(p, &t);
	token_done(&t);
	return r < 0 ? r : CMD_EMPTY;
}

/* [[ ... ]] (bash): its operators are words; kept as a command "[[". Redirections after the
 * "]]" make a command of their own, which takes the id of the "]]": ids are unique (risk.c
 * looks owners up by id), and "[[" already has the id of its first token. */
static int parse_dbracket(struct parser *p, struct token *first)
{
	struct cr_sh_command c = {.id = first->serial, .owner = -1};
	struct token t = {};
	unsigned close_id = 0;
	int r;

	r = add_word(&c.words, &c.n_words, &first->word);
	while (r >= 0 && (r = next_token(p, &t)) >= 0 &&
	       !(t.type == T_WORD && cr_sh_word_is(&t.word, "]]"))) {
		if (t.type == T_EOF || t.type == T_NEWLINE)
			r = syntax(p, "'[[' without its ']]'");
		if (t.type == T_WORD)
			adopt(p, &c, &t);
		token_done(&t);
	}
	close_id = t.serial;
	token_done(&t);
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
				return syntax(p, "nested more than %d levels deep",
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
			push_back(p, t);
			return CMD_TERM;
		}
		return syntax(p, "unexpected '%s'", t->word.text);
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
	skip_blanks(p);
	if (r >= 0 && peekc(p, 0) == '(' && peekc(p, 1) == ')')
		p->pos += 2;
	if (r >= 0)
		r = parse_function_body(p, &name.word);
	token_done(&name);
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
	r = next_token(p, &close);
	if (r >= 0 && !(close.type == T_OP && close.op == OP_RPAREN))
		r = syntax(p, "unexpected '(' after '%s'", c->words[0].text);
	token_done(&close);
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
			    is_assignment_prefix(&(struct buf){.s = t->word.text,
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
				push_back(p, t);
			break;
		}
		token_done(t);
		if (r < 0 || (r = next_token(p, t)) < 0)
			break;
	}
	token_done(t);
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

	r = next_token(p, &t);
	if (r < 0)
		return r;
	if (ends_command(&t)) {
		bool term = t.type == T_EOF || (t.type == T_OP && t.op == OP_RPAREN) ||
			    (t.type == T_OP &&
			     (t.op == OP_DSEMI || t.op == OP_SEMI_AND || t.op == OP_DSEMI_AND));

		if (term && t.type == T_OP && t.op == OP_RPAREN && ctx != CTX_PAREN &&
		    ctx != CTX_CASE)
			return syntax(p, "unexpected ')'");
		if (term && t.type == T_OP && t.op != OP_RPAREN && ctx != CTX_CASE)
			return syntax(p, "unexpected ';;' outside case");
		push_back(p, &t);
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
			token_done(&t);
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
	int r = next_token(p, &t);

	if (r < 0)
		return r;
	if (t.type == T_OP && (t.op == a || t.op == b))
		return 1;
	push_back(p, &t);
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
			return syntax(p, "'|' without a command before it");
		mark(p, start, field_piped_out);
		next = p->out->script.n_commands;
		r = skip_newlines(p);
		if (r >= 0)
			r = parse_command(p, ctx);
		if (r >= 0 && r != CMD_DONE)
			return syntax(p, "'|' without a command after it");
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
			return syntax(p, "'&&' or '||' without a command before it");
		r = skip_newlines(p);
		if (r >= 0)
			r = parse_pipeline(p, ctx);
		if (r >= 0 && r != CMD_DONE)
			return syntax(p, "'&&' or '||' without a command after it");
	}
	return r;
}

/* Commands separated by ';', '&' and newlines, up to a token that ends @ctx's list, which is
 * left to be read. */
static int parse_list(struct parser *p, enum ctx ctx)
{
	struct token t = {};
	size_t start;
	int r;

	for (;;) {
		start = p->out->script.n_commands;
		r = parse_and_or(p, ctx);
		if (r >= 0)
			r = next_token(p, &t);
		if (r < 0)
			return r;
		if (t.type == T_NEWLINE || (t.type == T_OP && t.op == OP_SEMI))
			continue;
		if (t.type == T_OP && t.op == OP_AMP) {
			mark(p, start, field_background);
			continue;
		}
		push_back(p, &t);
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
	r = parse_list(&p, CTX_TOP);
	if (r >= 0)
		r = next_token(&p, &t);
	if (r >= 0 && t.type != T_EOF)
		r = syntax(&p, "unexpected '%s'", token_name(&t));
	token_done(&t);
	if (p.has_ahead)
		token_done(&p.ahead); /* left by an error */
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
