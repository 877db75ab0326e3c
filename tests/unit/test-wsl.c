/* SPDX-License-Identifier: MIT */
/* wsl/: Windows command lines both ways (Microsoft's documented examples, and every byte of
 * tricky and generated arguments round-tripping), Windows paths to WSL paths, the wsl.exe argv,
 * and WSL detection from /proc/version and mountinfo fixtures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/macro.h"
#include "wsl/wsl.h"

static char *fixture(const char *name)
{
	char path[4096];
	FILE *f;
	char *text = NULL;
	size_t n = 0;

	(void)snprintf(path, sizeof(path), "%s/%s", CR_WSL_FIXTURES, name);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_true(getdelim(&text, &n, '\0', f) > 0);
	fclose(f);
	return text;
}

static void expect_split(const char *cmdline, const char *const *want)
{
	char **got = NULL;
	size_t i;

	assert_int_equal(cr_win_split_cmdline(cmdline, &got), 0);
	for (i = 0; want[i]; i++) {
		if (!got[i] || strcmp(got[i], want[i]) != 0)
			fail_msg("'%s': argument %zu is '%s', want '%s'", cmdline, i,
				 got[i] ? got[i] : "(none)", want[i]);
	}
	if (got[i])
		fail_msg("'%s': extra argument '%s'", cmdline, got[i]);
	strv_freep(&got);
}

/* The examples of Microsoft's "Parsing C command-line arguments" (after the program name). */
static void test_split_documented(void **state)
{
	(void)state;
	expect_split("p \"abc\" d e", (const char *[]){ "p", "abc", "d", "e", NULL });
	expect_split("p a\\\\b d\"e f\"g h", (const char *[]){ "p", "a\\\\b", "de fg", "h", NULL });
	expect_split("p a\\\\\\\"b c d", (const char *[]){ "p", "a\\\"b", "c", "d", NULL });
	expect_split("p a\\\\\\\\\"b c\" d e", (const char *[]){ "p", "a\\\\b c", "d", "e", NULL });
	expect_split("p a\"b\"\" c d", (const char *[]){ "p", "ab\" c d", NULL });
	/* the program name: quotes only, backslashes as they are */
	expect_split("\"C:\\Program Files\\x.exe\" a", (const char *[]){ "C:\\Program Files\\x.exe", "a", NULL });
	expect_split("C:\\a\\\"b c", (const char *[]){ "C:\\a\\\"b", "c", NULL });
	expect_split("p  \t a   \"\"  b", (const char *[]){ "p", "a", "", "b", NULL });
	expect_split("p", (const char *[]){ "p", NULL });
}

static void round_trip(char *const *argv)
{
	_cleanup_free_ char *line = NULL;
	char **back = NULL;
	size_t i;

	assert_int_equal(cr_win_join_cmdline(argv, &line), 0);
	assert_int_equal(cr_win_split_cmdline(line, &back), 0);
	for (i = 0; argv[i]; i++)
		if (!back[i] || strcmp(back[i], argv[i]) != 0)
			fail_msg("argument %zu '%s' came back as '%s' through [%s]", i, argv[i],
				 back[i] ? back[i] : "(none)", line);
	assert_null(back[i]);
	strv_freep(&back);
}

static void test_round_trip_tricky(void **state)
{
	static const char *const tricky[] = {
		"", " ", "a b", "\"", "\"\"", "\\", "\\\\", "a\\", "a\\\\", "\\\"", "a\\\"b",
		"trailing\\\\\\", "\t", "\n", "\v", "x\"y\"z", "\"quoted\"", "C:\\Program Files\\",
		"$(rm -rf /)", "`id`", "a;b", "&&", "|", "%PATH%", "!x!", "^", "caf\xc3\xa9",
		"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "\xf0\x9f\x90\x8e emoji", "\\\\server\\share",
		"ends with space ", " starts", "--", "-d", "a\"\"b",
	};
	char *argv[3] = { "wsl.exe", NULL, NULL };

	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(tricky); i++) {
		argv[1] = (char *)tricky[i];
		round_trip(argv);
	}
	round_trip((char *[]){ "C:\\Windows\\System32\\wsl.exe", "a", "", "b c", NULL });
	round_trip((char *[]){ "C:\\With Space\\wsl.exe", "\"", NULL });
}

/* Generated arguments of every ASCII byte but NUL, and multi-byte characters, in runs that favour
 * backslashes, quotes and blanks. */
static void test_round_trip_generated(void **state)
{
	static const char *const pieces[] = { "\\", "\"", " ", "\t", "a", "\xc3\xa9", "\xe2\x82\xac",
					      "\xf0\x9f\x98\x80", "'", "\n", "/" };
	uint32_t seed = 12345;

	(void)state;
	for (int round = 0; round < 5000; round++) {
		char arg[64] = "", *argv[4] = { "wsl.exe", arg, NULL, NULL };
		int len = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 9;
		char other[2] = { (char)(1 + (seed >> 8) % 126), 0 };

		for (int k = 0; k < len; k++) {
			seed = seed * 1103515245u + 12345u;
			strcat(arg, (seed >> 16) % 12 == 11 ? other : pieces[(seed >> 16) % 12 % 11]);
		}
		argv[2] = (round & 1) ? arg : (char *)"next";
		round_trip(argv);
	}
}

static void test_join_refusals(void **state)
{
	char *line = NULL;

	(void)state;
	assert_int_equal(cr_win_join_cmdline((char *[]){ "a\"b.exe", NULL }, &line), -EINVAL);
	assert_int_equal(cr_win_join_cmdline((char *[]){ "", NULL }, &line), -EINVAL);
	assert_int_equal(cr_win_join_cmdline((char *[]){ "w.exe", "\xff", NULL }, &line), -EINVAL);
	assert_int_equal(cr_win_join_cmdline((char *[]){ "w.exe", "\xed\xa0\x80", NULL }, &line),
			 -EINVAL);
	assert_null(line);
}

static void test_paths(void **state)
{
	static const struct {
		const char *win, *want;
	} good[] = {
		{ "C:\\Users\\dev\\proj", "/mnt/c/Users/dev/proj" },
		{ "c:/Users/dev/proj/", "/mnt/c/Users/dev/proj" },
		{ "D:\\", "/mnt/d" },
		{ "\\\\?\\C:\\very\\long", "/mnt/c/very/long" },
		{ "\\\\wsl$\\corral\\home\\dev", "/home/dev" },
		{ "\\\\wsl.localhost\\Ubuntu\\", "/" },
		{ "C:\\Users\\d\xc3\xa9v\\My Project", "/mnt/c/Users/d\xc3\xa9v/My Project" },
		{ "C:\\a\\\\b", "/mnt/c/a/b" },
	};
	static const struct {
		const char *win, *reason;
	} bad[] = {
		{ "relative\\dir", "relative" },   { "C:dir", "drive C:" },
		{ "\\\\server\\share\\x", "share" }, { "\\rooted", "share" },
		{ "C:\\a\\..\\b", "'..'" },	     { "C:\\a\\.\\b", "'.'" },
		{ "C:\\a|b", "character" },	     { "C:\\a\x01", "character" },
		{ "C:\\\xff", "UTF-8" },	     { "", "empty" },
	};
	char msg[256];

	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(good); i++) {
		_cleanup_free_ char *out = NULL;

		if (cr_wsl_path_from_windows(good[i].win, "/mnt", &out, msg, sizeof(msg)) < 0)
			fail_msg("'%s' refused: %s", good[i].win, msg);
		assert_string_equal(out, good[i].want);
	}
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		char *out = NULL;

		msg[0] = '\0';
		if (cr_wsl_path_from_windows(bad[i].win, "/mnt", &out, msg, sizeof(msg)) != -EINVAL ||
		    !strstr(msg, bad[i].reason))
			fail_msg("'%s': got '%s', want a refusal naming '%s'", bad[i].win, msg,
				 bad[i].reason);
		assert_null(out);
	}
}

/* The whole way: the Linux argv the inner corral gets is the one asked for, byte for byte. */
static void test_build_argv(void **state)
{
	char *cmd[] = { "sh", "-c", "echo \"$1\" 'x y' \\\\ done", "--", "a\"b c\\", NULL };
	char *opts[] = { "--profile", "ci", NULL };
	struct cr_wsl_invocation in = {
		.wsl_exe = "C:\\Windows\\System32\\wsl.exe",
		.distro = "corral",
		.workspace = "C:\\Users\\dev\\My Project",
		.status_file = "/mnt/c/Users/dev/My Project/.corral-status.json",
		.corral_options = opts,
		.argv = cmd,
	};
	static const char *const want_head[] = {
		"C:\\Windows\\System32\\wsl.exe", "-d", "corral", "--cd", "/mnt/c/Users/dev/My Project",
		"--exec", "corral", "run", "--workspace", "/mnt/c/Users/dev/My Project",
		"--json-status", "/mnt/c/Users/dev/My Project/.corral-status.json", "--profile", "ci",
		"--",
	};
	_cleanup_free_ char *line = NULL;
	char **v = NULL, **back = NULL;
	char msg[256];
	size_t i;

	(void)state;
	assert_int_equal(cr_wsl_build_argv(&in, &v, msg, sizeof(msg)), 0);
	for (i = 0; i < ELEMENTSOF(want_head); i++)
		assert_string_equal(v[i], want_head[i]);
	for (size_t j = 0; cmd[j]; j++)
		assert_string_equal(v[i + j], cmd[j]);
	assert_int_equal(cr_win_join_cmdline(v, &line), 0);
	assert_int_equal(cr_win_split_cmdline(line, &back), 0);
	for (i = 0; v[i]; i++)
		assert_string_equal(back[i], v[i]);
	assert_null(back[i]);
	strv_freep(&v);
	strv_freep(&back);
	cmd[1] = "\xc3\x28"; /* not UTF-8 */
	assert_int_equal(cr_wsl_build_argv(&in, &v, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "UTF-8"));
}

static void test_detect(void **state)
{
	_cleanup_free_ char *wsl2 = fixture("proc-version-wsl2"), *wsl1 = fixture("proc-version-wsl1");
	_cleanup_free_ char *deb = fixture("proc-version-debian");
	_cleanup_free_ char *mi_wsl = fixture("mountinfo-wsl2"), *mi_plain = fixture("mountinfo-plain");

	(void)state;
	assert_true(cr_wsl_detect(wsl2, NULL));
	assert_true(cr_wsl_detect(wsl1, NULL));
	assert_false(cr_wsl_detect(deb, NULL));
	assert_true(cr_wsl_detect(deb, mi_wsl)); /* a custom kernel, still drvfs drives */
	assert_false(cr_wsl_detect(deb, mi_plain)); /* 9p, but not drvfs */
	assert_false(cr_wsl_detect(NULL, NULL));
	assert_string_equal(cr_wsl_interop_env[0], "WSL_INTEROP");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_documented), cmocka_unit_test(test_round_trip_tricky),
		cmocka_unit_test(test_round_trip_generated), cmocka_unit_test(test_join_refusals),
		cmocka_unit_test(test_paths),		 cmocka_unit_test(test_build_argv),
		cmocka_unit_test(test_detect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
