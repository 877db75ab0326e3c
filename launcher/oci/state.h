/* SPDX-License-Identifier: MIT */
/* The OCI runtime's state: one directory per container under the root (--root; by default
 * /run/corral-oci for root, $XDG_RUNTIME_DIR/corral-oci for a user), holding state.json, which
 * `create` writes and `state` reads back as the runtime-spec state JSON. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct json_object;

/* A container id: 1 to CR_OCI_ID_MAX bytes of [A-Za-z0-9_.+-], not "." or "..": a directory
 * name under the root, never a path. */
#define CR_OCI_ID_MAX 1024
/* state.json is small: a larger one is refused. */
#define CR_OCI_STATE_MAX (1024 * 1024)

enum cr_oci_status {
	CR_OCI_CREATING,
	CR_OCI_CREATED,
	CR_OCI_RUNNING,
	CR_OCI_STOPPED,
	_CR_OCI_STATUS_MAX,
};

struct cr_oci_state {
	struct json_object *doc; /* what the strings point into */
	const char *oci_version, *id, *bundle;
	enum cr_oci_status status;
	pid_t pid;		     /* the container's init on the host; 0 when none */
	uint64_t pid_start_time;     /* its start time (/proc/PID/stat field 22), against pid reuse */
	struct json_object *annotations; /* an object, or NULL */
};

const char *cr_oci_status_name(enum cr_oci_status s);

/* 0, or -EINVAL with @err saying what is wrong with @id. */
int cr_oci_id_check(const char *id, char *err, size_t size);

/* The default root for this caller: /run/corral-oci for root, $XDG_RUNTIME_DIR/corral-oci
 * (absolute only) for a user. 0, or -ENOENT with @err saying to set XDG_RUNTIME_DIR or --root. */
int cr_oci_root_default(char *const *envp, char *buf, size_t size, char *err, size_t errsize);

/* Parse state.json text (pure). 0, -EINVAL with @err naming the field, -ENOMEM. */
int cr_oci_state_parse(const char *text, size_t len, struct cr_oci_state *ret, char *err,
		       size_t size);
void cr_oci_state_done(struct cr_oci_state *s);

/* The runtime-spec state JSON of @s (ociVersion, id, status, pid, bundle, annotations); pid is
 * left out when stopped. NULL on allocation failure. */
struct json_object *cr_oci_state_json(const struct cr_oci_state *s);

/* Read ROOT/ID/state.json: the root and the container's directory must be directories of the
 * caller's uid that no one else can write, nothing is followed through a symlink, and the
 * status is brought up to date (a created or running container whose init is gone, or whose
 * pid now names another process, is stopped). 0; -ENOENT when there is no such container;
 * another -errno with @err saying why. */
int cr_oci_state_read(const char *root, const char *id, struct cr_oci_state *ret, char *err,
		      size_t size);
