/* SPDX-License-Identifier: MIT */
/* `corral oci features`. The lists here say what the door reads; docs/oci.md says what `create`
 * does with each (this increment: config.json is read, `create` is not there yet). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "bundle.h"
#include "annotations.h"
#include "features.h"
#include "launcher/base/json-util.h"
#include "launcher/base/macro.h"

/* --- the features document -------------------------------------------------------------------- */

static const char *const mount_options[] = {
	"bind", "rbind", "ro", "rw", "nosuid", "suid", "nodev", "dev", "noexec", "exec",
	"relatime", "norelatime", "noatime", "atime", "strictatime", "nostrictatime", "private",
	"rprivate", "shared", "rshared", "slave", "rslave", "unbindable", "runbindable", NULL,
};
static const char *const sc_actions[] = {
	"SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO", "SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS",
	"SCMP_ACT_KILL_THREAD", "SCMP_ACT_LOG", "SCMP_ACT_TRACE", "SCMP_ACT_TRAP", NULL,
};
static const char *const sc_operators[] = {
	"SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_LE", "SCMP_CMP_LT",
	"SCMP_CMP_MASKED_EQ", "SCMP_CMP_NE", NULL,
};
static const char *const sc_archs[] = { "SCMP_ARCH_AARCH64", "SCMP_ARCH_X86_64", NULL };
static const char *const sc_flags[] = { "SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG",
					"SECCOMP_FILTER_FLAG_SPEC_ALLOW", NULL };
/* The flags create accepts: none yet (seccomp-spec.c refuses linux.seccomp.flags), so an engine
 * that reads this leaves them out rather than have create fail. */
static const char *const sc_flags_supported[] = { NULL };
static const char *const namespaces[] = { "cgroup", "ipc", "mount", "network", "pid", "user",
					  "uts", NULL };

static json_object *strings(const char *const *v)
{
	json_object *a = json_object_new_array();
	int r = a ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && v[i]; i++)
		r = cr_json_append(a, json_object_new_string(v[i]));
	return cr_json_whole(a, r);
}

static json_object *enabled(bool on)
{
	json_object *o = json_object_new_object();

	return cr_json_whole(o, cr_json_add(o, "enabled", json_object_new_boolean(on)));
}

static json_object *seccomp_json(void)
{
	json_object *o = json_object_new_object();
	int r;

	r = cr_json_add(o, "enabled", json_object_new_boolean(true));
	r = r ?: cr_json_add(o, "actions", strings(sc_actions));
	r = r ?: cr_json_add(o, "operators", strings(sc_operators));
	r = r ?: cr_json_add(o, "archs", strings(sc_archs));
	r = r ?: cr_json_add(o, "knownFlags", strings(sc_flags));
	r = r ?: cr_json_add(o, "supportedFlags", strings(sc_flags_supported));
	return cr_json_whole(o, r);
}

static json_object *cgroup_json(void)
{
	json_object *o = json_object_new_object();
	int r;

	r = cr_json_add(o, "v1", json_object_new_boolean(true));
	r = r ?: cr_json_add(o, "v2", json_object_new_boolean(true));
	r = r ?: cr_json_add(o, "systemd", json_object_new_boolean(false));
	r = r ?: cr_json_add(o, "systemdUser", json_object_new_boolean(false));
	r = r ?: cr_json_add(o, "rdma", json_object_new_boolean(false));
	return cr_json_whole(o, r);
}

static json_object *linux_json(void)
{
	json_object *o = json_object_new_object(), *idmap = json_object_new_object();
	int r;

	r = cr_json_add(idmap, "idmap", enabled(false));
	r = r ?: cr_json_add(o, "namespaces", strings(namespaces));
	r = r ?: cr_json_add(o, "capabilities", strings(cr_oci_cap_names));
	r = r ?: cr_json_add(o, "cgroup", cgroup_json());
	r = r ?: cr_json_add(o, "seccomp", seccomp_json());
	r = r ?: cr_json_add(o, "apparmor", enabled(false));
	r = r ?: cr_json_add(o, "selinux", enabled(false));
	r = r ?: cr_json_add(o, "intelRdt", enabled(false));
	r = r ?: cr_json_add(o, "mountExtensions", TAKE_PTR(idmap));
	json_object_put(idmap);
	return cr_json_whole(o, r);
}

/* The linux.resources fields corral applies; "(v1)": cgroup v1 only, refused on cgroup2 (which
 * has no such file); devices on cgroup2 hold by nodev mounts and a minimal /dev. Every field
 * other than memory.limit and swap, pids.limit and cpu.quota and period needs a cgroupsPath. */
static const char resources_doc[] =
	"memory.limit, memory.swap, memory.reservation, memory.kernel (v1), memory.kernelTCP (v1), "
	"memory.swappiness (v1), memory.disableOOMKiller (v1), cpu.shares, cpu.quota, cpu.period, "
	"cpu.cpus, cpu.mems, cpu.realtimePeriod (v1), cpu.realtimeRuntime (v1), pids.limit, "
	"blockIO (leafWeight: v1), hugepageLimits, network (v1), devices (v1; cgroup2: nodev); "
	"not rdma, unified";

static json_object *annotations_json(void)
{
	json_object *o = json_object_new_object();
	int r;

	r = cr_json_add(o, "io.corral.version", json_object_new_string(CR_VERSION));
	/* a field taken that is not applied (linux.selinux is not enabled: lsm.h) */
	r = r ?: cr_json_add(o, "io.corral.selinux",
			     json_object_new_string("linux.mountLabel accepted and not applied where SELinux is not enabled on the host (a warning at create, status.json's oci_not_applied); refused where it is"));
	/* what of corral's floor follows config.json rather than corral (docs/oci.md) */
	r = r ?: cr_json_add(o, "io.corral.floor.no-new-privs",
			     json_object_new_string("process.noNewPrivileges as given; false: the seccomp floor and the bundle's filter are installed before the capabilities are dropped, every mount stays nosuid"));
	/* runtime-spec's features document has no place for which linux.resources are applied */
	r = r ?: cr_json_add(o, "io.corral.resources", json_object_new_string(resources_doc));
	for (size_t i = 0; r == 0 && i < cr_oci_n_annotations; i++)
		r = cr_json_add(o, cr_oci_annotations[i].key,
				json_object_new_string(cr_oci_annotations[i].doc));
	return cr_json_whole(o, r);
}

json_object *cr_oci_features_json(void)
{
	/* not createContainer and startContainer, which run inside the container */
	static const char *const hooks[] = { "prestart", "createRuntime", "poststart", "poststop",
					     NULL };
	json_object *o = json_object_new_object();
	int r;

	r = cr_json_add(o, "ociVersionMin", json_object_new_string(CR_OCI_VERSION_MIN));
	r = r ?: cr_json_add(o, "ociVersionMax", json_object_new_string(CR_OCI_VERSION_MAX));
	r = r ?: cr_json_add(o, "hooks", strings(hooks));
	r = r ?: cr_json_add(o, "mountOptions", strings(mount_options));
	r = r ?: cr_json_add(o, "linux", linux_json());
	r = r ?: cr_json_add(o, "annotations", annotations_json());
	return cr_json_whole(o, r);
}
