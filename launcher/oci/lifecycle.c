/* SPDX-License-Identifier: MIT */
/* `corral oci start`, `kill`, `delete` and `ps`: what engines do to a container `create` made
 * (run.c), through its state.json and its processes on the host. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cgroup/resources.h"
#include "container.h"
#include "hooks.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/fd-util.h"
#include "launcher/base/json-util.h"
#include "launcher/base/macro.h"
#include "launcher/base/parse-util.h"
#include "launcher/status.h"
#include "oci-internal.h"
#include "state.h"

/* A container's state with what only corral's state.json has: its first process. */
struct box {
	char root[PATH_MAX];
	struct cr_oci_state st;
	pid_t init;
	uint64_t init_start;
};

static int load(const struct oci_opts *o, const char *cmd, const char *id, struct box *b)
{
	char err[1024] = "";
	json_object *v;
	int r;

	r = oci_root(o->root, b->root, sizeof(b->root), err, sizeof(err));
	r = r ?: cr_oci_state_read(b->root, id, &b->st, err, sizeof(err));
	if (r < 0) {
		oci_error(o, "%s %s: %s", cmd, id, err[0] ? err : strerror(-r));
		return OCI_EXIT_FAILED;
	}
	if (json_object_object_get_ex(b->st.doc, "init_pid", &v))
		b->init = (pid_t)json_object_get_int(v);
	if (json_object_object_get_ex(b->st.doc, "init_start_time", &v))
		b->init_start = json_object_get_uint64(v);
	return 0;
}

/* Is the container's first process still the one create made? */
static bool init_alive(const struct box *b)
{
	return b->init > 0 && b->init_start && oci_start_time(b->init) == b->init_start;
}

static int set_status(const struct box *b, const char *status)
{
	char err[256];
	_cleanup_close_ int dfd = oci_container_open(b->root, b->st.id, err, sizeof(err));
	json_object *s = json_object_new_string(status);

	if (dfd < 0 || !s) {
		json_object_put(s);
		return dfd < 0 ? dfd : -ENOMEM;
	}
	json_object_object_add(b->st.doc, "status", s);
	return oci_write_json(dfd, "state.json", b->st.doc);
}

/* The hooks of @kind create saved (hooks.json), with the container's state on stdin: a
 * failure is a warning, on stderr and in --log, and the lifecycle goes on (runtime-spec). */
static void run_hooks(const struct oci_opts *o, const struct box *b, const char *id,
		      enum cr_oci_hook_kind kind, const char *status)
{
	_cleanup_(oci_json_putp) json_object *st = cr_oci_state_json(&b->st);
	_cleanup_close_ int dfd = -EBADF;
	struct cr_oci_config c = {};
	char err[1024] = "";
	int r;

	dfd = oci_container_open(b->root, id, err, sizeof(err));
	r = dfd < 0 ? dfd : oci_hooks_load(dfd, &c);
	if (r >= 0 && c.n_hooks[kind] && st) {
		json_object_object_add(st, "status", json_object_new_string(status));
		if (b->init > 0 && strcmp(status, "stopped") != 0)
			json_object_object_add(st, "pid", json_object_new_int(b->init));
		else
			json_object_object_del(st, "pid");
		r = oci_hooks_run(&c, kind, json_object_to_json_string_ext(st, JSON_C_TO_STRING_PLAIN),
				  err, sizeof(err));
	}
	if (r < 0)
		oci_error(o, "warning: %s: %s", id, err[0] ? err : strerror(-r));
	cr_oci_config_done(&c);
}

static int usage(const struct oci_opts *o, const char *text)
{
	oci_error(o, "usage: corral oci %s", text);
	return CR_EXIT_SETUP;
}

/* Until the container's first process has executed its command (its /proc/PID/exe is no
 * longer this binary), 1 s at most: an engine that signals the process as soon as start
 * returns reaches the command, whose handlers are set up, not corral's setup, where pid 1 of a
 * namespace ignores what it has no handler for. Best effort: an error ends the wait. */
static void wait_exec(pid_t init)
{
	char path[64];
	struct stat self, st;

	(void)snprintf(path, sizeof(path), "/proc/%d/exe", (int)init);
	if (init <= 0 || stat("/proc/self/exe", &self) < 0)
		return;
	for (int i = 0; i < 1000; i++) {
		if (stat(path, &st) < 0 || st.st_dev != self.st_dev || st.st_ino != self.st_ino)
			return;
		(void)usleep(1000);
	}
}

/* create took a config.json without process (runtime-spec: optional there, required at start):
 * such a container can never run, so start, which must fail, ends its waiting pid 1 and waits
 * (5 s at most) for the monitor to clean up after it; the container is then stopped. */
static int refuse_no_process(const struct oci_opts *o, const struct box *b, const char *id)
{
	json_object *v;

	if (!json_object_object_get_ex(b->st.doc, "no_process", &v) || !json_object_get_boolean(v))
		return 0;
	oci_error(o, "start %s: config.json has no process, which start needs (runtime-spec); the container is stopped",
		  id);
	if (init_alive(b))
		(void)kill(b->init, SIGKILL);
	(void)oci_wait_gone(b->st.pid, b->st.pid_start_time, 5000);
	return OCI_EXIT_FAILED;
}

int oci_cmd_start(const struct oci_opts *o, int argc, char **argv)
{
	char err[256], path[PATH_MAX + 64];
	_cleanup_close_ int fd = -EBADF;
	struct box b = {};
	int r;

	if (argc != 2)
		return usage(o, "start ID");
	r = load(o, "start", argv[1], &b);
	if (r != 0)
		return r;
	if (b.st.status != CR_OCI_CREATED) {
		oci_error(o, "start %s: the container is %s, not created", argv[1],
			  cr_oci_status_name(b.st.status));
		cr_oci_state_done(&b.st);
		return OCI_EXIT_FAILED;
	}
	r = refuse_no_process(o, &b, argv[1]);
	if (r != 0) {
		cr_oci_state_done(&b.st);
		return r;
	}
	(void)snprintf(path, sizeof(path), "%s/%s/exec.fifo", b.root, argv[1]);
	/* no reader (ENXIO): the first process is gone, or was started already */
	fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	r = fd < 0 ? negative_errno() : cr_write_all(fd, "s", 1);
	r = r ?: set_status(&b, "running");
	if (r < 0) {
		(void)snprintf(err, sizeof(err), "%s", strerror(-r));
		oci_error(o, "start %s: %s", argv[1],
			  r == -ENXIO ? "the container's process is not waiting any more" : err);
	} else {
		wait_exec(b.init);
		run_hooks(o, &b, argv[1], CR_OCI_HOOK_POSTSTART, "running");
	}
	cr_oci_state_done(&b.st);
	return r < 0 ? OCI_EXIT_FAILED : 0;
}

/* "9", "KILL" or "SIGKILL". */
static int parse_signal(const char *s)
{
	uint64_t n;

	if (cr_parse_uint(s, 1, 64, &n) >= 0)
		return (int)n;
	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	for (int sig = 1; sig < 65; sig++) {
		const char *name = cr_signal_name(sig);

		if (name && strcasecmp(name + 3, s) == 0)
			return sig;
	}
	return -EINVAL;
}

/* @sig to the container's first process, or with @all to every process in its pid namespace. */
static int signal_box(const struct box *b, int sig, bool all)
{
	_cleanup_free_ pid_t *pids = NULL;
	size_t n = 0;
	int r;

	if (!all)
		return kill(b->init, sig) < 0 ? negative_errno() : 0;
	r = oci_ns_pids(b->init, b->init_start, &pids, &n);
	for (size_t i = 0; r >= 0 && i < n; i++)
		(void)kill(pids[i], sig);
	return r;
}

int oci_cmd_kill(const struct oci_opts *o, int argc, char **argv)
{
	const char *sigtext = "SIGTERM";
	struct box b = {};
	bool all = false;
	int i = 1, sig, r;

	for (; i < argc && argv[i][0] == '-'; i++)
		if (strcmp(argv[i], "--all") == 0 || strcmp(argv[i], "-a") == 0)
			all = true;
		else
			return usage(o, "kill [--all] ID [SIGNAL]");
	if (i == argc || argc - i > 2)
		return usage(o, "kill [--all] ID [SIGNAL]");
	if (argc - i == 2)
		sigtext = argv[i + 1];
	sig = parse_signal(sigtext);
	if (sig < 0) {
		oci_error(o, "kill %s: '%s' is not a signal", argv[i], sigtext);
		return CR_EXIT_SETUP;
	}
	r = load(o, "kill", argv[i], &b);
	if (r != 0)
		return r;
	if ((b.st.status != CR_OCI_CREATED && b.st.status != CR_OCI_RUNNING) || !init_alive(&b))
		r = -ESRCH;
	else
		r = signal_box(&b, sig, all);
	if (r < 0)
		/* "container not running" is the phrase containerd's shim takes as "already
		 * finished" (a pod's stop kills what may have ended) */
		oci_error(o, "kill %s: %s", argv[i],
			  r == -ESRCH ? "container not running (it has stopped)" : strerror(-r));
	cr_oci_state_done(&b.st);
	return r < 0 ? OCI_EXIT_FAILED : 0;
}

/* The caller's cgroup create placed the container in (state.json's cgroups_path), now empty. */
static int remove_cgroup(const struct box *b)
{
	json_object *v;

	if (!json_object_object_get_ex(b->st.doc, "cgroups_path", &v) ||
	    !json_object_is_type(v, json_type_string))
		return 0;
	return cr_cgroup_unplace(json_object_get_string(v));
}

int oci_cmd_delete(const struct oci_opts *o, int argc, char **argv)
{
	struct box b = {};
	bool force = false;
	int i = 1, r;

	for (; i < argc && argv[i][0] == '-'; i++)
		if (strcmp(argv[i], "--force") == 0 || strcmp(argv[i], "-f") == 0)
			force = true;
		else
			return usage(o, "delete [--force] ID");
	if (argc - i != 1)
		return usage(o, "delete [--force] ID");
	r = load(o, "delete", argv[i], &b);
	if (r != 0)
		return r;
	/* runtime-spec: deleting a container that is not stopped fails and changes nothing. A
	 * created one too: engines delete without --force only once the process has ended (their
	 * `kill`, or the exit they reaped), and with --force otherwise (docs/oci.md) */
	if ((b.st.status == CR_OCI_RUNNING || b.st.status == CR_OCI_CREATED) && !force) {
		oci_error(o, "delete %s: the container is %s, not stopped (kill it first, or delete --force)",
			  argv[i], cr_oci_status_name(b.st.status));
		cr_oci_state_done(&b.st);
		return OCI_EXIT_FAILED;
	}
	if (init_alive(&b))
		(void)signal_box(&b, SIGKILL, true);
	/* the monitor cleans the sandbox's cgroup and mounts as it ends */
	r = oci_wait_gone(b.init, b.init_start, 5000);
	if (r >= 0 && b.st.status != CR_OCI_STOPPED)
		r = oci_wait_gone(b.st.pid, b.st.pid_start_time, 5000);
	if (r < 0) {
		oci_error(o, "delete %s: its processes did not end within 5 s", argv[i]);
	} else {
		run_hooks(o, &b, argv[i], CR_OCI_HOOK_POSTSTOP, "stopped");
		if ((r = remove_cgroup(&b)) < 0)
			oci_error(o, "delete %s: cannot remove its cgroup: %s", argv[i],
				  strerror(-r));
		else if ((r = oci_container_remove(b.root, argv[i])) < 0)
			oci_error(o, "delete %s: cannot remove its state: %s", argv[i],
				  strerror(-r));
	}
	cr_oci_state_done(&b.st);
	return r < 0 ? OCI_EXIT_FAILED : 0;
}

#define PS_USAGE "ps [--format|-f table|json] ID"

/* ps's options before the ID: --format VALUE, -f VALUE or --format=VALUE, VALUE table or json,
 * as engines pass them (json when none is given). 0, or the exit status of a usage error. */
static int ps_options(const struct oci_opts *o, int argc, char **argv, bool *ret_table)
{
	for (int i = 1; i < argc - 1; i++) {
		const char *v = NULL;

		if (strcmp(argv[i], "--format") == 0 || strcmp(argv[i], "-f") == 0) {
			if (i + 1 >= argc - 1)
				return oci_error(o, "ps: %s needs a value: table or json", argv[i]),
				       CR_EXIT_SETUP;
			v = argv[++i];
		} else if (strncmp(argv[i], "--format=", 9) == 0) {
			v = argv[i] + 9;
		} else {
			return usage(o, PS_USAGE);
		}
		if (strcmp(v, "table") != 0 && strcmp(v, "json") != 0)
			return oci_error(o, "ps: --format %s: expected table or json", v),
			       CR_EXIT_SETUP;
		*ret_table = strcmp(v, "table") == 0;
	}
	return 0;
}

int oci_cmd_ps(const struct oci_opts *o, int argc, char **argv)
{
	_cleanup_(oci_json_putp) json_object *a = json_object_new_array();
	_cleanup_free_ pid_t *pids = NULL;
	const char *id = argc >= 2 ? argv[argc - 1] : NULL;
	struct box b = {};
	bool table = false;
	size_t n = 0;
	int r;

	r = ps_options(o, argc, argv, &table);
	if (r != 0)
		return r;
	if (!id || id[0] == '-')
		return usage(o, PS_USAGE);
	r = load(o, "ps", id, &b);
	if (r != 0)
		return r;
	if (b.st.status != CR_OCI_STOPPED && init_alive(&b))
		r = oci_ns_pids(b.init, b.init_start, &pids, &n);
	for (size_t i = 0; r >= 0 && a && i < n; i++)
		r = cr_json_append(a, json_object_new_int(pids[i]));
	cr_oci_state_done(&b.st);
	if (r < 0 || !a) {
		oci_error(o, "ps %s: %s", id, strerror(r < 0 ? -r : ENOMEM));
		return OCI_EXIT_FAILED;
	}
	if (!table) {
		printf("%s\n", json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN));
		return 0;
	}
	printf("PID\n");
	for (size_t i = 0; i < n; i++)
		printf("%d\n", (int)pids[i]);
	return 0;
}
