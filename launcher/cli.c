/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "macro.h"

const char cr_main_usage[] =
	"Usage: corral COMMAND [OPTIONS]\n"
	"\n"
	"Run a command inside a kernel-enforced sandbox.\n"
	"\n"
	"Commands:\n"
	"  run [OPTIONS] [--] CMD [ARG...]  run CMD in a fresh sandbox and return its status\n"
	"  doctor [--json]                  show what this host can enforce, and how to fix gaps\n"
	"  help [COMMAND]                   show this text, or the options of COMMAND\n"
	"\n"
	"Options:\n"
	"  -h, --help     show this text\n"
	"  -V, --version  print the version\n"
	"\n"
	"See corral(1) for the sandbox layout, exit codes and the JSON status format.\n";

const char cr_run_usage[] =
	"Usage: corral run [OPTIONS] [--] CMD [ARG...]\n"
	"\n"
	"Run CMD with its own user, mount, pid, network, ipc, uts and cgroup namespaces, a fresh\n"
	"read-only root, no capabilities, a cleared environment and no inherited descriptors.\n"
	"\n"
	"Filesystem:\n"
	"  -w, --workspace DIR   writable directory, bound at the same path (default: current dir)\n"
	"      --cwd DIR         working directory inside the sandbox (absolute; default: the\n"
	"                        current directory if it is inside the workspace, else the workspace)\n"
	"      --ro PATH         also show PATH, read-only (repeatable)\n"
	"      --rw PATH         also show PATH, writable (repeatable)\n"
	"      --hide PATH       cover PATH with an empty directory or file (repeatable)\n"
	"Identity and network:\n"
	"      --net=MODE        none (default: private network with loopback only) or host\n"
	"      --map-root        appear as uid/gid 0 inside (still unprivileged on the host)\n"
	"      --uid N, --gid N  host ids to run as when corral runs as root (default 65534)\n"
	"      --hostname NAME   hostname inside the sandbox (default corral)\n"
	"Environment and descriptors:\n"
	"      --setenv K=V      set K in the command's environment (repeatable)\n"
	"      --keep-env K      pass K from corral's environment (repeatable)\n"
	"      --keep-fd N       pass descriptor N (all others above 2 are closed) (repeatable)\n"
	"Lifetime and reporting:\n"
	"      --timeout SECS    stop the sandbox after SECS (decimal); exit 124\n"
	"      --kill-after SECS grace between SIGTERM and SIGKILL on timeout (default 2)\n"
	"      --json-status DEST  write one JSON object describing the run to DEST: a file\n"
	"                        path or fd:N\n"
	"  -v, --verbose         print each setup step\n"
	"  -h, --help            show this text\n"
	"\n"
	"Exit status: the command's own; 128+N if it was killed by signal N; 124 timeout;\n"
	"125 corral could not build the sandbox; 126 CMD not executable; 127 CMD not found.\n";

enum {
	OPT_CWD = 0x100,
	OPT_RO,
	OPT_RW,
	OPT_HIDE,
	OPT_NET,
	OPT_MAP_ROOT,
	OPT_UID,
	OPT_GID,
	OPT_HOSTNAME,
	OPT_SETENV,
	OPT_KEEP_ENV,
	OPT_KEEP_FD,
	OPT_TIMEOUT,
	OPT_KILL_AFTER,
	OPT_JSON_STATUS,
};

static const struct option run_options[] = {
	{ "workspace", required_argument, NULL, 'w' },
	{ "cwd", required_argument, NULL, OPT_CWD },
	{ "ro", required_argument, NULL, OPT_RO },
	{ "rw", required_argument, NULL, OPT_RW },
	{ "hide", required_argument, NULL, OPT_HIDE },
	{ "net", required_argument, NULL, OPT_NET },
	{ "map-root", no_argument, NULL, OPT_MAP_ROOT },
	{ "uid", required_argument, NULL, OPT_UID },
	{ "gid", required_argument, NULL, OPT_GID },
	{ "hostname", required_argument, NULL, OPT_HOSTNAME },
	{ "setenv", required_argument, NULL, OPT_SETENV },
	{ "keep-env", required_argument, NULL, OPT_KEEP_ENV },
	{ "keep-fd", required_argument, NULL, OPT_KEEP_FD },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "kill-after", required_argument, NULL, OPT_KILL_AFTER },
	{ "json-status", required_argument, NULL, OPT_JSON_STATUS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{}
};

static int fail(char *msg, size_t size, const char *fmt, ...) _printf_(3, 4);
static int fail(char *msg, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int cr_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end != '\0')
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

int cr_parse_seconds(const char *s, uint64_t *ret_ms)
{
	uint64_t whole = 0, frac = 0;
	const char *p = s;
	int digits = 0;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			if (digits < 3)
				frac = frac * 10 + (uint64_t)(*p - '0');
		if (digits == 0)
			return -EINVAL;
		for (int i = digits; i < 3; i++)
			frac *= 10;
	}
	if (*p != '\0')
		return -EINVAL;
	if (whole > UINT64_MAX / 1000 || whole * 1000 > UINT64_MAX - frac)
		return -ERANGE;
	*ret_ms = whole * 1000 + frac;
	return 0;
}

static int push(void *arrayp, size_t *n, size_t elem_size, const void *elem)
{
	void **array = arrayp;
	void *a;

	a = reallocarray(*array, *n + 1, elem_size);
	if (!a)
		return -ENOMEM;
	memcpy((char *)a + *n * elem_size, elem, elem_size);
	*array = a;
	(*n)++;
	return 0;
}

static int parse_one(int c, const char *arg, struct cr_run_options *o, char *msg, size_t size)
{
	struct cr_cli_path path = { .path = arg };
	uint64_t v;
	int fd;

	switch (c) {
	case 'w':
		o->workspace = arg;
		return 0;
	case OPT_CWD:
		o->cwd = arg;
		return 0;
	case OPT_RO:
	case OPT_RW:
	case OPT_HIDE:
		path.access = c == OPT_RO ? CR_PATH_RO : c == OPT_RW ? CR_PATH_RW : CR_PATH_HIDE;
		return push(&o->paths, &o->n_paths, sizeof(path), &path);
	case OPT_NET:
		o->net = cr_net_mode_from_string(arg);
		if (o->net < 0)
			return fail(msg, size, "--net: unknown mode '%s' (expected none or host)", arg);
		return 0;
	case OPT_MAP_ROOT:
		o->map_root = true;
		return 0;
	case OPT_UID:
	case OPT_GID:
		/* 65535 and (uint32_t)-1 are the kernel's "no id" markers. */
		if (cr_parse_uint(arg, 1, UINT32_MAX - 1, &v) < 0 || v == 65535)
			return fail(msg, size, "--%s: '%s' is not a usable non-zero id",
				    c == OPT_UID ? "uid" : "gid", arg);
		if (c == OPT_UID) {
			o->uid = (uint32_t)v;
			o->uid_set = true;
		} else {
			o->gid = (uint32_t)v;
			o->gid_set = true;
		}
		return 0;
	case OPT_HOSTNAME:
		o->hostname = arg;
		return 0;
	case OPT_SETENV:
		if (arg[0] == '=' || !strchr(arg, '='))
			return fail(msg, size, "--setenv: '%s' is not of the form KEY=VALUE", arg);
		return push(&o->setenv, &o->n_setenv, sizeof(arg), &arg);
	case OPT_KEEP_ENV:
		if (!*arg || strchr(arg, '='))
			return fail(msg, size, "--keep-env: '%s' is not a variable name", arg);
		return push(&o->keep_env, &o->n_keep_env, sizeof(arg), &arg);
	case OPT_KEEP_FD:
		if (cr_parse_uint(arg, 0, INT_MAX, &v) < 0)
			return fail(msg, size, "--keep-fd: '%s' is not a descriptor number", arg);
		fd = (int)v;
		return push(&o->keep_fds, &o->n_keep_fds, sizeof(fd), &fd);
	case OPT_TIMEOUT:
		if (cr_parse_seconds(arg, &o->timeout_ms) < 0 || o->timeout_ms == 0 ||
		    o->timeout_ms > CR_MAX_WAIT_MS)
			return fail(msg, size,
				    "--timeout: '%s' is not a number of seconds between 0.001 and %llu",
				    arg, CR_MAX_WAIT_MS / 1000);
		return 0;
	case OPT_KILL_AFTER:
		if (cr_parse_seconds(arg, &o->kill_after_ms) < 0 || o->kill_after_ms > CR_MAX_WAIT_MS)
			return fail(msg, size,
				    "--kill-after: '%s' is not a number of seconds between 0 and %llu",
				    arg, CR_MAX_WAIT_MS / 1000);
		return 0;
	case OPT_JSON_STATUS:
		o->json_status = arg;
		return 0;
	case 'v':
		o->verbose++;
		return 0;
	case 'h':
		o->help = true;
		return 0;
	default:
		return fail(msg, size, "unexpected option");
	}
}

int cr_cli_parse_run(int argc, char **argv, struct cr_run_options *ret_opts, char *msg, size_t size)
{
	struct cr_run_options o = {
		.net = CR_NET_NONE,
		.uid = CR_DEFAULT_SANDBOX_ID,
		.gid = CR_DEFAULT_SANDBOX_ID,
		.kill_after_ms = CR_DEFAULT_KILL_AFTER_MS,
	};
	int c, r;

	opterr = 0;
	optind = 0; /* full reinitialisation, so the parser can run more than once (tests) */
	for (int prev = 1; (c = getopt_long(argc, argv, "+:w:vh", run_options, NULL)) != -1;
	     prev = optind) {
		if (c == '?' || c == ':') {
			/* A long option always stands alone in its argv element (up to any '=');
			 * a short one is named by optopt, also when it came in a cluster. */
			const char *elem = argv[prev];
			char name[64];

			if (strncmp(elem, "--", 2) == 0)
				(void)snprintf(name, sizeof(name), "%.*s", (int)strcspn(elem, "="), elem);
			else
				(void)snprintf(name, sizeof(name), "-%c", optopt);
			r = fail(msg, size, "%s '%s'%s",
				 c == '?' ? "unknown option" : "missing argument for", name,
				 c == '?' ? " (see corral run --help)" : "");
			goto fail;
		}
		r = parse_one(c, optarg, &o, msg, size);
		if (r < 0)
			goto fail;
	}
	if (o.help) {
		*ret_opts = o;
		return 0;
	}
	if (optind >= argc) {
		r = fail(msg, size, "no command given (usage: corral run [OPTIONS] [--] CMD [ARG...])");
		goto fail;
	}
	if (!*argv[optind]) {
		r = fail(msg, size, "the command name is empty");
		goto fail;
	}
	o.argv = argv + optind;
	*ret_opts = o;
	return 0;
fail:
	cr_run_options_done(&o);
	return r == -ENOMEM ? fail(msg, size, "out of memory") : r;
}

void cr_run_options_done(struct cr_run_options *o)
{
	free(o->paths);
	free(o->setenv);
	free(o->keep_env);
	free(o->keep_fds);
	*o = (struct cr_run_options){};
}
