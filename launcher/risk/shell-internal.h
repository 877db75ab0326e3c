/* SPDX-License-Identifier: MIT */
/* What the shell lexer (shell-lex.c) and the parser (shell-parse.c) share: the tokens, the
 * parser's state, and each one's entry points into the other (a substitution inside a word is
 * parsed as it is lexed). Not for other modules. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

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

/* What ends a list: the context it is parsed in. */
enum ctx {
	CTX_TOP,
	CTX_PAREN,
	CTX_BRACE,
	CTX_CASE
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

/* --- shell-parse.c ------------------------------------------------------------------------ */

/* A syntax error: the reason into p->out->msg; -EINVAL. */
int sh_syntax(struct parser *p, const char *fmt, ...) _printf_(2, 3);
/* Commands separated by ';', '&' and newlines, up to a token that ends @ctx's list. */
int sh_parse_list(struct parser *p, enum ctx ctx);

/* --- shell-lex.c -------------------------------------------------------------------------- */

/* The byte @off past the parser's position, or -1 past the end. */
static inline int peekc(const struct parser *p, size_t off)
{
	return p->pos + off < p->len ? (unsigned char)p->s[p->pos + off] : -1;
}

/* @n bytes of @s appended to @b, kept NUL-terminated. 0 or -ENOMEM. */
int sh_buf_add(struct buf *b, const char *s, size_t n);
/* Frees @w's strings and empties it. */
void sh_word_done(struct cr_sh_word *w);
/* A parser over @s (@len bytes) that writes into @parent's output, one level deeper. */
int sh_sub_init(struct parser *sub, const struct parser *parent, const char *s, size_t len);
/* How @t is written, for messages. */
const char *sh_token_name(const struct token *t);
/* Frees @t's word. */
void sh_token_done(struct token *t);
/* The next token into @t: the one pushed back if any. */
int sh_next_token(struct parser *p, struct token *t);
/* @t is read again by the next sh_next_token(); @t is emptied. */
void sh_push_back(struct parser *p, struct token *t);
/* The inside of "...", after the opening quote; or a here-document's body (@heredoc). */
int sh_lex_dquoted(struct parser *p, struct buf *b, unsigned *flags, char **var, bool heredoc);
/* NAME= or NAME+= so far, unquoted: an assignment. */
bool sh_is_assignment_prefix(const struct buf *b, unsigned flags);
/* Blanks, line continuations and a comment. */
void sh_skip_blanks(struct parser *p);
