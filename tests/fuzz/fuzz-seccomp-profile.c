/* SPDX-License-Identifier: MIT */
/* seccomp/profile.c: --seccomp-profile FILE, an INI file of syscalls and @groups with actions.
 * Invariants: a profile parses (0) or is refused (-EINVAL with "PATH:LINE: reason"); parsing is
 * deterministic; every rule of a parsed profile names a syscall libseccomp knows, with a valid
 * action (allow, log, kill, or errno 1-4095) and condition, and "allow" never keeps a
 * condition; the ruleset compiles for x86_64 and aarch64. Re-serialized (base = none, the
 * default action, then one "name=action" line per syscall that has a single unconditional
 * rule) and parsed again, those rules come back identical and in order. */
#include <errno.h>

#include "fuzz-util.h"
#include "launcher/base/macro.h"
#include "seccomp/seccomp-internal.h"

static bool action_valid(uint32_t a)
{
	return a == CR_SC_ALLOW || a == CR_SC_LOG || a == CR_SC_KILL_PROCESS ||
	       (CR_SC_IS_ERRNO(a) && (a & 0xffffu) >= 1 && (a & 0xffffu) <= 4095);
}

static void put_action(FILE *f, uint32_t a)
{
	if (a == CR_SC_ALLOW)
		fputs("allow", f);
	else if (a == CR_SC_LOG)
		fputs("log", f);
	else if (a == CR_SC_KILL_PROCESS)
		fputs("kill", f);
	else
		fprintf(f, "errno:%u", a & 0xffffu);
}

static size_t count_name(const struct cr_sc_ruleset *rs, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < rs->n_rules; i++)
		n += strcmp(rs->rules[i].name, name) == 0;
	return n;
}

static bool simple(const struct cr_sc_ruleset *rs, const struct cr_sc_rule *r)
{
	return r->cond == CR_SC_ALWAYS && count_name(rs, r->name) == 1;
}

static void round_trip(const struct cr_sc_ruleset *rs)
{
	_cleanup_free_ char *text = NULL;
	struct cr_sc_ruleset back = {};
	size_t n = 0, k = 0;
	char msg[512];
	FILE *f = open_memstream(&text, &n);

	if (!f)
		abort();
	fputs("[profile]\nbase=none\ndefault=", f);
	put_action(f, rs->default_action);
	fputs("\n[rules]\n", f);
	for (size_t i = 0; i < rs->n_rules; i++)
		if (simple(rs, &rs->rules[i])) {
			fprintf(f, "%s=", rs->rules[i].name);
			put_action(f, rs->rules[i].action);
			fputc('\n', f);
		}
	if (fclose(f) != 0)
		abort();
	FUZZ_CHECK(cr_sc_profile_parse(text, n, "again", &back, msg, sizeof(msg)) == 0,
		   "written back, refused: %s\n%s", msg, text);
	FUZZ_CHECK(back.default_action == rs->default_action, "default action changed");
	for (size_t i = 0; i < rs->n_rules; i++) {
		const struct cr_sc_rule *r = &rs->rules[i];

		if (!simple(rs, r))
			continue;
		FUZZ_CHECK(k < back.n_rules, "rule %s lost\n%s", r->name, text);
		FUZZ_CHECK(strcmp(back.rules[k].name, r->name) == 0 &&
				   back.rules[k].cond == r->cond &&
				   back.rules[k].action == r->action,
			   "rule %s came back as %s\n%s", r->name, back.rules[k].name, text);
		k++;
	}
	FUZZ_CHECK(k == back.n_rules, "%zu rules more\n%s", back.n_rules - k, text);
	cr_sc_ruleset_done(&back);
}

static void check_same(const struct cr_sc_ruleset *a, const struct cr_sc_ruleset *b)
{
	FUZZ_CHECK(a->default_action == b->default_action && a->n_rules == b->n_rules,
		   "parsed differently twice");
	for (size_t i = 0; i < a->n_rules; i++)
		FUZZ_CHECK(strcmp(a->rules[i].name, b->rules[i].name) == 0 &&
				   a->rules[i].cond == b->rules[i].cond &&
				   a->rules[i].action == b->rules[i].action,
			   "rule %zu parsed differently twice", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const arches[] = {"x86_64", "aarch64"};
	struct cr_sc_ruleset rs = {}, rs2 = {};
	char msg[512] = "";
	int r;

	if (size > 16384)
		return 0;
	r = cr_sc_profile_parse((const char *)data, size, "fuzz", &rs, msg, sizeof(msg));
	FUZZ_CHECK(r == 0 || r == -EINVAL, "cr_sc_profile_parse: %d", r);
	FUZZ_CHECK(r == 0 || strncmp(msg, "fuzz:", 5) == 0, "message '%s'", msg);
	if (r < 0)
		return 0;
	FUZZ_CHECK(cr_sc_profile_parse((const char *)data, size, "fuzz", &rs2, msg, sizeof(msg)) ==
			   0,
		   "accepted, then refused: %s", msg);
	check_same(&rs, &rs2);
	cr_sc_ruleset_done(&rs2);
	FUZZ_CHECK(action_valid(rs.default_action), "default action 0x%x", rs.default_action);
	for (size_t i = 0; i < rs.n_rules; i++) {
		const struct cr_sc_rule *rule = &rs.rules[i];

		FUZZ_CHECK(rule->name && cr_sc_syscall_known(rule->name),
			   "rule %zu: unknown syscall", i);
		FUZZ_CHECK(action_valid(rule->action), "%s: action 0x%x", rule->name, rule->action);
		FUZZ_CHECK(rule->cond >= CR_SC_ALWAYS && rule->cond < _CR_SC_COND_MAX,
			   "%s: cond %d", rule->name, rule->cond);
		FUZZ_CHECK(rule->action != CR_SC_ALLOW || rule->cond == CR_SC_ALWAYS,
			   "%s: allowed under a condition", rule->name);
	}
	for (size_t i = 0; i < ELEMENTSOF(arches); i++) {
		struct cr_bpf bpf = {};

		r = cr_sc_compile(&rs, arches[i], &bpf);
		FUZZ_CHECK(r == 0 && bpf.len > 0, "compiling for %s: %d", arches[i], r);
		cr_bpf_done(&bpf);
	}
	round_trip(&rs);
	cr_sc_ruleset_done(&rs);
	return 0;
}
