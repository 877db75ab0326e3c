/* SPDX-License-Identifier: MIT */
/* cgroup/: limit parsing, cgroup discovery from mountinfo and /proc/self/cgroup fixtures (pure
 * v2, hybrid, v1 only), the v2 parent directory, and the enforced.limits JSON. */
#include <errno.h>
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cgroup/cgroup-internal.h"
#include "cgroup/place.h"
#include "cgroup/cgroup.h"
#include "launcher/policy/limits.h"
#include "launcher/policy/cli.h"

#define FIX(name) CR_CGROUP_FIXTURES "/" name

static uint64_t parse_ok(enum cr_limit l, const char *s)
{
	uint64_t v = 0;

	assert_int_equal(cr_limit_parse(l, s, &v), 0);
	return v;
}

static int parse_err(enum cr_limit l, const char *s)
{
	uint64_t v = 12345;
	int r = cr_limit_parse(l, s, &v);

	assert_int_equal(v, 12345); /* untouched on failure */
	return r;
}

static void test_parse_bytes(void **state)
{
	assert_int_equal(parse_ok(CR_LIMIT_MEMORY, "512M"), 512ull << 20);
	assert_int_equal(parse_ok(CR_LIMIT_MEMORY, "2G"), 2ull << 30);
	assert_int_equal(parse_ok(CR_LIMIT_MEMORY, "2g"), 2ull << 30);
	assert_int_equal(parse_ok(CR_LIMIT_MEMORY, "64k"), 64ull << 10);
	assert_int_equal(parse_ok(CR_LIMIT_MEMORY, "1T"), 1ull << 40);
	assert_int_equal(parse_ok(CR_LIMIT_MEMORY, "4096"), 4096);
	assert_int_equal(parse_ok(CR_LIMIT_MEMORY_SWAP, "max"), CR_LIMIT_INFINITY);
	assert_int_equal(parse_ok(CR_LIMIT_FILE_SIZE, "1M"), 1ull << 20);
}

static void test_parse_bytes_bad(void **state)
{
	assert_int_equal(parse_err(CR_LIMIT_MEMORY, "512X"), -EINVAL); /* bad unit */
	assert_int_equal(parse_err(CR_LIMIT_MEMORY, "512MB"), -EINVAL);
	assert_int_equal(parse_err(CR_LIMIT_MEMORY, "512 M"), -EINVAL);
	assert_int_equal(parse_err(CR_LIMIT_MEMORY, "M"), -EINVAL);
	assert_int_equal(parse_err(CR_LIMIT_MEMORY, ""), -EINVAL);
	assert_int_equal(parse_err(CR_LIMIT_MEMORY, "-1"), -EINVAL);
	assert_int_equal(parse_err(CR_LIMIT_MEMORY, "1.5G"), -EINVAL);
	assert_int_equal(parse_err(CR_LIMIT_MEMORY, "MAX"), -EINVAL);
	assert_int_equal(parse_err(CR_LIMIT_MEMORY, "0"), -ERANGE);
	assert_int_equal(parse_err(CR_LIMIT_MEMORY, "0M"), -ERANGE);
	assert_int_equal(parse_err(CR_LIMIT_MEMORY, "99999999999999T"), -ERANGE);
	assert_int_equal(parse_err(CR_LIMIT_MEMORY, "99999999999999999999999"), -ERANGE);
	assert_int_equal(parse_err(CR_LIMIT_MEMORY, NULL), -EINVAL);
}

static void test_parse_counts(void **state)
{
	assert_int_equal(parse_ok(CR_LIMIT_PIDS, "4096"), 4096);
	assert_int_equal(parse_ok(CR_LIMIT_PIDS, "max"), CR_LIMIT_INFINITY);
	assert_int_equal(parse_ok(CR_LIMIT_OPEN_FILES, "64"), 64);
	assert_int_equal(parse_ok(CR_LIMIT_CPU_TIME, "10"), 10);
	assert_int_equal(parse_err(CR_LIMIT_PIDS, "10k"), -EINVAL); /* counts take no unit */
	assert_int_equal(parse_err(CR_LIMIT_PIDS, "0"), -ERANGE);
	assert_int_equal(parse_err(CR_LIMIT_PIDS, "4194305"), -ERANGE);
	assert_int_equal(parse_err(CR_LIMIT_CPU_TIME, "1.5"), -EINVAL);
	assert_int_equal(parse_err(CR_LIMIT_OPEN_FILES, "lots"), -EINVAL);
}

static void test_parse_cpu(void **state)
{
	assert_int_equal(parse_ok(CR_LIMIT_CPU, "0.5"), 500);
	assert_int_equal(parse_ok(CR_LIMIT_CPU, "2"), 2000);
	assert_int_equal(parse_ok(CR_LIMIT_CPU, "0.001"), 1);
	assert_int_equal(parse_ok(CR_LIMIT_CPU, "max"), CR_LIMIT_INFINITY);
	assert_int_equal(parse_err(CR_LIMIT_CPU, "0"), -ERANGE);
	assert_int_equal(parse_err(CR_LIMIT_CPU, "0.0001"), -ERANGE);
	assert_int_equal(parse_err(CR_LIMIT_CPU, "50%"), -EINVAL);
}

static void test_names(void **state)
{
	char buf[32];

	assert_string_equal(cr_limit_to_string(CR_LIMIT_MEMORY_SWAP), "memory_swap");
	assert_string_equal(cr_limit_option(CR_LIMIT_OPEN_FILES), "--open-files");
	assert_null(cr_limit_to_string(_CR_LIMIT_MAX));
	assert_string_equal(cr_limit_mode_to_string(CR_LIMIT_MODE_CGROUP2), "cgroup2");
	assert_string_equal(cr_limit_mode_to_string(CR_LIMIT_MODE_CGROUP1), "cgroup1");
	assert_string_equal(cr_limit_mode_to_string(CR_LIMIT_MODE_RLIMIT), "rlimit");
	assert_string_equal(cr_limit_mode_to_string(CR_LIMIT_MODE_NONE), "none");
	cr_limit_format(CR_LIMIT_CPU, 1500, buf, sizeof(buf));
	assert_string_equal(buf, "1.500");
	cr_limit_format(CR_LIMIT_PIDS, CR_LIMIT_INFINITY, buf, sizeof(buf));
	assert_string_equal(buf, "max");
}

static void test_cli_options(void **state)
{
	char *ok[] = { "run", "--memory", "512M", "--memory-swap=1G", "--pids", "max", "--cpu",
		       "1.5", "--cpu-time", "10", "--file-size", "2G", "--open-files", "64",
		       "--limits=required", "--", "true", NULL };
	char *bad[] = { "run", "--memory", "512X", "--", "true", NULL };
	char *mode[] = { "run", "--limits=strict", "--", "true", NULL };
	struct cr_run_options o;
	char msg[256] = "";

	assert_int_equal(cr_cli_parse_run(17, ok, &o, msg, sizeof(msg)), 0);
	assert_int_equal(o.limits.value[CR_LIMIT_MEMORY], 512ull << 20);
	assert_int_equal(o.limits.value[CR_LIMIT_MEMORY_SWAP], 1ull << 30);
	assert_int_equal(o.limits.value[CR_LIMIT_PIDS], CR_LIMIT_INFINITY);
	assert_int_equal(o.limits.value[CR_LIMIT_CPU], 1500);
	assert_int_equal(o.limits.value[CR_LIMIT_CPU_TIME], 10);
	assert_int_equal(o.limits.value[CR_LIMIT_FILE_SIZE], 2ull << 30);
	assert_int_equal(o.limits.value[CR_LIMIT_OPEN_FILES], 64);
	for (int l = 0; l < _CR_LIMIT_MAX; l++)
		assert_true(o.limits.set[l]);
	assert_true(o.limits.required);
	cr_run_options_done(&o);
	assert_int_equal(cr_cli_parse_run(5, bad, &o, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "--memory: '512X' is not bytes with an optional K, M, G or T suffix, or max");
	assert_int_equal(cr_cli_parse_run(4, mode, &o, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "--limits: unknown mode 'strict' (expected best-effort or required)");
}

static void test_discover_v2(void **state)
{
	struct cr_cgroup_host h;
	char base[512];

	assert_int_equal(cr_cgroup_discover(FIX("v2.mountinfo"), FIX("v2.cgroup"), &h), 0);
	assert_string_equal(h.v2_mount, "/sys/fs/cgroup");
	assert_string_equal(h.v2_path, "/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope");
	for (int c = 0; c < _CR_CTL_MAX; c++)
		assert_string_equal(h.v1_mount[c], "");
	assert_int_equal(cr_cgroup_v2_base(&h, true, base, sizeof(base)), 0);
	assert_string_equal(base, "/sys/fs/cgroup/corral");
	assert_int_equal(cr_cgroup_v2_base(&h, false, base, sizeof(base)), 0);
	assert_string_equal(base, "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope");
	assert_int_equal(cr_cgroup_v2_base(&h, false, base, 16), -ENAMETOOLONG);
}

static void test_discover_v2_launcher_leaf(void **state)
{
	struct cr_cgroup_host h;
	char base[512];

	/* corral already moved itself into its leaf: runs go beside it, in the delegated parent */
	assert_int_equal(cr_cgroup_discover(FIX("v2.mountinfo"), FIX("v2-launcher.cgroup"), &h), 0);
	assert_string_equal(h.v2_path, "/delegated/corral-launcher");
	assert_int_equal(cr_cgroup_v2_base(&h, false, base, sizeof(base)), 0);
	assert_string_equal(base, "/sys/fs/cgroup/delegated");
}

static void test_discover_hybrid(void **state)
{
	struct cr_cgroup_host h;
	char base[512];

	assert_int_equal(cr_cgroup_discover(FIX("hybrid.mountinfo"), FIX("hybrid.cgroup"), &h), 0);
	assert_string_equal(h.v2_mount, "/sys/fs/cgroup/unified");
	assert_string_equal(h.v2_path, "/");
	assert_string_equal(h.v1_mount[CR_CTL_MEMORY], "/sys/fs/cgroup/memory");
	assert_string_equal(h.v1_path[CR_CTL_MEMORY], "/process_api/b08cde36d46ad679038080c06dbe0bec");
	assert_string_equal(h.v1_mount[CR_CTL_PIDS], "/sys/fs/cgroup/pids");
	assert_string_equal(h.v1_path[CR_CTL_PIDS], "/");
	assert_string_equal(h.v1_mount[CR_CTL_CPU], "/sys/fs/cgroup/cpu"); /* not cpuacct, cpuset */
	assert_string_equal(h.v1_path[CR_CTL_CPU], "/");
	assert_int_equal(cr_cgroup_v2_base(&h, false, base, sizeof(base)), 0);
	assert_string_equal(base, "/sys/fs/cgroup/unified");
}

static void test_discover_v1_only(void **state)
{
	struct cr_cgroup_host h;
	char base[512];

	/* a container: hierarchies mounted at its own cgroup; paths become relative to them */
	assert_int_equal(cr_cgroup_discover(FIX("v1.mountinfo"), FIX("v1.cgroup"), &h), 0);
	assert_string_equal(h.v2_mount, "");
	assert_string_equal(h.v1_mount[CR_CTL_MEMORY], "/sys/fs/cgroup/memory");
	assert_string_equal(h.v1_path[CR_CTL_MEMORY], "/job");
	assert_string_equal(h.v1_path[CR_CTL_PIDS], "/");
	assert_string_equal(h.v1_mount[CR_CTL_CPU], "/sys/fs/cgroup/cpu,cpuacct");
	assert_string_equal(h.v1_path[CR_CTL_CPU], "/");
	assert_int_equal(cr_cgroup_v2_base(&h, true, base, sizeof(base)), -ENOENT);
}

static void test_discover_missing(void **state)
{
	struct cr_cgroup_host h = { .v2_mount = "untouched" };

	assert_int_equal(cr_cgroup_discover(FIX("nope"), FIX("v2.cgroup"), &h), -ENOENT);
	assert_string_equal(h.v2_mount, "untouched");
	/* listed in no hierarchy of the mounts: nothing usable */
	assert_int_equal(cr_cgroup_discover(FIX("hybrid.mountinfo"), FIX("v2.cgroup"), &h), 0);
	assert_string_equal(h.v2_mount, "/sys/fs/cgroup/unified");
	assert_string_equal(h.v1_mount[CR_CTL_MEMORY], "");
	assert_int_equal(cr_cgroup_discover(FIX("v1.mountinfo"), FIX("v2.cgroup"), &h), 0);
	assert_string_equal(h.v2_mount, "");
}

static void test_report_json(void **state)
{
	struct cr_limits_report rep = {};
	json_object *o, *m;

	rep.value[CR_LIMIT_MEMORY] = 64ull << 20;
	rep.mode[CR_LIMIT_MEMORY] = CR_LIMIT_MODE_CGROUP1;
	rep.value[CR_LIMIT_MEMORY_SWAP] = 0; /* the default that comes with --memory */
	rep.mode[CR_LIMIT_MEMORY_SWAP] = CR_LIMIT_MODE_CGROUP1;
	rep.value[CR_LIMIT_PIDS] = CR_LIMIT_INFINITY;
	rep.value[CR_LIMIT_CPU] = 500;
	strcpy(rep.why[CR_LIMIT_CPU], "no cpu controller");
	o = cr_limits_report_json(&rep);
	assert_non_null(o);
	assert_int_equal(json_object_object_length(o), _CR_LIMIT_MAX);
	m = json_object_object_get(o, "memory");
	assert_int_equal(json_object_get_int64(json_object_object_get(m, "value")), 64 << 20);
	assert_string_equal(json_object_get_string(json_object_object_get(m, "mode")), "cgroup1");
	m = json_object_object_get(o, "memory_swap");
	assert_int_equal(json_object_get_type(json_object_object_get(m, "value")), json_type_int);
	m = json_object_object_get(o, "pids");
	assert_string_equal(json_object_get_string(json_object_object_get(m, "value")), "max");
	assert_string_equal(json_object_get_string(json_object_object_get(m, "mode")), "none");
	m = json_object_object_get(o, "cpu");
	assert_true(json_object_get_double(json_object_object_get(m, "value")) == 0.5);
	assert_string_equal(json_object_get_string(json_object_object_get(m, "reason")),
			    "no cpu controller");
	m = json_object_object_get(o, "open_files");
	assert_true(json_object_object_get_ex(m, "value", NULL));
	assert_null(json_object_object_get(m, "value"));
	json_object_put(o);
}

/* Half the RAM, at least 2 GiB (or 3/4 of a small host's), whole MiB. */
static void test_default_memory(void **state)
{
	assert_int_equal(cr_limit_default_memory(24ull << 30), 12ull << 30);
	assert_int_equal(cr_limit_default_memory(64ull << 30), 32ull << 30);
	assert_int_equal(cr_limit_default_memory(3ull << 30), 2ull << 30);
	assert_int_equal(cr_limit_default_memory(2ull << 30), 1536ull << 20);
	assert_int_equal(cr_limit_default_memory((24ull << 30) + 12345), 12ull << 30);
	assert_int_equal(cr_limit_default_memory(25276510208ull) % (1 << 20), 0);
	assert_int_equal(cr_limit_default_memory(0), CR_DEFAULT_MEMORY_MIN);
	assert_true(cr_limit_default_memory(4096) > 0);
}

/* A caller's cgroup path (the OCI door's linux.cgroupsPath): what names a cgroup below the
 * hierarchy's root, and where it is in each hierarchy. */
static void test_place_path(void **state)
{
	char err[256], buf[512];

	(void)state;
	assert_int_equal(cr_cgroup_path_check("/libpod_parent/libpod-abc", err, sizeof(err)), 0);
	assert_int_equal(cr_cgroup_path_check("/k8s.io/0123", err, sizeof(err)), 0);
	assert_int_equal(cr_cgroup_path_check("relative/box", err, sizeof(err)), 0);
	assert_int_equal(cr_cgroup_path_check("system.slice:libpod:abc", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "systemd form"));
	assert_int_equal(cr_cgroup_path_check("/", err, sizeof(err)), -EINVAL);
	assert_int_equal(cr_cgroup_path_check("//", err, sizeof(err)), -EINVAL);
	assert_int_equal(cr_cgroup_path_check("", err, sizeof(err)), -EINVAL);
	assert_int_equal(cr_cgroup_path_check("/a/../../b", err, sizeof(err)), -EINVAL);
	assert_int_equal(cr_cgroup_path_check("..", err, sizeof(err)), -EINVAL);
	assert_int_equal(cr_cgroup_path_check("/a/./b", err, sizeof(err)), -EINVAL);
	assert_int_equal(cr_cgroup_path_check("/a/..b/c", err, sizeof(err)), 0);

	assert_int_equal(cr_cgroup_path_resolve("/sys/fs/cgroup/memory", "/user/1", "/k8s.io/x", buf,
						sizeof(buf)), 0);
	assert_string_equal(buf, "/sys/fs/cgroup/memory/k8s.io/x");
	assert_int_equal(cr_cgroup_path_resolve("/sys/fs/cgroup/memory", "/user/1", "box", buf,
						sizeof(buf)), 0);
	assert_string_equal(buf, "/sys/fs/cgroup/memory/user/1/box");
	assert_int_equal(cr_cgroup_path_resolve("/sys/fs/cgroup", "/", "box", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/sys/fs/cgroup/box");
	assert_int_equal(cr_cgroup_path_resolve("/sys/fs/cgroup", "/", "box", buf, 8), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_bytes),
		cmocka_unit_test(test_parse_bytes_bad),
		cmocka_unit_test(test_parse_counts),
		cmocka_unit_test(test_parse_cpu),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_cli_options),
		cmocka_unit_test(test_discover_v2),
		cmocka_unit_test(test_discover_v2_launcher_leaf),
		cmocka_unit_test(test_discover_hybrid),
		cmocka_unit_test(test_discover_v1_only),
		cmocka_unit_test(test_discover_missing),
		cmocka_unit_test(test_report_json),
		cmocka_unit_test(test_default_memory),
		cmocka_unit_test(test_place_path),
	};

	return cmocka_run_group_tests_name("cgroup", tests, NULL, NULL);
}
