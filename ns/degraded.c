/* SPDX-License-Identifier: MIT */
/* Degraded mode: the command without namespaces, under Landlock on host paths. See degraded.h;
 * corral(1) lists what it leaves unprotected. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/base/json-util.h"
#include "cgroup/rlimit.h"
#include "degraded.h"
#include "launcher/policy/env.h"
#include "launcher/policy/secret.h"
#include "landlock-plan.h"
#include "landlock-rules.h"
#include "linux-internal.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"

/* cr_degraded_kill() with @all kills the children corral has, reaps them, and goes again for the
 * orphans they leave to corral (a subreaper): at most KILL_ROUNDS rounds, each a generation of
 * descendants, so that a command forking as fast as it is killed cannot hold corral forever
 * (real process trees are a few generations deep), and at most KILL_BATCH children a round (what
 * is left over is seen again the next round). */
#define KILL_ROUNDS 1000
#define KILL_BATCH  512
/* How many directory levels below degraded mode's private directory rm_rf_at() descends: each
 * level holds a descriptor and a DIR open; what lies deeper is left, and reported. */
#define RM_DEPTH_MAX 64

struct cr_degraded {
	struct cr_policy policy; /* the run's, shallow, but for env: what the command gets */
	char **env;              /* owned */
	char *dir;               /* /tmp/corral-degraded.XXXXXX */
	char *tmp;               /* dir/tmp: TMPDIR */
	char *home;              /* dir/home: HOME, where the sandbox would make a private home */
	bool home_used;
	uid_t uid; /* what the command runs as: corral's own ids, or the sandbox ids for root */
	gid_t gid;
	int clone_err;
	bool new_drops; /* the host rules drop more than the sandbox's did (TCP, for --net=none) */
};

/* What the namespaces give that degraded mode lacks, in the words of the JSON status. */
static const struct {
	const char *name;
	const char *text;
	bool net_none_only; /* with --net=host, the policy shares the host's network anyway */
} layers[] = {
	/* clang-format off */
	{ "namespaces",		"namespaces",		false },
	{ "mount_isolation",	"mount isolation",	false },
	{ "pid_isolation",	"pid isolation",	false },
	{ "network_isolation",	"network isolation",	true },
	{ "ipc_isolation",	"ipc isolation",	false },
	{ "uts_isolation",	"uts isolation",	false },
	/* clang-format on */
};

static bool layer_missing(const struct cr_policy *p, size_t i)
{
	return !layers[i].net_none_only || p->net == CR_NET_NONE;
}

static int set_err(struct cr_setup_error *e, int r, const char *fmt, ...) _printf_(3, 4);
static int set_err(struct cr_setup_error *e, int r, const char *fmt, ...)
{
	va_list ap;

	(void)snprintf(e->stage, sizeof(e->stage), "degraded");
	e->err = -r;
	va_start(ap, fmt);
	(void)vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
	return r;
}

/* --- the private directory ------------------------------------------------------------------ */

/* Remove @name in @parent and everything below it, without following a symbolic link anywhere.
 * Depth is bounded: what lies deeper is left, and reported by the caller's final rmdir. */
static void rm_rf_at(int parent, const char *name, unsigned depth)
{
	DIR *d;
	int fd;

	if (unlinkat(parent, name, 0) == 0 || errno != EISDIR || depth > RM_DEPTH_MAX)
		goto out_rmdir;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	(void)fchmod(fd, 0700); /* a directory the command made read-only can be emptied */
	d = fdopendir(fd);
	if (!d) {
		(void)close(fd);
		return;
	}
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			rm_rf_at(dirfd(d), e->d_name, depth + 1);
	(void)closedir(d);
out_rmdir:
	(void)unlinkat(parent, name, AT_REMOVEDIR); /* ENOENT once a file was unlinked */
}

static int make_subdir(int dirfd, const char *name, const struct cr_degraded *d)
{
	if (mkdirat(dirfd, name, 0700) < 0)
		return negative_errno();
	if (geteuid() == 0 && fchownat(dirfd, name, d->uid, d->gid, AT_SYMLINK_NOFOLLOW) < 0)
		return negative_errno();
	return 0;
}

static int make_private_dir(struct cr_degraded *d)
{
	_cleanup_close_ int fd = -EBADF;
	char tmpl[] = "/tmp/corral-degraded.XXXXXX";
	int r;

	if (!mkdtemp(tmpl))
		return negative_errno();
	d->dir = strdup(tmpl);
	if (!d->dir) {
		(void)rmdir(tmpl);
		return -ENOMEM;
	}
	fd = open(d->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (geteuid() == 0 && fchown(fd, d->uid, d->gid) < 0)
		return negative_errno();
	r = make_subdir(fd, "tmp", d);
	if (r >= 0)
		r = make_subdir(fd, "home", d);
	if (r < 0)
		return r;
	if (asprintf(&d->tmp, "%s/tmp", d->dir) < 0 || asprintf(&d->home, "%s/home", d->dir) < 0)
		return -ENOMEM;
	return 0;
}

/* --- what the command gets ------------------------------------------------------------------ */

/* Does the mount plan give the sandbox a private home at @home? */
static bool private_home(const struct cr_mount_plan *plan, const char *home)
{
	for (size_t i = 0; i < plan->n_ops; i++)
		if (plan->ops[i].kind == CR_MOUNT_TMPFS && (plan->ops[i].flags & CR_MNT_WRITABLE) &&
		    strcmp(plan->ops[i].dst, home) == 0)
			return true;
	return false;
}

/* The policy's environment, with TMPDIR pointing at the private tmp/ (unless TMPDIR was asked
 * for) and HOME at the private home/ where the sandbox would have made a private home. */
static int build_env(struct cr_degraded *d, const struct cr_child_ctx *ctx)
{
	const struct cr_policy *p = ctx->policy;
	const char *home = cr_env_get(p->env, "HOME");
	size_t n = 0, j = 0;

	d->home_used = home && strcmp(home, p->home) == 0 && private_home(&ctx->plan, p->home);
	while (p->env[n])
		n++;
	d->env = calloc(n + 2, sizeof(char *));
	if (!d->env)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!d->home_used || strncmp(p->env[i], "HOME=", 5) != 0)
			d->env[j] = strdup(p->env[i]);
		else if (asprintf(&d->env[j], "HOME=%s", d->home) < 0)
			d->env[j] = NULL;
		if (!d->env[j++])
			return -ENOMEM;
	}
	if (!cr_env_get(p->env, "TMPDIR") && asprintf(&d->env[j], "TMPDIR=%s", d->tmp) < 0) {
		d->env[j] = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Does @plan drop what @before did not (TCP, denied for --net=none on a kernel before ABI 4)? */
static bool drops_more(const struct cr_landlock_plan *plan, const struct cr_landlock_plan *before)
{
	char a[512], b[512];

	(void)cr_landlock_dropped_text(plan, a, sizeof(a));
	(void)cr_landlock_dropped_text(before, b, sizeof(b));
	return strcmp(a, b) != 0;
}

/* A named cache is a directory shown at another path, which needs a mount: without a mount
 * namespace the command runs without it (its tool falls back to the private home), and is told. */
static void drop_caches(struct cr_mount_plan *plan)
{
	char list[1024] = "";
	size_t j = 0, n = 0;

	for (size_t i = 0; i < plan->n_ops; i++) {
		struct cr_mount_op *op = &plan->ops[i];

		if (op->kind == CR_MOUNT_BIND && strcmp(op->src, op->dst) != 0) {
			if (n < sizeof(list))
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "",
						      op->dst);
			free(op->src);
			free(op->dst);
			closep(&op->src_fd);
			continue;
		}
		plan->ops[j++] = *op;
	}
	plan->n_ops = j;
	if (n)
		cr_log_warning("degraded mode cannot show a cache at another path (no mount namespace): the command runs without the caches at %s",
			       list);
}

static int build_landlock(struct cr_degraded *d, struct cr_child_ctx *ctx,
			  struct cr_setup_error *err)
{
	struct cr_landlock_plan plan;
	char msg[512] = "";
	int abi = ctx->landlock.abi, r;

	if (ctx->landlock.mode == CR_LANDLOCK_OFF || abi == 0)
		return set_err(err, -EOPNOTSUPP,
			       "cannot create the namespaces (%s), and --allow-degraded needs Landlock, which %s: corral never runs a command with neither",
			       strerror(d->clone_err),
			       abi == 0 ? "this kernel lacks" : "--landlock=off turns off");
	/* Without a network namespace, --net=none can only be approached: TCP is denied. */
	r = cr_landlock_plan_init(&d->policy, abi, d->policy.net == CR_NET_NONE, &plan, msg,
				  sizeof(msg));
	if (r < 0)
		return set_err(err, r, "%s", msg);
	drop_caches(&ctx->plan);
	r = cr_landlock_rules_host(&ctx->plan, d->tmp, d->home, &plan, msg, sizeof(msg));
	if (r < 0) {
		cr_landlock_plan_done(&plan);
		return set_err(err, r, "%s", msg[0] ? msg : strerror(-r));
	}
	d->new_drops = drops_more(&plan, &ctx->landlock);
	cr_landlock_plan_done(&ctx->landlock);
	ctx->landlock = plan;
	return 0;
}

static void warn(const struct cr_degraded *d, const struct cr_child_ctx *ctx)
{
	char missing[256] = "";
	size_t n = 0, total = 0;

	for (size_t i = 0; i < ELEMENTSOF(layers); i++)
		total += layer_missing(&d->policy, i);
	for (size_t i = 0; i < ELEMENTSOF(layers); i++) {
		if (!layer_missing(&d->policy, i))
			continue;
		n++;
		(void)strlcat(missing, n == 1 ? "" : n == total ? " and " : ", ", sizeof(missing));
		(void)strlcat(missing, layers[i].text, sizeof(missing));
	}
	cr_log_warning(
		"degraded mode: user namespaces are unavailable (%s); the command runs without %s: it sees the host's files, processes and network, guarded only by Landlock (ABI %d), no_new_privs, rlimits, a cleared environment and closed descriptors",
		strerror(d->clone_err), missing, ctx->landlock.abi);
	if (d->new_drops) /* else said already, when the run was prepared */
		cr_ns_landlock_warn(&ctx->landlock);
}

int cr_degraded_prepare(struct cr_child_ctx *ctx, int clone_err, struct cr_degraded **ret,
			struct cr_setup_error *err)
{
	struct cr_degraded *d;
	int r;

	/* Without a network namespace of its own the command reaches every host directly: a proxy
	 * would restrict nothing, so allow_hosts is refused rather than approached. */
	if (ctx->policy->net == CR_NET_HOSTS)
		return set_err(err, -EOPNOTSUPP,
			       "cannot create the namespaces (%s), and --allow-host needs a network namespace of its own, which degraded mode lacks: corral cannot enforce allow_hosts there; 'corral doctor' says how to enable user namespaces",
			       strerror(clone_err));
	/* No mount namespace: no private tmpfs could hold the files, and the host's /run is not
	 * corral's to write. */
	for (size_t i = 0; i < ctx->policy->n_secrets; i++)
		if (ctx->policy->secrets[i].kind == CR_SECRET_FILE)
			return set_err(err, -EOPNOTSUPP,
				       "cannot create the namespaces (%s), and --secret-file needs a mount namespace for %s, which degraded mode lacks; pass the secret with --secret (the environment) instead",
				       strerror(clone_err), CR_SECRETS_DIR);
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->policy = *ctx->policy;
	d->clone_err = clone_err;
	d->uid = getuid() == 0 ? ctx->idmap.outside_uid : getuid();
	d->gid = getuid() == 0 ? ctx->idmap.outside_gid : getgid();
	r = make_private_dir(d);
	if (r < 0)
		r = set_err(err, r, "cannot make the private directory in /tmp: %s", strerror(-r));
	if (r >= 0)
		r = build_env(d, ctx);
	if (r >= 0)
		r = build_landlock(d, ctx, err);
	/* Orphans the command leaves come to corral, which kills them when it is done. */
	if (r >= 0 && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		r = set_err(err, negative_errno(), "cannot become a child subreaper: %m");
	if (r < 0) {
		(void)cr_degraded_free(d);
		return r;
	}
	d->policy.env = d->env;
	ctx->policy = &d->policy;
	warn(d, ctx);
	*ret = d;
	return 0;
}

/* --- the child ------------------------------------------------------------------------------ */

static void report(struct cr_child_ctx *ctx, enum cr_stage stage, int r)
{
	struct cr_child_msg msg = { .type = CR_MSG_ERROR, .stage = stage, .err = -r };

	(void)snprintf(msg.detail, sizeof(msg.detail), "%s", ctx->detail);
	(void)!write(ctx->msg_fd, &msg, sizeof(msg));
	_exit(CR_EXIT_SETUP_SILENT);
}

/* As pid 1 does, but for the ids: corral started by root runs the command as the sandbox's
 * unprivileged host user, never as root. The change clears the parent-death signal. */
static int change_ids(const struct cr_degraded *d, pid_t parent)
{
	if (getuid() != 0)
		return 0;
	if (setresgid(d->gid, d->gid, d->gid) < 0 || setresuid(d->uid, d->uid, d->uid) < 0)
		return negative_errno();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return negative_errno();
	if (getppid() != parent)
		_exit(CR_EXIT_SETUP_SILENT); /* corral died in between */
	return 0;
}

/* A normal user has no capabilities unless corral was given some (file or ambient ones); drop
 * them all. The bounding set needs CAP_SETPCAP to change, and no_new_privs makes it moot. */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return negative_errno();
	if (syscall(SYS_capset, &h, data) < 0)
		return negative_errno();
	return 0;
}

_Noreturn void cr_degraded_child_main(struct cr_child_ctx *ctx, const struct cr_degraded *d,
				      int sync_fd, pid_t parent)
{
	const struct cr_policy *p = ctx->policy;
	char c;
	int r;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || setsid() < 0)
		report(ctx, CR_STAGE_SYNC, negative_errno());
	if (read(sync_fd, &c, 1) != 1)
		_exit(CR_EXIT_SETUP_SILENT); /* the parent failed or died; it reports */
	(void)close(sync_fd);
	r = change_ids(d, parent);
	if (r < 0)
		report(ctx, CR_STAGE_CREDS, r);
	r = drop_caps();
	if (r < 0)
		report(ctx, CR_STAGE_CAPS, r);
	if (chdir(p->cwd) < 0) {
		(void)snprintf(ctx->detail, sizeof(ctx->detail), "working directory %s", p->cwd);
		report(ctx, CR_STAGE_CWD, negative_errno());
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		report(ctx, CR_STAGE_NO_NEW_PRIVS, negative_errno());
	r = cr_landlock_apply(&ctx->landlock, p->keep_fds, p->n_keep_fds, ctx->detail,
			      sizeof(ctx->detail));
	if (r < 0)
		report(ctx, CR_STAGE_LANDLOCK, r);
	r = cr_rlimits_apply(ctx->rlimits); /* last: they are the command's, as in stages.c */
	if (r < 0)
		report(ctx, CR_STAGE_LIMITS, r);
	cr_command_main(ctx);
}

/* --- the end of the run ---------------------------------------------------------------------- */

/* The children of this (single-threaded) process, orphans it reaps as a subreaper included. */
static size_t children(pid_t *ret, size_t max)
{
	char buf[4096], *p = buf, *end;
	size_t n = 0;
	ssize_t len;
	int fd;

	fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	while (n < max) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		ret[n++] = (pid_t)v;
		p = end;
	}
	return n;
}

void cr_degraded_kill(const struct cr_degraded *d, pid_t pid, int sig, bool all)
{
	if (pid > 0)
		(void)kill(-pid, sig);
	/* Each round kills what is there and reaps it; their children come to corral next. */
	for (int round = 0; all && round < KILL_ROUNDS; round++) {
		pid_t kids[KILL_BATCH];
		size_t n = children(kids, ELEMENTSOF(kids)), others = 0;

		for (size_t i = 0; i < n; i++)
			if (kids[i] != pid && kill(kids[i], SIGKILL) == 0)
				others++;
		if (others == 0)
			break;
		for (size_t i = 0; i < n; i++)
			if (kids[i] != pid)
				(void)waitpid(kids[i], NULL, 0);
	}
}

struct cr_degraded *cr_degraded_free(struct cr_degraded *d)
{
	if (!d)
		return NULL;
	cr_degraded_kill(d, -1, 0, true);
	(void)prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	if (d->dir) {
		rm_rf_at(AT_FDCWD, d->dir, 0);
		if (access(d->dir, F_OK) == 0)
			cr_log_warning(
				"could not remove all of %s, degraded mode's private directory",
				d->dir);
	}
	for (char **e = d->env; e && *e; e++) /* secrets among them */
		explicit_bzero(*e, strlen(*e));
	strv_freep(&d->env);
	free(d->dir);
	free(d->tmp);
	free(d->home);
	free(d);
	return NULL;
}

/* --- the report ------------------------------------------------------------------------------- */

static int push(json_object *a, const char *s)
{
	return cr_json_append(a, json_object_new_string(s));
}

static json_object *id_pair(uint32_t id)
{
	json_object *o = json_object_new_object();

	if (o && (cr_json_add(o, "inside", json_object_new_int64(id)) < 0 ||
		  cr_json_add(o, "outside", json_object_new_int64(id)) < 0)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The host paths the Landlock rules show read-only (@writable false) or writable: the binds of
 * the plan, at their host paths. */
static json_object *bind_paths(const struct cr_mount_plan *plan, bool writable)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < plan->n_ops; i++) {
		const struct cr_mount_op *op = &plan->ops[i];

		if (op->kind == CR_MOUNT_BIND && !(op->flags & CR_MNT_WRITABLE) == !writable &&
		    push(a, op->src) < 0) {
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

/* Hidden paths: without a mount over them they are simply outside every rule. */
static json_object *hidden_paths(const struct cr_mount_plan *plan)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < plan->n_ops; i++) {
		const struct cr_mount_op *op = &plan->ops[i];
		bool hidden = op->kind == CR_MOUNT_NULL ||
			      (op->kind == CR_MOUNT_TMPFS && !(op->flags & CR_MNT_WRITABLE) &&
			       !cr_path_is_within(op->dst, "/dev"));

		if (hidden && push(a, op->dst) < 0) {
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

static json_object *strings(const char *const *v, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++)
		if (v[i] && push(a, v[i]) < 0) {
			json_object_put(a);
			return NULL;
		}
	return a;
}

static json_object *env_keys(char *const *env)
{
	json_object *a = json_object_new_array();

	for (; a && *env; env++)
		if (cr_json_append(
			    a, json_object_new_string_len(*env, (int)strcspn(*env, "="))) < 0) {
			json_object_put(a);
			return NULL;
		}
	return a;
}

int cr_degraded_report(const struct cr_degraded *d, const struct cr_mount_plan *plan,
		       json_object *o)
{
	const char *missing[ELEMENTSOF(layers)] = {};
	const char *private[2] = {};
	char host[256] = "";
	int r = 0;

	r = r ?: cr_json_add(o, "degraded", json_object_new_boolean(d != NULL));
	if (!d)
		return r ?: cr_json_add(o, "missing_layers", json_object_new_array());
	for (size_t i = 0; i < ELEMENTSOF(layers); i++)
		if (layer_missing(&d->policy, i))
			missing[i] = layers[i].name;
	private[0] = d->tmp;
	private[1] = d->home_used ? d->home : NULL;
	(void)gethostname(host, sizeof(host) - 1);
	r = r ?: cr_json_add(o, "missing_layers", strings(missing, ELEMENTSOF(missing)));
	r = r ?: cr_json_add(o, "namespaces", json_object_new_array());
	r = r ?: cr_json_add(o, "uid_map", id_pair(d->uid));
	r = r ?: cr_json_add(o, "gid_map", id_pair(d->gid));
	r = r ?: cr_json_add(o, "network", json_object_new_string("host"));
	r = r ?: cr_json_add(o, "loopback", json_object_new_boolean(false));
	r = r ?: cr_json_add(o, "root", json_object_new_string("host"));
	r = r ?: cr_json_add(o, "read_only", bind_paths(plan, false));
	r = r ?: cr_json_add(o, "writable", bind_paths(plan, true));
	r = r ?: cr_json_add(o, "hidden", hidden_paths(plan));
	r = r ?: cr_json_add(o, "private", strings(private, ELEMENTSOF(private)));
	/* No tmpfs is mounted: the private directory is on the host's /tmp. */
	r = r ?: cr_json_add_null(o, "tmpfs");
	r = r ?: cr_json_add(o, "environment", env_keys(d->env));
	r = r ?: cr_json_add(o, "secrets", cr_secrets_json(d->policy.secrets, d->policy.n_secrets));
	r = r ?: cr_json_add(o, "hostname", json_object_new_string(host));
	r = r ?: cr_json_add(o, "machine_id", json_object_new_array()); /* the host's: no mount to cover it */
	return r;
}
