/* SPDX-License-Identifier: MIT */
/* The bwrap door: bwrap's command line in, the same engine as `corral run`, bwrap's messages,
 * exit statuses, --info-fd and --json-status-fd out. In hardened mode (the default) it adds
 * what a correct client cannot tell apart: see corral-bwrap(1). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "args.h"
#include "bwrap-conf.h"
#include "bwrap-pool.h"
#include "bwrap.h"
#include "launcher/base/fd-util.h"
#include "launcher/base/ini.h"
#include "launcher/base/json-text.h"
#include "launcher/base/json-util.h"
#include "launcher/base/macro.h"
#include "launcher/base/stamp.h"
#include "launcher/driver.h"
#include "launcher/policy/limits.h"

/* The bwrap release whose command line this door speaks. */
#define CR_BWRAP_COMPAT_VERSION "0.11.1"
#define CR_BWRAP_CONF "/etc/corral/bwrap.conf"

static bool level_prefix;
/* Which way the run went (a pool's sandbox or cold), for the status's "corral" object. */
static struct cr_bwrap_pooled pooled = { .via = "cold" };

static void say(int level, const char *fmt, ...) _printf_(2, 3);
static void say(int level, const char *fmt, ...)
{
	va_list ap;

	if (level_prefix)
		fprintf(stderr, "<%d>", level);
	fputs("bwrap: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* CORRAL_BWRAP_MODE, else "mode = " of @conf (CR_BWRAP_CONF's), else hardened. */
static int read_mode(const struct cr_bwrap_conf *conf, enum cr_bwrap_mode *ret)
{
	const char *e = getenv("CORRAL_BWRAP_MODE");

	*ret = conf->has_mode ? conf->mode : CR_BWRAP_HARDENED;
	if (e && *e) {
		*ret = cr_bwrap_mode_from_string(e);
		if ((int)*ret < 0) {
			say(3, "CORRAL_BWRAP_MODE=%s: use compat or hardened", e);
			return -EINVAL;
		}
	}
	return 0;
}

/* CR_BWRAP_CONF, unless both its keys are set by the environment (then never opened). */
static int read_conf(struct cr_bwrap_conf *ret, char *msg, size_t size)
{
	const char *e = getenv("CORRAL_BWRAP_MODE");

	*ret = (struct cr_bwrap_conf){};
	if (e && *e && getenv("CORRAL_POOL"))
		return 0;
	return cr_bwrap_conf_read(CR_BWRAP_CONF, ret, msg, size);
}

uint64_t cr_bwrap_caller_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &h, d) < 0)
		return 0;
	return (uint64_t)d[1].effective << 32 | d[0].effective;
}

/* Every descriptor the caller passed, as bwrap hands them all to the command, but those it
 * consumes itself (and CORRAL_STAMP_FD's, which is corral's own). Those close-on-exec are
 * corral's own too (the pool's connection): a caller's cannot be, its exec closed them. */
static int inherited_fds(const struct cr_bwrap *b, int **ret, size_t *ret_n)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	size_t n = 0;
	int *v = NULL;

	if (!d)
		return negative_errno();
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name), *a;

		if (e->d_name[0] == '.' || fd <= 2 || fd == dirfd(d) || fd == b->info_fd ||
		    fd == b->json_status_fd || fd == b->policy.ex.block_fd ||
		    fd == b->policy.ex.userns_block_fd || fd == cr_stamp_fd() ||
		    (fcntl(fd, F_GETFD) & FD_CLOEXEC))
			continue;
		a = reallocarray(v, n + 1, sizeof(int));
		if (!a) {
			free(v);
			(void)closedir(d);
			return -ENOMEM;
		}
		v = a;
		v[n++] = fd;
	}
	(void)closedir(d);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* Hardened mode: what it adds to the policy. */
static void harden(struct cr_bwrap *b)
{
	struct cr_policy *p = &b->policy;

	p->ex.harden_proc = true;
	p->ex.new_session = true; /* no TIOCSTI into the caller's terminal */
	p->limits.value[CR_LIMIT_PIDS] = CR_DEFAULT_PIDS;
	p->limits.set[CR_LIMIT_PIDS] = false;
	p->seccomp = CR_SECCOMP_BASIC;
}

void cr_bwrap_shape(struct cr_bwrap *b)
{
	b->asked_new_session = b->policy.ex.new_session;
	if (b->mode == CR_BWRAP_HARDENED)
		harden(b);
	else
		b->policy.ex.init_dumpable = true; /* bwrap's child can be joined by its caller */
}

/* The "corral" object of --json-status-fd: what corral added to bwrap's semantics, and how the
 * limits and the filter were enforced (from the driver's report: a limit that fell back to an
 * rlimit, or could not be enforced, says so there). */
static json_object *corral_json(const struct cr_bwrap *b, json_object *enforced)
{
	json_object *o = json_object_new_object(), *added = json_object_new_array(), *v;
	int r = 0;

	r = r ?: cr_json_add(o, "version", json_object_new_string(CR_VERSION));
	r = r ?: cr_json_add(o, "mode", json_object_new_string(cr_bwrap_mode_to_string(b->mode)));
	if (b->mode == CR_BWRAP_HARDENED) {
		/* What the caller did not have already: a session it asked for is not added. */
		const struct {
			const char *name;
			bool added;
		} what[] = {
			{ "proc_knobs_read_only", true },
			{ "new_session", !b->asked_new_session },
			{ "pids_limit", true },
			{ "memory_limit", true },
			{ "seccomp_basic", true },
			{ "root_capabilities_dropped", getuid() == 0 },
		};

		for (size_t i = 0; added && i < ELEMENTSOF(what); i++)
			if (what[i].added)
				r = r ?: cr_json_append(added, json_object_new_string(what[i].name));
	}
	r = r ?: cr_json_add(o, "added", added);
	r = r ?: cr_json_add(o, "via", json_object_new_string(pooled.via));
	if (pooled.note[0])
		r = r ?: cr_json_add(o, "pool_fallback", json_object_new_string(pooled.note));
	if (r >= 0 && b->mode == CR_BWRAP_HARDENED && enforced &&
	    json_object_object_get_ex(enforced, "limits", &v))
		r = cr_json_add(o, "limits", json_object_get(v));
	if (r >= 0 && b->mode == CR_BWRAP_HARDENED && enforced &&
	    json_object_object_get_ex(enforced, "seccomp", &v))
		r = cr_json_add(o, "seccomp", json_object_get(v));
	if (r < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* One document, with each key of the top level on a line of its own, as bwrap writes them
 * (scripts find "child-pid" with sed). */
static void write_json(int fd, json_object *o, bool pretty)
{
	_cleanup_free_ char *text = NULL;

	if (fd < 0 || !o)
		return;
	text = cr_json_text(o, (pretty ? JSON_C_TO_STRING_PRETTY : 0) | JSON_C_TO_STRING_SPACED |
				       JSON_C_TO_STRING_NOSLASHESCAPE);
	if (text) {
		(void)cr_write_all(fd, text, strlen(text));
		(void)cr_write_all(fd, "\n", 1);
	}
}

/* The document --info-fd gets, and --json-status-fd first: the sandbox's first process (its
 * pid on the host) and the namespaces it is in. */
static json_object *info_json(const struct cr_bwrap *b, int pid)
{
	static const char *const ns[] = { "cgroup", "ipc", "mnt", "net", "pid", "uts" };
	json_object *o = json_object_new_object();
	int r = cr_json_add(o, "child-pid", json_object_new_int(pid));

	for (size_t i = 0; i < ELEMENTSOF(ns) && r >= 0; i++) {
		char path[64], key[32];
		struct stat st;

		(void)snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, ns[i]);
		(void)snprintf(key, sizeof(key), "%s-namespace", ns[i]);
		if (stat(path, &st) == 0)
			r = cr_json_add(o, key, json_object_new_int64((int64_t)st.st_ino));
	}
	if (r < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int init_pid(json_object *enforced)
{
	json_object *v;

	return enforced && json_object_object_get_ex(enforced, "init_pid", &v)
		       ? json_object_get_int(v)
		       : -1;
}

static void report_started(const struct cr_bwrap *b, const struct cr_driver *drv,
			   struct cr_run *run)
{
	json_object *info, *corral, *enforced;

	if (b->info_fd < 0 && b->json_status_fd < 0)
		return;
	enforced = json_object_new_object();
	if (enforced && drv->report(run, enforced) < 0) {
		json_object_put(enforced);
		enforced = NULL;
	}
	info = info_json(b, init_pid(enforced));
	write_json(b->info_fd, info, true);
	if (b->info_fd >= 0)
		(void)close(b->info_fd);
	corral = corral_json(b, enforced);
	json_object_put(enforced);
	if (info && corral && json_object_object_add(info, "corral", corral) == 0)
		corral = NULL;
	json_object_put(corral);
	write_json(b->json_status_fd, info, true);
	json_object_put(info);
}

/* A setup error in bwrap's words, where a client matches them. */
static void say_error(const struct cr_setup_error *e, const char *cmd)
{
	if (strcmp(e->stage, "exec") == 0)
		say(3, "execvp %s: %s", cmd, strerror(e->err));
	else if (strcmp(e->stage, "clone") == 0 && (e->err == EPERM || e->err == ENOSPC ||
						     e->err == EACCES || e->err == EINVAL))
		say(3, "No permissions to create a new namespace, likely because the kernel does not allow non-privileged user namespaces (%s)",
		    e->message);
	else if (strcmp(e->stage, "cwd") == 0)
		say(3, "Can't chdir to %s", e->message); /* "DIR: reason" */
	else if (strcmp(e->stage, "uid_map") == 0)
		say(3, "setting up uid map: %s", strerror(e->err));
	else if (strcmp(e->stage, "loopback") == 0)
		say(3, "loopback: Failed RTM_NEWADDR: %s", strerror(e->err));
	else
		say(3, "%s", e->message);
}

static int exit_status(const struct cr_bwrap *b, const struct cr_outcome *o)
{
	json_object *st = json_object_new_object();
	int code = 1;

	if (o->kind == CR_OUTCOME_EXITED)
		code = o->status;
	else if (o->kind == CR_OUTCOME_SIGNALED)
		code = 128 + o->status;
	else
		say_error(&o->error, b->policy.argv[0]);
	if (st && (o->kind == CR_OUTCOME_EXITED || o->kind == CR_OUTCOME_SIGNALED) &&
	    cr_json_add(st, "exit-code", json_object_new_int(code)) >= 0)
		write_json(b->json_status_fd, st, false);
	json_object_put(st);
	return code;
}

static int run(struct cr_bwrap *b)
{
	const struct cr_driver *drv = cr_driver_native();
	struct cr_setup_error err = {};
	struct cr_outcome o = {};
	struct cr_run *r = NULL;
	int k;

	k = drv->prepare(&b->policy, &r, &err);
	if (k < 0) {
		if (!err.message[0])
			(void)snprintf(err.message, sizeof(err.message), "%s", strerror(-k));
		say_error(&err, b->policy.argv[0]);
		return 1;
	}
	k = drv->spawn(r);
	cr_stamp("spawn");
	if (k >= 0)
		report_started(b, drv, r);
	/* A spawn that failed has its reason in the outcome. */
	k = drv->wait(r, -1, &o);
	cr_stamp("wait");
	if (k < 0) {
		say(3, "cannot run the sandbox: %s", strerror(-k));
		drv->run_free(r);
		return 1;
	}
	drv->run_free(r);
	return exit_status(b, &o);
}

/* Through a running pool's sandbox when it has one for this policy (corral-bwrap(1), POOL),
 * else cold. The way it went is said with CORRAL_BWRAP_VERBOSE=1 and in the status. */
static int pool_or_cold(struct cr_bwrap *b, enum cr_pool_mode mode, int fd)
{
	const char *v = getenv("CORRAL_BWRAP_VERBOSE");
	struct cr_outcome o = {};
	int r;

	r = cr_bwrap_via_pool(b, mode, fd, &o, &pooled);
	cr_stamp("pool");
	if (r < 0) {
		say(3, "pool: %s", pooled.note);
		return 1;
	}
	if (v && strcmp(v, "1") == 0)
		say(6, "%s%s%s", r > 0 ? "ran in a pool's sandbox" : "ran cold",
		    pooled.note[0] ? ": " : "", pooled.note);
	return r > 0 ? exit_status(b, &o) : run(b);
}

/* --help or --version among the options. */
static bool asks_info(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "--version") == 0)
			return true;
	return false;
}

int cr_bwrap_main(int argc, char **argv, const char *prog)
{
	_cleanup_close_ int pool_fd = -EBADF;
	enum cr_pool_mode pool_mode;
	struct cr_bwrap_conf conf;
	struct cr_bwrap b;
	enum cr_bwrap_mode mode;
	char msg[512];
	int r;

	cr_stamp_init();
	cr_stamp("main");
	/* The option is parsed later; bwrap's caller may die meanwhile. */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--level-prefix") == 0)
			level_prefix = true;
	r = read_conf(&conf, msg, sizeof(msg));
	if (r < 0) {
		say(3, "%s", msg);
		return 1;
	}
	if (read_mode(&conf, &mode) < 0)
		return 1;
	r = cr_bwrap_pool_mode(&conf, &pool_mode, msg, sizeof(msg));
	if (r < 0) {
		say(3, "%s", msg);
		return 1;
	}
	/* First thing: the pool checks its new peer while the command line is parsed. Not for
	 * --version and --help, which a client runs before every run. */
	if (!asks_info(argc, argv))
		pool_fd = cr_bwrap_pool_connect(pool_mode);
	r = cr_bwrap_parse(argc, argv, getuid(), getgid(), cr_bwrap_caller_caps(), mode, &b, msg,
			   sizeof(msg));
	level_prefix = b.level_prefix;
	cr_stamp("parse");
	if (r >= 0 && b.help) {
		cr_bwrap_usage(prog, stdout);
		cr_bwrap_done(&b);
		return 0;
	}
	if (r >= 0 && b.version) {
		/* The first line is bwrap's own, which clients parse. */
		printf("bubblewrap %s\ncorral %s (bwrap personality, %s mode)\n",
		       CR_BWRAP_COMPAT_VERSION, CR_VERSION, cr_bwrap_mode_to_string(mode));
		cr_bwrap_done(&b);
		return 0;
	}
	if (r < 0) {
		say(3, "%s", msg[0] ? msg : strerror(-r));
		cr_bwrap_done(&b);
		return 1;
	}
	if (b.n_chdir > 1)
		say(4, "Only the last --chdir option will take effect");
	if (b.die_with_parent && (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() == 1)) {
		cr_bwrap_done(&b);
		return 1;
	}
	cr_bwrap_shape(&b);
	r = inherited_fds(&b, &b.policy.keep_fds, &b.policy.n_keep_fds);
	if (r < 0) {
		say(3, "cannot list the descriptors to pass on: %s", strerror(-r));
		cr_bwrap_done(&b);
		return 1;
	}
	cr_stamp("policy");
	r = pool_or_cold(&b, pool_mode, TAKE_FD(pool_fd));
	cr_bwrap_done(&b);
	cr_stamp("run_free");
	return r;
}
