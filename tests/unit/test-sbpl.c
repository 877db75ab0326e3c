/* SPDX-License-Identifier: MIT */
/* macos/sbpl.c on any host: golden profiles for the built-in profiles, injection payloads in
 * paths, refused paths, and a checker that the text is a well-formed list of SBPL rules using
 * only operations and filters corral means to use. Run with CR_SBPL_UPDATE=1 to rewrite the golden
 * files after a deliberate change (then review the diff). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/policy/policy-build.h"
#include "launcher/policy/request.h"
#include "macos/sbpl.h"
#include "launcher/base/macro.h"
#include "launcher/policy/policy.h"
#include "launcher/policy/profile.h"

#define TMPDIR_IN_RUN "/private/var/folders/zz/T/corral-run.0"

static char base[PATH_MAX];

static int setup(void **state)
{
	char tmpl[] = "/tmp/corral-unit-sbpl.XXXXXX";

	(void)state;
	return mkdtemp(tmpl) && realpath(tmpl, base) ? 0 : -1;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *make_dir(const char *name)
{
	char *p = NULL;

	assert_true(asprintf(&p, "%s/%s", base, name) > 0);
	assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
	return p;
}

/* Generate the profile of built-in profile @name with workspace @ws, as the driver would. */
static int generate(const char *name, const char *ws, struct cr_sbpl *ret, char *msg, size_t size)
{
	static char *const env[] = { "HOME=/Users/dev", "PATH=/usr/bin:/bin", NULL };
	static const char *const none[] = { NULL };
	struct cr_profile_dirs dirs = { .home = "/Users/dev" };
	char *argv[] = { "true", NULL };
	struct cr_run_options o = { .workspace = ws, .argv = argv, .uid = 65534, .gid = 65534 };
	struct cr_policy_input in = { .opts = &o, .system_paths = none, .host_env = env };
	struct cr_profile prof;
	struct cr_policy p;
	int r;

	r = cr_profile_load(name, &dirs, &prof, msg, size);
	if (r < 0)
		return r;
	in.profile = &prof;
	r = cr_policy_build_from(&in, &p, NULL, NULL, msg, size);
	if (r >= 0) {
		r = cr_sbpl_from_policy(&p, TMPDIR_IN_RUN, false, ret, msg, size);
		cr_policy_done(&p);
	}
	cr_profile_done(&prof);
	return r;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t n = 0;

	if (!f)
		return NULL;
	if (getdelim(&text, &n, '\0', f) < 0) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

static const char *param_value(const struct cr_sbpl *s, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < s->n_params; i++)
		if (strncmp(s->params[i], name, n) == 0 && s->params[i][n] == '=')
			return s->params[i] + n + 1;
	return NULL;
}

/* ---- a small SBPL reader: well-formed lists, known operations and filters ---- */

static const char *const known_ops[] = {
	"default",	   "process-exec",   "process-fork",  "signal",
	"process-info*",   "sysctl-read",    "user-preference-read",
	"file-read-metadata", "file-read*",  "file-write*",   "file-write-data",
	"pseudo-tty",	   "mach-lookup",    "ipc-posix-shm-read-data", "network*",
};
static const char *const known_filters[] = {
	"literal", "subpath", "regex", "target", "global-name", "ipc-posix-name", "remote", "local",
};

struct reader {
	const char *p;
};

static void skip_space(struct reader *r)
{
	for (;;) {
		while (*r->p == ' ' || *r->p == '\n' || *r->p == '\t')
			r->p++;
		if (*r->p != ';')
			return;
		while (*r->p && *r->p != '\n')
			r->p++;
	}
}

/* A string "..." (or a regex #"..."): escapes allowed, no raw newline. */
static bool read_string(struct reader *r)
{
	if (*r->p == '#')
		r->p++;
	if (*r->p++ != '"')
		return false;
	for (; *r->p != '"'; r->p++) {
		if (!*r->p || *r->p == '\n')
			return false;
		if (*r->p == '\\' && !*++r->p)
			return false;
	}
	r->p++;
	return true;
}

static size_t read_atom(struct reader *r, char *buf, size_t size)
{
	size_t n = 0;

	while (*r->p && !strchr(" \n\t()\"", *r->p)) {
		if (n + 1 < size)
			buf[n++] = *r->p;
		r->p++;
	}
	buf[n] = '\0';
	return n;
}

static bool in_list(const char *s, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, v[i]) == 0)
			return true;
	return false;
}

/* A filter: (NAME ARG...) where an ARG is a string, an atom, or (param "X"). */
static bool read_filter(struct reader *r)
{
	char name[64], atom[64];

	if (*r->p++ != '(' || !read_atom(r, name, sizeof(name)) ||
	    !in_list(name, known_filters, ELEMENTSOF(known_filters)))
		return false;
	for (;;) {
		skip_space(r);
		if (*r->p == ')') {
			r->p++;
			return true;
		}
		if (*r->p == '"' || *r->p == '#') {
			if (!read_string(r))
				return false;
		} else if (*r->p == '(') {
			r->p++;
			if (!read_atom(r, atom, sizeof(atom)) || strcmp(atom, "param") != 0)
				return false;
			skip_space(r);
			if (!read_string(r) || (skip_space(r), *r->p++ != ')'))
				return false;
		} else if (!read_atom(r, atom, sizeof(atom))) {
			return false;
		}
	}
}

/* (version 1) | (allow|deny OP... FILTER...) */
static bool read_rule(struct reader *r)
{
	char word[64];

	if (*r->p++ != '(' || !read_atom(r, word, sizeof(word)))
		return false;
	if (strcmp(word, "version") == 0) {
		skip_space(r);
		return read_atom(r, word, sizeof(word)) && strcmp(word, "1") == 0 &&
		       (skip_space(r), *r->p++ == ')');
	}
	if (strcmp(word, "allow") != 0 && strcmp(word, "deny") != 0)
		return false;
	for (bool ops = true;;) {
		skip_space(r);
		if (*r->p == ')') {
			r->p++;
			return true;
		}
		if (*r->p == '(') {
			ops = false;
			if (!read_filter(r))
				return false;
		} else if (!ops || !read_atom(r, word, sizeof(word)) ||
			   !in_list(word, known_ops, ELEMENTSOF(known_ops))) {
			return false;
		}
	}
}

static bool well_formed(const char *text, size_t *ret_rules)
{
	struct reader r = { text };
	size_t n = 0;

	for (;;) {
		skip_space(&r);
		if (!*r.p)
			break;
		if (!read_rule(&r)) {
			print_error("SBPL reader stopped at: %.60s\n", r.p);
			return false;
		}
		n++;
	}
	*ret_rules = n;
	return n > 0;
}

/* ---- tests ---- */

static void test_golden(void **state)
{
	static const char *const names[] = { "strict", "workspace", "ci", "autonomous" };
	_cleanup_free_ char *ws = make_dir("project");
	char msg[512] = "", path[PATH_MAX];

	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		_cleanup_free_ char *golden = NULL;
		struct cr_sbpl s;
		size_t rules;

		if (generate(names[i], ws, &s, msg, sizeof(msg)) < 0)
			fail_msg("%s: %s", names[i], msg);
		(void)snprintf(path, sizeof(path), "%s/%s.sb", CR_SBPL_FIXTURES, names[i]);
		if (getenv("CR_SBPL_UPDATE")) {
			FILE *f = fopen(path, "we");

			assert_non_null(f);
			fputs(s.profile, f);
			fclose(f);
		}
		golden = read_file(path);
		assert_non_null(golden);
		if (strcmp(golden, s.profile) != 0)
			fail_msg("%s: the profile differs from %s (CR_SBPL_UPDATE=1 rewrites it)",
				 names[i], path);
		assert_true(well_formed(s.profile, &rules));
		assert_string_equal(param_value(&s, "WORKSPACE"), ws);
		assert_string_equal(param_value(&s, "TMPDIR"), TMPDIR_IN_RUN);
		assert_string_equal(param_value(&s, "SECRET_0"), "/Users/dev/.ssh");
		assert_null(strstr(s.profile, ws));
		assert_null(strstr(s.profile, "/Users/dev"));
		cr_sbpl_done(&s);
	}
}

static void test_profile_contents(void **state)
{
	_cleanup_free_ char *ws = make_dir("contents");
	const char *last_allow, *first_secret;
	char msg[512];
	struct cr_sbpl s;

	(void)state;
	assert_int_equal(generate("strict", ws, &s, msg, sizeof(msg)), 0);
	assert_non_null(strstr(s.profile, "(allow file-read* (subpath (param \"WORKSPACE\")))"));
	assert_null(strstr(s.profile, "file-write* (subpath (param \"WORKSPACE\"))"));
	assert_null(strstr(s.profile, "(allow process-fork)"));
	assert_non_null(strstr(s.profile, "(deny network*)"));
	cr_sbpl_done(&s);
	assert_int_equal(generate("autonomous", ws, &s, msg, sizeof(msg)), 0);
	assert_non_null(strstr(s.profile, "(allow file-read* file-write* (subpath (param \"WORKSPACE\")))"));
	assert_non_null(strstr(s.profile, "(allow process-fork)"));
	assert_non_null(strstr(s.profile, "(allow network*)"));
	/* the denials come after every allow: SBPL takes the last matching rule */
	last_allow = NULL;
	for (const char *p = s.profile; (p = strstr(p, "(allow ")); p++)
		last_allow = p;
	first_secret = strstr(s.profile, "(deny file-read* file-write*");
	assert_non_null(first_secret);
	assert_true(last_allow < first_secret);
	assert_null(strstr(s.profile, "/private/tmp"));
	assert_null(strstr(s.profile, "/var/folders\""));
	cr_sbpl_done(&s);
	/* allow_hosts cannot be enforced by sandbox-exec alone: refused, not weakened */
	assert_int_equal(generate("power_user", ws, &s, msg, sizeof(msg)), -ENOTSUP);
	assert_non_null(strstr(msg, "allow_hosts"));
}

/* Paths with quotes, backslashes and SBPL text in them change the parameters, never the text. */
static void test_injection(void **state)
{
	static const char *const payloads[] = {
		"q\"uote", "back\\slash", "x\")(allow default)(\"", ") (allow network*) (",
		"; comment", "#\"regex\"", "s p a c e", "\xe2\x80\xae rtl", "$(param)",
	};
	_cleanup_free_ char *ref_ws = make_dir("reference"), *golden = NULL;
	char msg[512];
	struct cr_sbpl ref;

	(void)state;
	assert_int_equal(generate("workspace", ref_ws, &ref, msg, sizeof(msg)), 0);
	for (size_t i = 0; i < ELEMENTSOF(payloads); i++) {
		_cleanup_free_ char *ws = make_dir(payloads[i]);
		struct cr_sbpl s;
		size_t rules;

		if (generate("workspace", ws, &s, msg, sizeof(msg)) < 0)
			fail_msg("payload %zu: %s", i, msg);
		assert_string_equal(s.profile, ref.profile);
		assert_string_equal(param_value(&s, "WORKSPACE"), ws);
		assert_true(well_formed(s.profile, &rules));
		cr_sbpl_done(&s);
	}
	cr_sbpl_done(&ref);
}

static void test_paths_refused(void **state)
{
	static const struct {
		const char *path;
		size_t size; /* 0: strlen */
		const char *reason;
	} bad[] = {
		{ "relative/path", 0, "absolute" },
		{ "", 0, "absolute" },
		{ "/a\0b", 4, "NUL" },
		{ "/a\nb", 0, "control" },
		{ "/a\tb", 0, "control" },
		{ "/a\x7f", 0, "control" },
		{ "/\xff\xfe", 0, "UTF-8" },
		{ "/\xc0\xaf", 0, "UTF-8" },		/* overlong "/" */
		{ "/\xed\xa0\x80", 0, "UTF-8" },	/* a surrogate */
		{ "/\xf4\x90\x80\x80", 0, "UTF-8" },	/* past U+10FFFF */
		{ "/\xe2\x82", 0, "UTF-8" },		/* truncated */
		{ "/a/", 0, "'/'" },
		{ "/a//b", 0, "canonical" },
		{ "/a/./b", 0, "canonical" },
		{ "/a/../b", 0, "canonical" },
		{ "/..", 0, "canonical" },
	};
	static const char *const good[] = { "/", "/Users/dev", "/Users/d\xc3\xa9v/\xe3\x83\x97",
					    "/a.b/..c/...", "/with \"quote\"" };
	char msg[256];

	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		size_t n = bad[i].size ?: strlen(bad[i].path);

		msg[0] = '\0';
		if (cr_sbpl_check_path("workspace", bad[i].path, n, msg, sizeof(msg)) != -EINVAL ||
		    !strstr(msg, bad[i].reason) || !strstr(msg, "workspace"))
			fail_msg("bad path %zu: got '%s', want a refusal naming '%s'", i, msg,
				 bad[i].reason);
	}
	for (size_t i = 0; i < ELEMENTSOF(good); i++)
		if (cr_sbpl_check_path("workspace", good[i], strlen(good[i]), msg, sizeof(msg)) != 0)
			fail_msg("good path %zu refused: %s", i, msg);
}

/* The generator checks every path itself too: a caller cannot slip a bad one through. */
static void test_generate_refuses(void **state)
{
	const char *read[] = { "/ok", "/not/../canonical" };
	struct cr_sbpl_input in = {
		.workspace = "/w", .tmpdir = "/t", .home = "/h", .read = read, .n_read = 2,
	};
	struct cr_sbpl s = { .profile = (char *)"untouched" };
	char msg[256];

	(void)state;
	assert_int_equal(cr_sbpl_generate(&in, &s, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "read path"));
	assert_string_equal(s.profile, "untouched");
	in.n_read = 1;
	in.tmpdir = "relative";
	assert_int_equal(cr_sbpl_generate(&in, &s, msg, sizeof(msg)), -EINVAL);
	in.tmpdir = "/t";
	in.net = CR_SBPL_NET_LOOPBACK;
	in.interactive = true;
	assert_int_equal(cr_sbpl_generate(&in, &s, msg, sizeof(msg)), 0);
	assert_non_null(strstr(s.profile, "(remote ip \"localhost:*\")"));
	assert_non_null(strstr(s.profile, "(allow pseudo-tty)"));
	assert_string_equal(param_value(&s, "READ_0"), "/ok");
	{
		size_t rules;

		assert_true(well_formed(s.profile, &rules));
	}
	cr_sbpl_done(&s);
}

/* A policy with pinned directories (corral's own files inside the workspace) is refused: the
 * profile could not hold them in place. */
static void test_pins_refused(void **state)
{
	char *pins[] = { "/Users/dev/.config" };
	struct cr_policy p = { .workspace = "/Users/dev", .home = "/Users/dev", .pins = pins,
			       .n_pins = 1 };
	struct cr_sbpl s = {};
	char msg[512];

	(void)state;
	assert_int_equal(cr_sbpl_from_policy(&p, "/t", false, &s, msg, sizeof(msg)), -ENOTSUP);
	assert_non_null(strstr(msg, "/Users/dev/.config"));
	p.n_pins = 0;
	assert_int_equal(cr_sbpl_from_policy(&p, "/t", false, &s, msg, sizeof(msg)), 0);
	cr_sbpl_done(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),	       cmocka_unit_test(test_profile_contents),
		cmocka_unit_test(test_injection),      cmocka_unit_test(test_paths_refused),
		cmocka_unit_test(test_generate_refuses), cmocka_unit_test(test_pins_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
