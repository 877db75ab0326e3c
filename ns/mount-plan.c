/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/policy/limits.h"
#include "launcher/base/macro.h"
#include "mount-plan.h"
#include "launcher/base/path-util.h"

/* Shown read-only when present. On merged-/usr hosts /bin, /sbin and /lib* are symlinks and are
 * recreated as symlinks. */
const char *const cr_mount_plan_system_dirs[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", NULL,
};

const char *const cr_mount_plan_machine_id_files[] = {
	"/etc/machine-id", "/var/lib/dbus/machine-id", NULL,
};

/* Kernel knobs that a fresh procfs still exposes writably to a namespace's root. */
static const struct {
	const char *path;
	unsigned flags;
} proc_rdonly[] = {
	{ "/proc/sys", 0 },
	{ "/proc/sysrq-trigger", CR_MNT_FILE }, /* only with CONFIG_MAGIC_SYSRQ */
	{ "/proc/irq", 0 },
	{ "/proc/bus", 0 },
};

static const char *const dev_nodes[] = { "null", "zero", "full", "random", "urandom", "tty" };

static const char *const dev_links[][2] = {
	{ "/dev/ptmx", "pts/ptmx" },
	{ "/dev/fd", "/proc/self/fd" },
	{ "/dev/stdin", "/proc/self/fd/0" },
	{ "/dev/stdout", "/proc/self/fd/1" },
	{ "/dev/stderr", "/proc/self/fd/2" },
};

static int host_readlink(const char *path, char **ret_target)
{
	char buf[PATH_MAX];
	ssize_t n;

	n = readlink(path, buf, sizeof(buf) - 1);
	if (n < 0)
		return negative_errno();
	buf[n] = '\0';
	*ret_target = strdup(buf);
	return *ret_target ? 0 : -ENOMEM;
}

static bool host_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static bool host_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* 128 random bits, as the format of machine-id(5) asks. */
static int host_machine_id(char ret[CR_MACHINE_ID_SIZE])
{
	uint8_t b[16];

	if (getrandom(b, sizeof(b), 0) != sizeof(b))
		return negative_errno();
	for (size_t i = 0; i < sizeof(b); i++)
		(void)snprintf(ret + 2 * i, 3, "%02x", b[i]);
	ret[32] = '\n';
	ret[33] = '\0';
	return 0;
}

const struct cr_host_view cr_host_view_real = {
	.readlink = host_readlink,
	.exists = host_exists,
	.is_dir = host_is_dir,
	.machine_id = host_machine_id,
};

const char *cr_mount_kind_to_string(enum cr_mount_kind kind)
{
	static const char *const names[_CR_MOUNT_KIND_MAX] = {
		[CR_MOUNT_BIND] = "bind",     [CR_MOUNT_TMPFS] = "tmpfs",
		[CR_MOUNT_PROC] = "proc",     [CR_MOUNT_DEVPTS] = "devpts",
		[CR_MOUNT_DEVICE] = "device", [CR_MOUNT_SYMLINK] = "symlink",
		[CR_MOUNT_NULL] = "hide",     [CR_MOUNT_RDONLY] = "rdonly",
		[CR_MOUNT_TEXT] = "text",     [CR_MOUNT_DIR] = "dir",
		[CR_MOUNT_CHMOD] = "chmod",   [CR_MOUNT_REMOUNT_RO] = "remount-ro",
		[CR_MOUNT_MQUEUE] = "mqueue", [CR_MOUNT_DATA] = "data",
		[CR_MOUNT_OVERLAY] = "overlay", [CR_MOUNT_OVERLAY_SRC] = "overlay-src",
		[CR_MOUNT_PROPAGATION] = "propagation", [CR_MOUNT_NODE] = "node",
		[CR_MOUNT_SYSFS] = "sysfs",
	};

	return kind < _CR_MOUNT_KIND_MAX ? names[kind] : "?";
}

int cr_mount_plan_add(struct cr_mount_plan *plan, enum cr_mount_kind kind, unsigned flags,
		      unsigned mode, const char *src, const char *dst)
{
	struct cr_mount_op *ops, *op;

	ops = reallocarray(plan->ops, plan->n_ops + 1, sizeof(*ops));
	if (!ops)
		return -ENOMEM;
	plan->ops = ops;
	op = &ops[plan->n_ops];
	*op = (struct cr_mount_op){ .kind = kind, .flags = flags, .mode = mode, .src_fd = -EBADF };
	op->src = src ? strdup(src) : NULL;
	op->dst = strdup(dst);
	plan->n_ops++;
	if ((src && !op->src) || !op->dst)
		return -ENOMEM;
	return 0;
}

#define add cr_mount_plan_add

static int add_system(struct cr_mount_plan *plan, const struct cr_host_view *host)
{
	int r = 0;

	for (size_t i = 0; i < ELEMENTSOF(cr_mount_plan_system_dirs) - 1 && r >= 0; i++) {
		_cleanup_free_ char *target = NULL;

		if (!host->exists(cr_mount_plan_system_dirs[i]))
			continue;
		if (host->readlink(cr_mount_plan_system_dirs[i], &target) == 0)
			r = add(plan, CR_MOUNT_SYMLINK, 0, 0, target, cr_mount_plan_system_dirs[i]);
		else
			r = add(plan, CR_MOUNT_BIND, CR_MNT_OPTIONAL, 0, cr_mount_plan_system_dirs[i], cr_mount_plan_system_dirs[i]);
	}
	return r;
}

static int add_proc_dev_tmp(struct cr_mount_plan *plan)
{
	char dst[32];
	int r;

	r = add(plan, CR_MOUNT_PROC, 0, 0, NULL, "/proc");
	for (size_t i = 0; i < ELEMENTSOF(proc_rdonly) && r >= 0; i++)
		r = add(plan, CR_MOUNT_RDONLY, CR_MNT_OPTIONAL | proc_rdonly[i].flags, 0, NULL,
			proc_rdonly[i].path);
	if (r >= 0)
		r = add(plan, CR_MOUNT_TMPFS, 0, 0755, NULL, "/dev");
	for (size_t i = 0; i < ELEMENTSOF(dev_nodes) && r >= 0; i++) {
		(void)snprintf(dst, sizeof(dst), "/dev/%s", dev_nodes[i]);
		r = add(plan, CR_MOUNT_DEVICE, CR_MNT_FILE | CR_MNT_OPTIONAL, 0, dst, dst);
	}
	if (r >= 0)
		r = add(plan, CR_MOUNT_DEVPTS, CR_MNT_WRITABLE, 0, NULL, "/dev/pts");
	if (r >= 0)
		r = add(plan, CR_MOUNT_TMPFS, CR_MNT_WRITABLE, 01777, NULL, "/dev/shm");
	for (size_t i = 0; i < ELEMENTSOF(dev_links) && r >= 0; i++)
		r = add(plan, CR_MOUNT_SYMLINK, 0, 0, dev_links[i][1], dev_links[i][0]);
	if (r >= 0)
		r = add(plan, CR_MOUNT_TMPFS, CR_MNT_WRITABLE, 01777, NULL, "/tmp");
	return r;
}

/* Is @path inside something the plan already shows from the host? */
static bool shown_from_host(const struct cr_policy *p, const char *path)
{
	for (size_t i = 0; i < ELEMENTSOF(cr_mount_plan_system_dirs) - 1; i++)
		if (cr_path_is_within(path, cr_mount_plan_system_dirs[i]))
			return true;
	if (cr_path_is_within(path, p->workspace))
		return true;
	for (size_t i = 0; i < p->n_paths; i++)
		if (p->paths[i].access != CR_PATH_HIDE && cr_path_is_within(path, p->paths[i].path))
			return true;
	return false;
}

struct ordered_rule {
	struct cr_path_rule rule;
	const char *src; /* the host directory shown at rule.path: itself but for a cache */
	bool pin;
	unsigned depth;
	size_t index;
};

static bool home_is_special(const char *home)
{
	return strcmp(home, "/") == 0 || strcmp(home, "/tmp") == 0 || strcmp(home, "/dev/shm") == 0 ||
	       cr_path_is_within(home, "/proc") || cr_path_is_within(home, "/dev");
}

static int cmp_depth(const void *a, const void *b)
{
	const struct ordered_rule *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	/* Same depth: keep command-line order, so a later rule for the same path wins. */
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The workspace, the user's paths, the pins (writable, each inside one of those), then the
 * caches (each its directory in the state directory, shown writable at its path). */
static struct ordered_rule *order_rules(const struct cr_policy *p, size_t n)
{
	struct ordered_rule *rules = calloc(n, sizeof(*rules));
	size_t first_cache = 1 + p->n_paths + p->n_pins;

	if (!rules)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (i == 0)
			rules[i].rule = (struct cr_path_rule){
				p->workspace, p->workspace_ro ? CR_PATH_RO : CR_PATH_RW };
		else if (i <= p->n_paths)
			rules[i].rule = p->paths[i - 1];
		else if (i < first_cache)
			rules[i].rule = (struct cr_path_rule){ p->pins[i - 1 - p->n_paths], CR_PATH_RW };
		else
			rules[i].rule = (struct cr_path_rule){ p->caches[i - first_cache].path,
							       CR_PATH_RW };
		rules[i].src = i < first_cache ? rules[i].rule.path : p->caches[i - first_cache].dir;
		rules[i].pin = i > p->n_paths && i < first_cache;
		rules[i].depth = cr_path_depth(rules[i].rule.path);
		rules[i].index = i;
	}
	qsort(rules, n, sizeof(*rules), cmp_depth);
	return rules;
}

static int add_user(const struct cr_policy *p, struct cr_mount_plan *plan,
		    const struct cr_host_view *host)
{
	size_t n = p->n_paths + p->n_pins + p->n_caches + 1;
	_cleanup_free_ struct ordered_rule *rules = order_rules(p, n);
	int r = 0;

	if (!rules)
		return -ENOMEM;
	for (size_t i = 0; i < n && r >= 0; i++) {
		const struct cr_path_rule *u = &rules[i].rule;
		unsigned file;

		if (!rules[i].src) /* a cache without its directory: cr_caches_attach() not run */
			return -EINVAL;
		file = host->is_dir(rules[i].src) ? 0 : CR_MNT_FILE;
		if (u->access == CR_PATH_HIDE)
			r = file ? add(plan, CR_MOUNT_NULL, CR_MNT_FILE, 0, "/dev/null", u->path)
				 : add(plan, CR_MOUNT_TMPFS, 0, 0755, NULL, u->path);
		else
			r = add(plan, CR_MOUNT_BIND,
				file | (u->access == CR_PATH_RW ? CR_MNT_WRITABLE : 0) |
					(rules[i].pin ? CR_MNT_PIN : 0),
				0, rules[i].src, u->path);
	}
	return r;
}

static bool hidden_by_user(const struct cr_policy *p, const char *path)
{
	for (size_t i = 0; i < p->n_paths; i++)
		if (p->paths[i].access == CR_PATH_HIDE && cr_path_is_within(path, p->paths[i].path))
			return true;
	return false;
}

/* The host's machine id is a stable identifier of it: each file that holds one and that the
 * sandbox shows gets the same random id, last, so that no user path shows the host's again. A
 * symbolic link (/var/lib/dbus/machine-id -> /etc/machine-id) leads to a covered file or to
 * nothing shown. */
static int add_machine_id(const struct cr_policy *p, struct cr_mount_plan *plan,
			  const struct cr_host_view *host)
{
	char text[CR_MACHINE_ID_SIZE] = "";
	int r = 0;

	for (size_t i = 0; cr_mount_plan_machine_id_files[i] && r >= 0; i++) {
		const char *path = cr_mount_plan_machine_id_files[i];
		_cleanup_free_ char *target = NULL;

		if (!shown_from_host(p, path) || hidden_by_user(p, path) || !host->exists(path) ||
		    host->is_dir(path) || host->readlink(path, &target) == 0)
			continue;
		if (!text[0])
			r = host->machine_id(text);
		if (r >= 0)
			r = add(plan, CR_MOUNT_TEXT, CR_MNT_FILE, 0444, text, path);
	}
	return r;
}

/* Each --secret-file value as CR_SECRETS_DIR/NAME: mode 0400, made by pid 1 after it took the
 * sandbox's uid, so that the command owns it; the tmpfs is sealed read-only after setup. */
static int add_secrets(const struct cr_policy *p, struct cr_mount_plan *plan)
{
	bool any = false;
	int r = 0;

	for (size_t i = 0; i < p->n_secrets && r >= 0; i++) {
		char dst[PATH_MAX];

		if (p->secrets[i].kind != CR_SECRET_FILE)
			continue;
		if (!any)
			r = add(plan, CR_MOUNT_TMPFS, CR_MNT_SECRET, 0500, NULL, CR_SECRETS_DIR);
		any = true;
		(void)snprintf(dst, sizeof(dst), "%s/%s", CR_SECRETS_DIR, p->secrets[i].name);
		if (r >= 0)
			r = add(plan, CR_MOUNT_TEXT, CR_MNT_FILE | CR_MNT_SECRET, 0400,
				p->secrets[i].value, dst);
	}
	return r;
}

int cr_mount_plan_build(const struct cr_policy *p, const struct cr_host_view *host,
			struct cr_mount_plan *ret)
{
	struct cr_mount_plan plan = {};
	int r;

	if (p->ex.on) {
		r = cr_mount_plan_explicit(p, host, &plan);
		if (r < 0) {
			cr_mount_plan_done(&plan);
			return r;
		}
		*ret = plan;
		return 0;
	}
	r = add_system(&plan, host);
	if (r >= 0)
		r = add_proc_dev_tmp(&plan);
	/* A private, empty $HOME unless the host's is shown on purpose, or it is a directory the
	 * sandbox makes anyway (HOME=/tmp: covering /tmp with a 0700 tmpfs would break it). */
	if (r >= 0 && !home_is_special(p->home) && !shown_from_host(p, p->home))
		r = add(&plan, CR_MOUNT_TMPFS, CR_MNT_WRITABLE, 0700, NULL, p->home);
	if (r >= 0)
		r = add_user(p, &plan, host);
	if (r >= 0)
		r = add_machine_id(p, &plan, host);
	if (r >= 0)
		r = add_secrets(p, &plan);
	if (r < 0) {
		cr_mount_plan_done(&plan);
		return r;
	}
	*ret = plan;
	return 0;
}

void cr_mount_plan_done(struct cr_mount_plan *plan)
{
	for (size_t i = 0; i < plan->n_ops; i++) {
		if (plan->ops[i].src && (plan->ops[i].flags & CR_MNT_SECRET))
			explicit_bzero(plan->ops[i].src, strlen(plan->ops[i].src));
		free(plan->ops[i].src);
		free(plan->ops[i].dst);
		closep(&plan->ops[i].src_fd);
	}
	free(plan->ops);
	*plan = (struct cr_mount_plan){};
}

#define TMPFS_PAGE 4096ull
/* A sized tmpfs gets one inode per TMPFS_BYTES_PER_INODE (8 KiB) of its size, the ratio tmpfs's
 * own default has to the RAM (as many inodes as half the RAM's pages), and at least
 * TMPFS_MIN_INODES, so that a small one still holds a fair number of files. */
#define TMPFS_BYTES_PER_INODE 8192
#define TMPFS_MIN_INODES      1024

const char *cr_tmpfs_basis_to_string(enum cr_tmpfs_basis basis)
{
	static const char *const names[_CR_TMPFS_BASIS_MAX] = {
		[CR_TMPFS_RAM] = "ram",
		[CR_TMPFS_CGROUP] = "memory_cgroup",
		[CR_TMPFS_SHARED] = "memory_limit_shared",
	};

	return basis < _CR_TMPFS_BASIS_MAX ? names[basis] : "?";
}

/* The share of the budget @op gets, as a divisor: /tmp 2, /dev/shm and $HOME 4, so that they
 * add up to the budget. Anything else writable (none today) shares $HOME's quarter. */
static unsigned tmpfs_divisor(const struct cr_mount_op *op)
{
	return strcmp(op->dst, "/tmp") == 0 ? 2 : 4;
}

enum cr_tmpfs_basis cr_mount_plan_size_tmpfs(struct cr_mount_plan *plan, uint64_t ram,
					     uint64_t memory, bool charged)
{
	bool limited = cr_limit_is_finite(memory);
	enum cr_tmpfs_basis basis = !limited ? CR_TMPFS_RAM : charged ? CR_TMPFS_CGROUP
								      : CR_TMPFS_SHARED;
	uint64_t budget = ram ? ram / 4 : CR_DEFAULT_MEMORY_MIN / 4; /* 0: unknown */

	if (basis == CR_TMPFS_CGROUP)
		budget = memory < ram / 2 || ram == 0 ? memory : ram / 2;
	else if (limited && memory < budget)
		budget = memory;
	for (size_t i = 0; i < plan->n_ops; i++) {
		struct cr_mount_op *op = &plan->ops[i];
		uint64_t size = budget;

		if (op->kind != CR_MOUNT_TMPFS || !(op->flags & CR_MNT_WRITABLE) ||
		    (op->flags & CR_MNT_SIZED))
			continue;
		if (basis != CR_TMPFS_CGROUP)
			size /= tmpfs_divisor(op);
		size &= ~(TMPFS_PAGE - 1);
		op->size = size ? size : TMPFS_PAGE; /* size=0 would mean no limit at all */
		op->nr_inodes = op->size / TMPFS_BYTES_PER_INODE > TMPFS_MIN_INODES
					? op->size / TMPFS_BYTES_PER_INODE
					: TMPFS_MIN_INODES;
	}
	return basis;
}
