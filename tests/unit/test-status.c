/* SPDX-License-Identifier: MIT */
/* Unit tests for launcher/status.c: exit codes and the --json-status object. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/base/exit-codes.h"
#include "launcher/status.h"

/* ---- exit codes ---- */

static int code(enum cr_outcome_kind kind, int status, int err, bool timed_out)
{
	struct cr_outcome o = { .kind = kind, .status = status, .error = { .err = err } };

	return cr_exit_code(&o, timed_out);
}

static void test_exit_code_exited(void **state)
{
	assert_int_equal(code(CR_OUTCOME_EXITED, 0, 0, false), 0);
	assert_int_equal(code(CR_OUTCOME_EXITED, 1, 0, false), 1);
	assert_int_equal(code(CR_OUTCOME_EXITED, 42, 0, false), 42);
	assert_int_equal(code(CR_OUTCOME_EXITED, 255, 0, false), 255);
	/* The command's own 124..127 are passed on as they are. */
	assert_int_equal(code(CR_OUTCOME_EXITED, 125, 0, false), 125);
}

static void test_exit_code_signaled(void **state)
{
	assert_int_equal(code(CR_OUTCOME_SIGNALED, SIGKILL, 0, false), 137);
	assert_int_equal(code(CR_OUTCOME_SIGNALED, SIGTERM, 0, false), 143);
	assert_int_equal(code(CR_OUTCOME_SIGNALED, SIGSEGV, 0, false), 128 + SIGSEGV);
	assert_int_equal(code(CR_OUTCOME_SIGNALED, 1, 0, false), CR_EXIT_SIGNAL_BASE + 1);
}

static void test_exit_code_exec_failed(void **state)
{
	assert_int_equal(code(CR_OUTCOME_EXEC_FAILED, 0, ENOENT, false), 127);
	assert_int_equal(code(CR_OUTCOME_EXEC_FAILED, 0, ENOENT, false), CR_EXIT_NOTFOUND);
	assert_int_equal(code(CR_OUTCOME_EXEC_FAILED, 0, EACCES, false), 126);
	assert_int_equal(code(CR_OUTCOME_EXEC_FAILED, 0, ENOEXEC, false), CR_EXIT_NOEXEC);
}

static void test_exit_code_setup_and_timeout(void **state)
{
	assert_int_equal(code(CR_OUTCOME_SETUP_FAILED, 0, EPERM, false), 125);
	assert_int_equal(code(CR_OUTCOME_SETUP_FAILED, 0, EPERM, false), CR_EXIT_SETUP);
	assert_int_equal(cr_exit_code(NULL, false), 125);
	/* A timeout wins over whatever the command did when it was stopped. */
	assert_int_equal(code(CR_OUTCOME_SIGNALED, SIGKILL, 0, true), 124);
	assert_int_equal(code(CR_OUTCOME_EXITED, 0, 0, true), 124);
	assert_int_equal(cr_exit_code(NULL, true), CR_EXIT_TIMEOUT);
	assert_int_equal(CR_EXIT_TIMEOUT, 124);
}

static void test_signal_name(void **state)
{
	assert_string_equal(cr_signal_name(SIGKILL), "SIGKILL");
	assert_string_equal(cr_signal_name(SIGTERM), "SIGTERM");
	assert_string_equal(cr_signal_name(SIGSEGV), "SIGSEGV");
	assert_string_equal(cr_signal_name(1), "SIGHUP");
	assert_string_equal(cr_signal_name(SIGSYS), "SIGSYS");
	assert_null(cr_signal_name(0));
	assert_null(cr_signal_name(-9));
	assert_null(cr_signal_name(NSIG));
	assert_null(cr_signal_name(1000));
	assert_null(cr_signal_name(INT_MIN));
}

/* ---- the status object ---- */

static char *argv_cmd[] = { "sh", "-c", "echo \"hi\"\nexit 3", NULL };

/* Serialize @st as cr_status_write() would and parse it back. */
static json_object *round_trip(json_object *st)
{
	const char *text;
	json_object *parsed;

	assert_non_null(st);
	text = json_object_to_json_string_ext(st, JSON_C_TO_STRING_PLAIN);
	assert_non_null(text);
	parsed = json_tokener_parse(text);
	assert_non_null(parsed);
	assert_true(json_object_is_type(parsed, json_type_object));
	return parsed;
}

static json_object *get(json_object *o, const char *key, json_type type)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		print_error("key '%s' missing\n", key);
	assert_true(json_object_object_get_ex(o, key, &v));
	if (!json_object_is_type(v, type))
		print_error("key '%s' is %s, want %s\n", key,
			    json_type_to_name(json_object_get_type(v)), json_type_to_name(type));
	assert_true(json_object_is_type(v, type));
	return v;
}

static const char *get_str(json_object *o, const char *key)
{
	return json_object_get_string(get(o, key, json_type_string));
}

static int get_int(json_object *o, const char *key)
{
	return json_object_get_int(get(o, key, json_type_int));
}

static void test_build_exited(void **state)
{
	struct cr_outcome out = { .kind = CR_OUTCOME_EXITED, .status = 3 };
	struct cr_status s = {
		.driver = "linux",
		.argv = argv_cmd,
		.outcome = &out,
		.exit_code = 3,
		.duration_ms = 12.5,
	};
	json_object *st = cr_status_build(&s), *j, *cmd;

	j = round_trip(st);
	assert_int_equal(get_int(j, "version"), 1);
	assert_int_equal(get_int(j, "version"), CR_STATUS_VERSION);
	assert_string_equal(get_str(j, "corral_version"), CR_VERSION);
	assert_string_equal(get_str(j, "driver"), "linux");
	assert_string_equal(get_str(j, "outcome"), "exited");
	assert_int_equal(get_int(j, "exit_code"), 3);
	get(j, "signal", json_type_null);
	get(j, "signal_name", json_type_null);
	assert_false(json_object_get_boolean(get(j, "timed_out", json_type_boolean)));
	assert_true(json_object_get_double(get(j, "duration_ms", json_type_double)) == 12.5);
	get(j, "enforced", json_type_null);
	get(j, "error", json_type_null);

	cmd = get(j, "command", json_type_array);
	assert_int_equal(json_object_array_length(cmd), 3);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(cmd, 0)), "sh");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(cmd, 1)), "-c");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(cmd, 2)),
			    "echo \"hi\"\nexit 3");
	json_object_put(j);
	json_object_put(st);
}

static void test_build_signaled(void **state)
{
	struct cr_outcome out = { .kind = CR_OUTCOME_SIGNALED, .status = SIGKILL };
	struct cr_status s = {
		.driver = "linux",
		.argv = argv_cmd,
		.outcome = &out,
		.exit_code = 137,
	};
	json_object *st = cr_status_build(&s), *j;

	j = round_trip(st);
	assert_string_equal(get_str(j, "outcome"), "signaled");
	assert_int_equal(get_int(j, "signal"), 9);
	assert_string_equal(get_str(j, "signal_name"), "SIGKILL");
	assert_int_equal(get_int(j, "exit_code"), 137);
	json_object_put(j);
	json_object_put(st);
}

static void test_build_timed_out(void **state)
{
	struct cr_outcome out = { .kind = CR_OUTCOME_SIGNALED, .status = SIGTERM };
	struct cr_status s = {
		.driver = "linux",
		.argv = argv_cmd,
		.outcome = &out,
		.timed_out = true,
		.exit_code = 124,
	};
	json_object *st = cr_status_build(&s), *j;

	j = round_trip(st);
	assert_string_equal(get_str(j, "outcome"), "timed_out");
	assert_true(json_object_get_boolean(get(j, "timed_out", json_type_boolean)));
	assert_int_equal(get_int(j, "exit_code"), 124);
	/* The signal that ended it is still reported. */
	assert_int_equal(get_int(j, "signal"), SIGTERM);
	assert_string_equal(get_str(j, "signal_name"), "SIGTERM");
	json_object_put(j);
	json_object_put(st);
}

static void test_build_exec_failed(void **state)
{
	struct cr_outcome out = {
		.kind = CR_OUTCOME_EXEC_FAILED,
		.error = { .stage = "exec", .err = ENOENT, .message = "nosuchcmd: not found" },
	};
	struct cr_status s = {
		.driver = "linux",
		.argv = argv_cmd,
		.outcome = &out,
		.error = &out.error,
		.exit_code = 127,
	};
	json_object *st = cr_status_build(&s), *j, *e;

	j = round_trip(st);
	assert_string_equal(get_str(j, "outcome"), "exec_failed");
	assert_int_equal(get_int(j, "exit_code"), 127);
	get(j, "signal", json_type_null);
	e = get(j, "error", json_type_object);
	assert_string_equal(get_str(e, "stage"), "exec");
	assert_int_equal(get_int(e, "errno"), ENOENT);
	assert_string_equal(get_str(e, "errno_name"), "ENOENT");
	assert_string_equal(get_str(e, "message"), "nosuchcmd: not found");
	json_object_put(j);
	json_object_put(st);
}

static void test_build_setup_failed(void **state)
{
	struct cr_setup_error err = { .stage = "uid_map", .err = EPERM, .message = "refused" };
	struct cr_outcome out = { .kind = CR_OUTCOME_SETUP_FAILED, .error = err };
	struct cr_status s = {
		.driver = "linux",
		.outcome = &out,
		.error = &err,
		.exit_code = 125,
	};
	json_object *st = cr_status_build(&s), *j, *e;

	j = round_trip(st);
	assert_string_equal(get_str(j, "outcome"), "setup_failed");
	e = get(j, "error", json_type_object);
	assert_string_equal(get_str(e, "stage"), "uid_map");
	assert_int_equal(get_int(e, "errno"), EPERM);
	assert_string_equal(get_str(e, "errno_name"), "EPERM");
	/* No argv: an empty array, not null. */
	assert_int_equal(json_object_array_length(get(j, "command", json_type_array)), 0);
	json_object_put(j);
	json_object_put(st);
}

static void test_build_no_outcome(void **state)
{
	struct cr_setup_error err = { .stage = "cli", .err = 0, .message = "bad option" };
	struct cr_status s = { .driver = "linux", .argv = argv_cmd, .error = &err, .exit_code = 125 };
	json_object *st = cr_status_build(&s), *j, *e;

	j = round_trip(st);
	assert_string_equal(get_str(j, "outcome"), "setup_failed");
	assert_int_equal(get_int(j, "exit_code"), 125);
	get(j, "signal", json_type_null);
	e = get(j, "error", json_type_object);
	assert_int_equal(get_int(e, "errno"), 0);
	get(e, "errno_name", json_type_null); /* no errno, no name */
	assert_string_equal(get_str(e, "message"), "bad option");
	json_object_put(j);
	json_object_put(st);
}

static void test_build_enforced_passthrough(void **state)
{
	struct cr_outcome out = { .kind = CR_OUTCOME_EXITED };
	json_object *enforced = json_object_new_object(), *st, *j, *e;
	struct cr_status s = {
		.driver = "linux",
		.argv = argv_cmd,
		.outcome = &out,
		.enforced = enforced,
	};

	assert_int_equal(json_object_object_add(enforced, "landlock_abi", json_object_new_int(3)),
			 0);
	assert_int_equal(json_object_object_add(enforced, "net", json_object_new_string("none")),
			 0);
	st = cr_status_build(&s);
	assert_non_null(st);
	/* Borrowed: the status holds its own reference, the caller keeps its one. */
	assert_ptr_equal(json_object_object_get(st, "enforced"), enforced);
	j = round_trip(st);
	json_object_put(st);
	e = get(j, "enforced", json_type_object);
	assert_int_equal(get_int(e, "landlock_abi"), 3);
	assert_string_equal(get_str(e, "net"), "none");
	/* Still ours after the status is gone. */
	assert_string_equal(json_object_get_string(json_object_object_get(enforced, "net")),
			    "none");
	json_object_put(j);
	json_object_put(enforced);
}

static void test_build_duration_precision(void **state)
{
	struct cr_outcome out = { .kind = CR_OUTCOME_EXITED };
	struct cr_status s = {
		.driver = "linux",
		.argv = argv_cmd,
		.outcome = &out,
		.duration_ms = 1.23456789,
	};
	json_object *st = cr_status_build(&s), *j;
	double d;

	/* Milliseconds with microsecond resolution: three decimals in the text. */
	assert_non_null(st);
	assert_non_null(strstr(json_object_to_json_string_ext(st, JSON_C_TO_STRING_PLAIN),
			       "\"duration_ms\":1.235,"));
	j = round_trip(st);
	d = json_object_get_double(get(j, "duration_ms", json_type_double));
	assert_true(d > 1.2349 && d < 1.2351);
	json_object_put(j);
	json_object_put(st);
}

/* ---- cr_status_open / cr_status_write ---- */

struct dir_fixture {
	char dir[PATH_MAX];
};

static int dir_setup(void **state)
{
	struct dir_fixture *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/corral-unit-status.XXXXXX";

	if (!f || !mkdtemp(tmpl))
		return -1;
	(void)snprintf(f->dir, sizeof(f->dir), "%s", tmpl);
	*state = f;
	return 0;
}

static int dir_teardown(void **state)
{
	struct dir_fixture *f = *state;
	char cmd[PATH_MAX + 16];
	int r;

	(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	r = system(cmd);
	free(f);
	return r == 0 ? 0 : -1;
}

static void test_open_fd(void **state)
{
	struct cr_status_dest d;
	char dest[32], msg[256] = "";
	int p[2];

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	(void)snprintf(dest, sizeof(dest), "fd:%d", p[1]);
	assert_int_equal(cr_status_open(dest, &d, msg, sizeof(msg)), 0);
	assert_int_equal(d.fd, p[1]);
	assert_false(d.owned);
	assert_false(cr_status_replaces(&d)); /* the final record alone */
	cr_status_close(&d);
	assert_int_equal(fcntl(p[1], F_GETFD) >= 0, 1); /* not corral's to close */
	(void)close(p[0]);
	(void)close(p[1]);
}

static void test_open_fd_closed(void **state)
{
	struct cr_status_dest d;
	char dest[32], num[16], msg[256] = "";
	int fd;

	fd = dup(2);
	assert_true(fd >= 0);
	assert_int_equal(close(fd), 0);
	(void)snprintf(dest, sizeof(dest), "fd:%d", fd);
	(void)snprintf(num, sizeof(num), "%d", fd);
	assert_int_equal(cr_status_open(dest, &d, msg, sizeof(msg)), -EBADF);
	assert_non_null(strstr(msg, "--json-status"));
	assert_non_null(strstr(msg, num));
	cr_status_close(&d);
}

static void test_open_fd_garbage(void **state)
{
	static const char *const bad[] = { "fd:", "fd:x", "fd:-1", "fd:1x", "fd: 1",
					   "fd:99999999999999999999" };
	struct cr_status_dest d;
	char msg[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg[0] = '\0';
		assert_int_equal(cr_status_open(bad[i], &d, msg, sizeof(msg)), -EINVAL);
		assert_non_null(strstr(msg, "--json-status"));
		assert_non_null(strstr(msg, bad[i]));
	}
	msg[0] = '\0';
	assert_int_equal(cr_status_open("", &d, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "--json-status"));
}

static json_object *read_status(const char *path)
{
	char buf[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	assert_true(n > 1);
	buf[n] = '\0';
	assert_ptr_equal(strchr(buf, '\n'), &buf[n - 1]); /* one line */
	return json_tokener_parse(buf);
}

/* Nothing is created until a record is written; each record then replaces the file whole. */
static void test_open_file_replaced(void **state)
{
	struct dir_fixture *f = *state;
	struct cr_outcome out = { .kind = CR_OUTCOME_EXITED, .status = 3 };
	char *argv[] = { "make", "-j2", NULL };
	struct cr_status s = { .driver = "linux", .argv = argv, .outcome = &out, .exit_code = 3 };
	char path[PATH_MAX + 16], msg[256] = "";
	struct cr_status_dest d;
	json_object *st, *j;
	struct stat before, after;
	DIR *dir;
	struct dirent *e;
	int n = 0;

	(void)snprintf(path, sizeof(path), "%s/status.json", f->dir);
	assert_int_equal(cr_status_open(path, &d, msg, sizeof(msg)), 0);
	assert_true(cr_status_replaces(&d));
	assert_int_equal(d.fd, -1);
	assert_true(fcntl(d.dir_fd, F_GETFD) & FD_CLOEXEC);

	st = cr_status_build_started("linux", argv, 4242);
	assert_non_null(st);
	assert_int_equal(cr_status_put(&d, st), 0);
	json_object_put(st);
	j = read_status(path);
	assert_non_null(j);
	assert_string_equal(get_str(j, "outcome"), "started");
	assert_int_equal(get_int(j, "pid"), 4242);
	assert_string_equal(get_str(j, "driver"), "linux");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(
				    get(j, "command", json_type_array), 1)), "-j2");
	assert_int_equal(get_int(j, "version"), CR_STATUS_VERSION);
	json_object_put(j);
	assert_int_equal(stat(path, &before), 0);

	st = cr_status_build(&s);
	assert_int_equal(cr_status_put(&d, st), 0);
	json_object_put(st);
	cr_status_close(&d);
	assert_int_equal(stat(path, &after), 0);
	assert_true(before.st_ino != after.st_ino); /* a new file, renamed over the old one */
	j = read_status(path);
	assert_string_equal(get_str(j, "outcome"), "exited");
	assert_int_equal(get_int(j, "exit_code"), 3);
	json_object_put(j);

	/* No temporary file is left beside it. */
	dir = opendir(f->dir);
	assert_non_null(dir);
	while ((e = readdir(dir)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	(void)closedir(dir);
	assert_int_equal(n, 1);
}

/* A symlink's target is replaced, the link stays; /dev paths and non-regular files are
 * written in place. */
static void test_open_symlink_and_in_place(void **state)
{
	struct dir_fixture *f = *state;
	char target[PATH_MAX + 16], link[PATH_MAX + 16], msg[256] = "";
	struct cr_status_dest d;
	struct stat st;

	(void)snprintf(target, sizeof(target), "%s/real.json", f->dir);
	(void)snprintf(link, sizeof(link), "%s/link.json", f->dir);
	assert_int_equal(symlink(target, link), 0);
	/* Dangling: the target is made through the link, in place, as before. */
	assert_int_equal(cr_status_open(link, &d, msg, sizeof(msg)), 0);
	assert_false(cr_status_replaces(&d));
	assert_int_equal(lstat(target, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	cr_status_close(&d);
	assert_int_equal(cr_status_open(link, &d, msg, sizeof(msg)), 0);
	assert_true(cr_status_replaces(&d));
	assert_string_equal(d.name, "real.json");
	cr_status_close(&d);

	assert_int_equal(cr_status_open("/dev/null", &d, msg, sizeof(msg)), 0);
	assert_false(cr_status_replaces(&d));
	assert_true(d.fd > 2 && d.owned);
	assert_int_equal(fstat(d.fd, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	cr_status_close(&d);
}

static void test_open_unwritable(void **state)
{
	struct dir_fixture *f = *state;
	char path[PATH_MAX + 32], msg[256];
	struct cr_status_dest d;

	/* A directory: not writable as a file, even by root. */
	msg[0] = '\0';
	assert_int_equal(cr_status_open(f->dir, &d, msg, sizeof(msg)), -EISDIR);
	assert_non_null(strstr(msg, "--json-status"));
	assert_non_null(strstr(msg, f->dir));
	assert_non_null(strstr(msg, strerror(EISDIR)));

	/* A missing parent directory. */
	(void)snprintf(path, sizeof(path), "%s/no/such/dir/status.json", f->dir);
	msg[0] = '\0';
	assert_int_equal(cr_status_open(path, &d, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, path));
	assert_non_null(strstr(msg, strerror(ENOENT)));
	assert_int_equal(d.dir_fd, -1);
}

static void test_write_one_line(void **state)
{
	struct dir_fixture *f = *state;
	struct cr_outcome out = {
		.kind = CR_OUTCOME_EXEC_FAILED,
		.error = { .stage = "exec", .err = EACCES, .message = "line one\nline two" },
	};
	struct cr_status s = {
		.driver = "linux",
		.argv = argv_cmd, /* has a newline inside an argument */
		.outcome = &out,
		.error = &out.error,
		.exit_code = 126,
	};
	char path[PATH_MAX + 16], msg[256], buf[8192];
	struct cr_status_dest d;
	json_object *st, *j;
	ssize_t n;
	int fd;

	(void)snprintf(path, sizeof(path), "%s/status.json", f->dir);
	assert_int_equal(cr_status_open(path, &d, msg, sizeof(msg)), 0);
	st = cr_status_build(&s);
	assert_non_null(st);
	assert_int_equal(cr_status_put(&d, st), 0);
	cr_status_close(&d);
	json_object_put(st);

	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	assert_true(n > 1);
	buf[n] = '\0';
	/* Exactly one line: one newline, at the very end. */
	assert_int_equal(buf[n - 1], '\n');
	assert_ptr_equal(strchr(buf, '\n'), &buf[n - 1]);
	assert_int_equal(buf[0], '{');
	/* Paths are written plainly, without "\/" escapes. */
	assert_null(strstr(buf, "\\/"));

	j = json_tokener_parse(buf);
	assert_non_null(j);
	assert_string_equal(get_str(j, "outcome"), "exec_failed");
	assert_int_equal(get_int(j, "exit_code"), 126);
	assert_string_equal(get_str(get(j, "error", json_type_object), "errno_name"), "EACCES");
	assert_string_equal(get_str(get(j, "error", json_type_object), "message"),
			    "line one\nline two");
	json_object_put(j);
}

static void test_write_to_pipe_and_bad_fd(void **state)
{
	struct cr_outcome out = { .kind = CR_OUTCOME_EXITED, .status = 0 };
	char *argv[] = { "/usr/bin/env", NULL };
	struct cr_status s = { .driver = "linux", .argv = argv, .outcome = &out };
	json_object *st = cr_status_build(&s), *j, *cmd;
	char buf[4096];
	ssize_t n;
	int p[2], fd;

	assert_non_null(st);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(cr_status_write(st, p[1]), 0);
	(void)close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	(void)close(p[0]);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_ptr_equal(strchr(buf, '\n'), &buf[n - 1]);
	assert_non_null(strstr(buf, "\"/usr/bin/env\""));
	j = json_tokener_parse(buf);
	assert_non_null(j);
	cmd = get(j, "command", json_type_array);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(cmd, 0)),
			    "/usr/bin/env");
	json_object_put(j);

	fd = dup(2);
	assert_true(fd >= 0);
	(void)close(fd);
	assert_int_equal(cr_status_write(st, fd), -EBADF);
	json_object_put(st);
}

#define D(fn) cmocka_unit_test_setup_teardown(fn, dir_setup, dir_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_code_exited),
		cmocka_unit_test(test_exit_code_signaled),
		cmocka_unit_test(test_exit_code_exec_failed),
		cmocka_unit_test(test_exit_code_setup_and_timeout),
		cmocka_unit_test(test_signal_name),
		cmocka_unit_test(test_build_exited),
		cmocka_unit_test(test_build_signaled),
		cmocka_unit_test(test_build_timed_out),
		cmocka_unit_test(test_build_exec_failed),
		cmocka_unit_test(test_build_setup_failed),
		cmocka_unit_test(test_build_no_outcome),
		cmocka_unit_test(test_build_enforced_passthrough),
		cmocka_unit_test(test_build_duration_precision),
		cmocka_unit_test(test_open_fd),
		cmocka_unit_test(test_open_fd_closed),
		cmocka_unit_test(test_open_fd_garbage),
		D(test_open_file_replaced),
		D(test_open_symlink_and_in_place),
		D(test_open_unwritable),
		D(test_write_one_line),
		cmocka_unit_test(test_write_to_pipe_and_bad_fd),
	};

	return cmocka_run_group_tests_name("status", tests, NULL, NULL);
}
