/* SPDX-License-Identifier: MIT */
/* launcher/risk/ (the shell parser, shell-parse.h; the classifier, risk.h): `corral check
 * --shell` and `corral serve`'s classification of command lines.
 * Invariants: cr_sh_parse() accepts (0) or refuses (-EINVAL with a reason), and parses the same
 * text the same way twice; a parsed script's commands are ordered by unique id, each owner is an
 * earlier command, every word has text and only the documented flags. cr_risk_shell() and
 * cr_risk_argv() are deterministic (the same text twice: the same tier, reasons and commands),
 * give a tier in range with at least one reason above safe, never rate a line that does not
 * parse as safe or caution, and their JSON names the tier; the tier does not depend on whether a
 * workspace is known only in being at least as high without one... is not asserted (paths
 * inside and outside differ by design). cr_profile_command_rule() is deterministic and gives a
 * rule in range. */
#include <errno.h>
#include <json-c/json.h>

#include "fuzz-util.h"
#include "launcher/policy/profile-builtin.h"
#include "launcher/policy/profile.h"
#include "launcher/risk/risk.h"
#include "launcher/risk/shell-parse.h"
#include "launcher/base/macro.h"

#define ALL_FLAGS                                                                           \
	(CR_SH_WORD_QUOTED | CR_SH_WORD_EXPANDS | CR_SH_WORD_SUBST | CR_SH_WORD_PROCSUBST | \
	 CR_SH_WORD_GLOB | CR_SH_WORD_TILDE)

static bool word_eq(const struct cr_sh_word *a, const struct cr_sh_word *b)
{
	return strcmp(a->text, b->text) == 0 && a->flags == b->flags &&
	       ((!a->var && !b->var) || (a->var && b->var && strcmp(a->var, b->var) == 0));
}

static void check_word(const struct cr_sh_word *w)
{
	FUZZ_CHECK(w->text, "a word without text");
	FUZZ_CHECK((w->flags & ~(unsigned)ALL_FLAGS) == 0, "flags 0x%x", w->flags);
	FUZZ_CHECK(!w->var || w->var[0], "an empty parameter name");
}

static void check_script(const struct cr_sh_script *s)
{
	for (size_t i = 0; i < s->n_commands; i++) {
		const struct cr_sh_command *c = &s->commands[i];

		FUZZ_CHECK(i == 0 || c->id > s->commands[i - 1].id, "ids out of order");
		FUZZ_CHECK(c->owner >= -1 && c->owner < (int)c->id, "command %u owned by %d", c->id,
			   c->owner);
		FUZZ_CHECK(c->n_words || c->n_assigns || c->n_redirs, "an empty command");
		for (size_t j = 0; j < c->n_words; j++)
			check_word(&c->words[j]);
		for (size_t j = 0; j < c->n_assigns; j++)
			check_word(&c->assigns[j]);
		for (size_t j = 0; j < c->n_redirs; j++)
			check_word(&c->redirs[j].target);
	}
	for (size_t i = 0; i < s->n_functions; i++)
		FUZZ_CHECK(s->functions[i] && s->functions[i][0], "a function without a name");
}

static void check_same_script(const struct cr_sh_script *a, const struct cr_sh_script *b)
{
	FUZZ_CHECK(a->n_commands == b->n_commands && a->n_functions == b->n_functions,
		   "parsed differently twice");
	for (size_t i = 0; i < a->n_commands; i++) {
		const struct cr_sh_command *x = &a->commands[i], *y = &b->commands[i];

		FUZZ_CHECK(x->n_words == y->n_words && x->n_assigns == y->n_assigns &&
				   x->n_redirs == y->n_redirs && x->id == y->id &&
				   x->owner == y->owner && x->piped_in == y->piped_in &&
				   x->piped_out == y->piped_out && x->background == y->background,
			   "command %zu parsed differently twice", i);
		for (size_t j = 0; j < x->n_words; j++)
			FUZZ_CHECK(word_eq(&x->words[j], &y->words[j]), "word differs");
		for (size_t j = 0; j < x->n_redirs; j++)
			FUZZ_CHECK(x->redirs[j].op == y->redirs[j].op &&
					   x->redirs[j].fd == y->redirs[j].fd &&
					   word_eq(&x->redirs[j].target, &y->redirs[j].target),
				   "redirection differs");
	}
}

static void check_risk(const struct cr_risk *r)
{
	json_object *o;

	FUZZ_CHECK(r->tier >= 0 && r->tier < _CR_RISK_MAX, "tier %d", r->tier);
	FUZZ_CHECK(r->tier == CR_RISK_SAFE || r->n_reasons > 0, "%s without a reason",
		   cr_risk_tier_to_string(r->tier));
	FUZZ_CHECK(cr_risk_tier_from_string(cr_risk_tier_to_string(r->tier)) == r->tier, "names");
	o = cr_risk_to_json(r);
	FUZZ_CHECK(o, "no JSON");
	json_object_put(o);
}

static void check_risk_same(const struct cr_risk *a, const struct cr_risk *b)
{
	FUZZ_CHECK(a->tier == b->tier, "tier %d then %d", a->tier, b->tier);
	FUZZ_CHECK(a->n_reasons == b->n_reasons && a->n_commands == b->n_commands,
		   "a different number of reasons or commands");
	for (size_t i = 0; i < a->n_reasons; i++)
		FUZZ_CHECK(strcmp(a->reasons[i], b->reasons[i]) == 0, "reason %zu: %s / %s", i,
			   a->reasons[i], b->reasons[i]);
	for (size_t i = 0; i < a->n_commands; i++)
		FUZZ_CHECK(strcmp(a->commands[i], b->commands[i]) == 0, "command %zu", i);
}

/* The built-in "workspace" profile, parsed once. */
static const struct cr_profile *profile(void)
{
	static struct cr_profile p;
	static bool done;
	const char *text = cr_profile_builtin_text("workspace");
	char msg[256];

	if (!done) {
		FUZZ_CHECK(text && cr_profile_parse(text, strlen(text), "workspace", "builtin",
						    NULL, &p, msg, sizeof(msg)) == 0,
			   "the built-in profile: %s", msg);
		done = true;
	}
	return &p;
}

static void check_line(const char *text)
{
	struct cr_sh_script s = {}, s2 = {};
	struct cr_risk a = {}, b = {};
	const char *why = NULL, *why2 = NULL;
	enum cr_command_rule rule, rule2;
	char msg[256] = "", msg2[256];
	int r, r2;

	r = cr_sh_parse(text, &s, msg, sizeof(msg));
	FUZZ_CHECK(r == 0 || r == -EINVAL, "cr_sh_parse: %d", r);
	FUZZ_CHECK(r == 0 || msg[0], "refused without a reason");
	r2 = cr_sh_parse(text, &s2, msg2, sizeof(msg2));
	FUZZ_CHECK(r == r2, "parsed %d then %d", r, r2);
	if (r == 0) {
		check_script(&s);
		check_same_script(&s, &s2);
	}
	cr_sh_script_done(&s);
	cr_sh_script_done(&s2);

	FUZZ_CHECK(cr_risk_shell(text, "/home/u/ws", &a) == 0, "cr_risk_shell failed");
	FUZZ_CHECK(cr_risk_shell(text, "/home/u/ws", &b) == 0, "cr_risk_shell failed");
	check_risk(&a);
	check_risk_same(&a, &b);
	FUZZ_CHECK(r == 0 || a.tier >= CR_RISK_UNKNOWN, "a line that does not parse is %s",
		   cr_risk_tier_to_string(a.tier));
	rule = cr_profile_command_rule(profile(), text, &a, &why);
	rule2 = cr_profile_command_rule(profile(), text, &a, &why2);
	FUZZ_CHECK(rule >= 0 && rule < _CR_COMMAND_RULE_MAX && rule == rule2 && why && why2 &&
			   strcmp(why, why2) == 0,
		   "command rule %d / %d", rule, rule2);
	cr_risk_done(&a);
	cr_risk_done(&b);
}

static void check_argv(char *const *argv)
{
	struct cr_risk a = {}, b = {};

	FUZZ_CHECK(cr_risk_argv(argv, "/home/u/ws", &a) == 0, "cr_risk_argv failed");
	FUZZ_CHECK(cr_risk_argv(argv, "/home/u/ws", &b) == 0, "cr_risk_argv failed");
	check_risk(&a);
	check_risk_same(&a, &b);
	cr_risk_done(&a);
	cr_risk_done(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = NULL, *buf = NULL;
	_cleanup_free_ char **v = NULL;
	size_t n;

	if (size > CR_SH_MAX_INPUT + 16)
		return 0;
	text = fuzz_strndup(data, size);
	check_line(text);
	v = fuzz_split(data, size, 64, &buf, &n);
	check_argv(v);
	return 0;
}
