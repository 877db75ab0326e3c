/* SPDX-License-Identifier: MIT */
/* launcher/oci/: config.json parsing over configs shaped like the ones engines write (fixtures
 * in tests/unit/fixtures/oci: `runc spec` and `runc spec --rootless` defaults, and configs
 * modelled on podman 4.3's, containerd 1.6 CRI's and Docker 20.10's), every unimplemented field
 * refused by its JSON path, the io.corral.* annotations, the features document and the state
 * JSON. */
#include <errno.h>
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "launcher/oci/annotations.h"
#include "launcher/oci/bundle.h"
#include "launcher/oci/features.h"
#include "launcher/oci/oom-mark.h"
#include "launcher/oci/state.h"

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

static void parse_fixture(const char *name, struct cr_oci_config *c)
{
	char err[CR_OCI_ERR_MAX] = "";
	size_t len;
	char *text = slurp(name, &len);
	int r = cr_oci_config_parse(text, len, c, err, sizeof(err));

	if (r != 0)
		print_error("%s: %s\n", name, err);
	assert_int_equal(r, 0);
	free(text);
}

/* Parse @json and expect -EINVAL with an error starting with @prefix. */
static void refused(const char *json, const char *prefix)
{
	struct cr_oci_config c;
	char err[CR_OCI_ERR_MAX] = "";
	int r = cr_oci_config_parse(json, strlen(json), &c, err, sizeof(err));

	if (r != -EINVAL || strncmp(err, prefix, strlen(prefix)) != 0)
		print_error("json %s\n  got %d '%s', want '%s...'\n", json, r, err, prefix);
	assert_int_equal(r, -EINVAL);
	assert_memory_equal(err, prefix, strlen(prefix));
	assert_null(c.doc);
	cr_oci_config_done(&c);
}

static int accepted(const char *json, struct cr_oci_config *c)
{
	char err[CR_OCI_ERR_MAX] = "";
	int r = cr_oci_config_parse(json, strlen(json), c, err, sizeof(err));

	if (r != 0)
		print_error("json %s\n  refused: %s\n", json, err);
	return r;
}

#define MIN "\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\"}"
#define PROC "\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\"}"

static uint64_t cap(const char *name)
{
	for (int i = 0; cr_oci_cap_names[i]; i++)
		if (strcmp(cr_oci_cap_names[i], name) == 0)
			return 1ULL << i;
	fail_msg("no capability %s", name);
	return 0;
}

static void test_runc_spec(void **state)
{
	struct cr_oci_config c;

	parse_fixture(FIX("runc-spec.json"), &c);
	assert_string_equal(c.oci_version, "1.0.2-dev");
	assert_string_equal(c.root_path, "rootfs");
	assert_true(c.root_readonly);
	assert_string_equal(c.hostname, "runc");
	assert_true(c.process.present && c.process.terminal && c.process.no_new_privileges);
	assert_int_equal(c.process.args.n, 1);
	assert_string_equal(c.process.args.v[0], "sh");
	assert_int_equal(c.process.env.n, 2);
	assert_string_equal(c.process.cwd, "/");
	assert_int_equal(c.process.uid, 0);
	assert_int_equal(c.process.caps[CR_OCI_CAP_BOUNDING],
			 cap("CAP_AUDIT_WRITE") | cap("CAP_KILL") | cap("CAP_NET_BIND_SERVICE"));
	assert_true(c.process.has_caps[CR_OCI_CAP_AMBIENT]);
	assert_false(c.process.has_caps[CR_OCI_CAP_INHERITABLE]);
	assert_int_equal(c.process.n_rlimits, 1);
	assert_int_equal(c.process.rlimits[0].resource, RLIMIT_NOFILE);
	assert_int_equal(c.process.rlimits[0].soft, 1024);
	/* the mounts, in order */
	assert_int_equal(c.n_mounts, 7);
	assert_string_equal(c.mounts[0].destination, "/proc");
	assert_string_equal(c.mounts[2].destination, "/dev/pts");
	assert_int_equal(c.mounts[2].options.n, 6);
	assert_string_equal(c.mounts[2].options.v[5], "gid=5");
	assert_string_equal(c.mounts[6].type, "cgroup");
	assert_int_equal(c.n_namespaces, 6);
	assert_int_equal(c.namespaces[0].type, CR_OCI_NS_PID);
	assert_int_equal(c.namespaces[5].type, CR_OCI_NS_CGROUP);
	assert_null(c.namespaces[1].path);
	assert_int_equal(c.resources.n_devices, 1);
	assert_false(c.resources.devices[0].allow);
	assert_int_equal(c.resources.devices[0].type, 'a');
	assert_string_equal(c.resources.devices[0].access, "rwm");
	assert_int_equal(c.resources.memory_limit, -1);
	assert_int_equal(c.masked_paths.n, 10);
	assert_string_equal(c.readonly_paths.v[3], "/proc/sys");
	assert_false(c.seccomp.present);
	cr_oci_config_done(&c);
	assert_null(c.doc);
}

static void test_runc_spec_rootless(void **state)
{
	struct cr_oci_config c;

	parse_fixture(FIX("runc-spec-rootless.json"), &c);
	assert_int_equal(c.n_uid_mappings, 1);
	assert_int_equal(c.uid_mappings[0].host_id, 1000);
	assert_int_equal(c.uid_mappings[0].size, 1);
	assert_int_equal(c.n_gid_mappings, 1);
	assert_int_equal(c.namespaces[c.n_namespaces - 1].type, CR_OCI_NS_USER);
	assert_string_equal(c.mounts[5].type, "none");
	assert_string_equal(c.mounts[5].options.v[0], "rbind");
	cr_oci_config_done(&c);
}

static void test_podman(void **state)
{
	struct cr_oci_config c;
	const struct cr_oci_seccomp_rule *clone;

	parse_fixture(FIX("podman.json"), &c);
	assert_int_equal(c.process.additional_gids.n, 11);
	assert_int_equal(c.process.additional_gids.v[10], 27);
	assert_true(c.process.has_umask);
	assert_int_equal(c.process.umask, 18);
	assert_true(c.process.has_oom_score_adj);
	assert_int_equal(c.process.oom_score_adj, 0);
	assert_int_equal(c.process.rlimits[1].resource, RLIMIT_NPROC);
	assert_string_equal(c.root_path, "/var/lib/containers/storage/overlay/3f1c/merged");
	assert_int_equal(c.n_mounts, 11);
	assert_string_equal(c.mounts[5].destination, "/etc/hostname");
	assert_string_equal(c.mounts[10].destination, "/sys/fs/cgroup");
	assert_int_equal(c.resources.pids_limit, 2048);
	assert_string_equal(c.cgroups_path, "/libpod_parent/libpod-90fb6884d1c2");
	assert_string_equal(c.namespaces[1].path, "/run/netns/netns-1c2d3e4f");
	assert_int_equal(c.sysctl.n, 1);
	assert_string_equal(c.sysctl.keys[0], "net.ipv4.ping_group_range");
	assert_string_equal(c.sysctl.values[0], "0 0");
	assert_int_equal(c.annotations.n, 5);
	assert_string_equal(c.annotations.keys[0], "io.container.manager");
	assert_true(c.seccomp.present);
	assert_int_equal(c.seccomp.default_action, CR_OCI_SC_ERRNO);
	assert_int_equal(c.seccomp.default_errno_ret, 38);
	assert_int_equal(c.seccomp.architectures.n, 3);
	assert_int_equal(c.seccomp.n_rules, 6);
	assert_int_equal(c.seccomp.rules[0].errno_ret, 1);
	assert_int_equal(c.seccomp.rules[1].action, CR_OCI_SC_ALLOW);
	clone = &c.seccomp.rules[4];
	assert_string_equal(clone->names.v[0], "clone");
	assert_int_equal(clone->n_args, 1);
	assert_int_equal(clone->args[0].op, CR_OCI_SC_MASKED_EQ);
	assert_int_equal(clone->args[0].value, 2114060288);
	assert_int_equal(c.seccomp.rules[3].args[0].value, 4294967295u);
	assert_int_equal(c.seccomp.rules[5].n_args, 2);
	assert_int_equal(c.seccomp.rules[5].args[1].index, 2);
	cr_oci_config_done(&c);
}

static void test_containerd_cri(void **state)
{
	struct cr_oci_config c;

	parse_fixture(FIX("containerd-cri.json"), &c);
	assert_string_equal(c.root_path, "rootfs");
	assert_int_equal(c.process.oom_score_adj, 1000);
	assert_false(c.process.has_umask);
	/* the pod's namespaces are joined: the pause container's */
	assert_int_equal(c.namespaces[1].type, CR_OCI_NS_IPC);
	assert_string_equal(c.namespaces[1].path, "/proc/4242/ns/ipc");
	assert_int_equal(c.namespaces[4].type, CR_OCI_NS_NETWORK);
	assert_string_equal(c.namespaces[4].path, "/proc/4242/ns/net");
	assert_null(c.namespaces[3].path);
	assert_int_equal(c.resources.memory_limit, 64 << 20);
	assert_int_equal(c.resources.memory_swap, 64 << 20);
	assert_int_equal(c.resources.cpu_shares, 2);
	assert_int_equal(c.resources.cpu_quota, 50000);
	assert_int_equal(c.resources.cpu_period, 100000);
	assert_int_equal(c.resources.pids_limit, -1);
	assert_string_equal(c.cgroups_path, "/k8s.io/6342224a");
	assert_false(c.seccomp.present); /* CRI's unconfined default */
	assert_null(c.hostname);
	cr_oci_config_done(&c);
}

static void test_docker(void **state)
{
	struct cr_oci_config c;

	/* Docker's "not set" defaults (memory.disableOOMKiller false, cpu.shares 0,
	 * blockIO.weight 0) ask for nothing and are accepted; its prestart hook is parsed */
	parse_fixture(FIX("docker.json"), &c);
	assert_int_equal(c.resources.cpu_shares, -1);
	assert_int_equal(c.resources.n_devices, 3);
	assert_true(c.resources.devices[1].allow);
	assert_int_equal(c.resources.devices[1].major, 1);
	assert_int_equal(c.resources.devices[1].minor, 5);
	assert_int_equal(c.resources.devices[2].minor, -1);
	assert_int_equal(c.n_hooks[CR_OCI_HOOK_PRESTART], 1);
	assert_string_equal(c.hooks[CR_OCI_HOOK_PRESTART][0].path, "/proc/1234/exe");
	assert_int_equal(c.hooks[CR_OCI_HOOK_PRESTART][0].args.n, 4);
	assert_int_equal(c.n_hooks[CR_OCI_HOOK_POSTSTOP], 0);
	assert_int_equal(c.seccomp.n_rules, 2);
	assert_int_equal(c.seccomp.rules[1].n_args, 0);
	cr_oci_config_done(&c);
}

/* Every field corral does not implement is refused by its JSON path, whatever its depth. */
static void test_unsupported_fields(void **state)
{
	refused("{" MIN "," PROC ",\"linux\":{\"intelRdt\":{\"closID\":\"x\"}}}",
		"linux.intelRdt: not supported by corral");
	refused("{" MIN "," PROC ",\"linux\":{\"personality\":{\"domain\":\"LINUX32\"}}}",
		"linux.personality: not supported");
	refused("{" MIN "," PROC ",\"linux\":{\"devices\":[{\"path\":\"/dev/fuse\",\"type\":\"c\"}]}}",
		"linux.devices[0]: major and minor are required for type c");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"rdma\":{\"mlx5_1\":{\"hcaHandles\":3}}}}}",
		"linux.resources.rdma: not supported");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"memory\":{\"useHierarchy\":true}}}}",
		"linux.resources.memory.useHierarchy: not supported");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"cpu\":{\"idle\":1}}}}",
		"linux.resources.cpu.idle: not supported");
	refused("{" MIN "," PROC ",\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"listenerPath\":\"/run/agent.sock\"}}}",
		"linux.seccomp.listenerPath: not supported");
	refused("{" MIN ",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"apparmorProfile\":\"docker-default\"}}",
		"process.apparmorProfile: not supported");
	refused("{" MIN ",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"selinuxLabel\":\"x\"}}",
		"process.selinuxLabel: not supported");
	refused("{" MIN ",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"user\":{\"uid\":0,\"gid\":0,\"username\":\"root\"}}}",
		"process.user.username: not supported");
	refused("{" MIN ",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"ioPriority\":{\"class\":\"IOPRIO_CLASS_RT\"}}}",
		"process.ioPriority: not supported");
	refused("{" MIN "," PROC ",\"domainname\":\"example.org\"}", "domainname: not supported");
	refused("{" MIN "," PROC ",\"windows\":{\"layerFolders\":[\"C:\\\\x\"]}}", "windows: not supported");
	refused("{" MIN "," PROC ",\"mounts\":[{\"destination\":\"/x\",\"uidMappings\":[{\"containerID\":0,\"hostID\":1,\"size\":1}]}]}",
		"mounts[0].uidMappings: not supported");
	refused("{" MIN "," PROC ",\"linux\":{\"devices\":[{\"path\":\"/dev/x\",\"major\":1,\"minor\":5}]}}",
		"linux.devices[0]: type: c, b, u or p is required");
	refused("{" MIN "," PROC ",\"linux\":{\"devices\":[{\"path\":\"/dev/x\",\"type\":\"b\"}]}}",
		"linux.devices[0]: major and minor are required for type b");
	refused("{" MIN "," PROC ",\"linux\":{\"devices\":[{\"path\":\"/dev/..\",\"type\":\"p\"}]}}",
		"linux.devices[0]: path: an absolute path without '..' is required");
	refused("{" MIN "," PROC ",\"linux\":{\"devices\":[{\"path\":\"dev/x\",\"type\":\"p\"}]}}",
		"linux.devices[0]: path: an absolute path");
	refused("{" MIN "," PROC ",\"linux\":{\"devices\":[{\"path\":\"/dev/x\",\"type\":\"c\",\"major\":1,\"minor\":5,\"fileMode\":8192}]}}",
		"linux.devices[0].fileMode");
	refused("{" MIN "," PROC ",\"linux\":{\"rootfsPropagation\":\"rshare\"}}",
		"linux.rootfsPropagation: 'rshare' is not a propagation mode");
	refused("{" MIN "," PROC ",\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_NOTIFY\"}}}",
		"linux.seccomp.defaultAction: SCMP_ACT_NOTIFY is not supported");
}

/* A key runtime-spec does not define is no error (its extensibility rule): ignored, and listed
 * for create's warning; one it defines that corral does not implement stays refused. */
static void test_unknown_keys(void **state)
{
	struct cr_oci_config c;

	assert_int_equal(accepted("{" MIN "," PROC ",\"unknown\":\"unknown\"}", &c), 0);
	assert_string_equal(c.ignored, "unknown");
	cr_oci_config_done(&c);
	assert_int_equal(accepted("{" MIN ",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"future\":{\"a\":1}},\"hooks\":{\"onReboot\":[{\"path\":\"/bin/true\"}],\"prestart\":[{\"path\":\"/bin/true\",\"unknown\":1}]},\"linux\":{\"resources\":{\"memory\":{\"limit\":1048576,\"future\":1}}}}",
				  &c),
			 0);
	assert_string_equal(c.ignored,
			    "process.future, hooks.onReboot, hooks.prestart[0].unknown, linux.resources.memory.future");
	assert_int_equal(c.resources.memory_limit, 1048576);
	cr_oci_config_done(&c);
	/* nothing unknown: nothing listed */
	assert_int_equal(accepted("{" MIN "," PROC "}", &c), 0);
	assert_null(c.ignored);
	cr_oci_config_done(&c);
	/* defined by the spec, not implemented: refused, as before */
	refused("{" MIN "," PROC ",\"unknown\":1,\"domainname\":\"example.org\"}",
		"domainname: not supported");
	/* in an object the table does not list (an id mapping): refused */
	refused("{" MIN "," PROC ",\"linux\":{\"namespaces\":[{\"type\":\"user\"}],\"uidMappings\":[{\"containerID\":0,\"hostID\":1,\"size\":1,\"future\":1}]}}",
		"linux.uidMappings[0].future: not supported");
}

/* The rest of linux.resources: each setting as the files it writes, in its cgroup v1 and v2
 * forms, in order; bad values refused by their path. */
static const struct cr_cgroup_file *file_of(const struct cr_oci_config *c, const char *field,
					    size_t nth)
{
	for (size_t i = 0; i < c->resources.n_files; i++)
		if (strcmp(c->resources.files[i].field, field) == 0 && nth-- == 0)
			return &c->resources.files[i];
	fail_msg("no file for %s", field);
	return NULL;
}

static void expect_file(const struct cr_cgroup_file *f, const char *v1, const char *v1_value,
			const char *v2, const char *v2_value)
{
	assert_string_equal(f->v1_file, v1);
	assert_string_equal(f->v1_value, v1_value);
	assert_string_equal(f->v2_file, v2);
	assert_string_equal(f->v2_value, v2_value);
	if (!v2[0])
		assert_true(f->v2_why[0] != '\0');
}

static void test_resources_files(void **state)
{
	struct cr_oci_config c;
	const struct cr_cgroup_file *f;

	assert_int_equal(
		accepted("{" MIN "," PROC ",\"linux\":{\"resources\":{"
			 "\"memory\":{\"limit\":50593792,\"reservation\":1048576,\"kernel\":4096,"
			 "\"kernelTCP\":8192,\"swappiness\":0,\"disableOOMKiller\":true},"
			 "\"cpu\":{\"shares\":1024,\"quota\":50000,\"period\":500000,\"cpus\":\"0-1,3\","
			 "\"mems\":\"0\",\"realtimePeriod\":1000000,\"realtimeRuntime\":950000},"
			 "\"blockIO\":{\"weight\":500,\"leafWeight\":300,\"weightDevice\":[{\"major\":8,"
			 "\"minor\":0,\"weight\":10}],\"throttleReadBpsDevice\":[{\"major\":8,"
			 "\"minor\":0,\"rate\":1048576}],\"throttleWriteIOPSDevice\":[{\"major\":8,"
			 "\"minor\":16,\"rate\":0}]},"
			 "\"hugepageLimits\":[{\"pageSize\":\"2MB\",\"limit\":4194304}],"
			 "\"network\":{\"classID\":1048577,\"priorities\":[{\"name\":\"eth0\","
			 "\"priority\":5}]},"
			 "\"devices\":[{\"allow\":false,\"access\":\"rwm\"},{\"allow\":true,"
			 "\"type\":\"c\",\"major\":1,\"minor\":3,\"access\":\"rw\"},{\"allow\":true,"
			 "\"type\":\"b\",\"major\":8,\"access\":\"r\"}]}}}",
			 &c),
		0);
	expect_file(file_of(&c, "linux.resources.memory.reservation", 0),
		    "memory.soft_limit_in_bytes", "1048576", "memory.low", "1048576");
	f = file_of(&c, "linux.resources.memory.kernel", 0);
	expect_file(f, "memory.kmem.limit_in_bytes", "4096", "", "");
	assert_true(f->check);
	expect_file(file_of(&c, "linux.resources.memory.kernelTCP", 0),
		    "memory.kmem.tcp.limit_in_bytes", "8192", "", "");
	expect_file(file_of(&c, "linux.resources.memory.swappiness", 0), "memory.swappiness", "0",
		    "", "");
	expect_file(file_of(&c, "linux.resources.memory.disableOOMKiller", 0),
		    "memory.oom_control", "1", "", "");
	/* the exact period then quota on v1, both in cpu.max on v2 */
	expect_file(file_of(&c, "linux.resources.cpu.period", 0), "cpu.cfs_period_us", "500000",
		    "cpu.max", "50000 500000");
	f = file_of(&c, "linux.resources.cpu.quota", 0);
	assert_string_equal(f->v1_file, "cpu.cfs_quota_us");
	assert_string_equal(f->v1_value, "50000");
	assert_string_equal(f->v2_ctl, "");
	assert_string_equal(f->v2_why, "");
	expect_file(file_of(&c, "linux.resources.cpu.cpus", 0), "cpuset.cpus", "0-1,3",
		    "cpuset.cpus", "0-1,3");
	expect_file(file_of(&c, "linux.resources.cpu.mems", 0), "cpuset.mems", "0", "cpuset.mems",
		    "0");
	expect_file(file_of(&c, "linux.resources.cpu.realtimeRuntime", 0), "cpu.rt_runtime_us",
		    "950000", "", "");
	/* blkio weights as io.weight's 1 to 10000 */
	expect_file(file_of(&c, "linux.resources.blockIO.weight", 0), "blkio.weight", "500",
		    "io.weight", "default 4950");
	expect_file(file_of(&c, "linux.resources.blockIO.leafWeight", 0), "blkio.leaf_weight",
		    "300", "", "");
	expect_file(file_of(&c, "linux.resources.blockIO.weightDevice[0]", 0),
		    "blkio.weight_device", "8:0 10", "io.weight", "8:0 1");
	expect_file(file_of(&c, "linux.resources.blockIO.throttleReadBpsDevice[0]", 0),
		    "blkio.throttle.read_bps_device", "8:0 1048576", "io.max", "8:0 rbps=1048576");
	expect_file(file_of(&c, "linux.resources.blockIO.throttleWriteIOPSDevice[0]", 0),
		    "blkio.throttle.write_iops_device", "8:16 0", "io.max", "8:16 wiops=max");
	f = file_of(&c, "linux.resources.hugepageLimits[0]", 0);
	expect_file(f, "hugetlb.2MB.limit_in_bytes", "4194304", "hugetlb.2MB.max", "4194304");
	assert_string_equal(f->v1_ctl, "hugetlb");
	expect_file(file_of(&c, "linux.resources.network.classID", 0), "net_cls.classid",
		    "1048577", "", "");
	expect_file(file_of(&c, "linux.resources.network.priorities[0]", 0), "net_prio.ifpriomap",
		    "eth0 5", "", "");
	/* device rules in order, "*" for any; on cgroup2 they hold by nodev */
	f = file_of(&c, "linux.resources.devices[0]", 0);
	expect_file(f, "devices.deny", "a *:* rwm", "", "");
	assert_true(f->optional);
	expect_file(file_of(&c, "linux.resources.devices[1]", 0), "devices.allow", "c 1:3 rw", "",
		    "");
	expect_file(file_of(&c, "linux.resources.devices[2]", 0), "devices.allow", "b 8:* r", "",
		    "");
	/* then the nodes of corral's /dev, which engines leave to the runtime */
	f = file_of(&c, "linux.resources.devices (corral's /dev)", 0);
	expect_file(f, "devices.allow", "c 1:3 rwm", "", "");
	assert_true(f->optional);
	expect_file(file_of(&c, "linux.resources.devices (corral's /dev)", 7), "devices.allow",
		    "c 136:* rwm", "", "");
	cr_oci_config_done(&c);

	/* but not one the caller denies by its number */
	assert_int_equal(accepted("{" MIN "," PROC ",\"linux\":{\"resources\":{\"devices\":["
				  "{\"allow\":false,\"access\":\"rwm\"},{\"allow\":false,\"type\":\"c\","
				  "\"major\":1,\"minor\":7,\"access\":\"rwm\"},{\"allow\":false,\"type\":\"c\","
				  "\"major\":136,\"access\":\"rwm\"}]}}}",
				  &c),
			 0);
	assert_int_equal(c.resources.n_files, 3 + 6);
	for (size_t i = 0; i < c.resources.n_files; i++)
		if (strcmp(c.resources.files[i].v1_file, "devices.allow") == 0) {
			assert_null(strstr(c.resources.files[i].v1_value, " 1:7 "));
			assert_null(strstr(c.resources.files[i].v1_value, " 136:"));
		}
	cr_oci_config_done(&c);

	/* what engines send as "not set" writes nothing */
	assert_int_equal(accepted("{" MIN "," PROC ",\"linux\":{\"resources\":{\"memory\":{"
				  "\"reservation\":0,\"kernel\":-1,\"disableOOMKiller\":false},"
				  "\"blockIO\":{\"weight\":0},\"cpu\":{\"cpus\":\"\"}}}}",
				  &c),
			 0);
	assert_int_equal(c.resources.n_files, 0);
	cr_oci_config_done(&c);

	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"memory\":{\"reservation\":-2}}}}",
		"linux.resources.memory.reservation: -2 is out of range");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"memory\":{\"swappiness\":101}}}}",
		"linux.resources.memory.swappiness: 101 is out of range");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"memory\":{\"kernelTCP\":9223372036854775808}}}}",
		"linux.resources.memory.kernelTCP: 9223372036854775808 is out of range");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"cpu\":{\"cpus\":\"0;1\"}}}}",
		"linux.resources.cpu.cpus: '0;1' is not a list");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"blockIO\":{\"weight\":5}}}}",
		"linux.resources.blockIO.weight: 5 is below 10");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"blockIO\":{\"weight\":1001}}}}",
		"linux.resources.blockIO.weight: 1001 is out of range");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"blockIO\":{\"throttleReadBpsDevice\":[{\"major\":8,\"rate\":1}]}}}}",
		"linux.resources.blockIO.throttleReadBpsDevice[0]: major and minor are required");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"blockIO\":{\"throttleReadBpsDevice\":[{\"major\":8,\"minor\":0,\"rate\":-1}]}}}}",
		"linux.resources.blockIO.throttleReadBpsDevice[0].rate: must not be negative");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"hugepageLimits\":[{\"pageSize\":\"2M/../x\",\"limit\":1}]}}}",
		"linux.resources.hugepageLimits[0]: pageSize '2M/../x' is not a size");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"network\":{\"priorities\":[{\"name\":\"eth0 1\\nlo\",\"priority\":1}]}}}}",
		"linux.resources.network.priorities[0]: name");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"network\":{\"classID\":4294967296}}}}",
		"linux.resources.network.classID: 4294967296 is out of range");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"devices\":[{\"allow\":true,\"type\":\"p\"}]}}}",
		"linux.resources.devices[0]: type 'p' is not a, c or b");
}

/* What asks for nothing is accepted for a field corral does not implement. */
static void test_empty_is_nothing(void **state)
{
	struct cr_oci_config c;

	assert_int_equal(accepted("{" MIN "," PROC ",\"linux\":{\"devices\":[],\"mountLabel\":\"\",\"intelRdt\":null,\"resources\":{\"unified\":{},\"blockIO\":{\"weight\":0,\"leafWeight\":0}}},\"domainname\":\"\"}",
				  &c),
			 0);
	cr_oci_config_done(&c);
	assert_int_equal(accepted("{" MIN "," PROC ",\"linux\":{\"rootfsPropagation\":\"rprivate\"}}", &c), 0);
	assert_string_equal(c.rootfs_propagation, "rprivate");
	cr_oci_config_done(&c);
}

static void test_bad_values(void **state)
{
	refused("", "config.json: not valid JSON");
	refused("{" MIN "," PROC "} x", "config.json: not valid JSON");
	refused("{" MIN "," PROC "}\n{}", "config.json: not valid JSON");
	refused("[1]", "config.json: must be a JSON object");
	refused("{\"root\":{\"path\":\"r\"}}", "ociVersion: is required");
	refused("{\"ociVersion\":\"2.0.0\",\"root\":{\"path\":\"r\"}}", "ociVersion: 2.0.0 is not supported");
	refused("{\"ociVersion\":\"1.3.0\",\"root\":{\"path\":\"r\"}}", "ociVersion: 1.3.0 is not supported");
	refused("{\"ociVersion\":\"one\",\"root\":{\"path\":\"r\"}}", "ociVersion: 'one' is not a version");
	refused("{\"ociVersion\":\"1.0.0\"}", "root: is required");
	refused("{\"ociVersion\":\"1.0.0\",\"root\":{\"path\":\"\"}}", "root.path: is required");
	refused("{\"ociVersion\":\"1.0.0\",\"root\":\"rootfs\"}", "root: must be an object");
	refused("{" MIN ",\"process\":{\"args\":[],\"cwd\":\"/\"}}", "process.args: must be a non-empty array");
	refused("{" MIN ",\"process\":{\"args\":[\"sh\",1],\"cwd\":\"/\"}}", "process.args[1]: must be a string");
	refused("{" MIN ",\"process\":{\"args\":[\"sh\"],\"cwd\":\"tmp\"}}", "process.cwd: must be an absolute path");
	refused("{" MIN ",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"env\":[\"A=1\",\"NOVALUE\"]}}",
		"process.env[1]: 'NOVALUE' is not NAME=VALUE");
	refused("{" MIN ",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"user\":{\"uid\":-1}}}",
		"process.user.uid: -1 is out of range");
	refused("{" MIN ",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"user\":{\"uid\":4294967295}}}",
		"process.user.uid: 4294967295 is out of range");
	refused("{" MIN ",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"user\":{\"uid\":0.5}}}",
		"process.user.uid: must be an integer");
	refused("{" MIN ",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"capabilities\":{\"bounding\":[\"CAP_CHOWN\",\"CAP_BOGUS\"]}}}",
		"process.capabilities.bounding[1]: unknown capability 'CAP_BOGUS'");
	refused("{" MIN ",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"soft\":10,\"hard\":5}]}}",
		"process.rlimits[0]: soft 10 is above hard 5");
	refused("{" MIN ",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"rlimits\":[{\"type\":\"RLIMIT_BOGUS\",\"soft\":1,\"hard\":1}]}}",
		"process.rlimits[0]: unknown rlimit type 'RLIMIT_BOGUS'");
	refused("{" MIN ",\"process\":{\"args\":[\"sh\"],\"cwd\":\"/\",\"oomScoreAdj\":1001}}",
		"process.oomScoreAdj: 1001 is out of range");
	refused("{" MIN "," PROC ",\"mounts\":[{\"destination\":\"relative\"}]}",
		"mounts[0]: destination must be an absolute path");
	refused("{" MIN "," PROC ",\"mounts\":[{\"destination\":\"/a\"},{\"type\":\"tmpfs\"}]}",
		"mounts[1]: destination must be an absolute path");
	refused("{" MIN "," PROC ",\"linux\":{\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"pid\"}]}}",
		"linux.namespaces[1]: namespace 'pid' is listed twice");
	refused("{" MIN "," PROC ",\"linux\":{\"namespaces\":[{\"type\":\"bogus\"}]}}",
		"linux.namespaces[0]: unknown namespace type 'bogus'");
	refused("{" MIN "," PROC ",\"linux\":{\"namespaces\":[{\"type\":\"time\"}]}}",
		"linux.namespaces[0]: namespace type 'time' is not supported by corral");
	refused("{" MIN "," PROC ",\"linux\":{\"namespaces\":[{\"type\":\"net\"}]}}",
		"linux.namespaces[0]: unknown namespace type 'net'");
	refused("{" MIN "," PROC ",\"linux\":{\"namespaces\":[{\"type\":\"network\",\"path\":\"netns\"}]}}",
		"linux.namespaces[0]: path 'netns' is not absolute");
	refused("{" MIN "," PROC ",\"linux\":{\"uidMappings\":[{\"containerID\":0,\"hostID\":1000,\"size\":1}]}}",
		"linux.uidMappings: id mappings need a user namespace");
	refused("{" MIN "," PROC ",\"linux\":{\"namespaces\":[{\"type\":\"user\"}],\"uidMappings\":[{\"containerID\":0,\"hostID\":4294967295,\"size\":2}]}}",
		"linux.uidMappings[0].hostID: 4294967295 is out of range");
	refused("{" MIN "," PROC ",\"linux\":{\"namespaces\":[{\"type\":\"user\"}],\"uidMappings\":[{\"containerID\":0,\"hostID\":4294967290,\"size\":100}]}}",
		"linux.uidMappings[0]: the range passes 2^32");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"memory\":{\"limit\":-5}}}}",
		"linux.resources.memory.limit: -5 is out of range");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"cpu\":{\"quota\":10}}}}",
		"linux.resources.cpu.quota: 10 is below 1000");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"devices\":[{\"access\":\"rwm\"}]}}}",
		"linux.resources.devices[0]: allow is required");
	refused("{" MIN "," PROC ",\"linux\":{\"resources\":{\"devices\":[{\"allow\":true,\"access\":\"rwx\"}]}}}",
		"linux.resources.devices[0]: access 'rwx' is not made of r, w and m");
	refused("{" MIN "," PROC ",\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_BOGUS\"}}}",
		"linux.seccomp.defaultAction: unknown action 'SCMP_ACT_BOGUS'");
	refused("{" MIN "," PROC ",\"linux\":{\"seccomp\":{}}}",
		"linux.seccomp.defaultAction: is required");
	refused("{" MIN "," PROC ",\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"architectures\":[\"SCMP_ARCH_VAX\"]}}}",
		"linux.seccomp.architectures[0]: unknown architecture 'SCMP_ARCH_VAX'");
	refused("{" MIN "," PROC ",\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"names\":[\"read\"],\"action\":\"SCMP_ACT_ERRNO\",\"args\":[{\"index\":6,\"value\":0,\"op\":\"SCMP_CMP_EQ\"}]}]}}}",
		"linux.seccomp.syscalls[0].args[0].index: 6 is out of range");
	refused("{" MIN "," PROC ",\"linux\":{\"seccomp\":{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"names\":[],\"action\":\"SCMP_ACT_ERRNO\"}]}}}",
		"linux.seccomp.syscalls[0]: names must list at least one syscall");
	refused("{" MIN "," PROC ",\"linux\":{\"maskedPaths\":[\"proc/kcore\"]}}",
		"linux.maskedPaths[0]: 'proc/kcore' is not an absolute path");
	refused("{" MIN "," PROC ",\"linux\":{\"sysctl\":{\"net.ipv4.ip_forward\":1}}}",
		"linux.sysctl.net.ipv4.ip_forward: must be a string");
	refused("{" MIN "," PROC ",\"hostname\":\"a\\u0000b\"}", "hostname: contains a NUL byte");
}

static void test_annotations(void **state)
{
	struct cr_oci_config c;
	char err[256];

	refused("{" MIN "," PROC ",\"annotations\":{\"io.corral.bogus\":\"1\"}}",
		"annotations.io.corral.bogus: unknown corral annotation");
	refused("{" MIN "," PROC ",\"annotations\":{\"io.corral.landlock\":\"off\"}}",
		"annotations.io.corral.landlock: 'off' is not auto or required");
	refused("{" MIN "," PROC ",\"annotations\":{\"io.corral.tcp-connect\":\"443,x\"}}",
		"annotations.io.corral.tcp-connect: '443,x' is not a list of ports");
	refused("{" MIN "," PROC ",\"annotations\":{\"io.corral.userns\":\"maybe\"}}",
		"annotations.io.corral.userns: 'maybe' is not auto, required or spec");
	assert_int_equal(accepted("{" MIN "," PROC ",\"annotations\":{\"io.corral.landlock\":\"required\",\"io.corral.tcp-connect\":\"443,8000-8100\",\"io.corralx\":\"anything\",\"org.example\":\"y\"}}",
				  &c),
			 0);
	assert_int_equal(c.annotations.n, 4);
	cr_oci_config_done(&c);
	assert_int_equal(cr_oci_annotation_check("org.example.x", "", err, sizeof(err)), 0);
}

static void test_features(void **state)
{
	json_object *f = cr_oci_features_json(), *v, *lx, *a;
	bool has_user = false;

	assert_non_null(f);
	assert_true(json_object_object_get_ex(f, "ociVersionMin", &v));
	assert_string_equal(json_object_get_string(v), CR_OCI_VERSION_MIN);
	assert_true(json_object_object_get_ex(f, "ociVersionMax", &v));
	assert_string_equal(json_object_get_string(v), CR_OCI_VERSION_MAX);
	assert_true(json_object_object_get_ex(f, "hooks", &v));
	/* the four run outside the container */
	assert_int_equal(json_object_array_length(v), 4);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 0)), "prestart");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 3)), "poststop");
	assert_true(json_object_object_get_ex(f, "linux", &lx));
	assert_true(json_object_object_get_ex(lx, "namespaces", &v));
	for (size_t i = 0; i < json_object_array_length(v); i++)
		has_user |= strcmp(json_object_get_string(json_object_array_get_idx(v, i)), "user") == 0;
	assert_true(has_user);
	assert_true(json_object_object_get_ex(lx, "capabilities", &v));
	assert_int_equal(json_object_array_length(v), 41);
	assert_true(json_object_object_get_ex(lx, "apparmor", &v));
	assert_true(json_object_object_get_ex(v, "enabled", &v));
	assert_false(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(lx, "selinux", &v));
	assert_true(json_object_object_get_ex(lx, "seccomp", &v));
	assert_true(json_object_object_get_ex(v, "enabled", &v));
	assert_true(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(f, "annotations", &a));
	assert_true(json_object_object_get_ex(a, "io.corral.version", NULL));
	for (size_t i = 0; i < cr_oci_n_annotations; i++)
		assert_true(json_object_object_get_ex(a, cr_oci_annotations[i].key, NULL));
	json_object_put(f);
}

static int state_parse(const char *text, char err[256])
{
	struct cr_oci_state s;
	int r = cr_oci_state_parse(text, strlen(text), &s, err, 256);

	cr_oci_state_done(&s);
	return r;
}

static void test_state(void **state)
{
	static const char text[] =
		"{\"ociVersion\":\"1.2.0\",\"id\":\"c1\",\"status\":\"running\",\"pid\":4242,"
		"\"pid_start_time\":99,\"bundle\":\"/b\",\"annotations\":{\"k\":\"v\"}}";
	struct cr_oci_state s;
	char err[256] = "";
	json_object *j;

	assert_int_equal(cr_oci_state_parse(text, strlen(text), &s, err, sizeof(err)), 0);
	assert_int_equal(s.status, CR_OCI_RUNNING);
	assert_int_equal(s.pid, 4242);
	assert_int_equal(s.pid_start_time, 99);
	j = cr_oci_state_json(&s);
	assert_string_equal(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN),
			    "{\"ociVersion\":\"1.2.0\",\"id\":\"c1\",\"status\":\"running\",\"pid\":4242,\"bundle\":\"\\/b\",\"annotations\":{\"k\":\"v\"}}");
	json_object_put(j);
	s.status = CR_OCI_STOPPED; /* no pid once stopped */
	j = cr_oci_state_json(&s);
	assert_false(json_object_object_get_ex(j, "pid", NULL));
	json_object_put(j);
	cr_oci_state_done(&s);

	assert_int_equal(state_parse("{\"ociVersion\":\"1.2.0\",\"id\":\"c\",\"status\":\"created\",\"bundle\":\"/b\"}",
				     err),
			 -EINVAL);
	assert_string_equal(err, "state.json: pid: a created or running container needs one");
	assert_int_equal(state_parse("{\"ociVersion\":\"1.2.0\",\"id\":\"c\",\"status\":\"paused\",\"bundle\":\"/b\"}",
				     err),
			 -EINVAL);
	assert_int_equal(state_parse("[]", err), -EINVAL);

	assert_int_equal(cr_oci_id_check("8bd4a822-x_y.z+1", err, sizeof(err)), 0);
	assert_int_equal(cr_oci_id_check("", err, sizeof(err)), -EINVAL);
	assert_int_equal(cr_oci_id_check("..", err, sizeof(err)), -EINVAL);
	assert_int_equal(cr_oci_id_check("a/b", err, sizeof(err)), -EINVAL);
	assert_int_equal(cr_oci_id_check("a b", err, sizeof(err)), -EINVAL);
}

static void test_root_default(void **state)
{
	char *env_ok[] = { "XDG_RUNTIME_DIR=/run/user/1000", NULL };
	char *env_rel[] = { "XDG_RUNTIME_DIR=run", NULL };
	char *env_none[] = { NULL };
	char buf[256], err[256];

	if (geteuid() == 0) {
		assert_int_equal(cr_oci_root_default(env_none, buf, sizeof(buf), err, sizeof(err)), 0);
		assert_string_equal(buf, "/run/corral-oci");
		return;
	}
	assert_int_equal(cr_oci_root_default(env_ok, buf, sizeof(buf), err, sizeof(err)), 0);
	assert_string_equal(buf, "/run/user/1000/corral-oci");
	assert_int_equal(cr_oci_root_default(env_rel, buf, sizeof(buf), err, sizeof(err)), -ENOENT);
	assert_int_equal(cr_oci_root_default(env_none, buf, sizeof(buf), err, sizeof(err)), -ENOENT);
}

/* The OOM mark: an empty bundle/oom, kept when there; a symlink named oom is not followed (its
 * target is not made); a bundle that is not there is an error naming it. */
static void test_oom_mark(void **state)
{
	char dir[] = "/tmp/cr-oom-mark-XXXXXX", path[64], target[64], err[256] = "";
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	(void)snprintf(path, sizeof(path), "%s/oom", dir);
	(void)snprintf(target, sizeof(target), "%s/elsewhere", dir);
	assert_int_equal(cr_oci_oom_mark(dir, err, sizeof(err)), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 0);
	assert_int_equal(cr_oci_oom_mark(dir, err, sizeof(err)), 0); /* kept */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(cr_oci_oom_mark(dir, err, sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "/oom: "));
	assert_int_equal(access(target, F_OK), -1);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(cr_oci_oom_mark(dir, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, dir));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runc_spec),
		cmocka_unit_test(test_runc_spec_rootless),
		cmocka_unit_test(test_podman),
		cmocka_unit_test(test_containerd_cri),
		cmocka_unit_test(test_docker),
		cmocka_unit_test(test_unsupported_fields),
		cmocka_unit_test(test_unknown_keys),
		cmocka_unit_test(test_resources_files),
		cmocka_unit_test(test_empty_is_nothing),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_annotations),
		cmocka_unit_test(test_features),
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_root_default),
		cmocka_unit_test(test_oom_mark),
	};

	return cmocka_run_group_tests_name("oci", tests, NULL, NULL);
}
