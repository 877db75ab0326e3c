/* SPDX-License-Identifier: MIT */
/* Unit tests for ns/mount-plan.c against fake hosts described by struct cr_host_view. */
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

#include "ns/mount-plan.h"
#include "launcher/policy/policy.h"

/* ---- a fake host: a table of paths, each a directory, a file or a symlink ---- */

enum fake_type {
	FAKE_DIR,
	FAKE_FILE,
	FAKE_LINK,
};

struct fake_entry {
	const char *path;
	enum fake_type type;
	const char *target; /* FAKE_LINK */
};

static const struct fake_entry *fake_host; /* terminated by { NULL } */

static const struct fake_entry *fake_find(const char *path)
{
	for (const struct fake_entry *e = fake_host; e && e->path; e++)
		if (strcmp(e->path, path) == 0)
			return e;
	return NULL;
}

static int fake_readlink(const char *path, char **ret_target)
{
	const struct fake_entry *e = fake_find(path);

	if (!e)
		return -ENOENT;
	if (e->type != FAKE_LINK)
		return -EINVAL;
	*ret_target = strdup(e->target);
	return *ret_target ? 0 : -ENOMEM;
}

static bool fake_exists(const char *path)
{
	return fake_find(path) != NULL;
}

static bool fake_is_dir(const char *path)
{
	const struct fake_entry *e = fake_find(path);

	return e && e->type == FAKE_DIR; /* the plan only asks about canonical paths */
}

/* A new id each call, as the real one: 0000...01, 0000...02, ... */
static unsigned fake_ids;

static int fake_machine_id(char ret[CR_MACHINE_ID_SIZE])
{
	(void)snprintf(ret, CR_MACHINE_ID_SIZE, "%032x\n", ++fake_ids);
	return 0;
}

static const struct cr_host_view fake_view = {
	.readlink = fake_readlink,
	.exists = fake_exists,
	.is_dir = fake_is_dir,
	.machine_id = fake_machine_id,
};

/* A host with a machine id, and the dbus copy a link to it (Debian's default). */
static const struct fake_entry id_host[] = {
	{ "/usr", FAKE_DIR, NULL },
	{ "/etc", FAKE_DIR, NULL },
	{ "/etc/machine-id", FAKE_FILE, NULL },
	{ "/var", FAKE_DIR, NULL },
	{ "/var/lib", FAKE_DIR, NULL },
	{ "/var/lib/dbus", FAKE_DIR, NULL },
	{ "/var/lib/dbus/machine-id", FAKE_LINK, "/etc/machine-id" },
	{ "/srv", FAKE_DIR, NULL },
	{ "/srv/ws", FAKE_DIR, NULL },
	{ NULL, 0, NULL },
};

/* The dbus copy a file of its own, /etc's a link to it. */
static const struct fake_entry id_var_host[] = {
	{ "/usr", FAKE_DIR, NULL },
	{ "/etc", FAKE_DIR, NULL },
	{ "/etc/machine-id", FAKE_LINK, "/var/lib/dbus/machine-id" },
	{ "/var", FAKE_DIR, NULL },
	{ "/var/lib", FAKE_DIR, NULL },
	{ "/var/lib/dbus", FAKE_DIR, NULL },
	{ "/var/lib/dbus/machine-id", FAKE_FILE, NULL },
	{ "/srv", FAKE_DIR, NULL },
	{ "/srv/ws", FAKE_DIR, NULL },
	{ NULL, 0, NULL },
};

/* Debian 12: merged /usr, no /lib32, /libx32 or /opt. */
static const struct fake_entry merged_host[] = {
	{ "/usr", FAKE_DIR, NULL },
	{ "/bin", FAKE_LINK, "usr/bin" },
	{ "/sbin", FAKE_LINK, "usr/sbin" },
	{ "/lib", FAKE_LINK, "usr/lib" },
	{ "/lib64", FAKE_LINK, "usr/lib64" },
	{ "/etc", FAKE_DIR, NULL },
	{ "/etc/passwd", FAKE_FILE, NULL },
	{ "/home", FAKE_DIR, NULL },
	{ "/home/u", FAKE_DIR, NULL },
	{ "/home/u/proj", FAKE_DIR, NULL },
	{ "/home/u/.ssh", FAKE_DIR, NULL },
	{ "/home/u/.netrc", FAKE_FILE, NULL },
	{ "/srv", FAKE_DIR, NULL },
	{ "/srv/ws", FAKE_DIR, NULL },
	{ "/srv/ws/secret.txt", FAKE_FILE, NULL },
	{ "/srv/ws/cache", FAKE_DIR, NULL },
	{ "/srv/ab", FAKE_DIR, NULL },
	{ "/data", FAKE_DIR, NULL },
	{ "/data/a", FAKE_DIR, NULL },
	{ "/data/a/b", FAKE_DIR, NULL },
	{ "/data/a/b/c", FAKE_DIR, NULL },
	{ "/data/z", FAKE_DIR, NULL },
	{ "/data/m", FAKE_DIR, NULL },
	{ "/x", FAKE_DIR, NULL },
	{ "/x/y", FAKE_DIR, NULL },
	{ "/proc", FAKE_DIR, NULL },
	{ "/dev", FAKE_DIR, NULL },
	{ "/tmp", FAKE_DIR, NULL },
	{ NULL, 0, NULL },
};

/* An older layout: every system directory is real, /opt too, and no /usr merge. */
static const struct fake_entry split_host[] = {
	{ "/usr", FAKE_DIR, NULL },	 { "/bin", FAKE_DIR, NULL },   { "/sbin", FAKE_DIR, NULL },
	{ "/lib", FAKE_DIR, NULL },	 { "/lib32", FAKE_DIR, NULL }, { "/lib64", FAKE_DIR, NULL },
	{ "/libx32", FAKE_DIR, NULL }, { "/etc", FAKE_DIR, NULL },   { "/opt", FAKE_DIR, NULL },
	{ "/srv", FAKE_DIR, NULL },	 { "/srv/ws", FAKE_DIR, NULL }, { NULL, 0, NULL },
};

/* ---- helpers ---- */

static struct cr_policy make_policy(const char *workspace, const char *home,
				    struct cr_path_rule *paths, size_t n_paths)
{
	return (struct cr_policy){
		.workspace = (char *)workspace,
		.cwd = (char *)workspace,
		.home = (char *)home,
		.paths = paths,
		.n_paths = n_paths,
		.net = CR_NET_NONE,
		.uid = 65534,
		.gid = 65534,
	};
}

static void plan_build(const struct cr_policy *p, const struct fake_entry *h,
		       struct cr_mount_plan *plan)
{
	fake_host = h;
	assert_int_equal(cr_mount_plan_build(p, &fake_view, plan), 0);
	assert_non_null(plan->ops);
	assert_true(plan->n_ops > 0);
}

/* Index of the first op with @kind at @dst, or -1. */
static ssize_t find_op(const struct cr_mount_plan *plan, enum cr_mount_kind kind, const char *dst)
{
	for (size_t i = 0; i < plan->n_ops; i++)
		if (plan->ops[i].kind == kind && strcmp(plan->ops[i].dst, dst) == 0)
			return (ssize_t)i;
	return -1;
}

static size_t count_dst(const struct cr_mount_plan *plan, const char *dst)
{
	size_t n = 0;

	for (size_t i = 0; i < plan->n_ops; i++)
		n += strcmp(plan->ops[i].dst, dst) == 0;
	return n;
}

static const struct cr_mount_op *must_find(const struct cr_mount_plan *plan,
					   enum cr_mount_kind kind, const char *dst)
{
	ssize_t i = find_op(plan, kind, dst);

	if (i < 0)
		print_error("no %s op at %s\n", cr_mount_kind_to_string(kind), dst);
	assert_true(i >= 0);
	return &plan->ops[i];
}

/* The ops that come from the workspace and the user's paths: everything after /tmp and $HOME. */
static size_t first_user_op(const struct cr_mount_plan *plan, const char *home)
{
	ssize_t i = find_op(plan, CR_MOUNT_TMPFS, "/tmp");
	ssize_t h = find_op(plan, CR_MOUNT_TMPFS, home);

	assert_true(i >= 0);
	if (h > i)
		i = h;
	return (size_t)i + 1;
}

static void expect_bind(const struct cr_mount_op *op, const char *path, bool writable, bool file)
{
	assert_int_equal(op->kind, CR_MOUNT_BIND);
	assert_string_equal(op->src, path);
	assert_string_equal(op->dst, path);
	assert_int_equal(!!(op->flags & CR_MNT_WRITABLE), writable);
	assert_int_equal(!!(op->flags & CR_MNT_FILE), file);
}

static void dump(const struct cr_mount_plan *plan)
{
	for (size_t i = 0; i < plan->n_ops; i++)
		print_message("  %2zu %-8s %s <- %s flags=%#x mode=%#o\n", i,
			      cr_mount_kind_to_string(plan->ops[i].kind), plan->ops[i].dst,
			      plan->ops[i].src ? plan->ops[i].src : "-", plan->ops[i].flags,
			      plan->ops[i].mode);
}

/* ---- tests ---- */

static void test_merged_usr(void **state)
{
	struct cr_policy p = make_policy("/srv/ws", "/home/u", NULL, 0);
	struct cr_mount_plan plan;

	plan_build(&p, merged_host, &plan);
	expect_bind(&plan.ops[0], "/usr", false, false);
	assert_true(plan.ops[0].flags & CR_MNT_OPTIONAL);
	assert_int_equal(plan.ops[1].kind, CR_MOUNT_SYMLINK);
	assert_string_equal(plan.ops[1].dst, "/bin");
	assert_string_equal(plan.ops[1].src, "usr/bin");
	assert_int_equal(plan.ops[2].kind, CR_MOUNT_SYMLINK);
	assert_string_equal(plan.ops[2].dst, "/sbin");
	assert_string_equal(plan.ops[2].src, "usr/sbin");
	assert_int_equal(plan.ops[3].kind, CR_MOUNT_SYMLINK);
	assert_string_equal(plan.ops[3].dst, "/lib");
	assert_string_equal(plan.ops[3].src, "usr/lib");
	assert_int_equal(plan.ops[4].kind, CR_MOUNT_SYMLINK);
	assert_string_equal(plan.ops[4].dst, "/lib64");
	assert_string_equal(plan.ops[4].src, "usr/lib64");
	expect_bind(&plan.ops[5], "/etc", false, false);
	assert_int_equal(plan.ops[6].kind, CR_MOUNT_PROC);
	/* What the host lacks is not in the plan at all. */
	assert_int_equal(count_dst(&plan, "/lib32"), 0);
	assert_int_equal(count_dst(&plan, "/libx32"), 0);
	assert_int_equal(count_dst(&plan, "/opt"), 0);
	cr_mount_plan_done(&plan);
}

static void test_split_usr(void **state)
{
	static const char *const dirs[] = { "/usr",    "/bin",	 "/sbin", "/lib", "/lib32",
					    "/lib64", "/libx32", "/etc",  "/opt" };
	struct cr_policy p = make_policy("/srv/ws", "/", NULL, 0);
	struct cr_mount_plan plan;

	plan_build(&p, split_host, &plan);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		expect_bind(&plan.ops[i], dirs[i], false, false);
		assert_int_equal(find_op(&plan, CR_MOUNT_SYMLINK, dirs[i]), -1);
	}
	assert_int_equal(plan.ops[9].kind, CR_MOUNT_PROC);
	cr_mount_plan_done(&plan);
}

static void test_proc(void **state)
{
	static const char *const rdonly[] = { "/proc/sys", "/proc/sysrq-trigger", "/proc/irq",
					      "/proc/bus" };
	struct cr_policy p = make_policy("/srv/ws", "/home/u", NULL, 0);
	struct cr_mount_plan plan;
	ssize_t proc;

	plan_build(&p, merged_host, &plan);
	proc = find_op(&plan, CR_MOUNT_PROC, "/proc");
	assert_true(proc >= 0);
	assert_null(plan.ops[proc].src);
	for (size_t i = 0; i < 4; i++) {
		const struct cr_mount_op *op = &plan.ops[proc + 1 + (ssize_t)i];

		assert_int_equal(op->kind, CR_MOUNT_RDONLY);
		assert_string_equal(op->dst, rdonly[i]);
		assert_true(op->flags & CR_MNT_OPTIONAL);
		assert_false(op->flags & CR_MNT_WRITABLE);
	}
	/* Exactly those are made read-only, and /proc is mounted once. */
	for (size_t i = 0, n = 0; i < plan.n_ops; i++) {
		n += plan.ops[i].kind == CR_MOUNT_RDONLY;
		if (i + 1 == plan.n_ops)
			assert_int_equal(n, 4);
	}
	assert_int_equal(count_dst(&plan, "/proc"), 1);
	cr_mount_plan_done(&plan);
}

static void test_dev(void **state)
{
	static const char *const nodes[] = { "/dev/null",   "/dev/zero",    "/dev/full",
					     "/dev/random", "/dev/urandom", "/dev/tty" };
	static const char *const links[][2] = {
		{ "/dev/ptmx", "pts/ptmx" },
		{ "/dev/fd", "/proc/self/fd" },
		{ "/dev/stdin", "/proc/self/fd/0" },
		{ "/dev/stdout", "/proc/self/fd/1" },
		{ "/dev/stderr", "/proc/self/fd/2" },
	};
	struct cr_policy p = make_policy("/srv/ws", "/home/u", NULL, 0);
	struct cr_mount_plan plan;
	const struct cr_mount_op *op;
	ssize_t dev, pts;

	plan_build(&p, merged_host, &plan);
	dev = find_op(&plan, CR_MOUNT_TMPFS, "/dev");
	assert_true(dev > find_op(&plan, CR_MOUNT_PROC, "/proc"));
	op = &plan.ops[dev];
	assert_int_equal(op->mode, 0755);
	assert_false(op->flags & CR_MNT_WRITABLE); /* read-only once populated */

	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		ssize_t k = find_op(&plan, CR_MOUNT_DEVICE, nodes[i]);

		assert_true(k > dev);
		assert_string_equal(plan.ops[k].src, nodes[i]);
		assert_true(plan.ops[k].flags & CR_MNT_FILE);
	}
	/* No other host device gets in. */
	for (size_t i = 0, n = 0; i < plan.n_ops; i++) {
		n += plan.ops[i].kind == CR_MOUNT_DEVICE;
		if (i + 1 == plan.n_ops)
			assert_int_equal(n, 6);
	}

	pts = find_op(&plan, CR_MOUNT_DEVPTS, "/dev/pts");
	assert_true(pts > dev);
	assert_true(plan.ops[pts].flags & CR_MNT_WRITABLE);

	op = must_find(&plan, CR_MOUNT_TMPFS, "/dev/shm");
	assert_true(op - plan.ops > dev);
	assert_true(op->flags & CR_MNT_WRITABLE);
	assert_int_equal(op->mode, 01777);

	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		ssize_t k = find_op(&plan, CR_MOUNT_SYMLINK, links[i][0]);

		assert_true(k > dev);
		assert_string_equal(plan.ops[k].src, links[i][1]);
	}
	/* /dev/ptmx points into the devpts instance, which must exist first. */
	assert_true(find_op(&plan, CR_MOUNT_SYMLINK, "/dev/ptmx") > pts);
	cr_mount_plan_done(&plan);
}

static void test_tmp(void **state)
{
	struct cr_policy p = make_policy("/srv/ws", "/home/u", NULL, 0);
	struct cr_mount_plan plan;
	const struct cr_mount_op *op;

	plan_build(&p, merged_host, &plan);
	op = must_find(&plan, CR_MOUNT_TMPFS, "/tmp");
	assert_true(op->flags & CR_MNT_WRITABLE);
	assert_int_equal(op->mode, 01777);
	assert_null(op->src);
	assert_int_equal(count_dst(&plan, "/tmp"), 1);
	cr_mount_plan_done(&plan);
}

static void test_home_private(void **state)
{
	struct cr_policy p = make_policy("/srv/ws", "/home/u", NULL, 0);
	struct cr_mount_plan plan;
	const struct cr_mount_op *op;
	ssize_t home, ws;

	plan_build(&p, merged_host, &plan);
	home = find_op(&plan, CR_MOUNT_TMPFS, "/home/u");
	assert_true(home >= 0);
	op = &plan.ops[home];
	assert_true(op->flags & CR_MNT_WRITABLE);
	assert_int_equal(op->mode, 0700);
	ws = find_op(&plan, CR_MOUNT_BIND, "/srv/ws");
	assert_true(home < ws);
	assert_int_equal(count_dst(&plan, "/home/u"), 1);
	cr_mount_plan_done(&plan);
}

static void test_home_root_not_covered(void **state)
{
	struct cr_policy p = make_policy("/srv/ws", "/", NULL, 0);
	struct cr_mount_plan plan;

	plan_build(&p, merged_host, &plan);
	assert_int_equal(count_dst(&plan, "/"), 0);
	for (size_t i = 0; i < plan.n_ops; i++)
		assert_false(plan.ops[i].kind == CR_MOUNT_TMPFS && plan.ops[i].mode == 0700);
	cr_mount_plan_done(&plan);
}

/* HOME=/tmp: /tmp stays the private 1777 tmpfs, not a 0700 one on top; HOME below /tmp still
 * gets its own. */
static void test_home_tmp(void **state)
{
	struct cr_policy p = make_policy("/srv/ws", "/tmp", NULL, 0);
	struct cr_policy q = make_policy("/srv/ws", "/tmp/h", NULL, 0);
	struct cr_mount_plan plan;
	ssize_t tmp;

	plan_build(&p, merged_host, &plan);
	assert_int_equal(count_dst(&plan, "/tmp"), 1);
	tmp = find_op(&plan, CR_MOUNT_TMPFS, "/tmp");
	assert_true(tmp >= 0);
	assert_int_equal(plan.ops[tmp].mode, 01777);
	cr_mount_plan_done(&plan);

	plan_build(&q, merged_host, &plan);
	tmp = find_op(&plan, CR_MOUNT_TMPFS, "/tmp/h");
	assert_true(tmp >= 0);
	assert_int_equal(plan.ops[tmp].mode, 0700);
	assert_true(find_op(&plan, CR_MOUNT_TMPFS, "/tmp") < tmp);
	cr_mount_plan_done(&plan);
}

static void test_workspace_inside_home(void **state)
{
	struct cr_policy p = make_policy("/home/u/proj", "/home/u", NULL, 0);
	struct cr_mount_plan plan;
	ssize_t home, ws;

	plan_build(&p, merged_host, &plan);
	home = find_op(&plan, CR_MOUNT_TMPFS, "/home/u");
	ws = find_op(&plan, CR_MOUNT_BIND, "/home/u/proj");
	assert_true(home >= 0);
	assert_true(ws >= 0);
	assert_true(home < ws);
	assert_true(plan.ops[ws].flags & CR_MNT_WRITABLE);
	cr_mount_plan_done(&plan);
}

static void test_home_inside_workspace(void **state)
{
	struct cr_policy p = make_policy("/home", "/home/u", NULL, 0);
	struct cr_mount_plan plan;

	plan_build(&p, merged_host, &plan);
	assert_int_equal(count_dst(&plan, "/home/u"), 0);
	expect_bind(&plan.ops[first_user_op(&plan, "/home/u")], "/home", true, false);
	cr_mount_plan_done(&plan);

	/* HOME equal to the workspace: the workspace itself, not an empty tmpfs. */
	p = make_policy("/home/u", "/home/u", NULL, 0);
	plan_build(&p, merged_host, &plan);
	assert_int_equal(find_op(&plan, CR_MOUNT_TMPFS, "/home/u"), -1);
	assert_int_equal(count_dst(&plan, "/home/u"), 1);
	cr_mount_plan_done(&plan);
}

static void test_home_inside_shown_path(void **state)
{
	struct cr_path_rule ro_home[] = { { "/home", CR_PATH_RO } };
	struct cr_path_rule rw_home[] = { { "/home/u", CR_PATH_RW } };
	struct cr_policy p = make_policy("/srv/ws", "/home/u", ro_home, 1);
	struct cr_mount_plan plan;

	plan_build(&p, merged_host, &plan);
	assert_int_equal(find_op(&plan, CR_MOUNT_TMPFS, "/home/u"), -1);
	cr_mount_plan_done(&plan);

	p = make_policy("/srv/ws", "/home/u", rw_home, 1);
	plan_build(&p, merged_host, &plan);
	assert_int_equal(find_op(&plan, CR_MOUNT_TMPFS, "/home/u"), -1);
	assert_int_equal(count_dst(&plan, "/home/u"), 1);
	cr_mount_plan_done(&plan);

	/* Under a system directory, which is shown read-only already. */
	p = make_policy("/srv/ws", "/etc/home", NULL, 0);
	plan_build(&p, merged_host, &plan);
	assert_int_equal(count_dst(&plan, "/etc/home"), 0);
	cr_mount_plan_done(&plan);

	/* A sibling sharing a string prefix is not "inside": /srv/wsx is not in /srv/ws. */
	p = make_policy("/srv/ws", "/srv/wsx", NULL, 0);
	plan_build(&p, merged_host, &plan);
	assert_true(find_op(&plan, CR_MOUNT_TMPFS, "/srv/wsx") >= 0);
	cr_mount_plan_done(&plan);
}

static void test_home_hidden_paths_inside(void **state)
{
	/* Showing something inside HOME keeps HOME private around it. */
	struct cr_path_rule paths[] = { { "/home/u/.ssh", CR_PATH_RO } };
	struct cr_policy p = make_policy("/srv/ws", "/home/u", paths, 1);
	struct cr_mount_plan plan;
	ssize_t home, ssh;

	plan_build(&p, merged_host, &plan);
	home = find_op(&plan, CR_MOUNT_TMPFS, "/home/u");
	ssh = find_op(&plan, CR_MOUNT_BIND, "/home/u/.ssh");
	assert_true(home >= 0);
	assert_true(ssh > home);
	cr_mount_plan_done(&plan);
}

static void test_user_paths_parent_first(void **state)
{
	struct cr_path_rule paths[] = {
		{ "/data/a/b/c", CR_PATH_RO }, /* depth 4 */
		{ "/data", CR_PATH_RW },       /* depth 1 */
		{ "/x/y", CR_PATH_RO },	       /* depth 2 */
		{ "/data/a/b", CR_PATH_HIDE }, /* depth 3 */
		{ "/data/a", CR_PATH_RO },     /* depth 2 */
	};
	static const char *const want[] = { "/data", "/srv/ws", "/x/y", "/data/a", "/data/a/b",
					    "/data/a/b/c" };
	struct cr_policy p = make_policy("/srv/ws", "/", paths, 5);
	struct cr_mount_plan plan;
	size_t first;

	plan_build(&p, merged_host, &plan);
	first = first_user_op(&plan, "/");
	if (plan.n_ops != first + 6)
		dump(&plan);
	assert_int_equal(plan.n_ops, first + 6);
	for (size_t i = 0; i < 6; i++) {
		if (strcmp(plan.ops[first + i].dst, want[i]) != 0)
			dump(&plan);
		assert_string_equal(plan.ops[first + i].dst, want[i]);
	}
	/* Each op after a parent's comes later than that parent's. */
	for (size_t i = first; i < plan.n_ops; i++)
		for (size_t j = i + 1; j < plan.n_ops; j++)
			assert_false(strcmp(plan.ops[i].dst, plan.ops[j].dst) != 0 &&
				     strncmp(plan.ops[i].dst, plan.ops[j].dst,
					     strlen(plan.ops[j].dst)) == 0 &&
				     plan.ops[i].dst[strlen(plan.ops[j].dst)] == '/');
	cr_mount_plan_done(&plan);
}

static void test_user_paths_equal_depth_keep_order(void **state)
{
	/* Deliberately not alphabetical: command-line order must survive the sort. */
	struct cr_path_rule paths[] = {
		{ "/data/z", CR_PATH_RO },
		{ "/data/m", CR_PATH_RW },
		{ "/data/a", CR_PATH_RO },
		{ "/x", CR_PATH_RO },
		{ "/data", CR_PATH_RO },
		{ "/srv", CR_PATH_RO },
	};
	static const char *const want[] = { "/x", "/data", "/srv", "/srv/ws", "/data/z", "/data/m",
					    "/data/a" };
	struct cr_policy p = make_policy("/srv/ws", "/", paths, 6);
	struct cr_mount_plan plan;
	size_t first;

	plan_build(&p, merged_host, &plan);
	first = first_user_op(&plan, "/");
	assert_int_equal(plan.n_ops, first + 7);
	for (size_t i = 0; i < 7; i++) {
		if (strcmp(plan.ops[first + i].dst, want[i]) != 0)
			dump(&plan);
		assert_string_equal(plan.ops[first + i].dst, want[i]);
	}
	cr_mount_plan_done(&plan);
}

static void test_same_path_later_rule_wins(void **state)
{
	/* Two rules for one path stay in command-line order, so the second is mounted on top. */
	struct cr_path_rule paths[] = {
		{ "/data", CR_PATH_RW },
		{ "/data", CR_PATH_RO },
	};
	struct cr_policy p = make_policy("/srv/ws", "/", paths, 2);
	struct cr_mount_plan plan;
	size_t first;

	plan_build(&p, merged_host, &plan);
	first = first_user_op(&plan, "/");
	expect_bind(&plan.ops[first], "/data", true, false);
	expect_bind(&plan.ops[first + 1], "/data", false, false);
	expect_bind(&plan.ops[first + 2], "/srv/ws", true, false);
	cr_mount_plan_done(&plan);
}

static void test_hide(void **state)
{
	struct cr_path_rule paths[] = {
		{ "/home/u/.ssh", CR_PATH_HIDE },
		{ "/home/u/.netrc", CR_PATH_HIDE },
		{ "/srv/ws/secret.txt", CR_PATH_HIDE },
		{ "/srv/ws/cache", CR_PATH_HIDE },
	};
	struct cr_policy p = make_policy("/srv/ws", "/", paths, 4);
	struct cr_mount_plan plan;
	const struct cr_mount_op *op;

	plan_build(&p, merged_host, &plan);
	op = must_find(&plan, CR_MOUNT_TMPFS, "/home/u/.ssh");
	assert_false(op->flags & CR_MNT_WRITABLE);
	assert_int_equal(op->mode, 0755);
	assert_null(op->src);
	op = must_find(&plan, CR_MOUNT_TMPFS, "/srv/ws/cache");
	assert_false(op->flags & CR_MNT_WRITABLE);

	op = must_find(&plan, CR_MOUNT_NULL, "/home/u/.netrc");
	assert_string_equal(op->src, "/dev/null");
	assert_true(op->flags & CR_MNT_FILE);
	assert_false(op->flags & CR_MNT_WRITABLE);
	op = must_find(&plan, CR_MOUNT_NULL, "/srv/ws/secret.txt");
	assert_string_equal(op->src, "/dev/null");

	/* Hiding is never a bind of the hidden thing itself. */
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(find_op(&plan, CR_MOUNT_BIND, paths[i].path), -1);
	/* Inside the workspace: hidden after the workspace is bound, or the bind would cover it. */
	assert_true(find_op(&plan, CR_MOUNT_NULL, "/srv/ws/secret.txt") >
		    find_op(&plan, CR_MOUNT_BIND, "/srv/ws"));
	assert_true(find_op(&plan, CR_MOUNT_TMPFS, "/srv/ws/cache") >
		    find_op(&plan, CR_MOUNT_BIND, "/srv/ws"));
	cr_mount_plan_done(&plan);
}

/* A named cache: its directory in the state directory, writable, at its path in the sandbox,
 * after the read-only bind that holds that path (~/.cargo/bin before ~/.cargo/registry's parent
 * is made; ~/.cargo itself stays the private home's). A cache without its directory (never
 * attached) fails the plan rather than bind nothing. */
static void test_caches(void **state)
{
	struct cr_path_rule paths[] = { { "/home/u/.ssh", CR_PATH_RO } };
	struct cr_cache caches[] = {
		{ "reg", "/home/u/.ssh/registry", "/home/u/proj" }, /* below a read-only bind */
		{ "npm", "/home/u/.npm", "/srv/ab" },
	};
	struct cr_policy p = make_policy("/srv/ws", "/home/u", paths, 1);
	struct cr_mount_plan plan;
	const struct cr_mount_op *op;
	ssize_t ro, reg;

	p.caches = caches;
	p.n_caches = 2;
	plan_build(&p, merged_host, &plan);
	op = must_find(&plan, CR_MOUNT_BIND, "/home/u/.npm");
	assert_string_equal(op->src, "/srv/ab");
	assert_true(op->flags & CR_MNT_WRITABLE);
	assert_false(op->flags & (CR_MNT_FILE | CR_MNT_PIN));
	ro = find_op(&plan, CR_MOUNT_BIND, "/home/u/.ssh");
	reg = find_op(&plan, CR_MOUNT_BIND, "/home/u/.ssh/registry");
	assert_true(ro >= 0 && reg > ro);
	assert_string_equal(plan.ops[reg].src, "/home/u/proj");
	assert_true(find_op(&plan, CR_MOUNT_TMPFS, "/home/u") < ro);
	cr_mount_plan_done(&plan);

	caches[1].dir = NULL;
	fake_host = merged_host;
	assert_int_equal(cr_mount_plan_build(&p, &fake_view, &plan), -EINVAL);
}

static void test_ro_rw_binds(void **state)
{
	struct cr_path_rule paths[] = {
		{ "/data/a", CR_PATH_RW },
		{ "/x", CR_PATH_RO },
		{ "/etc/passwd", CR_PATH_RO },
		{ "/home/u/.netrc", CR_PATH_RW },
	};
	struct cr_policy p = make_policy("/srv/ws", "/", paths, 4);
	struct cr_mount_plan plan;

	plan_build(&p, merged_host, &plan);
	expect_bind(must_find(&plan, CR_MOUNT_BIND, "/data/a"), "/data/a", true, false);
	expect_bind(must_find(&plan, CR_MOUNT_BIND, "/x"), "/x", false, false);
	expect_bind(must_find(&plan, CR_MOUNT_BIND, "/etc/passwd"), "/etc/passwd", false, true);
	expect_bind(must_find(&plan, CR_MOUNT_BIND, "/home/u/.netrc"), "/home/u/.netrc", true,
		    true);
	expect_bind(must_find(&plan, CR_MOUNT_BIND, "/srv/ws"), "/srv/ws", true, false);
	cr_mount_plan_done(&plan);
}

static void test_workspace_is_the_only_writable_bind(void **state)
{
	struct cr_path_rule paths[] = { { "/x", CR_PATH_RO } };
	struct cr_policy p = make_policy("/srv/ws", "/home/u", paths, 1);
	struct cr_mount_plan plan;
	size_t writable = 0;

	plan_build(&p, merged_host, &plan);
	for (size_t i = 0; i < plan.n_ops; i++)
		if (plan.ops[i].kind == CR_MOUNT_BIND && (plan.ops[i].flags & CR_MNT_WRITABLE)) {
			assert_string_equal(plan.ops[i].dst, "/srv/ws");
			writable++;
		}
	assert_int_equal(writable, 1);
	/* No host path is shown at a string prefix of it by accident. */
	assert_int_equal(count_dst(&plan, "/srv/ab"), 0);
	cr_mount_plan_done(&plan);
}

static void test_every_dst_absolute(void **state)
{
	struct cr_path_rule paths[] = {
		{ "/data/a/b/c", CR_PATH_RO },
		{ "/home/u/.ssh", CR_PATH_HIDE },
		{ "/home/u/.netrc", CR_PATH_HIDE },
		{ "/x", CR_PATH_RW },
	};
	const struct fake_entry *hosts[] = { merged_host, split_host };
	struct cr_mount_plan plan;

	for (size_t h = 0; h < 2; h++) {
		struct cr_policy p = make_policy("/srv/ws", "/home/u", paths, h == 0 ? 4 : 0);

		plan_build(&p, hosts[h], &plan);
		for (size_t i = 0; i < plan.n_ops; i++) {
			const struct cr_mount_op *op = &plan.ops[i];

			assert_non_null(op->dst);
			assert_int_equal(op->dst[0], '/');
			assert_true(op->kind < _CR_MOUNT_KIND_MAX);
			assert_true(op->src_fd < 0); /* opened in the child only */
			if (op->kind == CR_MOUNT_BIND || op->kind == CR_MOUNT_DEVICE ||
			    op->kind == CR_MOUNT_NULL)
				assert_true(op->src && op->src[0] == '/');
			if (op->kind == CR_MOUNT_SYMLINK)
				assert_non_null(op->src);
		}
		cr_mount_plan_done(&plan);
	}
}

static void test_plan_done(void **state)
{
	struct cr_policy p = make_policy("/srv/ws", "/home/u", NULL, 0);
	struct cr_mount_plan plan;

	plan_build(&p, merged_host, &plan);
	cr_mount_plan_done(&plan);
	assert_null(plan.ops);
	assert_int_equal(plan.n_ops, 0);
	cr_mount_plan_done(&plan); /* an empty plan is fine */
}

static size_t count_kind(const struct cr_mount_plan *plan, enum cr_mount_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < plan->n_ops; i++)
		n += plan->ops[i].kind == kind;
	return n;
}

static void test_machine_id(void **state)
{
	struct cr_policy p = make_policy("/srv/ws", "/home/u", NULL, 0);
	struct cr_mount_plan plan, again;
	const struct cr_mount_op *op;

	plan_build(&p, id_host, &plan);
	/* Last, so that no user path shows the host's again; read-only, a file. */
	op = &plan.ops[plan.n_ops - 1];
	assert_int_equal(op->kind, CR_MOUNT_TEXT);
	assert_string_equal(op->dst, "/etc/machine-id");
	assert_int_equal(op->flags, CR_MNT_FILE);
	assert_int_equal(strlen(op->src), 33);
	assert_int_equal(strspn(op->src, "0123456789abcdef"), 32);
	assert_int_equal(op->src[32], '\n');
	/* /var is not shown, and its copy is a link: nothing more. */
	assert_int_equal(count_kind(&plan, CR_MOUNT_TEXT), 1);
	/* Each plan (each sandbox) has its own. */
	plan_build(&p, id_host, &again);
	assert_string_not_equal(op->src, again.ops[again.n_ops - 1].src);
	cr_mount_plan_done(&again);
	cr_mount_plan_done(&plan);
}

static void test_machine_id_none(void **state)
{
	struct cr_policy p = make_policy("/srv/ws", "/home/u", NULL, 0);
	struct cr_mount_plan plan;

	/* The host has none: the sandbox has none either. */
	plan_build(&p, merged_host, &plan);
	assert_int_equal(count_kind(&plan, CR_MOUNT_TEXT), 0);
	cr_mount_plan_done(&plan);
}

static void test_machine_id_var_shown(void **state)
{
	struct cr_path_rule ro_var = { "/var", CR_PATH_RO };
	struct cr_path_rule rules[] = { { "/var", CR_PATH_RO }, { "/etc", CR_PATH_RO } };
	struct cr_policy p = make_policy("/srv/ws", "/home/u", &ro_var, 1);
	struct cr_mount_plan plan;
	ssize_t v, e;

	/* /etc's is a link to /var's: /var's is covered when shown, after the --ro /var. */
	plan_build(&p, id_var_host, &plan);
	assert_int_equal(count_kind(&plan, CR_MOUNT_TEXT), 1);
	v = find_op(&plan, CR_MOUNT_TEXT, "/var/lib/dbus/machine-id");
	assert_true(v > find_op(&plan, CR_MOUNT_BIND, "/var"));
	cr_mount_plan_done(&plan);

	/* Both files: one id for both; a --ro /etc does not bring the host's back. */
	p = make_policy("/srv/ws", "/home/u", rules, 2);
	fake_host = (const struct fake_entry[]){
		{ "/usr", FAKE_DIR, NULL },
		{ "/etc", FAKE_DIR, NULL },
		{ "/etc/machine-id", FAKE_FILE, NULL },
		{ "/var", FAKE_DIR, NULL },
		{ "/var/lib/dbus/machine-id", FAKE_FILE, NULL },
		{ "/srv/ws", FAKE_DIR, NULL },
		{ NULL, 0, NULL },
	};
	assert_int_equal(cr_mount_plan_build(&p, &fake_view, &plan), 0);
	e = find_op(&plan, CR_MOUNT_TEXT, "/etc/machine-id");
	v = find_op(&plan, CR_MOUNT_TEXT, "/var/lib/dbus/machine-id");
	assert_true(e > find_op(&plan, CR_MOUNT_BIND, "/var"));
	assert_true(e > (ssize_t)first_user_op(&plan, "/home/u"));
	assert_true(v > e);
	assert_string_equal(plan.ops[e].src, plan.ops[v].src);
	cr_mount_plan_done(&plan);
}

static void test_machine_id_hidden(void **state)
{
	struct cr_path_rule hide = { "/etc/machine-id", CR_PATH_HIDE };
	struct cr_policy p = make_policy("/srv/ws", "/home/u", &hide, 1);
	struct cr_mount_plan plan;

	/* --hide wins: /dev/null, not an id. */
	plan_build(&p, id_host, &plan);
	assert_int_equal(count_kind(&plan, CR_MOUNT_TEXT), 0);
	must_find(&plan, CR_MOUNT_NULL, "/etc/machine-id");
	cr_mount_plan_done(&plan);
}

/* --secret-file: a tmpfs at /run/secrets, sealed read-only (not writable), then each value as a
 * 0400 text file in it; an environment secret adds nothing to the plan. */
static void test_secret_files(void **state)
{
	struct cr_secret secrets[] = {
		{ .name = "TOKEN", .kind = CR_SECRET_ENV },
		{ .name = "tls.key", .value = "k3y\n", .kind = CR_SECRET_FILE },
		{ .name = "b", .value = "v", .kind = CR_SECRET_FILE },
	};
	struct cr_policy p = make_policy("/srv/ws", "/home/u", NULL, 0);
	struct cr_mount_plan plan;
	const struct cr_mount_op *dir, *key, *b;

	plan_build(&p, fake_host, &plan);
	assert_int_equal(find_op(&plan, CR_MOUNT_TMPFS, CR_SECRETS_DIR), -1); /* none: no tmpfs */
	cr_mount_plan_done(&plan);

	p.secrets = secrets;
	p.n_secrets = sizeof(secrets) / sizeof(secrets[0]);
	plan_build(&p, fake_host, &plan);
	dir = must_find(&plan, CR_MOUNT_TMPFS, "/run/secrets");
	key = must_find(&plan, CR_MOUNT_TEXT, "/run/secrets/tls.key");
	b = must_find(&plan, CR_MOUNT_TEXT, "/run/secrets/b");
	assert_true(dir < key && key < b);
	assert_int_equal(dir->mode, 0500);
	assert_int_equal(dir->flags, CR_MNT_SECRET); /* not writable: sealed */
	assert_int_equal(key->mode, 0400);
	assert_int_equal(key->flags, CR_MNT_FILE | CR_MNT_SECRET);
	assert_string_equal(key->src, "k3y\n");
	assert_int_equal(find_op(&plan, CR_MOUNT_TEXT, "/run/secrets/TOKEN"), -1);
	cr_mount_plan_done(&plan);
}

static void test_kind_names(void **state)
{
	assert_string_equal(cr_mount_kind_to_string(CR_MOUNT_BIND), "bind");
	assert_string_equal(cr_mount_kind_to_string(CR_MOUNT_TMPFS), "tmpfs");
	assert_string_equal(cr_mount_kind_to_string(CR_MOUNT_PROC), "proc");
	assert_string_equal(cr_mount_kind_to_string(CR_MOUNT_DEVPTS), "devpts");
	assert_string_equal(cr_mount_kind_to_string(CR_MOUNT_DEVICE), "device");
	assert_string_equal(cr_mount_kind_to_string(CR_MOUNT_SYMLINK), "symlink");
	assert_string_equal(cr_mount_kind_to_string(CR_MOUNT_NULL), "hide");
	assert_string_equal(cr_mount_kind_to_string(CR_MOUNT_RDONLY), "rdonly");
	assert_string_equal(cr_mount_kind_to_string(CR_MOUNT_TEXT), "text");
	assert_string_equal(cr_mount_kind_to_string(_CR_MOUNT_KIND_MAX), "?");
}

/* The real host view, on a scratch directory: a file is hidden by /dev/null, a dir by tmpfs. */
static void test_real_host_view(void **state)
{
	char tmpl[] = "/tmp/corral-unit-plan.XXXXXX";
	char base[PATH_MAX], file[PATH_MAX + 8], dir[PATH_MAX + 8], lnk[PATH_MAX + 8];
	struct cr_path_rule paths[2];
	struct cr_mount_plan plan;
	struct cr_policy p;
	char *target = NULL;
	int fd;

	assert_non_null(mkdtemp(tmpl));
	assert_non_null(realpath(tmpl, base));
	(void)snprintf(file, sizeof(file), "%s/f", base);
	(void)snprintf(dir, sizeof(dir), "%s/d", base);
	(void)snprintf(lnk, sizeof(lnk), "%s/l", base);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	(void)close(fd);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(symlink("d", lnk), 0);

	assert_true(cr_host_view_real.exists(file));
	assert_true(cr_host_view_real.is_dir(dir));
	assert_false(cr_host_view_real.is_dir(file));
	assert_int_equal(cr_host_view_real.readlink(lnk, &target), 0);
	assert_string_equal(target, "d");
	free(target);
	assert_int_equal(cr_host_view_real.readlink(dir, &target), -EINVAL);

	paths[0] = (struct cr_path_rule){ file, CR_PATH_HIDE };
	paths[1] = (struct cr_path_rule){ dir, CR_PATH_HIDE };
	p = make_policy(base, "/", paths, 2);
	assert_int_equal(cr_mount_plan_build(&p, &cr_host_view_real, &plan), 0);
	assert_true(find_op(&plan, CR_MOUNT_NULL, file) >= 0);
	assert_true(find_op(&plan, CR_MOUNT_TMPFS, dir) >= 0);
	cr_mount_plan_done(&plan);

	(void)unlink(lnk);
	(void)rmdir(dir);
	(void)unlink(file);
	(void)rmdir(base);
}

#define GIB (1ull << 30)
#define MIB (1ull << 20)

/* The plan with a private home and a hidden path: the hidden tmpfs and /dev stay unsized. */
static void sized_plan(struct cr_mount_plan *plan)
{
	static struct cr_path_rule rules[] = { { "/srv/ws/secret", CR_PATH_HIDE } };
	struct cr_policy p = make_policy("/srv/ws", "/home/u", rules, 1);

	plan_build(&p, merged_host, plan);
}

static uint64_t tmpfs_size(const struct cr_mount_plan *plan, const char *dst)
{
	return must_find(plan, CR_MOUNT_TMPFS, dst)->size;
}

static void expect_unsized_sealed(const struct cr_mount_plan *plan)
{
	for (size_t i = 0; i < plan->n_ops; i++)
		if (plan->ops[i].kind == CR_MOUNT_TMPFS && !(plan->ops[i].flags & CR_MNT_WRITABLE))
			assert_int_equal(plan->ops[i].size, 0);
}

/* No memory limit: /tmp, /dev/shm and $HOME share a quarter of the RAM. */
static void test_tmpfs_ram(void **state)
{
	struct cr_mount_plan plan;

	sized_plan(&plan);
	assert_int_equal(cr_mount_plan_size_tmpfs(&plan, 24 * GIB, CR_LIMIT_INFINITY, false),
			 CR_TMPFS_RAM);
	assert_int_equal(tmpfs_size(&plan, "/tmp"), 3 * GIB);
	assert_int_equal(tmpfs_size(&plan, "/dev/shm"), 1536 * MIB);
	assert_int_equal(tmpfs_size(&plan, "/home/u"), 1536 * MIB);
	assert_int_equal(must_find(&plan, CR_MOUNT_TMPFS, "/tmp")->nr_inodes, 3 * GIB / 8192);
	expect_unsized_sealed(&plan);
	/* A memory cgroup with no limit charges, but bounds nothing: the same. */
	assert_int_equal(cr_mount_plan_size_tmpfs(&plan, 24 * GIB, CR_LIMIT_UNSET, true),
			 CR_TMPFS_RAM);
	assert_int_equal(tmpfs_size(&plan, "/tmp"), 3 * GIB);
	cr_mount_plan_done(&plan);
}

/* A memory cgroup is charged for the pages: each mount may take the limit, never more than half
 * the RAM. */
static void test_tmpfs_cgroup(void **state)
{
	struct cr_mount_plan plan;

	sized_plan(&plan);
	assert_int_equal(cr_mount_plan_size_tmpfs(&plan, 24 * GIB, 64 * MIB, true),
			 CR_TMPFS_CGROUP);
	assert_int_equal(tmpfs_size(&plan, "/tmp"), 64 * MIB);
	assert_int_equal(tmpfs_size(&plan, "/dev/shm"), 64 * MIB);
	assert_int_equal(tmpfs_size(&plan, "/home/u"), 64 * MIB);
	assert_int_equal(cr_mount_plan_size_tmpfs(&plan, 24 * GIB, 100 * GIB, true),
			 CR_TMPFS_CGROUP);
	assert_int_equal(tmpfs_size(&plan, "/tmp"), 12 * GIB);
	expect_unsized_sealed(&plan);
	cr_mount_plan_done(&plan);
}

/* A limit only an rlimit holds (RLIMIT_AS does not count tmpfs pages): the sizes add up to the
 * limit, or to a quarter of the RAM if that is less. */
static void test_tmpfs_shared(void **state)
{
	struct cr_mount_plan plan;

	sized_plan(&plan);
	assert_int_equal(cr_mount_plan_size_tmpfs(&plan, 24 * GIB, 256 * MIB, false),
			 CR_TMPFS_SHARED);
	assert_int_equal(tmpfs_size(&plan, "/tmp"), 128 * MIB);
	assert_int_equal(tmpfs_size(&plan, "/dev/shm"), 64 * MIB);
	assert_int_equal(tmpfs_size(&plan, "/home/u"), 64 * MIB);
	assert_int_equal(must_find(&plan, CR_MOUNT_TMPFS, "/dev/shm")->nr_inodes, 8192);
	assert_int_equal(cr_mount_plan_size_tmpfs(&plan, 24 * GIB, 20 * GIB, false),
			 CR_TMPFS_SHARED);
	assert_int_equal(tmpfs_size(&plan, "/tmp") + tmpfs_size(&plan, "/dev/shm") +
				 tmpfs_size(&plan, "/home/u"),
			 6 * GIB);
	expect_unsized_sealed(&plan);
	cr_mount_plan_done(&plan);
}

/* Never size=0, which tmpfs takes as no limit at all; whole pages; a floor of inodes. */
static void test_tmpfs_tiny(void **state)
{
	struct cr_mount_plan plan;

	sized_plan(&plan);
	(void)cr_mount_plan_size_tmpfs(&plan, 24 * GIB, 4096, false);
	assert_int_equal(tmpfs_size(&plan, "/tmp"), 4096);
	assert_int_equal(tmpfs_size(&plan, "/home/u"), 4096);
	assert_int_equal(must_find(&plan, CR_MOUNT_TMPFS, "/tmp")->nr_inodes, 1024);
	(void)cr_mount_plan_size_tmpfs(&plan, 24 * GIB, 10 * MIB + 123, false);
	assert_int_equal(tmpfs_size(&plan, "/tmp") % 4096, 0);
	assert_true(tmpfs_size(&plan, "/tmp") <= 5 * MIB + 62);
	/* RAM unknown: still bounded. */
	(void)cr_mount_plan_size_tmpfs(&plan, 0, CR_LIMIT_INFINITY, false);
	assert_int_equal(tmpfs_size(&plan, "/tmp"), CR_DEFAULT_MEMORY_MIN / 8);
	assert_string_equal(cr_tmpfs_basis_to_string(CR_TMPFS_CGROUP), "memory_cgroup");
	cr_mount_plan_done(&plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merged_usr),
		cmocka_unit_test(test_split_usr),
		cmocka_unit_test(test_proc),
		cmocka_unit_test(test_dev),
		cmocka_unit_test(test_tmp),
		cmocka_unit_test(test_home_private),
		cmocka_unit_test(test_home_root_not_covered),
		cmocka_unit_test(test_home_tmp),
		cmocka_unit_test(test_workspace_inside_home),
		cmocka_unit_test(test_home_inside_workspace),
		cmocka_unit_test(test_home_inside_shown_path),
		cmocka_unit_test(test_home_hidden_paths_inside),
		cmocka_unit_test(test_user_paths_parent_first),
		cmocka_unit_test(test_user_paths_equal_depth_keep_order),
		cmocka_unit_test(test_same_path_later_rule_wins),
		cmocka_unit_test(test_hide),
		cmocka_unit_test(test_ro_rw_binds),
		cmocka_unit_test(test_caches),
		cmocka_unit_test(test_workspace_is_the_only_writable_bind),
		cmocka_unit_test(test_every_dst_absolute),
		cmocka_unit_test(test_plan_done),
		cmocka_unit_test(test_machine_id),
		cmocka_unit_test(test_machine_id_none),
		cmocka_unit_test(test_machine_id_var_shown),
		cmocka_unit_test(test_machine_id_hidden),
		cmocka_unit_test(test_secret_files),
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_real_host_view),
		cmocka_unit_test(test_tmpfs_ram),
		cmocka_unit_test(test_tmpfs_cgroup),
		cmocka_unit_test(test_tmpfs_shared),
		cmocka_unit_test(test_tmpfs_tiny),
	};

	return cmocka_run_group_tests_name("mount-plan", tests, NULL, NULL);
}
