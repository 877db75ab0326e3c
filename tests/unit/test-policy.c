/* SPDX-License-Identifier: MIT */
/* Unit tests for launcher/policy/policy.c and launcher/base/path-util.c, against real temporary directories. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/policy/policy-build.h"
#include "launcher/policy/request.h"
#include "launcher/policy/env.h"
#include "launcher/base/path-util.h"
#include "launcher/policy/policy.h"
#include "launcher/policy/capability.h"
#include "launcher/policy/profile.h"

/* A scratch tree, canonical, made fresh for every test:
 *   base/ws/  base/ws/sub/  base/ws2/  base/other/  base/file  base/link -> ws */
struct fixture {
	char base[PATH_MAX];
	char ws[PATH_MAX];
	char sub[PATH_MAX];
	char ws2[PATH_MAX];
	char other[PATH_MAX];
	char file[PATH_MAX];
	char link[PATH_MAX];
	char *saved_cwd;
};

static char *const host_env[] = {
	"PATH=/usr/bin:/bin", "HOME=/home/tester", "TERM=dumb", "SECRET=hunter2", NULL,
};

static void join(char *dst, const char *a, const char *b)
{
	int n = snprintf(dst, PATH_MAX, "%s/%s", a, b);

	assert_true(n > 0 && n < PATH_MAX);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/corral-unit-policy.XXXXXX";
	int fd;

	if (!f || !mkdtemp(tmpl) || !realpath(tmpl, f->base))
		return -1;
	join(f->ws, f->base, "ws");
	join(f->sub, f->ws, "sub");
	join(f->ws2, f->base, "ws2");
	join(f->other, f->base, "other");
	join(f->file, f->base, "file");
	join(f->link, f->base, "link");
	if (mkdir(f->ws, 0755) < 0 || mkdir(f->sub, 0755) < 0 || mkdir(f->ws2, 0755) < 0 ||
	    mkdir(f->other, 0755) < 0 || symlink("ws", f->link) < 0)
		return -1;
	fd = open(f->file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	(void)close(fd);
	f->saved_cwd = getcwd(NULL, 0);
	if (!f->saved_cwd)
		return -1;
	*state = f;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int r = 0;

	if (chdir(f->saved_cwd) < 0)
		r = -1;
	if (nftw(f->base, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		r = -1;
	free(f->saved_cwd);
	free(f);
	return r;
}

static char *argv_true[] = { "true", NULL };

static struct cr_run_options default_opts(void)
{
	return (struct cr_run_options){
		.net = CR_NET_NONE,
		.uid = CR_DEFAULT_SANDBOX_ID,
		.gid = CR_DEFAULT_SANDBOX_ID,
		.kill_after_ms = CR_DEFAULT_KILL_AFTER_MS,
		.argv = argv_true,
	};
}

static void build_ok(const struct cr_run_options *o, bool is_root, struct cr_policy *p)
{
	char msg[512] = "";
	int r;

	r = cr_policy_build(o, host_env, is_root, p, msg, sizeof(msg));
	if (r != 0)
		print_error("cr_policy_build: %d: %s\n", r, msg);
	assert_int_equal(r, 0);
}

/* The build must fail with @err, name @needle (and @needle2 if set) in the message, and leave
 * the result alone. */
static void build_fails(const struct cr_run_options *o, bool is_root, int err, const char *needle,
			const char *needle2)
{
	struct cr_policy p = { .workspace = (char *)"untouched" };
	char msg[512] = "";
	int r;

	r = cr_policy_build(o, host_env, is_root, &p, msg, sizeof(msg));
	if (r != err || !strstr(msg, needle) || (needle2 && !strstr(msg, needle2)))
		print_error("cr_policy_build: got %d '%s', want %d naming '%s' '%s'\n", r, msg, err,
			    needle, needle2 ? needle2 : "");
	assert_int_equal(r, err);
	assert_non_null(strstr(msg, needle));
	if (needle2)
		assert_non_null(strstr(msg, needle2));
	assert_string_equal(p.workspace, "untouched");
	assert_null(p.env);
}

/* ---- path-util ---- */

static void test_path_check(void **state)
{
	char long_path[PATH_MAX + 2];
	int r;

	assert_int_equal(cr_path_check("/usr/lib", true), 0);
	assert_int_equal(cr_path_check("relative/dir", false), 0);
	assert_int_equal(cr_path_check("/caf\xc3\xa9", true), 0); /* UTF-8 is fine */
	assert_int_equal(cr_path_check("/a b", true), 0);
	assert_int_equal(cr_path_check("", false), -EINVAL);
	assert_int_equal(cr_path_check(NULL, false), -EINVAL);
	assert_int_equal(cr_path_check("relative/dir", true), -EINVAL);
	assert_int_equal(cr_path_check("./x", true), -EINVAL);
	assert_int_equal(cr_path_check("/a\nb", true), -EINVAL);
	assert_int_equal(cr_path_check("/a\nb", false), -EINVAL);
	assert_int_equal(cr_path_check("/a\rb", true), -EINVAL);
	assert_int_equal(cr_path_check("/a\tb", true), -EINVAL);
	assert_int_equal(cr_path_check("/a\x1b[0m", true), -EINVAL);
	assert_int_equal(cr_path_check("/a\x01", true), -EINVAL);
	assert_int_equal(cr_path_check("/a\x7f", true), -EINVAL);
	assert_int_equal(cr_path_check("\n", false), -EINVAL);

	/* PATH_MAX counts the terminating NUL: PATH_MAX - 1 characters is the longest usable. */
	memset(long_path, 'a', sizeof(long_path));
	long_path[0] = '/';
	long_path[PATH_MAX - 1] = '\0';
	assert_int_equal(cr_path_check(long_path, true), 0);
	long_path[PATH_MAX - 1] = 'a';
	long_path[PATH_MAX] = '\0';
	r = cr_path_check(long_path, true);
	assert_true(r == -EINVAL || r == -ENAMETOOLONG);
	long_path[PATH_MAX] = 'a';
	long_path[PATH_MAX + 1] = '\0';
	r = cr_path_check(long_path, true);
	assert_true(r == -EINVAL || r == -ENAMETOOLONG);
}

static void test_path_is_within(void **state)
{
	assert_true(cr_path_is_within("/srv/a", "/srv/a"));
	assert_true(cr_path_is_within("/srv/a/b", "/srv/a"));
	assert_true(cr_path_is_within("/srv/a/b/c", "/srv"));
	assert_false(cr_path_is_within("/srv/ab", "/srv/a"));
	assert_false(cr_path_is_within("/srv/a", "/srv/ab"));
	assert_false(cr_path_is_within("/srv", "/srv/a"));
	assert_false(cr_path_is_within("/srvx/a", "/srv"));
	assert_false(cr_path_is_within("/other", "/srv"));
	assert_true(cr_path_is_within("/", "/"));
	assert_true(cr_path_is_within("/anything/at/all", "/"));
	assert_true(cr_path_is_within("/srv", "/"));
	assert_false(cr_path_is_within("/", "/srv"));
}

static void test_path_depth(void **state)
{
	assert_int_equal(cr_path_depth("/"), 0);
	assert_int_equal(cr_path_depth("/usr"), 1);
	assert_int_equal(cr_path_depth("/usr/lib"), 2);
	assert_int_equal(cr_path_depth("/usr/lib/"), 2);
	assert_int_equal(cr_path_depth("/a/b/c/d"), 4);
	assert_int_equal(cr_path_depth("/home/user/project/src/x"), 5);
	assert_true(cr_path_depth("/srv") < cr_path_depth("/srv/ab"));
}

static void test_path_canonicalize(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX];
	char *res = NULL;

	join(path, f->link, "sub/../sub/.");
	assert_int_equal(cr_path_canonicalize(path, &res), 0);
	assert_string_equal(res, f->sub);
	free(res);

	res = NULL;
	join(path, f->base, "missing");
	assert_int_equal(cr_path_canonicalize(path, &res), -ENOENT);
	assert_null(res);
}

/* ---- names ---- */

static void test_net_mode_strings(void **state)
{
	assert_int_equal(cr_net_mode_from_string("none"), CR_NET_NONE);
	assert_int_equal(cr_net_mode_from_string("host"), CR_NET_HOST);
	assert_string_equal(cr_net_mode_to_string(CR_NET_NONE), "none");
	assert_string_equal(cr_net_mode_to_string(CR_NET_HOST), "host");
	for (int m = 0; m < _CR_NET_MAX; m++)
		assert_int_equal(cr_net_mode_from_string(cr_net_mode_to_string(m)), m);
	assert_int_equal(cr_net_mode_from_string("bridge"), _CR_NET_INVALID);
	assert_int_equal(cr_net_mode_from_string(""), -EINVAL);
	assert_int_equal(cr_net_mode_from_string("None"), -EINVAL);
	assert_int_equal(cr_net_mode_from_string(NULL), -EINVAL);
	assert_null(cr_net_mode_to_string(_CR_NET_MAX));
	assert_null(cr_net_mode_to_string(_CR_NET_INVALID));
}

static void test_path_access_strings(void **state)
{
	assert_string_equal(cr_path_access_to_string(CR_PATH_RO), "ro");
	assert_string_equal(cr_path_access_to_string(CR_PATH_RW), "rw");
	assert_string_equal(cr_path_access_to_string(CR_PATH_HIDE), "hide");
	assert_null(cr_path_access_to_string(_CR_PATH_ACCESS_MAX));
	assert_null(cr_path_access_to_string(_CR_PATH_ACCESS_INVALID));
}

/* ---- cr_policy_build ---- */

static void test_build_basic(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	struct cr_policy p;

	o.workspace = f->ws;
	o.timeout_ms = 1500;
	o.kill_after_ms = 300;
	o.map_root = true;
	o.net = CR_NET_HOST;
	build_ok(&o, false, &p);
	assert_string_equal(p.workspace, f->ws);
	assert_string_equal(p.home, "/home/tester");
	assert_string_equal(p.hostname, "corral");
	assert_int_equal(p.n_paths, 0);
	assert_int_equal(p.n_keep_fds, 0);
	assert_int_equal(p.net, CR_NET_HOST);
	assert_true(p.map_root);
	assert_int_equal(p.uid, 65534);
	assert_int_equal(p.gid, 65534);
	assert_int_equal(p.timeout_ms, 1500);
	assert_int_equal(p.kill_after_ms, 300);
	assert_ptr_equal(p.argv, argv_true);
	assert_non_null(p.env);
	assert_string_equal(cr_env_get(p.env, "HOME"), "/home/tester");
	assert_string_equal(cr_env_get(p.env, "PATH"), CR_DEFAULT_PATH);
	assert_null(cr_env_get(p.env, "SECRET"));
	cr_policy_done(&p);
	assert_null(p.workspace);
	assert_null(p.env);
	cr_policy_done(&p); /* an empty policy is fine */
}

static void test_build_env_options(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	const char *keep[] = { "SECRET" };
	const char *set[] = { "FOO=bar" };
	struct cr_policy p;

	o.workspace = f->ws;
	o.keep_env = keep;
	o.n_keep_env = 1;
	o.setenv = set;
	o.n_setenv = 1;
	build_ok(&o, false, &p);
	assert_string_equal(cr_env_get(p.env, "SECRET"), "hunter2");
	assert_string_equal(cr_env_get(p.env, "FOO"), "bar");
	cr_policy_done(&p);
}

static void test_workspace_canonicalized(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	char path[PATH_MAX];
	struct cr_policy p;

	/* Through the symlink, with ".." and "." on the way. */
	join(path, f->link, "sub/.././sub/..");
	o.workspace = path;
	build_ok(&o, false, &p);
	assert_string_equal(p.workspace, f->ws);
	cr_policy_done(&p);

	/* Relative to the current directory. */
	assert_int_equal(chdir(f->base), 0);
	o.workspace = "link/sub/";
	build_ok(&o, false, &p);
	assert_string_equal(p.workspace, f->sub);
	cr_policy_done(&p);
}

static void test_workspace_default_is_cwd(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	struct cr_policy p;

	assert_int_equal(chdir(f->sub), 0);
	build_ok(&o, false, &p);
	assert_string_equal(p.workspace, f->sub);
	assert_string_equal(p.cwd, f->sub);
	cr_policy_done(&p);
}

static void test_workspace_missing(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	char path[PATH_MAX];

	join(path, f->base, "nope");
	o.workspace = path;
	build_fails(&o, false, -ENOENT, "--workspace", path);
}

static void test_workspace_is_file(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();

	o.workspace = f->file;
	build_fails(&o, false, -ENOTDIR, "--workspace", f->file);
}

static void test_workspace_root_refused(void **state)
{
	struct cr_run_options o = default_opts();

	o.workspace = "/";
	build_fails(&o, false, -EINVAL, "--workspace", NULL);
	o.workspace = "/usr/..";
	build_fails(&o, false, -EINVAL, "--workspace", NULL);
	o.workspace = "//";
	build_fails(&o, false, -EINVAL, "--workspace", NULL);
}

static void test_workspace_bad_chars(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	char path[PATH_MAX];

	/* The directory exists, so only the character check can refuse it. */
	join(path, f->base, "new\nline");
	assert_int_equal(mkdir(path, 0755), 0);
	o.workspace = path;
	build_fails(&o, false, -EINVAL, "--workspace", NULL);
	o.workspace = "";
	build_fails(&o, false, -EINVAL, "--workspace", NULL);
}

static void test_cwd_option(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	struct cr_policy p;

	o.workspace = f->ws;
	o.cwd = "/does/not/need/to/exist";
	build_ok(&o, false, &p);
	assert_string_equal(p.cwd, "/does/not/need/to/exist");
	cr_policy_done(&p);

	o.cwd = "relative";
	build_fails(&o, false, -EINVAL, "--cwd", "relative");
	o.cwd = "./sub";
	build_fails(&o, false, -EINVAL, "--cwd", NULL);
	o.cwd = "";
	build_fails(&o, false, -EINVAL, "--cwd", NULL);
	o.cwd = "/bad\npath";
	build_fails(&o, false, -EINVAL, "--cwd", NULL);
}

static void test_default_cwd_inside_workspace(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	struct cr_policy p;

	assert_int_equal(chdir(f->sub), 0);
	o.workspace = f->ws;
	build_ok(&o, false, &p);
	assert_string_equal(p.workspace, f->ws);
	assert_string_equal(p.cwd, f->sub);
	cr_policy_done(&p);

	assert_int_equal(chdir(f->ws), 0);
	build_ok(&o, false, &p);
	assert_string_equal(p.cwd, f->ws);
	cr_policy_done(&p);
}

static void test_default_cwd_outside_workspace(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	struct cr_policy p;

	o.workspace = f->ws;
	assert_int_equal(chdir(f->other), 0);
	build_ok(&o, false, &p);
	assert_string_equal(p.cwd, f->ws);
	cr_policy_done(&p);

	/* base/ws2 shares a string prefix with base/ws but is not inside it. */
	assert_int_equal(chdir(f->ws2), 0);
	build_ok(&o, false, &p);
	assert_string_equal(p.cwd, f->ws);
	cr_policy_done(&p);

	assert_int_equal(chdir(f->base), 0);
	build_ok(&o, false, &p);
	assert_string_equal(p.cwd, f->ws);
	cr_policy_done(&p);
}

/* A deleted current directory: without --workspace there is nothing to default to. */
static void test_cwd_gone(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	char gone[PATH_MAX], msg[512] = "";
	struct cr_policy p;

	join(gone, f->base, "gone");
	assert_int_equal(mkdir(gone, 0755), 0);
	assert_int_equal(chdir(gone), 0);
	assert_int_equal(rmdir(gone), 0);
	assert_true(cr_policy_build(&o, host_env, false, &p, msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "--workspace"));

	/* With --workspace it works, and the command starts in the workspace. */
	o.workspace = f->ws;
	build_ok(&o, false, &p);
	assert_string_equal(p.cwd, f->ws);
	cr_policy_done(&p);
}

static void test_paths_resolved_in_order(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	char via_link[PATH_MAX];
	struct cr_cli_path paths[3];
	struct cr_policy p;

	join(via_link, f->link, "sub/..");
	paths[0] = (struct cr_cli_path){ f->other, CR_PATH_RW };
	paths[1] = (struct cr_cli_path){ via_link, CR_PATH_RO };
	paths[2] = (struct cr_cli_path){ f->file, CR_PATH_HIDE };
	o.workspace = f->sub;
	o.paths = paths;
	o.n_paths = 3;
	build_ok(&o, false, &p);
	assert_int_equal(p.n_paths, 3);
	assert_string_equal(p.paths[0].path, f->other);
	assert_int_equal(p.paths[0].access, CR_PATH_RW);
	assert_string_equal(p.paths[1].path, f->ws);
	assert_int_equal(p.paths[1].access, CR_PATH_RO);
	assert_string_equal(p.paths[2].path, f->file);
	assert_int_equal(p.paths[2].access, CR_PATH_HIDE);
	cr_policy_done(&p);
}

static void test_path_missing(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	struct cr_cli_path paths[1];
	char path[PATH_MAX];

	join(path, f->base, "absent");
	paths[0] = (struct cr_cli_path){ path, CR_PATH_RO };
	o.workspace = f->ws;
	o.paths = paths;
	o.n_paths = 1;
	build_fails(&o, false, -ENOENT, "--ro", path);
	paths[0].access = CR_PATH_HIDE;
	build_fails(&o, false, -ENOENT, "--hide", path);
}

static void test_ro_rw_conflict(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	struct cr_cli_path paths[2];
	char spelled[PATH_MAX];
	struct cr_policy p;

	paths[0] = (struct cr_cli_path){ f->other, CR_PATH_RO };
	paths[1] = (struct cr_cli_path){ f->other, CR_PATH_RW };
	o.workspace = f->ws;
	o.paths = paths;
	o.n_paths = 2;
	build_fails(&o, false, -EINVAL, "--rw", "--ro");
	build_fails(&o, false, -EINVAL, "conflicts", f->other);

	/* The same directory spelled differently is still the same path. */
	join(spelled, f->other, "../other/.");
	paths[0] = (struct cr_cli_path){ spelled, CR_PATH_HIDE };
	paths[1] = (struct cr_cli_path){ f->other, CR_PATH_RO };
	build_fails(&o, false, -EINVAL, "--ro", "--hide");

	/* The same access twice is no conflict, and is kept once: mounting it twice changes nothing. */
	paths[0] = (struct cr_cli_path){ spelled, CR_PATH_RO };
	build_ok(&o, false, &p);
	assert_int_equal(p.n_paths, 1);
	assert_string_equal(p.paths[0].path, f->other);
	cr_policy_done(&p);
}

/* The workspace is writable; --ro or --hide of that same directory cannot both hold. */
static void test_workspace_conflict(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	struct cr_cli_path paths[1];
	struct cr_policy p;

	o.workspace = f->ws;
	o.paths = paths;
	o.n_paths = 1;
	paths[0] = (struct cr_cli_path){ f->link, CR_PATH_RO };
	build_fails(&o, false, -EINVAL, "--ro", "--workspace");
	paths[0].access = CR_PATH_HIDE;
	build_fails(&o, false, -EINVAL, "--hide", "--workspace");
	/* --rw of the workspace says what the workspace already is: nothing more is mounted. */
	paths[0].access = CR_PATH_RW;
	build_ok(&o, false, &p);
	assert_int_equal(p.n_paths, 0);
	assert_string_equal(p.workspace, f->ws);
	cr_policy_done(&p);

	/* Inside the workspace is fine. */
	paths[0] = (struct cr_cli_path){ f->sub, CR_PATH_RO };
	build_ok(&o, false, &p);
	assert_string_equal(p.paths[0].path, f->sub);
	assert_int_equal(p.paths[0].access, CR_PATH_RO);
	cr_policy_done(&p);
}

static void test_root_path_refused(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	struct cr_cli_path paths[1];

	o.workspace = f->ws;
	o.paths = paths;
	o.n_paths = 1;
	paths[0] = (struct cr_cli_path){ "/", CR_PATH_RO };
	build_fails(&o, false, -EINVAL, "--ro /", NULL);
	paths[0] = (struct cr_cli_path){ "/", CR_PATH_RW };
	build_fails(&o, false, -EINVAL, "--rw /", NULL);
	paths[0] = (struct cr_cli_path){ "/", CR_PATH_HIDE };
	build_fails(&o, false, -EINVAL, "--hide /", NULL);
	paths[0] = (struct cr_cli_path){ "/etc/..", CR_PATH_RO };
	build_fails(&o, false, -EINVAL, "--ro /", NULL);
}

static void test_path_with_newline_refused(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	struct cr_cli_path paths[1];
	char path[PATH_MAX];

	join(path, f->base, "evil\ndir");
	assert_int_equal(mkdir(path, 0755), 0); /* exists: only the check can refuse it */
	paths[0] = (struct cr_cli_path){ path, CR_PATH_RO };
	o.workspace = f->ws;
	o.paths = paths;
	o.n_paths = 1;
	build_fails(&o, false, -EINVAL, "--ro", NULL);
	paths[0].access = CR_PATH_RW;
	build_fails(&o, false, -EINVAL, "--rw", NULL);
	paths[0].path = "";
	build_fails(&o, false, -EINVAL, "--rw", NULL);
}

static void test_uid_gid_needs_root(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();

	o.workspace = f->ws;
	o.uid = 1000;
	o.uid_set = true;
	build_fails(&o, false, -EINVAL, "--uid", NULL);
	o = default_opts();
	o.workspace = f->ws;
	o.gid = 1000;
	o.gid_set = true;
	build_fails(&o, false, -EINVAL, "--gid", NULL);
}

static void test_uid_gid_as_root(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	struct cr_policy p;

	o.workspace = f->ws;
	build_ok(&o, true, &p);
	assert_int_equal(p.uid, 65534);
	assert_int_equal(p.gid, 65534);
	cr_policy_done(&p);

	/* --uid alone: the gid follows it. */
	o.uid = 1234;
	o.uid_set = true;
	build_ok(&o, true, &p);
	assert_int_equal(p.uid, 1234);
	assert_int_equal(p.gid, 1234);
	cr_policy_done(&p);

	o.gid = 777;
	o.gid_set = true;
	build_ok(&o, true, &p);
	assert_int_equal(p.uid, 1234);
	assert_int_equal(p.gid, 777);
	cr_policy_done(&p);

	o = default_opts();
	o.workspace = f->ws;
	o.gid = 555;
	o.gid_set = true;
	build_ok(&o, true, &p);
	assert_int_equal(p.uid, 65534);
	assert_int_equal(p.gid, 555);
	cr_policy_done(&p);
}

static void test_hostname(void **state)
{
	static const char *const good[] = {
		"corral", "a", "my-host.example", "HOST9", "0123456789",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", /* 64 */
	};
	static const char *const bad[] = {
		"", "-lead", "a_b", "a b", "host/name", "h\n", "h\xc3\xa9", "a;b",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", /* 65 */
	};
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	struct cr_policy p;

	o.workspace = f->ws;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		o.hostname = good[i];
		build_ok(&o, false, &p);
		assert_string_equal(p.hostname, good[i]);
		cr_policy_done(&p);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o.hostname = bad[i];
		build_fails(&o, false, -EINVAL, "--hostname", NULL);
	}
}

static void test_keep_fd(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	int pipefd[2], closed_fd, fds[2];
	char want[32];
	struct cr_policy p;

	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	closed_fd = dup(pipefd[0]);
	assert_true(closed_fd >= 0);
	assert_int_equal(close(closed_fd), 0);

	o.workspace = f->ws;
	fds[0] = pipefd[1];
	fds[1] = pipefd[0];
	o.keep_fds = fds;
	o.n_keep_fds = 2;
	build_ok(&o, false, &p);
	assert_int_equal(p.n_keep_fds, 2);
	assert_int_equal(p.keep_fds[0], pipefd[1]);
	assert_int_equal(p.keep_fds[1], pipefd[0]);
	cr_policy_done(&p);

	fds[1] = closed_fd;
	(void)snprintf(want, sizeof(want), "%d", closed_fd);
	build_fails(&o, false, -EBADF, "--keep-fd", want);

	(void)close(pipefd[0]);
	(void)close(pipefd[1]);
}

static void test_home_fallback(void **state)
{
	static char *const env_rel_home[] = { "HOME=relative/home", NULL };
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	char msg[256];
	struct cr_policy p;

	o.workspace = f->ws;
	assert_int_equal(cr_policy_build(&o, env_rel_home, false, &p, msg, sizeof(msg)), 0);
	assert_non_null(p.home);
	assert_int_equal(p.home[0], '/');
	assert_string_not_equal(p.home, "relative/home");
	assert_string_equal(cr_env_get(p.env, "HOME"), p.home);
	cr_policy_done(&p);
}

/* ---- cr_policy_build_from: a profile under the options ---- */

static const char *const no_system[] = { "/usr", NULL };

static void profile_from(const char *text, struct cr_profile *prof)
{
	struct cr_profile_dirs dirs = { .home = "/home/tester" };
	char msg[512] = "";
	int r = cr_profile_parse(text, strlen(text), "t", "t.ini", &dirs, prof, msg, sizeof(msg));

	if (r < 0)
		print_error("cr_profile_parse: %s\n", msg);
	assert_int_equal(r, 0);
}

static int build_from(const struct cr_run_options *o, const struct cr_profile *prof,
		      const char *session_ws, struct cr_policy *p, struct cr_capability *req,
		      struct cr_capability *base, char *msg, size_t size)
{
	struct cr_policy_input in = {
		.opts = o,
		.profile = prof,
		.session_workspace = session_ws,
		.system_paths = no_system,
		.host_env = host_env,
	};

	return cr_policy_build_from(&in, p, req, base, msg, size);
}

/* The profile's values apply where no option is given; options win; the request holds what the
 * options ask for, and only that. */
static void test_profile_under_options(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	struct cr_capability req, base;
	struct cr_cli_path paths[2];
	struct cr_profile prof;
	struct cr_policy p;
	char text[2 * PATH_MAX + 256], msg[512];

	(void)snprintf(text, sizeof(text),
		       "[filesystem]\nread = %s\nwrite = %s\n[process]\nspawn = no\n[limits]\n"
		       "pids = 100\ntimeout = 5\n[security]\nseccomp = strict\n",
		       f->other, f->ws2);
	profile_from(text, &prof);
	o.workspace = f->ws;
	assert_int_equal(build_from(&o, &prof, NULL, &p, &req, &base, msg, sizeof(msg)), 0);
	assert_int_equal(p.n_paths, 2);
	assert_true(p.no_spawn);
	assert_int_equal(p.limits.value[CR_LIMIT_PIDS], 100);
	assert_int_equal(p.timeout_ms, 5000);
	assert_int_equal(p.seccomp, CR_SECCOMP_STRICT);
	assert_false(p.workspace_ro);
	assert_true(cr_capability_is_within(&req, &base));
	assert_int_equal(req.n_fs_read + req.n_fs_write, 0);
	assert_int_equal(base.limit[CR_LIMIT_PIDS], 100);
	assert_true(base.limit[CR_LIMIT_MEMORY] == CR_LIMIT_INFINITY);
	assert_int_equal(base.timeout_ms, 5000);
	assert_int_equal(base.n_fs_write, 2); /* the workspace and ws2 */
	cr_policy_done(&p);
	cr_capability_done(&req);
	cr_capability_done(&base);

	/* --rw of the profile's read path replaces its rule and is asked for; --spawn=yes,
	 * --pids 200 and --seccomp=default are asked for too. */
	paths[0] = (struct cr_cli_path){ f->other, CR_PATH_RW };
	paths[1] = (struct cr_cli_path){ f->file, CR_PATH_RO };
	o.paths = paths;
	o.n_paths = 2;
	o.spawn_set = true;
	o.no_spawn = false;
	o.limits.value[CR_LIMIT_PIDS] = 200;
	o.limits.set[CR_LIMIT_PIDS] = true;
	o.seccomp_set = true;
	o.seccomp = CR_SECCOMP_DEFAULT;
	assert_int_equal(build_from(&o, &prof, NULL, &p, &req, &base, msg, sizeof(msg)), 0);
	assert_int_equal(p.n_paths, 3);
	for (size_t i = 0; i < p.n_paths; i++)
		if (strcmp(p.paths[i].path, f->other) == 0)
			assert_int_equal(p.paths[i].access, CR_PATH_RW);
	assert_false(p.no_spawn);
	assert_int_equal(p.limits.value[CR_LIMIT_PIDS], 200);
	assert_int_equal(p.seccomp, CR_SECCOMP_DEFAULT);
	assert_false(cr_capability_is_within(&req, &base));
	assert_int_equal(req.n_fs_write, 1);
	assert_string_equal(req.fs_write[0], f->other);
	assert_int_equal(req.n_fs_read, 1);
	assert_string_equal(req.fs_read[0], f->file);
	assert_true(req.spawn);
	assert_int_equal(req.limit[CR_LIMIT_PIDS], 200);
	assert_int_equal(req.unconfined, CR_UNCONFINED_SECCOMP);
	cr_policy_done(&p);
	cr_capability_done(&req);
	cr_capability_done(&base);

	/* --ptrace=sandbox beyond a profile without it is a request of its own. */
	o.seccomp_set = false;
	o.ptrace = o.ptrace_set = true;
	assert_int_equal(build_from(&o, &prof, NULL, &p, &req, &base, msg, sizeof(msg)), 0);
	assert_true(p.ptrace);
	assert_int_equal(req.unconfined, CR_UNCONFINED_PTRACE);
	assert_int_equal(base.unconfined & CR_UNCONFINED_PTRACE, 0);
	cr_policy_done(&p);
	cr_capability_done(&req);
	cr_capability_done(&base);
	cr_profile_done(&prof);
}

/* workspace = ro shows it read-only; --rw of it asks for writing and makes it writable. */
static void test_profile_workspace_ro(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	struct cr_capability req, base;
	struct cr_cli_path paths[1];
	struct cr_profile prof;
	struct cr_policy p;
	char msg[512];

	profile_from("[filesystem]\nworkspace = ro\n[network]\nmode = all\n", &prof);
	o.workspace = f->ws;
	assert_int_equal(build_from(&o, &prof, NULL, &p, &req, &base, msg, sizeof(msg)), 0);
	assert_true(p.workspace_ro);
	assert_int_equal(p.net, CR_NET_HOST);
	assert_true(base.timeout_ms == UINT64_MAX); /* no timeout in the profile: any --timeout */
	assert_int_equal(base.n_fs_write, 0);
	cr_policy_done(&p);
	cr_capability_done(&req);
	cr_capability_done(&base);
	paths[0] = (struct cr_cli_path){ f->link, CR_PATH_RW }; /* the workspace, spelled otherwise */
	o.paths = paths;
	o.n_paths = 1;
	o.net_set = true; /* --net=none: takes away, asks for nothing */
	assert_int_equal(build_from(&o, &prof, NULL, &p, &req, &base, msg, sizeof(msg)), 0);
	assert_false(p.workspace_ro);
	assert_int_equal(p.n_paths, 0);
	assert_int_equal(p.net, CR_NET_NONE);
	assert_int_equal(req.n_fs_write, 1);
	assert_string_equal(req.fs_write[0], f->ws);
	assert_int_equal(req.net, CR_NETCAP_NONE);
	cr_policy_done(&p);
	cr_capability_done(&req);
	cr_capability_done(&base);
	cr_profile_done(&prof);
}

/* With a session, the workspace defaults to the session's and --cwd must lie inside it. */
static void test_session_workspace_and_cwd(void **state)
{
	struct fixture *f = *state;
	struct cr_run_options o = default_opts();
	struct cr_profile prof;
	struct cr_policy p = { .workspace = (char *)"untouched" };
	char msg[512] = "", outside[PATH_MAX];

	profile_from("[profile]\n", &prof);
	assert_int_equal(chdir(f->base), 0);
	assert_int_equal(build_from(&o, &prof, f->ws, &p, NULL, NULL, msg, sizeof(msg)), 0);
	assert_string_equal(p.workspace, f->ws);
	assert_string_equal(p.cwd, f->ws);
	cr_policy_done(&p);
	o.cwd = f->sub;
	assert_int_equal(build_from(&o, &prof, f->ws, &p, NULL, NULL, msg, sizeof(msg)), 0);
	assert_string_equal(p.cwd, f->sub);
	cr_policy_done(&p);
	join(outside, f->sub, "../../ws2");
	o.cwd = outside;
	p.workspace = (char *)"untouched";
	assert_int_equal(build_from(&o, &prof, f->ws, &p, NULL, NULL, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "inside the session's workspace"));
	assert_string_equal(p.workspace, "untouched");
	o.cwd = f->ws2; /* "/ws2" is not inside "/ws" though it starts with it */
	assert_int_equal(build_from(&o, &prof, f->ws, &p, NULL, NULL, msg, sizeof(msg)), -EINVAL);
	cr_profile_done(&prof);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_check),
		cmocka_unit_test(test_path_is_within),
		cmocka_unit_test(test_path_depth),
		T(test_path_canonicalize),
		cmocka_unit_test(test_net_mode_strings),
		cmocka_unit_test(test_path_access_strings),
		T(test_build_basic),
		T(test_build_env_options),
		T(test_workspace_canonicalized),
		T(test_workspace_default_is_cwd),
		T(test_workspace_missing),
		T(test_workspace_is_file),
		T(test_workspace_root_refused),
		T(test_workspace_bad_chars),
		T(test_cwd_option),
		T(test_default_cwd_inside_workspace),
		T(test_default_cwd_outside_workspace),
		T(test_cwd_gone),
		T(test_paths_resolved_in_order),
		T(test_path_missing),
		T(test_ro_rw_conflict),
		T(test_workspace_conflict),
		T(test_root_path_refused),
		T(test_path_with_newline_refused),
		T(test_uid_gid_needs_root),
		T(test_uid_gid_as_root),
		T(test_hostname),
		T(test_keep_fd),
		T(test_home_fallback),
		T(test_profile_under_options),
		T(test_profile_workspace_ro),
		T(test_session_workspace_and_cwd),
	};

	return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
