/* SPDX-License-Identifier: MIT */
/* `corral oci create`'s second half and the container's monitor (run.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <limits.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cgroup/resources.h"
#include "console.h"
#include "hooks.h"
#include "container.h"
#include "launcher/base/fd-util.h"
#include "launcher/base/json-util.h"
#include "launcher/base/macro.h"
#include "launcher/driver.h"
#include "launcher/outcome.h"
#include "launcher/status.h"
#include "lsm.h"
#include "oom-mark.h"
#include "policy.h"
#include "run.h"
#include "state.h"
#include "sysctl.h"
#include "userns.h"

/* What the monitor tells `create` on its pipe: "ok", or the error. */
#define REPORT_MAX 1024

struct monitor {
	const struct oci_opts *o;
	const struct cr_oci_config *config;
	struct cr_policy *policy;
	const char *bundle, *id;
	const char *console_socket; /* NULL: the container gets create's stdio */
	int dfd;       /* ROOT/ID */
	int report_fd; /* to create: closed once it knows */
	int ready_fd;  /* pid 1 writes a byte on the other end once the sandbox is built */
	bool userns_auto;   /* io.corral.userns auto: without the added user namespace if need be */
	char userns[600];   /* state.json's "userns": added, config, none, or "none: " why auto fell
			     * back to the spec's host root */
};

/* --- state.json ------------------------------------------------------------------------------ */

static json_object *state_doc(const struct monitor *m, const char *status, pid_t init)
{
	json_object *o = json_object_new_object(), *a = json_object_new_object();
	int r = 0;

	r = r ?: cr_json_add(o, "ociVersion", json_object_new_string(CR_OCI_VERSION_MAX));
	r = r ?: cr_json_add(o, "id", json_object_new_string(m->id));
	r = r ?: cr_json_add(o, "status", json_object_new_string(status));
	r = r ?: cr_json_add(o, "pid", json_object_new_int(getpid()));
	r = r ?: cr_json_add(o, "pid_start_time", json_object_new_uint64(oci_start_time(getpid())));
	r = r ?: cr_json_add(o, "bundle", json_object_new_string(m->bundle));
	/* the container's first process, which kill signals */
	r = r ?: cr_json_add(o, "init_pid", json_object_new_int(init));
	r = r ?: cr_json_add(o, "init_start_time", json_object_new_uint64(oci_start_time(init)));
	/* config.json has no process: start refuses (lifecycle.c) */
	if (r >= 0 && !m->config->process.present)
		r = cr_json_add(o, "no_process", json_object_new_boolean(1));
	/* the caller's cgroup the container was placed in, which delete removes */
	if (r >= 0 && m->policy->limits.cgroup_path[0])
		r = cr_json_add(o, "cgroups_path",
				json_object_new_string(m->policy->limits.cgroup_path));
	for (size_t i = 0; a && r >= 0 && i < m->config->annotations.n; i++)
		r = cr_json_add(a, m->config->annotations.keys[i],
				json_object_new_string(m->config->annotations.values[i]));
	r = r ?: cr_json_add(o, "annotations", a);
	/* corral's: whether it added a user namespace (docs/oci.md, "Root without a user namespace") */
	r = r ?: cr_json_add(o, "userns", json_object_new_string(m->userns));
	if (r < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* --- the monitor ----------------------------------------------------------------------------- */

static void report(struct monitor *m, const char *fmt, ...) _printf_(2, 3);
static void report(struct monitor *m, const char *fmt, ...)
{
	char buf[REPORT_MAX];
	va_list ap;

	if (m->report_fd < 0)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	/* a line: the sandbox's first process holds a copy of this pipe until it execs */
	strcat(buf, "\n");
	(void)cr_write_all(m->report_fd, buf, strlen(buf));
	(void)close(m->report_fd);
	m->report_fd = -1;
}

/* process.rlimits, umask and oomScoreAdj: set here, inherited by the sandbox. */
static int apply_process(struct monitor *m)
{
	const struct cr_oci_process *p = &m->config->process;

	for (size_t i = 0; i < p->n_rlimits; i++) {
		struct rlimit rl = { .rlim_cur = p->rlimits[i].soft, .rlim_max = p->rlimits[i].hard };

		if (setrlimit(p->rlimits[i].resource, &rl) < 0) {
			report(m, "process.rlimits[%zu]: %m", i);
			return negative_errno();
		}
	}
	if (p->has_umask)
		(void)umask((mode_t)p->umask);
	if (p->has_oom_score_adj) {
		_cleanup_close_ int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
		char v[16];

		(void)snprintf(v, sizeof(v), "%d", p->oom_score_adj);
		if (fd < 0 || cr_write_all(fd, v, strlen(v)) < 0) {
			report(m, "process.oomScoreAdj: %m");
			return -EPERM;
		}
	}
	return 0;
}

static pid_t init_pid(const struct cr_driver *drv, struct cr_run *run)
{
	_cleanup_(oci_json_putp) json_object *o = json_object_new_object();
	json_object *v;

	if (o && drv->report(run, o) >= 0 && json_object_object_get_ex(o, "init_pid", &v))
		return (pid_t)json_object_get_int(v);
	return -1;
}

/* What config.json asked that create accepted and said it would not apply (lsm.h, and corral's
 * floor: policy.h): "oci_not_applied". */
static int not_applied(const struct monitor *m, json_object *st)
{
	const char *floor = cr_oci_policy_floor_note(m->policy);
	char note[256], err[256];
	json_object *a;

	if (cr_oci_lsm_check(m->config, false, note, sizeof(note), err, sizeof(err)) < 0)
		note[0] = '\0';
	if (!note[0] && !floor)
		return 0;
	a = json_object_new_array();
	if (!a || (note[0] && json_object_array_add(a, json_object_new_string(note)) < 0) ||
	    (floor && json_object_array_add(a, json_object_new_string(floor)) < 0)) {
		json_object_put(a);
		return -ENOMEM;
	}
	return cr_json_add(st, "oci_not_applied", a);
}

/* corral's JSON status of the container, in ROOT/ID/status.json once it ended. */
static void write_status(const struct monitor *m, const struct cr_driver *drv, struct cr_run *run,
			 const struct cr_outcome *out)
{
	_cleanup_(oci_json_putp) json_object *enforced = json_object_new_object(), *st = NULL;
	struct cr_status s = { .driver = drv->name, .argv = m->policy->argv, .outcome = out,
			       .error = out->kind == CR_OUTCOME_SETUP_FAILED ||
						out->kind == CR_OUTCOME_EXEC_FAILED
					? &out->error
					: NULL,
			       .exit_code = cr_exit_code(out, false) };

	if (enforced && drv->report(run, enforced) < 0)
		json_object_put(TAKE_PTR(enforced));
	s.enforced = enforced;
	st = cr_status_build(&s);
	if (st && not_applied(m, st) >= 0)
		(void)oci_write_json(m->dfd, "status.json", st);
}

/* The kernel OOM-killed a process of the container: the engine's mark in the bundle (podman's
 * State.OOMKilled), before the monitor's exit tells the engine it ended. */
static void mark_oom(const struct monitor *m)
{
	char err[PATH_MAX + 64], why[sizeof(err) + 64];

	if (cr_oci_oom_mark(m->bundle, err, sizeof(err)) >= 0)
		return;
	(void)snprintf(why, sizeof(why), "%s: OOM-killed, but no mark for the engine: %s", m->id,
		       err);
	oci_log_warning(m->o, why);
}

/* End as the container's process ended: its exit code, or killed by its signal. */
static _Noreturn void exit_like(const struct cr_outcome *out)
{
	if (out->kind == CR_OUTCOME_SIGNALED) {
		(void)setrlimit(RLIMIT_CORE, &(struct rlimit){}); /* the signal, not a core */
		(void)signal(out->status, SIG_DFL);
		(void)raise(out->status);
	}
	_exit(out->kind == CR_OUTCOME_EXITED	 ? out->status
	      : out->kind == CR_OUTCOME_SIGNALED ? 128 + out->status
						 : 127);
}

/* prestart and createRuntime, the container's namespaces made, with the state on stdin (its pid
 * the container's process, whose namespaces a hook joins); then hooks.json for start and delete. */
static int run_create_hooks(const struct monitor *m, pid_t init, char *why, size_t size)
{
	_cleanup_(oci_json_putp) json_object *st = state_doc(m, "created", init), *doc = NULL;
	const char *text;
	int r;

	if (!st || cr_json_add(st, "pid", json_object_new_int(init)) < 0)
		return -ENOMEM;
	text = json_object_to_json_string_ext(st, JSON_C_TO_STRING_PLAIN);
	r = oci_hooks_run(m->config, CR_OCI_HOOK_PRESTART, text, why, size);
	r = r ?: oci_hooks_run(m->config, CR_OCI_HOOK_CREATE_RUNTIME, text, why, size);
	if (r < 0 || (!m->config->n_hooks[CR_OCI_HOOK_POSTSTART] &&
		      !m->config->n_hooks[CR_OCI_HOOK_POSTSTOP]))
		return r;
	doc = oci_hooks_doc(m->config);
	r = doc ? oci_write_json(m->dfd, "hooks.json", doc) : -ENOMEM;
	if (r < 0)
		(void)snprintf(why, size, "cannot write hooks.json: %s", strerror(-r));
	return r;
}

/* The driver's prepare; under io.corral.userns auto, again without the user namespace corral
 * added when the container's root cannot be idmapped (an engine's overlay), said in --log and
 * in state.json (stderr is the container's). */
static int prepare(struct monitor *m, const struct cr_driver *drv, struct cr_run **run,
		   struct cr_setup_error *err)
{
	char why[1024];
	int r;

	const struct cr_explicit *ex = &m->policy->ex;

	const char *unfit = cr_oci_userns_unfit(m->config, m->policy);

	if (ex->idmap_root)
		(void)snprintf(m->userns, sizeof(m->userns), "added");
	else if ((ex->namespaces & CR_NS_USER) || ex->userns_fd >= 0)
		(void)snprintf(m->userns, sizeof(m->userns), "config");
	else if (unfit && m->userns_auto && cr_oci_host_root())
		(void)snprintf(m->userns, sizeof(m->userns), "none: %s", unfit);
	else
		(void)snprintf(m->userns, sizeof(m->userns), "none");
	r = drv->prepare(m->policy, run, err);
	if (r != -EINVAL || strcmp(err->stage, "mounts") != 0 || !m->policy->ex.idmap_root ||
	    !m->userns_auto)
		return r;
	(void)snprintf(m->userns, sizeof(m->userns), "none: %s", err->message);
	(void)snprintf(why, sizeof(why),
		       "create %s: %s; io.corral.userns auto: the container runs as the spec says, without the user namespace corral adds (required refuses instead)",
		       m->id, err->message);
	oci_log_warning(m->o, why);
	cr_oci_userns_drop(m->policy);
	*err = (struct cr_setup_error){};
	return drv->prepare(m->policy, run, err);
}

static _Noreturn void monitor_main(struct monitor *m)
{
	const struct cr_driver *drv = cr_driver_native();
	struct cr_setup_error err = {};
	struct cr_outcome out = {};
	struct cr_run *run = NULL;
	_cleanup_(oci_json_putp) json_object *st = NULL;
	char c;
	pid_t init;
	int r;

	if (apply_process(m) < 0)
		_exit(1);
	if (m->console_socket) {
		char why[512];
		int fd = cr_oci_console_connect(m->console_socket, why, sizeof(why));

		if (fd < 0) {
			report(m, "%s", why);
			_exit(1);
		}
		m->policy->ex.console = true;
		m->policy->ex.console_fd = fd;
		m->policy->ex.console_rows = (unsigned short)m->config->process.console_height;
		m->policy->ex.console_cols = (unsigned short)m->config->process.console_width;
	}
	r = prepare(m, drv, &run, &err);
	if (r < 0 && m->policy->ex.idmap_root)
		report(m, "%s (io.corral.userns required: the user namespace corral adds needs a root it can idmap; auto falls back to the spec's host root)",
		       err.message[0] ? err.message : strerror(-r));
	if (r < 0) {
		report(m, "%s", err.message[0] ? err.message : strerror(-r));
		_exit(1);
	}
	r = drv->spawn(run);
	if (m->policy->ex.console)
		(void)close(m->policy->ex.console_fd); /* the container's init has its own */
	(void)close(m->policy->ex.ready_fd);
	(void)close(m->policy->ex.block_fd);
	if (r >= 0 && read(m->ready_fd, &c, 1) == 1) {
		char why[512] = "";

		init = init_pid(drv, run);
		r = cr_oci_sysctl_apply(&m->config->sysctl, init,
					m->policy->ex.namespaces & CR_NS_USER, why, sizeof(why));
		r = r ?: run_create_hooks(m, init, why, sizeof(why));
		if (r >= 0) {
			st = state_doc(m, "created", init);
			r = st ? oci_write_json(m->dfd, "state.json", st) : -ENOMEM;
			if (r < 0)
				(void)snprintf(why, sizeof(why), "cannot write state.json: %s",
					       strerror(-r));
		}
		if (r < 0)
			drv->stop(run, true);
		report(m, "%s", r < 0 ? why : "ok");
	}
	r = drv->wait(run, -1, &out);
	if (r < 0)
		report(m, "cannot run the container: %s", strerror(-r));
	else if (out.kind == CR_OUTCOME_SETUP_FAILED || out.kind == CR_OUTCOME_EXEC_FAILED)
		report(m, "%s: %s", out.error.stage, out.error.message);
	else
		report(m, "the container ended before it was made");
	if (r >= 0)
		write_status(m, drv, run, &out);
	if (r >= 0 && out.oom_killed)
		mark_oom(m);
	drv->run_free(run);
	if (r < 0)
		_exit(1);
	exit_like(&out);
}

/* --- create ---------------------------------------------------------------------------------- */

static int prepare_fds(const struct create_opts *c, struct cr_policy *p, int dfd, int ready[2],
		       char *err, size_t size)
{
	int fifo;

	/* --preserve-fds N: 3 to 3+N-1 go to the process as they are */
	if (c->preserve_fds) {
		p->keep_fds = calloc(c->preserve_fds, sizeof(int));
		if (!p->keep_fds)
			return -ENOMEM;
		for (uint64_t i = 0; i < c->preserve_fds; i++)
			p->keep_fds[p->n_keep_fds++] = 3 + (int)i;
	}
	if (mkfifoat(dfd, "exec.fifo", 0600) < 0)
		return snprintf(err, size, "exec.fifo: %m"), negative_errno();
	/* read-write: start's open for writing never blocks while pid 1 waits on it */
	fifo = openat(dfd, "exec.fifo", O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fifo < 0)
		return snprintf(err, size, "exec.fifo: %m"), negative_errno();
	p->ex.block_fd = fifo;
	if (pipe2(ready, O_CLOEXEC) < 0)
		return negative_errno();
	p->ex.ready_fd = ready[1];
	return 0;
}

/* What the monitor said, a line: 0 when the container waits, else -1 with @err. */
static int await_monitor(int fd, pid_t pid, char *err, size_t size)
{
	char buf[REPORT_MAX + 1];
	size_t n = 0;
	ssize_t k;
	int status;

	while (n < REPORT_MAX && (k = read(fd, buf + n, REPORT_MAX - n)) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		n += (size_t)k;
		if (buf[n - 1] == '\n')
			break;
	}
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	if (strcmp(buf, "ok") == 0)
		return 0;
	(void)waitpid(pid, &status, 0);
	(void)snprintf(err, size, "%s", n ? buf : "the container's monitor ended without a word");
	return -1;
}

/* The mode for @config is auto (create checked it already). */
static bool userns_auto(const struct oci_opts *o, const struct cr_oci_config *config)
{
	enum cr_oci_userns mode, asked;
	char err[256];

	return cr_oci_userns_mode(o->userns, &mode, err, sizeof(err)) >= 0 &&
	       cr_oci_userns_asked(config, mode, &asked, err, sizeof(err)) >= 0 &&
	       asked == CR_OCI_USERNS_AUTO;
}

int oci_run_create(const struct oci_opts *o, const struct create_opts *c,
		   const struct cr_oci_config *config, struct cr_policy *policy, const char *bundle)
{
	char root[PATH_MAX], err[REPORT_MAX + 256] = "";
	_cleanup_close_ int dfd = -EBADF;
	int ready[2] = { -1, -1 }, rep[2] = { -1, -1 }, r;
	pid_t pid;

	r = oci_root(o->root, root, sizeof(root), err, sizeof(err));
	if (r >= 0)
		r = dfd = oci_container_mkdir(root, c->id, err, sizeof(err));
	if (r < 0) {
		oci_error(o, "create %s: %s", c->id, err[0] ? err : strerror(-r));
		return OCI_EXIT_FAILED;
	}
	r = prepare_fds(c, policy, dfd, ready, err, sizeof(err));
	if (r >= 0 && pipe2(rep, O_CLOEXEC) < 0)
		r = negative_errno();
	pid = r < 0 ? -1 : fork();
	if (pid == 0) {
		struct monitor m = { .o = o, .config = config, .policy = policy, .bundle = bundle,
				     .id = c->id, .console_socket = c->console_socket,
				     .dfd = dfd, .report_fd = rep[1],
				     .ready_fd = ready[0], .userns_auto = userns_auto(o, config) };

		(void)close(rep[0]);
		monitor_main(&m);
	}
	if (r >= 0 && pid < 0)
		r = negative_errno();
	if (ready[0] >= 0) {
		(void)close(ready[0]);
		(void)close(ready[1]);
	}
	if (rep[1] >= 0)
		(void)close(rep[1]);
	if (policy->ex.block_fd >= 0)
		(void)close(policy->ex.block_fd);
	if (r >= 0)
		r = await_monitor(rep[0], pid, err, sizeof(err));
	if (rep[0] >= 0)
		(void)close(rep[0]);
	if (r >= 0 && c->pid_file && (r = oci_write_pid_file(c->pid_file, pid)) < 0) {
		(void)snprintf(err, sizeof(err), "--pid-file %s: %s", c->pid_file, strerror(-r));
		(void)kill(pid, SIGKILL);
		(void)waitpid(pid, NULL, 0);
	}
	if (r < 0) {
		oci_error(o, "create %s: %s", c->id, err[0] ? err : strerror(-r));
		(void)oci_container_remove(root, c->id);
		/* the caller's cgroup the monitor made, now empty (a busy one is not removed) */
		if (pid > 0 && policy->limits.cgroup_path[0])
			(void)cr_cgroup_unplace(policy->limits.cgroup_path);
		return OCI_EXIT_FAILED;
	}
	return 0;
}
