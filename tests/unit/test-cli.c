/* SPDX-License-Identifier: MIT */
/* Unit tests for launcher/policy/cli.c: `corral run` option parsing and the number parsers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "launcher/policy/cli.h"
#include "launcher/base/parse-util.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1) /* arrays end with NULL */

/* Parse @argv, which must succeed. */
static void parse_ok(int argc, char **argv, struct cr_run_options *o)
{
	char msg[256] = "";
	int r;

	r = cr_cli_parse_run(argc, argv, o, msg, sizeof(msg));
	if (r != 0)
		print_error("unexpected failure: %d: %s\n", r, msg);
	assert_int_equal(r, 0);
}

/* Parse @argv, which must fail with -EINVAL and a message containing @needle (and no stray
 * control character). The result must not be written. */
static void parse_fails(int argc, char **argv, const char *needle)
{
	struct cr_run_options o = { .workspace = "untouched" };
	char msg[256] = "";
	int r;

	r = cr_cli_parse_run(argc, argv, &o, msg, sizeof(msg));
	assert_int_equal(r, -EINVAL);
	if (!strstr(msg, needle))
		print_error("message '%s' does not contain '%s'\n", msg, needle);
	assert_non_null(strstr(msg, needle));
	for (const char *p = msg; *p; p++)
		assert_true((unsigned char)*p >= 0x20);
	assert_string_equal(o.workspace, "untouched");
	assert_null(o.argv);
}

static void test_defaults(void **state)
{
	char *argv[] = { "run", "true", NULL };
	struct cr_run_options o;

	parse_ok(ARGC(argv), argv, &o);
	assert_null(o.workspace);
	assert_null(o.cwd);
	assert_null(o.hostname);
	assert_null(o.json_status);
	assert_int_equal(o.n_paths, 0);
	assert_int_equal(o.n_setenv, 0);
	assert_int_equal(o.n_keep_env, 0);
	assert_int_equal(o.n_keep_fds, 0);
	assert_int_equal(o.net, CR_NET_NONE);
	assert_false(o.map_root);
	assert_false(o.uid_set);
	assert_false(o.gid_set);
	assert_int_equal(o.uid, CR_DEFAULT_SANDBOX_ID);
	assert_int_equal(o.gid, CR_DEFAULT_SANDBOX_ID);
	assert_int_equal(o.uid, 65534);
	assert_int_equal(o.timeout_ms, 0);
	assert_int_equal(o.kill_after_ms, 2000);
	assert_int_equal(o.verbose, 0);
	assert_false(o.help);
	assert_ptr_equal(o.argv, &argv[1]);
	assert_null(o.argv[1]);
	cr_run_options_done(&o);
}

static void test_every_option(void **state)
{
	char *argv[] = {
		"run", "--workspace", "/srv/ws", "--cwd", "/srv/ws/sub", "--ro", "/opt/a",
		"--rw", "/var/b", "--hide", "/etc/c", "--net", "host", "--map-root", "--uid",
		"1000", "--gid", "1001", "--hostname", "box", "--setenv", "A=1", "--keep-env",
		"TERM", "--keep-fd", "3", "--timeout", "1.5", "--kill-after", "0.25",
		"--json-status", "fd:9", "--verbose", "cmd", "arg1", "arg2", NULL,
	};
	struct cr_run_options o;

	parse_ok(ARGC(argv), argv, &o);
	assert_string_equal(o.workspace, "/srv/ws");
	assert_string_equal(o.cwd, "/srv/ws/sub");
	assert_int_equal(o.n_paths, 3);
	assert_string_equal(o.paths[0].path, "/opt/a");
	assert_int_equal(o.paths[0].access, CR_PATH_RO);
	assert_string_equal(o.paths[1].path, "/var/b");
	assert_int_equal(o.paths[1].access, CR_PATH_RW);
	assert_string_equal(o.paths[2].path, "/etc/c");
	assert_int_equal(o.paths[2].access, CR_PATH_HIDE);
	assert_int_equal(o.net, CR_NET_HOST);
	assert_true(o.map_root);
	assert_true(o.uid_set);
	assert_int_equal(o.uid, 1000);
	assert_true(o.gid_set);
	assert_int_equal(o.gid, 1001);
	assert_string_equal(o.hostname, "box");
	assert_int_equal(o.n_setenv, 1);
	assert_string_equal(o.setenv[0], "A=1");
	assert_int_equal(o.n_keep_env, 1);
	assert_string_equal(o.keep_env[0], "TERM");
	assert_int_equal(o.n_keep_fds, 1);
	assert_int_equal(o.keep_fds[0], 3);
	assert_int_equal(o.timeout_ms, 1500);
	assert_int_equal(o.kill_after_ms, 250);
	assert_string_equal(o.json_status, "fd:9");
	assert_int_equal(o.verbose, 1);
	assert_false(o.help);
	assert_string_equal(o.argv[0], "cmd");
	assert_string_equal(o.argv[1], "arg1");
	assert_string_equal(o.argv[2], "arg2");
	assert_null(o.argv[3]);
	cr_run_options_done(&o);
}

static void test_short_and_equals_forms(void **state)
{
	char *argv[] = { "run", "-w", "/srv/ws", "-vv", "-v", "--net=none", "--timeout=2",
			 "--hostname=h1", "--verbose", "x", NULL };
	struct cr_run_options o;

	parse_ok(ARGC(argv), argv, &o);
	assert_string_equal(o.workspace, "/srv/ws");
	assert_int_equal(o.verbose, 4);
	assert_int_equal(o.net, CR_NET_NONE);
	assert_int_equal(o.timeout_ms, 2000);
	assert_string_equal(o.hostname, "h1");
	assert_string_equal(o.argv[0], "x");
	cr_run_options_done(&o);
}

static void test_repeatable_in_order(void **state)
{
	char *argv[] = { "run",	    "--ro",	"/a",	    "--rw",	 "/b",	      "--ro",
			 "/c",	    "--hide",	"/d",	    "--setenv",	 "X=1",	      "--setenv",
			 "Y=2",	    "--setenv", "X=3",	    "--keep-env", "LANG",     "--keep-env",
			 "TERM",    "--keep-fd", "5",	    "--keep-fd", "4",	      "--keep-fd",
			 "0",	    "cmd",	NULL };
	struct cr_run_options o;

	parse_ok(ARGC(argv), argv, &o);
	assert_int_equal(o.n_paths, 4);
	assert_string_equal(o.paths[0].path, "/a");
	assert_int_equal(o.paths[0].access, CR_PATH_RO);
	assert_string_equal(o.paths[1].path, "/b");
	assert_int_equal(o.paths[1].access, CR_PATH_RW);
	assert_string_equal(o.paths[2].path, "/c");
	assert_int_equal(o.paths[2].access, CR_PATH_RO);
	assert_string_equal(o.paths[3].path, "/d");
	assert_int_equal(o.paths[3].access, CR_PATH_HIDE);
	assert_int_equal(o.n_setenv, 3);
	assert_string_equal(o.setenv[0], "X=1");
	assert_string_equal(o.setenv[1], "Y=2");
	assert_string_equal(o.setenv[2], "X=3");
	assert_int_equal(o.n_keep_env, 2);
	assert_string_equal(o.keep_env[0], "LANG");
	assert_string_equal(o.keep_env[1], "TERM");
	assert_int_equal(o.n_keep_fds, 3);
	assert_int_equal(o.keep_fds[0], 5);
	assert_int_equal(o.keep_fds[1], 4);
	assert_int_equal(o.keep_fds[2], 0);
	cr_run_options_done(&o);
}

static void test_last_single_value_wins(void **state)
{
	char *argv[] = { "run", "-w", "/one", "--workspace", "/two", "--net", "host",
			 "--net", "none", "--uid", "7", "--uid", "8", "c", NULL };
	struct cr_run_options o;

	parse_ok(ARGC(argv), argv, &o);
	assert_string_equal(o.workspace, "/two");
	assert_int_equal(o.net, CR_NET_NONE);
	assert_int_equal(o.uid, 8);
	cr_run_options_done(&o);
}

static void test_stops_at_first_non_option(void **state)
{
	char *argv[] = { "run", "--ro", "/a", "cmd", "--rw", "/b", "-v", "--", "x", NULL };
	struct cr_run_options o;

	parse_ok(ARGC(argv), argv, &o);
	assert_int_equal(o.n_paths, 1);
	assert_string_equal(o.paths[0].path, "/a");
	assert_int_equal(o.verbose, 0);
	assert_ptr_equal(o.argv, &argv[3]);
	assert_string_equal(o.argv[1], "--rw");
	assert_string_equal(o.argv[2], "/b");
	assert_string_equal(o.argv[3], "-v");
	assert_string_equal(o.argv[4], "--");
	assert_string_equal(o.argv[5], "x");
	assert_null(o.argv[6]);
	cr_run_options_done(&o);
}

static void test_double_dash(void **state)
{
	char *argv1[] = { "run", "--ro", "/a", "--", "--rw", "/b", NULL };
	char *argv2[] = { "run", "--", "--help", NULL };
	char *argv3[] = { "run", "--", "--", NULL };
	struct cr_run_options o;

	parse_ok(ARGC(argv1), argv1, &o);
	assert_int_equal(o.n_paths, 1);
	assert_ptr_equal(o.argv, &argv1[4]);
	assert_string_equal(o.argv[0], "--rw");
	cr_run_options_done(&o);

	parse_ok(ARGC(argv2), argv2, &o);
	assert_false(o.help);
	assert_string_equal(o.argv[0], "--help");
	assert_null(o.argv[1]);
	cr_run_options_done(&o);

	/* Only the first "--" ends the options; the second is the command. */
	parse_ok(ARGC(argv3), argv3, &o);
	assert_string_equal(o.argv[0], "--");
	cr_run_options_done(&o);
}

static void test_command_that_looks_like_number(void **state)
{
	char *argv[] = { "run", "--keep-fd", "3", "7", NULL };
	struct cr_run_options o;

	parse_ok(ARGC(argv), argv, &o);
	assert_int_equal(o.n_keep_fds, 1);
	assert_string_equal(o.argv[0], "7");
	cr_run_options_done(&o);
}

static void test_unknown_option(void **state)
{
	char *a1[] = { "run", "--bogus", "cmd", NULL };
	char *a2[] = { "run", "-x", "cmd", NULL };
	char *a3[] = { "run", "-vq", "cmd", NULL };

	parse_fails(ARGC(a1), a1, "'--bogus'");
	parse_fails(ARGC(a1), a1, "unknown option");
	parse_fails(ARGC(a2), a2, "'-x'");
	parse_fails(ARGC(a3), a3, "'-q'");
}

static void test_missing_argument_short(void **state)
{
	char *a[] = { "run", "-w", NULL };

	parse_fails(ARGC(a), a, "missing argument");
	parse_fails(ARGC(a), a, "'-w'");
}

/* A long option without its argument: the message must name the option as the user wrote it. */
static void test_missing_argument_long(void **state)
{
	char *a1[] = { "run", "--cwd", NULL };
	char *a2[] = { "run", "--timeout", NULL };
	char *a3[] = { "run", "--ro", NULL };
	char *a4[] = { "run", "--workspace", NULL };

	parse_fails(ARGC(a1), a1, "missing argument");
	parse_fails(ARGC(a1), a1, "'--cwd'");
	parse_fails(ARGC(a2), a2, "'--timeout'");
	parse_fails(ARGC(a3), a3, "'--ro'");
	parse_fails(ARGC(a4), a4, "'--workspace'");
}

/* An argument given to a flag that takes none: the message quotes what the user wrote (the
 * quote matters, as the "see corral run --help" hint contains "--help" anyway). */
static void test_flag_with_argument(void **state)
{
	char *a1[] = { "run", "--map-root=yes", "cmd", NULL };
	char *a2[] = { "run", "--help=1", NULL };
	char *a3[] = { "run", "--verbose=2", "cmd", NULL };

	parse_fails(ARGC(a1), a1, "'--map-root");
	parse_fails(ARGC(a2), a2, "'--help");
	parse_fails(ARGC(a3), a3, "'--verbose");
}

static void test_bad_net(void **state)
{
	char *a1[] = { "run", "--net", "bridge", "cmd", NULL };
	char *a2[] = { "run", "--net=", "cmd", NULL };
	char *a3[] = { "run", "--net=HOST", "cmd", NULL };

	parse_fails(ARGC(a1), a1, "--net");
	parse_fails(ARGC(a1), a1, "bridge");
	parse_fails(ARGC(a2), a2, "--net");
	parse_fails(ARGC(a3), a3, "--net");
}

static void test_bad_uid_gid(void **state)
{
	static const char *const bad[] = {
		"0", "65535", "abc", "-1", "", "12x", "4294967295", "4294967296",
		"99999999999999999999999", " 5", "+5",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *a1[] = { "run", "--uid", (char *)bad[i], "cmd", NULL };
		char *a2[] = { "run", "--gid", (char *)bad[i], "cmd", NULL };

		parse_fails(ARGC(a1), a1, "--uid");
		parse_fails(ARGC(a2), a2, "--gid");
	}
}

static void test_uid_gid_bounds_accepted(void **state)
{
	char *argv[] = { "run", "--uid", "1", "--gid", "4294967294", "c", NULL };
	char *argv2[] = { "run", "--uid", "65536", "--gid", "65534", "c", NULL };
	struct cr_run_options o;

	parse_ok(ARGC(argv), argv, &o);
	assert_int_equal(o.uid, 1);
	assert_int_equal(o.gid, 4294967294u);
	cr_run_options_done(&o);
	parse_ok(ARGC(argv2), argv2, &o);
	assert_int_equal(o.uid, 65536);
	assert_int_equal(o.gid, 65534);
	assert_true(o.uid_set && o.gid_set);
	cr_run_options_done(&o);
}

static void test_bad_setenv(void **state)
{
	char *a1[] = { "run", "--setenv", "NOEQUALS", "cmd", NULL };
	char *a2[] = { "run", "--setenv", "=value", "cmd", NULL };
	char *a3[] = { "run", "--setenv", "", "cmd", NULL };

	parse_fails(ARGC(a1), a1, "--setenv");
	parse_fails(ARGC(a1), a1, "NOEQUALS");
	parse_fails(ARGC(a2), a2, "--setenv");
	parse_fails(ARGC(a3), a3, "--setenv");
}

static void test_setenv_empty_value(void **state)
{
	char *argv[] = { "run", "--setenv", "K=", "--setenv", "L=a=b", "c", NULL };
	struct cr_run_options o;

	parse_ok(ARGC(argv), argv, &o);
	assert_int_equal(o.n_setenv, 2);
	assert_string_equal(o.setenv[0], "K=");
	assert_string_equal(o.setenv[1], "L=a=b");
	cr_run_options_done(&o);
}

static void test_bad_keep_env(void **state)
{
	char *a1[] = { "run", "--keep-env", "A=1", "cmd", NULL };
	char *a2[] = { "run", "--keep-env", "", "cmd", NULL };

	parse_fails(ARGC(a1), a1, "--keep-env");
	parse_fails(ARGC(a1), a1, "A=1");
	parse_fails(ARGC(a2), a2, "--keep-env");
}

static void test_bad_keep_fd(void **state)
{
	static const char *const bad[] = { "-1", "x", "", "3x", "2147483648", "1.0" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *a[] = { "run", "--keep-fd", (char *)bad[i], "cmd", NULL };

		parse_fails(ARGC(a), a, "--keep-fd");
	}
}

static void test_bad_timeout(void **state)
{
	static const char *const bad[] = { "0", "0.0", "0.0004", "-1", "abc", "", "1s", "1e3", ".5" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *a[] = { "run", "--timeout", (char *)bad[i], "cmd", NULL };

		parse_fails(ARGC(a), a, "--timeout");
	}
}

static void test_kill_after(void **state)
{
	char *ok[] = { "run", "--kill-after", "0", "c", NULL };
	char *bad[] = { "run", "--kill-after", "soon", "c", NULL };
	struct cr_run_options o;

	parse_ok(ARGC(ok), ok, &o);
	assert_int_equal(o.kill_after_ms, 0);
	cr_run_options_done(&o);
	parse_fails(ARGC(bad), bad, "--kill-after");
}

static void test_no_command(void **state)
{
	char *a1[] = { "run", NULL };
	char *a2[] = { "run", "--ro", "/a", NULL };
	char *a3[] = { "run", "--ro", "/a", "--", NULL };

	parse_fails(ARGC(a1), a1, "no command");
	parse_fails(ARGC(a2), a2, "no command");
	parse_fails(ARGC(a3), a3, "no command");
}

static void test_empty_command(void **state)
{
	char *a1[] = { "run", "", NULL };
	char *a2[] = { "run", "--", "", "arg", NULL };

	parse_fails(ARGC(a1), a1, "empty");
	parse_fails(ARGC(a2), a2, "empty");
}

static void test_help(void **state)
{
	char *a1[] = { "run", "--help", NULL };
	char *a2[] = { "run", "--ro", "/a", "-h", NULL };
	struct cr_run_options o;

	parse_ok(ARGC(a1), a1, &o);
	assert_true(o.help);
	assert_null(o.argv);
	cr_run_options_done(&o);

	parse_ok(ARGC(a2), a2, &o);
	assert_true(o.help);
	assert_null(o.argv);
	assert_int_equal(o.n_paths, 1);
	cr_run_options_done(&o);
}

/* getopt keeps state between calls; the parser must reset it. */
static void test_parse_twice(void **state)
{
	char *a1[] = { "run", "-vw", "/one", "--ro", "/a", "cmd1", NULL };
	char *a2[] = { "run", "--rw", "/b", "cmd2", "x", NULL };
	/* Fails in the middle of "-xv": getopt is left pointing at the "v". */
	char *bad[] = { "run", "-xv", "cmd", NULL };
	struct cr_run_options o;

	parse_ok(ARGC(a1), a1, &o);
	assert_string_equal(o.argv[0], "cmd1");
	cr_run_options_done(&o);

	parse_fails(ARGC(bad), bad, "-x");

	parse_ok(ARGC(a2), a2, &o);
	assert_null(o.workspace);
	assert_int_equal(o.verbose, 0);
	assert_int_equal(o.n_paths, 1);
	assert_string_equal(o.paths[0].path, "/b");
	assert_int_equal(o.paths[0].access, CR_PATH_RW);
	assert_ptr_equal(o.argv, &a2[3]);
	cr_run_options_done(&o);

	parse_ok(ARGC(a1), a1, &o);
	assert_string_equal(o.workspace, "/one");
	assert_int_equal(o.verbose, 1);
	assert_ptr_equal(o.argv, &a1[5]);
	cr_run_options_done(&o);
}

static void test_options_done_zeroes(void **state)
{
	char *argv[] = { "run", "--ro", "/a", "--setenv", "A=1", "c", NULL };
	struct cr_run_options o;

	parse_ok(ARGC(argv), argv, &o);
	cr_run_options_done(&o);
	assert_null(o.paths);
	assert_int_equal(o.n_paths, 0);
	assert_null(o.setenv);
	assert_null(o.argv);
	cr_run_options_done(&o); /* twice is harmless */
}

static void expect_seconds(const char *s, uint64_t want)
{
	uint64_t ms = 4242;

	assert_int_equal(cr_parse_seconds(s, &ms), 0);
	assert_int_equal(ms, want);
}

static void expect_seconds_bad(const char *s)
{
	uint64_t ms = 4242;
	int r = cr_parse_seconds(s, &ms);

	if (r >= 0)
		print_error("'%s' accepted as %llu ms\n", s, (unsigned long long)ms);
	assert_true(r == -EINVAL || r == -ERANGE);
	assert_int_equal(ms, 4242); /* untouched on failure */
}

static void test_parse_seconds(void **state)
{
	expect_seconds("0", 0);
	expect_seconds("0.5", 500);
	expect_seconds("2", 2000);
	expect_seconds("1.2345", 1234);
	expect_seconds("1.2", 1200);
	expect_seconds("1.25", 1250);
	expect_seconds("0.001", 1);
	expect_seconds("007", 7000);
	expect_seconds("3600", 3600000);
	expect_seconds("18446744073709551", 18446744073709551000u);
	expect_seconds("18446744073709551.615", UINT64_MAX);

	expect_seconds_bad("");
	expect_seconds_bad(".5");
	expect_seconds_bad("1.");
	expect_seconds_bad("-1");
	expect_seconds_bad("+1");
	expect_seconds_bad(" 1");
	expect_seconds_bad("1 ");
	expect_seconds_bad("1e3");
	expect_seconds_bad("1.5s");
	expect_seconds_bad("1..5");
	expect_seconds_bad("abc");
	expect_seconds_bad(NULL);
	assert_int_equal(cr_parse_seconds("99999999999999999999999", &(uint64_t){ 0 }), -ERANGE);
}

/* Values whose milliseconds do not fit in 64 bits must be refused, not wrapped around. */
static void test_parse_seconds_overflow_boundary(void **state)
{
	expect_seconds_bad("18446744073709552");	   /* 1 s above the largest */
	expect_seconds_bad("18446744073709551.616"); /* 1 ms above the largest */
	expect_seconds_bad("18446744073709559");
	expect_seconds_bad("184467440737095516");
}

static void expect_format(uint64_t ms, const char *want)
{
	char buf[32];
	uint64_t back = 4242;

	cr_format_seconds(ms, buf, sizeof(buf));
	assert_string_equal(buf, want);
	assert_int_equal(cr_parse_seconds(buf, &back), 0);
	assert_int_equal(back, ms); /* reads back as the same value */
}

/* Durations print as a user types them: never an exponent (7200 was "7.2e+03"), never a
 * trailing zero. */
static void test_format_seconds(void **state)
{
	char small[4];

	expect_format(7200000, "7200");
	expect_format(1500, "1.5");
	expect_format(1250, "1.25");
	expect_format(1, "0.001");
	expect_format(10, "0.01");
	expect_format(0, "0");
	expect_format(1000, "1");
	expect_format(123456789, "123456.789");
	expect_format(366ull * 24 * 3600 * 1000, "31622400");
	expect_format(UINT64_MAX, "18446744073709551.615");
	cr_format_seconds(7200000, small, sizeof(small));
	assert_string_equal(small, "720"); /* truncated like snprintf */
}

static void test_parse_uint(void **state)
{
	uint64_t v = 7;

	assert_int_equal(cr_parse_uint("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(cr_parse_uint("10", 0, 10, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(cr_parse_uint("5", 5, 5, &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(cr_parse_uint("18446744073709551615", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, UINT64_MAX);

	v = 7;
	assert_int_equal(cr_parse_uint("11", 0, 10, &v), -ERANGE);
	assert_int_equal(cr_parse_uint("4", 5, 10, &v), -ERANGE);
	assert_int_equal(cr_parse_uint("18446744073709551616", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(cr_parse_uint("", 0, 10, &v), -EINVAL);
	assert_int_equal(cr_parse_uint("-1", 0, 10, &v), -EINVAL);
	assert_int_equal(cr_parse_uint("+1", 0, 10, &v), -EINVAL);
	assert_int_equal(cr_parse_uint(" 1", 0, 10, &v), -EINVAL);
	assert_int_equal(cr_parse_uint("1 ", 0, 10, &v), -EINVAL);
	assert_int_equal(cr_parse_uint("0x1", 0, 10, &v), -EINVAL);
	assert_int_equal(cr_parse_uint(NULL, 0, 10, &v), -EINVAL);
	assert_int_equal(v, 7); /* untouched on failure */
}

static void test_usage_texts(void **state)
{
	static const char *const opts[] = {
		"--workspace", "--cwd",	   "--ro",	"--rw",	     "--hide",	      "--net",
		"--map-root",  "--uid",	   "--gid",	"--hostname", "--setenv",     "--keep-env",
		"--keep-fd",   "--timeout", "--kill-after", "--json-status", "--verbose", "--help",
	};

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		assert_non_null(strstr(cr_run_usage, opts[i]));
	assert_non_null(strstr(cr_main_usage, "run"));
	assert_non_null(strstr(cr_main_usage, "doctor"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_option),
		cmocka_unit_test(test_short_and_equals_forms),
		cmocka_unit_test(test_repeatable_in_order),
		cmocka_unit_test(test_last_single_value_wins),
		cmocka_unit_test(test_stops_at_first_non_option),
		cmocka_unit_test(test_double_dash),
		cmocka_unit_test(test_command_that_looks_like_number),
		cmocka_unit_test(test_unknown_option),
		cmocka_unit_test(test_missing_argument_short),
		cmocka_unit_test(test_missing_argument_long),
		cmocka_unit_test(test_flag_with_argument),
		cmocka_unit_test(test_bad_net),
		cmocka_unit_test(test_bad_uid_gid),
		cmocka_unit_test(test_uid_gid_bounds_accepted),
		cmocka_unit_test(test_bad_setenv),
		cmocka_unit_test(test_setenv_empty_value),
		cmocka_unit_test(test_bad_keep_env),
		cmocka_unit_test(test_bad_keep_fd),
		cmocka_unit_test(test_bad_timeout),
		cmocka_unit_test(test_kill_after),
		cmocka_unit_test(test_no_command),
		cmocka_unit_test(test_empty_command),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_parse_twice),
		cmocka_unit_test(test_options_done_zeroes),
		cmocka_unit_test(test_parse_seconds),
		cmocka_unit_test(test_parse_seconds_overflow_boundary),
		cmocka_unit_test(test_format_seconds),
		cmocka_unit_test(test_parse_uint),
		cmocka_unit_test(test_usage_texts),
	};

	return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
