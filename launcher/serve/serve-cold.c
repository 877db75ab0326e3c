/* SPDX-License-Identifier: MIT */
/* `corral serve`'s cold path: a command whose "request" goes beyond its session's warm sandbox
 * (and was approved, or lies within the session's grants) runs in a one-off sandbox built as
 * `corral run` builds it, from the session's profile and the request. The driver's run is
 * blocking, so a helper process forked from the server does it (prepare, spawn, wait with the
 * timeout) and writes the outcome on a pipe the server polls like a warm exec. The helper dies
 * with the server (parent-death signal), and the sandbox with the helper. */
#include <errno.h>
#include <json-c/json.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/base/time-util.h"
#include "launcher/policy/policy-build.h"
#include "launcher/policy/cli.h"
#include "launcher/base/fd-util.h"
#include "launcher/base/json-text.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "serve-internal.h"

extern char **environ;

/* The argument vector a cold exec is parsed from: the `corral run` options request_args() writes
 * for a session (a few dozen) and the exec's command, with room for the terminating NULL. */
#define MAX_ARGS 256

/* What the helper writes back. */
struct cold_result {
	bool have_outcome, timed_out;
	struct cr_outcome outcome;
	struct cr_setup_error error;
};

static int push(char **v, size_t *n, char *s)
{
	if (!s)
		return -ENOMEM;
	if (*n + 2 >= MAX_ARGS) {
		free(s);
		return -E2BIG;
	}
	v[(*n)++] = s;
	return 0;
}

/* `corral run` options that ask for @c on top of the session's workspace. */
static int request_args(const struct serve_session *s, const struct cr_capability *c, char **v,
			size_t *n)
{
	int r = 0;

	r = push(v, n, strdup("run"));
	if (r >= 0)
		r = push(v, n, strdup("--workspace"));
	if (r >= 0)
		r = push(v, n, strdup(s->policy.workspace));
	for (size_t i = 0; r >= 0 && i < c->n_fs_read; i++)
		if ((r = push(v, n, strdup("--ro"))) >= 0)
			r = push(v, n, strdup(c->fs_read[i]));
	for (size_t i = 0; r >= 0 && i < c->n_fs_write; i++)
		if ((r = push(v, n, strdup("--rw"))) >= 0)
			r = push(v, n, strdup(c->fs_write[i]));
	if (r >= 0 && c->net == CR_NETCAP_ALL)
		r = push(v, n, strdup("--net=host"));
	for (size_t i = 0; r >= 0 && c->net == CR_NETCAP_HOSTS && i < c->n_hosts; i++)
		if ((r = push(v, n, strdup("--allow-host"))) >= 0)
			r = push(v, n, strdup(c->hosts[i]));
	if (r >= 0 && c->spawn)
		r = push(v, n, strdup("--spawn=yes"));
	for (int l = 0; r >= 0 && l < _CR_LIMIT_MAX; l++) {
		char val[32];

		if (!c->limit[l])
			continue;
		cr_limit_format(l, c->limit[l], val, sizeof(val));
		if ((r = push(v, n, strdup(cr_limit_option(l)))) >= 0)
			r = push(v, n, strdup(val));
	}
	if (r >= 0)
		r = push(v, n, strdup("--"));
	return r;
}

/* The one-off policy: the session's profile, the request's options, and the exec's command,
 * environment and working directory. */
int serve_cold_policy(struct serve *sv, struct serve_exec *x, struct cr_policy *ret, char *msg,
		      size_t size)
{
	struct serve_session *s = x->session;
	char *args[MAX_ARGS] = {};
	struct cr_run_options o = {};
	struct cr_policy_input in = {
		.opts = &o,
		.profile = &s->profile,
		.session_workspace = s->have_store ? s->store.workspace : NULL,
		.system_paths = sv->drv->system_paths,
		.host_env = environ,
		.is_root = geteuid() == 0,
	};
	size_t n = 0;
	int r;

	if (x->caps.unconfined)
		return cr_msg(msg, size, -EOPNOTSUPP,
			      "corral serve does not weaken a sandbox's layers (\"unconfined\")");
	r = request_args(s, &x->caps, args, &n);
	for (size_t i = 0; r >= 0 && x->argv[i]; i++)
		r = push(args, &n, strdup(x->argv[i]));
	if (r >= 0)
		r = cr_cli_parse_run((int)n, args, &o, msg, size);
	else
		(void)cr_msg(msg, size, r, "cannot express the request as options");
	if (r >= 0) {
		r = cr_policy_build_from(&in, ret, NULL, NULL, msg, size);
		cr_run_options_done(&o);
		if (r >= 0 && (r = serve_guard_own_files(sv, s, ret, msg, size)) < 0)
			cr_policy_done(ret);
	}
	if (r >= 0) {
		ret->argv = x->argv; /* owned by the exec, which outlives the helper's copy */
		strv_freep(&ret->env);
		free(ret->cwd);
		ret->env = NULL;
		ret->cwd = strdup(x->cwd);
		if (!ret->cwd || !(ret->env = calloc(1, sizeof(char *))))
			r = cr_msg(msg, size, -ENOMEM, "out of memory");
		for (char **e = x->envp; r >= 0 && *e; e++) /* the exec's own environment */
			r = serve_strv_push(&ret->env, strdup(*e));
		ret->timeout_ms = x->timeout_ms;
		ret->kill_after_ms = CR_SERVE_KILL_GRACE_MS;
		ret->redirect_stdio = true;
		if (r >= 0)
			r = serve_socket_check(sv, ret, msg, size);
		if (r < 0)
			cr_policy_done(ret);
	}
	for (size_t i = 0; i < n; i++)
		free(args[i]);
	return r;
}

/* In the helper: the enforcement report of the run, as JSON text after the result. */
static void write_report(const struct cr_driver *drv, struct cr_run *run, int fd)
{
	json_object *enforced = json_object_new_object();
	_cleanup_free_ char *text = NULL;

	if (enforced && drv->report(run, enforced) >= 0) {
		text = cr_json_text(enforced, JSON_C_TO_STRING_PLAIN);
		if (text)
			(void)!write(fd, text, strlen(text));
	}
	json_object_put(enforced);
}

/* In the helper: the driver's run, supervised as `corral run` does. */
static void cold_run(struct serve *sv, const struct cr_policy *p, struct cold_result *res, int fd)
{
	const struct cr_driver *drv = sv->drv;
	struct cr_run *run = NULL;
	int r;

	r = drv->prepare(p, &run, &res->error);
	if (r >= 0)
		r = drv->spawn(run);
	if (r >= 0) {
		r = drv->wait(run, p->timeout_ms ? (int64_t)p->timeout_ms : -1, &res->outcome);
		if (r == -ETIMEDOUT) {
			res->timed_out = true;
			(void)drv->stop(run, false);
			r = drv->wait(run, (int64_t)p->kill_after_ms, &res->outcome);
		}
		if (r == -ETIMEDOUT) {
			(void)drv->stop(run, true);
			r = drv->wait(run, -1, &res->outcome);
		}
	} else if (run && drv->wait(run, -1, &res->outcome) == 0)
		r = 0;
	res->have_outcome = r >= 0;
	/* the helper was stopped past the deadline, which the sandbox kept */
	if (r >= 0 && res->outcome.timed_out)
		res->timed_out = true;
	if (r < 0 && !res->error.message[0])
		(void)snprintf(res->error.message, sizeof(res->error.message),
			       "cannot run the sandbox: %s", strerror(-r));
	(void)!write(fd, res, sizeof(*res));
	if (run && res->have_outcome && res->outcome.kind != CR_OUTCOME_SETUP_FAILED)
		write_report(drv, run, fd);
	run = drv->run_free(run);
}

static _Noreturn void helper_main(struct serve *sv, struct cr_policy *p, int result_fd,
				  pid_t server)
{
	int keep[4] = {p->stdio[0], p->stdio[1], p->stdio[2], result_fd};
	struct cold_result res = {};
	sigset_t none;
	int r;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != server)
		_exit(1);
	/* The server's signal state is not the command's: it ignores SIGPIPE, and whatever it was
	 * started with ignored (SIGHUP under nohup), which execve would pass on; and it blocks
	 * SIGTERM and SIGINT (its signalfd). `corral run` keeps an ignored SIGHUP for its command
	 * because the user started both; a server's commands come from its clients. */
	for (int sig = 1; sig < _NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)signal(sig, SIG_DFL);
	(void)sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	/* With --stdio, the server's stdin and stdout are its client: no process of the one-off
	 * sandbox, the helper included, may hold them. */
	for (int i = 0; i < 2; i++)
		if (keep[0] != i && keep[1] != i && keep[2] != i && keep[3] != i &&
		    dup2(sv->devnull_fd, i) < 0)
			_exit(1);
	/* The server's descriptors (its listening socket, other clients, the ledger) must not
	 * reach the command: if they cannot all be closed, nothing runs. */
	r = cr_close_all_except(3, keep, ELEMENTSOF(keep));
	if (r < 0) {
		(void)snprintf(res.error.message, sizeof(res.error.message),
			       "cannot close the server's descriptors: %s", strerror(-r));
		(void)!write(result_fd, &res, sizeof(res));
		_exit(1);
	}
	cold_run(sv, p, &res, result_fd);
	_exit(0);
}

/* Fork the helper for @x with its policy; the command's stdio is @child. */
int serve_cold_start(struct serve *sv, struct serve_exec *x, struct cr_policy *p,
		     const int child[3])
{
	pid_t server = getpid();
	int pfd[2];

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return negative_errno();
	memcpy(p->stdio, child, sizeof(p->stdio));
	x->helper = fork();
	if (x->helper < 0) {
		int r = negative_errno();

		(void)close(pfd[0]);
		(void)close(pfd[1]);
		return r;
	}
	if (x->helper == 0)
		helper_main(sv, p, pfd[1], server);
	(void)close(pfd[1]);
	x->result_fd = pfd[0];
	return 0;
}

/* The report after the result, up to the helper's end. */
static json_object *read_report(int fd)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	char buf[4096];
	ssize_t n;

	if (!f)
		return NULL;
	(void)fcntl(fd, F_SETFL, 0); /* the helper is done: this ends at once */
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		(void)fwrite(buf, 1, (size_t)n, f);
	fclose(f);
	return len ? json_tokener_parse(text) : NULL;
}

/* The helper's outcome (it has ended: its pipe is readable). */
void serve_cold_result(struct serve_exec *x)
{
	struct cold_result res = {};
	ssize_t n = read(x->result_fd, &res, sizeof(res));

	if (n == sizeof(res))
		x->enforced = read_report(x->result_fd);
	(void)close(x->result_fd);
	x->result_fd = -EBADF;
	(void)waitpid(x->helper, NULL, 0);
	x->helper = 0;
	x->ended = true;
	x->end_ms = cr_now_ms_f();
	x->timed_out = n == sizeof(res) && res.timed_out;
	if (n != sizeof(res) || !res.have_outcome || res.outcome.kind == CR_OUTCOME_SETUP_FAILED) {
		x->cold_failed = true;
		(void)snprintf(x->cold_error, sizeof(x->cold_error), "%s",
			       n != sizeof(res)               ? "the one-off sandbox's helper died"
			       : res.outcome.error.message[0] ? res.outcome.error.message
							      : res.error.message);
		return;
	}
	x->res = (struct cr_exec_result){
		.kind = res.outcome.kind,
		.status = res.outcome.status,
		.err = res.outcome.error.err,
		.oom_killed = res.outcome.oom_killed,
		.pids_limit_hit = res.outcome.pids_limit_hit,
	};
}

void serve_cold_kill(struct serve_exec *x)
{
	if (x->helper > 0) {
		(void)kill(x->helper, SIGKILL); /* its sandbox follows: parent-death signal */
		(void)waitpid(x->helper, NULL, 0);
		x->helper = 0;
	}
	if (x->result_fd >= 0)
		x->result_fd = (close(x->result_fd), -EBADF);
}
