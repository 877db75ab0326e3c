/* SPDX-License-Identifier: MIT */
/* Unit tests for launcher/policy/cache.c (named caches: names, paths, the policy's list) and
 * launcher/policy/path-env.c (the sandbox's PATH with path = inherit). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "launcher/policy/cache.h"
#include "launcher/policy/env.h"
#include "launcher/policy/path-env.h"
#include "launcher/policy/policy.h"

static void names(void **state)
{
	static const char *const good[] = { "npm", "go-build", "cargo_registry", "a.b", "A9", NULL };
	static const char *const bad[] = { "", ".", "..", ".hidden", "a/b", "../../ledger", "a b",
					   "a\tb", "a\nb", "a:b", "a=b", "é", NULL };
	char longest[CR_CACHE_NAME_MAX + 2];

	for (size_t i = 0; good[i]; i++)
		assert_true(cr_cache_name_ok(good[i], strlen(good[i])));
	for (size_t i = 0; bad[i]; i++)
		assert_false(cr_cache_name_ok(bad[i], strlen(bad[i])));
	memset(longest, 'a', sizeof(longest));
	assert_true(cr_cache_name_ok(longest, CR_CACHE_NAME_MAX));
	assert_false(cr_cache_name_ok(longest, CR_CACHE_NAME_MAX + 1));
	/* The length counts: a NUL inside is not a shorter name. */
	assert_false(cr_cache_name_ok("ab\0c", 4));
}

static void spec_ok(const char *spec, char sep, const char *home, const char *want_name,
		    const char *want_path)
{
	char *name = NULL, *path = NULL, msg[256] = "";

	assert_int_equal(cr_cache_spec_parse("--cache", spec, sep, home, &name, &path, msg,
					     sizeof(msg)),
			 0);
	assert_string_equal(name, want_name);
	assert_string_equal(path, want_path);
	free(name);
	free(path);
}

static void spec_bad(const char *spec, char sep, const char *want_in_msg)
{
	char *name = NULL, *path = NULL, msg[256] = "";

	assert_int_equal(cr_cache_spec_parse("--cache", spec, sep, "/home/u", &name, &path, msg,
					     sizeof(msg)),
			 -EINVAL);
	assert_null(name);
	assert_null(path);
	assert_non_null(strstr(msg, want_in_msg));
}

static void specs(void **state)
{
	spec_ok("npm=~/.npm", '=', "/home/u", "npm", "/home/u/.npm");
	spec_ok("h=~", '=', "/home/u", "h", "/home/u");
	spec_ok("go:~/.cache/go-build", ':', "/root", "go", "/root/.cache/go-build");
	spec_ok("x=~/a", '=', "/", "x", "/a"); /* HOME=/ gives no doubled slash */
	spec_ok("x=/srv/c=d", '=', "/home/u", "x", "/srv/c=d"); /* split at the first '=' */
	spec_bad("noseparator", '=', "not of the form NAME=PATH");
	spec_bad("=/x", '=', "not of the form");
	spec_bad("x=", '=', "not of the form");
	spec_bad("../../ledger=/x", '=', "cache name '../../ledger' is not usable");
	spec_bad("a/b=/x", '=', "is not usable");
	spec_bad("x=rel", '=', "not an absolute path");
	spec_bad("x=~/../etc", '=', "not an absolute path");
	spec_bad("x=/a/./b", '=', "not an absolute path");
	spec_bad("x=~user/a", '=', "not an absolute path");
	spec_bad("x=/", '=', "the root itself");
	spec_bad("x=/proc/self", '=', "/proc and /dev");
	spec_bad("x=/dev/shm/c", '=', "/proc and /dev");
	spec_bad("x=/a\nb", '=', "not an absolute path");
}

static void add(void **state)
{
	struct cr_policy p = { .workspace = strdup("/srv/ws") };
	char msg[256] = "";

	assert_int_equal(cr_cache_add(&p, 0, strdup("npm"), strdup("/h/.npm"), "cache", msg,
				      sizeof(msg)),
			 0);
	/* An option for the profile's path replaces the profile's cache. */
	assert_int_equal(cr_cache_add(&p, 1, strdup("mine"), strdup("/h/.npm"), "--cache", msg,
				      sizeof(msg)),
			 0);
	assert_int_equal(p.n_caches, 1);
	assert_string_equal(p.caches[0].name, "mine");
	/* Two options for one path: refused. */
	assert_int_equal(cr_cache_add(&p, 0, strdup("other"), strdup("/h/.npm"), "--cache", msg,
				      sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "already holds the cache mine"));
	/* At or above the workspace: refused. */
	assert_int_equal(cr_cache_add(&p, 0, strdup("w"), strdup("/srv/ws"), "--cache", msg,
				      sizeof(msg)),
			 -EINVAL);
	assert_int_equal(cr_cache_add(&p, 0, strdup("w"), strdup("/srv"), "--cache", msg,
				      sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "would cover the workspace"));
	/* Inside it: allowed (a cache of the build's own). */
	assert_int_equal(cr_cache_add(&p, 0, strdup("in"), strdup("/srv/ws/.cache"), "--cache",
				      msg, sizeof(msg)),
			 0);
	assert_int_equal(p.n_caches, 2);
	cr_policy_done(&p);
}

static const char *const system_paths[] = { "/usr", "/bin", "/etc", NULL };

static void shows_host(void **state)
{
	struct cr_path_rule paths[] = {
		{ "/home/u/.cargo/bin", CR_PATH_RO },
		{ "/home/u/.pyenv", CR_PATH_RO },
		{ "/home/u/.pyenv/shims", CR_PATH_HIDE },
		{ "/usr/local/secret", CR_PATH_HIDE },
	};
	struct cr_cache caches[] = { { "tools", "/home/u/tools", "/state/caches/tools" } };
	struct cr_policy p = { .workspace = "/srv/ws", .paths = paths, .n_paths = 4,
			       .caches = caches, .n_caches = 1 };

	assert_true(cr_policy_shows_host(&p, system_paths, "/usr/bin"));
	assert_true(cr_policy_shows_host(&p, system_paths, "/srv/ws/node_modules/.bin"));
	assert_true(cr_policy_shows_host(&p, system_paths, "/home/u/.cargo/bin"));
	assert_true(cr_policy_shows_host(&p, system_paths, "/home/u/.pyenv/bin"));
	assert_false(cr_policy_shows_host(&p, system_paths, "/home/u/.pyenv/shims"));
	assert_false(cr_policy_shows_host(&p, system_paths, "/usr/local/secret/bin"));
	assert_false(cr_policy_shows_host(&p, system_paths, "/home/u/bin"));
	assert_false(cr_policy_shows_host(&p, system_paths, "/tmp/bin"));
	assert_false(cr_policy_shows_host(&p, system_paths, "/home/u/tools/bin")); /* a cache */
	assert_false(cr_policy_shows_host(&p, NULL, "/usr/bin"));
}

static void strv_free(char **v)
{
	for (char **e = v; e && *e; e++)
		free(*e);
	free(v);
}

static void sandbox_path(void **state)
{
	struct cr_path_rule paths[] = { { "/home/u/.cargo/bin", CR_PATH_RO } };
	struct cr_policy p = { .workspace = "/srv/ws", .paths = paths, .n_paths = 1 };
	char *path = NULL, **hidden = NULL;

	assert_int_equal(cr_sandbox_path(&p, system_paths,
					 "/home/u/.cargo/bin:/home/u/bin::.:/usr/bin:/usr/bin:/bin",
					 &path, &hidden),
			 0);
	assert_string_equal(path, "/home/u/.cargo/bin:/usr/bin:/bin");
	assert_non_null(hidden);
	assert_string_equal(hidden[0], "/home/u/bin");
	assert_string_equal(hidden[1], "");
	assert_string_equal(hidden[2], ".");
	assert_null(hidden[3]);
	free(path);
	strv_free(hidden);

	/* Nothing left, or no PATH at all: the standard one. */
	assert_int_equal(cr_sandbox_path(&p, system_paths, "/home/u/bin", &path, &hidden), 0);
	assert_string_equal(path, CR_DEFAULT_PATH);
	assert_string_equal(hidden[0], "/home/u/bin");
	free(path);
	strv_free(hidden);
	assert_int_equal(cr_sandbox_path(&p, system_paths, NULL, &path, &hidden), 0);
	assert_string_equal(path, "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/bin");
	free(path);
	strv_free(hidden);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),
		cmocka_unit_test(specs),
		cmocka_unit_test(add),
		cmocka_unit_test(shows_host),
		cmocka_unit_test(sandbox_path),
	};

	return cmocka_run_group_tests_name("cache", tests, NULL, NULL);
}
