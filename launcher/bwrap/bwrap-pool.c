/* SPDX-License-Identifier: MIT */
/* The bwrap door through `corral pool`: one engine, another door. The client sends the pool the
 * policy's fingerprint and, on a miss, its own command line, from which the pool builds the same
 * policy with the same code (cr_bwrap_pool_door); a run the pool has a sandbox for starts in it.
 * What exists only at the time of the request (descriptors, the caller's namespaces) keeps a run
 * cold. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bwrap-pool.h"
#include "launcher/base/fd-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"
#include "launcher/policy/fs-op.h"

extern char **environ;

#define MODE_VAR "CORRAL_BWRAP_MODE="

int cr_bwrap_pool_mode(const struct cr_bwrap_conf *conf, enum cr_pool_mode *ret, char *msg,
		       size_t size)
{
	if (getenv("CORRAL_POOL"))
		return cr_pool_mode_resolve(NULL, environ, ret, msg, size);
	*ret = conf->has_pool ? conf->pool : CR_POOL_AUTO;
	return 0;
}

/* Does @cwd exist in the sandbox exactly when it does on the host? When the last operation
 * that holds it is a bind of the same host path: a pre-built sandbox then enters it as a cold
 * one would, and a cold one falls back ($HOME, /) or fails where it does not. */
static bool cwd_decidable(const struct cr_policy *p)
{
	_cleanup_free_ char *real = p->cwd ? realpath(p->cwd, NULL) : NULL;
	const struct cr_fs_op *last = NULL;
	struct stat st;

	/* a link on the way could lead elsewhere in the sandbox than on the host */
	if (!real || strcmp(real, p->cwd) != 0 || stat(p->cwd, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	for (size_t i = 0; i < p->n_fs_ops; i++)
		if (p->fs_ops[i].dst && cr_path_is_within(p->cwd, p->fs_ops[i].dst))
			last = &p->fs_ops[i];
	return last && last->kind == CR_FS_BIND && last->src && strcmp(last->src, last->dst) == 0;
}

const char *cr_bwrap_unpoolable(const struct cr_bwrap *b)
{
	if (b->info_fd >= 0 || b->json_status_fd >= 0)
		return "--info-fd, --json-status-fd: the sandbox's pid belongs to its run";
	if (b->sync_fd >= 0)
		return "--sync-fd: a descriptor of the run's own";
	if (!cwd_decidable(&b->policy))
		return "the working directory is not a bind of the same host path";
	return NULL;
}

/* The spec: the options as parsed (argv[0] the door's name; --args FD replaced by what it held,
 * which the pool cannot read), "--" and the command, and the environment with the mode first,
 * so that the pool builds the policy of this mode. */
static int spec(const struct cr_bwrap *b, char ***ret_argv, int *ret_argc, char ***ret_env,
		char **ret_mode)
{
	size_t n = 0, n_cmd = 0, k = 0;

	while (environ && environ[n])
		n++;
	while (b->policy.argv[n_cmd])
		n_cmd++;
	if (asprintf(ret_mode, MODE_VAR "%s", cr_bwrap_mode_to_string(b->mode)) < 0)
		return -ENOMEM;
	*ret_argv = calloc(b->n_options + n_cmd + 3, sizeof(char *));
	*ret_env = calloc(n + 2, sizeof(char *));
	if (!*ret_argv || !*ret_env)
		return -ENOMEM;
	(*ret_argv)[k++] = (char *)cr_bwrap_pool_door.name;
	for (size_t i = 0; i < b->n_options; i++)
		(*ret_argv)[k++] = b->options[i];
	(*ret_argv)[k++] = (char *)"--";
	for (size_t i = 0; i < n_cmd; i++)
		(*ret_argv)[k++] = b->policy.argv[i];
	*ret_argc = (int)k;
	(*ret_env)[0] = *ret_mode;
	for (size_t i = 0; i < n; i++)
		(*ret_env)[i + 1] = environ[i];
	return 0;
}

/* Why the connection was refused when the socket was not our pool's (cr_pool_connect() warned
 * already): the run's note, since it goes cold for it. Empty otherwise. */
static char refused[512];

int cr_bwrap_pool_connect(enum cr_pool_mode mode)
{
	char why[512];
	int fd;

	if (mode == CR_POOL_NEVER)
		return -1;
	fd = cr_pool_connect(environ, why, sizeof(why));
	if (fd == -EPERM)
		(void)snprintf(refused, sizeof(refused), "%s", why);
	else if (fd < 0)
		cr_debug("pool: %s", why);
	return fd < 0 ? -1 : fd;
}

int cr_bwrap_via_pool(const struct cr_bwrap *b, enum cr_pool_mode mode, int fd,
		      struct cr_outcome *o, struct cr_bwrap_pooled *ret)
{
	const char *unfit = cr_bwrap_unpoolable(b);
	_cleanup_close_ int pool_fd = fd;
	_cleanup_free_ char **spec_argv = NULL, **spec_env = NULL;
	_cleanup_free_ char *mode_kv = NULL;
	struct cr_pool_result res = {};
	struct cr_pool_call call;
	int spec_argc, r;

	ret->via = "cold";
	ret->note[0] = '\0';
	if (mode == CR_POOL_NEVER)
		return 0;
	if (pool_fd < 0 && refused[0]) { /* another user's socket at our path */
		(void)snprintf(ret->note, sizeof(ret->note), "%s", refused);
		return mode == CR_POOL_REQUIRE ? -EPERM : 0;
	}
	if (pool_fd < 0 && mode == CR_POOL_REQUIRE)
		return cr_msg(ret->note, sizeof(ret->note), -ENOENT, "no pool is running");
	if (pool_fd < 0)
		return 0; /* no pool: the usual way, not a fallback */
	if (unfit) { /* a pool runs: say why this run did not use it */
		(void)snprintf(ret->note, sizeof(ret->note), "%s", unfit);
		return mode == CR_POOL_REQUIRE ? -EAGAIN : 0;
	}
	r = spec(b, &spec_argv, &spec_argc, &spec_env, &mode_kv);
	if (r < 0)
		return cr_msg(ret->note, sizeof(ret->note), r, "out of memory");
	call = (struct cr_pool_call){ .fd = TAKE_FD(pool_fd), .policy = &b->policy, .argc = spec_argc,
				      .argv = spec_argv, .env = spec_env };
	r = cr_pool_run(&call, &res);
	json_object_put(res.enforced);
	if (r == 0) {
		ret->via = "pool";
		*o = res.outcome;
		return 1;
	}
	/* No pool at all is the usual way, not a fallback. */
	if (r != -ENOENT || mode == CR_POOL_REQUIRE)
		(void)snprintf(ret->note, sizeof(ret->note), "%s", res.reason);
	return r == -EPIPE || mode == CR_POOL_REQUIRE ? r : 0;
}

static enum cr_bwrap_mode env_mode(char *const *env)
{
	for (char *const *e = env; e && *e; e++)
		if (strncmp(*e, MODE_VAR, strlen(MODE_VAR)) == 0)
			return cr_bwrap_mode_from_string(*e + strlen(MODE_VAR));
	return _CR_BWRAP_MODE_INVALID;
}

/* An option of @argv (before "--") that names a descriptor: in the pool it would be one of the
 * pool's own. A client never sends one (those runs are cold); one that does is refused. */
static const char *fd_option(int argc, char **argv)
{
	static const char *const with_fd[] = {
		"--args", "--file", "--bind-data", "--ro-bind-data", "--bind-fd", "--ro-bind-fd",
		"--seccomp", "--add-seccomp-fd", "--userns", "--userns2", "--pidns", "--info-fd",
		"--json-status-fd", "--sync-fd", "--block-fd", "--userns-block-fd",
	};

	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		for (size_t j = 0; j < ELEMENTSOF(with_fd); j++)
			if (strcmp(argv[i], with_fd[j]) == 0)
				return with_fd[j];
	return NULL;
}

/* In the pool: the policy of the client's command line, by the door's own parser and mode. Not
 * the descriptors, which the pool never has: such a policy is not served (pool_door_unfit()). */
static int pool_build(int argc, char **argv, char *const *env, struct cr_policy *ret, char *msg,
		      size_t size)
{
	enum cr_bwrap_mode mode = env_mode(env);
	const char *fd_opt = fd_option(argc, argv);
	struct cr_bwrap b;
	int r;

	if ((int)mode < 0)
		return cr_msg(msg, size, -EINVAL, "no bwrap mode in the spec");
	if (fd_opt)
		return cr_msg(msg, size, -EINVAL, "%s names a descriptor of the client's", fd_opt);
	r = cr_bwrap_parse(argc, argv, getuid(), getgid(), cr_bwrap_caller_caps(), mode, &b, msg,
			   size);
	if (r >= 0 && (b.help || b.version))
		r = cr_msg(msg, size, -EINVAL, "no command");
	if (r >= 0)
		cr_bwrap_shape(&b);
	if (r >= 0 && cr_bwrap_unpoolable(&b))
		r = cr_msg(msg, size, -EINVAL, "%s", cr_bwrap_unpoolable(&b));
	if (r < 0) {
		cr_bwrap_done(&b);
		return r;
	}
	*ret = b.policy;
	b.policy = (struct cr_policy){};
	/* The command is each request's: the pool keeps no argv (cr_policy_done() frees none). */
	strv_freep(&ret->argv);
	return 0;
}

const struct cr_pool_door cr_bwrap_pool_door = { .name = "bwrap", .build = pool_build };
