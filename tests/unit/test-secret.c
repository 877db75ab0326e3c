/* SPDX-License-Identifier: MIT */
/* Unit tests for launcher/policy/secret.c: names, NAME=FILE, reading the files (limits, symlinks,
 * --env-file lines), and messages that never hold a value. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/policy/secret.h"

#define VALUE "v4lue-that-must-never-show"

static char dir[] = "/tmp/corral-unit-secret.XXXXXX";

static const char *file(const char *name, const char *text, size_t len)
{
	static char path[PATH_MAX];
	int fd;

	(void)snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	(void)close(fd);
	return path;
}

/* cr_secrets_read() on one option; the message, on failure, in @msg. */
static int read_one(const char *opt, const char *arg, struct cr_secret **s, size_t *n, char *msg,
		    size_t size)
{
	struct cr_run_options o = {};

	if (strcmp(opt, "--secret") == 0) {
		o.secrets = &arg;
		o.n_secrets = 1;
	} else if (strcmp(opt, "--secret-file") == 0) {
		o.secret_files = &arg;
		o.n_secret_files = 1;
	} else {
		o.env_files = &arg;
		o.n_env_files = 1;
	}
	msg[0] = '\0';
	return cr_secrets_read(&o, s, n, msg, size);
}

static void test_names(void **state)
{
	assert_true(cr_secret_name_ok(CR_SECRET_ENV, "TOKEN", 5));
	assert_true(cr_secret_name_ok(CR_SECRET_ENV, "_a9", 3));
	assert_false(cr_secret_name_ok(CR_SECRET_ENV, "9A", 2));
	assert_false(cr_secret_name_ok(CR_SECRET_ENV, "A-B", 3));
	assert_false(cr_secret_name_ok(CR_SECRET_ENV, "", 0));
	assert_true(cr_secret_name_ok(CR_SECRET_FILE, "tls.key", 7));
	assert_true(cr_secret_name_ok(CR_SECRET_FILE, "9-a_b", 5));
	assert_false(cr_secret_name_ok(CR_SECRET_FILE, ".hidden", 7));
	assert_false(cr_secret_name_ok(CR_SECRET_FILE, "..", 2));
	assert_false(cr_secret_name_ok(CR_SECRET_FILE, "a/b", 3));
}

static void test_spec(void **state)
{
	char msg[256];

	assert_int_equal(cr_secret_spec_check("--secret", CR_SECRET_ENV, "T=/f", msg, sizeof(msg)), 0);
	assert_int_equal(cr_secret_spec_check("--secret", CR_SECRET_ENV, "T", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "NAME=FILE"));
	assert_int_equal(cr_secret_spec_check("--secret", CR_SECRET_ENV, "T=", msg, sizeof(msg)), -EINVAL);
	assert_int_equal(cr_secret_spec_check("--secret", CR_SECRET_ENV, "=f", msg, sizeof(msg)), -EINVAL);
	assert_int_equal(cr_secret_spec_check("--secret-file", CR_SECRET_FILE, "../x=f", msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "'../x' is not a file name"));
}

static void test_read_env_and_file(void **state)
{
	struct cr_secret *s = NULL;
	size_t n = 0;
	char msg[512], arg[PATH_MAX + 16];

	(void)snprintf(arg, sizeof(arg), "TOKEN=%s", file("tok", VALUE "\n", strlen(VALUE) + 1));
	assert_int_equal(read_one("--secret", arg, &s, &n, msg, sizeof(msg)), 0);
	assert_int_equal(n, 1);
	assert_string_equal(s[0].name, "TOKEN");
	assert_string_equal(s[0].value, VALUE); /* the newline dropped */
	assert_int_equal(s[0].kind, CR_SECRET_ENV);
	cr_secrets_free(s, n);

	(void)snprintf(arg, sizeof(arg), "k.pem=%s", file("pem", VALUE "\n", strlen(VALUE) + 1));
	assert_int_equal(read_one("--secret-file", arg, &s, &n, msg, sizeof(msg)), 0);
	assert_string_equal(s[0].value, VALUE "\n"); /* a file as it is */
	assert_int_equal(s[0].kind, CR_SECRET_FILE);
	cr_secrets_free(s, n);
}

static void test_env_file(void **state)
{
	static const char text[] = "# comment\n\nA=1\r\nB=two words=x\nC=\nD=" VALUE;
	struct cr_secret *s = NULL;
	size_t n = 0;
	char msg[512];

	assert_int_equal(read_one("--env-file", file("env", text, strlen(text)), &s, &n, msg,
				  sizeof(msg)), 0);
	assert_int_equal(n, 4);
	assert_string_equal(s[0].name, "A");
	assert_string_equal(s[0].value, "1");
	assert_string_equal(s[1].value, "two words=x");
	assert_string_equal(s[2].value, "");
	assert_string_equal(s[3].value, VALUE);
	cr_secrets_free(s, n);

	static const char bad[] = "A=1\nexport " VALUE "\n";
	assert_int_equal(read_one("--env-file", file("bad", bad, strlen(bad)), &s, &n, msg,
				  sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "line 2 is not NAME=VALUE"));
	assert_null(strstr(msg, VALUE));
}

/* Each refusal names the option, the name and the file; never the value. */
static void test_refusals(void **state)
{
	struct cr_secret *s = NULL;
	size_t n = 0;
	char msg[512], arg[PATH_MAX + 16], big[CR_SECRET_MAX + 1], target[PATH_MAX];
	const char *p;

	(void)snprintf(arg, sizeof(arg), "T=%s/missing", dir);
	assert_int_equal(read_one("--secret", arg, &s, &n, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "--secret T: cannot open"));

	memset(big, 'x', sizeof(big));
	(void)snprintf(arg, sizeof(arg), "T=%s", file("big", big, sizeof(big)));
	assert_int_equal(read_one("--secret", arg, &s, &n, msg, sizeof(msg)), -EFBIG);
	assert_non_null(strstr(msg, "larger than 65536 bytes"));
	(void)snprintf(arg, sizeof(arg), "T=%s", file("max", big, sizeof(big) - 1));
	assert_int_equal(read_one("--secret", arg, &s, &n, msg, sizeof(msg)), 0); /* exactly 64 KiB */
	cr_secrets_free(s, n);

	(void)snprintf(arg, sizeof(arg), "T=%s", file("nul", VALUE "\0x", sizeof(VALUE) + 1));
	assert_int_equal(read_one("--secret", arg, &s, &n, msg, sizeof(msg)), -EILSEQ);
	assert_null(strstr(msg, VALUE));

	(void)snprintf(arg, sizeof(arg), "T=%s", file("empty", "\n", 1));
	assert_int_equal(read_one("--secret", arg, &s, &n, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "is empty"));

	(void)snprintf(target, sizeof(target), "%s", file("real", VALUE, strlen(VALUE)));
	(void)snprintf(arg, sizeof(arg), "T=%s/link", dir);
	assert_int_equal(symlink(target, arg + 2), 0);
	assert_int_equal(read_one("--secret", arg, &s, &n, msg, sizeof(msg)), -ELOOP);
	assert_non_null(strstr(msg, "is a symbolic link"));

	(void)snprintf(arg, sizeof(arg), "T=%s", dir);
	assert_int_equal(read_one("--secret", arg, &s, &n, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "is not a regular file"));

	p = file("twice", VALUE, strlen(VALUE));
	{
		char a1[PATH_MAX + 8], a2[PATH_MAX + 8];
		const char *both[] = { a1, a2 };
		struct cr_run_options o = { .secrets = both, .n_secrets = 2 };

		(void)snprintf(a1, sizeof(a1), "T=%s", p);
		(void)snprintf(a2, sizeof(a2), "T=%s", p);
		assert_int_equal(cr_secrets_read(&o, &s, &n, msg, sizeof(msg)), -EINVAL);
		assert_non_null(strstr(msg, "secret T is given twice"));
		(void)snprintf(a2, sizeof(a2), "U=-");
		(void)snprintf(a1, sizeof(a1), "T=-");
		assert_int_equal(cr_secrets_read(&o, &s, &n, msg, sizeof(msg)), -EINVAL);
		assert_non_null(strstr(msg, "standard input"));
	}
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_read_env_and_file),
		cmocka_unit_test(test_env_file),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests_name("secret", tests, setup, teardown);
}
