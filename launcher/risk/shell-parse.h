/* SPDX-License-Identifier: MIT */
/* A parser for the POSIX sh subset (with the bash extensions agents write) that finds the simple
 * commands a command line would run, for launcher/risk/risk.c. Nothing is expanded or executed: a
 * word keeps its expansions as written ("$HOME", "$(date)") and says so in its flags. Commands
 * inside $(...), `...` and <(...) are parsed too, and name the command whose word holds them.
 * Pure and portable. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define CR_SH_MAX_INPUT (64 * 1024) /* bytes of a command line */
#define CR_SH_MAX_DEPTH 64          /* nesting of subshells, groups and substitutions */

enum cr_sh_word_flags {
	CR_SH_WORD_QUOTED = 1 << 0,    /* some of it was quoted or escaped */
	CR_SH_WORD_EXPANDS = 1 << 1,   /* holds $VAR, ${...}, $((...)) or a special parameter */
	CR_SH_WORD_SUBST = 1 << 2,     /* holds $(...) or `...` */
	CR_SH_WORD_PROCSUBST = 1 << 3, /* is <(...) or >(...) */
	CR_SH_WORD_GLOB = 1 << 4,      /* holds an unquoted *, ? or [ */
	CR_SH_WORD_TILDE = 1 << 5,     /* starts with an unquoted ~ */
};

struct cr_sh_word {
	char *text;     /* quotes removed, expansions kept as written */
	unsigned flags; /* enum cr_sh_word_flags */
	char *var;      /* the first parameter it expands ("HOME", "1"), or NULL */
};

enum cr_sh_redir_op {
	CR_SH_REDIR_IN,         /* <  */
	CR_SH_REDIR_OUT,        /* >, >| */
	CR_SH_REDIR_APPEND,     /* >> */
	CR_SH_REDIR_RDWR,       /* <> */
	CR_SH_REDIR_OUT_ERR,    /* &>, >& FILE */
	CR_SH_REDIR_APPEND_ERR, /* &>> */
	CR_SH_REDIR_DUP,        /* n>&m, n<&m, n>&- */
	CR_SH_REDIR_HEREDOC,    /* <<, <<- : the target is the body */
	CR_SH_REDIR_HERESTRING, /* <<< */
};

struct cr_sh_redir {
	int fd; /* the descriptor given before the operator; -1 if none */
	enum cr_sh_redir_op op;
	struct cr_sh_word
		target; /* a file, a descriptor, the here-string, a here-document's body */
};

struct cr_sh_command {
	struct cr_sh_word *assigns; /* NAME=VALUE words before the command */
	size_t n_assigns;
	struct cr_sh_word *words;
	size_t n_words;
	struct cr_sh_redir *redirs;
	size_t n_redirs;
	unsigned id;     /* unique, in the order the commands start in the text */
	int owner;       /* the id of the command a word of which holds this one; -1: none */
	bool piped_in;   /* its standard input comes from a pipe */
	bool piped_out;  /* its standard output goes into a pipe */
	bool background; /* runs asynchronously (&) */
	char *function;  /* the name of the function whose body holds it, or NULL */
};

struct cr_sh_script {
	struct cr_sh_command *commands; /* ordered by id; commands with nothing in them left out */
	size_t n_commands;
	char **functions; /* the names of the functions it defines */
	size_t n_functions;
};

/* Parse @text. 0; -EINVAL for a syntax error, input longer than CR_SH_MAX_INPUT or nested
 * deeper than CR_SH_MAX_DEPTH, with the reason in @msg; or -ENOMEM. @ret is filled on success
 * only. */
int cr_sh_parse(const char *text, struct cr_sh_script *ret, char *msg, size_t msg_size);
void cr_sh_script_done(struct cr_sh_script *s);

/* Is @w's text exactly @s and free of quoting and expansion (a reserved word, an option)? */
bool cr_sh_word_is(const struct cr_sh_word *w, const char *s);
