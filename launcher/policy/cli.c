/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host-pattern.h"
#include "cache.h"
#include "cli.h"
#include "secret.h"
#include "launcher/base/parse-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"

const char cr_main_usage[] =
	"Usage: corral COMMAND [OPTIONS]\n"
	"\n"
	"Run a command inside a kernel-enforced sandbox.\n"
	"\n"
	"Commands:\n"
	"  run [OPTIONS] [--] CMD [ARG...]  run CMD in a fresh sandbox and return its status\n"
	"  profile list|show NAME           the policy profiles, and what one allows\n"
	"  session list|show ID|rm ID       per-session workspaces and their grants\n"
	"  serve --stdio | --socket PATH    keep sandboxes warm, run commands on request (JSON)\n"
	"  pool start|stop|status           keep fresh sandboxes pre-built for corral run\n"
	"  check --shell CMD | -- PROG ...  how risky a shell command line is: safe, caution,\n"
	"                                   unknown or dangerous, with the reasons\n"
	"  doctor [--json]                  show what this host can enforce, and how to fix gaps\n"
	"  oci [OPTIONS] COMMAND            corral as an OCI runtime, for podman, containerd and\n"
	"                                   Docker (also run as corral-oci)\n"
	"  bwrap [OPTIONS] [--] CMD [ARG...] bwrap's command line, run by corral (corral-bwrap(1))\n"
	"  help [COMMAND]                   show this text, or the options of COMMAND (also\n"
	"                                   corral COMMAND --help)\n"
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
	"Policy (see corral(1), POLICY):\n"
	"  -p, --profile NAME|FILE  the baseline: strict, workspace (default), ci, power_user,\n"
	"                        autonomous, or a profile of one's own (corral profile list)\n"
	"      --session ID      a persistent workspace for ID, and the grants given to it\n"
	"      --grant once|session  allow what the options ask for beyond the profile, for this\n"
	"                        run or for the session; without it such a run exits 126 with a\n"
	"                        JSON denial on stderr\n"
	"      --audit FILE      the audit ledger (default $XDG_STATE_HOME/corral/audit.jsonl)\n"
	"      --no-audit        write no ledger line\n"
	"Filesystem:\n"
	"  -w, --workspace DIR   writable directory, bound at the same path (default: the session's\n"
	"                        workspace with --session, else the current directory)\n"
	"      --cwd DIR         working directory inside the sandbox (absolute; default: the\n"
	"                        current directory if it is inside the workspace, else the workspace)\n"
	"      --ro PATH         also show PATH, read-only (repeatable)\n"
	"      --rw PATH         also show PATH, writable (repeatable)\n"
	"      --hide PATH       cover PATH with an empty directory or file (repeatable)\n"
	"                        corral's own files inside a writable path stay read-only and in\n"
	"                        place; a writable path inside them is refused\n"
	"      --cache NAME=PATH a writable directory corral keeps across runs\n"
	"                        (STATE/caches/NAME), shown at PATH (~ is the sandbox's HOME);\n"
	"                        as root idmapped like the workspace (repeatable)\n"
	"Identity and network:\n"
	"      --net=MODE        none (private network with loopback only) or host\n"
	"      --allow-host HOST only HOST (a name, *.domain or IPv4 address; HOST:PORT for that port\n"
	"                        alone) through corral's HTTP(S) proxy, which the command finds in\n"
	"                        $https_proxy (repeatable); a name that resolves to an address\n"
	"                        that is not globally reachable (IANA special-purpose registries)\n"
	"                        or is one of the host's own needs that address listed too\n"
	"      --map-root        appear as uid/gid 0 inside (still unprivileged on the host)\n"
	"      --uid N, --gid N  host ids to run as when corral runs as root (default 65534)\n"
	"      --hostname NAME   hostname inside the sandbox (default corral)\n"
	"System calls:\n"
	"      --seccomp=MODE    default (refuse ptrace, mount, namespaces, bpf, io_uring,\n"
	"                        keyrings, modules, ... with EPERM), strict (also obsolete and\n"
	"                        rarely used calls), or off; other ABIs (i386, x32) are refused\n"
	"      --seccomp-profile FILE  an INI profile of syscalls and @groups with actions,\n"
	"                        compiled with libseccomp and cached (see corral(1))\n"
	"      --spawn=yes|no    no: the command cannot start processes; threads still can\n"
	"      --ptrace=sandbox|no  sandbox: allow ptrace and process_vm_readv/writev (gdb,\n"
	"                        strace, LeakSanitizer) between the sandbox's own processes;\n"
	"                        pid 1 and the host stay out of reach (default: no; ci: sandbox)\n"
	"Environment and descriptors:\n"
	"      --setenv K=V      set K in the command's environment (repeatable)\n"
	"      --keep-env K      pass K from corral's environment (repeatable; PATH is\n"
	"                        otherwise the standard one, or with a profile's path = inherit\n"
	"                        (ci) corral's less the directories the sandbox does not show,\n"
	"                        each named in a warning)\n"
	"      --keep-fd N       pass descriptor N (all others above 2 are closed) (repeatable)\n"
	"      --secret NAME=FILE  set NAME in the command's environment to the contents of\n"
	"                        FILE (- for the standard input; one trailing newline dropped);\n"
	"                        the value is in no argv, message, status or ledger (repeatable)\n"
	"      --secret-file NAME=FILE  show the contents of FILE as /run/secrets/NAME, mode\n"
	"                        0400, owned by the command's uid, on a private tmpfs (repeatable)\n"
	"      --env-file FILE   NAME=VALUE lines (# comments), each set in the command's\n"
	"                        environment like --secret (repeatable)\n"
	"Resource limits (cgroup v2, else v1, else rlimits; the JSON status says which):\n"
	"      --memory BYTES    memory cap (K, M, G, T suffixes; max); no swap unless\n"
	"                        --memory-swap; the OOM killer's kill exits 137;\n"
	"                        bounds /tmp, /dev/shm and the home too (default:\n"
	"                        half the RAM, at least 2G, where a cgroup holds it)\n"
	"      --memory-swap BYTES  swap allowed on top of --memory\n"
	"      --pids N          processes and threads (default 4096; max for none)\n"
	"      --cpu CPUS        CPU bandwidth, in CPUs (0.5 = half of one; cpu.max); the\n"
	"                        command runs on ceil(CPUS) CPUs, so nproc prints that\n"
	"      --cpu-time SECS   CPU seconds per process (RLIMIT_CPU; SIGXCPU, then SIGKILL)\n"
	"      --file-size BYTES largest file a process may write (RLIMIT_FSIZE)\n"
	"      --open-files N    descriptors per process (RLIMIT_NOFILE)\n"
	"      --limits=MODE     best-effort (default: enforce what the host can, warn about\n"
	"                        the rest) or required (a limit that cannot be enforced: exit 125)\n"
	"Landlock and degraded mode:\n"
	"      --landlock=MODE   best-effort (default: what this kernel has; what it lacks is\n"
	"                        reported), required (exit 125 if it lacks any), or off\n"
	"      --landlock-min-abi N  exit 125 unless the kernel has Landlock ABI N (1-7) or newer\n"
	"      --tcp-connect PORTS  TCP may connect only to PORTS, e.g. 443,8000-8100 (repeatable)\n"
	"      --tcp-bind PORTS  TCP may bind only PORTS; 0 is a port the kernel picks (repeatable)\n"
	"      --allow-degraded  where user namespaces are unavailable, run under Landlock\n"
	"                        without them, and say which layers are missing\n"
	"Lifetime and reporting:\n"
	"      --timeout SECS    stop the sandbox after SECS (decimal); exit 124\n"
	"      --kill-after SECS grace between SIGTERM and SIGKILL on timeout (default 2)\n"
	"      --json-status DEST  write one JSON object describing the run to DEST: a file\n"
	"                        path or fd:N\n"
	"      --pool=MODE       auto (default; CORRAL_POOL sets it): run in a pre-built sandbox\n"
	"                        of `corral pool` when one runs and fits the policy, else cold;\n"
	"                        require (exit 125 if the pool cannot run it), or never\n"
	"  -v, --verbose         print each setup step\n"
	"  -h, --help            show this text\n"
	"\n"
	"Options override the profile; what they ask for beyond it (--ro/--rw outside it, --net=host,\n"
	"--allow-host, --spawn=yes, larger limits or timeout, weaker layers) needs a grant.\n"
	"\n"
	"Exit status: the command's own; 128+N if it was killed by signal N; 124 timeout;\n"
	"125 corral could not build the sandbox; 126 CMD not executable, or denied by the policy\n"
	"(the JSON status says which); 127 CMD not found.\n";

enum {
	OPT_CWD = 0x100,
	OPT_RO,
	OPT_RW,
	OPT_HIDE,
	OPT_CACHE,
	OPT_NET,
	OPT_MAP_ROOT,
	OPT_UID,
	OPT_GID,
	OPT_HOSTNAME,
	OPT_SECCOMP,
	OPT_SECCOMP_PROFILE,
	OPT_SPAWN,
	OPT_PTRACE,
	OPT_SETENV,
	OPT_KEEP_ENV,
	OPT_KEEP_FD,
	OPT_SECRET,
	OPT_SECRET_FILE,
	OPT_ENV_FILE,
	OPT_TIMEOUT,
	OPT_KILL_AFTER,
	OPT_JSON_STATUS,
	OPT_LIMIT_FIRST, /* OPT_LIMIT_FIRST + enum cr_limit */
	OPT_LIMITS = OPT_LIMIT_FIRST + _CR_LIMIT_MAX,
	OPT_LANDLOCK,
	OPT_LANDLOCK_MIN_ABI,
	OPT_TCP_CONNECT,
	OPT_TCP_BIND,
	OPT_ALLOW_DEGRADED,
	OPT_PROFILE,
	OPT_SESSION,
	OPT_GRANT,
	OPT_AUDIT,
	OPT_NO_AUDIT,
	OPT_ALLOW_HOST,
	OPT_POOL,
};

static const struct option run_options[] = {
	{ "workspace", required_argument, NULL, 'w' },
	{ "cwd", required_argument, NULL, OPT_CWD },
	{ "ro", required_argument, NULL, OPT_RO },
	{ "rw", required_argument, NULL, OPT_RW },
	{ "hide", required_argument, NULL, OPT_HIDE },
	{ "cache", required_argument, NULL, OPT_CACHE },
	{ "net", required_argument, NULL, OPT_NET },
	{ "map-root", no_argument, NULL, OPT_MAP_ROOT },
	{ "uid", required_argument, NULL, OPT_UID },
	{ "gid", required_argument, NULL, OPT_GID },
	{ "hostname", required_argument, NULL, OPT_HOSTNAME },
	{ "seccomp", required_argument, NULL, OPT_SECCOMP },
	{ "seccomp-profile", required_argument, NULL, OPT_SECCOMP_PROFILE },
	{ "spawn", required_argument, NULL, OPT_SPAWN },
	{ "ptrace", required_argument, NULL, OPT_PTRACE },
	{ "setenv", required_argument, NULL, OPT_SETENV },
	{ "keep-env", required_argument, NULL, OPT_KEEP_ENV },
	{ "keep-fd", required_argument, NULL, OPT_KEEP_FD },
	{ "secret", required_argument, NULL, OPT_SECRET },
	{ "secret-file", required_argument, NULL, OPT_SECRET_FILE },
	{ "env-file", required_argument, NULL, OPT_ENV_FILE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "kill-after", required_argument, NULL, OPT_KILL_AFTER },
	{ "json-status", required_argument, NULL, OPT_JSON_STATUS },
	{ "memory", required_argument, NULL, OPT_LIMIT_FIRST + CR_LIMIT_MEMORY },
	{ "memory-swap", required_argument, NULL, OPT_LIMIT_FIRST + CR_LIMIT_MEMORY_SWAP },
	{ "pids", required_argument, NULL, OPT_LIMIT_FIRST + CR_LIMIT_PIDS },
	{ "cpu", required_argument, NULL, OPT_LIMIT_FIRST + CR_LIMIT_CPU },
	{ "cpu-time", required_argument, NULL, OPT_LIMIT_FIRST + CR_LIMIT_CPU_TIME },
	{ "file-size", required_argument, NULL, OPT_LIMIT_FIRST + CR_LIMIT_FILE_SIZE },
	{ "open-files", required_argument, NULL, OPT_LIMIT_FIRST + CR_LIMIT_OPEN_FILES },
	{ "limits", required_argument, NULL, OPT_LIMITS },
	{ "landlock", required_argument, NULL, OPT_LANDLOCK },
	{ "landlock-min-abi", required_argument, NULL, OPT_LANDLOCK_MIN_ABI },
	{ "tcp-connect", required_argument, NULL, OPT_TCP_CONNECT },
	{ "tcp-bind", required_argument, NULL, OPT_TCP_BIND },
	{ "allow-degraded", no_argument, NULL, OPT_ALLOW_DEGRADED },
	{ "profile", required_argument, NULL, 'p' },
	{ "session", required_argument, NULL, OPT_SESSION },
	{ "grant", required_argument, NULL, OPT_GRANT },
	{ "audit", required_argument, NULL, OPT_AUDIT },
	{ "no-audit", no_argument, NULL, OPT_NO_AUDIT },
	{ "allow-host", required_argument, NULL, OPT_ALLOW_HOST },
	{ "pool", required_argument, NULL, OPT_POOL },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{}
};

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

static int parse_limit(int c, const char *arg, struct cr_run_options *o, char *msg, size_t size)
{
	static const char *const forms[_CR_LIMIT_MAX] = {
		[CR_LIMIT_MEMORY] = "bytes with an optional K, M, G or T suffix, or max",
		[CR_LIMIT_MEMORY_SWAP] = "bytes with an optional K, M, G or T suffix, or max",
		[CR_LIMIT_PIDS] = "a number of processes (1-4194304), or max",
		[CR_LIMIT_CPU] = "a number of CPUs such as 0.5 or 2 (at least 0.001), or max",
		[CR_LIMIT_CPU_TIME] = "a whole number of seconds, or max",
		[CR_LIMIT_FILE_SIZE] = "bytes with an optional K, M, G or T suffix, or max",
		[CR_LIMIT_OPEN_FILES] = "a number of descriptors (1-1048576), or max",
	};
	enum cr_limit l = (enum cr_limit)(c - OPT_LIMIT_FIRST);

	if (c == OPT_LIMITS) {
		if (strcmp(arg, "required") != 0 && strcmp(arg, "best-effort") != 0)
			return cr_msg(msg, size, -EINVAL,
				    "--limits: unknown mode '%s' (expected best-effort or required)", arg);
		o->limits.required = strcmp(arg, "required") == 0;
		o->limits_mode_set = true;
		return 0;
	}
	if (cr_limit_parse(l, arg, &o->limits.value[l]) < 0)
		return cr_msg(msg, size, -EINVAL, "%s: '%s' is not %s", cr_limit_option(l), arg, forms[l]);
	o->limits.set[l] = true;
	return 0;
}

static int parse_landlock(int c, const char *arg, struct cr_run_options *o, char *msg,
			  size_t size)
{
	uint64_t v;
	int r;

	switch (c) {
	case OPT_LANDLOCK:
		o->landlock = cr_landlock_mode_from_string(arg);
		if (o->landlock < 0)
			return cr_msg(msg, size, -EINVAL,
				    "--landlock: unknown mode '%s' (expected best-effort, required or off)",
				    arg);
		o->landlock_set = true;
		return 0;
	case OPT_LANDLOCK_MIN_ABI:
		if (cr_parse_uint(arg, 1, CR_LANDLOCK_ABI_MAX, &v) < 0)
			return cr_msg(msg, size, -EINVAL,
				    "--landlock-min-abi: '%s' is not a Landlock ABI version this corral knows (1-%d)",
				    arg, CR_LANDLOCK_ABI_MAX);
		o->landlock_min_abi = (int)v;
		return 0;
	case OPT_TCP_CONNECT:
	case OPT_TCP_BIND:
		if (c == OPT_TCP_CONNECT)
			r = cr_ports_parse(arg, 1, &o->tcp_connect, &o->n_tcp_connect);
		else
			r = cr_ports_parse(arg, 0, &o->tcp_bind, &o->n_tcp_bind);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return cr_msg(msg, size, -EINVAL,
				    "%s: '%s' is not a list of ports (%d-65535) and ranges, such as 80,443,8000-8100",
				    c == OPT_TCP_CONNECT ? "--tcp-connect" : "--tcp-bind", arg,
				    c == OPT_TCP_CONNECT);
		return 0;
	case OPT_ALLOW_DEGRADED:
	default:
		o->allow_degraded = true;
		return 0;
	}
}

/* --profile, --session, --grant, --audit, --no-audit, --allow-host. */
static int parse_policy(int c, const char *arg, struct cr_run_options *o, char *msg, size_t size)
{
	switch (c) {
	case 'p':
		if (!*arg)
			return cr_msg(msg, size, -EINVAL, "--profile: the name is empty");
		o->profile = arg;
		return 0;
	case OPT_SESSION:
		o->session = arg;
		return 0;
	case OPT_GRANT:
		if (strcmp(arg, "once") == 0)
			o->grant = CR_GRANT_ONCE;
		else if (strcmp(arg, "session") == 0)
			o->grant = CR_GRANT_SESSION;
		else
			return cr_msg(msg, size, -EINVAL, "--grant: '%s' is not once or session", arg);
		return 0;
	case OPT_AUDIT:
		if (!*arg)
			return cr_msg(msg, size, -EINVAL, "--audit: the path is empty");
		o->audit = arg;
		return 0;
	case OPT_NO_AUDIT:
		o->no_audit = true;
		return 0;
	case OPT_ALLOW_HOST:
	default:
		if (cr_host_pattern_check(arg) < 0)
			return cr_msg(msg, size, -EINVAL,
				    "--allow-host: '%s' is not a host name, *.domain or IPv4 address, optionally with :PORT (1-65535; no scheme or path)",
				    arg);
		if (o->net_set && o->net != CR_NET_HOSTS)
			return cr_msg(msg, size, -EINVAL, "--allow-host cannot be combined with --net=%s",
				    cr_net_mode_to_string(o->net));
		o->net = CR_NET_HOSTS;
		o->net_set = true;
		return push(&o->allow_hosts, &o->n_allow_hosts, sizeof(arg), &arg);
	}
}

/* -w, --cwd, --ro, --rw, --hide: where the command runs and what it sees. */
static int parse_fs(int c, const char *arg, struct cr_run_options *o)
{
	struct cr_cli_path path = { .path = arg };

	switch (c) {
	case 'w':
		o->workspace = arg;
		return 0;
	case OPT_CWD:
		o->cwd = arg;
		return 0;
	default:
		path.access = c == OPT_RO ? CR_PATH_RO : c == OPT_RW ? CR_PATH_RW : CR_PATH_HIDE;
		return push(&o->paths, &o->n_paths, sizeof(path), &path);
	}
}

/* --cache NAME=PATH: the name is checked here, the path (which may start with ~) by
 * cr_policy_build(), which knows the sandbox's HOME. */
static int parse_cache(const char *arg, struct cr_run_options *o, char *msg, size_t size)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1])
		return cr_msg(msg, size, -EINVAL, "--cache: '%s' is not of the form NAME=PATH", arg);
	if (!cr_cache_name_ok(arg, (size_t)(eq - arg)))
		return cr_msg(msg, size, -EINVAL,
			      "--cache: cache name '%.*s' is not usable: 1-%d letters, digits, '_', '.' and '-', not starting with '.' (no '/', no '..')",
			      (int)(eq - arg) > 80 ? 80 : (int)(eq - arg), arg, CR_CACHE_NAME_MAX);
	return push(&o->caches, &o->n_caches, sizeof(arg), &arg);
}

/* --net: none or host; --allow-host sets the hosts mode. */
static int parse_net(const char *arg, struct cr_run_options *o, char *msg, size_t size)
{
	o->net = cr_net_mode_from_string(arg);
	if (o->net < 0 || o->net == CR_NET_HOSTS)
		return cr_msg(msg, size, -EINVAL,
			    "--net: unknown mode '%s' (expected none or host; --allow-host HOST lets the command reach only HOST)",
			    arg);
	if (o->n_allow_hosts)
		return cr_msg(msg, size, -EINVAL, "--allow-host cannot be combined with --net=%s", arg);
	o->net_set = true;
	return 0;
}

/* --uid, --gid. */
static int parse_id(int c, const char *arg, struct cr_run_options *o, char *msg, size_t size)
{
	uint64_t v;

	/* 65535 and (uint32_t)-1 are the kernel's "no id" markers. */
	if (cr_parse_uint(arg, 1, UINT32_MAX - 1, &v) < 0 || v == 65535)
		return cr_msg(msg, size, -EINVAL, "--%s: '%s' is not a usable non-zero id",
			    c == OPT_UID ? "uid" : "gid", arg);
	if (c == OPT_UID) {
		o->uid = (uint32_t)v;
		o->uid_set = true;
	} else {
		o->gid = (uint32_t)v;
		o->gid_set = true;
	}
	return 0;
}

/* --seccomp, --seccomp-profile, --spawn, --ptrace: the system calls the command may make. */
static int parse_syscalls(int c, const char *arg, struct cr_run_options *o, char *msg, size_t size)
{
	switch (c) {
	case OPT_SECCOMP:
		o->seccomp = cr_seccomp_mode_from_string(arg);
		if (o->seccomp < 0)
			return cr_msg(msg, size, -EINVAL,
				    "--seccomp: unknown mode '%s' (expected default, strict or off)", arg);
		o->seccomp_set = true;
		return 0;
	case OPT_SECCOMP_PROFILE:
		o->seccomp_profile = arg;
		return 0;
	case OPT_PTRACE:
		if (strcmp(arg, "sandbox") != 0 && strcmp(arg, "no") != 0)
			return cr_msg(msg, size, -EINVAL, "--ptrace: '%s' is not sandbox or no", arg);
		o->ptrace = strcmp(arg, "sandbox") == 0;
		o->ptrace_set = true;
		return 0;
	default:
		if (strcmp(arg, "yes") != 0 && strcmp(arg, "no") != 0)
			return cr_msg(msg, size, -EINVAL, "--spawn: '%s' is not yes or no", arg);
		o->no_spawn = strcmp(arg, "no") == 0;
		o->spawn_set = true;
		return 0;
	}
}

/* --setenv, --keep-env, --keep-fd: what the command inherits. */
static int parse_inherit(int c, const char *arg, struct cr_run_options *o, char *msg, size_t size)
{
	uint64_t v;
	int fd;

	switch (c) {
	case OPT_SETENV:
		if (arg[0] == '=' || !strchr(arg, '='))
			return cr_msg(msg, size, -EINVAL, "--setenv: '%s' is not of the form KEY=VALUE", arg);
		return push(&o->setenv, &o->n_setenv, sizeof(arg), &arg);
	case OPT_KEEP_ENV:
		if (!*arg || strchr(arg, '='))
			return cr_msg(msg, size, -EINVAL, "--keep-env: '%s' is not a variable name", arg);
		return push(&o->keep_env, &o->n_keep_env, sizeof(arg), &arg);
	default:
		if (cr_parse_uint(arg, 0, INT_MAX, &v) < 0)
			return cr_msg(msg, size, -EINVAL, "--keep-fd: '%s' is not a descriptor number", arg);
		fd = (int)v;
		return push(&o->keep_fds, &o->n_keep_fds, sizeof(fd), &fd);
	}
}

/* --secret, --secret-file, --env-file: only checked here; cr_policy_build() reads the files. */
static int parse_secret(int c, const char *arg, struct cr_run_options *o, char *msg, size_t size)
{
	int r;

	switch (c) {
	case OPT_SECRET:
		r = cr_secret_spec_check("--secret", CR_SECRET_ENV, arg, msg, size);
		return r < 0 ? r : push(&o->secrets, &o->n_secrets, sizeof(arg), &arg);
	case OPT_SECRET_FILE:
		r = cr_secret_spec_check("--secret-file", CR_SECRET_FILE, arg, msg, size);
		return r < 0 ? r : push(&o->secret_files, &o->n_secret_files, sizeof(arg), &arg);
	default:
		if (!*arg)
			return cr_msg(msg, size, -EINVAL, "--env-file: empty file name");
		return push(&o->env_files, &o->n_env_files, sizeof(arg), &arg);
	}
}

/* --timeout, --kill-after. */
static int parse_wait(int c, const char *arg, struct cr_run_options *o, char *msg, size_t size)
{
	if (c == OPT_TIMEOUT) {
		if (cr_parse_seconds(arg, &o->timeout_ms) < 0 || o->timeout_ms == 0 ||
		    o->timeout_ms > CR_MAX_WAIT_MS)
			return cr_msg(msg, size, -EINVAL,
				    "--timeout: '%s' is not a number of seconds between 0.001 and %llu",
				    arg, CR_MAX_WAIT_MS / 1000);
		return 0;
	}
	if (cr_parse_seconds(arg, &o->kill_after_ms) < 0 || o->kill_after_ms > CR_MAX_WAIT_MS)
		return cr_msg(msg, size, -EINVAL,
			    "--kill-after: '%s' is not a number of seconds between 0 and %llu",
			    arg, CR_MAX_WAIT_MS / 1000);
	return 0;
}

static int parse_one(int c, const char *arg, struct cr_run_options *o, char *msg, size_t size)
{
	switch (c) {
	case 'w':
	case OPT_CWD:
	case OPT_RO:
	case OPT_RW:
	case OPT_HIDE:
		return parse_fs(c, arg, o);
	case OPT_CACHE:
		return parse_cache(arg, o, msg, size);
	case OPT_NET:
		return parse_net(arg, o, msg, size);
	case OPT_MAP_ROOT:
		o->map_root = true;
		return 0;
	case OPT_UID:
	case OPT_GID:
		return parse_id(c, arg, o, msg, size);
	case OPT_HOSTNAME:
		o->hostname = arg;
		return 0;
	case OPT_SECCOMP:
	case OPT_SECCOMP_PROFILE:
	case OPT_SPAWN:
	case OPT_PTRACE:
		return parse_syscalls(c, arg, o, msg, size);
	case OPT_SETENV:
	case OPT_KEEP_ENV:
	case OPT_KEEP_FD:
		return parse_inherit(c, arg, o, msg, size);
	case OPT_SECRET:
	case OPT_SECRET_FILE:
	case OPT_ENV_FILE:
		return parse_secret(c, arg, o, msg, size);
	case OPT_TIMEOUT:
	case OPT_KILL_AFTER:
		return parse_wait(c, arg, o, msg, size);
	case OPT_JSON_STATUS:
		o->json_status = arg;
		return 0;
	case OPT_LIMIT_FIRST ... OPT_LIMITS:
		return parse_limit(c, arg, o, msg, size);
	case OPT_LANDLOCK ... OPT_ALLOW_DEGRADED:
		return parse_landlock(c, arg, o, msg, size);
	case 'p':
	case OPT_PROFILE ... OPT_ALLOW_HOST:
		return parse_policy(c, arg, o, msg, size);
	case OPT_POOL:
		if (strcmp(arg, "auto") != 0 && strcmp(arg, "require") != 0 &&
		    strcmp(arg, "never") != 0)
			return cr_msg(msg, size, -EINVAL, "--pool=%s: expected auto, require or never",
				      arg);
		o->pool = arg;
		return 0;
	case 'v':
		o->verbose++;
		return 0;
	case 'h':
		o->help = true;
		return 0;
	default:
		return cr_msg(msg, size, -EINVAL, "unexpected option");
	}
}

static int check_policy_options(const struct cr_run_options *o, char *msg, size_t size)
{
	if (o->n_allow_hosts && o->net != CR_NET_HOSTS)
		return cr_msg(msg, size, -EINVAL, "--allow-host cannot be combined with --net=%s",
			    cr_net_mode_to_string(o->net));
	if (o->grant == CR_GRANT_SESSION && !o->session)
		return cr_msg(msg, size, -EINVAL, "--grant session needs --session ID: the grant is kept with the session");
	if (o->audit && o->no_audit)
		return cr_msg(msg, size, -EINVAL, "--audit and --no-audit contradict each other");
	return 0;
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
	for (int prev = 1; (c = getopt_long(argc, argv, "+:w:p:vh", run_options, NULL)) != -1;
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
			r = cr_msg(msg, size, -EINVAL, "%s '%s'%s",
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
	if (o.seccomp_profile && o.seccomp != CR_SECCOMP_DEFAULT) {
		r = cr_msg(msg, size, -EINVAL,
			 "--seccomp-profile cannot be combined with --seccomp=%s; the profile's 'base' key chooses default, strict or none",
			 cr_seccomp_mode_to_string(o.seccomp));
		goto fail;
	}
	if (o.seccomp_profile && o.ptrace) {
		r = cr_msg(msg, size, -EINVAL,
			   "--ptrace=sandbox cannot be combined with --seccomp-profile; the profile's own rules decide about ptrace (leave @ptrace out of them)");
		goto fail;
	}
	r = check_policy_options(&o, msg, size);
	if (r < 0)
		goto fail;
	if (optind >= argc) {
		r = cr_msg(msg, size, -EINVAL, "no command given (usage: corral run [OPTIONS] [--] CMD [ARG...])");
		goto fail;
	}
	if (!*argv[optind]) {
		r = cr_msg(msg, size, -EINVAL, "the command name is empty");
		goto fail;
	}
	o.argv = argv + optind;
	*ret_opts = o;
	return 0;
fail:
	cr_run_options_done(&o);
	return r == -ENOMEM ? cr_msg(msg, size, -EINVAL, "out of memory") : r;
}
