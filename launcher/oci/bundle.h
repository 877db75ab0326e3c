/* SPDX-License-Identifier: MIT */
/* An OCI bundle's config.json (runtime-spec 1.0 to 1.2), read into a struct cr_oci_config: the
 * first step of the OCI door, which turns it into the same struct cr_policy the other doors
 * build. Pure: json-c only, nothing is opened or checked against the host.
 *
 * Every key is known or refused: a key corral does not implement fails the parse with its JSON
 * path ("linux.intelRdt: not supported by corral"), never ignored. A value that asks for
 * nothing is accepted for such a key: null, "", [], {}, an object of such, and 0 or false for
 * the keys engines send as "not set" (Docker's memory.disableOOMKiller false, blockIO.weight 0). Strings point into the parsed
 * document, which the config keeps until cr_oci_config_done(). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "launcher/policy/limits.h"

struct json_object;

/* The runtime-spec versions this parser reads (ociVersion, and `corral oci features`). */
#define CR_OCI_VERSION_MIN "1.0.0"
#define CR_OCI_VERSION_MAX "1.2.0"

/* An error message names the field; cut to this size. */
#define CR_OCI_ERR_MAX 512

struct cr_oci_strv {
	const char **v;
	size_t n;
};

struct cr_oci_mount {
	const char *destination; /* absolute */
	const char *type;	 /* NULL: a bind mount if options say so */
	const char *source;
	struct cr_oci_strv options;
};

/* linux.devices[]: a node the container's /dev (or elsewhere) must have. */
struct cr_oci_device {
	const char *path; /* absolute */
	char type;	  /* 'c', 'b', 'u' (unbuffered: c) or 'p' (a FIFO) */
	uint32_t major, minor;
	uint32_t mode;	  /* permission bits; 0666 when not given */
	uint32_t uid, gid; /* in the container; 0 when not given */
};

struct cr_oci_idmap {
	uint32_t container_id, host_id, size;
};

enum cr_oci_ns_type {
	CR_OCI_NS_PID,
	CR_OCI_NS_NETWORK,
	CR_OCI_NS_MOUNT,
	CR_OCI_NS_IPC,
	CR_OCI_NS_UTS,
	CR_OCI_NS_USER,
	CR_OCI_NS_CGROUP,
	CR_OCI_NS_TIME,
	_CR_OCI_NS_MAX,
};

struct cr_oci_namespace {
	enum cr_oci_ns_type type;
	const char *path; /* join this one (CRI pods: the pause container's); NULL: create */
};

struct cr_oci_rlimit {
	int resource; /* RLIMIT_* */
	uint64_t soft, hard;
};

/* A capability set, one bit per capability number (CAP_CHOWN is bit 0). */
enum cr_oci_capset {
	CR_OCI_CAP_BOUNDING,
	CR_OCI_CAP_EFFECTIVE,
	CR_OCI_CAP_INHERITABLE,
	CR_OCI_CAP_PERMITTED,
	CR_OCI_CAP_AMBIENT,
	_CR_OCI_CAPSET_MAX,
};

struct cr_oci_process {
	bool present; /* config.json has "process" (`create` needs it) */
	bool terminal, no_new_privileges;
	struct cr_oci_strv args, env;
	const char *cwd;
	uint32_t uid, gid;
	struct {
		uint32_t *v;
		size_t n;
	} additional_gids;
	bool has_umask;
	uint32_t umask;
	bool has_oom_score_adj;
	int oom_score_adj;
	uint32_t console_height, console_width;
	bool has_caps[_CR_OCI_CAPSET_MAX]; /* the set is given (an absent set is empty too) */
	uint64_t caps[_CR_OCI_CAPSET_MAX];
	struct cr_oci_rlimit *rlimits;
	size_t n_rlimits;
};

enum cr_oci_hook_kind {
	CR_OCI_HOOK_PRESTART,
	CR_OCI_HOOK_CREATE_RUNTIME,
	CR_OCI_HOOK_CREATE_CONTAINER,
	CR_OCI_HOOK_START_CONTAINER,
	CR_OCI_HOOK_POSTSTART,
	CR_OCI_HOOK_POSTSTOP,
	_CR_OCI_HOOK_MAX,
};

struct cr_oci_hook {
	const char *path;
	struct cr_oci_strv args, env;
	int timeout; /* seconds; 0: none */
};

/* -1 in a limit: not set. */
struct cr_oci_resources {
	int64_t memory_limit, memory_swap; /* bytes; -1 also for "unlimited" given as -1 */
	int64_t pids_limit;
	int64_t cpu_quota;  /* µs per period */
	int64_t cpu_period; /* µs */
	int64_t cpu_shares;
	struct cr_oci_device_rule {
		bool allow;
		char type;	    /* 'a', 'c' or 'b' */
		int64_t major, minor; /* -1: any */
		char access[4];	    /* of "rwm" */
	} *devices;
	size_t n_devices;
	/* everything else linux.resources sets, as the cgroup files it writes (resources.c) */
	struct cr_cgroup_file *files;
	size_t n_files, cap_files;
};

enum cr_oci_seccomp_action {
	CR_OCI_SC_KILL_THREAD, /* SCMP_ACT_KILL and SCMP_ACT_KILL_THREAD */
	CR_OCI_SC_KILL_PROCESS,
	CR_OCI_SC_TRAP,
	CR_OCI_SC_ERRNO,
	CR_OCI_SC_TRACE,
	CR_OCI_SC_ALLOW,
	CR_OCI_SC_LOG,
	_CR_OCI_SC_ACTION_MAX,
};

enum cr_oci_seccomp_op {
	CR_OCI_SC_NE,
	CR_OCI_SC_LT,
	CR_OCI_SC_LE,
	CR_OCI_SC_EQ,
	CR_OCI_SC_GE,
	CR_OCI_SC_GT,
	CR_OCI_SC_MASKED_EQ,
	_CR_OCI_SC_OP_MAX,
};

struct cr_oci_seccomp_arg {
	unsigned index; /* 0 to 5 */
	uint64_t value, value_two;
	enum cr_oci_seccomp_op op;
};

struct cr_oci_seccomp_rule {
	struct cr_oci_strv names;
	enum cr_oci_seccomp_action action;
	uint32_t errno_ret; /* for SCMP_ACT_ERRNO and SCMP_ACT_TRACE; EPERM when not given */
	struct cr_oci_seccomp_arg *args;
	size_t n_args;
};

struct cr_oci_seccomp {
	bool present;
	enum cr_oci_seccomp_action default_action;
	uint32_t default_errno_ret;
	struct cr_oci_strv architectures; /* SCMP_ARCH_* names, checked */
	struct cr_oci_strv flags;	  /* SECCOMP_FILTER_FLAG_* names, checked */
	struct cr_oci_seccomp_rule *rules;
	size_t n_rules;
};

/* A string map (annotations, sysctl), in document order. */
struct cr_oci_map {
	const char **keys, **values;
	size_t n;
};

struct cr_oci_config {
	struct json_object *doc; /* what the strings point into */
	const char *oci_version;
	const char *root_path; /* absolute, or relative to the bundle */
	bool root_readonly;
	struct cr_oci_mount *mounts; /* in order */
	size_t n_mounts;
	struct cr_oci_process process;
	const char *hostname;
	struct cr_oci_map annotations;
	struct cr_oci_hook *hooks[_CR_OCI_HOOK_MAX];
	size_t n_hooks[_CR_OCI_HOOK_MAX];
	/* linux */
	struct cr_oci_namespace *namespaces;
	size_t n_namespaces;
	struct cr_oci_idmap *uid_mappings, *gid_mappings;
	size_t n_uid_mappings, n_gid_mappings;
	struct cr_oci_resources resources;
	const char *cgroups_path;
	struct cr_oci_seccomp seccomp;
	struct cr_oci_strv masked_paths, readonly_paths;
	struct cr_oci_map sysctl;
	const char *rootfs_propagation;
	const char *mount_label; /* SELinux's: accepted where SELinux is off (lsm.h) */
	struct cr_oci_device *devices;
	size_t n_devices;
	char *ignored; /* keys runtime-spec does not define, ignored (its extensibility rule),
			* ", "-joined for a warning; NULL: none */
};

/* Parse @len bytes of config.json. 0; -EINVAL with @err naming the field and what is wrong
 * ("process.args: must be a non-empty array of strings", "linux.intelRdt: not supported by
 * corral"); -ENOMEM. On failure @ret is left empty (cr_oci_config_done() is still safe). */
int cr_oci_config_parse(const char *text, size_t len, struct cr_oci_config *ret, char *err,
			size_t size);
void cr_oci_config_done(struct cr_oci_config *c);

/* Names, for errors, `corral oci features` and the unit tests. NULL when out of range. */
const char *cr_oci_ns_type_name(enum cr_oci_ns_type t);
/* A propagation mode's MS_* flags (MS_SHARED, MS_SLAVE, MS_PRIVATE or MS_UNBINDABLE, with
 * MS_REC for the r- forms: "rshared"), or 0 when @name is none. */
unsigned long cr_oci_propagation(const char *name);
const char *cr_oci_hook_name(enum cr_oci_hook_kind k);
/* The capability names this parser knows ("CAP_CHOWN" ...), by number, NULL-terminated. */
extern const char *const cr_oci_cap_names[];
