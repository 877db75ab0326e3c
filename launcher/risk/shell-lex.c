/* SPDX-License-Identifier: MIT */
/* The shell lexer (shell-internal.h): words with their quotes, escapes and expansions, the
 * substitutions inside them ($(...), `...`, <(...)) handed to the parser as they are met, and
 * the operators. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/macro.h"
#include "shell-internal.h"
#include "shell-parse.h"

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

int sh_buf_add(struct buf *b, const char *s, size_t n)
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
	return sh_buf_add(b, &c, 1);
}

void sh_word_done(struct cr_sh_word *w)
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
int sh_sub_init(struct parser *sub, const struct parser *parent, const char *s, size_t len)
{
	*sub = (struct parser){.out = parent->out,
			       .s = s,
			       .len = len,
			       .depth = parent->depth + 1,
			       .function = parent->function};
	if (sub->depth > CR_SH_MAX_DEPTH)
		return sh_syntax(sub, "nested more than %d levels deep", CR_SH_MAX_DEPTH);
	return 0;
}

/* How @t is written, for messages. */
const char *sh_token_name(const struct token *t)
{
	if (t->type == T_WORD)
		return t->word.text;
	for (size_t i = 0; i < ELEMENTSOF(operators); i++)
		if (operators[i].type == t->type && operators[i].op == t->op)
			return operators[i].s;
	return t->type == T_NEWLINE ? "newline" : "end of input";
}

void sh_token_done(struct token *t)
{
	sh_word_done(&t->word);
}

void sh_push_back(struct parser *p, struct token *t)
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
		return sh_syntax(p, "nested more than %d levels deep", CR_SH_MAX_DEPTH);
	r = sh_parse_list(p, CTX_PAREN);
	if (r >= 0)
		r = sh_next_token(p, &t);
	if (r >= 0 && !(t.type == T_OP && t.op == OP_RPAREN))
		r = sh_syntax(p, "%s without its ')'", what);
	sh_token_done(&t);
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
			return free(inner.s), sh_syntax(p, "a '`' without its closing '`'");
		if (c == '\\' &&
		    (strchr("$`\\", peekc(p, 1)) || (in_dquote && peekc(p, 1) == '"')) &&
		    peekc(p, 1) > 0)
			c = p->s[++p->pos];
		if (buf_addc(&inner, (char)c) < 0)
			return free(inner.s), -ENOMEM;
	}
	p->pos++;
	r = sh_sub_init(&sub, p, inner.s ?: "", inner.n);
	if (r >= 0)
		r = sh_parse_list(&sub, CTX_TOP);
	if (r >= 0 && (sub.has_ahead ? sub.ahead.type : T_EOF) != T_EOF)
		r = sh_syntax(p, "unexpected '%s' inside `...`",
			      sub.ahead.type == T_OP ? ")" : "token");
	if (sub.has_ahead)
		sh_token_done(&sub.ahead);
	free(inner.s);
	if (r >= 0)
		r = sh_buf_add(b, p->s + start, p->pos - start);
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
			return sh_syntax(p, "a '${' without its '}'");
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
	return sh_buf_add(b, p->s + start, p->pos - start);
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
			return sh_syntax(p, "a '$((' without its '))'");
		depth += c == '(';
		depth -= c == ')';
	}
	*flags |= CR_SH_WORD_EXPANDS;
	return sh_buf_add(b, p->s + start, p->pos - start);
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
		return r < 0 ? r : sh_buf_add(b, p->s + start, p->pos - start);
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
	return sh_buf_add(b, p->s + start, p->pos - start);
}

/* The inside of "...", after the opening quote; or a here-document's body (@heredoc: up to the
 * end, '"' is literal). */
int sh_lex_dquoted(struct parser *p, struct buf *b, unsigned *flags, char **var, bool heredoc)
{
	int c, r;

	for (;;) {
		c = peekc(p, 0);
		if (c < 0 && heredoc)
			return 0;
		if (c < 0)
			return sh_syntax(p, "a '\"' without its closing '\"'");
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
		return sh_buf_add(b, s, 2);
	}
	if (u < 0x10000) {
		s[0] = (char)(0xe0 | u >> 12);
		s[1] = (char)(0x80 | ((u >> 6) & 0x3f));
		s[2] = (char)(0x80 | (u & 0x3f));
		return sh_buf_add(b, s, 3);
	}
	s[0] = (char)(0xf0 | (u >> 18 & 0x07));
	s[1] = (char)(0x80 | ((u >> 12) & 0x3f));
	s[2] = (char)(0x80 | ((u >> 6) & 0x3f));
	s[3] = (char)(0x80 | (u & 0x3f));
	return sh_buf_add(b, s, 4);
}

/* $'...' (bash): the escapes of C. */
static int lex_ansi(struct parser *p, struct buf *b)
{
	static const char from[] = "abefnrtv\\'\"?E", to[] = "\a\b\x1b\f\n\r\t\v\\'\"?\x1b";
	const char *e;
	int c, r;

	for (p->pos += 2; (c = peekc(p, 0)) != '\'';) {
		if (c < 0)
			return sh_syntax(p, "a \"$'\" without its closing \"'\"");
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
bool sh_is_assignment_prefix(const struct buf *b, unsigned flags)
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
			return sh_syntax(p, "an array '(' without its ')'");
		if (c == '\\')
			p->pos++;
		depth += c == '(';
		depth -= c == ')';
		p->pos++;
	} while (depth > 0);
	return sh_buf_add(b, p->s + start, p->pos - start);
}

static int lex_single_quoted(struct parser *p, struct buf *b)
{
	const char *end = memchr(p->s + p->pos + 1, '\'', p->len - p->pos - 1);
	int r;

	if (!end)
		return sh_syntax(p, "a \"'\" without its closing \"'\"");
	r = sh_buf_add(b, p->s + p->pos + 1, (size_t)(end - p->s) - p->pos - 1);
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
		return sh_lex_dquoted(p, b, flags, var, false);
	case '$':
		if (n == '\'') {
			*flags |= CR_SH_WORD_QUOTED;
			return lex_ansi(p, b);
		}
		if (n == '"') {
			*flags |= CR_SH_WORD_QUOTED;
			p->pos += 2;
			return sh_lex_dquoted(p, b, flags, var, false);
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
				r = sh_buf_add(&b, p->s + start, p->pos - start);
		} else if (c == '(' && sh_is_assignment_prefix(&b, flags)) {
			r = lex_array(p, &b);
		} else if (strchr(" \t\n;&|()<>", c)) {
			break;
		} else {
			r = lex_word_part(p, &b, &flags, &var);
		}
	}
	if (r >= 0 && !b.s)
		r = sh_buf_add(&b, "", 0);
	if (r < 0) {
		free(b.s);
		free(var);
		return r;
	}
	*w = (struct cr_sh_word){.text = b.s, .flags = flags, .var = var};
	return 0;
}

/* Blanks, line continuations and a comment. */
void sh_skip_blanks(struct parser *p)
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

int sh_next_token(struct parser *p, struct token *t)
{
	size_t digits;
	int c;

	if (p->has_ahead) {
		*t = p->ahead;
		p->has_ahead = false;
		return 0;
	}
	sh_skip_blanks(p);
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
