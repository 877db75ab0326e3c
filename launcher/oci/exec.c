/* SPDX-License-Identifier: MIT */
/* `corral oci exec`: another process in a running container (podman exec, containerd's exec),
 * described by a process object (--process FILE, config.json's "process"), confined as the
 * container's own process is: the bundle's config.json with that process is turned into the
 * same policy, and the engine's cr_ns_enter() joins the container and confines the command. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "console.h"
#include "container.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/json-text.h"
#include "launcher/base/macro.h"
#include "ns/enter.h"
#include "oci-internal.h"
#include "policy.h"
#include "state.h"

struct exec_opts {
	const char *process, *pid_file, *id;
	const char *console_socket;
	bool detach;
	bool tty;
};

static int parse(const struct oci_opts *o, int argc, char **argv, struct exec_opts *e)
{
	int i = 1;

	*e = (struct exec_opts){};
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t n = eq ? (size_t)(eq - a) : strlen(a);
		const char **dst = NULL;

		if (strcmp(a, "--detach") == 0 || strcmp(a, "-d") == 0) {
			e->detach = true;
			continue;
		}
		/* what conmon passes with --console-socket: the process file says it too */
		if (strcmp(a, "--tty") == 0 || strcmp(a, "-t") == 0) {
			e->tty = true;
			continue;
		}
		if (n == 9 && strncmp(a, "--process", n) == 0)
			dst = &e->process;
		else if (n == 10 && strncmp(a, "--pid-file", n) == 0)
			dst = &e->pid_file;
		else if (n == 16 && strncmp(a, "--console-socket", n) == 0)
			dst = &e->console_socket;
		else {
			oci_error(o, "exec: unknown option '%s'", a);
			return CR_EXIT_SETUP;
		}
		*dst = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
		if (!*dst) {
			oci_error(o, "exec: %s needs a value", a);
			return CR_EXIT_SETUP;
		}
	}
	if (i != argc - 1 || !e->process) {
		oci_error(o, "usage: corral oci exec --process FILE [--detach] [--pid-file FILE] [--console-socket PATH] [--tty] ID");
		return CR_EXIT_SETUP;
	}
	e->id = argv[i];
	return 0;
}

/* The bundle's config.json with its "process" replaced by @process_file's object. */
static int config_with_process(const char *bundle, const char *process_file,
			       struct cr_oci_config *ret, char *err, size_t size)
{
	_cleanup_free_ char *text = NULL, *out = NULL;
	_cleanup_(oci_json_putp) json_object *doc = NULL;
	json_object *proc;
	size_t len = 0;
	int r;

	r = oci_read_config(bundle, &text, &len, err, size);
	if (r < 0)
		return r;
	if (strlen(text) != len)
		return snprintf(err, size, "config.json: a NUL byte in the text"), -EINVAL;
	doc = json_tokener_parse(text);
	proc = json_object_from_file(process_file);
	if (!doc || !proc) {
		json_object_put(proc);
		return snprintf(err, size, "%s: not a JSON object", doc ? process_file : "config.json"),
		       -EINVAL;
	}
	json_object_object_add(doc, "process", proc);
	out = cr_json_text(doc, JSON_C_TO_STRING_PLAIN);
	if (!out)
		return -ENOMEM;
	return cr_oci_config_parse(out, strlen(out), ret, err, size);
}

/* --console-socket: connected here, where its path means something; the process makes the
 * terminal in the container's devpts and sends its master there (ns/console.c). */
static int console_connect(const struct exec_opts *e, const struct cr_oci_config *config,
			   struct cr_policy *p, char *err, size_t size)
{
	int fd = cr_oci_console_connect(e->console_socket, err, size);

	if (fd < 0)
		return fd;
	p->ex.console = true;
	p->ex.console_fd = fd;
	p->ex.console_rows = (unsigned short)config->process.console_height;
	p->ex.console_cols = (unsigned short)config->process.console_width;
	return 0;
}

/* Wait for @pid (ours: we are a subreaper) and end as it ended. */
static int wait_like(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return OCI_EXIT_FAILED;
	if (WIFSIGNALED(status)) {
		(void)setrlimit(RLIMIT_CORE, &(struct rlimit){});
		(void)signal(WTERMSIG(status), SIG_DFL);
		(void)raise(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}

int oci_cmd_exec(const struct oci_opts *o, int argc, char **argv)
{
	char root[PATH_MAX], err[1024] = "";
	struct cr_oci_caller caller = { .uid = getuid(), .gid = getgid(),
				       .host_root = cr_oci_host_root() };
	struct cr_oci_config config = {};
	struct cr_policy policy = {};
	struct cr_oci_state st = {};
	struct exec_opts e;
	json_object *v;
	pid_t init = 0, pid;
	uint64_t init_start = 0;
	int r;

	r = parse(o, argc, argv, &e);
	if (r != 0)
		return r;
	r = oci_root(o->root, root, sizeof(root), err, sizeof(err));
	r = r ?: cr_oci_state_read(root, e.id, &st, err, sizeof(err));
	if (r >= 0 && json_object_object_get_ex(st.doc, "init_pid", &v))
		init = (pid_t)json_object_get_int(v);
	if (r >= 0 && json_object_object_get_ex(st.doc, "init_start_time", &v))
		init_start = json_object_get_uint64(v);
	if (r >= 0 && (st.status != CR_OCI_RUNNING || oci_start_time(init) != init_start)) {
		(void)snprintf(err, sizeof(err), "the container is not running");
		r = -ESRCH;
	}
	r = r ?: config_with_process(st.bundle, e.process, &config, err, sizeof(err));
	if (r >= 0 && e.tty && !config.process.terminal) {
		(void)snprintf(err, sizeof(err), "--tty: process.terminal is not true");
		r = -EINVAL;
	}
	if (r >= 0 && config.process.terminal != !!e.console_socket) {
		(void)snprintf(err, sizeof(err), "%s",
			       config.process.terminal
				       ? "process.terminal: a terminal needs --console-socket"
				       : "--console-socket: process.terminal is not true");
		r = -EINVAL;
	}
	r = r ?: cr_oci_userns_mode(o->userns, &caller.userns, err, sizeof(err));
	r = r ?: cr_oci_policy_build(&config, st.bundle, &caller, &policy, err, sizeof(err));
	if (r >= 0 && e.console_socket)
		r = console_connect(&e, &config, &policy, err, sizeof(err));
	/* without --detach the command is ours to wait for once the middle process exits */
	if (r >= 0 && !e.detach && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		r = negative_errno();
	pid = r < 0 ? r : cr_ns_enter(init, &policy, err, sizeof(err));
	if (policy.ex.console)
		(void)close(policy.ex.console_fd); /* the process has its own */
	if (pid > 0 && e.pid_file && (r = oci_write_pid_file(e.pid_file, pid)) < 0) {
		(void)snprintf(err, sizeof(err), "--pid-file %s: %s", e.pid_file, strerror(-r));
		(void)kill(pid, SIGKILL);
		pid = r;
	}
	strv_freep(&policy.argv);
	cr_policy_done(&policy);
	cr_oci_config_done(&config);
	cr_oci_state_done(&st);
	if (pid < 0) {
		oci_error(o, "exec %s: %s", e.id, err[0] ? err : strerror(-(int)pid));
		return OCI_EXIT_FAILED;
	}
	return e.detach ? 0 : wait_like(pid);
}
