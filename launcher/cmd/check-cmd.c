/* SPDX-License-Identifier: MIT */
/* `corral check`: the risk tier of a command line or an argument vector, and why. Nothing is
 * run. The exit status is the tier (0 safe, 1 caution, 2 unknown, 3 dangerous), so that a script
 * can branch on it; 125 for a usage error. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-cmd.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/json-text.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"
#include "launcher/risk/risk.h"

static const char usage[] =
	"Usage: corral check --shell 'COMMAND LINE' [--json] [-w|--workspace DIR]\n"
	"       corral check [--json] [-w|--workspace DIR] -- PROGRAM [ARGS...]\n"
	"\n"
	"Classify a command without running it: safe (read-only tools on workspace paths),\n"
	"caution (destructive but common: rm, mv, git reset, ...), unknown (a program corral\n"
	"does not know, or code it cannot see), dangerous (sudo, rm -rf /, curl | sh, fork bombs,\n"
	"LD_PRELOAD, ...). Paths are judged against DIR (default: the current directory).\n"
	"\n"
	"  --shell LINE      a shell command line, parsed as sh would (nothing is expanded)\n"
	"  --json            one line of JSON: {\"tier\": ..., \"reasons\": [...], \"commands\": "
	"[...]}\n"
	"  -w, --workspace DIR  the workspace (default: the current directory)\n"
	"\n"
	"Exit status: 0 safe, 1 caution, 2 unknown, 3 dangerous, 125 usage error.\n";

struct check_args {
	const char *shell, *workspace;
	char **argv; /* after "--" */
	bool json, help;
};

/* The value of option @argv[*i], given as "--opt VALUE" or "--opt=VALUE". */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (*i + 1 < argc)
		return argv[++*i];
	cr_log_error("check: %s needs a value", name);
	return NULL;
}

static bool is_opt(const char *s, const char *a, const char *b)
{
	size_t n = strlen(b);

	return strcmp(s, a) == 0 || strcmp(s, b) == 0 || (strncmp(s, b, n) == 0 && s[n] == '=');
}

static int parse_args(int argc, char **argv, struct check_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (strcmp(s, "--") == 0) {
			a->argv = argv + i + 1;
			break;
		} else if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
			a->help = true;
		} else if (strcmp(s, "--json") == 0) {
			a->json = true;
		} else if (is_opt(s, "--shell", "--shell")) {
			if (!(a->shell = option_value(argc, argv, &i, "--shell")))
				return -EINVAL;
		} else if (is_opt(s, "-w", "--workspace")) {
			if (!(a->workspace = option_value(argc, argv, &i,
							  s[1] == 'w' ? "-w" : "--workspace")))
				return -EINVAL;
		} else {
			cr_log_error("check: unexpected argument '%s' (a command goes after '--')",
				     s);
			return -EINVAL;
		}
	}
	if (a->help)
		return 0;
	if (a->shell && a->argv)
		return cr_log_error("check: give --shell or a command after '--', not both"),
		       -EINVAL;
	if (!a->shell && (!a->argv || !a->argv[0]))
		return cr_log_error("check: which command? (usage: corral check --shell 'LINE' or "
				    "corral check -- PROG ARGS...)"),
		       -EINVAL;
	return 0;
}

static void print_human(const struct cr_risk *r)
{
	printf("%s\n", cr_risk_tier_to_string(r->tier));
	for (size_t i = 0; i < r->n_reasons; i++)
		printf("  - %s\n", r->reasons[i]);
}

static int print_json(const struct cr_risk *r)
{
	json_object *o = cr_risk_to_json(r);
	int k;

	if (!o)
		return -ENOMEM;
	k = cr_json_puts(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, stdout);
	json_object_put(o);
	return k;
}

int cr_check_main(int argc, char **argv)
{
	_cleanup_free_ char *ws = NULL;
	struct check_args a = {};
	struct cr_risk risk = {};
	int r;

	if (parse_args(argc, argv, &a) < 0)
		return CR_EXIT_SETUP;
	if (a.help) {
		fputs(usage, stdout);
		return 0;
	}
	r = cr_path_canonicalize(a.workspace ?: ".", &ws);
	if (r < 0) {
		cr_log_errno(r, "check: workspace '%s': %m", a.workspace ?: ".");
		return CR_EXIT_SETUP;
	}
	r = a.shell ? cr_risk_shell(a.shell, ws, &risk) : cr_risk_argv(a.argv, ws, &risk);
	if (r < 0) {
		cr_log_errno(r, "check: %m");
		return CR_EXIT_SETUP;
	}
	if (a.json)
		r = print_json(&risk);
	else
		print_human(&risk);
	if (r >= 0 && fflush(stdout) != 0)
		r = -EIO;
	if (r < 0) {
		cr_risk_done(&risk);
		cr_log_errno(r, "check: %m");
		return CR_EXIT_SETUP;
	}
	r = (int)risk.tier; /* 0 safe, 1 caution, 2 unknown, 3 dangerous */
	cr_risk_done(&risk);
	return r;
}
