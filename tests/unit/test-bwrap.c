/* SPDX-License-Identifier: MIT */
/* launcher/bwrap/args.c: bwrap's command line to a policy; ns/mount-plan-explicit.c: that
 * policy's filesystem operations to the mount plan. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "launcher/base/macro.h"
#include "launcher/bwrap/args.h"
#include "launcher/bwrap/bwrap-conf.h"
#include "ns/mount-plan.h"

static char msg[512];

static int parse(struct cr_bwrap *b, uint32_t uid, enum cr_bwrap_mode mode, ...)
{
	char *argv[64] = { (char *)"bwrap" };
	int argc = 1;
	va_list ap;

	va_start(ap, mode);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	return cr_bwrap_parse(argc, argv, uid, uid, uid == 0 ? 0xffull : 0, mode, b, msg,
			      sizeof(msg));
}

static void test_script_in_order(void **state)
{
	struct cr_bwrap b;

	assert_int_equal(parse(&b, 1000, CR_BWRAP_COMPAT, "--ro-bind", "/", "/", "--perms", "0700",
			       "--tmpfs", "/tmp", "--size", "4096", "--tmpfs", "/run", "--dir", "/d",
			       "--symlink", "usr/bin", "/bin", "--bind-try", "/nope", "/n", "--proc",
			       "/proc", "--dev", "/dev", "--", "true", NULL),
			 0);
	assert_true(b.policy.ex.on);
	assert_int_equal(b.policy.n_fs_ops, 8);
	assert_int_equal(b.policy.fs_ops[0].kind, CR_FS_BIND);
	assert_int_equal(b.policy.fs_ops[0].flags, CR_FS_RO);
	assert_int_equal(b.policy.fs_ops[1].mode, 0700);
	assert_int_equal(b.policy.fs_ops[1].size, 0);
	assert_int_equal(b.policy.fs_ops[2].size, 4096);
	assert_int_equal(b.policy.fs_ops[2].mode, CR_FS_MODE_UNSET); /* --perms: the next only */
	assert_int_equal(b.policy.fs_ops[3].kind, CR_FS_DIR);
	assert_string_equal(b.policy.fs_ops[4].src, "usr/bin");
	assert_int_equal(b.policy.fs_ops[5].flags, CR_FS_TRY);
	assert_string_equal(b.policy.argv[0], "true");
	/* not root: a user namespace, always */
	assert_true(b.policy.ex.namespaces & CR_NS_USER);
	assert_int_equal(b.policy.ex.uid, 1000);
	assert_int_equal(b.policy.ex.caps, 0);
	cr_bwrap_done(&b);
}

static void test_namespaces(void **state)
{
	struct cr_bwrap b;

	assert_int_equal(parse(&b, 0, CR_BWRAP_COMPAT, "--unshare-all", "--share-net", "true", NULL),
			 0);
	assert_true(b.policy.ex.namespaces & CR_NS_PID);
	assert_false(b.policy.ex.namespaces & CR_NS_NET);
	assert_int_equal(b.policy.net, CR_NET_HOST);
	/* root keeps its capabilities in compat mode, as bwrap */
	assert_int_equal(b.policy.ex.caps, 0xff);
	cr_bwrap_done(&b);
	assert_int_equal(parse(&b, 0, CR_BWRAP_HARDENED, "--cap-add", "CAP_NET_ADMIN", "true", NULL),
			 0);
	assert_int_equal(b.policy.ex.caps, 1ull << 12); /* hardened: only what --cap-add names */
	cr_bwrap_done(&b);
	assert_int_equal(parse(&b, 0, CR_BWRAP_COMPAT, "--cap-drop", "ALL", "--unshare-net", "true",
			       NULL),
			 0);
	assert_int_equal(b.policy.ex.caps, 0);
	assert_int_equal(b.policy.net, CR_NET_NONE);
	cr_bwrap_done(&b);
}

/* Each refusal, with bwrap's message. */
static void test_errors(void **state)
{
	static const struct {
		const char *args[6];
		const char *message;
	} cases[] = {
		{ { "--bogus", "true" }, "Unknown option --bogus" },
		{ { "--bind", "/" }, "--bind takes two arguments" },
		{ { "--tmpfs" }, "--tmpfs takes an argument" },
		{ { "--perms", "0640", "--perms", "0640", "--tmpfs", "/a" },
		  "--perms given twice for the same action" },
		{ { "--size", "0", "--tmpfs", "/a", "true" }, "Invalid size \"0\"" },
		{ { "--size", "123bogus", "--tmpfs", "/a" }, "Invalid size \"123bogus\"" },
		{ { "--size", "18446744073709551616", "--tmpfs", "/a" },
		  "Invalid size \"18446744073709551616\"" },
		{ { "--perms", "9", "--tmpfs", "/a" },
		  "Permissions \"9\" are not a valid 4-digit octal number" },
		{ { "--as-pid-1", "true" }, "Specifying --as-pid-1 requires --unshare-pid" },
		{ { "--hostname", "x", "true" }, "Specifying --hostname requires --unshare-uts" },
		{ { "--overlay-src", "/a", "true" },
		  "--overlay-src must be followed by another --overlay-src or one of --overlay, --tmp-overlay, or --ro-overlay" },
		{ { "--ro-overlay", "/x", "true" }, "--ro-overlay requires at least two --overlay-src" },
		{ { "--seccomp", "0a", "true" }, "Invalid fd: 0a" },
		{ { "--add-seccomp-fd", "-1", "true" }, "Invalid fd: -1" },
		{ { "--ro-bind", "/", "/" }, "No command specified" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char *argv[8] = { (char *)"bwrap" };
		struct cr_bwrap b;
		int argc = 1;

		for (size_t j = 0; j < 6 && cases[i].args[j]; j++)
			argv[argc++] = (char *)cases[i].args[j];
		assert_true(cr_bwrap_parse(argc, argv, 1000, 1000, 0, CR_BWRAP_COMPAT, &b, msg,
					   sizeof(msg)) < 0);
		assert_string_equal(msg, cases[i].message);
		cr_bwrap_done(&b);
	}
}

/* --args FD: the options it holds, in its place; --file FD: the data read at once. */
static void test_fds(void **state)
{
	static const char args[] = "--dir\0/a\0--dir\0/b\0";
	char fd_args[16], fd_data[16];
	int p[2], q[2];
	struct cr_bwrap b;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], args, sizeof(args) - 1), (ssize_t)sizeof(args) - 1);
	(void)close(p[1]);
	assert_int_equal(pipe(q), 0);
	assert_int_equal(write(q[1], "a\0b", 3), 3);
	(void)close(q[1]);
	(void)snprintf(fd_args, sizeof(fd_args), "%d", p[0]);
	(void)snprintf(fd_data, sizeof(fd_data), "%d", q[0]);
	assert_int_equal(parse(&b, 1000, CR_BWRAP_COMPAT, "--tmpfs", "/", "--args", fd_args,
			       "--perms", "0600", "--file", fd_data, "/f", "true", NULL),
			 0);
	assert_int_equal(b.policy.n_fs_ops, 4);
	assert_string_equal(b.policy.fs_ops[1].dst, "/a");
	assert_string_equal(b.policy.fs_ops[2].dst, "/b");
	assert_int_equal(b.policy.fs_ops[3].kind, CR_FS_FILE);
	assert_int_equal(b.policy.fs_ops[3].size, 3);
	assert_memory_equal(b.policy.fs_ops[3].src, "a\0b", 3);
	assert_int_equal(b.policy.fs_ops[3].mode, 0600);
	(void)close(p[0]);
	cr_bwrap_done(&b);
}

static bool always(const char *path)
{
	return path != NULL;
}

static int no_link(const char *path, char **ret)
{
	return -EINVAL;
}

static const struct cr_host_view host = { .readlink = no_link, .exists = always, .is_dir = always };

/* The plan: the operations in order; --proc in the caller's pid namespace is its /proc bound;
 * hardened adds /proc's knobs read-only at the end, but for a --proc /proc that is already the
 * end. */
static void test_plan(void **state)
{
	struct cr_mount_plan plan;
	struct cr_bwrap b;

	assert_int_equal(parse(&b, 1000, CR_BWRAP_COMPAT, "--bind", "/", "/", "--proc", "/proc",
			       "true", NULL),
			 0);
	assert_int_equal(cr_mount_plan_build(&b.policy, &host, &plan), 0);
	assert_int_equal(plan.ops[0].kind, CR_MOUNT_BIND);
	assert_true(plan.ops[0].flags & CR_MNT_WRITABLE);
	assert_int_equal(plan.ops[1].kind, CR_MOUNT_BIND);
	assert_string_equal(plan.ops[1].src, "/proc");
	assert_int_equal(plan.ops[2].kind, CR_MOUNT_RDONLY);
	assert_string_equal(plan.ops[2].dst, "/proc/sys");
	assert_int_equal(plan.n_ops, 6);
	cr_mount_plan_done(&plan);
	b.policy.ex.namespaces |= CR_NS_PID;
	b.policy.ex.harden_proc = true;
	assert_int_equal(cr_mount_plan_build(&b.policy, &host, &plan), 0);
	assert_int_equal(plan.ops[1].kind, CR_MOUNT_PROC);
	assert_int_equal(plan.n_ops, 6);
	assert_string_equal(plan.ops[5].dst, "/proc/bus");
	cr_mount_plan_done(&plan);
	cr_bwrap_done(&b);

	/* Anything after the --proc (here a bind over a knob) and the knobs come again, last. */
	assert_int_equal(parse(&b, 1000, CR_BWRAP_COMPAT, "--bind", "/", "/", "--proc", "/proc",
			       "--bind", "/x", "/proc/sys", "true", NULL),
			 0);
	b.policy.ex.namespaces |= CR_NS_PID;
	b.policy.ex.harden_proc = true;
	assert_int_equal(cr_mount_plan_build(&b.policy, &host, &plan), 0);
	assert_int_equal(plan.n_ops, 11);
	assert_int_equal(plan.ops[6].kind, CR_MOUNT_BIND);
	assert_int_equal(plan.ops[7].kind, CR_MOUNT_RDONLY);
	assert_string_equal(plan.ops[7].dst, "/proc/sys");
	assert_string_equal(plan.ops[10].dst, "/proc/bus");
	cr_mount_plan_done(&plan);
	cr_bwrap_done(&b);
}

/* bwrap.conf: comments, blank lines and both keys read; a typo'd key, a malformed line and a bad
 * value refused with the file, the line and the key. */
static void test_conf(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "mdoe = compat\n", "F:1: unknown key 'mdoe' (bwrap.conf has: mode, pool)" },
		{ "# c\nmode compat\n", "F:2: expected KEY = VALUE" },
		{ "mode = compat extra\n", "F:1: expected KEY = VALUE" },
		{ "mode =\n", "F:1: expected KEY = VALUE" },
		{ "= compat\n", "F:1: expected KEY = VALUE" },
		{ "Mode = compat\n", "F:1: expected KEY = VALUE" },
		{ "mode = compat\x01\n", "F:1: expected KEY = VALUE" },
		{ "\n\npool = sometimes\n", "F:3: pool = sometimes: use auto, require or never" },
		{ "mode = lax", "F:1: mode = lax: use compat or hardened" },
	};
	static const char good[] = "# the door\n\n  ; pool\n\tmode = compat \r\npool=never\n"
				   "mode = hardened";
	struct cr_bwrap_conf c;
	char why[256];

	(void)state;
	assert_int_equal(cr_bwrap_conf_parse(good, sizeof(good) - 1, "F", &c, why, sizeof(why)),
			 0);
	assert_true(c.has_mode && c.has_pool);
	assert_int_equal(c.mode, CR_BWRAP_HARDENED); /* the last line of a key counts */
	assert_int_equal(c.pool, CR_POOL_NEVER);
	assert_int_equal(cr_bwrap_conf_parse("", 0, "F", &c, why, sizeof(why)), 0);
	assert_false(c.has_mode || c.has_pool);
	assert_int_equal(cr_bwrap_conf_parse("mode = compat\0x\n", 16, "F", &c, why, sizeof(why)),
			 -EINVAL);
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		assert_int_equal(cr_bwrap_conf_parse(bad[i].text, strlen(bad[i].text), "F", &c, why,
						     sizeof(why)),
				 -EINVAL);
		if (strncmp(why, bad[i].why, strlen(bad[i].why)) != 0)
			fail_msg("%s: got '%s'", bad[i].text, why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_script_in_order),
		cmocka_unit_test(test_namespaces),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_fds),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_conf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
