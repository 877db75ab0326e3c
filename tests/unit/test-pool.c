/* SPDX-License-Identifier: MIT */
/* Unit tests for launcher/pool/pool-proto.c: the policy's fingerprint changes with every field
 * that shapes the sandbox and with none that a command brings; the message strings are unpacked
 * only within the message; the modes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/pool/pool-internal.h"
#include "launcher/pool/pool.h"
#include "launcher/policy/policy.h"

static char *env_a[] = { "PATH=/usr/bin", NULL }, *env_b[] = { "PATH=/bin", "X=1", NULL };
static char *argv_a[] = { "true", NULL }, *argv_b[] = { "make", "test", NULL };
static struct cr_path_rule rules[] = { { "/data", CR_PATH_RO } };

static struct cr_policy base(void)
{
	return (struct cr_policy){ .workspace = "/w", .cwd = "/w", .home = "/home/u",
				   .hostname = "corral", .uid = 65534, .gid = 65534,
				   .env = env_a, .argv = argv_a, .paths = rules, .n_paths = 1 };
}

static void fp(const struct cr_policy *p, uint8_t out[32])
{
	cr_pool_fingerprint(p, out);
}

static void test_fingerprint_ignores_the_command(void **state)
{
	struct cr_policy a = base(), b = base();
	uint8_t x[32], y[32];

	(void)state;
	b.env = env_b;
	b.argv = argv_b;
	b.cwd = "/w/sub";
	b.timeout_ms = 5000;
	b.kill_after_ms = 1;
	fp(&a, x);
	fp(&b, y);
	assert_memory_equal(x, y, 32);
}

static void test_fingerprint_follows_the_sandbox(void **state)
{
	struct cr_path_rule rw[] = { { "/data", CR_PATH_RW } }, other[] = { { "/dat", CR_PATH_RO } };
	struct cr_cache c1[] = { { "npm", "/home/u/.npm", "/s/caches/npm" } },
			c2[] = { { "pip", "/home/u/.npm", "/s/caches/pip" } },
			c3[] = { { "npm", "/home/u/.cache", "/s/caches/npm" } };
	struct cr_policy v[15];
	uint8_t y[32];

	(void)state;
	for (size_t i = 0; i < 15; i++)
		v[i] = base();
	v[0].workspace = "/w2";
	v[1].workspace_ro = true;
	v[2].home = "/home/v";
	v[3].paths = rw;
	v[4].paths = other;
	v[5].n_paths = 0;
	v[6].net = CR_NET_HOST;
	v[7].seccomp = CR_SECCOMP_STRICT;
	v[8].uid = 1000;
	v[9].limits.value[CR_LIMIT_PIDS] = 7;
	v[10].landlock = CR_LANDLOCK_OFF;
	v[11].hostname = NULL;
	/* a cache, another cache at the same path, the same cache elsewhere */
	v[12].caches = c1;
	v[12].n_caches = 1;
	v[13].caches = c2;
	v[13].n_caches = 1;
	v[14].caches = c3;
	v[14].n_caches = 1;
	for (size_t i = 12; i < 15; i++)
		for (size_t j = 12; j < i; j++) {
			uint8_t a[32], b[32];

			fp(&v[i], a);
			fp(&v[j], b);
			if (memcmp(a, b, 32) == 0)
				fail_msg("variants %zu and %zu have one fingerprint", i, j);
		}
	for (size_t i = 0; i < 15; i++) {
		struct cr_policy b = base();
		uint8_t z[32];

		fp(&b, z);
		fp(&v[i], y);
		if (memcmp(y, z, 32) == 0)
			fail_msg("variant %zu has the base policy's fingerprint", i);
	}
}

static void test_unpack_bounds(void **state)
{
	char buf[64] = "HEADab\0cd\0", *out[4]; /* 11 bytes, the last two NULs */
	size_t off = 0;
	char *strings[] = { "x", "yz" };

	(void)state;
	assert_int_equal(pool_unpack(buf, 10, 4, 2, out), 0);
	assert_string_equal(out[0], "ab");
	assert_string_equal(out[1], "cd");
	assert_null(out[2]);
	/* one string more than the message holds */
	assert_int_equal(pool_unpack(buf, 10, 4, 3, out), -EBADMSG);
	/* not NUL-terminated at its end */
	assert_int_equal(pool_unpack(buf, 9, 4, 2, out), -EBADMSG);
	/* shorter than its header */
	assert_int_equal(pool_unpack(buf, 3, 4, 0, out), -EBADMSG);
	assert_int_equal(pool_pack(buf, 4, strings, 2, &off), 9);
	assert_int_equal(pool_unpack(buf, 9, 4, 2, out), 0);
	assert_string_equal(out[1], "yz");
}

static void test_modes(void **state)
{
	char *env[] = { "CORRAL_POOL=never", NULL }, *bad[] = { "CORRAL_POOL=sometimes", NULL };
	enum cr_pool_mode m;
	char msg[128];

	(void)state;
	assert_int_equal(cr_pool_mode_resolve(NULL, NULL, &m, msg, sizeof(msg)), 0);
	assert_int_equal(m, CR_POOL_AUTO);
	assert_int_equal(cr_pool_mode_resolve(NULL, env, &m, msg, sizeof(msg)), 0);
	assert_int_equal(m, CR_POOL_NEVER);
	assert_int_equal(cr_pool_mode_resolve("require", env, &m, msg, sizeof(msg)), 0);
	assert_int_equal(m, CR_POOL_REQUIRE);
	assert_int_equal(cr_pool_mode_resolve(NULL, bad, &m, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "CORRAL_POOL=sometimes"));
	assert_string_equal(cr_pool_mode_to_string(CR_POOL_REQUIRE), "require");
}

static void test_unfit(void **state)
{
	struct cr_policy p = base();
	int fds[] = { 3 };

	(void)state;
	assert_null(cr_pool_unfit(&p));
	p.keep_fds = fds;
	p.n_keep_fds = 1;
	assert_non_null(strstr(cr_pool_unfit(&p), "--keep-fd"));
	p = base();
	p.net = CR_NET_HOSTS;
	assert_non_null(strstr(cr_pool_unfit(&p), "--allow-host"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fingerprint_ignores_the_command),
		cmocka_unit_test(test_fingerprint_follows_the_sandbox),
		cmocka_unit_test(test_unpack_bounds),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_unfit),
	};

	return cmocka_run_group_tests_name("pool", tests, NULL, NULL);
}
