/* SPDX-License-Identifier: MIT */
/* launcher/policy/profile.c (INI profiles, read with inih) and launcher/policy/profile-resolve.c.
 * Invariants: a profile parses (0) or is refused (-EINVAL with "SOURCE:LINE: reason"); a parsed
 * profile's paths are absolute (or start with "${WORKSPACE}" and are absolute once it is
 * expanded), pass cr_path_check() and hold no '$' or '~' left to expand; its hosts are valid
 * lower-case patterns, each once, and given exactly with mode = allow_hosts; its limits are in
 * range. Written back as INI (every key in its shortest "key=value" form) and parsed again, it
 * gives the same profile, and writing that again gives the same text. Resolved against a
 * workspace, every rule path is canonical and absolute. */
#include <errno.h>
#include <inttypes.h>

#include "launcher/policy/limits.h"
#include "fuzz-util.h"
#include "launcher/policy/capability.h"
#include "launcher/policy/host-pattern.h"
#include "launcher/base/path-util.h"
#include "launcher/policy/profile-resolve.h"
#include "launcher/policy/profile.h"
#include "launcher/base/macro.h"

#define WS_VAR "${WORKSPACE}"

struct text {
	char *s;
	size_t n;
	FILE *f;
};

static void put_paths(FILE *f, const struct cr_profile_path *v, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s=%s\n", key, v[i].optional ? "_if_exists" : "", v[i].path);
}

static void put_strv(FILE *f, char **v, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s=%s\n", key, v[i]);
}

/* The profile as INI text: a fixed order, every key that differs from nothing given. */
static char *serialize(const struct cr_profile *p, size_t *ret_size)
{
	char *s = NULL, value[64];
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		abort();
	fprintf(f, "[profile]\n");
	if (p->description[0])
		fprintf(f, "description=%s\n", p->description);
	fprintf(f, "[filesystem]\nworkspace=%s\n", p->workspace_ro ? "ro" : "rw");
	put_paths(f, p->read, p->n_read, "read");
	put_paths(f, p->write, p->n_write, "write");
	put_paths(f, p->hide, p->n_hide, "hide");
	fprintf(f, "[network]\nmode=%s\n", cr_net_cap_to_string(p->net));
	put_strv(f, p->hosts, p->n_hosts, "allow_host");
	fprintf(f, "[process]\nspawn=%s\n[limits]\n", p->spawn ? "yes" : "no");
	for (int l = 0; l < _CR_LIMIT_MAX; l++)
		if (p->limits.set[l]) {
			cr_limit_format(l, p->limits.value[l], value, sizeof(value));
			fprintf(f, "%s=%s\n", cr_limit_to_string(l), value);
		}
	if (p->timeout_ms)
		fprintf(f, "timeout=%" PRIu64 ".%03" PRIu64 "\n", p->timeout_ms / 1000,
			p->timeout_ms % 1000);
	fprintf(f, "enforce=%s\n", p->limits.required ? "required" : "best-effort");
	fprintf(f, "[security]\nseccomp=%s\nlandlock=%s\n[commands]\n",
		cr_seccomp_mode_to_string(p->seccomp), cr_landlock_mode_to_string(p->landlock));
	for (int t = 0; t < _CR_RISK_MAX; t++)
		fprintf(f, "%s=%s\n", cr_risk_tier_to_string(t),
			cr_command_rule_to_string(p->tier_rule[t]));
	put_strv(f, p->allow_commands, p->n_allow_commands, "allow");
	put_strv(f, p->allow_prefixes, p->n_allow_prefixes, "allow_prefix");
	if (fclose(f) != 0)
		abort();
	*ret_size = n;
	return s;
}

static bool paths_eq(const struct cr_profile_path *a, const struct cr_profile_path *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(a[i].path, b[i].path) != 0 || a[i].optional != b[i].optional)
			return false;
	return true;
}

static bool strv_eq(char **a, char **b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

static void check_equal(const struct cr_profile *a, const struct cr_profile *b, const char *ini)
{
	FUZZ_CHECK(strcmp(a->description, b->description) == 0 &&
			   a->workspace_ro == b->workspace_ro,
		   "[profile] or workspace changed:\n%s", ini);
	FUZZ_CHECK(a->n_read == b->n_read && a->n_write == b->n_write && a->n_hide == b->n_hide &&
			   paths_eq(a->read, b->read, a->n_read) &&
			   paths_eq(a->write, b->write, a->n_write) &&
			   paths_eq(a->hide, b->hide, a->n_hide),
		   "paths changed:\n%s", ini);
	FUZZ_CHECK(a->net == b->net && a->n_hosts == b->n_hosts &&
			   strv_eq(a->hosts, b->hosts, a->n_hosts),
		   "network changed:\n%s", ini);
	FUZZ_CHECK(a->spawn == b->spawn && a->timeout_ms == b->timeout_ms &&
			   memcmp(&a->limits, &b->limits, sizeof(a->limits)) == 0,
		   "process or limits changed:\n%s", ini);
	FUZZ_CHECK(a->seccomp == b->seccomp && a->landlock == b->landlock &&
			   memcmp(a->tier_rule, b->tier_rule, sizeof(a->tier_rule)) == 0,
		   "security or tier rules changed:\n%s", ini);
	FUZZ_CHECK(a->n_allow_commands == b->n_allow_commands &&
			   a->n_allow_prefixes == b->n_allow_prefixes &&
			   strv_eq(a->allow_commands, b->allow_commands, a->n_allow_commands) &&
			   strv_eq(a->allow_prefixes, b->allow_prefixes, a->n_allow_prefixes),
		   "allowlist changed:\n%s", ini);
}

static void check_path(const struct cr_profile_path *pp)
{
	const char *p = pp->path;
	size_t skip = 0;

	if (strncmp(p, WS_VAR, strlen(WS_VAR)) == 0) {
		skip = strlen(WS_VAR);
		FUZZ_CHECK(p[skip] == '\0' || p[skip] == '/', "'%s'", p);
	} else {
		FUZZ_CHECK(p[0] == '/', "'%s' is relative", p);
	}
	FUZZ_CHECK(!strpbrk(p + skip, "$~"), "'%s' holds '$' or '~' after expansion", p);
	FUZZ_CHECK(cr_path_check(p, skip == 0) == 0, "'%s' fails cr_path_check()", p);
	FUZZ_CHECK(pp->line > 0, "'%s' without a line", p);
}

static void check_profile(const struct cr_profile *p)
{
	for (size_t i = 0; i < p->n_read; i++)
		check_path(&p->read[i]);
	for (size_t i = 0; i < p->n_write; i++)
		check_path(&p->write[i]);
	for (size_t i = 0; i < p->n_hide; i++) {
		FUZZ_CHECK(!p->hide[i].optional, "an optional hide");
		check_path(&p->hide[i]);
	}
	FUZZ_CHECK((p->net == CR_NETCAP_HOSTS) == (p->n_hosts > 0), "mode %d with %zu hosts",
		   p->net, p->n_hosts);
	for (size_t i = 0; i < p->n_hosts; i++) {
		FUZZ_CHECK(cr_host_pattern_check(p->hosts[i]) == 0, "host '%s'", p->hosts[i]);
		for (const char *c = p->hosts[i]; *c; c++)
			FUZZ_CHECK(*c < 'A' || *c > 'Z', "host '%s' not lower-case", p->hosts[i]);
		for (size_t j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(p->hosts[i], p->hosts[j]) != 0, "host '%s' twice",
				   p->hosts[i]);
	}
	for (int l = 0; l < _CR_LIMIT_MAX; l++)
		FUZZ_CHECK(p->limits.set[l] == (p->limits.value[l] != CR_LIMIT_UNSET), "limit %d",
			   l);
	FUZZ_CHECK(p->timeout_ms <= 366ull * 24 * 3600 * 1000, "timeout %" PRIu64, p->timeout_ms);
	for (int t = 0; t < _CR_RISK_MAX; t++)
		FUZZ_CHECK(cr_command_rule_to_string(p->tier_rule[t]), "tier rule %d", t);
}

/* Resolved against an existing workspace: rule paths absolute and canonical. */
static void check_resolve(const struct cr_profile *p)
{
	static const char *const system_paths[] = {"/usr", NULL};
	struct cr_profile_resolution res = {};
	char msg[1024];

	if (cr_profile_resolve_full(p, "/tmp", system_paths, &res, msg, sizeof(msg)) < 0)
		return;
	for (size_t i = 0; i < res.n_rules; i++) {
		const char *r = res.rules[i].path;

		FUZZ_CHECK(cr_path_check(r, true) == 0 && !strstr(r, "//") && !strstr(r, "/./") &&
				   !strstr(r, "/../") &&
				   (strlen(r) == 1 || r[strlen(r) - 1] != '/'),
			   "rule '%s' not canonical", r);
	}
	for (size_t i = 0; i < res.n_skipped; i++)
		FUZZ_CHECK(res.skipped[i].path[0] == '/', "skipped '%s'", res.skipped[i].path);
	cr_profile_resolution_done(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct cr_profile_dirs home = {.home = "/home/u"}, root = {.home = "/"};
	_cleanup_free_ char *ini = NULL, *ini2 = NULL;
	struct cr_profile p = {}, q = {}, back = {};
	size_t n = 0, n2 = 0;
	char msg[1024] = "";
	int r;

	if (size > CR_PROFILE_MAX_SIZE)
		return 0;
	r = cr_profile_parse((const char *)data, size, "fuzz", "fuzz.ini", &home, &p, msg,
			     sizeof(msg));
	FUZZ_CHECK(r == 0 || r == -EINVAL, "cr_profile_parse: %d", r);
	FUZZ_CHECK(r == 0 || strncmp(msg, "fuzz.ini:", 9) == 0, "message '%s'", msg);
	if (r < 0)
		return 0;
	check_profile(&p);
	check_resolve(&p);
	cr_profile_done(&p);

	/* The round trip, with "/" as home so that no line grows past the limit. */
	r = cr_profile_parse((const char *)data, size, "fuzz", "fuzz.ini", &root, &q, msg,
			     sizeof(msg));
	if (r < 0) /* a path that is too long once ~ expands under /home/u but not under / */
		return 0;
	ini = serialize(&q, &n);
	r = cr_profile_parse(ini, n, "fuzz", "again.ini", &root, &back, msg, sizeof(msg));
	FUZZ_CHECK(r == 0, "written back, refused: %s\n%s", msg, ini);
	check_equal(&q, &back, ini);
	ini2 = serialize(&back, &n2);
	FUZZ_CHECK(n == n2 && memcmp(ini, ini2, n) == 0, "not a fixed point:\n%s\n%s", ini, ini2);
	cr_profile_done(&q);
	cr_profile_done(&back);
	return 0;
}
