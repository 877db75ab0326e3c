/* SPDX-License-Identifier: MIT */
/* `corral oci create`: the options engines pass (podman through conmon, containerd's shim,
 * dockerd), the container id, and the bundle's config.json read with the parser and turned into
 * a policy (policy.c); then the container is built by the Linux driver and left waiting on
 * ROOT/ID/exec.fifo until `start` (run.c). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle.h"
#include "container.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/macro.h"
#include "launcher/base/parse-util.h"
#include "lsm.h"
#include "oci-internal.h"
#include "pod.h"
#include "policy.h"
#include "run.h"
#include "state.h"

/* config.json with a long seccomp allowlist is some 60 KB: a larger one than this is refused. */
#define CONFIG_MAX (4 * 1024 * 1024)


/* @bundle/config.json, not followed through a symlink, at most CONFIG_MAX bytes, into *@ret,
 * NUL-terminated; its length in *@ret_len. */
int oci_read_config(const char *bundle, char **ret, size_t *ret_len, char *err, size_t size)
{
	_cleanup_close_ int dfd = open(bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd = -EBADF;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	ssize_t n;

	if (dfd < 0)
		return snprintf(err, size, "bundle %s: %m", bundle), negative_errno();
	fd = openat(dfd, "config.json", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return snprintf(err, size, "%s/config.json: %m", bundle), negative_errno();
	if (fstat(fd, &st) < 0)
		return snprintf(err, size, "%s/config.json: %m", bundle), negative_errno();
	if (!S_ISREG(st.st_mode))
		return snprintf(err, size, "%s/config.json: not a regular file", bundle), -EINVAL;
	if (st.st_size > CONFIG_MAX)
		return snprintf(err, size, "%s/config.json: larger than %d bytes", bundle, CONFIG_MAX),
		       -EFBIG;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	n = read(fd, buf, (size_t)st.st_size + 1);
	if (n < 0)
		return snprintf(err, size, "%s/config.json: %m", bundle), negative_errno();
	if (n > st.st_size)
		return snprintf(err, size, "%s/config.json: it grew while read", bundle), -EAGAIN;
	buf[n] = '\0'; /* the text is also read as a C string (exec's config_with_process()) */
	*ret = TAKE_PTR(buf);
	*ret_len = (size_t)n;
	return 0;
}

/* The options of create, "--opt VALUE" or "--opt=VALUE", then the id. 0, or CR_EXIT_SETUP. */
static int parse_options(const struct oci_opts *o, int argc, char **argv, struct create_opts *c)
{
	static const char *const with_value[] = { "--bundle", "-b", "--pid-file",
						  "--console-socket", "--preserve-fds", NULL };
	int i = 1;

	*c = (struct create_opts){ .bundle = "." };
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i], *eq = strchr(a, '='), *v = NULL;
		size_t n = eq ? (size_t)(eq - a) : strlen(a);
		int k = 0;

		if (strcmp(a, "--no-pivot") == 0) {
			c->no_pivot = true;
			continue;
		}
		if (strcmp(a, "--no-new-keyring") == 0) {
			c->no_new_keyring = true;
			continue;
		}
		while (with_value[k] && (strlen(with_value[k]) != n || strncmp(with_value[k], a, n) != 0))
			k++;
		if (!with_value[k]) {
			oci_error(o, "create: unknown option '%s'", a);
			return CR_EXIT_SETUP;
		}
		v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
		if (!v) {
			oci_error(o, "create: %s needs a value", a);
			return CR_EXIT_SETUP;
		}
		if (k <= 1)
			c->bundle = v;
		else if (k == 2)
			c->pid_file = v;
		else if (k == 3)
			c->console_socket = v;
		else if (cr_parse_uint(v, 0, INT_MAX, &c->preserve_fds) < 0) {
			oci_error(o, "create: --preserve-fds: '%s' is not a count", v);
			return CR_EXIT_SETUP;
		}
	}
	if (i != argc - 1) {
		oci_error(o, "usage: corral oci create [--bundle DIR] [--pid-file FILE] [--console-socket PATH] [--preserve-fds N] ID");
		return CR_EXIT_SETUP;
	}
	c->id = argv[i];
	return 0;
}

/* A pod's namespaces named by its first container's monitor (pod.h): that container's own. */
static int resolve_pod(const struct oci_opts *o, struct cr_oci_config *config, char *err,
		       size_t size)
{
	/* the paths @config points into, for as long as this command runs */
	static char (*paths)[OCI_POD_PATH_MAX];
	char root[PATH_MAX];

	if (!config->n_namespaces || oci_root(o->root, root, sizeof(root), err, size) < 0)
		return 0; /* no root: no container there to name; run.c says why */
	free(paths);
	paths = calloc(config->n_namespaces, sizeof(*paths));
	if (!paths)
		return -ENOMEM;
	return oci_pod_resolve(root, config, paths, err, size);
}

/* corral's floor sets RLIMIT_CORE to 0 in every sandbox (no core dumps): said when config.json
 * asks for more, not followed. */
static void warn_core(const struct oci_opts *o, const struct create_opts *c,
		      const struct cr_oci_process *p)
{
	for (size_t i = 0; i < p->n_rlimits; i++)
		if (p->rlimits[i].resource == RLIMIT_CORE && p->rlimits[i].hard > 0)
			oci_error(o, "warning: create %s: process.rlimits[%zu]: RLIMIT_CORE is 0 in every corral container (no core dumps), not soft %llu, hard %llu",
				  c->id, i, (unsigned long long)p->rlimits[i].soft,
				  (unsigned long long)p->rlimits[i].hard);
}

static int load(const struct oci_opts *o, const struct create_opts *c, struct cr_oci_config *config,
		struct cr_policy *policy, char **ret_bundle)
{
	_cleanup_free_ char *text = NULL, *bundle = NULL;
	char err[CR_OCI_ERR_MAX + PATH_MAX] = "", note[256];
	struct cr_oci_caller caller = { .uid = getuid(), .gid = getgid(),
				       .host_root = cr_oci_host_root() };
	size_t len = 0;
	int r;

	*config = (struct cr_oci_config){};
	*policy = (struct cr_policy){};
	r = cr_oci_id_check(c->id, err, sizeof(err));
	r = r ?: oci_read_config(c->bundle, &text, &len, err, sizeof(err));
	if (r >= 0 && !(bundle = realpath(c->bundle, NULL)))
		r = snprintf(err, sizeof(err), "bundle %s: %m", c->bundle), negative_errno();
	if (r < 0) {
		oci_error(o, "create %s: %s", c->id, err[0] ? err : strerror(-r));
		return OCI_EXIT_FAILED;
	}
	r = cr_oci_config_parse(text, len, config, err, sizeof(err));
	if (r >= 0 && config->ignored)
		oci_error(o, "warning: create %s: %s/config.json: not defined by runtime-spec, ignored: %s",
			  c->id, c->bundle, config->ignored);
	if (r >= 0 && config->process.terminal != !!c->console_socket) {
		(void)snprintf(err, sizeof(err), config->process.terminal
				       ? "process.terminal: a terminal needs --console-socket"
				       : "--console-socket: process.terminal is not true");
		r = -EINVAL;
	}
	r = r ?: resolve_pod(o, config, err, sizeof(err));
	r = r ?: cr_oci_userns_mode(o->userns, &caller.userns, err, sizeof(err));
	r = r ?: cr_oci_policy_build(config, bundle, &caller, policy, err, sizeof(err));
	r = r ?: cr_oci_lsm_check(config, cr_oci_selinux_enabled(), note, sizeof(note), err,
				  sizeof(err));
	if (r < 0) {
		oci_error(o, "create %s: %s/config.json: %s", c->id, c->bundle,
			  err[0] ? err : strerror(-r));
		return OCI_EXIT_FAILED;
	}
	warn_core(o, c, &config->process);
	if (note[0]) /* also in status.json (run.c) */
		oci_error(o, "warning: create %s: %s", c->id, note);
	if (cr_oci_policy_floor_note(policy)) /* the same */
		oci_error(o, "warning: create %s: %s", c->id, cr_oci_policy_floor_note(policy));
	*ret_bundle = TAKE_PTR(bundle);
	return 0;
}

int oci_cmd_create(const struct oci_opts *o, int argc, char **argv)
{
	_cleanup_free_ char *bundle = NULL;
	struct cr_oci_config config;
	struct cr_policy policy;
	struct create_opts c;
	int r;

	r = parse_options(o, argc, argv, &c);
	if (r != 0)
		return r;
	r = load(o, &c, &config, &policy, &bundle);
	if (r == 0)
		r = oci_run_create(o, &c, &config, &policy, bundle);
	strv_freep(&policy.argv);
	cr_policy_done(&policy);
	cr_oci_config_done(&config);
	return r;
}
