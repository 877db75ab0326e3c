/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "launcher/base/macro.h"
#include "spec-keys.h"

#define KEYS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static const struct {
	const char *path; /* without indexes */
	const char *const *keys;
} spec[] = {
	{ "", KEYS("ociVersion", "root", "mounts", "process", "hostname", "domainname",
		   "annotations", "hooks", "linux", "solaris", "windows", "vm", "zos") },
	{ "root", KEYS("path", "readonly") },
	{ "mounts", KEYS("destination", "source", "options", "type", "uidMappings",
			 "gidMappings") },
	{ "process", KEYS("terminal", "consoleSize", "cwd", "env", "args", "commandLine",
			  "rlimits", "apparmorProfile", "capabilities", "noNewPrivileges",
			  "oomScoreAdj", "scheduler", "selinuxLabel", "ioPriority",
			  "execCPUAffinity", "user") },
	{ "process.user", KEYS("uid", "gid", "umask", "additionalGids", "username") },
	{ "process.capabilities", KEYS("bounding", "effective", "inheritable", "permitted",
				       "ambient") },
	{ "process.consoleSize", KEYS("height", "width") },
	{ "process.rlimits", KEYS("type", "soft", "hard") },
	{ "hooks", KEYS("prestart", "createRuntime", "createContainer", "startContainer",
			"poststart", "poststop") },
	{ "linux", KEYS("namespaces", "uidMappings", "gidMappings", "timeOffsets", "devices",
			"netDevices", "cgroupsPath", "rootfsPropagation", "resources", "sysctl",
			"seccomp", "maskedPaths", "readonlyPaths", "mountLabel", "personality",
			"intelRdt", "memoryPolicy") },
	{ "linux.namespaces", KEYS("type", "path") },
	{ "linux.resources", KEYS("devices", "memory", "cpu", "blockIO", "hugepageLimits",
				  "network", "pids", "rdma", "unified") },
	{ "linux.resources.memory", KEYS("limit", "reservation", "swap", "kernel", "kernelTCP",
					 "swappiness", "disableOOMKiller", "useHierarchy",
					 "checkBeforeUpdate") },
	{ "linux.resources.cpu", KEYS("shares", "quota", "burst", "period", "realtimeRuntime",
				      "realtimePeriod", "cpus", "mems", "idle") },
	{ "linux.resources.pids", KEYS("limit") },
	{ "linux.seccomp", KEYS("defaultAction", "defaultErrnoRet", "architectures", "flags",
				"listenerPath", "listenerMetadata", "syscalls") },
	{ "linux.seccomp.syscalls", KEYS("names", "action", "errnoRet", "args") },
	{ "linux.seccomp.syscalls.args", KEYS("index", "value", "valueTwo", "op") },
};

/* @path without its "[N]" indexes, in @buf. */
static const char *strip_indexes(const char *path, char *buf, size_t size)
{
	size_t n = 0;

	for (const char *p = path; *p && n + 1 < size; p++) {
		if (*p == '[') {
			p = strchr(p, ']');
			if (!p)
				break;
			continue;
		}
		buf[n++] = *p;
	}
	buf[n] = '\0';
	return buf;
}

bool cr_oci_spec_key(const char *path, const char *key)
{
	char buf[256];
	const char *p = strip_indexes(path, buf, sizeof(buf));

	/* a hook of any kind: hooks.prestart[0] */
	if (strncmp(p, "hooks.", 6) == 0)
		return strcmp(key, "path") == 0 || strcmp(key, "args") == 0 ||
		       strcmp(key, "env") == 0 || strcmp(key, "timeout") == 0;
	for (size_t i = 0; i < ELEMENTSOF(spec); i++) {
		if (strcmp(spec[i].path, p) != 0)
			continue;
		for (const char *const *k = spec[i].keys; *k; k++)
			if (strcmp(*k, key) == 0)
				return true;
		return false;
	}
	return true;
}
