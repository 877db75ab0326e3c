/* SPDX-License-Identifier: MIT */
/* Unit tests for launcher/policy/anchor.c: corral's own files against a policy, on real temporary
 * directories. As root the sandbox's uid is set to root's own, so that what root's sandbox could
 * search is the same as what the test sees. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/policy/anchor.h"
#include "launcher/policy/policy.h"
#include "launcher/policy/profile.h"

/* snprintf() into an array, checked (and so not warned about) */
#define FMT(buf, ...) assert_true(snprintf(buf, sizeof(buf), __VA_ARGS__) < (int)sizeof(buf))

/* base/home (the workspace in most tests), base/other */
struct fixture {
	char base[PATH_MAX];
	char home[PATH_MAX];
	char other[PATH_MAX];
	char msg[1024];
	struct cr_policy p;
	struct cr_anchors a;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/corral-unit-anchor.XXXXXX";

	if (!f || !mkdtemp(tmpl) || !realpath(tmpl, f->base))
		return -1;
	FMT(f->home, "%s/home", f->base);
	FMT(f->other, "%s/other", f->base);
	if (mkdir(f->home, 0755) < 0 || mkdir(f->other, 0755) < 0)
		return -1;
	f->p.workspace = strdup(f->home);
	f->p.uid = getuid();
	f->p.gid = getgid();
	*state = f;
	return f->p.workspace ? 0 : -1;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int r = nftw(f->base, rm_one, 16, FTW_DEPTH | FTW_PHYS);

	cr_policy_done(&f->p);
	cr_anchors_done(&f->a);
	free(f);
	return r < 0 ? -1 : 0;
}

/* Anchors as corral finds them with HOME and the XDG directories at @root. */
static void anchors_at(struct fixture *f, const char *root)
{
	char cfg[PATH_MAX + 32], state[PATH_MAX + 32], ledger[PATH_MAX + 64], home[PATH_MAX + 8];
	char cache[PATH_MAX + 16];
	char *env[] = { home, cache, NULL };
	struct cr_profile_dirs dirs = { .user_dir = cfg, .system_dir = "/nonexistent/corral/profiles" };
	struct cr_anchor_sources src = { .dirs = &dirs, .env = env };

	FMT(cfg, "%s/.config/corral/profiles", root);
	FMT(state, "%s/.local/state/corral", root);
	FMT(ledger, "%s/audit.jsonl", state);
	FMT(home, "HOME=%s", root);
	FMT(cache, "XDG_CACHE_HOME=%s/.cache", root);
	src.state_dir = state;
	src.audit_path = ledger;
	cr_anchors_done(&f->a);
	assert_int_equal(cr_anchors_collect(&src, &f->a), 0);
}

static bool has_rule(const struct cr_policy *p, const char *path, enum cr_path_access access)
{
	for (size_t i = 0; i < p->n_paths; i++)
		if (strcmp(p->paths[i].path, path) == 0 && p->paths[i].access == access)
			return true;
	return false;
}

static bool has_pin(const struct cr_policy *p, const char *path)
{
	for (size_t i = 0; i < p->n_pins; i++)
		if (strcmp(p->pins[i], path) == 0)
			return true;
	return false;
}

static void add_path(struct cr_policy *p, const char *path, enum cr_path_access access)
{
	p->paths = reallocarray(p->paths, p->n_paths + 1, sizeof(*p->paths));
	assert_non_null(p->paths);
	p->paths[p->n_paths++] = (struct cr_path_rule){ strdup(path), access };
}

static void test_collect(void **state)
{
	struct fixture *f = *state;

	anchors_at(f, "/h");
	assert_int_equal(f->a.n, 5);
	assert_string_equal(f->a.a[0].path, "/h/.config/corral");
	assert_string_equal(f->a.a[1].path, "/nonexistent/corral");
	assert_int_equal(f->a.a[1].mode, 0755);
	assert_string_equal(f->a.a[2].path, "/h/.local/state/corral");
	assert_string_equal(f->a.a[3].path, "/h/.local/state/corral/audit.jsonl");
	assert_true(f->a.a[3].file);
	assert_string_equal(f->a.a[4].path, "/h/.cache/corral");
}

/* The common case: nothing of corral's inside a writable path; nothing added, nothing made. */
static void test_outside_costs_nothing(void **state)
{
	struct fixture *f = *state;
	char cfg[PATH_MAX + 32];

	anchors_at(f, f->other);
	assert_int_equal(cr_policy_guard(&f->p, &f->a, NULL, f->msg, sizeof(f->msg)), 0);
	assert_int_equal(f->p.n_paths, 0);
	assert_int_equal(f->p.n_pins, 0);
	FMT(cfg, "%s/.config", f->other);
	assert_int_equal(access(cfg, F_OK), -1);
}

/* Inside the workspace: made, read-only, the directories on the way pinned. */
static void test_inside_workspace(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX + 64];
	struct stat st;

	anchors_at(f, f->home);
	assert_int_equal(cr_policy_guard(&f->p, &f->a, NULL, f->msg, sizeof(f->msg)), 0);
	FMT(path, "%s/.config/corral", f->home);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_true(has_rule(&f->p, path, CR_PATH_RO));
	FMT(path, "%s/.local/state/corral", f->home);
	assert_true(has_rule(&f->p, path, CR_PATH_RO));
	FMT(path, "%s/.config", f->home);
	assert_true(has_pin(&f->p, path));
	FMT(path, "%s/.local", f->home);
	assert_true(has_pin(&f->p, path));
	FMT(path, "%s/.local/state", f->home);
	assert_true(has_pin(&f->p, path));
	assert_int_equal(f->p.n_pins, 4); /* and .cache */
	/* the ledger lies inside the read-only state directory: no rule of its own */
	FMT(path, "%s/.local/state/corral/audit.jsonl", f->home);
	assert_false(has_rule(&f->p, path, CR_PATH_RO));
	assert_false(has_pin(&f->p, f->home)); /* the workspace is a mount point already */
}

/* A --rw path inside the workspace that contains the anchor: no pin above it is needed. */
static void test_rw_between(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX + 64];

	FMT(path, "%s/.local", f->home);
	assert_int_equal(mkdir(path, 0700), 0);
	add_path(&f->p, path, CR_PATH_RW);
	anchors_at(f, f->home);
	assert_int_equal(cr_policy_guard(&f->p, &f->a, NULL, f->msg, sizeof(f->msg)), 0);
	assert_false(has_pin(&f->p, path));
	FMT(path, "%s/.local/state", f->home);
	assert_true(has_pin(&f->p, path));
}

/* The workspace read-only, an anchor inside: nothing to do but the refusal checks. */
static void test_workspace_ro(void **state)
{
	struct fixture *f = *state;

	f->p.workspace_ro = true;
	anchors_at(f, f->home);
	assert_int_equal(cr_policy_guard(&f->p, &f->a, NULL, f->msg, sizeof(f->msg)), 0);
	assert_int_equal(f->p.n_paths, 0);
	assert_int_equal(f->p.n_pins, 0);
}

static void test_writable_inside_refused(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX + 64];

	anchors_at(f, f->other);
	FMT(path, "mkdir -p '%s/.local/state/corral/sessions'", f->other);
	assert_int_equal(system(path), 0);
	FMT(path, "%s/.local/state/corral/sessions", f->other);
	add_path(&f->p, path, CR_PATH_RW);
	assert_int_equal(cr_policy_guard(&f->p, &f->a, NULL, f->msg, sizeof(f->msg)), -EPERM);
	assert_non_null(strstr(f->msg, path));
	assert_non_null(strstr(f->msg, "state directory"));
	/* read-only is fine */
	f->p.paths[0].access = CR_PATH_RO;
	assert_int_equal(cr_policy_guard(&f->p, &f->a, NULL, f->msg, sizeof(f->msg)), 0);
}

/* The session's own workspace under the state directory is the exception. */
static void test_session_workspace_allowed(void **state)
{
	struct fixture *f = *state;
	char ws[PATH_MAX + 64], cmd[PATH_MAX + 80];

	FMT(ws, "%s/.local/state/corral/sessions/0123", f->other);
	FMT(cmd, "mkdir -p '%s'", ws);
	assert_int_equal(system(cmd), 0);
	free(f->p.workspace);
	f->p.workspace = strdup(ws);
	anchors_at(f, f->other);
	assert_int_equal(cr_policy_guard(&f->p, &f->a, ws, f->msg, sizeof(f->msg)), 0);
	assert_int_equal(cr_policy_guard(&f->p, &f->a, NULL, f->msg, sizeof(f->msg)), -EPERM);
	assert_non_null(strstr(f->msg, "the workspace"));
}

/* A link the sandbox could replace is refused; one outside its reach is followed. */
static void test_symlinks(void **state)
{
	struct fixture *f = *state;
	char link[PATH_MAX + 16], target[PATH_MAX + 16], path[PATH_MAX + 64];
	struct cr_profile_dirs dirs = { .user_dir = path };
	struct cr_anchor_sources src = { .dirs = &dirs };

	FMT(link, "%s/cfg", f->home);
	assert_int_equal(symlink("../other", link), 0);
	FMT(path, "%s/cfg/corral/profiles", f->home);
	assert_int_equal(cr_anchors_collect(&src, &f->a), 0);
	assert_int_equal(cr_policy_guard(&f->p, &f->a, NULL, f->msg, sizeof(f->msg)), -EPERM);
	assert_non_null(strstr(f->msg, "symbolic link"));
	assert_non_null(strstr(f->msg, link));
	cr_anchors_done(&f->a);

	/* other/lnk -> ../home/real: the link is outside the workspace, its target inside */
	FMT(target, "%s/real", f->home);
	assert_int_equal(mkdir(target, 0700), 0);
	FMT(link, "%s/lnk", f->other);
	assert_int_equal(symlink("../home/real", link), 0);
	FMT(path, "%s/lnk/corral/profiles", f->other);
	assert_int_equal(cr_anchors_collect(&src, &f->a), 0);
	assert_int_equal(cr_policy_guard(&f->p, &f->a, NULL, f->msg, sizeof(f->msg)), 0);
	assert_true(has_pin(&f->p, target));
	FMT(path, "%s/corral", target);
	assert_true(has_rule(&f->p, path, CR_PATH_RO));
}

/* A file where a directory should be, that the sandbox could replace: refused. */
static void test_file_in_the_way(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX + 16];
	FILE *fp;

	FMT(path, "%s/.config", f->home);
	fp = fopen(path, "w");
	assert_non_null(fp);
	(void)fclose(fp);
	anchors_at(f, f->home);
	assert_int_equal(cr_policy_guard(&f->p, &f->a, NULL, f->msg, sizeof(f->msg)), -EPERM);
	assert_non_null(strstr(f->msg, "not a directory"));
}

/* A ledger inside the workspace with a second name: refused; with one name: read-only. */
static void test_hard_linked_ledger(void **state)
{
	struct fixture *f = *state;
	char ledger[PATH_MAX + 16], other[PATH_MAX + 16];
	struct cr_anchor_sources src = { .audit_path = ledger };
	FILE *fp;

	FMT(ledger, "%s/l.jsonl", f->home);
	FMT(other, "%s/x", f->home);
	fp = fopen(ledger, "w");
	assert_non_null(fp);
	(void)fclose(fp);
	assert_int_equal(link(ledger, other), 0);
	assert_int_equal(cr_anchors_collect(&src, &f->a), 0);
	assert_int_equal(cr_policy_guard(&f->p, &f->a, NULL, f->msg, sizeof(f->msg)), -EPERM);
	assert_non_null(strstr(f->msg, "hard links"));
	assert_int_equal(unlink(other), 0);
	assert_int_equal(cr_policy_guard(&f->p, &f->a, NULL, f->msg, sizeof(f->msg)), 0);
	assert_true(has_rule(&f->p, ledger, CR_PATH_RO));
}

int main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_collect),
		T(test_outside_costs_nothing),
		T(test_inside_workspace),
		T(test_rw_between),
		T(test_workspace_ro),
		T(test_writable_inside_refused),
		T(test_session_workspace_allowed),
		T(test_symlinks),
		T(test_file_in_the_way),
		T(test_hard_linked_ledger),
	};

	return cmocka_run_group_tests_name("anchor", tests, NULL, NULL);
}
