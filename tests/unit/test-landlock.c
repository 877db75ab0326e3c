/* SPDX-License-Identifier: MIT */
/* Unit tests for landlock/ (and the port lists of launcher/policy/ports.c) against a faked syscall layer
 * (tests/fakes/fake-landlock-sys.c): the ABI masks for every ABI 1-7, refusals, rules on files and
 * directories, port rules, the rules derived from a mount plan, and the JSON report. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/policy/policy-build.h"
#include "fakes/fake-landlock-sys.h"
#include "landlock/landlock-internal.h"
#include "ns/landlock-rules.h"
#include "launcher/policy/cli.h"
#include "launcher/base/macro.h"
#include "ns/mount-plan.h"
#include "launcher/policy/policy.h"
#include "launcher/policy/ports.h"

/* The test hook, defined here as corral-test-hooks defines it (landlock-internal.h). */
static const char *test_omit;

const char *cr_landlock_test_omit(void)
{
	return test_omit;
}

#define FS_ABI1      \
	(LL_FS_ALL & \
	 ~(LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV))
#define TCP    (LANDLOCK_ACCESS_NET_CONNECT_TCP | LANDLOCK_ACCESS_NET_BIND_TCP)
#define SCOPES (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL)

static struct cr_port_range port_443[] = { { 443, 443 } };
static struct cr_port_range ports_web[] = { { 80, 80 }, { 8000, 8002 } };
static struct cr_port_range port_any[] = { { 0, 0 } };

static struct cr_policy policy(enum cr_landlock_mode mode)
{
	return (struct cr_policy){ .landlock = mode, .net = CR_NET_NONE };
}

static struct cr_landlock_plan init_ok(const struct cr_policy *p, int abi, bool deny_tcp)
{
	struct cr_landlock_plan plan;
	char msg[512] = "";

	if (cr_landlock_plan_init(p, abi, deny_tcp, &plan, msg, sizeof(msg)) != 0)
		fail_msg("refused at ABI %d: %s", abi, msg);
	return plan;
}

static void dropped(const struct cr_landlock_plan *plan, const char *want)
{
	char buf[512];

	(void)cr_landlock_dropped_text(plan, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

/* ---- the ABI probe and the masks ---- */

static void test_abi_probe(void **state)
{
	for (int abi = 0; abi <= 8; abi++) {
		fake_ll_reset(abi);
		assert_int_equal(cr_landlock_abi(), abi);
	}
}

static void test_known_masks(void **state)
{
	static const uint64_t fs[] = {
		[0] = 0,
		[1] = FS_ABI1,
		[2] = FS_ABI1 | LANDLOCK_ACCESS_FS_REFER,
		[3] = LL_FS_ALL & ~LANDLOCK_ACCESS_FS_IOCTL_DEV,
		[4] = LL_FS_ALL & ~LANDLOCK_ACCESS_FS_IOCTL_DEV,
		[5] = LL_FS_ALL,
		[6] = LL_FS_ALL,
		[7] = LL_FS_ALL,
	};

	for (int abi = 0; abi <= 7; abi++) {
		assert_int_equal(landlock_known(CR_LL_FS, abi), fs[abi]);
		assert_int_equal(landlock_known(CR_LL_NET, abi), abi >= 4 ? TCP : 0);
		assert_int_equal(landlock_known(CR_LL_SCOPE, abi), abi >= 6 ? SCOPES : 0);
		assert_int_equal(landlock_known(CR_LL_LOG, abi),
				 abi >= 7 ? LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON : 0);
	}
	/* A newer kernel is used at the level corral knows. */
	assert_int_equal(landlock_known(CR_LL_FS, 9), LL_FS_ALL);
	/* The 16 rights of ABI 5, each with the ABI that brought it. */
	assert_int_equal(__builtin_popcountll(LL_FS_ALL), 16);
	assert_int_equal(landlock_attr_size(1), 8);
	assert_int_equal(landlock_attr_size(3), 8);
	assert_int_equal(landlock_attr_size(4), 16);
	assert_int_equal(landlock_attr_size(5), 16);
	assert_int_equal(landlock_attr_size(6), 24);
	assert_int_equal(landlock_attr_size(7), 24);
}

/* The default policy (best-effort, no port options) at every ABI: what is handled, and what is
 * dropped, by name. */
static void test_plan_every_abi(void **state)
{
	static const char *const want_dropped[] = {
		[1] = "fs.refer, fs.truncate, fs.ioctl_dev, scope.abstract_unix_socket, scope.signal, log.new_exec_on",
		[2] = "fs.truncate, fs.ioctl_dev, scope.abstract_unix_socket, scope.signal, log.new_exec_on",
		[3] = "fs.ioctl_dev, scope.abstract_unix_socket, scope.signal, log.new_exec_on",
		[4] = "fs.ioctl_dev, scope.abstract_unix_socket, scope.signal, log.new_exec_on",
		[5] = "scope.abstract_unix_socket, scope.signal, log.new_exec_on",
		[6] = "log.new_exec_on",
		[7] = "",
	};
	struct cr_policy p = policy(CR_LANDLOCK_BEST_EFFORT);

	for (int abi = 1; abi <= 7; abi++) {
		struct cr_landlock_plan plan;

		fake_ll_reset(abi);
		plan = init_ok(&p, cr_landlock_abi(), false);
		assert_true(plan.enabled);
		assert_int_equal(plan.abi, abi);
		assert_int_equal(plan.wanted[CR_LL_FS], LL_FS_ALL);
		assert_int_equal(plan.handled[CR_LL_FS], landlock_known(CR_LL_FS, abi));
		assert_int_equal(plan.wanted[CR_LL_NET], 0); /* no --tcp-*: TCP is not restricted */
		assert_int_equal(plan.handled[CR_LL_NET], 0);
		assert_int_equal(plan.handled[CR_LL_SCOPE], abi >= 6 ? SCOPES : 0);
		assert_int_equal(plan.handled[CR_LL_LOG],
				 abi >= 7 ? LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON : 0);
		dropped(&plan, want_dropped[abi]);
		cr_landlock_plan_done(&plan);
	}
}

static void test_plan_tcp(void **state)
{
	struct cr_policy p = policy(CR_LANDLOCK_BEST_EFFORT);
	struct cr_landlock_plan plan;

	p.tcp_connect = port_443;
	p.n_tcp_connect = 1;
	plan = init_ok(&p, 3, false);
	assert_int_equal(plan.wanted[CR_LL_NET], LANDLOCK_ACCESS_NET_CONNECT_TCP);
	assert_int_equal(plan.handled[CR_LL_NET], 0);
	dropped(&plan, "fs.ioctl_dev, net.connect_tcp, scope.abstract_unix_socket, scope.signal, log.new_exec_on");
	plan = init_ok(&p, 4, false);
	assert_int_equal(plan.handled[CR_LL_NET], LANDLOCK_ACCESS_NET_CONNECT_TCP);
	assert_ptr_equal(plan.tcp_connect, port_443);
	assert_int_equal(plan.n_tcp_connect, 1);
	assert_null(plan.tcp_bind);

	p.tcp_bind = port_any;
	p.n_tcp_bind = 1;
	plan = init_ok(&p, 7, false);
	assert_int_equal(plan.handled[CR_LL_NET], TCP);
	dropped(&plan, "");

	/* Degraded with --net=none: all TCP denied, the port lists do not widen it. */
	plan = init_ok(&p, 4, true);
	assert_int_equal(plan.handled[CR_LL_NET], TCP);
	assert_int_equal(plan.n_tcp_connect, 0);
	assert_int_equal(plan.n_tcp_bind, 0);
	plan = init_ok(&p, 2, true);
	dropped(&plan, "fs.truncate, fs.ioctl_dev, net.bind_tcp, net.connect_tcp, scope.abstract_unix_socket, scope.signal, log.new_exec_on");
}

static void test_plan_required(void **state)
{
	struct cr_policy p = policy(CR_LANDLOCK_REQUIRED);
	struct cr_landlock_plan plan = { .abi = -1 };
	char msg[512] = "";

	for (int abi = 0; abi <= 5; abi++) {
		msg[0] = '\0';
		assert_int_equal(cr_landlock_plan_init(&p, abi, false, &plan, msg, sizeof(msg)),
				 -EOPNOTSUPP);
		assert_int_equal(plan.abi, -1); /* untouched on failure */
		assert_non_null(strstr(msg, "--landlock=required"));
		if (abi > 0)
			assert_non_null(strstr(msg, "scope.signal (ABI 6)"));
	}
	assert_non_null(strstr(msg, "ABI 5 lacks scope.abstract_unix_socket (ABI 6), scope.signal (ABI 6), which the policy needs"));
	/* The logging flag is not access control: ABI 6 is enough. */
	plan = init_ok(&p, 6, false);
	assert_true(plan.enabled);
	dropped(&plan, "log.new_exec_on");
	plan = init_ok(&p, 7, false);
	/* A TCP restriction the kernel cannot enforce is refused too. */
	p.tcp_bind = port_any;
	p.n_tcp_bind = 1;
	assert_int_equal(cr_landlock_plan_init(&p, 6, false, &plan, msg, sizeof(msg)), 0);
	assert_int_equal(cr_landlock_plan_init(&p, 3, false, &plan, msg, sizeof(msg)), -EOPNOTSUPP);
	assert_non_null(strstr(msg, "net.bind_tcp (ABI 4)"));
}

static void test_plan_min_abi(void **state)
{
	struct cr_policy p = policy(CR_LANDLOCK_BEST_EFFORT);
	struct cr_landlock_plan plan;
	char msg[512];

	for (int min = 1; min <= 7; min++)
		for (int abi = 0; abi <= 7; abi++) {
			int r;

			p.landlock_min_abi = min;
			msg[0] = '\0';
			r = cr_landlock_plan_init(&p, abi, false, &plan, msg, sizeof(msg));
			if (abi >= min) {
				assert_int_equal(r, 0);
				cr_landlock_plan_done(&plan);
				continue;
			}
			assert_int_equal(r, -EOPNOTSUPP);
			assert_non_null(strstr(msg, "--landlock-min-abi"));
		}
	p.landlock_min_abi = 6;
	assert_int_equal(cr_landlock_plan_init(&p, 2, false, &plan, msg, sizeof(msg)), -EOPNOTSUPP);
	assert_string_equal(
		msg,
		"--landlock-min-abi 6: this kernel's Landlock ABI is 2, which lacks fs.truncate (ABI 3), fs.ioctl_dev (ABI 5), net.bind_tcp (ABI 4), net.connect_tcp (ABI 4), scope.abstract_unix_socket (ABI 6), scope.signal (ABI 6)");
	assert_int_equal(cr_landlock_plan_init(&p, 0, false, &plan, msg, sizeof(msg)), -EOPNOTSUPP);
	assert_non_null(strstr(msg, "Landlock is not available"));
}

static void test_plan_off_and_unavailable(void **state)
{
	struct cr_policy p = policy(CR_LANDLOCK_OFF);
	struct cr_landlock_plan plan;

	for (int abi = 0; abi <= 7; abi++) {
		plan = init_ok(&p, abi, true);
		assert_false(plan.enabled);
		for (int k = 0; k < _CR_LL_KIND_MAX; k++) {
			assert_int_equal(plan.wanted[k], 0);
			assert_int_equal(plan.handled[k], 0);
		}
		dropped(&plan, "");
	}
	/* best-effort on a kernel without Landlock: nothing applied, everything reported. */
	p = policy(CR_LANDLOCK_BEST_EFFORT);
	plan = init_ok(&p, 0, false);
	assert_false(plan.enabled);
	assert_int_equal(plan.handled[CR_LL_FS], 0);
	assert_int_equal(cr_landlock_dropped_text(&plan, (char[8]){}, 8), 16 + 2 + 1);
}

static void test_lacking_text(void **state)
{
	char buf[512];

	cr_landlock_lacking_text(7, 7, buf, sizeof(buf));
	assert_string_equal(buf, "");
	cr_landlock_lacking_text(6, 7, buf, sizeof(buf));
	assert_string_equal(buf, "log.new_exec_on (ABI 7)");
	cr_landlock_lacking_text(4, 6, buf, sizeof(buf));
	assert_string_equal(
		buf,
		"fs.ioctl_dev (ABI 5), scope.abstract_unix_socket (ABI 6), scope.signal (ABI 6)");
	cr_landlock_lacking_text(9, 7, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

/* ---- applying: the ruleset, files vs directories ---- */

struct tree {
	char dir[64];
	char sub[96], file[96], missing[96];
};

static int tree_setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	int fd;

	assert_non_null(t);
	(void)snprintf(t->dir, sizeof(t->dir), "/tmp/test-landlock.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	(void)snprintf(t->sub, sizeof(t->sub), "%s/sub", t->dir);
	(void)snprintf(t->file, sizeof(t->file), "%s/file", t->dir);
	(void)snprintf(t->missing, sizeof(t->missing), "%s/missing", t->dir);
	assert_int_equal(mkdir(t->sub, 0755), 0);
	fd = open(t->file, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	(void)close(fd);
	*state = t;
	return 0;
}

static int tree_teardown(void **state)
{
	struct tree *t = *state;

	(void)unlink(t->file);
	(void)rmdir(t->sub);
	(void)rmdir(t->dir);
	free(t);
	return 0;
}

static struct cr_landlock_plan apply_plan(int abi)
{
	struct cr_policy p = policy(CR_LANDLOCK_BEST_EFFORT);

	fake_ll_reset(abi);
	return init_ok(&p, cr_landlock_abi(), false);
}

static void test_apply_files_and_dirs(void **state)
{
	struct tree *t = *state;
	struct cr_landlock_plan plan = apply_plan(7);
	const struct fake_ll_rule *r;
	char detail[200] = "";

	assert_int_equal(cr_landlock_plan_add(&plan, t->sub, LL_FS_RW, false), 0);
	assert_int_equal(cr_landlock_plan_add(&plan, t->file, LL_FS_RW, false), 0);
	assert_int_equal(cr_landlock_plan_add(&plan, t->missing, LL_FS_RO, true), 0);
	assert_int_equal(cr_landlock_apply(&plan, NULL, 0, detail, sizeof(detail)), 0);
	assert_int_equal(fake_ll.n_create, 1);
	assert_int_equal(fake_ll.attr_size, 24);
	assert_int_equal(fake_ll.attr.handled_access_fs, LL_FS_ALL);
	assert_int_equal(fake_ll.attr.handled_access_net, 0);
	assert_int_equal(fake_ll.attr.scoped, SCOPES);
	assert_int_equal(fake_ll.n_restrict, 1);
	assert_int_equal(fake_ll.restrict_flags, LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON);
	/* A directory keeps every right it was given; a file only the file rights. */
	r = fake_ll_rule_for(t->sub);
	assert_non_null(r);
	assert_true(r->is_dir);
	assert_int_equal(r->access, LL_FS_RW);
	r = fake_ll_rule_for(t->file);
	assert_non_null(r);
	assert_false(r->is_dir);
	assert_int_equal(r->access, LL_FS_RW & LL_FS_FILE);
	assert_int_equal(r->access, LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
					    LANDLOCK_ACCESS_FS_WRITE_FILE |
					    LANDLOCK_ACCESS_FS_TRUNCATE);
	cr_landlock_plan_done(&plan);

	/* A rule that leaves nothing on a file (list a directory) is not made at all. */
	plan = apply_plan(7);
	assert_int_equal(cr_landlock_plan_add(&plan, t->file, LL_FS_LIST, false), 0);
	assert_int_equal(cr_landlock_apply(&plan, NULL, 0, detail, sizeof(detail)), 0);
	assert_null(fake_ll_rule_for(t->file));
	cr_landlock_plan_done(&plan);

	/* A missing path that is not optional fails, and says which. */
	plan = apply_plan(7);
	assert_int_equal(cr_landlock_plan_add(&plan, t->missing, LL_FS_RO, false), 0);
	assert_int_equal(cr_landlock_apply(&plan, NULL, 0, detail, sizeof(detail)), -ENOENT);
	assert_non_null(strstr(detail, t->missing));
	assert_int_equal(fake_ll.n_restrict, 0);
	cr_landlock_plan_done(&plan);
}

/* At ABI 2 the ruleset is the ABI 1 size, without TRUNCATE or IOCTL_DEV, and restrict_self gets
 * no flag; the rights a rule asks for are masked the same way. */
static void test_apply_old_abi(void **state)
{
	struct tree *t = *state;
	struct cr_landlock_plan plan;
	char detail[200] = "";

	for (int abi = 1; abi <= 7; abi++) {
		const struct fake_ll_rule *r;

		plan = apply_plan(abi);
		assert_int_equal(cr_landlock_plan_add(&plan, t->sub, LL_FS_RW, false), 0);
		assert_int_equal(cr_landlock_plan_add(&plan, t->file, LL_FS_DEVICE, false), 0);
		assert_int_equal(cr_landlock_apply(&plan, NULL, 0, detail, sizeof(detail)), 0);
		assert_int_equal(fake_ll.attr_size, landlock_attr_size(abi));
		assert_int_equal(fake_ll.attr.handled_access_fs, landlock_known(CR_LL_FS, abi));
		assert_int_equal(fake_ll.attr.scoped, abi >= 6 ? SCOPES : 0);
		assert_int_equal(fake_ll.restrict_flags,
				 abi >= 7 ? LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON : 0);
		r = fake_ll_rule_for(t->sub);
		assert_non_null(r);
		assert_int_equal(r->access, LL_FS_RW & landlock_known(CR_LL_FS, abi));
		r = fake_ll_rule_for(t->file);
		assert_non_null(r);
		assert_int_equal(r->access,
				 LL_FS_DEVICE & LL_FS_FILE & landlock_known(CR_LL_FS, abi));
		cr_landlock_plan_done(&plan);
	}
}

static void test_apply_disabled_and_failures(void **state)
{
	struct cr_policy p = policy(CR_LANDLOCK_OFF);
	struct cr_landlock_plan plan;
	char detail[200] = "";

	fake_ll_reset(7);
	plan = init_ok(&p, 7, false);
	assert_int_equal(cr_landlock_apply(&plan, NULL, 0, detail, sizeof(detail)), 0);
	assert_int_equal(fake_ll.n_create, 0);
	assert_int_equal(fake_ll.n_restrict, 0);

	plan = apply_plan(7);
	fake_ll.fail_create = -ENOMEM;
	assert_int_equal(cr_landlock_apply(&plan, NULL, 0, detail, sizeof(detail)), -ENOMEM);
	assert_non_null(strstr(detail, "create"));
	plan = apply_plan(7);
	fake_ll.fail_restrict = -E2BIG; /* 16 nested domains already */
	assert_int_equal(cr_landlock_apply(&plan, NULL, 0, detail, sizeof(detail)), -E2BIG);
	assert_non_null(strstr(detail, "enforce"));
}

static void test_apply_ports(void **state)
{
	struct cr_policy p = policy(CR_LANDLOCK_BEST_EFFORT);
	struct cr_landlock_plan plan;
	char detail[200] = "";
	uint64_t want_ports[] = { 80, 8000, 8001, 8002 };

	p.tcp_connect = ports_web;
	p.n_tcp_connect = ELEMENTSOF(ports_web);
	p.tcp_bind = port_any;
	p.n_tcp_bind = 1;
	fake_ll_reset(4);
	plan = init_ok(&p, 4, false);
	assert_int_equal(cr_landlock_apply(&plan, NULL, 0, detail, sizeof(detail)), 0);
	assert_int_equal(fake_ll.attr.handled_access_net, TCP);
	{
		size_t n = 0;

		for (size_t i = 0; i < fake_ll.n_rules; i++) {
			const struct fake_ll_rule *r = &fake_ll.rules[i];

			if (r->type != CR_LL_RULE_NET_PORT)
				continue;
			if (n < ELEMENTSOF(want_ports)) {
				assert_int_equal(r->access, LANDLOCK_ACCESS_NET_CONNECT_TCP);
				assert_int_equal(r->port, want_ports[n]);
			} else {
				assert_int_equal(r->access, LANDLOCK_ACCESS_NET_BIND_TCP);
				assert_int_equal(r->port, 0);
			}
			n++;
		}
		assert_int_equal(n, ELEMENTSOF(want_ports) + 1);
	}
	/* ABI 3: no network rules at all, and no TCP handled. */
	fake_ll_reset(3);
	plan = init_ok(&p, 3, false);
	assert_int_equal(cr_landlock_apply(&plan, NULL, 0, detail, sizeof(detail)), 0);
	assert_int_equal(fake_ll.attr_size, 8);
	for (size_t i = 0; i < fake_ll.n_rules; i++)
		assert_int_not_equal(fake_ll.rules[i].type, CR_LL_RULE_NET_PORT);
}

/* Descriptors the command already holds: a rule with the rights of their open mode, so that
 * /dev/stdout and /proc/self/fd/N still reopen them; nothing for a pipe. */
static void test_apply_descriptors(void **state)
{
	struct tree *t = *state;
	struct cr_landlock_plan plan = apply_plan(7);
	char detail[200] = "";
	int fds[4], pipefd[2];
	const struct fake_ll_rule *r;

	fds[0] = open(t->file, O_RDONLY | O_CLOEXEC);
	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	fds[1] = pipefd[0];
	fds[2] = open("/dev/zero", O_RDWR | O_CLOEXEC);
	fds[3] = open(t->sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (int i = 0; i < 4; i++)
		assert_true(fds[i] > 2);
	assert_int_equal(cr_landlock_apply(&plan, fds, 4, detail, sizeof(detail)), 0);
	r = fake_ll_rule_for(t->file);
	assert_non_null(r);
	assert_int_equal(r->access, LANDLOCK_ACCESS_FS_READ_FILE);
	r = fake_ll_rule_for("/dev/zero");
	assert_non_null(r);
	assert_int_equal(r->access, LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
					    LANDLOCK_ACCESS_FS_TRUNCATE |
					    LANDLOCK_ACCESS_FS_IOCTL_DEV);
	/* A directory descriptor gets nothing: that would open a whole tree. */
	assert_null(fake_ll_rule_for(t->sub));
	(void)close(fds[0]);
	(void)close(pipefd[0]);
	(void)close(pipefd[1]);
	(void)close(fds[2]);
	(void)close(fds[3]);
}

/* ---- the rules a mount plan gives ---- */

static struct cr_mount_op op(enum cr_mount_kind kind, unsigned flags, const char *src,
			     const char *dst)
{
	return (struct cr_mount_op){
		.kind = kind, .flags = flags, .src = (char *)src, .dst = (char *)dst, .src_fd = -1};
}

static struct cr_mount_op sample_ops[] = {
	{ CR_MOUNT_BIND, CR_MNT_OPTIONAL, 0, "/usr", "/usr", -1, 0, 0, 0, 0 },
	{ CR_MOUNT_SYMLINK, 0, 0, "usr/bin", "/bin", -1, 0, 0, 0, 0 },
	{ CR_MOUNT_PROC, 0, 0, NULL, "/proc", -1, 0, 0, 0, 0 },
	{ CR_MOUNT_RDONLY, CR_MNT_OPTIONAL, 0, NULL, "/proc/sys", -1, 0, 0, 0, 0 },
	{ CR_MOUNT_TMPFS, 0, 0755, NULL, "/dev", -1, 0, 0, 0, 0 },
	{ CR_MOUNT_DEVICE, CR_MNT_FILE | CR_MNT_OPTIONAL, 0, "/dev/null", "/dev/null", -1, 0, 0, 0, 0 },
	{ CR_MOUNT_DEVPTS, CR_MNT_WRITABLE, 0, NULL, "/dev/pts", -1, 0, 0, 0, 0 },
	{ CR_MOUNT_TMPFS, CR_MNT_WRITABLE, 01777, NULL, "/dev/shm", -1, 0, 0, 0, 0 },
	{ CR_MOUNT_TMPFS, CR_MNT_WRITABLE, 01777, NULL, "/tmp", -1, 0, 0, 0, 0 },
	{ CR_MOUNT_TMPFS, CR_MNT_WRITABLE, 0700, NULL, "/home/u", -1, 0, 0, 0, 0 },
	{ CR_MOUNT_BIND, CR_MNT_WRITABLE, 0, "/srv/ws", "/srv/ws", -1, 0, 0, 0, 0 },
	{ CR_MOUNT_BIND, 0, 0, "/data", "/data", -1, 0, 0, 0, 0 },
	{ CR_MOUNT_TMPFS, 0, 0755, NULL, "/data/private", -1, 0, 0, 0, 0 },
	{ CR_MOUNT_BIND, CR_MNT_WRITABLE, 0, "/data/out", "/data/out", -1, 0, 0, 0, 0 },
};

static void expect_rule(const struct cr_landlock_plan *plan, size_t i, const char *path,
			uint64_t access, bool optional)
{
	assert_true(i < plan->n_rules);
	assert_string_equal(plan->rules[i].path, path);
	assert_int_equal(plan->rules[i].access, access);
	assert_int_equal(plan->rules[i].optional, optional);
}

static void test_rules_sandbox(void **state)
{
	struct cr_mount_plan mounts = { sample_ops, ELEMENTSOF(sample_ops) };
	struct cr_landlock_plan plan = apply_plan(7);
	struct cr_mount_op hidden_file =
		op(CR_MOUNT_NULL, CR_MNT_FILE, "/dev/null", "/srv/ws/.env");

	assert_int_equal(cr_landlock_rules_sandbox(&mounts, &plan), 0);
	expect_rule(&plan, 0, "/", LL_FS_LIST, false);
	expect_rule(&plan, 1, "/usr", LL_FS_RO, true);
	expect_rule(&plan, 2, "/proc", LL_FS_PROC, false);
	expect_rule(&plan, 3, "/dev/null", LL_FS_DEVICE, true);
	expect_rule(&plan, 4, "/dev/pts", LL_FS_DEVICE, false);
	expect_rule(&plan, 5, "/dev/shm", LL_FS_RW, false);
	expect_rule(&plan, 6, "/tmp", LL_FS_RW, false);
	expect_rule(&plan, 7, "/home/u", LL_FS_RW, false);
	expect_rule(&plan, 8, "/srv/ws", LL_FS_RW, false);
	expect_rule(&plan, 9, "/data", LL_FS_RO, false);
	expect_rule(&plan, 10, "/data/out", LL_FS_RW, false);
	assert_int_equal(plan.n_rules, 11);
	cr_landlock_plan_done(&plan);

	mounts = (struct cr_mount_plan){ &hidden_file, 1 };
	plan = apply_plan(7);
	assert_int_equal(cr_landlock_rules_sandbox(&mounts, &plan), 0);
	expect_rule(&plan, 1, "/srv/ws/.env", LL_FS_HIDDEN, false);
	cr_landlock_plan_done(&plan);

	/* The test hook leaves exactly one rule out, and the mount plan is untouched. */
	mounts = (struct cr_mount_plan){ sample_ops, ELEMENTSOF(sample_ops) };
	plan = apply_plan(7);
	test_omit = "/data/out";
	assert_int_equal(cr_landlock_rules_sandbox(&mounts, &plan), 0);
	test_omit = NULL;
	assert_int_equal(plan.n_rules, 10);
	for (size_t i = 0; i < plan.n_rules; i++)
		assert_string_not_equal(plan.rules[i].path, "/data/out");
	cr_landlock_plan_done(&plan);
}

static void test_rules_host(void **state)
{
	struct cr_mount_plan mounts = { sample_ops, ELEMENTSOF(sample_ops) - 2 };
	struct cr_landlock_plan plan = apply_plan(7);
	struct cr_mount_op ops[3];
	char msg[512] = "";

	assert_int_equal(cr_landlock_rules_host(&mounts, "/tmp/d/tmp", "/tmp/d/home", &plan, msg,
						sizeof(msg)),
			 0);
	expect_rule(&plan, 0, "/usr", LL_FS_RO, true);
	expect_rule(&plan, 1, "/proc", LL_FS_PROC_RO, false);
	expect_rule(&plan, 2, "/dev/null", LL_FS_DEVICE, true);
	expect_rule(&plan, 3, "/tmp/d/tmp", LL_FS_RW, false);
	expect_rule(&plan, 4, "/tmp/d/home", LL_FS_RW, false);
	expect_rule(&plan, 5, "/srv/ws", LL_FS_RW, false);
	expect_rule(&plan, 6, "/data", LL_FS_RO, false);
	assert_int_equal(plan.n_rules, 7); /* nothing for /, /dev/pts, /dev/shm, /dev */
	cr_landlock_plan_done(&plan);

	/* Hidden inside a tree that is shown, or read-only inside a writable one: Landlock alone
	 * cannot do it, so degraded mode refuses. */
	ops[0] = op(CR_MOUNT_BIND, CR_MNT_WRITABLE, "/srv/ws", "/srv/ws");
	ops[1] = op(CR_MOUNT_TMPFS, 0, NULL, "/srv/ws/secrets");
	mounts = (struct cr_mount_plan){ ops, 2 };
	plan = apply_plan(7);
	assert_int_equal(cr_landlock_rules_host(&mounts, "/t", "/h", &plan, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "cannot hide /srv/ws/secrets"));
	cr_landlock_plan_done(&plan);
	ops[1] = op(CR_MOUNT_NULL, CR_MNT_FILE, "/dev/null", "/srv/ws/.env");
	plan = apply_plan(7);
	assert_int_equal(cr_landlock_rules_host(&mounts, "/t", "/h", &plan, msg, sizeof(msg)),
			 -EINVAL);
	cr_landlock_plan_done(&plan);
	ops[1] = op(CR_MOUNT_BIND, 0, "/srv/ws/vendor", "/srv/ws/vendor");
	plan = apply_plan(7);
	assert_int_equal(cr_landlock_rules_host(&mounts, "/t", "/h", &plan, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "cannot make read-only /srv/ws/vendor"));
	cr_landlock_plan_done(&plan);
	/* ... but writable inside read-only, and hidden outside anything shown, are fine. */
	ops[0] = op(CR_MOUNT_BIND, 0, "/data", "/data");
	ops[1] = op(CR_MOUNT_BIND, CR_MNT_WRITABLE, "/data/out", "/data/out");
	ops[2] = op(CR_MOUNT_TMPFS, 0, NULL, "/srv/secrets");
	mounts = (struct cr_mount_plan){ ops, 3 };
	plan = apply_plan(7);
	assert_int_equal(cr_landlock_rules_host(&mounts, "/t", "/h", &plan, msg, sizeof(msg)), 0);
	assert_int_equal(plan.n_rules, 2);
	cr_landlock_plan_done(&plan);
}

/* ---- the JSON report ---- */

static const char *json_names(json_object *o, const char *key, char *buf, size_t size)
{
	json_object *a = json_object_object_get(o, key);

	buf[0] = '\0';
	if (!a)
		return "<null>";
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		(void)strlcat(buf, i ? "," : "", size);
		(void)strlcat(buf, json_object_get_string(json_object_array_get_idx(a, i)), size);
	}
	return buf;
}

static void test_report(void **state)
{
	struct cr_policy p = policy(CR_LANDLOCK_BEST_EFFORT);
	struct cr_landlock_plan plan;
	json_object *o;
	char buf[1024];

	p.tcp_connect = ports_web;
	p.n_tcp_connect = ELEMENTSOF(ports_web);
	plan = init_ok(&p, 2, false);
	o = cr_landlock_report(&plan);
	assert_non_null(o);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "mode")),
			    "best-effort");
	assert_int_equal(json_object_get_int(json_object_object_get(o, "abi")), 2);
	assert_true(json_object_get_boolean(json_object_object_get(o, "applied")));
	assert_non_null(strstr(json_names(o, "handled", buf, sizeof(buf)), "fs.refer"));
	assert_null(strstr(buf, "fs.truncate"));
	assert_string_equal(json_names(o, "scoped", buf, sizeof(buf)), "");
	assert_string_equal(json_names(o, "log_flags", buf, sizeof(buf)), "");
	assert_string_equal(json_names(o, "dropped", buf, sizeof(buf)),
			    "fs.truncate,fs.ioctl_dev,net.connect_tcp,scope.abstract_unix_socket,scope.signal,log.new_exec_on");
	/* Not restricted here (ABI 2): null, not the ports. */
	assert_true(json_object_object_get_ex(o, "tcp_connect", NULL));
	assert_null(json_object_object_get(o, "tcp_connect"));
	json_object_put(o);

	plan = init_ok(&p, 7, false);
	o = cr_landlock_report(&plan);
	assert_string_equal(json_names(o, "tcp_connect", buf, sizeof(buf)), "80,8000-8002");
	assert_null(json_object_object_get(o, "tcp_bind"));
	assert_string_equal(json_names(o, "scoped", buf, sizeof(buf)),
			    "scope.abstract_unix_socket,scope.signal");
	assert_string_equal(json_names(o, "log_flags", buf, sizeof(buf)), "log.new_exec_on");
	assert_string_equal(json_names(o, "dropped", buf, sizeof(buf)), "");
	json_object_put(o);

	p = policy(CR_LANDLOCK_OFF);
	plan = init_ok(&p, 7, false);
	o = cr_landlock_report(&plan);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "mode")), "off");
	assert_false(json_object_get_boolean(json_object_object_get(o, "applied")));
	assert_string_equal(json_names(o, "handled", buf, sizeof(buf)), "");
	json_object_put(o);
}

/* ---- port lists (launcher/policy/ports.c) ---- */

static void test_ports_parse(void **state)
{
	static const char *const bad[] = {
		"", ",", "80,", ",80", "a", "80a", " 80", "80-", "-80", "90-80", "80--90", "1,,2", "8 0",
	};
	struct cr_port_range *r = NULL;
	size_t n = 0;
	char buf[16];

	assert_int_equal(cr_ports_parse("80,443,8000-8100", 1, &r, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(r[2].first, 8000);
	assert_int_equal(r[2].last, 8100);
	assert_int_equal(cr_ports_count(r, n), 2 + 101);
	assert_int_equal(cr_ports_parse("65535", 1, &r, &n), 0); /* appended */
	assert_int_equal(n, 4);
	cr_port_range_format(&r[2], buf, sizeof(buf));
	assert_string_equal(buf, "8000-8100");
	cr_port_range_format(&r[3], buf, sizeof(buf));
	assert_string_equal(buf, "65535");
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		if (cr_ports_parse(bad[i], 1, &r, &n) != -EINVAL)
			fail_msg("'%s' was not refused with EINVAL", bad[i]);
		assert_int_equal(n, 4); /* nothing appended */
	}
	assert_int_equal(cr_ports_parse("0", 1, &r, &n), -ERANGE);
	assert_int_equal(cr_ports_parse("0", 0, &r, &n), 0);
	assert_int_equal(cr_ports_parse("80,65536", 1, &r, &n), -ERANGE);
	assert_int_equal(cr_ports_parse("99999999999999999999", 1, &r, &n), -ERANGE);
	assert_int_equal(n, 5);
	free(r);
}

/* ---- the options (launcher/policy/cli.c, launcher/policy/policy.c) ---- */

static void test_options(void **state)
{
	char *argv[] = { "run",		  "--landlock=required", "--landlock-min-abi", "5",
			 "--tcp-connect", "80,443",		 "--tcp-connect",      "8000-8001",
			 "--tcp-bind",	  "0",			 "--allow-degraded",   "--",
			 "true",	  NULL };
	char *off[] = { "run", "--landlock=off", "--tcp-bind", "8080", "--", "true", NULL };
	char *plain[] = { "run", "--", "true", NULL };
	char *env[] = { "PATH=/usr/bin", NULL };
	struct cr_run_options o;
	struct cr_policy p;
	char msg[512] = "";

	assert_int_equal(cr_cli_parse_run(ELEMENTSOF(argv) - 1, argv, &o, msg, sizeof(msg)), 0);
	assert_int_equal(o.landlock, CR_LANDLOCK_REQUIRED);
	assert_int_equal(o.landlock_min_abi, 5);
	assert_int_equal(o.n_tcp_connect, 3);
	assert_int_equal(o.tcp_connect[2].first, 8000);
	assert_int_equal(o.tcp_connect[2].last, 8001);
	assert_int_equal(o.n_tcp_bind, 1);
	assert_int_equal(o.tcp_bind[0].first, 0);
	assert_true(o.allow_degraded);
	assert_int_equal(cr_policy_build(&o, env, false, &p, msg, sizeof(msg)), 0);
	assert_int_equal(p.landlock, CR_LANDLOCK_REQUIRED);
	assert_int_equal(p.landlock_min_abi, 5);
	assert_int_equal(p.n_tcp_connect, 3);
	assert_ptr_not_equal(p.tcp_connect, o.tcp_connect); /* the policy owns a copy */
	assert_int_equal(p.tcp_connect[1].first, 443);
	assert_true(p.allow_degraded);
	cr_policy_done(&p);
	cr_run_options_done(&o);

	/* No options: best-effort, nothing restricted, no TCP lists at all (not empty ones). */
	assert_int_equal(cr_cli_parse_run(ELEMENTSOF(plain) - 1, plain, &o, msg, sizeof(msg)), 0);
	assert_int_equal(cr_policy_build(&o, env, false, &p, msg, sizeof(msg)), 0);
	assert_int_equal(p.landlock, CR_LANDLOCK_BEST_EFFORT);
	assert_null(p.tcp_connect);
	assert_null(p.tcp_bind);
	assert_false(p.allow_degraded);
	cr_policy_done(&p);
	cr_run_options_done(&o);

	/* What needs Landlock cannot go with --landlock=off. */
	assert_int_equal(cr_cli_parse_run(ELEMENTSOF(off) - 1, off, &o, msg, sizeof(msg)), 0);
	assert_int_equal(cr_policy_build(&o, env, false, &p, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "--tcp-bind needs Landlock: it cannot be combined with --landlock=off");
	cr_run_options_done(&o);
	off[2] = "--allow-degraded";
	off[3] = "--";
	assert_int_equal(cr_cli_parse_run(ELEMENTSOF(off) - 2, off, &o, msg, sizeof(msg)), 0);
	assert_int_equal(cr_policy_build(&o, env, false, &p, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "never runs a command with neither namespaces nor Landlock"));
	cr_run_options_done(&o);

	/* Bad values. */
	{
		static const char *const bad[][2] = {
			{ "--landlock=strict", "--landlock: unknown mode 'strict'" },
			{ "--landlock-min-abi=8", "--landlock-min-abi: '8' is not a Landlock ABI" },
			{ "--tcp-connect=0", "--tcp-connect: '0' is not a list of ports (1-65535)" },
			{ "--tcp-bind=1-0", "--tcp-bind: '1-0' is not a list of ports (0-65535)" },
		};

		for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
			char *a[] = { "run", (char *)bad[i][0], "true", NULL };

			assert_int_equal(cr_cli_parse_run(3, a, &o, msg, sizeof(msg)), -EINVAL);
			if (strncmp(msg, bad[i][1], strlen(bad[i][1])) != 0)
				fail_msg("%s: got '%s'", bad[i][0], msg);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abi_probe),
		cmocka_unit_test(test_known_masks),
		cmocka_unit_test(test_plan_every_abi),
		cmocka_unit_test(test_plan_tcp),
		cmocka_unit_test(test_plan_required),
		cmocka_unit_test(test_plan_min_abi),
		cmocka_unit_test(test_plan_off_and_unavailable),
		cmocka_unit_test(test_lacking_text),
		cmocka_unit_test_setup_teardown(test_apply_files_and_dirs, tree_setup,
						tree_teardown),
		cmocka_unit_test_setup_teardown(test_apply_old_abi, tree_setup, tree_teardown),
		cmocka_unit_test(test_apply_disabled_and_failures),
		cmocka_unit_test(test_apply_ports),
		cmocka_unit_test_setup_teardown(test_apply_descriptors, tree_setup, tree_teardown),
		cmocka_unit_test(test_rules_sandbox),
		cmocka_unit_test(test_rules_host),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_ports_parse),
		cmocka_unit_test(test_options),
	};

	return cmocka_run_group_tests_name("landlock", tests, NULL, NULL);
}
