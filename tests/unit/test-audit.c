/* SPDX-License-Identifier: MIT */
/* Unit tests for launcher/session/audit.c: the argv hash, opening the ledger (refusals), whole lines
 * under concurrency, and a full disk (in a private tmpfs) for the ledger and the session store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/session/audit.h"
#include "launcher/policy/capability.h"
#include "launcher/base/macro.h"
#include "launcher/session/session.h"
#include "launcher/session/session-internal.h"

static char root[64];

static int setup(void **state)
{
	strcpy(root, "/tmp/cr-test-audit.XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[160];

	(void)snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd) == 0 ? 0 : -1;
}

static char *slurp(const char *path, size_t *ret_len)
{
	FILE *fp = fopen(path, "re");
	char *buf = NULL;
	size_t size = 0;
	ssize_t n;

	assert_non_null(fp);
	n = getdelim(&buf, &size, '\0', fp);
	fclose(fp);
	if (n < 0) {
		free(buf);
		buf = strdup("");
		n = 0;
	}
	if (ret_len)
		*ret_len = (size_t)n;
	return buf;
}

static json_object *entry(const char *key, const char *value)
{
	json_object *o = json_object_new_object();

	assert_int_equal(json_object_object_add(o, key, json_object_new_string(value)), 0);
	return o;
}

static void test_argv_hash(void **state)
{
	char *argv[] = {"ls", "-l", "/tmp", NULL};
	char *one[] = {"ls -l /tmp", NULL};
	char *none[] = {NULL};
	char hash[65];

	/* printf 'ls\0-l\0/tmp\0' | sha256sum */
	cr_audit_argv_hash(argv, hash);
	assert_string_equal(hash,
			    "1b91ca152fa98f6225f250702d19ef28757cd663c748af74b52f7f3441611297");
	/* Argument boundaries count: one argument with the same bytes differs. */
	cr_audit_argv_hash(one, hash);
	assert_string_not_equal(hash,
				"1b91ca152fa98f6225f250702d19ef28757cd663c748af74b52f7f3441611297");
	/* printf '' | sha256sum */
	cr_audit_argv_hash(none, hash);
	assert_string_equal(hash,
			    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	cr_audit_argv_hash(NULL, hash);
	assert_string_equal(hash,
			    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_now(void **state)
{
	char now[32];

	cr_audit_now(now);
	assert_int_equal(strlen(now), 20);
	assert_int_equal(now[4], '-');
	assert_int_equal(now[7], '-');
	assert_int_equal(now[10], 'T');
	assert_int_equal(now[13], ':');
	assert_int_equal(now[19], 'Z');
	assert_true(strncmp(now, "20", 2) == 0);
}

static void test_open_append(void **state)
{
	char path[160], dir[128], msg[512];
	json_object *a = entry("a", "1"), *b = entry("b", "x\ny/z");
	struct stat st;
	char *text;
	int fd;

	(void)snprintf(dir, sizeof(dir), "%s/state/corral", root);
	(void)snprintf(path, sizeof(path), "%s/audit.jsonl", dir);
	/* Without make_dir, a missing directory is an error. */
	assert_int_equal(cr_audit_open(path, false, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, path));
	fd = cr_audit_open(path, true, msg, sizeof(msg));
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(fd, F_GETFL) & O_APPEND);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(cr_audit_append(fd, a, msg, sizeof(msg)), 0);
	assert_int_equal(cr_audit_append(fd, b, msg, sizeof(msg)), 0);
	close(fd);
	text = slurp(path, NULL);
	assert_string_equal(text, "{\"a\":\"1\"}\n{\"b\":\"x\\ny/z\"}\n");
	free(text);

	/* Reopened: appended after what is there. */
	fd = cr_audit_open(path, false, msg, sizeof(msg));
	assert_true(fd >= 0);
	assert_int_equal(cr_audit_append(fd, a, msg, sizeof(msg)), 0);
	close(fd);
	text = slurp(path, NULL);
	assert_string_equal(text, "{\"a\":\"1\"}\n{\"b\":\"x\\ny/z\"}\n{\"a\":\"1\"}\n");
	free(text);
	json_object_put(a);
	json_object_put(b);
}

/* A ledger whose last line was cut short (a crash mid-write) gets a newline first. */
static void test_append_after_cut_line(void **state)
{
	json_object *a = entry("a", "1");
	char path[160], msg[256], *text;
	int fd;

	(void)snprintf(path, sizeof(path), "%s/audit.jsonl", root);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\"cut", 5), 5);
	close(fd);
	fd = cr_audit_open(path, false, msg, sizeof(msg));
	assert_true(fd >= 0);
	assert_int_equal(cr_audit_append(fd, a, msg, sizeof(msg)), 0);
	close(fd);
	text = slurp(path, NULL);
	assert_string_equal(text, "{\"cut\n{\"a\":\"1\"}\n");
	free(text);
	json_object_put(a);
}

static void test_line_too_long(void **state)
{
	char path[160], msg[256], *big = malloc(CR_JSONL_LINE_MAX);
	json_object *o;
	struct stat st;
	int fd;

	assert_non_null(big);
	memset(big, 'x', CR_JSONL_LINE_MAX - 1);
	big[CR_JSONL_LINE_MAX - 1] = '\0';
	o = entry("big", big);
	(void)snprintf(path, sizeof(path), "%s/audit.jsonl", root);
	fd = cr_audit_open(path, false, msg, sizeof(msg));
	assert_true(fd >= 0);
	assert_int_equal(cr_audit_append(fd, o, msg, sizeof(msg)), -E2BIG);
	assert_non_null(strstr(msg, path));
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	close(fd);
	json_object_put(o);
	free(big);
}

static void test_refusals(void **state)
{
	char path[160], target[160], msg[512];
	struct stat st;

	(void)snprintf(path, sizeof(path), "%s/audit.jsonl", root);
	(void)snprintf(target, sizeof(target), "%s/target", root);

	/* A symlink, dangling or not: refused, and the target is neither created nor touched. */
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(cr_audit_open(path, false, msg, sizeof(msg)), -ELOOP);
	assert_non_null(strstr(msg, "symbolic link"));
	assert_non_null(strstr(msg, path));
	assert_int_equal(lstat(target, &st), -1);
	assert_int_equal(close(open(target, O_WRONLY | O_CREAT, 0600)), 0);
	assert_int_equal(cr_audit_open(path, true, msg, sizeof(msg)), -ELOOP);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(unlink(path), 0);

	/* Writable by others. */
	assert_int_equal(close(open(path, O_WRONLY | O_CREAT, 0600)), 0);
	assert_int_equal(chmod(path, 0622), 0);
	assert_int_equal(cr_audit_open(path, false, msg, sizeof(msg)), -EPERM);
	assert_non_null(strstr(msg, "mode 0622"));
	assert_int_equal(unlink(path), 0);

	/* Not a regular file. */
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(cr_audit_open(path, false, msg, sizeof(msg)), -EPERM);
	assert_non_null(strstr(msg, "not a regular file"));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_true(cr_audit_open(path, false, msg, sizeof(msg)) < 0);
	assert_int_equal(rmdir(path), 0);

	/* Another user's. */
	if (geteuid() == 0) {
		assert_int_equal(close(open(path, O_WRONLY | O_CREAT, 0600)), 0);
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(cr_audit_open(path, false, msg, sizeof(msg)), -EPERM);
		assert_non_null(strstr(msg, "belongs to uid 65534"));
	} else
		print_message("(not root: the other-owner case is not checked)\n");
	assert_int_equal(cr_audit_open("", false, msg, sizeof(msg)), -EINVAL);

	/* With make_dir, the ledger's directory must be corral's too; without, it is not checked.
	 */
	(void)snprintf(path, sizeof(path), "%s/shared", root);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chmod(path, 0777), 0);
	(void)snprintf(path, sizeof(path), "%s/shared/audit.jsonl", root);
	assert_int_equal(cr_audit_open(path, true, msg, sizeof(msg)), -EPERM);
	assert_non_null(strstr(msg, "mode 0777"));
	assert_int_equal(lstat(path, &st), -1);
	int fd = cr_audit_open(path, false, msg, sizeof(msg));
	assert_true(fd >= 0);
	close(fd);
}

/* N processes, each its own open (as separate runs), append M lines each at once. */
static void test_concurrent(void **state)
{
	enum {
		N = 8,
		M = 200
	};
	static bool seen[N][M];
	char path[160], *text, *line, *save = NULL;
	int go[2], lines = 0;

	(void)snprintf(path, sizeof(path), "%s/audit.jsonl", root);
	assert_int_equal(pipe(go), 0);
	for (int i = 0; i < N; i++) {
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			char msg[512], c, pad[4097];
			int fd;

			close(go[1]);
			(void)read(go[0], &c, 1);
			fd = cr_audit_open(path, true, msg, sizeof(msg));
			if (fd < 0)
				_exit(fprintf(stderr, "child %d: %s\n", i, msg) > 0 ? 1 : 1);
			for (int j = 0; j < M; j++) {
				json_object *o = json_object_new_object();
				size_t n = (size_t)((i * 977 + j * 131) % 4096);

				memset(pad, 'a' + i, n);
				pad[n] = '\0';
				json_object_object_add(o, "child", json_object_new_int(i));
				json_object_object_add(o, "seq", json_object_new_int(j));
				json_object_object_add(o, "pad", json_object_new_string(pad));
				if (cr_audit_append(fd, o, msg, sizeof(msg)) < 0)
					_exit(fprintf(stderr, "child %d: %s\n", i, msg) > 0 ? 2
											    : 2);
				json_object_put(o);
			}
			_exit(0);
		}
	}
	close(go[0]);
	close(go[1]);
	for (int i = 0; i < N; i++) {
		int status;

		assert_true(wait(&status) > 0);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	text = slurp(path, NULL);
	assert_int_equal(text[strlen(text) - 1], '\n');
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_object *o = json_tokener_parse(line);
		int c, s;

		if (!o)
			fail_msg("line %d does not parse: %.80s", lines + 1, line);
		c = json_object_get_int(json_object_object_get(o, "child"));
		s = json_object_get_int(json_object_object_get(o, "seq"));
		assert_in_range(c, 0, N - 1);
		assert_in_range(s, 0, M - 1);
		assert_false(seen[c][s]);
		seen[c][s] = true;
		assert_int_equal(strlen(json_object_get_string(json_object_object_get(o, "pad"))),
				 (size_t)((c * 977 + s * 131) % 4096));
		json_object_put(o);
		lines++;
	}
	assert_int_equal(lines, N * M);
	free(text);
}

/* ---- a full disk ---- */

#define CHECK(cond)                                                                            \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			fprintf(stderr, "full-disk child, line %d: %s (errno %d)\n", __LINE__, \
				#cond, errno);                                                 \
			_exit(1);                                                              \
		}                                                                              \
	} while (0)

static bool write_id_map(const char *file, unsigned id)
{
	char buf[64];
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	int n = snprintf(buf, sizeof(buf), "0 %u 1\n", id);
	bool ok = fd >= 0 && write(fd, buf, (size_t)n) == n;

	if (fd >= 0)
		close(fd);
	return ok;
}

/* Mount a 16 KiB tmpfs on @dir in a mount namespace of this (child) process alone: as root, or
 * as root of a new user namespace. false if neither is possible. */
static bool private_tmpfs(const char *dir)
{
	unsigned uid = getuid(), gid = getgid();

	if (unshare(CLONE_NEWNS) < 0) {
		int fd;

		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			return false;
		fd = open("/proc/self/setgroups", O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			(void)!write(fd, "deny", 4);
			close(fd);
		}
		if (!write_id_map("/proc/self/uid_map", uid) ||
		    !write_id_map("/proc/self/gid_map", gid))
			return false;
	}
	return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
	       mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=16k,mode=0700") == 0;
}

static off_t size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* Fill the filesystem of @dir until a write fails with ENOSPC. */
static void fill(const char *dir)
{
	char path[PATH_MAX], block[4096];
	int fd;

	memset(block, 'f', sizeof(block));
	(void)snprintf(path, sizeof(path), "%s/fill", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	while (write(fd, block, sizeof(block)) > 0)
		;
	CHECK(errno == ENOSPC);
	while (write(fd, block, 1) > 0)
		;
	CHECK(errno == ENOSPC);
	close(fd);
}

/* A capability whose grant line is longer than a page, so that it cannot fit in the space left
 * in the file's last page. */
static void big_grant(struct cr_capability *c)
{
	char path[128];

	*c = (struct cr_capability){};
	for (int i = 0; i < 100; i++) {
		(void)snprintf(path, sizeof(path), "/some/rather/long/path/for/a/grant/number-%03d",
			       i);
		CHECK(cr_capability_add_path(c, false, path) == 0);
	}
}

static int full_disk_child(const char *dir)
{
	char ledger[PATH_MAX], state[PATH_MAX], grants[PATH_MAX], msg[1024], *before, *after;
	struct cr_capability small = {}, big, got = {};
	struct cr_session s = {}, t = {};
	json_object *o = entry("run", "1"), *huge;
	char *pad = malloc(9000);
	size_t n_grants = 0;
	off_t size;
	int fd;

	if (!private_tmpfs(dir))
		return 77;
	(void)snprintf(ledger, sizeof(ledger), "%s/audit.jsonl", dir);
	(void)snprintf(state, sizeof(state), "%s/corral", dir);
	fd = cr_audit_open(ledger, false, msg, sizeof(msg));
	CHECK(fd >= 0);
	CHECK(cr_audit_append(fd, o, msg, sizeof(msg)) == 0);
	CHECK(cr_session_open(state, "full", NULL, true, &s, msg, sizeof(msg)) == 0);
	CHECK(cr_capability_add_path(&small, false, "/usr") == 0);
	CHECK(cr_session_grant_add(&s, &small, NULL, msg, sizeof(msg)) == 0);
	(void)snprintf(grants, sizeof(grants), "%s/%s.grants.jsonl", s.store, s.hash);
	fill(dir);

	/* The ledger: a line longer than what is left of its page fails whole. */
	CHECK(pad);
	memset(pad, 'p', 8999);
	pad[8999] = '\0';
	huge = entry("pad", pad);
	size = size_of(ledger);
	before = slurp(ledger, NULL);
	msg[0] = '\0';
	CHECK(cr_audit_append(fd, huge, msg, sizeof(msg)) == -ENOSPC);
	CHECK(strstr(msg, ledger) && strstr(msg, "No space left on device"));
	CHECK(size_of(ledger) == size);
	after = slurp(ledger, NULL);
	CHECK(strcmp(before, after) == 0);
	/* A short line still fits in the page the file has: appended whole. */
	CHECK(cr_audit_append(fd, o, msg, sizeof(msg)) == 0);
	free(after);
	after = slurp(ledger, NULL);
	CHECK(strcmp(after, "{\"run\":\"1\"}\n{\"run\":\"1\"}\n") == 0);

	/* The session store: a grant that does not fit fails whole; the grants still read. */
	big_grant(&big);
	size = size_of(grants);
	CHECK(cr_session_grant_add(&s, &big, NULL, msg, sizeof(msg)) == -ENOSPC);
	CHECK(strstr(msg, grants) != NULL);
	CHECK(size_of(grants) == size);
	CHECK(cr_session_grants_read(open(s.store, O_RDONLY | O_DIRECTORY), s.store, s.hash, &got,
				     &n_grants, msg, sizeof(msg)) == 0);
	CHECK(n_grants == 1 && got.n_fs_read == 1 && strcmp(got.fs_read[0], "/usr") == 0);

	/* A new session on the full disk: a clear error, and no metadata, whole or not. */
	msg[0] = '\0';
	CHECK(cr_session_open(state, "new", NULL, true, &t, msg, sizeof(msg)) == -ENOSPC);
	CHECK(strstr(msg, "No space left on device") != NULL);
	{
		DIR *d = opendir(s.store);
		struct dirent *de;
		int n_json = 0;

		CHECK(d);
		while ((de = readdir(d)))
			if (strstr(de->d_name, ".json") && !strstr(de->d_name, ".jsonl"))
				n_json++;
			else
				CHECK(!strstr(de->d_name, ".tmp"));
		closedir(d);
		CHECK(n_json == 1);
	}
	CHECK(cr_session_open(state, "new", NULL, false, &t, msg, sizeof(msg)) == -ENOENT);
	return 0;
}

static void test_full_disk(void **state)
{
	char dir[160];
	int status;
	pid_t pid;

	(void)snprintf(dir, sizeof(dir), "%s/tmpfs", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(full_disk_child(dir));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		print_message(
			"skipped: cannot mount a tmpfs (neither root nor a user namespace)\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv_hash),
		cmocka_unit_test(test_now),
		T(test_open_append),
		T(test_append_after_cut_line),
		T(test_line_too_long),
		T(test_refusals),
		T(test_concurrent),
		T(test_full_disk),
	};

	return cmocka_run_group_tests_name("audit", tests, NULL, NULL);
}
