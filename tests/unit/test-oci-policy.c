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
#include <sys/mount.h>

#include <cmocka.h>

#include "launcher/base/macro.h"
#include "launcher/oci/bundle.h"
#include "launcher/oci/idmaps.h"
#include "launcher/oci/lsm.h"
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
	assert_string_equal(p.fs_ops[3].src, "shm"); /* the mount table's source */
	assert_int_equal(p.fs_ops[4].kind, CR_FS_MQUEUE);
	/* root, a network namespace of its own: a sysfs of its own, not the host's */
	assert_int_equal(p.fs_ops[5].kind, CR_FS_SYSFS);
	assert_string_equal(p.fs_ops[5].dst, "/sys");
	/* root.readonly: the last operation */
	assert_int_equal(p.fs_ops[p.n_fs_ops - 1].kind, CR_FS_REMOUNT_RO);
	assert_string_equal(p.fs_ops[p.n_fs_ops - 1].dst, "/");
	/* the floor */
	assert_int_equal(p.seccomp, CR_SECCOMP_DEFAULT);
	assert_true(p.ex.harden_proc);
	assert_true(p.ex.as_pid_1);
	assert_true(p.ex.binds_in_order); /* the mount table in mounts[]' order */
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
	/* the user namespace corral added, no CAP_SYS_RESOURCE kept: the process stays in it, its
	 * limit 0 */
	assert_true(p.ex.userns_limit_own);
	done(&c, &p);
	/* a mount namespace by path (even the caller's own): entered once the root is built */
	assert_int_equal(build(FIX("runc-spec.json"), "\"type\": \"mount\"",
			       "\"type\": \"mount\", \"path\": \"/proc/self/ns/mnt\"", 0, &c, &p, err,
			       sizeof(err)),
			 0);
	assert_true(p.ex.join_mnt);
	assert_true(p.ex.mntns_fd >= 0);
	(void)close(p.ex.mntns_fd);
	done(&c, &p);
}

/* process.noNewPrivileges and the capability sets as config.json gives them */
/* runtime-spec: process is optional at create (start refuses it, lifecycle.c): the container is
 * built around a command that is never released and that could not run */
static void test_no_process(void **state)
{
	struct cr_oci_config c;
	struct cr_policy p;
	char err[512] = "";
	int r = build(FIX("runc-spec.json"), "\"process\"", "\"x-process\"", 0, &c, &p, err,
		      sizeof(err));

	assert_int_equal(r, 0);
	assert_false(c.process.present);
	assert_string_equal(p.argv[0], "/");
	assert_null(p.argv[1]);
	assert_null(p.env[0]);
	assert_string_equal(p.cwd, "/");
	done(&c, &p);
	(void)state;
}

static void test_privileges(void **state)
{
	const uint64_t kept = (1ull << 29) | (1ull << 5) | (1ull << 10);
	struct cr_oci_config c;
	struct cr_policy p;
	char err[512] = "";
	int r = build(FIX("runc-spec.json"), NULL, NULL, 0, &c, &p, err, sizeof(err));

	assert_int_equal(r, 0);
	assert_false(p.ex.new_privs); /* noNewPrivileges: true */
	assert_true(p.ex.caps_exact);
	/* runc spec lists no inheritable set: no ambient capability can be raised either */
	assert_int_equal(p.ex.caps_inh, 0);
	assert_int_equal(p.ex.caps_amb, 0);
	done(&c, &p);
	r = build(FIX("runc-spec.json"), "\"noNewPrivileges\": true",
		  "\"noNewPrivileges\": false", 0, &c, &p, err, sizeof(err));
	assert_int_equal(r, 0);
	assert_true(p.ex.new_privs);
	/* the floor stays: corral's denylist is still the policy's filter */
	assert_int_equal(p.seccomp, CR_SECCOMP_DEFAULT);
	done(&c, &p);
	/* an inheritable set: the ambient one within it; a capability outside the bounding set is
	 * in neither */
	r = build(FIX("runc-spec.json"), "\"effective\": [",
		  "\"inheritable\": [\"CAP_KILL\", \"CAP_AUDIT_WRITE\", \"CAP_SYS_ADMIN\"], \"effective\": [",
		  0, &c, &p, err, sizeof(err));
	assert_int_equal(r, 0);
	assert_int_equal(p.ex.caps, kept);
	assert_int_equal(p.ex.caps_inh, (1ull << 29) | (1ull << 5));
	assert_int_equal(p.ex.caps_amb, (1ull << 29) | (1ull << 5));
	done(&c, &p);
	/* root, no user namespace, another user: built as root, then that user's ids and groups */
	r = build(FIX("runc-spec.json"), "\"gid\": 0", "\"gid\": 8, \"additionalGids\": [5, 9]", 0,
		  &c, &p, err, sizeof(err));
	assert_int_equal(r, 0);
	assert_int_equal(p.ex.uid, 0);
	assert_true(p.ex.late_ids);
	assert_int_equal(p.ex.late_uid, 0);
	assert_int_equal(p.ex.late_gid, 8);
	assert_int_equal(p.ex.n_groups, 2);
	assert_int_equal(p.ex.groups[1], 9);
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
	/* no CAP_SYS_RESOURCE kept: the process stays in its own user namespace, the limit 0 there */
	assert_true(p.ex.userns_limit_own);
	assert_int_equal(p.ex.uid, 0);
	done(&c, &p);
	/* CAP_SYS_RESOURCE in the bounding set but not permitted: never held, still 0 there */
	r = build(FIX("runc-spec-rootless.json"), "\"bounding\": [\n\t\t\t\t\"CAP_AUDIT_WRITE\",",
		  "\"bounding\": [\"CAP_SYS_RESOURCE\", \"CAP_AUDIT_WRITE\",", 1000, &c, &p, err,
		  sizeof(err));
	assert_int_equal(r, 0);
	assert_false(p.ex.caps & (1ull << 24));
	assert_true(p.ex.userns_limit_own);
	done(&c, &p);
	/* kept (it could write the limit back): a nested user namespace of one id; the original
	 * sets moved under a key the parser ignores */
	r = build(FIX("runc-spec-rootless.json"), "\"capabilities\": {",
		  "\"capabilities\": {\"bounding\": [\"CAP_SYS_RESOURCE\"], \"permitted\": [\"CAP_SYS_RESOURCE\"]}, \"unused\": {",
		  1000, &c, &p, err, sizeof(err));
	assert_int_equal(r, 0);
	assert_true(p.ex.caps & (1ull << 24));
	assert_false(p.ex.nested_userns);
	assert_false(p.ex.userns_limit_own);
	done(&c, &p);
	/* a sysfs in a user namespace without a network namespace of its own (the host's, which
	 * that user namespace does not own): the host's /sys bound read-only */
	r = build(FIX("runc-spec-rootless.json"), "\"type\": \"none\",\n\t\t\t\"source\": \"/sys\"",
		  "\"type\": \"sysfs\", \"source\": \"sysfs\"", 1000, &c, &p, err, sizeof(err));
	assert_int_equal(r, 0);
	for (size_t i = 0; i < p.n_fs_ops; i++)
		if (strcmp(p.fs_ops[i].dst, "/sys") == 0) {
			assert_int_equal(p.fs_ops[i].kind, CR_FS_BIND);
			assert_string_equal(p.fs_ops[i].src, "/sys");
			assert_true(p.fs_ops[i].flags & CR_FS_RO);
		}
	done(&c, &p);
	/* supplementary groups in a user namespace (setgroups is denied there) */
	r = build(FIX("runc-spec-rootless.json"), "\"gid\": 0", "\"gid\": 0, \"additionalGids\": [5]",
		  1000, &c, &p, err, sizeof(err));
	assert_int_equal(r, -EOPNOTSUPP);
	assert_non_null(strstr(err, "process.user.additionalGids: supplementary groups in a user namespace"));
	done(&c, &p);
	/* the same config for another user than its mappings name */
	r = build(FIX("runc-spec-rootless.json"), NULL, NULL, 4242, &c, &p, err, sizeof(err));
	assert_int_equal(r, -EPERM);
	assert_non_null(strstr(err, "linux.uidMappings: a caller other than root maps one id"));
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

/* What needs host root's own user namespace: auto follows the spec, required refuses, naming
 * why. */
static void test_userns_unfit(void **state)
{
	static struct cr_oci_device dev = { .path = "/dev/zz0", .type = 'c', .major = 1, .minor = 5 };
	static const uint32_t groups[] = { 0, 10 };
	struct cr_oci_config c = {};
	struct cr_policy p = { .ex = { .userns_fd = -1, .pidns_fd = -1 } };
	char err[256] = "";

	assert_null(cr_oci_userns_unfit(&c, &p));
	c.devices = &dev;
	c.n_devices = 1;
	assert_non_null(strstr(cr_oci_userns_unfit(&c, &p), "linux.devices"));
	assert_int_equal(cr_oci_userns_apply(&c, true, CR_OCI_USERNS_AUTO, &p, err, sizeof(err)), 0);
	assert_false(p.ex.idmap_root);
	assert_int_equal(cr_oci_userns_apply(&c, true, CR_OCI_USERNS_REQUIRED, &p, err, sizeof(err)),
			 -EOPNOTSUPP);
	assert_non_null(strstr(err, "io.corral.userns required: linux.devices"));
	c = (struct cr_oci_config){ .hostname = "pod" };
	p.ex.joins = CR_NS_UTS;
	assert_non_null(strstr(cr_oci_userns_unfit(&c, &p), "hostname"));
	p.ex.joins = CR_NS_NET;
	assert_null(cr_oci_userns_unfit(&c, &p));
	c.process.gid = 0;
	c.process.additional_gids.v = (uint32_t *)groups;
	c.process.additional_gids.n = 2;
	assert_non_null(strstr(cr_oci_userns_unfit(&c, &p), "additionalGids"));
	c.process.additional_gids.n = 1; /* the gid itself */
	assert_null(cr_oci_userns_unfit(&c, &p));
}

static void test_refused(void **state)
{
	static const struct {
		const char *fixture, *from, *to, *err;
	} cases[] = {
		{ "runc-spec.json", "\"type\": \"pid\"", "\"type\": \"user\"",
		  "linux.namespaces: corral runs a container in a pid namespace of its own" },
		{ "runc-spec.json", "\"type\": \"network\"", "\"type\": \"network\", \"path\": \"/nonexistent/ns\"",
		  "linux.namespaces[1].path: /nonexistent/ns: No such file or directory" },
		{ "runc-spec.json", "\"type\": \"proc\"", "\"type\": \"nfs\"",
		  "mounts[0].type: 'nfs' is not supported by corral yet" },
		/* podman's sysctl with the host's network: it would change the host's */
		{ "podman.json", "\"type\": \"network\",\n\t\t\t\t\"path\": \"/run/netns/netns-1c2d3e4f\"",
		  "\"type\": \"user\"", "linux.sysctl.net.ipv4.ping_group_range: the container shares the host's network namespace" },
		/* nowhere to write it but the caller's cgroup */
		{ "runc-spec.json", "\"resources\": {", "\"resources\": {\"cpu\": {\"mems\": \"0\"},",
		  "linux.resources.cpu.mems: needs linux.cgroupsPath" },
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

/* uidMappings/gidMappings: what each caller may map, and the text written. */
static void test_idmaps(void **state)
{
	static const struct cr_oci_idmap one = { 0, 1000, 1 }, ranges[] = { { 0, 100000, 65536 },
									  { 65536, 300000, 10 } };
	static const struct cr_oci_idmap root0[] = { { 0, 100000, 10 }, { 10, 0, 1 } },
					 wide[] = { { 0, 0, 65536 } },
					 overlap[] = { { 0, 100000, 10 }, { 5, 200000, 10 } },
					 hoverlap[] = { { 0, 100000, 10 }, { 20, 100005, 10 } };
	char err[256], *text = NULL;
	uint32_t out = 7;

	/* the one id, the process's to the caller's: nothing to write but that */
	assert_int_equal(cr_oci_idmap_text(&one, 1, 0, 1000, "uidMappings", &text, &out, err,
					   sizeof(err)), 0);
	assert_null(text);
	assert_int_equal(out, 1000);
	assert_int_equal(cr_oci_idmap_text(NULL, 0, 0, 1000, "uidMappings", &text, &out, err,
					   sizeof(err)), 0);
	/* a user: ranges refused (no set-id helper) */
	assert_int_equal(cr_oci_idmap_text(ranges, 2, 0, 1000, "uidMappings", &text, &out, err,
					   sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "a caller other than root maps one id"));
	/* root: ranges, written whole; the process's host id found */
	assert_int_equal(cr_oci_idmap_text(ranges, 2, 65537, 0, "gidMappings", &text, &out, err,
					   sizeof(err)), 0);
	assert_string_equal(text, "0 100000 65536\n65536 300000 10\n");
	assert_int_equal(out, 300001);
	free(text);
	/* root: host root in a range, overlaps, an unmapped process */
	assert_int_equal(cr_oci_idmap_text(root0, 2, 0, 0, "uidMappings", &text, &out, err,
					   sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "linux.uidMappings[1]: maps host id 0"));
	assert_int_equal(cr_oci_idmap_text(wide, 1, 5, 0, "uidMappings", &text, &out, err,
					   sizeof(err)), -EPERM);
	assert_int_equal(cr_oci_idmap_text(overlap, 2, 0, 0, "uidMappings", &text, &out, err,
					   sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "linux.uidMappings[1]: overlaps [0]"));
	assert_int_equal(cr_oci_idmap_text(hoverlap, 2, 0, 0, "uidMappings", &text, &out, err,
					   sizeof(err)), -EINVAL);
	assert_int_equal(cr_oci_idmap_text(ranges, 2, 70000, 0, "uidMappings", &text, &out, err,
					   sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "the process's id 70000 is not mapped"));
	assert_null(text);
}

/* linux.mountLabel: a note where SELinux is off, refused where it is on, nothing without one. */
static void test_lsm(void **state)
{
	struct cr_oci_config c = { .mount_label = "system_u:object_r:svirt_sandbox_file_t:s0" };
	char note[256], err[256] = "";

	assert_int_equal(cr_oci_lsm_check(&c, false, note, sizeof(note), err, sizeof(err)), 0);
	assert_string_equal(note, "linux.mountLabel: not applied: SELinux is not enabled on this host");
	assert_int_equal(cr_oci_lsm_check(&c, true, note, sizeof(note), err, sizeof(err)),
			 -EOPNOTSUPP);
	assert_non_null(strstr(err, "linux.mountLabel: SELinux is enabled on this host"));
	c.mount_label = "";
	assert_int_equal(cr_oci_lsm_check(&c, true, note, sizeof(note), err, sizeof(err)), 0);
	assert_string_equal(note, "");
}

/* Propagation: the names runtimes take, and where each lands in the policy. */
static void test_propagation(void **state)
{
	struct cr_oci_config c;
	struct cr_policy p;
	char err[512] = "";
	size_t n = 0;
	int r;

	assert_int_equal(cr_oci_propagation("shared"), MS_SHARED);
	assert_int_equal(cr_oci_propagation("rshared"), MS_SHARED | MS_REC);
	assert_int_equal(cr_oci_propagation("rslave"), MS_SLAVE | MS_REC);
	assert_int_equal(cr_oci_propagation("private"), MS_PRIVATE);
	assert_int_equal(cr_oci_propagation("runbindable"), MS_UNBINDABLE | MS_REC);
	assert_int_equal(cr_oci_propagation("rr"), 0);
	assert_int_equal(cr_oci_propagation("r"), 0);
	assert_int_equal(cr_oci_propagation(""), 0);
	assert_int_equal(cr_oci_propagation("Shared"), 0);
	/* a mount's option: its own operation after the mount, at its destination */
	r = build(FIX("runc-spec.json"), "\"options\": [\n\t\t\t\t\"nosuid\",\n\t\t\t\t\"noexec\",\n\t\t\t\t\"nodev\",\n\t\t\t\t\"ro\"",
		  "\"options\": [\"rslave\", \"ro\"", 0, &c, &p, err, sizeof(err));
	assert_int_equal(r, 0);
	for (size_t i = 0; i < p.n_fs_ops; i++)
		if (p.fs_ops[i].kind == CR_FS_PROPAGATION) {
			assert_string_equal(p.fs_ops[i].dst, "/sys");
			assert_int_equal(p.fs_ops[i].mode, MS_SLAVE | MS_REC);
			assert_string_equal(p.fs_ops[i - 1].dst, "/sys");
			n++;
		}
	assert_int_equal(n, 1);
	assert_int_equal(p.ex.root_propagation, 0);
	done(&c, &p);
	/* rootfsPropagation: for the driver to set once the root is / */
	r = build(FIX("runc-spec.json"), "\"linux\": {", "\"linux\": {\"rootfsPropagation\": \"shared\",",
		  0, &c, &p, err, sizeof(err));
	assert_int_equal(r, 0);
	assert_int_equal(p.ex.root_propagation, MS_SHARED);
	done(&c, &p);
}

/* With a cgroupsPath the other resources are the policy's cgroup files, the exact quota and
 * period among them (not corral's --cpu); without one the quota is --cpu and the device rules
 * (enforced by nodev) are no file. */
static void test_resources(void **state)
{
	struct cr_oci_config c;
	struct cr_policy p;
	char path[512], err[512] = "";

	(void)snprintf(path, sizeof(path), "%s/%s", CR_OCI_FIXTURES, "runc-spec.json");
	assert_int_equal(build(path, "\"resources\": {",
			       "\"cgroupsPath\": \"/a/b\", \"resources\": {\"cpu\": {\"quota\": 50000, \"period\": 500000, \"cpus\": \"0\"},",
			       0, &c, &p, err, sizeof(err)),
			 0);
	assert_ptr_equal(p.limits.files, c.resources.files);
	assert_int_equal(p.limits.n_files, c.resources.n_files);
	/* period, quota, cpus, the fixture's device rule and the 8 nodes of corral's /dev */
	assert_int_equal(p.limits.n_files, 12);
	assert_false(p.limits.set[CR_LIMIT_CPU]);
	assert_string_equal(p.limits.cgroup_path, "/a/b");
	done(&c, &p);
	assert_int_equal(build(path, "\"resources\": {",
			       "\"resources\": {\"cpu\": {\"quota\": 50000, \"period\": 500000},", 0,
			       &c, &p, err, sizeof(err)),
			 0);
	assert_int_equal(p.limits.n_files, 0);
	assert_true(p.limits.set[CR_LIMIT_CPU]);
	assert_int_equal(p.limits.value[CR_LIMIT_CPU], 100); /* 0.1 CPU */
	done(&c, &p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_propagation),
		cmocka_unit_test(test_idmaps),
		cmocka_unit_test(test_lsm),
		cmocka_unit_test(test_runc_spec),
		cmocka_unit_test(test_no_process),
		cmocka_unit_test(test_privileges),
		cmocka_unit_test(test_rootless),
		cmocka_unit_test(test_userns_modes),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_userns_unfit),
		cmocka_unit_test(test_resources),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
