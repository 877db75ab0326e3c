/* SPDX-License-Identifier: MIT */
/* Command risk analysis for `corral serve` and `corral check`: a shell command line is parsed
 * (quoting, escapes, $VAR and ${VAR}, ;, &&, ||, pipes, redirections, subshells, command
 * substitution) into the simple commands it would run, and each is classified; the whole takes
 * the worst tier. Pure and portable: no system call, nothing is executed or expanded against the
 * real environment. The tiers and rules are documented in docs/protocol.md. */
#pragma once

#include <errno.h>
#include <stddef.h>

struct json_object;

/* Ordered by severity: a command line takes the highest tier of its parts. */
enum cr_risk_tier {
	CR_RISK_SAFE,	   /* read-only tools on workspace paths: ls, cat, grep, git status, ... */
	CR_RISK_CAUTION,   /* destructive but common: rm, mv, cp, git reset, ... */
	CR_RISK_UNKNOWN,   /* a program corral does not know, or a line it cannot parse */
	CR_RISK_DANGEROUS, /* sudo, chmod on system paths, curl | sh, rm -rf /, fork bombs,
			    * LD_PRELOAD / BASH_ENV injection, ... */
	_CR_RISK_MAX,
	_CR_RISK_INVALID = -EINVAL,
};

struct cr_risk {
	enum cr_risk_tier tier;
	char **reasons;	 /* one sentence per finding, e.g. "rm -rf on /: removes the system" */
	size_t n_reasons;
	char **commands; /* the simple commands found, each as its words joined by spaces */
	size_t n_commands;
};

/* "safe", "caution", "unknown", "dangerous"; NULL if out of range. And back. */
const char *cr_risk_tier_to_string(enum cr_risk_tier t);
enum cr_risk_tier cr_risk_tier_from_string(const char *s);

/* Classify shell command line @script; paths are judged against @workspace (canonical; NULL:
 * every path counts as outside). A line that does not parse is CR_RISK_UNKNOWN with the parse
 * error as its reason. 0 or -ENOMEM. */
int cr_risk_shell(const char *script, const char *workspace, struct cr_risk *ret);

/* Classify one command given as an argument vector (no shell involved). 0 or -ENOMEM. */
int cr_risk_argv(char *const *argv, const char *workspace, struct cr_risk *ret);

/* {"tier": "...", "reasons": [...], "commands": [...]}. NULL on allocation failure. */
struct json_object *cr_risk_to_json(const struct cr_risk *r);

void cr_risk_done(struct cr_risk *r);
