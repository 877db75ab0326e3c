/* SPDX-License-Identifier: MIT */
/* A container's files under the state root (ROOT/ID/: state.json, exec.fifo, status.json) and
 * its processes on the host, for the commands of `corral oci` (create.c, lifecycle.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <json-c/json.h>

/* For _cleanup_(oci_json_putp). */
static inline void oci_json_putp(struct json_object **o)
{
	json_object_put(*o);
}

/* The state root: --root, or the caller's default. 0 or -errno with @err. */
int oci_root(const char *opt_root, char *buf, size_t size, char *err, size_t errsize);

/* Make ROOT (0700, the caller's) if missing and ROOT/ID, which must not exist yet (-EEXIST).
 * Returns an O_DIRECTORY descriptor of ROOT/ID, or -errno with @err. */
int oci_container_mkdir(const char *root, const char *id, char *err, size_t size);
/* Open ROOT/ID (checked as cr_oci_state_read() does). */
int oci_container_open(const char *root, const char *id, char *err, size_t size);
/* Remove ROOT/ID and the files corral puts there. 0 or -errno. */
int oci_container_remove(const char *root, const char *id);

/* Write @doc as @name in the directory @dfd, whole (a temporary file renamed over it). */
int oci_write_json(int dfd, const char *name, struct json_object *doc);
/* Write "PID" to @path whole (a temporary file beside it, renamed). 0 or -errno. */
int oci_write_pid_file(const char *path, pid_t pid);

/* Field 22 of /proc/PID/stat; 0 when the process is gone or a zombie. */
uint64_t oci_start_time(pid_t pid);
/* The host pids of every process in the pid namespace of @init (whose start time is @start),
 * @init first, in *@ret (malloc'ed). -ESRCH when @init is gone. */
int oci_ns_pids(pid_t init, uint64_t start, pid_t **ret, size_t *ret_n);
/* Wait up to @ms for @pid (of start time @start) to be gone or a zombie. 0 or -ETIMEDOUT. */
int oci_wait_gone(pid_t pid, uint64_t start, int ms);
