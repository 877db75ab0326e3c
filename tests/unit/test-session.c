/* SPDX-License-Identifier: MIT */
/* Unit tests for launcher/session/session.c and launcher/cmd/session-cmd.c: ids and their hashes, lazy and
 * concurrent creation, the refusals (symlinks, owners, modes), grants, and `corral session`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/policy/capability.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/macro.h"
#include "launcher/session/session.h"
#include "launcher/cmd/session-cmd.h"
#include "launcher/session/session-internal.h"
#include "launcher/session/state.h"

struct fixture {
	char root[64];      /* a fresh directory, removed afterwards */
	char state[128];    /* root/state/corral: not created */
	char sessions[160]; /* state/sessions */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->root, "/tmp/cr-test-session.XXXXXX");
	if (!mkdtemp(f->root))
		return -1;
	(void)snprintf(f->state, sizeof(f->state), "%s/state/corral", f->root);
	(void)snprintf(f->sessions, sizeof(f->sessions), "%s/sessions", f->state);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[256];

	(void)snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s; rm -rf %s", f->root, f->root);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* The contents of @path, NUL-terminated (the test fails if it cannot be read). */
static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "re");
	char *buf = NULL;
	size_t size = 0;

	assert_non_null(fp);
	assert_true(getdelim(&buf, &size, '\0', fp) >= 0 || feof(fp));
	fclose(fp);
	if (!buf)
		buf = strdup("");
	return buf;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static void path_of(char *buf, size_t size, const struct fixture *f, const char *id,
		    const char *suffix)
{
	char hash[33];

	cr_session_hash(id, hash);
	(void)snprintf(buf, size, "%s/%s%s", f->sessions, hash, suffix);
}

static void open_ok(const struct fixture *f, const char *id, const char *profile,
		    struct cr_session *s)
{
	char msg[512] = "";
	int r = cr_session_open(f->state, id, profile, true, s, msg, sizeof(msg));

	if (r < 0)
		fail_msg("cr_session_open(%s): %d %s", id, r, msg);
}

/* ---- ids and hashes ---- */

static void test_hash_known(void **state)
{
	static const struct {
		const char *id, *hash;
	} cases[] = {
		/* printf %s ID | sha256sum | cut -c1-32 */
		{"demo", "2a97516c354b68848cdbd8f54a226a0a"},
		{"a", "ca978112ca1bbdcafac231b39a23dc4d"},
		{"my session/1", "ac32c758781eb4a2299e886b19ba697d"},
		{"\xc3\xbcn\xc3\xaf"
		 "code \xe2\x9c\x93",
		 "1105f022f3f3c250ee3b45ff0692bcf4"},
	};
	char hash[33], big[CR_SESSION_ID_MAX + 1];

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		memset(hash, 'X', sizeof(hash));
		cr_session_hash(cases[i].id, hash);
		assert_string_equal(hash, cases[i].hash);
		assert_true(cr_session_hash_valid(hash));
	}
	memset(big, 'x', CR_SESSION_ID_MAX);
	big[CR_SESSION_ID_MAX] = '\0';
	cr_session_hash(big, hash);
	assert_string_equal(hash, "85e62acd750c4eb56b7b6a1d66dca5bf");
	assert_int_equal(cr_session_id_check(big, NULL, 0), 0);
	assert_false(cr_session_hash_valid("2A97516C354B68848CDBD8F54A226A0A"));
	assert_false(cr_session_hash_valid("2a97516c354b68848cdbd8f54a226a0"));
	assert_false(cr_session_hash_valid("2a97516c354b68848cdbd8f54a226a0a0"));
}

static void test_id_refused(void **state)
{
	struct fixture *f = *state;
	static const char *const bad[] = {
		"",
		"a\nb",
		"tab\there",
		"\x1b[31mred",
		"del\x7f",
		"\r",
		"\xff",         /* not UTF-8 */
		"\xc0\x80",     /* overlong NUL */
		"\xed\xa0\x80", /* a surrogate */
		"\xe2\x9c",     /* cut short */
	};
	struct cr_session s = {};
	char big[CR_SESSION_ID_MAX + 2], msg[256];

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		msg[0] = '\0';
		assert_int_equal(
			cr_session_open(f->state, bad[i], NULL, true, &s, msg, sizeof(msg)),
			-EINVAL);
		assert_non_null(strstr(msg, "session id"));
		assert_null(s.id);
	}
	memset(big, 'x', CR_SESSION_ID_MAX + 1);
	big[CR_SESSION_ID_MAX + 1] = '\0';
	assert_int_equal(cr_session_open(f->state, big, NULL, true, &s, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "session id longer than 256 bytes");
	/* Nothing was created for a refused id. */
	assert_int_equal(access(f->state, F_OK), -1);
	big[CR_SESSION_ID_MAX] = '\0';
	open_ok(f, big, NULL, &s);
	assert_string_equal(s.hash, "85e62acd750c4eb56b7b6a1d66dca5bf");
	cr_session_done(&s);
}

static void test_state_dir(void **state)
{
	char tmpl[] = "/tmp/corral-unit-state.XXXXXX", why[1024], want[PATH_MAX];
	char xdg[PATH_MAX + 32], home[PATH_MAX + 32];
	char *env1[] = {"HOME=/home/u", xdg, NULL};
	char *env2[] = {"XDG_STATE_HOME=relative", home, NULL};
	char *env3[] = {"XDG_STATE_HOME=relative", "HOME=also-relative", NULL};
	char *env4[] = {"HOME=/", NULL};
	char *env5[] = {"HOME=/nonexistent", NULL};
	const char *source;
	char *dir = NULL;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	(void)snprintf(xdg, sizeof(xdg), "XDG_STATE_HOME=%s/st//", tmpl);
	(void)snprintf(home, sizeof(home), "HOME=%s/", tmpl);
	(void)snprintf(want, sizeof(want), "%s/st/corral", tmpl);
	assert_int_equal(cr_state_locate(env1, &dir, &source, why, sizeof(why)), 0);
	assert_string_equal(dir, want);
	assert_string_equal(source, "XDG_STATE_HOME");
	assert_string_equal(why, "");
	free(dir);
	(void)snprintf(want, sizeof(want), "%s/.local/state/corral", tmpl);
	assert_int_equal(cr_state_dir(env2, &dir), 0);
	assert_string_equal(dir, want);
	free(dir);
	/* No usable place: the per-uid fallback, with the reasons. */
	(void)snprintf(want, sizeof(want), CR_STATE_FALLBACK_BASE "/corral-%u", (unsigned)geteuid());
	for (char **env[] = {env3, env4, env5}, **const *e = env; e < env + 3; e++) {
		int r = cr_state_locate(*e, &dir, &source, why, sizeof(why));

		if (r == -EPERM) /* the host's own fallback is unusable: said so */
			assert_non_null(strstr(why, "refusing the fallback state directory"));
		else {
			assert_int_equal(r, 0);
			assert_string_equal(dir, want);
			assert_string_equal(source, "fallback");
			assert_non_null(strstr(why, *e == env4 ? "HOME is /, not a home" : "HOME"));
			free(dir);
		}
	}
	assert_int_equal(rmdir(tmpl), 0);
}

/* ---- creation and reuse ---- */

static void assert_mode(const char *path, mode_t type, mode_t mode)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(st.st_mode & S_IFMT, type);
	assert_int_equal(st.st_mode & 07777, mode);
	assert_int_equal(st.st_uid, geteuid());
}

static void test_lazy_create(void **state)
{
	struct fixture *f = *state;
	struct cr_session s = {};
	char path[PATH_MAX], *text, *canon;
	json_object *o;

	umask(022);
	open_ok(f, "demo", "workspace", &s);
	canon = realpath(f->sessions, NULL);
	assert_non_null(canon);
	assert_string_equal(s.store, canon);
	(void)snprintf(path, sizeof(path), "%s/2a97516c354b68848cdbd8f54a226a0a", canon);
	assert_string_equal(s.workspace, path);
	assert_string_equal(s.hash, "2a97516c354b68848cdbd8f54a226a0a");
	assert_string_equal(s.id, "demo");
	assert_string_equal(s.profile, "workspace");
	free(canon);

	assert_mode(f->state, S_IFDIR, 0700);
	assert_mode(f->sessions, S_IFDIR, 0700);
	assert_mode(s.workspace, S_IFDIR, 0700);
	path_of(path, sizeof(path), f, "demo", ".json");
	assert_mode(path, S_IFREG, 0600);

	text = slurp(path);
	assert_int_equal(text[strlen(text) - 1], '\n');
	assert_null(strchr(text, '\n') + 1 == text + strlen(text) ? NULL : "two lines");
	o = json_tokener_parse(text);
	assert_non_null(o);
	assert_int_equal(json_object_object_length(o), 4);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "id")), "demo");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "hash")),
			    "2a97516c354b68848cdbd8f54a226a0a");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "profile")),
			    "workspace");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "created")),
			    s.created);
	/* RFC 3339, UTC, seconds: 2026-11-22T13:17:17Z */
	assert_int_equal(strlen(s.created), 20);
	assert_int_equal(s.created[4], '-');
	assert_int_equal(s.created[10], 'T');
	assert_int_equal(s.created[19], 'Z');
	json_object_put(o);
	free(text);
	cr_session_done(&s);
	assert_null(s.id);
	assert_null(s.workspace);
}

static void test_reuse(void **state)
{
	struct fixture *f = *state;
	struct cr_session s = {}, t = {};
	char file[PATH_MAX], meta[PATH_MAX], *before, *after;

	open_ok(f, "demo", "ci", &s);
	(void)snprintf(file, sizeof(file), "%s/kept.txt", s.workspace);
	write_file(file, "hello\n", 0644);
	path_of(meta, sizeof(meta), f, "demo", ".json");
	before = slurp(meta);
	/* Reopened with another profile: the first stays, so does the workspace. */
	open_ok(f, "demo", "strict", &t);
	assert_string_equal(t.workspace, s.workspace);
	assert_string_equal(t.profile, "ci");
	assert_string_equal(t.created, s.created);
	after = slurp(meta);
	assert_string_equal(before, after);
	free(after);
	after = slurp(file);
	assert_string_equal(after, "hello\n");
	free(after);
	free(before);
	cr_session_done(&t);
	/* Without @create, an existing session opens the same way. */
	assert_int_equal(cr_session_open(f->state, "demo", NULL, false, &t, NULL, 0), 0);
	assert_string_equal(t.workspace, s.workspace);
	assert_string_equal(t.profile, "ci");
	cr_session_done(&t);
	cr_session_done(&s);
}

static void test_open_missing(void **state)
{
	struct fixture *f = *state;
	struct cr_session s = {};
	char msg[256];

	/* No store at all, and nothing created by looking. */
	assert_int_equal(cr_session_open(f->state, "nope", NULL, false, &s, msg, sizeof(msg)),
			 -ENOENT);
	assert_string_equal(msg, "no session 'nope'");
	assert_int_equal(access(f->state, F_OK), -1);
	open_ok(f, "other", NULL, &s);
	assert_null(s.profile);
	cr_session_done(&s);
	assert_int_equal(cr_session_open(f->state, "nope", NULL, false, &s, msg, sizeof(msg)),
			 -ENOENT);
	assert_string_equal(msg, "no session 'nope'");
	assert_null(s.id);
}

/* N processes open the same new session at once; all succeed on the same workspace and exactly
 * one metadata file results. Repeated over several ids to give races a chance. */
static void test_concurrent_create(void **state)
{
	struct fixture *f = *state;
	enum {
		N = 8,
		ROUNDS = 10
	};

	for (int round = 0; round < ROUNDS; round++) {
		char id[32], first[PATH_MAX] = "", path[PATH_MAX];
		int go[2], out[2], n_json = 0, n_other = 0;
		FILE *fp;
		char line[PATH_MAX];
		DIR *d;
		struct dirent *de;

		(void)snprintf(id, sizeof(id), "race-%d", round);
		assert_int_equal(pipe(go), 0);
		assert_int_equal(pipe(out), 0);
		for (int i = 0; i < N; i++) {
			pid_t pid = fork();

			assert_true(pid >= 0);
			if (pid == 0) {
				struct cr_session s = {};
				char c, msg[512];

				close(go[1]);
				(void)read(go[0], &c, 1); /* EOF: everyone starts */
				if (cr_session_open(f->state, id, "p", true, &s, msg, sizeof(msg)) <
				    0) {
					fprintf(stderr, "child %d: %s\n", i, msg);
					_exit(1);
				}
				dprintf(out[1], "%s\n", s.workspace);
				_exit(0);
			}
		}
		close(go[0]);
		close(out[1]);
		close(go[1]);
		for (int i = 0; i < N; i++) {
			int status;

			assert_true(wait(&status) > 0);
			assert_true(WIFEXITED(status));
			assert_int_equal(WEXITSTATUS(status), 0);
		}
		fp = fdopen(out[0], "r");
		assert_non_null(fp);
		for (int i = 0; i < N; i++) {
			assert_non_null(fgets(line, sizeof(line), fp));
			if (!first[0])
				strcpy(first, line);
			assert_string_equal(line, first);
		}
		assert_null(fgets(line, sizeof(line), fp));
		fclose(fp);
		path_of(path, sizeof(path), f, id, "");
		assert_mode(path, S_IFDIR, 0700);
		/* One metadata file per session so far, and no temporary file left. */
		d = opendir(f->sessions);
		assert_non_null(d);
		while ((de = readdir(d)))
			if (strstr(de->d_name, ".json"))
				n_json++;
			else if (de->d_name[0] == '.' && strcmp(de->d_name, ".") != 0 &&
				 strcmp(de->d_name, "..") != 0)
				n_other++;
		closedir(d);
		assert_int_equal(n_json, round + 1);
		assert_int_equal(n_other, 0);
	}
}

/* ---- refusals ---- */

static void test_refuse_state_symlink(void **state)
{
	struct fixture *f = *state;
	struct cr_session s = {};
	char real[128], parent[128], msg[512];

	(void)snprintf(real, sizeof(real), "%s/real", f->root);
	(void)snprintf(parent, sizeof(parent), "%s/state", f->root);
	assert_int_equal(mkdir(real, 0700), 0);
	assert_int_equal(mkdir(parent, 0700), 0);
	assert_int_equal(symlink(real, f->state), 0);
	assert_int_equal(cr_session_open(f->state, "demo", NULL, true, &s, msg, sizeof(msg)),
			 -ELOOP);
	assert_non_null(strstr(msg, "is a symbolic link"));
	assert_non_null(strstr(msg, f->state));
	assert_null(s.id);
	/* Nothing was created through the link. */
	(void)snprintf(msg, sizeof(msg), "%s/sessions", real);
	assert_int_equal(access(msg, F_OK), -1);
	assert_int_equal(cr_state_mkdir(f->state, msg, sizeof(msg)), -ELOOP);
}

static void test_refuse_sessions_symlink(void **state)
{
	struct fixture *f = *state;
	struct cr_session s = {};
	char real[128], msg[512];

	(void)snprintf(real, sizeof(real), "%s/real", f->root);
	assert_int_equal(mkdir(real, 0700), 0);
	assert_int_equal(cr_state_mkdir(f->state, msg, sizeof(msg)), 0);
	assert_int_equal(symlink(real, f->sessions), 0);
	assert_int_equal(cr_session_open(f->state, "demo", NULL, true, &s, msg, sizeof(msg)),
			 -ELOOP);
	assert_non_null(strstr(msg, f->sessions));
}

/* A parent that existed before is only required to be a directory: it may be a symlink. */
static void test_parent_symlink_ok(void **state)
{
	struct fixture *f = *state;
	struct cr_session s = {};
	char real[128], link[128], dir[160];

	(void)snprintf(real, sizeof(real), "%s/real", f->root);
	(void)snprintf(link, sizeof(link), "%s/link", f->root);
	assert_int_equal(mkdir(real, 0755), 0);
	assert_int_equal(symlink(real, link), 0);
	(void)snprintf(dir, sizeof(dir), "%s/corral", link);
	assert_int_equal(cr_session_open(dir, "demo", NULL, true, &s, NULL, 0), 0);
	assert_true(strncmp(s.workspace, real, strlen(real)) == 0);
	cr_session_done(&s);
}

static void test_refuse_modes(void **state)
{
	struct fixture *f = *state;
	struct cr_session s = {};
	char path[PATH_MAX], msg[512];

	open_ok(f, "demo", NULL, &s);
	cr_session_done(&s);

	assert_int_equal(chmod(f->state, 0770), 0);
	assert_int_equal(cr_session_open(f->state, "demo", NULL, true, &s, msg, sizeof(msg)),
			 -EPERM);
	assert_non_null(strstr(msg, "writable by group or others (mode 0770)"));
	assert_int_equal(chmod(f->state, 0700), 0);

	assert_int_equal(chmod(f->sessions, 0702), 0);
	assert_int_equal(cr_session_open(f->state, "demo", NULL, true, &s, msg, sizeof(msg)),
			 -EPERM);
	assert_int_equal(chmod(f->sessions, 0700), 0);

	path_of(path, sizeof(path), f, "demo", ".json");
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(cr_session_open(f->state, "demo", NULL, true, &s, msg, sizeof(msg)),
			 -EPERM);
	assert_non_null(strstr(msg, path));
	assert_int_equal(chmod(path, 0600), 0);

	path_of(path, sizeof(path), f, "demo", "");
	assert_int_equal(chmod(path, 0777), 0);
	assert_int_equal(cr_session_open(f->state, "demo", NULL, true, &s, msg, sizeof(msg)),
			 -EPERM);
	assert_int_equal(chmod(path, 0700), 0);

	open_ok(f, "demo", NULL, &s);
	cr_session_done(&s);
}

static void test_refuse_workspace_symlink(void **state)
{
	struct fixture *f = *state;
	struct cr_session s = {};
	char ws[PATH_MAX], msg[512];

	open_ok(f, "demo", NULL, &s);
	cr_session_done(&s);
	path_of(ws, sizeof(ws), f, "demo", "");
	assert_int_equal(rmdir(ws), 0);
	assert_int_equal(symlink("/etc", ws), 0);
	assert_int_equal(cr_session_open(f->state, "demo", NULL, true, &s, msg, sizeof(msg)),
			 -ELOOP);
	assert_int_equal(cr_session_open(f->state, "demo", NULL, false, &s, msg, sizeof(msg)),
			 -ELOOP);
}

static void test_refuse_metadata_tampered(void **state)
{
	struct fixture *f = *state;
	struct cr_session s = {};
	char path[PATH_MAX], msg[512];

	open_ok(f, "demo", NULL, &s);
	cr_session_done(&s);
	path_of(path, sizeof(path), f, "demo", ".json");
	/* Another session's metadata under this session's name. */
	write_file(
		path,
		"{\"id\":\"a\",\"hash\":\"2a97516c354b68848cdbd8f54a226a0a\",\"created\":\"x\"}\n",
		0600);
	assert_int_equal(cr_session_open(f->state, "demo", NULL, true, &s, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "does not match"));
	write_file(path, "{\"id\":\"demo\",", 0600);
	assert_int_equal(cr_session_open(f->state, "demo", NULL, true, &s, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "not JSON"));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	assert_int_equal(cr_session_open(f->state, "demo", NULL, true, &s, msg, sizeof(msg)),
			 -ELOOP);
	assert_null(s.id);
}

static void test_refuse_other_owner(void **state)
{
	struct fixture *f = *state;
	struct cr_session s = {};
	char path[PATH_MAX], msg[512];

	if (geteuid() != 0) {
		print_message("skipped: chown to another user needs root\n");
		skip();
	}
	open_ok(f, "demo", NULL, &s);
	path_of(path, sizeof(path), f, "demo", ".json");
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_int_equal(cr_session_open(f->state, "demo", NULL, true, &s, msg, sizeof(msg)),
			 -EPERM);
	assert_non_null(strstr(msg, "belongs to uid 65534"));
	assert_int_equal(chown(path, 0, 0), 0);

	path_of(path, sizeof(path), f, "demo", ".grants.jsonl");
	write_file(path, "", 0600);
	assert_int_equal(chown(path, 65534, 65534), 0);
	struct cr_capability c = {};
	assert_int_equal(cr_session_grants(&s, &c, msg, sizeof(msg)), -EPERM);
	assert_int_equal(cr_session_grant_add(&s, &c, NULL, msg, sizeof(msg)), -EPERM);
	assert_int_equal(chown(f->sessions, 65534, 65534), 0);
	assert_int_equal(cr_session_open(f->state, "demo", NULL, true, &s, msg, sizeof(msg)),
			 -EPERM);
	assert_non_null(strstr(msg, f->sessions));
	cr_session_done(&s);
}

/* ---- grants ---- */

static void cap(struct cr_capability *c, const char *rd, const char *wr, const char *host,
		bool spawn, uint64_t pids)
{
	*c = (struct cr_capability){};
	if (rd)
		assert_int_equal(cr_capability_add_path(c, false, rd), 0);
	if (wr)
		assert_int_equal(cr_capability_add_path(c, true, wr), 0);
	if (host)
		assert_int_equal(cr_capability_add_host(c, host), 0);
	c->spawn = spawn;
	c->limit[CR_LIMIT_PIDS] = pids;
}

static char *cap_text(const struct cr_capability *c)
{
	json_object *o = cr_capability_to_json(c, true);
	char *s;

	assert_non_null(o);
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

static void test_grants(void **state)
{
	struct fixture *f = *state;
	struct cr_capability g1, g2, got = {}, want = {};
	struct cr_session s = {};
	char path[PATH_MAX], msg[512], *a, *b, *text, *line, *save = NULL;
	int n = 0;

	open_ok(f, "demo", "workspace", &s);
	/* None yet: the empty capability. */
	assert_int_equal(cr_session_grants(&s, &got, msg, sizeof(msg)), 0);
	assert_int_equal(got.n_fs_read + got.n_fs_write + got.n_hosts, 0);
	assert_int_equal(got.net, CR_NETCAP_NONE);
	assert_false(got.spawn);
	cr_capability_done(&got);

	cap(&g1, "/usr/share", "/tmp/out", NULL, false, 100);
	cap(&g2, "/opt", NULL, "example.com", true, 50);
	assert_int_equal(cr_session_grant_add(&s, &g1, "workspace", msg, sizeof(msg)), 0);
	assert_int_equal(cr_session_grant_add(&s, &g2, NULL, msg, sizeof(msg)), 0);
	assert_int_equal(cr_session_grants(&s, &got, msg, sizeof(msg)), 0);
	assert_int_equal(cr_capability_join(&g1, &g2, &want), 0);
	a = cap_text(&got);
	b = cap_text(&want);
	assert_string_equal(a, b);
	assert_string_equal(a, "{\"fs_read\":[\"/usr/share\",\"/opt\"],\"fs_write\":[\"/tmp/out\"],"
			       "\"network\":\"allow_hosts\",\"allow_hosts\":[\"example.com\"],"
			       "\"spawn\":true,\"limits\":{\"pids\":100}}");
	free(a);
	free(b);

	path_of(path, sizeof(path), f, "demo", ".grants.jsonl");
	assert_mode(path, S_IFREG, 0600);
	text = slurp(path);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		json_object *o = json_tokener_parse(line);

		assert_non_null(o);
		assert_string_equal(json_object_get_string(json_object_object_get(o, "scope")),
				    "session");
		assert_int_equal(strlen(json_object_get_string(json_object_object_get(o, "time"))),
				 20);
		if (n == 0)
			assert_string_equal(
				json_object_get_string(json_object_object_get(o, "profile")),
				"workspace");
		else
			assert_null(json_object_object_get(o, "profile"));
		json_object_put(o);
	}
	assert_int_equal(n, 2);
	free(text);
	cr_capability_done(&g1);
	cr_capability_done(&g2);
	cr_capability_done(&got);
	cr_capability_done(&want);
	cr_session_done(&s);
}

static void test_grants_corrupt(void **state)
{
	struct fixture *f = *state;
	static const struct {
		const char *text, *where, *what;
	} cases[] = {
		{"{\"scope\":\"session\",\"grant\":{}}\nnot json\n", ":2: ", "not JSON"},
		{"{\"scope\":\"session\",\"grant\":{}}\n{\"scope\":\"session\",\"grant\":{}}",
		 ":2: ", "no newline"},
		{"{\"scope\":\"session\",\"grant\":{\"fs_read\":[\"rel\"]}}\n",
		 ":1: ", "\"grant\": "},
		{"{\"scope\":\"once\",\"grant\":{}}\n", ":1: ", "scope"},
		{"{\"scope\":\"session\"}\n", ":1: ", "no \"grant\""},
		{"\n", ":1: ", "empty line"},
		{"{\"scope\":\"session\",\"grant\":{}} x\n", ":1: ", "after the value"},
		{"[1]\n", ":1: ", "not a JSON object"},
	};
	struct cr_capability got = {};
	struct cr_session s = {};
	char path[PATH_MAX], msg[512], expect[PATH_MAX + 8];

	open_ok(f, "demo", NULL, &s);
	path_of(path, sizeof(path), f, "demo", ".grants.jsonl");
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		write_file(path, cases[i].text, 0600);
		msg[0] = '\0';
		assert_int_equal(cr_session_grants(&s, &got, msg, sizeof(msg)), -EINVAL);
		(void)snprintf(expect, sizeof(expect), "%s%s", s.workspace, ".grants.jsonl");
		assert_non_null(strstr(msg, expect));
		(void)snprintf(expect, sizeof(expect), "%s.grants.jsonl%s", s.workspace,
			       cases[i].where);
		if (!strstr(msg, expect) || !strstr(msg, cases[i].what))
			fail_msg("case %zu: %s", i, msg);
		assert_null(got.fs_read);
	}
	/* A grant appended after a line cut short (a crash) starts on a line of its own. */
	write_file(path, "{\"scope\":\"session\",\"gr", 0600);
	assert_int_equal(cr_session_grant_add(&s, &got, NULL, msg, sizeof(msg)), 0);
	assert_int_equal(cr_session_grants(&s, &got, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, ".grants.jsonl:1: not JSON"));
	cr_session_done(&s);
}

static void test_grants_refusals(void **state)
{
	struct fixture *f = *state;
	struct cr_capability c = {};
	struct cr_session s = {};
	char path[PATH_MAX], target[PATH_MAX], msg[512];
	struct stat st;

	open_ok(f, "demo", NULL, &s);
	path_of(path, sizeof(path), f, "demo", ".grants.jsonl");
	(void)snprintf(target, sizeof(target), "%s/target", f->root);

	/* A symlink: neither read nor followed for writing (the target is not created). */
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(cr_session_grants(&s, &c, msg, sizeof(msg)), -ELOOP);
	assert_non_null(strstr(msg, "symbolic link"));
	assert_int_equal(cr_session_grant_add(&s, &c, NULL, msg, sizeof(msg)), -ELOOP);
	assert_int_equal(lstat(target, &st), -1);
	assert_int_equal(unlink(path), 0);

	/* Writable by others. */
	write_file(path, "", 0666);
	assert_int_equal(cr_session_grants(&s, &c, msg, sizeof(msg)), -EPERM);
	assert_non_null(strstr(msg, "mode 0666"));
	assert_int_equal(cr_session_grant_add(&s, &c, NULL, msg, sizeof(msg)), -EPERM);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(unlink(path), 0);

	/* A FIFO: refused, and opening it does not hang. */
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(cr_session_grants(&s, &c, msg, sizeof(msg)), -EPERM);
	assert_int_equal(cr_session_grant_add(&s, &c, NULL, msg, sizeof(msg)), -EPERM);
	assert_non_null(strstr(msg, "not a regular file"));
	assert_int_equal(unlink(path), 0);
	cr_session_done(&s);
}

/* ---- corral session ---- */

/* Run cr_session_main(@argv) in a child with XDG_STATE_HOME set; its stdout goes to @out. */
static int run_cmd(const struct fixture *f, char **argv, char **out)
{
	char state_home[128], file[128];
	int status, argc = 0;
	pid_t pid;

	while (argv[argc])
		argc++;
	(void)snprintf(state_home, sizeof(state_home), "%s/state", f->root);
	(void)snprintf(file, sizeof(file), "%s/stdout", f->root);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("XDG_STATE_HOME", state_home, 1);
		if (!freopen(file, "we", stdout))
			_exit(99);
		status = cr_session_main(argc, argv);
		fflush(stdout);
		_exit(status);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	*out = slurp(file);
	return WEXITSTATUS(status);
}

static void test_cmd_list_show(void **state)
{
	struct fixture *f = *state;
	char *list[] = {"session", "list", "--json", NULL};
	char *show[] = {"session", "show", "beta", "--json", NULL};
	char *show_missing[] = {"session", "show", "gamma", NULL};
	char *help[] = {"session", "--help", NULL};
	struct cr_capability g = {};
	struct cr_session s = {};
	json_object *o, *e;
	char *out;

	/* No store yet: an empty list, and nothing created. */
	assert_int_equal(run_cmd(f, list, &out), 0);
	assert_string_equal(out, "[]\n");
	free(out);
	assert_int_equal(access(f->state, F_OK), -1);

	open_ok(f, "beta", "ci", &s);
	cap(&g, "/usr", NULL, NULL, true, 0);
	assert_int_equal(cr_session_grant_add(&s, &g, "ci", NULL, 0), 0);
	assert_int_equal(cr_session_grant_add(&s, &g, "ci", NULL, 0), 0);
	cr_capability_done(&g);
	cr_session_done(&s);
	open_ok(f, "alpha", NULL, &s);

	assert_int_equal(run_cmd(f, list, &out), 0);
	o = json_tokener_parse(out);
	assert_non_null(o);
	assert_int_equal(json_object_array_length(o), 2);
	e = json_object_array_get_idx(o, 0);
	assert_string_equal(json_object_get_string(json_object_object_get(e, "id")), "alpha");
	assert_string_equal(json_object_get_string(json_object_object_get(e, "workspace")),
			    s.workspace);
	assert_int_equal(json_object_get_int(json_object_object_get(e, "grants")), 0);
	assert_null(json_object_object_get(e, "profile"));
	e = json_object_array_get_idx(o, 1);
	assert_string_equal(json_object_get_string(json_object_object_get(e, "id")), "beta");
	assert_string_equal(json_object_get_string(json_object_object_get(e, "profile")), "ci");
	assert_int_equal(json_object_get_int(json_object_object_get(e, "grants")), 2);
	json_object_put(o);
	free(out);

	assert_int_equal(run_cmd(f, show, &out), 0);
	o = json_tokener_parse(out);
	assert_non_null(o);
	/* printf %s beta | sha256sum | cut -c1-32 */
	assert_string_equal(json_object_get_string(json_object_object_get(o, "hash")),
			    "f44e64e75f3948e9f73f8dfa94721c4c");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "id")), "beta");
	assert_int_equal(json_object_get_int(json_object_object_get(o, "grants")), 2);
	assert_string_equal(json_object_to_json_string_ext(json_object_object_get(o, "granted"),
							   JSON_C_TO_STRING_PLAIN),
			    "{\"fs_read\":[\"\\/usr\"],\"spawn\":true}");
	json_object_put(o);
	free(out);

	assert_int_equal(run_cmd(f, show_missing, &out), CR_EXIT_SETUP);
	free(out);
	assert_int_equal(run_cmd(f, help, &out), 0);
	assert_non_null(strstr(out, "Usage: corral session list"));
	free(out);
	cr_session_done(&s);
}

static void test_cmd_rm(void **state)
{
	struct fixture *f = *state;
	char *rm[] = {"session", "rm", "demo", NULL};
	char *rm_missing[] = {"session", "rm", "nope", NULL};
	char *rm_hash[] = {"session", "rm", "--hash", NULL, NULL};
	char *rm_badhash[] = {"session", "rm", "--hash", "xyz", NULL};
	char path[PATH_MAX], outside[PATH_MAX], *out;
	struct cr_capability g = {};
	struct cr_session s = {};
	struct stat st;

	open_ok(f, "demo", NULL, &s);
	cap(&g, "/usr", NULL, NULL, false, 0);
	assert_int_equal(cr_session_grant_add(&s, &g, NULL, NULL, 0), 0);
	/* A tree the sandbox might leave: nested directories, a read-only directory, symlinks
	 * pointing out of the workspace (whose targets must survive). */
	(void)snprintf(outside, sizeof(outside), "%s/outside", f->root);
	assert_int_equal(mkdir(outside, 0700), 0);
	(void)snprintf(path, sizeof(path), "%s/outside/precious", f->root);
	write_file(path, "keep\n", 0600);
	(void)snprintf(path, sizeof(path), "%s/a", s.workspace);
	assert_int_equal(mkdir(path, 0700), 0);
	(void)snprintf(path, sizeof(path), "%s/a/b", s.workspace);
	assert_int_equal(mkdir(path, 0700), 0);
	(void)snprintf(path, sizeof(path), "%s/a/b/file", s.workspace);
	write_file(path, "x", 0400);
	(void)snprintf(path, sizeof(path), "%s/a/link", s.workspace);
	assert_int_equal(symlink(outside, path), 0);
	(void)snprintf(path, sizeof(path), "%s/link2", s.workspace);
	assert_int_equal(symlink("../../../outside", path), 0);
	(void)snprintf(path, sizeof(path), "%s/a/b", s.workspace);
	assert_int_equal(chmod(path, 0500), 0);

	assert_int_equal(run_cmd(f, rm, &out), 0);
	free(out);
	assert_int_equal(lstat(s.workspace, &st), -1);
	path_of(path, sizeof(path), f, "demo", ".json");
	assert_int_equal(lstat(path, &st), -1);
	path_of(path, sizeof(path), f, "demo", ".grants.jsonl");
	assert_int_equal(lstat(path, &st), -1);
	(void)snprintf(path, sizeof(path), "%s/outside/precious", f->root);
	assert_int_equal(stat(path, &st), 0);
	cr_session_done(&s);
	assert_int_equal(cr_session_open(f->state, "demo", NULL, false, &s, NULL, 0), -ENOENT);

	/* Gone: rm again is an error, as is an id that never existed. */
	assert_int_equal(run_cmd(f, rm, &out), CR_EXIT_SETUP);
	free(out);
	assert_int_equal(run_cmd(f, rm_missing, &out), CR_EXIT_SETUP);
	free(out);
	assert_int_equal(run_cmd(f, rm_badhash, &out), CR_EXIT_SETUP);
	free(out);

	/* By hash. */
	open_ok(f, "by-hash", NULL, &s);
	rm_hash[3] = s.hash;
	assert_int_equal(run_cmd(f, rm_hash, &out), 0);
	free(out);
	assert_int_equal(lstat(s.workspace, &st), -1);
	cr_capability_done(&g);
	cr_session_done(&s);
}

/* In a child with a mount namespace of its own (root, or root of a new user namespace): mount a
 * tmpfs inside the workspace, then `session rm`. The other filesystem is neither entered nor
 * emptied, the failure is reported, and the session is kept. 77: no namespace available. */
static int rm_mount_child(const struct fixture *f, const char *ws)
{
	char *rm[] = {"session", "rm", "demo", NULL};
	char mnt[PATH_MAX], file[PATH_MAX + 8], meta[PATH_MAX], state_home[128];
	int status;

	if (unshare(CLONE_NEWNS) < 0) {
		char map[32];
		int fd;

		(void)snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)getuid());
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			return 77;
		fd = open("/proc/self/uid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) < 0)
			return 77;
		close(fd);
	}
	(void)snprintf(mnt, sizeof(mnt), "%s/mnt", ws);
	(void)snprintf(file, sizeof(file), "%s/file", mnt);
	path_of(meta, sizeof(meta), f, "demo", ".json");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", mnt, "tmpfs", 0, "size=64k,mode=0700") < 0)
		return 77;
	if (close(open(file, O_WRONLY | O_CREAT, 0600)) < 0)
		return 2;
	(void)snprintf(state_home, sizeof(state_home), "%s/state", f->root);
	setenv("XDG_STATE_HOME", state_home, 1);
	status = cr_session_main(3, rm);
	if (status != CR_EXIT_SETUP)
		return 3;
	if (access(file, F_OK) < 0 || access(meta, F_OK) < 0)
		return 4;
	return 0;
}

static void test_cmd_rm_incomplete(void **state)
{
	struct fixture *f = *state;
	struct cr_session s = {};
	char path[PATH_MAX];
	int status;
	pid_t pid;

	open_ok(f, "demo", NULL, &s);
	(void)snprintf(path, sizeof(path), "%s/mnt", s.workspace);
	assert_int_equal(mkdir(path, 0700), 0);
	(void)snprintf(path, sizeof(path), "%s/other", s.workspace);
	write_file(path, "x", 0600);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(rm_mount_child(f, s.workspace));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		print_message("skipped: no mount namespace available\n");
		cr_session_done(&s);
		skip();
	}
	assert_int_equal(WEXITSTATUS(status), 0);
	/* What could be removed was: the rest of the workspace. */
	assert_int_equal(access(path, F_OK), -1);
	cr_session_done(&s);
	assert_int_equal(cr_session_open(f->state, "demo", NULL, false, &s, NULL, 0), 0);
	cr_session_done(&s);
}

int main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_known),
		T(test_id_refused),
		cmocka_unit_test(test_state_dir),
		T(test_lazy_create),
		T(test_reuse),
		T(test_open_missing),
		T(test_concurrent_create),
		T(test_refuse_state_symlink),
		T(test_refuse_sessions_symlink),
		T(test_parent_symlink_ok),
		T(test_refuse_modes),
		T(test_refuse_workspace_symlink),
		T(test_refuse_metadata_tampered),
		T(test_refuse_other_owner),
		T(test_grants),
		T(test_grants_corrupt),
		T(test_grants_refusals),
		T(test_cmd_list_show),
		T(test_cmd_rm),
		T(test_cmd_rm_incomplete),
	};

	return cmocka_run_group_tests_name("session", tests, NULL, NULL);
}
