/* SPDX-License-Identifier: MIT */
/* The macos driver: the command under /usr/bin/sandbox-exec with the SBPL profile of sbpl.c,
 * every path passed as a -D parameter. Built only on darwin (meson.build); it cannot run on the
 * Linux machines corral is developed on, so macos/README.md lists what to check on a Mac.
 *
 * The command runs in a new process group (the timeout and stop kill the group), with the
 * policy's environment (TMPDIR pointing at a private directory made for the run), no descriptors
 * but 0, 1, 2 and --keep-fd ones, and the rlimits macOS offers: RLIMIT_CPU, RLIMIT_FSIZE,
 * RLIMIT_NOFILE (RLIMIT_NPROC is per user, not per tree, and memory cannot be capped: the JSON
 * status says so for each). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/event.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/driver.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/json-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/policy/policy.h"
#include "sbpl.h"

#define SANDBOX_EXEC "/usr/bin/sandbox-exec"

static const char *const macos_system_paths[] = {
	"/usr", "/bin", "/sbin", "/System", "/Library", "/private/etc", NULL,
};

struct cr_run {
	const struct cr_policy *policy;
	struct cr_sbpl sbpl;
	char tmpdir[1024];
	char **env;   /* the policy's environment with TMPDIR set to tmpdir */
	pid_t pid;    /* sandbox-exec, then the command: also the process group */
	int kq;
	bool reaped;
	int status;
};

static int macos_probe(struct cr_probe *ret)
{
	struct cr_check *c = &ret->checks[0];

	*ret = (struct cr_probe){ .n_checks = 1 };
	(void)snprintf(c->name, sizeof(c->name), "sandbox_exec");
	c->required = true;
	if (access(SANDBOX_EXEC, X_OK) == 0) {
		c->state = CR_CHECK_OK;
		(void)snprintf(c->value, sizeof(c->value), "%s", SANDBOX_EXEC);
		(void)snprintf(c->detail, sizeof(c->detail),
			       "sandbox-exec is present. Apple marks it deprecated; it still enforces SBPL profiles, and corral fails closed the day it is gone");
	} else {
		c->state = CR_CHECK_MISSING;
		(void)snprintf(c->detail, sizeof(c->detail), "%s is missing", SANDBOX_EXEC);
		(void)snprintf(c->fix, sizeof(c->fix),
			       "corral's macos driver needs sandbox-exec; nothing else can run the profile");
	}
	return 0;
}

static int make_tmpdir(struct cr_run *run)
{
	char base[1024];
	size_t n = confstr(_CS_DARWIN_USER_TEMP_DIR, base, sizeof(base));
	char *real;

	if (n == 0 || n > sizeof(base))
		(void)snprintf(base, sizeof(base), "/private/tmp/");
	(void)snprintf(run->tmpdir, sizeof(run->tmpdir), "%scorral-run.XXXXXX", base);
	if (!mkdtemp(run->tmpdir))
		return negative_errno();
	real = realpath(run->tmpdir, NULL); /* /var -> /private/var: the profile wants it real */
	if (!real)
		return negative_errno();
	(void)snprintf(run->tmpdir, sizeof(run->tmpdir), "%s", real);
	free(real);
	return 0;
}

static int build_env(struct cr_run *run)
{
	size_t n = 0, k = 0;

	while (run->policy->env[n])
		n++;
	run->env = calloc(n + 2, sizeof(char *));
	if (!run->env)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (strncmp(run->policy->env[i], "TMPDIR=", 7) != 0 &&
		    !(run->env[k++] = strdup(run->policy->env[i])))
			return -ENOMEM;
	if (asprintf(&run->env[k], "TMPDIR=%s/", run->tmpdir) < 0) {
		run->env[k] = NULL;
		return -ENOMEM;
	}
	return 0;
}

static struct cr_run *macos_run_free(struct cr_run *run);

/* --limits=required: what macOS cannot enforce refuses the run. */
static int check_limits(const struct cr_policy *p, struct cr_setup_error *err)
{
	static const enum cr_limit unenforceable[] = { CR_LIMIT_MEMORY, CR_LIMIT_MEMORY_SWAP,
						       CR_LIMIT_PIDS, CR_LIMIT_CPU };

	for (size_t i = 0; p->limits.required && i < ELEMENTSOF(unenforceable); i++) {
		enum cr_limit l = unenforceable[i];

		if (!cr_limit_is_finite(p->limits.value[l]) ||
		    (l == CR_LIMIT_PIDS && !p->limits.set[l]))
			continue;
		if (err) {
			(void)snprintf(err->stage, sizeof(err->stage), "limits");
			(void)snprintf(err->message, sizeof(err->message),
				       "%s cannot be enforced on macOS and --limits=required is set",
				       cr_limit_option(l));
		}
		return -ENOTSUP;
	}
	return 0;
}

/* --secret-file needs a private /run/secrets, which a Seatbelt profile cannot make. */
static int check_secrets(const struct cr_policy *p, struct cr_setup_error *err)
{
	for (size_t i = 0; i < p->n_secrets; i++) {
		if (p->secrets[i].kind != CR_SECRET_FILE)
			continue;
		if (err) {
			(void)snprintf(err->stage, sizeof(err->stage), "prepare");
			(void)snprintf(err->message, sizeof(err->message),
				       "--secret-file cannot be shown on macOS (no private %s); pass it with --secret",
				       CR_SECRETS_DIR);
		}
		return -ENOTSUP;
	}
	return 0;
}

static int macos_prepare(const struct cr_policy *p, struct cr_run **ret, struct cr_setup_error *err)
{
	struct cr_run *run = calloc(1, sizeof(*run));
	int r;

	if (!run)
		return -ENOMEM;
	run->policy = p;
	run->pid = -1;
	run->kq = -1;
	r = check_limits(p, err);
	if (r >= 0)
		r = check_secrets(p, err);
	if (r >= 0)
		r = make_tmpdir(run);
	if (r >= 0)
		r = cr_sbpl_from_policy(p, run->tmpdir, isatty(STDIN_FILENO), &run->sbpl,
					err ? err->message : NULL, err ? sizeof(err->message) : 0);
	if (r >= 0)
		r = build_env(run);
	if (r < 0) {
		if (err && !err->stage[0])
			(void)snprintf(err->stage, sizeof(err->stage), "prepare");
		macos_run_free(run);
		return r;
	}
	*ret = run;
	return 0;
}

/* sandbox-exec -p PROFILE -D K=V ... -- CMD ARGS */
static char **exec_argv(const struct cr_run *run)
{
	size_t n_cmd = 0, k = 0;
	char **v;

	while (run->policy->argv[n_cmd])
		n_cmd++;
	v = calloc(4 + 2 * run->sbpl.n_params + n_cmd + 1, sizeof(char *));
	if (!v)
		return NULL;
	v[k++] = (char *)"sandbox-exec";
	v[k++] = (char *)"-p";
	v[k++] = run->sbpl.profile;
	for (size_t i = 0; i < run->sbpl.n_params; i++) {
		v[k++] = (char *)"-D";
		v[k++] = run->sbpl.params[i];
	}
	v[k++] = (char *)"--";
	for (size_t i = 0; i < n_cmd; i++)
		v[k++] = run->policy->argv[i];
	return v;
}

static void set_limit(int resource, uint64_t v)
{
	struct rlimit rl;

	if (!cr_limit_is_finite(v))
		return;
	rl.rlim_cur = rl.rlim_max = (rlim_t)v;
	(void)setrlimit(resource, &rl);
}

static bool kept(const struct cr_policy *p, int fd)
{
	for (size_t i = 0; i < p->n_keep_fds; i++)
		if (p->keep_fds[i] == fd)
			return true;
	return false;
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static _Noreturn void child(const struct cr_run *run, char **argv)
{
	const struct cr_policy *p = run->policy;
	long max = sysconf(_SC_OPEN_MAX);

	(void)setpgid(0, 0);
	if (p->redirect_stdio)
		for (int i = 0; i < 3; i++)
			if (p->stdio[i] != i && dup2(p->stdio[i], i) < 0)
				_exit(CR_EXIT_SETUP);
	set_limit(RLIMIT_CPU, p->limits.value[CR_LIMIT_CPU_TIME]);
	set_limit(RLIMIT_FSIZE, p->limits.value[CR_LIMIT_FILE_SIZE]);
	set_limit(RLIMIT_NOFILE, p->limits.value[CR_LIMIT_OPEN_FILES]);
	for (long fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
		if (!kept(p, (int)fd))
			(void)close((int)fd);
	if (chdir(p->cwd) < 0)
		_exit(CR_EXIT_SETUP);
	execve(SANDBOX_EXEC, argv, run->env);
	_exit(errno == ENOENT ? CR_EXIT_NOTFOUND : CR_EXIT_NOEXEC);
}

static int macos_spawn(struct cr_run *run)
{
	_cleanup_free_ char **argv = exec_argv(run);
	struct kevent ev;

	if (!argv)
		return -ENOMEM;
	run->kq = kqueue();
	if (run->kq < 0)
		return negative_errno();
	run->pid = fork();
	if (run->pid < 0)
		return negative_errno();
	if (run->pid == 0)
		child(run, argv);
	(void)setpgid(run->pid, run->pid); /* also from here: no race with a stop */
	EV_SET(&ev, run->pid, EVFILT_PROC, EV_ADD | EV_ONESHOT, NOTE_EXIT, 0, NULL);
	if (kevent(run->kq, &ev, 1, NULL, 0, NULL) < 0 && errno != ESRCH)
		return negative_errno();
	return 0;
}

static int macos_wait(struct cr_run *run, int64_t timeout_ms, struct cr_outcome *ret)
{
	struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000 };
	struct kevent ev;
	pid_t w;

	while (!run->reaped) {
		w = waitpid(run->pid, &run->status, WNOHANG);
		if (w == run->pid) {
			run->reaped = true;
			break;
		}
		if (w < 0 && errno != EINTR)
			return negative_errno();
		if (kevent(run->kq, NULL, 0, &ev, 1, timeout_ms < 0 ? NULL : &ts) == 0)
			return -ETIMEDOUT;
	}
	/* What the group left behind goes with it. */
	(void)killpg(run->pid, SIGKILL);
	*ret = (struct cr_outcome){
		.kind = WIFSIGNALED(run->status) ? CR_OUTCOME_SIGNALED : CR_OUTCOME_EXITED,
		.status = WIFSIGNALED(run->status) ? WTERMSIG(run->status) : WEXITSTATUS(run->status),
	};
	return 0;
}

static int macos_stop(struct cr_run *run, bool force)
{
	if (run->pid <= 0 || run->reaped)
		return 0;
	return killpg(run->pid, force ? SIGKILL : SIGTERM) < 0 ? negative_errno() : 0;
}

static int add_limit(json_object *limits, const char *name, uint64_t v, const char *mode)
{
	json_object *o = json_object_new_object();
	bool finite = cr_limit_is_finite(v);
	int r;

	r = finite ? cr_json_add(o, "value", json_object_new_uint64(v)) : cr_json_add_null(o, "value");
	r = r ?: cr_json_add(o, "mode", json_object_new_string(finite ? mode : "none"));
	return cr_json_add(limits, name, cr_json_whole(o, r));
}

static int macos_report(const struct cr_run *run, json_object *o)
{
	const struct cr_policy *p = run->policy;
	json_object *limits = json_object_new_object();
	int r;

	r = cr_json_add(o, "sandbox", json_object_new_string("sandbox-exec"));
	r = r ?: cr_json_add(o, "network",
			     json_object_new_string(p->net == CR_NET_HOST ? "host" : "none"));
	r = r ?: cr_json_add(o, "workspace_access",
			     json_object_new_string(p->workspace_ro ? "ro" : "rw"));
	r = r ?: cr_json_add(o, "tmpdir", json_object_new_string(run->tmpdir));
	r = r ?: cr_json_add(o, "new_process_group", json_object_new_boolean(true));
	r = r ?: add_limit(limits, "cpu_time", p->limits.value[CR_LIMIT_CPU_TIME], "rlimit");
	r = r ?: add_limit(limits, "file_size", p->limits.value[CR_LIMIT_FILE_SIZE], "rlimit");
	r = r ?: add_limit(limits, "open_files", p->limits.value[CR_LIMIT_OPEN_FILES], "rlimit");
	/* Asked-for limits macOS cannot enforce are reported as such, never dropped silently. */
	r = r ?: add_limit(limits, "memory", p->limits.value[CR_LIMIT_MEMORY], "unenforceable");
	r = r ?: add_limit(limits, "pids", CR_LIMIT_UNSET, "none");
	if (r < 0)
		json_object_put(limits);
	return r ?: cr_json_add(o, "limits", limits);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static struct cr_run *macos_run_free(struct cr_run *run)
{
	if (!run)
		return NULL;
	if (run->pid > 0 && !run->reaped) {
		(void)killpg(run->pid, SIGKILL);
		(void)waitpid(run->pid, NULL, 0);
	}
	if (run->kq >= 0)
		(void)close(run->kq);
	if (run->tmpdir[0])
		(void)nftw(run->tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	cr_sbpl_done(&run->sbpl);
	strv_freep(&run->env);
	free(run);
	return NULL;
}

static const struct cr_driver macos_driver = {
	.name = "macos",
	.system_paths = macos_system_paths,
	.probe = macos_probe,
	.prepare = macos_prepare,
	.spawn = macos_spawn,
	.wait = macos_wait,
	.stop = macos_stop,
	.report = macos_report,
	.run_free = macos_run_free,
};

const struct cr_driver *cr_driver_native(void)
{
	return &macos_driver;
}
