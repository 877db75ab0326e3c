/* SPDX-License-Identifier: MIT */
/* launcher/oci/policy.c: config.json turned into the policy the Linux driver enforces, over the
 * engines' fixtures (tests/unit/fixtures/oci): the explicit filesystem in order, the floor, the
 * namespaces, ids and limits, and what is refused, by field. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "launcher/base/macro.h"
#include "launcher/oci/bundle.h"
#include "launcher/oci/policy.h"

#define FIX(name) CR_OCI_FIXTURES "/" name

static char *slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "re");
	char *buf = malloc(1 << 20);
	size_t n;

	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	*ret_len = n;
	return buf;
}

/* The runtime's --userns for build(). */
static enum cr_oci_userns build_userns = CR_OCI_USERNS_AUTO;

/* Build the policy of fixture @name with its first @from replaced by @to (NULL: as it is), for
 * a caller of @uid; returns the builder's result, @err its message. */
static int build(const char *name, const char *from, const char *to, uint32_t uid,
		 struct cr_oci_config *c, struct cr_policy *p, char *err, size_t size)
{
	size_t len;
	char *text = slurp(name, &len), *edited = NULL;
	struct cr_oci_caller caller = { .uid = uid, .gid = uid, .userns = build_userns,
				       .host_root = uid == 0 };
	int r;

	if (from) {
		char *at = strstr(text, from);

		assert_non_null(at);
		assert_true(asprintf(&edited, "%.*s%s%s", (int)(at - text), text, to,
				     at + strlen(from)) > 0);
		free(text);
		text = edited;
		len = strlen(text);
	}
	r = cr_oci_config_parse(text, len, c, err, size);
	if (r != 0)
		print_error("%s: %s\n", name, err);
	assert_int_equal(r, 0);
	r = cr_oci_policy_build(c, "/srv/bundle", &caller, p, err, size);
	free(text);
	return r;
}

static void done(struct cr_oci_config *c, struct cr_policy *p)
{
	strv_freep(&p->argv);
	cr_policy_done(p);
	cr_oci_config_done(c);
}

static void test_runc_spec(void **state)
{
	struct cr_oci_config c;
	struct cr_policy p;
	char err[512] = "";
	/* runc spec's terminal is refused by create, not here */
	int r = build(FIX("runc-spec.json"), NULL, NULL, 0, &c, &p, err, sizeof(err));

	assert_int_equal(r, 0);
	assert_true(p.ex.on);
	/* the root first, bound from the bundle, then the mounts in order */
	assert_int_equal(p.fs_ops[0].kind, CR_FS_BIND);
	assert_string_equal(p.fs_ops[0].src, "/srv/bundle/rootfs");
	assert_string_equal(p.fs_ops[0].dst, "/");
	assert_int_equal(p.fs_ops[1].kind, CR_FS_PROC);
	assert_int_equal(p.fs_ops[2].kind, CR_FS_DEV); /* tmpfs on /dev; its devpts is dropped */
	assert_int_equal(p.fs_ops[3].kind, CR_FS_TMPFS);
	assert_string_equal(p.fs_ops[3].dst, "/dev/shm");
	assert_int_equal(p.fs_ops[3].mode, 01777);
	assert_int_equal(p.fs_ops[3].size, 65536 << 10);
	assert_int_equal(p.fs_ops[4].kind, CR_FS_MQUEUE);
	assert_int_equal(p.fs_ops[5].kind, CR_FS_BIND);
	assert_string_equal(p.fs_ops[5].src, "/sys");
	assert_true(p.fs_ops[5].flags & CR_FS_RO);
	/* root.readonly: the last operation */
	assert_int_equal(p.fs_ops[p.n_fs_ops - 1].kind, CR_FS_REMOUNT_RO);
	assert_string_equal(p.fs_ops[p.n_fs_ops - 1].dst, "/");
	/* the floor */
	assert_int_equal(p.seccomp, CR_SECCOMP_DEFAULT);
	assert_true(p.ex.harden_proc);
	assert_true(p.ex.as_pid_1);
	assert_int_equal(p.limits.value[CR_LIMIT_PIDS], CR_DEFAULT_PIDS);
	/* namespaces, the network, the process */
	/* root without a user namespace: corral adds one (--userns auto, the default) */
	assert_int_equal(p.ex.namespaces,
			 CR_NS_USER | CR_NS_PID | CR_NS_NET | CR_NS_IPC | CR_NS_UTS | CR_NS_CGROUP);
	assert_true(p.ex.idmap_root);
	assert_int_equal(p.ex.host_uid, 65534);
	assert_int_equal(p.ex.host_gid, 65534);
	assert_false(p.ex.nested_userns);
	assert_int_equal(p.net, CR_NET_NONE);
	assert_string_equal(p.argv[0], "sh");
	assert_string_equal(p.cwd, "/");
	assert_int_equal(p.ex.caps, (1ull << 29) | (1ull << 5) | (1ull << 10)); /* AUDIT_WRITE KILL NET_BIND_SERVICE */
	done(&c, &p);
}

static void test_rootless(void **state)
{
	struct cr_oci_config c;
	struct cr_policy p;
	char err[512] = "";
	int r = build(FIX("runc-spec-rootless.json"), NULL, NULL, 1000, &c, &p, err, sizeof(err));

	assert_int_equal(r, 0);
	assert_true(p.ex.namespaces & CR_NS_USER);
	assert_false(p.ex.nested_userns);
	assert_int_equal(p.ex.uid, 0);
	done(&c, &p);
	/* the same config for another user than its mappings name */
	r = build(FIX("runc-spec-rootless.json"), NULL, NULL, 4242, &c, &p, err, sizeof(err));
	assert_int_equal(r, -EOPNOTSUPP);
	assert_non_null(strstr(err, "linux.uidMappings: corral maps one id yet"));
	done(&c, &p);
}

/* Root's container without a user namespace under each mode, and the annotation narrowing it. */
static void test_userns_modes(void **state)
{
	static const struct {
		enum cr_oci_userns mode;
		const char *annotation; /* NULL: none */
		int r;
		bool added;
	} cases[] = {
		{ CR_OCI_USERNS_AUTO, NULL, 0, true },
		{ CR_OCI_USERNS_REQUIRED, NULL, 0, true },
		{ CR_OCI_USERNS_SPEC, NULL, 0, false },
		{ CR_OCI_USERNS_SPEC, "auto", 0, true },
		{ CR_OCI_USERNS_SPEC, "required", 0, true },
		{ CR_OCI_USERNS_SPEC, "spec", 0, false },
		/* an annotation must not give host root */
		{ CR_OCI_USERNS_AUTO, "spec", -EPERM, false },
		{ CR_OCI_USERNS_REQUIRED, "spec", -EPERM, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cr_oci_config c = {};
		struct cr_policy p = { .ex = { .userns_fd = -1, .pidns_fd = -1 } };
		const char *keys[] = { "io.corral.userns" }, *values[] = { cases[i].annotation };
		char err[256] = "";
		int r;

		c.annotations = (struct cr_oci_map){ .keys = keys, .values = values,
						     .n = cases[i].annotation ? 1 : 0 };
		r = cr_oci_userns_apply(&c, true, cases[i].mode, &p, err, sizeof(err));
		assert_int_equal(r, cases[i].r);
		assert_int_equal(p.ex.idmap_root, cases[i].added);
		assert_int_equal(!!(p.ex.namespaces & CR_NS_USER), cases[i].added);
		if (r < 0)
			assert_non_null(strstr(err, "needs the runtime's --userns spec"));
		/* a caller other than host root (root of rootless podman's user namespace too), or a
		 * config with its own: nothing added */
		p = (struct cr_policy){ .ex = { .userns_fd = -1, .pidns_fd = -1 } };
		r = cr_oci_userns_apply(&c, false, cases[i].mode, &p, err, sizeof(err));
		assert_false(p.ex.idmap_root);
		p = (struct cr_policy){ .ex = { .userns_fd = -1, .pidns_fd = -1, .namespaces = CR_NS_USER } };
		r = cr_oci_userns_apply(&c, true, cases[i].mode, &p, err, sizeof(err));
		assert_false(p.ex.idmap_root);
		/* a pod's container, joining another's pid namespace: none added yet; required
		 * refuses it */
		p = (struct cr_policy){ .ex = { .userns_fd = -1, .pidns_fd = 7 } };
		r = cr_oci_userns_apply(&c, true, cases[i].mode, &p, err, sizeof(err));
		assert_false(p.ex.idmap_root);
		if (cases[i].r == 0 && (cases[i].annotation ? strcmp(cases[i].annotation, "required") == 0
							   : cases[i].mode == CR_OCI_USERNS_REQUIRED))
			assert_int_equal(r, -EOPNOTSUPP);
	}
}

static void test_refused(void **state)
{
	static const struct {
		const char *fixture, *from, *to, *err;
	} cases[] = {
		{ "runc-spec.json", "\"type\": \"mount\"", "\"type\": \"mount\", \"path\": \"/proc/1/ns/mnt\"",
		  "linux.namespaces[4].path: joining a mount namespace is not supported" },
		{ "runc-spec.json", "\"type\": \"pid\"", "\"type\": \"user\"",
		  "linux.namespaces: corral runs a container in a pid namespace of its own" },
		{ "runc-spec.json", "\"type\": \"network\"", "\"type\": \"network\", \"path\": \"/nonexistent/ns\"",
		  "linux.namespaces[1].path: /nonexistent/ns: No such file or directory" },
		{ "runc-spec.json", "\"type\": \"proc\"", "\"type\": \"nfs\"",
		  "mounts[0].type: 'nfs' is not supported by corral yet" },
		/* under --userns spec (below): with the user namespace auto adds, uid 7 is mapped */
		{ "runc-spec.json", "\"uid\": 0", "\"uid\": 7",
		  "process.user: without a user namespace corral runs the process as the caller" },
		/* podman's sysctl with the host's network: it would change the host's */
		{ "podman.json", "\"type\": \"network\",\n\t\t\t\t\"path\": \"/run/netns/netns-1c2d3e4f\"",
		  "\"type\": \"user\"", "linux.sysctl.net.ipv4.ping_group_range: the container shares the host's network namespace" },
	};

	build_userns = CR_OCI_USERNS_SPEC;
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct cr_oci_config c;
		struct cr_policy p;
		char path[512], err[512] = "";
		int r;

		(void)snprintf(path, sizeof(path), "%s/%s", CR_OCI_FIXTURES, cases[i].fixture);
		r = build(path, cases[i].from, cases[i].to, 0, &c, &p, err, sizeof(err));
		if (r >= 0 || !strstr(err, cases[i].err))
			print_error("case %zu: r=%d err=%s\n", i, r, err);
		assert_true(r < 0);
		assert_non_null(strstr(err, cases[i].err));
		done(&c, &p);
	}
	build_userns = CR_OCI_USERNS_AUTO;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runc_spec),
		cmocka_unit_test(test_rootless),
		cmocka_unit_test(test_userns_modes),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
