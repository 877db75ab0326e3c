/* SPDX-License-Identifier: MIT */
/* Unit tests for launcher/policy/env.c: the command's environment. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "launcher/policy/env.h"

static char *const host[] = {
	"USER=tester",
	"PATH=/usr/local/bin:/usr/bin",
	"SECRET_TOKEN=hunter2",
	"TERM=xterm-256color",
	"HOME=/home/tester",
	"LANG=C.UTF-8",
	"LC_ALL=C",
	"SSH_AUTH_SOCK=/run/ssh",
	"EDITOR=vi",
	"EMPTY=",
	NULL,
};

static size_t env_len(char **env)
{
	size_t n = 0;

	while (env[n])
		n++;
	return n;
}

/* How many entries set @key. */
static size_t count_key(char **env, const char *key)
{
	size_t n = 0, k = strlen(key);

	for (; *env; env++)
		if (strncmp(*env, key, k) == 0 && (*env)[k] == '=')
			n++;
	return n;
}

static void no_secret(char **env)
{
	for (; *env; env++)
		assert_null(strstr(*env, "hunter2"));
}

static void env_free(char **env)
{
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);
}

static char **build(char *const *h, const char *home, const char *const *keep, size_t n_keep,
		    const char *const *set, size_t n_set)
{
	char **env = NULL;

	assert_int_equal(cr_env_build(h, home, keep, n_keep, set, n_set, &env), 0);
	assert_non_null(env);
	return env;
}

static void test_allowlist_only(void **state)
{
	char **env = build(host, "/home/sandbox", NULL, 0, NULL, 0);

	assert_int_equal(env_len(env), 4);
	assert_string_equal(env[0], "PATH=" CR_DEFAULT_PATH);
	assert_string_equal(env[1], "TERM=xterm-256color");
	assert_string_equal(env[2], "LANG=C.UTF-8");
	assert_string_equal(env[3], "HOME=/home/sandbox");
	assert_null(cr_env_get(env, "USER"));
	assert_null(cr_env_get(env, "LC_ALL"));
	assert_null(cr_env_get(env, "SSH_AUTH_SOCK"));
	assert_null(cr_env_get(env, "SECRET_TOKEN"));
	no_secret(env);
	env_free(env);
}

static void test_home_is_policy_home(void **state)
{
	char **env = build(host, "/", NULL, 0, NULL, 0);

	/* The host's HOME is not copied; only the one given. */
	assert_string_equal(cr_env_get(env, "HOME"), "/");
	assert_int_equal(count_key(env, "HOME"), 1);
	env_free(env);
}

static void test_path_default(void **state)
{
	static char *const h[] = { "TERM=dumb", "PATHX=/evil", "MYPATH=/evil", NULL };
	char **env = build(h, "/h", NULL, 0, NULL, 0);

	assert_string_equal(cr_env_get(env, "PATH"), CR_DEFAULT_PATH);
	assert_string_equal(cr_env_get(env, "PATH"),
			    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	assert_int_equal(count_key(env, "PATH"), 1);
	assert_null(cr_env_get(env, "PATHX"));
	assert_null(cr_env_get(env, "LANG"));
	assert_int_equal(env_len(env), 3); /* PATH, TERM, HOME */
	env_free(env);
}

static void test_empty_host(void **state)
{
	static char *const empty[] = { NULL };
	char **env = build(empty, "/home/u", NULL, 0, NULL, 0);

	assert_int_equal(env_len(env), 2);
	assert_string_equal(cr_env_get(env, "PATH"), CR_DEFAULT_PATH);
	assert_string_equal(cr_env_get(env, "HOME"), "/home/u");
	env_free(env);

	env = build(NULL, "/home/u", NULL, 0, NULL, 0);
	assert_int_equal(env_len(env), 2);
	env_free(env);
}

static void test_host_path_not_copied(void **state)
{
	/* The caller's PATH names the host's layout: the sandbox gets the standard one. */
	static char *const h[] = { "PATH=/root/.cargo/bin:/usr/bin", NULL };
	char **env = build(h, "/h", NULL, 0, NULL, 0);

	assert_string_equal(cr_env_get(env, "PATH"), CR_DEFAULT_PATH);
	assert_int_equal(count_key(env, "PATH"), 1);
	env_free(env);
}

static void test_keep_env_path(void **state)
{
	/* --keep-env PATH asks for the caller's, even an empty one. */
	static char *const h[] = { "PATH=", NULL };
	const char *keep[] = { "PATH" };
	char **env = build(h, "/h", keep, 1, NULL, 0);

	assert_string_equal(cr_env_get(env, "PATH"), "");
	assert_int_equal(count_key(env, "PATH"), 1);
	env_free(env);
	env = build(host, "/h", keep, 1, NULL, 0);
	assert_string_equal(cr_env_get(env, "PATH"), "/usr/local/bin:/usr/bin");
	assert_int_equal(count_key(env, "PATH"), 1);
	assert_int_equal(env_len(env), 4);
	env_free(env);
}

static void test_keep_env(void **state)
{
	const char *keep[] = { "EDITOR", "NOT_SET", "USER", "EMPTY" };
	char **env = build(host, "/h", keep, 4, NULL, 0);

	assert_string_equal(cr_env_get(env, "EDITOR"), "vi");
	assert_string_equal(cr_env_get(env, "USER"), "tester");
	assert_string_equal(cr_env_get(env, "EMPTY"), "");
	assert_null(cr_env_get(env, "NOT_SET"));
	assert_int_equal(count_key(env, "NOT_SET"), 0);
	assert_int_equal(env_len(env), 7);
	no_secret(env);
	env_free(env);
}

static void test_keep_env_exact_names(void **state)
{
	/* A prefix of a variable's name is a different variable. */
	const char *keep[] = { "SECRET", "SECRET_TOKE", "ECRET_TOKEN" };
	char **env = build(host, "/h", keep, 3, NULL, 0);

	assert_int_equal(env_len(env), 4);
	no_secret(env);
	env_free(env);
}

static void test_keep_env_no_duplicates(void **state)
{
	const char *keep[] = { "TERM", "EDITOR", "EDITOR" };
	char **env = build(host, "/h", keep, 3, NULL, 0);

	assert_int_equal(count_key(env, "TERM"), 1);
	assert_int_equal(count_key(env, "EDITOR"), 1);
	assert_int_equal(env_len(env), 5);
	env_free(env);
}

static void test_setenv_overrides_and_adds(void **state)
{
	const char *keep[] = { "EDITOR" };
	const char *set[] = { "PATH=/opt/bin", "NEW=1", "EDITOR=nano", "HOME=/work", "TERM=" };
	char **env = build(host, "/h", keep, 1, set, 5);

	assert_string_equal(cr_env_get(env, "PATH"), "/opt/bin");
	assert_string_equal(cr_env_get(env, "NEW"), "1");
	assert_string_equal(cr_env_get(env, "EDITOR"), "nano");
	assert_string_equal(cr_env_get(env, "HOME"), "/work");
	assert_string_equal(cr_env_get(env, "TERM"), "");
	assert_int_equal(count_key(env, "PATH"), 1);
	assert_int_equal(count_key(env, "EDITOR"), 1);
	assert_int_equal(count_key(env, "HOME"), 1);
	assert_int_equal(count_key(env, "TERM"), 1);
	assert_int_equal(env_len(env), 6);
	env_free(env);
}

static void test_setenv_later_wins(void **state)
{
	const char *set[] = { "A=1", "B=2", "A=3", "AB=4", "A=5=6" };
	char **env = build(host, "/h", NULL, 0, set, 5);

	assert_string_equal(cr_env_get(env, "A"), "5=6");
	assert_string_equal(cr_env_get(env, "B"), "2");
	assert_string_equal(cr_env_get(env, "AB"), "4");
	assert_int_equal(count_key(env, "A"), 1);
	assert_int_equal(count_key(env, "AB"), 1);
	env_free(env);
}

static void test_setenv_prefix_is_another_key(void **state)
{
	/* PATHX must not replace PATH, and PAT must not either. */
	const char *set[] = { "PATHX=/x", "PAT=/y" };
	char **env = build(host, "/h", NULL, 0, set, 2);

	assert_string_equal(cr_env_get(env, "PATH"), CR_DEFAULT_PATH);
	assert_string_equal(cr_env_get(env, "PATHX"), "/x");
	assert_string_equal(cr_env_get(env, "PAT"), "/y");
	env_free(env);
}

static void test_setenv_explicit_secret(void **state)
{
	/* Only what the user names on purpose reaches the command. */
	const char *set[] = { "SECRET_TOKEN=given" };
	char **env = build(host, "/h", NULL, 0, set, 1);

	assert_string_equal(cr_env_get(env, "SECRET_TOKEN"), "given");
	no_secret(env);
	env_free(env);
}

static void test_result_is_a_copy(void **state)
{
	char buf[] = "TERM=vt100";
	char *h[] = { buf, NULL };
	char **env = build(h, "/h", NULL, 0, NULL, 0);

	buf[5] = 'X';
	assert_string_equal(cr_env_get(env, "TERM"), "vt100");
	for (char **e = env; *e; e++)
		assert_ptr_not_equal(*e, buf);
	env_free(env);
}

static void test_env_get(void **state)
{
	assert_string_equal(cr_env_get(host, "USER"), "tester");
	assert_string_equal(cr_env_get(host, "EMPTY"), "");
	assert_string_equal(cr_env_get(host, "LC_ALL"), "C");
	assert_null(cr_env_get(host, "US"));
	assert_null(cr_env_get(host, "USERS"));
	assert_null(cr_env_get(host, "SECRET"));
	assert_null(cr_env_get(host, "nope"));
	assert_null(cr_env_get(NULL, "USER"));
	assert_ptr_equal(cr_env_get(host, "USER"), host[0] + 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allowlist_only),
		cmocka_unit_test(test_home_is_policy_home),
		cmocka_unit_test(test_path_default),
		cmocka_unit_test(test_empty_host),
		cmocka_unit_test(test_host_path_not_copied),
		cmocka_unit_test(test_keep_env_path),
		cmocka_unit_test(test_keep_env),
		cmocka_unit_test(test_keep_env_exact_names),
		cmocka_unit_test(test_keep_env_no_duplicates),
		cmocka_unit_test(test_setenv_overrides_and_adds),
		cmocka_unit_test(test_setenv_later_wins),
		cmocka_unit_test(test_setenv_prefix_is_another_key),
		cmocka_unit_test(test_setenv_explicit_secret),
		cmocka_unit_test(test_result_is_a_copy),
		cmocka_unit_test(test_env_get),
	};

	return cmocka_run_group_tests_name("env", tests, NULL, NULL);
}
