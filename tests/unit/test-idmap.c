/* SPDX-License-Identifier: MIT */
/* Unit tests for ns/idmap.c (the id mapping), launcher/base/mountinfo.c (the lines that its messages read)
 * and the namespace tables of ns/ns.h. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "launcher/policy/request.h"
#include "ns/idmap.h"
#include "launcher/base/mountinfo.h"
#include "ns/ns.h"

static void expect_map(const struct cr_idmap *m, uint32_t in_uid, uint32_t out_uid,
		       uint32_t in_gid, uint32_t out_gid)
{
	assert_int_equal(m->inside_uid, in_uid);
	assert_int_equal(m->outside_uid, out_uid);
	assert_int_equal(m->inside_gid, in_gid);
	assert_int_equal(m->outside_gid, out_gid);
}

static void test_user_maps_to_self(void **state)
{
	struct cr_idmap m;

	cr_idmap_compute(1000, 1000, false, CR_DEFAULT_SANDBOX_ID, CR_DEFAULT_SANDBOX_ID, &m);
	expect_map(&m, 1000, 1000, 1000, 1000);
	cr_idmap_compute(1000, 100, false, CR_DEFAULT_SANDBOX_ID, CR_DEFAULT_SANDBOX_ID, &m);
	expect_map(&m, 1000, 1000, 100, 100);
}

static void test_user_ignores_root_ids(void **state)
{
	struct cr_idmap m;

	/* --uid/--gid only apply when corral runs as root. */
	cr_idmap_compute(1000, 1001, false, 4242, 4343, &m);
	expect_map(&m, 1000, 1000, 1001, 1001);
	cr_idmap_compute(1000, 1001, true, 4242, 4343, &m);
	expect_map(&m, 0, 1000, 0, 1001);
}

static void test_user_map_root(void **state)
{
	struct cr_idmap m;

	cr_idmap_compute(1000, 1000, true, CR_DEFAULT_SANDBOX_ID, CR_DEFAULT_SANDBOX_ID, &m);
	expect_map(&m, 0, 1000, 0, 1000);
}

static void test_root_default(void **state)
{
	struct cr_idmap m;

	cr_idmap_compute(0, 0, false, CR_DEFAULT_SANDBOX_ID, CR_DEFAULT_SANDBOX_ID, &m);
	expect_map(&m, 65534, 65534, 65534, 65534);
	assert_int_not_equal(m.outside_uid, 0);
	assert_int_not_equal(m.outside_gid, 0);
}

static void test_root_custom_ids(void **state)
{
	struct cr_idmap m;

	cr_idmap_compute(0, 0, false, 1234, 5678, &m);
	expect_map(&m, 1234, 1234, 5678, 5678);
	/* Root's own gid does not leak through either, whatever it is. */
	cr_idmap_compute(0, 10, false, 1234, 5678, &m);
	expect_map(&m, 1234, 1234, 5678, 5678);
}

static void test_root_map_root(void **state)
{
	struct cr_idmap m;

	cr_idmap_compute(0, 0, true, CR_DEFAULT_SANDBOX_ID, CR_DEFAULT_SANDBOX_ID, &m);
	expect_map(&m, 0, 65534, 0, 65534);
	cr_idmap_compute(0, 0, true, 2000, 3000, &m);
	expect_map(&m, 0, 2000, 0, 3000);
}

static void test_format(void **state)
{
	char buf[64];
	int n;

	memset(buf, 'x', sizeof(buf));
	assert_int_equal(cr_idmap_format(0, 1000, buf, sizeof(buf)), 9);
	assert_string_equal(buf, "0 1000 1\n");
	assert_int_equal(cr_idmap_format(65534, 65534, buf, sizeof(buf)), 14);
	assert_string_equal(buf, "65534 65534 1\n");
	assert_int_equal(cr_idmap_format(4294967294u, 4294967294u, buf, sizeof(buf)), 24);
	assert_string_equal(buf, "4294967294 4294967294 1\n");
	n = cr_idmap_format(1000, 1001, buf, sizeof(buf));
	assert_int_equal(n, (int)strlen(buf));
	assert_string_equal(buf, "1000 1001 1\n");
}

static void test_format_from_compute(void **state)
{
	struct cr_idmap m;
	char uid_line[64], gid_line[64];

	cr_idmap_compute(0, 0, true, 1234, 5678, &m);
	(void)cr_idmap_format(m.inside_uid, m.outside_uid, uid_line, sizeof(uid_line));
	(void)cr_idmap_format(m.inside_gid, m.outside_gid, gid_line, sizeof(gid_line));
	assert_string_equal(uid_line, "0 1234 1\n");
	assert_string_equal(gid_line, "0 5678 1\n");
}

static void test_clone_flags(void **state)
{
	const unsigned long all = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET |
				  CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;

	assert_int_equal(cr_ns_clone_flags(CR_NET_NONE), all);
	assert_int_equal(cr_ns_clone_flags(CR_NET_HOST), all & ~(unsigned long)CLONE_NEWNET);
	assert_false(cr_ns_clone_flags(CR_NET_HOST) & CLONE_NEWNET);
	/* Nothing but namespaces: no CLONE_VM, CLONE_FILES, ... */
	assert_int_equal(cr_ns_clone_flags(CR_NET_NONE) & ~all, 0);
}

static void test_ns_names(void **state)
{
	static const struct {
		unsigned long flag;
		const char *name;
	} want[] = {
		{ CLONE_NEWUSER, "user" }, { CLONE_NEWNS, "mount" }, { CLONE_NEWPID, "pid" },
		{ CLONE_NEWNET, "net" },   { CLONE_NEWIPC, "ipc" },  { CLONE_NEWUTS, "uts" },
		{ CLONE_NEWCGROUP, "cgroup" },
	};
	unsigned long flags = cr_ns_clone_flags(CR_NET_NONE);

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(cr_ns_name(want[i].flag), want[i].name);
	/* Every flag corral uses has a name. */
	for (unsigned bit = 0; bit < 8 * sizeof(flags); bit++)
		if (flags & (1UL << bit))
			assert_non_null(cr_ns_name(1UL << bit));
	assert_null(cr_ns_name(0));
	assert_null(cr_ns_name(CLONE_VM));
	assert_null(cr_ns_name(CLONE_NEWUSER | CLONE_NEWNS));
	assert_null(cr_ns_name(CLONE_NEWTIME));
}

/* The kernel's lines, with and without optional fields; escaped paths decoded. */
static void test_mountinfo_parse(void **state)
{
	char plain[] = "239 238 0:105 / /tmp/oci/proc rw,nosuid - proc proc rw";
	char opt[] = "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 shared:2 - ext3 /dev/root rw";
	char esc[] = "7 1 0:5 / /w/sub\\040dir/a\\012b\\134c\\011d rw - fuse\\040x src rw";
	struct cr_mountinfo mi;

	assert_int_equal(cr_mountinfo_parse(plain, &mi), 0);
	assert_int_equal(mi.id, 239);
	assert_string_equal(mi.mount_point, "/tmp/oci/proc");
	assert_string_equal(mi.fstype, "proc");
	assert_int_equal(cr_mountinfo_parse(opt, &mi), 0);
	assert_int_equal(mi.id, 36);
	assert_string_equal(mi.mount_point, "/mnt2");
	assert_string_equal(mi.fstype, "ext3");
	assert_int_equal(cr_mountinfo_parse(esc, &mi), 0);
	assert_string_equal(mi.mount_point, "/w/sub dir/a\nb\\c\td");
	assert_string_equal(mi.fstype, "fuse x");
}

/* Whatever else: refused, never read past the line. */
static void test_mountinfo_parse_bad(void **state)
{
	const char *bad[] = {
		"",
		"1 2 0:1 / /m rw",
		"1 2 0:1 / /m rw shared:1",
		"x 2 0:1 / /m rw - ext4 s rw",
		"1 2 0:1 / rel rw - ext4 s rw",
		"1 2 0:1 / /m rw - ",
		"1 2 0:1 / /a\\000b rw - ext4 s rw",
		"1 2 0:1 /  rw - ext4 s rw",
	};
	struct cr_mountinfo mi;
	char line[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		(void)snprintf(line, sizeof(line), "%s", bad[i]);
		assert_int_equal(cr_mountinfo_parse(line, &mi), -EINVAL);
	}
}

/* A path for a message on one line: control characters and backslashes escaped, truncated
 * whole escapes only. */
static void test_mountinfo_printable(void **state)
{
	char buf[32];

	cr_mountinfo_printable("/w/a b/n\nl\\x\x7f", buf, sizeof(buf));
	assert_string_equal(buf, "/w/a b/n\\012l\\134x\\177");
	cr_mountinfo_printable("/ab\n", buf, 6);
	assert_string_equal(buf, "/ab");
	cr_mountinfo_printable("/abcdef", buf, 4);
	assert_string_equal(buf, "/ab");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_maps_to_self),
		cmocka_unit_test(test_user_ignores_root_ids),
		cmocka_unit_test(test_user_map_root),
		cmocka_unit_test(test_root_default),
		cmocka_unit_test(test_root_custom_ids),
		cmocka_unit_test(test_root_map_root),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_from_compute),
		cmocka_unit_test(test_clone_flags),
		cmocka_unit_test(test_ns_names),
		cmocka_unit_test(test_mountinfo_parse),
		cmocka_unit_test(test_mountinfo_parse_bad),
		cmocka_unit_test(test_mountinfo_printable),
	};

	return cmocka_run_group_tests_name("idmap", tests, NULL, NULL);
}
