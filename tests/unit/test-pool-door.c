/* SPDX-License-Identifier: MIT */
/* Unit tests for launcher/pool/pool-door.c: a door's explicit policy (the bwrap personality's) in
 * the pool. Its fingerprint changes with every operation and field of cr_policy.ex that shapes
 * the sandbox, and with none that a command brings; what only a run has keeps it out of the
 * pool; a sandbox's record of its sources changes when a source is replaced or appears. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/pool/pool-internal.h"
#include "launcher/pool/pool-server.h"
#include "launcher/pool/pool.h"
#include "launcher/policy/fs-op.h"
#include "launcher/policy/policy.h"

#define N_OPS 4

static char *argv_a[] = { "true", NULL }, *argv_b[] = { "make", "test", NULL };
static char *env_a[] = { "A=1", NULL }, *env_b[] = { NULL };

/* srt's shape: --ro-bind / / --bind /w /w --tmpfs /h/.ssh --proc /proc */
static void ops(struct cr_fs_op *o)
{
	o[0] = (struct cr_fs_op){ .kind = CR_FS_BIND, .flags = CR_FS_RO, .mode = CR_FS_MODE_UNSET,
				  .src = "/", .dst = "/", .fd = -1 };
	o[1] = (struct cr_fs_op){ .kind = CR_FS_BIND, .mode = CR_FS_MODE_UNSET, .src = "/w",
				  .dst = "/w", .fd = -1 };
	o[2] = (struct cr_fs_op){ .kind = CR_FS_TMPFS, .mode = CR_FS_MODE_UNSET, .dst = "/h/.ssh",
				  .fd = -1 };
	o[3] = (struct cr_fs_op){ .kind = CR_FS_PROC, .mode = CR_FS_MODE_UNSET, .dst = "/proc",
				  .fd = -1 };
}

static struct cr_policy base(struct cr_fs_op *o)
{
	ops(o);
	return (struct cr_policy){
		.cwd = "/w", .env = env_a, .argv = argv_a, .fs_ops = o, .n_fs_ops = N_OPS,
		.ex = { .on = true, .namespaces = CR_NS_USER | CR_NS_PID | CR_NS_NET,
			.nested_userns = true, .uid = 1000, .gid = 1000, .new_session = true,
			.harden_proc = true, .cwd_fallback = true, .block_fd = -1, .ready_fd = -1,
			.userns_block_fd = -1, .userns_fd = -1, .pidns_fd = -1, .userns2_fd = -1 },
	};
}

static void test_fingerprint_ignores_the_command(void **state)
{
	struct cr_fs_op oa[N_OPS], ob[N_OPS];
	struct cr_policy a = base(oa), b = base(ob);
	uint8_t x[32], y[32];

	(void)state;
	b.argv = argv_b;
	b.env = env_b;
	b.cwd = "/w/sub";
	cr_pool_fingerprint(&a, x);
	cr_pool_fingerprint(&b, y);
	assert_memory_equal(x, y, 32);
}

static void test_fingerprint_follows_the_sandbox(void **state)
{
	enum { N = 22 };
	struct cr_fs_op o[N][N_OPS], ob[N_OPS], swap;
	struct cr_policy v[N], b = base(ob);
	uint8_t y[32], z[32];

	(void)state;
	for (size_t i = 0; i < N; i++)
		v[i] = base(o[i]);
	swap = o[0][2]; /* the order of the operations */
	o[0][2] = o[0][1];
	o[0][1] = swap;
	o[1][1].flags |= CR_FS_RO;
	o[2][1].flags |= CR_FS_TRY;
	o[3][1].src = "/x";
	o[4][2].dst = "/h/.gnupg";
	o[5][2].size = 4096;
	o[6][2].mode = 0700;
	o[7][3].kind = CR_FS_MQUEUE;
	v[8].n_fs_ops = N_OPS - 1;
	v[9].ex.namespaces |= CR_NS_IPC;
	v[10].ex.uid = 0;
	v[11].ex.gid = 0;
	v[12].ex.caps = 1;
	v[13].ex.new_session = false;
	v[14].ex.harden_proc = false; /* compat mode */
	v[15].ex.init_dumpable = true;
	v[16].ex.nested_userns = false;
	v[17].ex.cwd_fallback = false; /* --chdir */
	v[18].ex.argv0 = "x";
	v[19].hostname = "h";
	v[20].limits.value[CR_LIMIT_PIDS] = 4096; /* hardened mode's pids limit */
	v[21].seccomp = CR_SECCOMP_BASIC;
	cr_pool_fingerprint(&b, z);
	for (size_t i = 0; i < N; i++) {
		cr_pool_fingerprint(&v[i], y);
		if (memcmp(y, z, 32) == 0)
			fail_msg("variant %zu has the base policy's fingerprint", i);
	}
}

static void test_unfit(void **state)
{
	struct cr_fs_op o[N_OPS];
	struct cr_policy p = base(o);
	struct cr_bpf_program prog = { "", 0 };
	char *locks[] = { "/l", NULL };

	(void)state;
	assert_null(cr_pool_unfit(&p));
	o[1].fd = 5; /* --bind-fd */
	assert_non_null(strstr(cr_pool_unfit(&p), "descriptor"));
	p = base(o);
	p.ex.seccomp_programs = &prog;
	p.ex.n_seccomp_programs = 1;
	assert_non_null(strstr(cr_pool_unfit(&p), "seccomp"));
	p = base(o);
	p.ex.userns_fd = 4;
	assert_non_null(cr_pool_unfit(&p));
	p = base(o);
	p.ex.block_fd = 4;
	assert_non_null(cr_pool_unfit(&p));
	p = base(o);
	p.ex.lock_files = locks;
	assert_non_null(strstr(cr_pool_unfit(&p), "lock"));
	p = base(o);
	p.ex.as_pid_1 = true;
	assert_non_null(strstr(cr_pool_unfit(&p), "pid 1"));
	p = base(o);
	p.ex.caps = 1ULL << 12;
	assert_non_null(strstr(cr_pool_unfit(&p), "capabilities"));
	p = base(o);
	p.ex.new_session = false;
	assert_non_null(strstr(cr_pool_unfit(&p), "session"));
	p = base(o);
	p.ex.argv0 = "sh";
	assert_non_null(strstr(cr_pool_unfit(&p), "argv[0]"));
	p = base(o);
	o[3].dst = "/newproc";
	assert_non_null(strstr(cr_pool_unfit(&p), "procfs"));
	/* A relative source names the caller's directory: the pool's build would resolve it in
	 * its own (--bind . /out from the workspace would bind the pool's /). */
	p = base(o);
	o[1].src = ".";
	assert_non_null(strstr(cr_pool_unfit(&p), "relative"));
	p = base(o);
	o[1].src = "";
	assert_non_null(strstr(cr_pool_unfit(&p), "relative"));
	p = base(o);
	o[2] = (struct cr_fs_op){ .kind = CR_FS_OVERLAY, .flags = CR_FS_TMP_UPPER,
				  .mode = CR_FS_MODE_UNSET, .src = "/l1\nl2", .dst = "/o", .fd = -1 };
	assert_non_null(strstr(cr_pool_unfit(&p), "relative"));
	o[2].src = "/l1\n/l2";
	assert_null(cr_pool_unfit(&p));
}

/* A source replaced, or a -try source created, changes the record; nothing else does. */
static void test_snap(void **state)
{
	char dir[] = "/tmp/test-pool-door.XXXXXX", src[64], late[64], old[64];
	struct cr_fs_op o[2];
	struct cr_policy p = { .fs_ops = o, .n_fs_ops = 2, .ex = { .on = true } };
	struct pool_snap a, b;

	(void)state;
	assert_non_null(mkdtemp(dir));
	(void)snprintf(src, sizeof(src), "%s/src", dir);
	(void)snprintf(late, sizeof(late), "%s/late", dir);
	(void)snprintf(old, sizeof(old), "%s/old", dir);
	assert_int_equal(mkdir(src, 0700), 0);
	o[0] = (struct cr_fs_op){ .kind = CR_FS_BIND, .src = src, .dst = "/a", .fd = -1 };
	o[1] = (struct cr_fs_op){ .kind = CR_FS_BIND, .flags = CR_FS_TRY, .src = late, .dst = "/b",
				  .fd = -1 };
	pool_door_snap(&p, &a);
	pool_door_snap(&p, &b);
	assert_true(a.complete);
	assert_int_equal(a.n, 2); /* each source (the mount table is pool_mounts_gen()'s) */
	assert_memory_equal(a.id, b.id, sizeof(a.id[0]) * 2);
	assert_int_equal(mkdir(late, 0700), 0); /* the -try source appears */
	pool_door_snap(&p, &b);
	assert_memory_not_equal(&a.id[1], &b.id[1], sizeof(a.id[0]));
	pool_door_snap(&p, &a);
	assert_int_equal(rename(src, old), 0); /* the source replaced by another directory */
	assert_int_equal(mkdir(src, 0700), 0);
	pool_door_snap(&p, &b);
	assert_memory_not_equal(&a.id[0], &b.id[0], sizeof(a.id[0]));
	(void)rmdir(src);
	(void)rmdir(old);
	(void)rmdir(late);
	(void)rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fingerprint_ignores_the_command),
		cmocka_unit_test(test_fingerprint_follows_the_sandbox),
		cmocka_unit_test(test_unfit),
		cmocka_unit_test(test_snap),
	};

	return cmocka_run_group_tests_name("pool-door", tests, NULL, NULL);
}
