/* SPDX-License-Identifier: MIT */
/* bwrap's command line to a policy. The filesystem options are a script: each becomes one
 * operation of the policy's explicit filesystem, in order; --perms and --size apply to the next
 * operation only. Everything else sets a field, and the last one given wins. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "launcher/base/macro.h"

extern char **environ;

/* The largest --size bwrap takes: SIZE_MAX / 2. */
#define MAX_TMPFS_SIZE (SIZE_MAX / 2)
/* How deep --args may nest, and how much one may hold. */
#define MAX_ARGS_DEPTH 8
#define MAX_ARGS_BYTES (16u << 20)

const char *cr_bwrap_mode_to_string(enum cr_bwrap_mode m)
{
	return m == CR_BWRAP_COMPAT ? "compat" : m == CR_BWRAP_HARDENED ? "hardened" : "?";
}

enum cr_bwrap_mode cr_bwrap_mode_from_string(const char *s)
{
	if (strcmp(s, "compat") == 0)
		return CR_BWRAP_COMPAT;
	if (strcmp(s, "hardened") == 0)
		return CR_BWRAP_HARDENED;
	return _CR_BWRAP_MODE_INVALID;
}

void cr_bwrap_usage(const char *prog, FILE *out)
{
	fprintf(out, "usage: %s [OPTIONS...] [--] COMMAND [ARGS...]\n\n", prog);
	fputs("    --help                       Print this help\n"
	      "    --version                    Print version\n"
	      "    --args FD                    Read more options, NUL-separated, from FD\n"
	      "    --argv0 VALUE                Run the command with argv[0] set to VALUE\n"
	      "    --level-prefix               Prefix each message with its syslog level, e.g. <3>\n"
	      "    --unshare-all                Unshare every namespace (user only if possible)\n"
	      "    --share-net                  Keep the host's network (after --unshare-all)\n"
	      "    --unshare-user               Make a new user namespace\n"
	      "    --unshare-user-try           Make a new user namespace if the host allows it\n"
	      "    --unshare-ipc                Make a new IPC namespace\n"
	      "    --unshare-pid                Make a new pid namespace\n"
	      "    --unshare-net                Make a new network namespace (loopback only)\n"
	      "    --unshare-uts                Make a new UTS namespace\n"
	      "    --unshare-cgroup             Make a new cgroup namespace\n"
	      "    --unshare-cgroup-try         Make a new cgroup namespace if the host allows it\n"
	      "    --userns FD                  Enter this user namespace (not with --unshare-user)\n"
	      "    --userns2 FD                 Switch to this user namespace after setup\n"
	      "    --disable-userns             The sandbox cannot make user namespaces\n"
	      "    --assert-userns-disabled     Fail unless the sandbox cannot make user namespaces\n"
	      "    --pidns FD                   Use this pid namespace\n"
	      "    --uid UID                    The uid inside (with --unshare-user)\n"
	      "    --gid GID                    The gid inside (with --unshare-user)\n"
	      "    --hostname NAME              The host name inside (with --unshare-uts)\n"
	      "    --chdir DIR                  Start the command in DIR\n"
	      "    --clearenv                   Start from an empty environment\n"
	      "    --setenv VAR VALUE           Set an environment variable\n"
	      "    --unsetenv VAR               Remove an environment variable\n"
	      "    --lock-file DEST             Hold a lock on DEST while the sandbox runs\n"
	      "    --sync-fd FD                 Keep FD open while the sandbox runs\n"
	      "    --perms OCTAL                Mode of the next --dir, --tmpfs, --file or data bind\n"
	      "    --size BYTES                 Size of the next --tmpfs\n"
	      "    --bind SRC DEST              Bind the host path SRC at DEST\n"
	      "    --bind-try SRC DEST          --bind, skipped if SRC does not exist\n"
	      "    --dev-bind SRC DEST          Bind SRC at DEST, device nodes usable\n"
	      "    --dev-bind-try SRC DEST      --dev-bind, skipped if SRC does not exist\n"
	      "    --ro-bind SRC DEST           Bind SRC read-only at DEST\n"
	      "    --ro-bind-try SRC DEST       --ro-bind, skipped if SRC does not exist\n"
	      "    --bind-fd FD DEST            Bind the directory open at FD at DEST\n"
	      "    --ro-bind-fd FD DEST         Bind the directory open at FD read-only at DEST\n"
	      "    --remount-ro DEST            Make the mount at DEST read-only\n"
	      "    --overlay-src SRC            A lower layer of the next overlay\n"
	      "    --overlay RWSRC WORKDIR DEST Overlay at DEST, writes going to RWSRC\n"
	      "    --tmp-overlay DEST           Overlay at DEST, writes going to a private tmpfs\n"
	      "    --ro-overlay DEST            Read-only overlay at DEST\n"
	      "    --exec-label LABEL           SELinux label of the command\n"
	      "    --file-label LABEL           SELinux label of the files made\n"
	      "    --proc DEST                  Mount a new procfs at DEST\n"
	      "    --dev DEST                   Mount a new minimal /dev at DEST\n"
	      "    --tmpfs DEST                 Mount a new tmpfs at DEST\n"
	      "    --mqueue DEST                Mount a new mqueue at DEST\n"
	      "    --dir DEST                   Make a directory at DEST\n"
	      "    --file FD DEST               Make a file at DEST with what FD holds\n"
	      "    --bind-data FD DEST          Bind a file with what FD holds at DEST\n"
	      "    --ro-bind-data FD DEST       Bind a read-only file with what FD holds at DEST\n"
	      "    --symlink SRC DEST           Make a symlink at DEST pointing to SRC\n"
	      "    --chmod OCTAL PATH           Change the mode of PATH\n"
	      "    --seccomp FD                 Install the seccomp program read from FD (once)\n"
	      "    --add-seccomp-fd FD          Install the seccomp program read from FD (repeatable)\n"
	      "    --block-fd FD                Wait for data or end of file on FD before the command\n"
	      "    --userns-block-fd FD         Wait on FD once the user namespace is ready\n"
	      "    --info-fd FD                 Write the sandbox's pid and namespaces as JSON to FD\n"
	      "    --json-status-fd FD          Write the sandbox's status as JSON documents to FD\n"
	      "    --new-session                Run the command in a new terminal session\n"
	      "    --die-with-parent            Kill the sandbox when the caller dies\n"
	      "    --as-pid-1                   Run the command as pid 1, with no init before it\n"
	      "    --cap-add CAP                Keep capability CAP (or ALL)\n"
	      "    --cap-drop CAP               Drop capability CAP (or ALL)\n"
	      "\n"
	      "This is corral's bwrap personality (corral-bwrap(1)); CORRAL_BWRAP_MODE=compat|hardened\n"
	      "selects how much it adds to bwrap's semantics.\n",
	      out);
}

struct parser {
	struct cr_bwrap *b;
	char ***env;
	size_t *n_env;
	uint32_t perms; /* CR_FS_MODE_UNSET: none pending */
	uint64_t size;	/* 0: none pending */
	char **overlay_srcs;
	size_t n_overlay_srcs;
	uint64_t caps;
	bool chdir_set, uid_set, gid_set, hostname_set, seccomp_single, caps_used;
	int depth;
	char *msg;
	size_t msg_size;
};

static int fail(struct parser *p, int r, const char *fmt, ...) _printf_(3, 4);
static int fail(struct parser *p, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(p->msg, p->msg_size, fmt, ap);
	va_end(ap);
	return r;
}

static int parse_fd(struct parser *p, const char *opt, const char *s, int *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < 0 || v > INT32_MAX)
		return fail(p, -EINVAL, "Invalid fd: %s", s);
	(void)opt;
	*ret = (int)v;
	return 0;
}

static int parse_id(struct parser *p, const char *s, uint32_t *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *end || errno || v >= UINT32_MAX || s[0] == '-')
		return fail(p, -EINVAL, "Invalid uid or gid: %s", s);
	*ret = (uint32_t)v;
	return 0;
}

static int parse_mode(struct parser *p, const char *s, uint32_t *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 8);
	if (!*s || *end || errno || v > 07777 || s[0] == '-' || s[0] == ' ')
		return fail(p, -EINVAL, "Permissions \"%s\" are not a valid 4-digit octal number", s);
	*ret = (uint32_t)v;
	return 0;
}

static int parse_size(struct parser *p, const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (s[0] < '0' || s[0] > '9')
		return fail(p, -EINVAL, "Invalid size \"%s\"", s);
	v = strtoull(s, &end, 0);
	if (*end || errno || v == 0 || v > MAX_TMPFS_SIZE)
		return fail(p, -EINVAL, "Invalid size \"%s\"", s);
	*ret = v;
	return 0;
}

/* Read all of @fd: the data of --file and the data binds, --args, a seccomp program. */
static int read_fd(int fd, char **ret, size_t *ret_len)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *n;

	while (buf) {
		ssize_t k;

		if (len == cap) {
			if (cap >= MAX_ARGS_BYTES * 16)
				break;
			n = realloc(buf, cap *= 2);
			if (!n)
				break;
			buf = n;
		}
		k = read(fd, buf + len, cap - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int r = negative_errno();

			free(buf);
			return r;
		}
		if (k == 0) {
			*ret = buf;
			*ret_len = len;
			return 0;
		}
		len += (size_t)k;
	}
	free(buf);
	return -ENOMEM;
}

static struct cr_fs_op *add_op(struct parser *p, enum cr_fs_op_kind kind, unsigned flags,
			       const char *src, const char *dst)
{
	struct cr_policy *pol = &p->b->policy;
	struct cr_fs_op *op = cr_fs_op_add(&pol->fs_ops, &pol->n_fs_ops, kind, flags, src, dst);

	if (!op)
		return NULL;
	op->mode = p->perms;
	op->size = p->size;
	p->perms = CR_FS_MODE_UNSET;
	p->size = 0;
	return op;
}

static void env_unset_all(struct parser *p);

static void env_unset(struct parser *p, const char *key)
{
	size_t klen = strlen(key), k = 0;

	for (size_t i = 0; i < *p->n_env; i++) {
		char *e = (*p->env)[i];

		if (strncmp(e, key, klen) == 0 && e[klen] == '=')
			free(e);
		else
			(*p->env)[k++] = e;
	}
	*p->n_env = k;
	if (*p->env)
		(*p->env)[k] = NULL;
}

/* The capabilities' names, by number, as <linux/capability.h> has them (without "CAP_"). */
static const char *const cap_names[] = {
	"chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill", "setgid",
	"setuid", "setpcap", "linux_immutable", "net_bind_service", "net_broadcast", "net_admin",
	"net_raw", "ipc_lock", "ipc_owner", "sys_module", "sys_rawio", "sys_chroot", "sys_ptrace",
	"sys_pacct", "sys_admin", "sys_boot", "sys_nice", "sys_resource", "sys_time",
	"sys_tty_config", "mknod", "lease", "audit_write", "audit_control", "setfcap",
	"mac_override", "mac_admin", "syslog", "wake_alarm", "block_suspend", "audit_read",
	"perfmon", "bpf", "checkpoint_restore",
};

static int cap_from_name(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(cap_names); i++)
		if (strcasecmp(name, cap_names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

static int cap_arg(struct parser *p, const char *name, bool add)
{
	int c;

	p->caps_used = true;
	if (strcasecmp(name, "ALL") == 0) {
		p->caps = add ? ~0ull : 0;
		return 0;
	}
	c = cap_from_name(strncasecmp(name, "CAP_", 4) == 0 ? name + 4 : name);
	if (c < 0 || c >= 64)
		return fail(p, -EINVAL, "Unknown capability %s", name);
	if (add)
		p->caps |= 1ull << c;
	else
		p->caps &= ~(1ull << c);
	return 0;
}

/* --seccomp FD (one program, alone) and --add-seccomp-fd FD (any number, in order): each read
 * whole now, and the descriptor closed, as bwrap does. */
static int seccomp_option(struct parser *p, const char *opt, int fd)
{
	struct cr_explicit *ex = &p->b->policy.ex;
	bool single = strcmp(opt, "--seccomp") == 0;
	struct cr_bpf_program *a;
	size_t len;
	char *data;
	int r;

	if (single && ex->n_seccomp_programs && !p->seccomp_single)
		return fail(p, -EINVAL, "--seccomp cannot be combined with --add-seccomp-fd");
	if (!single && p->seccomp_single)
		return fail(p, -EINVAL, "--add-seccomp-fd cannot be combined with --seccomp");
	r = read_fd(fd, &data, &len);
	(void)close(fd);
	if (r < 0)
		return fail(p, r, "Can't read seccomp data: %s", strerror(-r));
	if (len % 8 != 0 || len / 8 > USHRT_MAX) {
		free(data);
		return fail(p, -EINVAL, "Invalid seccomp data, must be multiple of 8");
	}
	if (single && p->seccomp_single) { /* the last --seccomp wins */
		free(ex->seccomp_programs[0].insns);
		ex->seccomp_programs[0] = (struct cr_bpf_program){ data, len };
		return 0;
	}
	a = reallocarray(ex->seccomp_programs, ex->n_seccomp_programs + 1, sizeof(*a));
	if (!a) {
		free(data);
		return -ENOMEM;
	}
	ex->seccomp_programs = a;
	a[ex->n_seccomp_programs++] = (struct cr_bpf_program){ data, len };
	p->seccomp_single = single;
	return 0;
}

/* The options that take a file descriptor and set a field. */
static int fd_option(struct parser *p, const char *opt, const char *arg)
{
	struct cr_bwrap *b = p->b;
	struct cr_explicit *ex = &b->policy.ex;
	int fd, r;

	r = parse_fd(p, opt, arg, &fd);
	if (r < 0)
		return r;
	if (strcmp(opt, "--info-fd") == 0)
		b->info_fd = fd;
	else if (strcmp(opt, "--json-status-fd") == 0)
		b->json_status_fd = fd;
	else if (strcmp(opt, "--sync-fd") == 0)
		b->sync_fd = fd;
	else if (strcmp(opt, "--block-fd") == 0)
		ex->block_fd = fd;
	else if (strcmp(opt, "--userns-block-fd") == 0)
		ex->userns_block_fd = fd;
	else if (strcmp(opt, "--userns") == 0)
		b->userns_fd = fd;
	else if (strcmp(opt, "--userns2") == 0)
		b->userns2_fd = fd;
	else if (strcmp(opt, "--pidns") == 0)
		b->pidns_fd = fd;
	else
		return seccomp_option(p, opt, fd);
	return 0;
}

static int parse_list(struct parser *p, int argc, char **argv, int *ret_next);

/* --args FD: NUL-separated options, parsed in place of it, and the descriptor closed. */
static int args_option(struct parser *p, const char *arg)
{
	_cleanup_free_ char *data = NULL;
	_cleanup_free_ char **v = NULL;
	size_t len, n = 0;
	int fd, r, next;

	r = parse_fd(p, "--args", arg, &fd);
	if (r < 0)
		return r;
	if (p->depth >= MAX_ARGS_DEPTH)
		return fail(p, -ELOOP, "--args is nested too deeply");
	r = read_fd(fd, &data, &len);
	(void)close(fd); /* as bwrap does: the command does not get it */
	if (r < 0)
		return fail(p, r, "Failed to load --args: %s", strerror(-r));
	v = calloc(len / 2 + 3, sizeof(char *));
	if (!v)
		return -ENOMEM;
	v[n++] = (char *)"--args";
	for (size_t i = 0; i < len; i += strlen(data + i) + 1) {
		if (i + strlen(data + i) >= len && data[len - 1] != '\0')
			break; /* a last argument without its NUL: bwrap drops it too */
		v[n++] = data + i;
	}
	p->depth++;
	r = parse_list(p, (int)n, v, &next);
	p->depth--;
	if (r < 0)
		return r;
	if (next < (int)n)
		return fail(p, -EINVAL, "--args cannot hold the command");
	/* The strings stay referenced by the policy only as copies: nothing points into data. */
	return 0;
}

/* --bind and its relatives: which kind and flags. */
static const struct {
	const char *name;
	unsigned flags;
} binds[] = {
	{ "--bind", 0 },
	{ "--bind-try", CR_FS_TRY },
	{ "--dev-bind", CR_FS_DEVICES },
	{ "--dev-bind-try", CR_FS_DEVICES | CR_FS_TRY },
	{ "--ro-bind", CR_FS_RO },
	{ "--ro-bind-try", CR_FS_RO | CR_FS_TRY },
};

static int data_option(struct parser *p, const char *opt, const char *fd_arg, const char *dst)
{
	unsigned flags = strcmp(opt, "--file") == 0	     ? 0
			 : strcmp(opt, "--bind-data") == 0 ? CR_FS_BOUND
							     : CR_FS_BOUND | CR_FS_RO;
	struct cr_fs_op *op;
	size_t len;
	char *data;
	int fd, r;

	r = parse_fd(p, opt, fd_arg, &fd);
	if (r < 0)
		return r;
	r = read_fd(fd, &data, &len);
	if (r < 0)
		return fail(p, r, "Can't read %s data from fd %d: %s", opt, fd, strerror(-r));
	(void)close(fd);
	op = add_op(p, CR_FS_FILE, flags, NULL, dst);
	if (!op) {
		free(data);
		return -ENOMEM;
	}
	op->src = data;
	op->size = len;
	return 0;
}

static int overlay_option(struct parser *p, const char *opt, char **args)
{
	struct cr_fs_op *op;
	_cleanup_free_ char *lowers = NULL;
	size_t need_n = strcmp(opt, "--ro-overlay") == 0 ? 2 : 1;
	const char *dst = strcmp(opt, "--overlay") == 0 ? args[2] : args[0];

	if (p->n_overlay_srcs < need_n)
		return fail(p, -EINVAL, "%s requires at least %s --overlay-src", opt,
			    need_n == 2 ? "two" : "one");
	for (size_t i = 0; i < p->n_overlay_srcs; i++) {
		char *l = NULL;

		if (asprintf(&l, "%s%s%s", lowers ?: "", lowers ? "\n" : "", p->overlay_srcs[i]) < 0)
			return -ENOMEM;
		free(lowers);
		lowers = l;
	}
	op = add_op(p, CR_FS_OVERLAY,
		    strcmp(opt, "--tmp-overlay") == 0	 ? CR_FS_TMP_UPPER
		    : strcmp(opt, "--ro-overlay") == 0 ? CR_FS_RO
							 : 0,
		    lowers, dst);
	if (!op)
		return -ENOMEM;
	if (strcmp(opt, "--overlay") == 0 &&
	    (!(op->upper = strdup(args[0])) || !(op->work = strdup(args[1]))))
		return -ENOMEM;
	for (size_t i = 0; i < p->n_overlay_srcs; i++)
		free(p->overlay_srcs[i]);
	p->n_overlay_srcs = 0;
	return 0;
}

static bool is_overlay(const char *opt)
{
	return strcmp(opt, "--overlay") == 0 || strcmp(opt, "--tmp-overlay") == 0 ||
	       strcmp(opt, "--ro-overlay") == 0;
}

/* One filesystem operation; *ret_used: how many arguments it took. -ENOENT: not one. */
static int fs_option(struct parser *p, const char *opt, char **args, int avail, int *ret_used)
{
	static const struct {
		const char *name;
		enum cr_fs_op_kind kind;
	} one[] = {
		{ "--tmpfs", CR_FS_TMPFS }, { "--dir", CR_FS_DIR },	{ "--proc", CR_FS_PROC },
		{ "--dev", CR_FS_DEV },	    { "--mqueue", CR_FS_MQUEUE }, { "--remount-ro", CR_FS_REMOUNT_RO },
	};
	int r;

	for (size_t i = 0; i < ELEMENTSOF(binds); i++)
		if (strcmp(opt, binds[i].name) == 0) {
			if (avail < 2)
				return fail(p, -EINVAL, "%s takes two arguments", opt);
			*ret_used = 2;
			return add_op(p, CR_FS_BIND, binds[i].flags, args[0], args[1]) ? 0 : -ENOMEM;
		}
	for (size_t i = 0; i < ELEMENTSOF(one); i++)
		if (strcmp(opt, one[i].name) == 0) {
			if (avail < 1)
				return fail(p, -EINVAL, "%s takes an argument", opt);
			*ret_used = 1;
			return add_op(p, one[i].kind, 0, NULL, args[0]) ? 0 : -ENOMEM;
		}
	if (strcmp(opt, "--bind-fd") == 0 || strcmp(opt, "--ro-bind-fd") == 0) {
		struct cr_fs_op *op;
		int fd;

		if (avail < 2)
			return fail(p, -EINVAL, "%s takes two arguments", opt);
		r = parse_fd(p, opt, args[0], &fd);
		if (r < 0)
			return r;
		op = add_op(p, CR_FS_BIND_FD, opt[2] == 'r' ? CR_FS_RO : 0, NULL, args[1]);
		if (!op)
			return -ENOMEM;
		op->fd = fd;
		*ret_used = 2;
		return 0;
	}
	if (strcmp(opt, "--symlink") == 0) {
		if (avail < 2)
			return fail(p, -EINVAL, "%s takes two arguments", opt);
		*ret_used = 2;
		return add_op(p, CR_FS_SYMLINK, 0, args[0], args[1]) ? 0 : -ENOMEM;
	}
	if (strcmp(opt, "--chmod") == 0) {
		uint32_t mode;

		if (avail < 2)
			return fail(p, -EINVAL, "%s takes two arguments", opt);
		r = parse_mode(p, args[0], &mode);
		if (r < 0)
			return r;
		p->perms = mode;
		*ret_used = 2;
		return add_op(p, CR_FS_CHMOD, 0, NULL, args[1]) ? 0 : -ENOMEM;
	}
	if (strcmp(opt, "--file") == 0 || strcmp(opt, "--bind-data") == 0 ||
	    strcmp(opt, "--ro-bind-data") == 0) {
		if (avail < 2)
			return fail(p, -EINVAL, "%s takes two arguments", opt);
		*ret_used = 2;
		return data_option(p, opt, args[0], args[1]);
	}
	if (strcmp(opt, "--overlay-src") == 0) {
		char **v;

		if (avail < 1)
			return fail(p, -EINVAL, "%s takes an argument", opt);
		v = reallocarray(p->overlay_srcs, p->n_overlay_srcs + 1, sizeof(char *));
		if (!v || !(v[p->n_overlay_srcs] = strdup(args[0])))
			return -ENOMEM;
		p->overlay_srcs = v;
		p->n_overlay_srcs++;
		*ret_used = 1;
		return 0;
	}
	if (is_overlay(opt)) {
		int n = strcmp(opt, "--overlay") == 0 ? 3 : 1;

		if (avail < n)
			return fail(p, -EINVAL, "%s takes %s", opt,
				    n == 3 ? "three arguments" : "an argument");
		*ret_used = n;
		return overlay_option(p, opt, args);
	}
	return -ENOENT;
}

static int ns_option(struct parser *p, const char *opt)
{
	struct cr_bwrap *b = p->b;
	unsigned *ns = &b->policy.ex.namespaces;

	if (strcmp(opt, "--unshare-all") == 0) {
		/* Everything, the user namespace only where it can be made, as bwrap does. */
		*ns |= CR_NS_PID | CR_NS_NET | CR_NS_IPC | CR_NS_UTS;
		b->unshare_user_try = b->unshare_cgroup_try = true;
	} else if (strcmp(opt, "--share-net") == 0)
		*ns &= ~(unsigned)CR_NS_NET;
	else if (strcmp(opt, "--unshare-user") == 0)
		*ns |= CR_NS_USER;
	else if (strcmp(opt, "--unshare-user-try") == 0)
		b->unshare_user_try = true;
	else if (strcmp(opt, "--unshare-ipc") == 0)
		*ns |= CR_NS_IPC;
	else if (strcmp(opt, "--unshare-pid") == 0)
		*ns |= CR_NS_PID;
	else if (strcmp(opt, "--unshare-net") == 0)
		*ns |= CR_NS_NET;
	else if (strcmp(opt, "--unshare-uts") == 0)
		*ns |= CR_NS_UTS;
	else if (strcmp(opt, "--unshare-cgroup") == 0)
		*ns |= CR_NS_CGROUP;
	else if (strcmp(opt, "--unshare-cgroup-try") == 0)
		b->unshare_cgroup_try = true;
	else
		return -ENOENT;
	return 0;
}

/* The options without an argument that set a flag. */
static int flag_option(struct parser *p, const char *opt)
{
	struct cr_bwrap *b = p->b;

	if (strcmp(opt, "--help") == 0)
		b->help = true;
	else if (strcmp(opt, "--version") == 0)
		b->version = true;
	else if (strcmp(opt, "--level-prefix") == 0)
		b->level_prefix = true;
	else if (strcmp(opt, "--clearenv") == 0)
		env_unset_all(p);
	else if (strcmp(opt, "--new-session") == 0)
		b->policy.ex.new_session = true;
	else if (strcmp(opt, "--die-with-parent") == 0)
		b->die_with_parent = true;
	else if (strcmp(opt, "--as-pid-1") == 0)
		b->policy.ex.as_pid_1 = true;
	else if (strcmp(opt, "--disable-userns") == 0)
		b->policy.ex.nested_userns = false;
	else if (strcmp(opt, "--assert-userns-disabled") == 0)
		b->assert_userns_disabled = true;
	else
		return ns_option(p, opt);
	return 0;
}

static int env_put_kv(struct parser *p, char *kv)
{
	size_t klen = strcspn(kv, "=");
	char **v;

	for (size_t i = 0; i < *p->n_env; i++)
		if (strncmp((*p->env)[i], kv, klen + 1) == 0) {
			free((*p->env)[i]);
			(*p->env)[i] = kv;
			return 0;
		}
	v = reallocarray(*p->env, *p->n_env + 2, sizeof(char *));
	if (!v) {
		free(kv);
		return -ENOMEM;
	}
	v[(*p->n_env)++] = kv;
	v[*p->n_env] = NULL;
	*p->env = v;
	return 0;
}

/* The options with arguments that set a field. -ENOENT: not one of them. */
static int value_option(struct parser *p, const char *opt, char **args, int avail, int *ret_used)
{
	struct cr_bwrap *b = p->b;
	struct cr_policy *pol = &b->policy;

	static const char *const fd_opts[] = {
		"--info-fd", "--json-status-fd", "--sync-fd", "--block-fd", "--userns-block-fd",
		"--userns", "--userns2", "--pidns", "--seccomp", "--add-seccomp-fd",
	};
	*ret_used = 1;
	for (size_t i = 0; i < ELEMENTSOF(fd_opts); i++)
		if (strcmp(opt, fd_opts[i]) == 0)
			return avail < 1 ? fail(p, -EINVAL, "%s takes an argument", opt)
					 : fd_option(p, opt, args[0]);
	if (strcmp(opt, "--setenv") == 0) {
		char *kv = NULL;

		if (avail < 2)
			return fail(p, -EINVAL, "%s takes two arguments", opt);
		*ret_used = 2;
		if (!*args[0] || strchr(args[0], '='))
			return fail(p, -EINVAL, "Environment variable name \"%s\" is not valid", args[0]);
		if (asprintf(&kv, "%s=%s", args[0], args[1]) < 0)
			return -ENOMEM;
		return env_put_kv(p, kv);
	}
	if (avail < 1 && (strcmp(opt, "--unsetenv") == 0 || strcmp(opt, "--argv0") == 0 ||
			  strcmp(opt, "--uid") == 0 || strcmp(opt, "--gid") == 0 ||
			  strcmp(opt, "--hostname") == 0 || strcmp(opt, "--chdir") == 0 ||
			  strcmp(opt, "--lock-file") == 0 || strcmp(opt, "--perms") == 0 ||
			  strcmp(opt, "--size") == 0 || strcmp(opt, "--cap-add") == 0 ||
			  strcmp(opt, "--cap-drop") == 0 || strcmp(opt, "--exec-label") == 0 ||
			  strcmp(opt, "--file-label") == 0 || strcmp(opt, "--args") == 0))
		return fail(p, -EINVAL, "%s takes an argument", opt);
	if (strcmp(opt, "--unsetenv") == 0) {
		env_unset(p, args[0]);
		return 0;
	}
	if (strcmp(opt, "--argv0") == 0) {
		free(pol->ex.argv0);
		pol->ex.argv0 = strdup(args[0]);
		return pol->ex.argv0 ? 0 : -ENOMEM;
	}
	if (strcmp(opt, "--uid") == 0) {
		p->uid_set = true;
		return parse_id(p, args[0], &pol->ex.uid);
	}
	if (strcmp(opt, "--gid") == 0) {
		p->gid_set = true;
		return parse_id(p, args[0], &pol->ex.gid);
	}
	if (strcmp(opt, "--hostname") == 0) {
		free(pol->hostname);
		pol->hostname = strdup(args[0]);
		return pol->hostname ? 0 : -ENOMEM;
	}
	if (strcmp(opt, "--chdir") == 0) {
		b->n_chdir++;
		free(pol->cwd);
		pol->cwd = strdup(args[0]);
		pol->ex.cwd_fallback = false;
		return pol->cwd ? 0 : -ENOMEM;
	}
	if (strcmp(opt, "--lock-file") == 0) {
		size_t n = 0;
		char **v;

		while (pol->ex.lock_files && pol->ex.lock_files[n])
			n++;
		v = reallocarray(pol->ex.lock_files, n + 2, sizeof(char *));
		if (!v)
			return -ENOMEM;
		pol->ex.lock_files = v;
		v[n + 1] = NULL;
		v[n] = strdup(args[0]);
		return v[n] ? 0 : -ENOMEM;
	}
	if (strcmp(opt, "--perms") == 0) {
		if (p->perms != CR_FS_MODE_UNSET)
			return fail(p, -EINVAL, "--perms given twice for the same action");
		return parse_mode(p, args[0], &p->perms);
	}
	if (strcmp(opt, "--size") == 0) {
		if (p->size)
			return fail(p, -EINVAL, "--size given twice for the same action");
		return parse_size(p, args[0], &p->size);
	}
	if (strcmp(opt, "--cap-add") == 0 || strcmp(opt, "--cap-drop") == 0)
		return cap_arg(p, args[0], opt[6] == 'a');
	if (strcmp(opt, "--exec-label") == 0 || strcmp(opt, "--file-label") == 0)
		return fail(p, -EOPNOTSUPP, "%s: SELinux labels are not supported", opt);
	if (strcmp(opt, "--args") == 0)
		return args_option(p, args[0]);
	return -ENOENT;
}

static bool takes_size(enum cr_fs_op_kind k)
{
	return k == CR_FS_TMPFS;
}

static bool takes_perms(enum cr_fs_op_kind k)
{
	return k == CR_FS_TMPFS || k == CR_FS_DIR || k == CR_FS_FILE || k == CR_FS_CHMOD;
}

/* Options from argv[1] until the command: *ret_next is the index of the command's argv[0]
 * (argc when there is none). */
/* Copies of @n parsed arguments, for cr_bwrap.options. */
static int keep_options(struct cr_bwrap *b, char **v, size_t n)
{
	char **a = reallocarray(b->options, b->n_options + n + 1, sizeof(char *));

	if (!a)
		return -ENOMEM;
	b->options = a;
	for (size_t i = 0; i < n; i++) {
		b->options[b->n_options] = strdup(v[i]);
		if (!b->options[b->n_options])
			return -ENOMEM;
		b->options[++b->n_options] = NULL;
	}
	return 0;
}

static int parse_list(struct parser *p, int argc, char **argv, int *ret_next)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *opt = argv[i];
		size_t n_ops = p->b->policy.n_fs_ops;
		bool perms = p->perms != CR_FS_MODE_UNSET, size = p->size != 0;
		int used = 0, r;

		if (strcmp(opt, "--") == 0) {
			i++;
			break;
		}
		if (strncmp(opt, "--", 2) != 0)
			break;
		if (p->n_overlay_srcs && strcmp(opt, "--overlay-src") != 0 && !is_overlay(opt))
			return fail(p, -EINVAL,
				    "--overlay-src must be followed by another --overlay-src or one of --overlay, --tmp-overlay, or --ro-overlay");
		r = flag_option(p, opt);
		if (r == -ENOENT)
			r = fs_option(p, opt, argv + i + 1, argc - i - 1, &used);
		if (r == -ENOENT)
			r = value_option(p, opt, argv + i + 1, argc - i - 1, &used);
		if (r == -ENOENT)
			return fail(p, -EINVAL, "Unknown option %s", opt);
		if (r < 0)
			return r;
		if (p->b->policy.n_fs_ops > n_ops) {
			enum cr_fs_op_kind k = p->b->policy.fs_ops[n_ops].kind;

			if (perms && !takes_perms(k))
				return fail(p, -EINVAL, "--perms must be followed by an option that creates a file");
			if (size && !takes_size(k))
				return fail(p, -EINVAL, "--size must be followed by --tmpfs");
		}
		/* --args' own options were kept as its parse went */
		r = strcmp(opt, "--args") == 0 ? 0 : keep_options(p->b, argv + i, (size_t)used + 1);
		if (r < 0)
			return r;
		i += used;
	}
	if (p->n_overlay_srcs)
		return fail(p, -EINVAL,
			    "--overlay-src must be followed by another --overlay-src or one of --overlay, --tmp-overlay, or --ro-overlay");
	*ret_next = i;
	return 0;
}

static void env_unset_all(struct parser *p)
{
	for (size_t i = 0; i < *p->n_env; i++)
		free((*p->env)[i]);
	*p->n_env = 0;
	if (*p->env)
		(*p->env)[0] = NULL;
}

static int copy_env(char ***ret, size_t *ret_n)
{
	size_t n = 0;
	char **v;

	while (environ && environ[n])
		n++;
	v = calloc(n + 1, sizeof(char *));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!(v[i] = strdup(environ[i]))) {
			strv_freep(&v);
			return -ENOMEM;
		}
	*ret = v;
	*ret_n = n;
	return 0;
}

/* What follows from the options together, as bwrap decides it. */
static int finish(struct parser *p, uint32_t uid, uint32_t gid)
{
	struct cr_bwrap *b = p->b;
	struct cr_explicit *ex = &b->policy.ex;

	if (ex->userns_block_fd >= 0 && !(ex->namespaces & CR_NS_USER))
		return fail(p, -EINVAL, "--userns-block-fd requires --unshare-user");
	if (ex->userns_block_fd >= 0 && b->info_fd < 0)
		return fail(p, -EINVAL, "--userns-block-fd requires --info-fd");
	if (b->userns_fd >= 0 && (ex->namespaces & CR_NS_USER))
		return fail(p, -EINVAL, "--userns not compatible --unshare-user");
	if (b->userns_fd >= 0 && b->unshare_user_try)
		return fail(p, -EINVAL, "--userns not compatible --unshare-user-try");
	if (!ex->nested_userns && !(ex->namespaces & CR_NS_USER))
		return fail(p, -EINVAL, "--disable-userns requires --unshare-user");
	if (!ex->nested_userns && ex->userns_block_fd >= 0)
		return fail(p, -EINVAL, "--disable-userns is not compatible with  --userns-block-fd");
	/* Without privileges mounting needs a user namespace: always one, then. */
	if (uid != 0 && b->userns_fd < 0)
		ex->namespaces |= CR_NS_USER;
	if (b->unshare_user_try && access("/proc/self/ns/user", F_OK) == 0)
		ex->namespaces |= CR_NS_USER;
	if (b->unshare_cgroup_try && access("/proc/self/ns/cgroup", F_OK) == 0)
		ex->namespaces |= CR_NS_CGROUP;
	if (!p->uid_set)
		ex->uid = uid;
	if (!p->gid_set)
		ex->gid = gid;
	if (!(ex->namespaces & CR_NS_USER) && b->userns_fd < 0 && ex->uid != uid)
		return fail(p, -EINVAL, "Specifying --uid requires --unshare-user or --userns");
	if (!(ex->namespaces & CR_NS_USER) && b->userns_fd < 0 && ex->gid != gid)
		return fail(p, -EINVAL, "Specifying --gid requires --unshare-user or --userns");
	if (!(ex->namespaces & CR_NS_UTS) && b->policy.hostname)
		return fail(p, -EINVAL, "Specifying --hostname requires --unshare-uts");
	if (ex->as_pid_1 && !(ex->namespaces & CR_NS_PID))
		return fail(p, -EINVAL, "Specifying --as-pid-1 requires --unshare-pid");
	if (ex->as_pid_1 && ex->lock_files)
		return fail(p, -EINVAL, "Specifying --as-pid-1 and --lock-file is not permitted");
	ex->assert_no_userns = b->assert_userns_disabled;
	ex->userns_fd = b->userns_fd;
	ex->pidns_fd = b->pidns_fd;
	if (b->userns2_fd >= 0 && b->userns_fd < 0)
		return fail(p, -EINVAL, "--userns2 requires --userns");
	ex->userns2_fd = b->userns2_fd;
	/* Not silently ignored: the caller would write the id maps itself, which corral does. */
	if (ex->userns_block_fd >= 0)
		return fail(p, -EOPNOTSUPP, "--userns-block-fd is not supported");
	ex->caps = p->caps;
	ex->caps_inheritable = p->caps_used;
	b->policy.net = ex->namespaces & CR_NS_NET ? CR_NET_NONE : CR_NET_HOST;
	return 0;
}

int cr_bwrap_parse(int argc, char **argv, uint32_t uid, uint32_t gid, uint64_t caller_caps,
		   enum cr_bwrap_mode mode, struct cr_bwrap *b, char *msg, size_t size)
{
	size_t n_env = 0;
	struct parser p = { .b = b, .env = &b->policy.env, .n_env = &n_env,
			    .perms = CR_FS_MODE_UNSET,
			    /* bwrap leaves a root caller's command its capabilities; hardened, only
			     * those --cap-add names: with them it could undo everything else */
			    .caps = uid == 0 && mode == CR_BWRAP_COMPAT ? caller_caps : 0,
			    .msg = msg, .msg_size = size };
	char cwd[PATH_MAX];
	int next, r;

	*b = (struct cr_bwrap){
		.mode = mode, .info_fd = -1, .json_status_fd = -1, .sync_fd = -1,
		.userns_fd = -1, .userns2_fd = -1, .pidns_fd = -1,
		.policy = { .landlock = CR_LANDLOCK_OFF, .seccomp = CR_SECCOMP_OFF,
			    .ex = { .on = true, .nested_userns = true, .cwd_fallback = true,
				    .block_fd = -1, .ready_fd = -1, .userns_block_fd = -1,
				    .userns_fd = -1, .userns2_fd = -1, .pidns_fd = -1 } },
	};
	msg[0] = '\0';
	r = copy_env(&b->policy.env, &n_env);
	if (r >= 0 && getcwd(cwd, sizeof(cwd)) && !(b->policy.cwd = strdup(cwd)))
		r = -ENOMEM;
	if (r >= 0)
		r = parse_list(&p, argc, argv, &next);
	for (size_t i = 0; i < p.n_overlay_srcs; i++)
		free(p.overlay_srcs[i]);
	free(p.overlay_srcs);
	if (r < 0 || b->help || b->version)
		return r;
	if (next >= argc)
		return fail(&p, -EINVAL, "No command specified");
	r = finish(&p, uid, gid);
	if (r < 0)
		return r;
	b->policy.argv = calloc((size_t)(argc - next) + 1, sizeof(char *));
	if (!b->policy.argv)
		return -ENOMEM;
	for (int i = next; i < argc; i++)
		if (!(b->policy.argv[i - next] = strdup(argv[i])))
			return -ENOMEM;
	return 0;
}

void cr_bwrap_done(struct cr_bwrap *b)
{
	strv_freep(&b->options);
	strv_freep(&b->policy.argv);
	cr_policy_done(&b->policy);
}
