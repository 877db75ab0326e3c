/* SPDX-License-Identifier: MIT */
/* The cgroups of one run. cgroup v2 first: a per-run directory under a writable, delegated parent
 * ("<cgroup2>/corral" for root, the own cgroup for a user), limits written there, the child cloned
 * straight into it (CLONE_INTO_CGROUP). Controllers v2 lacks here come from the v1 hierarchies
 * (memory, pids, cpu), which the child joins itself, first thing after its sync byte, through
 * the tasks files the parent opened (cr_cgroup_join()). What no cgroup can hold falls back to an
 * rlimit set by the sandbox's pid 1. Everything here runs in the launcher but cr_cgroup_join(),
 * which runs in the child; nothing prints. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launcher/base/log.h"
#include "cgroup-internal.h"
#include "cgroup.h"
#include "place.h"
#include "probe.h"
#include "resources.h"
#include "launcher/base/macro.h"
#include "launcher/base/time-util.h"

#define LAUNCHER_LEAF "corral-launcher"
/* --cpu is in thousandths of a CPU: a quota of CPU_QUOTA_PER_MILLI µs per CPU_PERIOD_US period
 * for each. 100 ms is the kernel's default period (cpu.max "max 100000"). */
#define CPU_PERIOD_US       100000
#define CPU_QUOTA_PER_MILLI (CPU_PERIOD_US / 1000)

/* Removing a run's cgroup waits for its processes to die, which the kernel does asynchronously
 * after cgroup.kill or SIGKILL: rmdir is retried every DESTROY_DELAY_NS (1 ms, short next to a
 * run's teardown, long enough not to spin), at most DESTROY_TRIES times (2 s in all: killed
 * processes are gone well within it, and a launcher must not hang on a cgroup that never
 * empties). Every DESTROY_REKILL_EVERY tries (100 ms) the kill is sent again, for processes that
 * were forked while the previous one was delivered. */
#define DESTROY_TRIES        2000
#define DESTROY_DELAY_NS     1000000L
#define DESTROY_REKILL_EVERY 100

struct cg_dir {
	int fd; /* the run's directory, or -EBADF */
	char path[PATH_MAX];
};

struct cr_cgroup {
	struct cg_dir v2;
	struct cg_dir v1[_CR_CTL_MAX];
	int v1_tasks[_CR_CTL_MAX]; /* tasks files for cr_cgroup_join(); -EBADF: none, co-mounted */
	unsigned v2_ctls; /* bit per enum cr_cgroup_ctl */
	/* v1 controllers whose run directories cr_cgroup_realize() makes after clone; their limits
	 * are reported as written there. path holds the base directory until then. */
	unsigned pending;
	bool memsw; /* with memory pending: the hierarchy accounts swap (memory.memsw.*) */
	/* The files of cr_cgroup_counters(), opened on first use, then read with pread(): a warm
	 * sandbox reads them twice per exec. -EBADF: not opened yet; other negatives: none. */
	int oom_fd, pids_fd;
	struct cr_limits_report rep;
	struct cr_rlimits rl;
	double setup_ms;
	bool placed; /* the caller's own cgroup (place.h): neither swept nor removed here */
};

static int write_at(int dfd, const char *file, const char *fmt, ...) _printf_(3, 4);
static int write_at(int dfd, const char *file, const char *fmt, ...)
{
	_cleanup_close_ int fd = -EBADF;
	char buf[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = openat(dfd, file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (write(fd, buf, (size_t)n) != n)
		return negative_errno();
	return 0;
}

int cr_cg_write_text(int dfd, const char *file, const char *text)
{
	_cleanup_close_ int fd = openat(dfd, file, O_WRONLY | O_CLOEXEC);
	ssize_t len = (ssize_t)strlen(text);

	if (fd < 0)
		return negative_errno();
	return write(fd, text, (size_t)len) == len ? 0 : negative_errno();
}

int cr_cg_read_at(int dfd, const char *file, char *buf, size_t size)
{
	_cleanup_close_ int fd = openat(dfd, file, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return negative_errno();
	n = read(fd, buf, size - 1);
	if (n < 0)
		return negative_errno();
	buf[n] = '\0';
	return 0;
}

/* The number after "@key " on a line of a flat-keyed file (memory.events, pids.events), read
 * from the start of @fd, which is opened from @dfd/@file on first use (*@fd -EBADF). 0 when
 * there is no such file or line. */
static uint64_t read_key(int *fd, int dfd, const char *file, const char *key)
{
	char buf[1024];
	size_t n = strlen(key);
	ssize_t len;

	if (*fd == -EBADF)
		*fd = dfd >= 0 ? openat(dfd, file, O_RDONLY | O_CLOEXEC) : -ENOENT;
	if (*fd < 0)
		return *fd = -ENOENT, 0;
	len = pread(*fd, buf, sizeof(buf) - 1, 0);
	if (len < 0)
		return 0;
	buf[len] = '\0';
	for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, key, n) == 0 && l[n] == ' ')
			return strtoull(l + n + 1, NULL, 10);
	return 0;
}

bool cr_cg_has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; *p; p += strcspn(p, " \n"), p += strspn(p, " \n"))
		if (strncmp(p, word, n) == 0 && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

/* --- discovery, once per process ---------------------------------------------------------- */

const struct cr_cgroup_host *cr_cg_host(void)
{
	static struct cr_cgroup_host h;
	static bool done;

	if (!done && cr_cgroup_discover_usual("/proc/self/cgroup", &h) < 0 &&
	    cr_cgroup_discover("/proc/self/mountinfo", "/proc/self/cgroup", &h) < 0)
		h = (struct cr_cgroup_host){};
	done = true;
	return &h;
}

static unsigned needed_ctls(const struct cr_limits *l)
{
	unsigned need = 0;

	if (cr_limit_is_finite(l->value[CR_LIMIT_MEMORY]) ||
	    cr_limit_is_finite(l->value[CR_LIMIT_MEMORY_SWAP]))
		need |= 1u << CR_CTL_MEMORY;
	if (cr_limit_is_finite(l->value[CR_LIMIT_PIDS]))
		need |= 1u << CR_CTL_PIDS;
	if (cr_limit_is_finite(l->value[CR_LIMIT_CPU]))
		need |= 1u << CR_CTL_CPU;
	return need;
}

/* --- stale run directories and teardown ----------------------------------------------------- */

static int destroy_dir(const char *path, bool v2);

/* The cgroups a sandbox made under its own (a corral run inside it, with the cgroup file system
 * bound in): each must go before its parent can. */
static void destroy_children(const char *path, bool v2, unsigned depth)
{
	DIR *d = depth < 8 ? opendir(path) : NULL;
	struct dirent *de;
	char child[PATH_MAX];

	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.' &&
		    snprintf(child, sizeof(child), "%s/%s", path, de->d_name) < (int)sizeof(child)) {
			destroy_children(child, v2, depth + 1);
			(void)destroy_dir(child, v2);
		}
	(void)closedir(d);
}

/* Kill what is in @path, then remove it. The processes die asynchronously; rmdir is retried.
 * The usual case, an empty directory (its processes were reaped), is one rmdir(). */
static int destroy_dir(const char *path, bool v2)
{
	_cleanup_close_ int fd = -EBADF;
	char procs[4096];

	if (rmdir(path) == 0 || errno == ENOENT)
		return 0;
	if (errno != EBUSY)
		return negative_errno();
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : negative_errno();
	destroy_children(path, v2, 0);
	for (int i = 0; i < DESTROY_TRIES; i++) {
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return negative_errno();
		if (i % DESTROY_REKILL_EVERY == 0 && v2 && write_at(fd, "cgroup.kill", "1") == 0)
			continue;
		if (i % DESTROY_REKILL_EVERY == 0 &&
		    cr_cg_read_at(fd, "cgroup.procs", procs, sizeof(procs)) == 0)
			for (char *p = procs; *p; p += strcspn(p, "\n"), p += strspn(p, "\n"))
				(void)kill((pid_t)atoi(p), SIGKILL);
		(void)nanosleep(&(struct timespec){.tv_nsec = DESTROY_DELAY_NS}, NULL);
	}
	return -EBUSY;
}

/* Remove the run directories of launchers that are gone (killed with SIGKILL: they could not
 * clean up). A pid that was reused keeps its directory until that process is gone too. */
static void remove_stale(const char *base, bool v2, bool own_made)
{
	DIR *d = NULL;
	struct dirent *de;
	struct stat st;
	char path[PATH_MAX];

	/* A cgroup directory's link count is 2 plus its subdirectories (kernfs): when the run's
	 * own (@own_made: not deferred) is the only one, nothing is stale and the directory need
	 * not be read. */
	if (stat(base, &st) == 0 && st.st_nlink <= (own_made ? 3u : 2u))
		return;
	d = opendir(base);
	if (!d)
		return;
	while ((de = readdir(d))) {
		int pid = 0;
		unsigned n;

		if (sscanf(de->d_name, "run-%d-%u", &pid, &n) != 2 || pid <= 0 || pid == getpid())
			continue;
		if (kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", base, de->d_name) < (int)sizeof(path))
			(void)destroy_dir(path, v2);
	}
	(void)closedir(d);
}

static int make_run_dir(const char *base, bool v2, struct cg_dir *ret)
{
	static unsigned counter;
	char path[PATH_MAX];
	int fd, n;

	n = snprintf(path, sizeof(path), "%s/run-%d-%u", base, getpid(), ++counter);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	if (mkdir(path, 0755) < 0)
		return negative_errno();
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int r = negative_errno();

		(void)rmdir(path);
		return r;
	}
	ret->fd = fd;
	(void)strlcpy(ret->path, path, sizeof(ret->path));
	return 0;
}

/* --- cgroup v2 ---------------------------------------------------------------------------- */

/* Enable the controllers in @need (those the directory offers) for @dir's children. */
static int v2_enable(const char *dir, unsigned need)
{
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char avail[256], on[256];

	if (fd < 0 || cr_cg_read_at(fd, "cgroup.controllers", avail, sizeof(avail)) < 0 ||
	    cr_cg_read_at(fd, "cgroup.subtree_control", on, sizeof(on)) < 0)
		return negative_errno();
	for (int c = 0; c < _CR_CTL_MAX; c++) {
		const char *name = cr_cgroup_ctl_name(c);
		int r;

		if (!(need & (1u << c)) || cr_cg_has_word(on, name) || !cr_cg_has_word(avail, name))
			continue;
		r = write_at(fd, "cgroup.subtree_control", "+%s", name);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Whether @dfd's cgroup.procs lists no process (@self_ok: none but corral itself). */
int cr_cg_procs_empty(int dfd, bool self_ok)
{
	char procs[4096];
	int self = getpid();

	if (cr_cg_read_at(dfd, "cgroup.procs", procs, sizeof(procs)) < 0)
		return negative_errno();
	for (char *p = procs; *p; p += strcspn(p, "\n"), p += strspn(p, "\n"))
		if (!self_ok || atoi(p) != self)
			return false;
	return true;
}

/* The no-internal-process rule: a cgroup whose children get controllers must hold no process.
 * A user's corral alone in its delegated cgroup (systemd-run --user --scope -p Delegate=yes
 * corral ...) moves itself into a leaf there, as nsjail and crun do, and makes its runs beside
 * it. Sharing its cgroup with others (a shell in a leaf of a delegated subtree), it makes its
 * runs beside that cgroup, in the parent, if the user owns it and no process is in it. Never
 * enable a controller on a cgroup with processes: even the threaded ones (pids, cpu) would turn
 * it into a thread root, and every run directory under it into an invalid domain (EOPNOTSUPP). */
static int v2_user_base(const char *mount, char *base)
{
	_cleanup_close_ int fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC), leaf = -EBADF;
	char *slash;
	int r;

	if (fd < 0)
		return negative_errno();
	r = cr_cg_procs_empty(fd, true);
	if (r < 0)
		return r;
	if (r > 0 && cr_cg_procs_empty(fd, false) == 0) { /* corral alone: move into the leaf */
		if (mkdirat(fd, LAUNCHER_LEAF, 0755) < 0 && errno != EEXIST)
			return negative_errno();
		leaf = openat(fd, LAUNCHER_LEAF, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (leaf < 0)
			return negative_errno();
		return write_at(leaf, "cgroup.procs", "0");
	}
	if (r > 0)
		return 0;
	slash = strrchr(base, '/');
	if (!slash || (size_t)(slash - base) <= strlen(mount))
		return -EBUSY; /* other processes share it, and the parent is the root */
	*slash = '\0';
	closep(&fd);
	fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || faccessat(fd, "cgroup.subtree_control", W_OK, 0) < 0)
		return fd < 0 || errno == EACCES ? -EBUSY : negative_errno();
	r = cr_cg_procs_empty(fd, false);
	return r < 0 ? r : r ? 0 : -EBUSY;
}

/* Whether the space-separated controller list @list names one of the controllers in @need. */
static bool offers_any(const char *list, unsigned need)
{
	for (int c = 0; c < _CR_CTL_MAX; c++)
		if ((need & (1u << c)) && cr_cg_has_word(list, cr_cgroup_ctl_name(c)))
			return true;
	return false;
}

/* The controllers @base hands to its children, after enabling what @need asks for. */
static int v2_base(const struct cr_cgroup_host *h, unsigned need, char *base, size_t size,
		   unsigned *ret_have)
{
	bool root = geteuid() == 0;
	_cleanup_close_ int fd = -EBADF;
	char on[256];
	int r;

	r = cr_cgroup_v2_base(h, root, base, size);
	if (r < 0)
		return r;
	/* A controller the hierarchy's root lacks (a hybrid host's memory and pids, which are v1's)
	 * is in none of its cgroups: then nothing is made or enabled here. */
	*ret_have = 0;
	fd = open(h->v2_mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || cr_cg_read_at(fd, "cgroup.controllers", on, sizeof(on)) < 0)
		return negative_errno();
	closep(&fd);
	if (!offers_any(on, need))
		return 0;
	if (root) {
		r = v2_enable(h->v2_mount, need);
		if (r < 0)
			return r;
		if (mkdir(base, 0755) < 0 && errno != EEXIST)
			return negative_errno();
	} else {
		r = v2_user_base(h->v2_mount, base);
		if (r < 0)
			return r;
	}
	r = v2_enable(base, need);
	if (r < 0)
		return r;
	fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || cr_cg_read_at(fd, "cgroup.subtree_control", on, sizeof(on)) < 0)
		return negative_errno();
	for (int c = 0; c < _CR_CTL_MAX; c++)
		if ((need & (1u << c)) && cr_cg_has_word(on, cr_cgroup_ctl_name(c)))
			*ret_have |= 1u << c;
	return 0;
}

static int v2_write(int fd, enum cr_limit l, uint64_t v, uint64_t mem)
{
	switch (l) {
	case CR_LIMIT_MEMORY:
		return write_at(fd, "memory.max", "%llu", (unsigned long long)v);
	case CR_LIMIT_MEMORY_SWAP:
		return write_at(fd, "memory.swap.max", "%llu", (unsigned long long)v);
	case CR_LIMIT_PIDS:
		return write_at(fd, "pids.max", "%llu", (unsigned long long)v);
	case CR_LIMIT_CPU:
		return write_at(fd, "cpu.max", "%llu %u",
				(unsigned long long)v * CPU_QUOTA_PER_MILLI, CPU_PERIOD_US);
	case CR_LIMIT_CPU_TIME:
	case CR_LIMIT_FILE_SIZE:
	case CR_LIMIT_OPEN_FILES:
	case _CR_LIMIT_MAX:
	case _CR_LIMIT_INVALID:
	default:
		return -EINVAL;
	}
}

/* memory.memsw is memory + swap on v1, cfs_quota pairs with cfs_period. */
static int v1_write(int fd, enum cr_limit l, uint64_t v, uint64_t mem)
{
	int r;

	switch (l) {
	case CR_LIMIT_MEMORY:
		return write_at(fd, "memory.limit_in_bytes", "%llu", (unsigned long long)v);
	case CR_LIMIT_MEMORY_SWAP:
		if (!cr_limit_is_finite(mem))
			return -EINVAL;
		return write_at(fd, "memory.memsw.limit_in_bytes", "%llu",
				(unsigned long long)(mem + v));
	case CR_LIMIT_PIDS:
		return write_at(fd, "pids.max", "%llu", (unsigned long long)v);
	case CR_LIMIT_CPU:
		r = write_at(fd, "cpu.cfs_period_us", "%u", CPU_PERIOD_US);
		return r < 0 ? r
			     : write_at(fd, "cpu.cfs_quota_us", "%llu",
					(unsigned long long)v * CPU_QUOTA_PER_MILLI);
	case CR_LIMIT_CPU_TIME:
	case CR_LIMIT_FILE_SIZE:
	case CR_LIMIT_OPEN_FILES:
	case _CR_LIMIT_MAX:
	case _CR_LIMIT_INVALID:
	default:
		return -EINVAL;
	}
}

/* --- one run -------------------------------------------------------------------------------- */

int cr_cg_limit_ctl(enum cr_limit l)
{
	switch (l) {
	case CR_LIMIT_MEMORY:
	case CR_LIMIT_MEMORY_SWAP:
		return CR_CTL_MEMORY;
	case CR_LIMIT_PIDS:
		return CR_CTL_PIDS;
	case CR_LIMIT_CPU:
		return CR_CTL_CPU;
	case CR_LIMIT_CPU_TIME:
	case CR_LIMIT_FILE_SIZE:
	case CR_LIMIT_OPEN_FILES:
	case _CR_LIMIT_MAX:
	case _CR_LIMIT_INVALID:
	default:
		return -1;
	}
}

/* The rlimit that stands in for @l, or -1. */
int cr_cg_limit_rlimit(enum cr_limit l)
{
	switch (l) {
	case CR_LIMIT_MEMORY:
		return RLIMIT_AS;
	case CR_LIMIT_PIDS:
		return RLIMIT_NPROC;
	case CR_LIMIT_CPU_TIME:
		return RLIMIT_CPU;
	case CR_LIMIT_FILE_SIZE:
		return RLIMIT_FSIZE;
	case CR_LIMIT_OPEN_FILES:
		return RLIMIT_NOFILE;
	case CR_LIMIT_MEMORY_SWAP:
	case CR_LIMIT_CPU:
	case _CR_LIMIT_MAX:
	case _CR_LIMIT_INVALID:
	default:
		return -1;
	}
}

/* Create the v2 run directory for what v2 offers of @need; record why not in @why. */
static unsigned try_v2(struct cr_cgroup *cg, const struct cr_cgroup_host *h, unsigned need,
		       char why[_CR_CTL_MAX][256])
{
	char base[PATH_MAX];
	unsigned have = 0;
	int r;

	if (!h->v2_mount[0]) {
		for (int c = 0; c < _CR_CTL_MAX; c++)
			cr_say(why[c], sizeof(why[c]), "no cgroup2 hierarchy");
		return 0;
	}
	r = v2_base(h, need, base, sizeof(base), &have);
	if (r >= 0 && have)
		r = make_run_dir(base, true, &cg->v2);
	for (int c = 0; c < _CR_CTL_MAX; c++)
		if (r < 0)
			cr_say(why[c], sizeof(why[c]), "cgroup2 %s: %s", base[0] ? base : h->v2_mount,
			       strerror(-r));
		else if ((need & (1u << c)) && !(have & (1u << c)))
			cr_say(why[c], sizeof(why[c]), "cgroup2 %s has no %s controller",
			       base, cr_cgroup_ctl_name(c));
	cg->v2_ctls = r < 0 ? 0 : have;
	return cg->v2_ctls;
}

/* Open @dir's tasks file for cr_cgroup_join(); on failure remove @dir, the hierarchy is unused. */
static int open_tasks(struct cg_dir *dir, int *ret_fd)
{
	int fd = openat(dir->fd, "tasks", O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		int r = negative_errno();

		closep(&dir->fd);
		dir->fd = -EBADF; /* unused: cr_cgroup_free() must not close or remove it again */
		(void)rmdir(dir->path);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

/* Whether @c's run directory can be left to cr_cgroup_realize(): corral's base directory is
 * there and writable, so that the mkdir and the limits' writes are expected to succeed. */
static bool v1_defer(struct cr_cgroup *cg, enum cr_cgroup_ctl c, const char *base)
{
	char memsw[PATH_MAX];

	if (faccessat(AT_FDCWD, base, W_OK | X_OK, AT_EACCESS) < 0)
		return false;
	(void)strlcpy(cg->v1[c].path, base, sizeof(cg->v1[c].path));
	cg->pending |= 1u << c;
	if (c == CR_CTL_MEMORY)
		cg->memsw = snprintf(memsw, sizeof(memsw), "%s/memory.memsw.limit_in_bytes", base) <
				    (int)sizeof(memsw) &&
			    access(memsw, F_OK) == 0;
	return true;
}

static void try_v1(struct cr_cgroup *cg, const struct cr_cgroup_host *h, unsigned need, bool defer,
		   char why[_CR_CTL_MAX][256])
{
	for (int c = 0; c < _CR_CTL_MAX; c++) {
		char base[PATH_MAX];
		size_t len = strlen(why[c]);
		int r = 0;

		if (!(need & (1u << c)))
			continue;
		if (!h->v1_mount[c][0]) {
			cr_say(why[c] + len, sizeof(why[c]) - len, "; no cgroup v1 %s hierarchy",
			       cr_cgroup_ctl_name(c));
			continue;
		}
		for (int d = 0; d < c; d++) /* co-mounted controllers share one directory */
			if ((cg->v1[d].fd >= 0 || (cg->pending & (1u << d))) &&
			    strcmp(h->v1_mount[d], h->v1_mount[c]) == 0) {
				cg->pending |= cg->pending & (1u << d) ? 1u << c : 0;
				cg->v1[c].fd = cg->v1[d].fd < 0 ? -EBADF
								: fcntl(cg->v1[d].fd, F_DUPFD_CLOEXEC, 3);
				(void)strlcpy(cg->v1[c].path, cg->v1[d].path, sizeof(cg->v1[c].path));
				r = cg->v1[c].fd < 0 && cg->v1[d].fd >= 0 ? negative_errno() : 1;
			}
		if (r != 0)
			continue;
		(void)snprintf(base, sizeof(base), "%s%s/corral", h->v1_mount[c],
			       strcmp(h->v1_path[c], "/") == 0 ? "" : h->v1_path[c]);
		if (defer && v1_defer(cg, c, base))
			continue;
		/* corral's own directory is there after the first run: made only when missing. */
		r = make_run_dir(base, false, &cg->v1[c]);
		if (r == -ENOENT && mkdir(base, 0755) < 0 && errno != EEXIST)
			r = negative_errno();
		else if (r == -ENOENT)
			r = make_run_dir(base, false, &cg->v1[c]);
		if (r >= 0)
			r = open_tasks(&cg->v1[c], &cg->v1_tasks[c]);
		if (r < 0)
			cr_say(why[c] + len, sizeof(why[c]) - len, "; cgroup v1 %s: %s", base,
			       strerror(-r));
	}
}

static void add_rlimit(struct cr_cgroup *cg, int resource, uint64_t v)
{
	if (cg->rl.n >= CR_RLIMITS_MAX)
		return;
	cg->rl.r[cg->rl.n].resource = resource;
	cg->rl.r[cg->rl.n].value = v;
	cg->rl.n++;
}

/* Give @l the best mode available: the cgroup that holds its controller, else its rlimit
 * (unless @cgroup_only). */
static void assign(struct cr_cgroup *cg, enum cr_limit l, uint64_t v, uint64_t mem,
		   bool cgroup_only, const char why[_CR_CTL_MAX][256])
{
	struct cr_limits_report *rep = &cg->rep;
	int c = cr_cg_limit_ctl(l), res = cr_cg_limit_rlimit(l), r = -ENOENT;

	rep->value[l] = v;
	rep->mode[l] = CR_LIMIT_MODE_NONE;
	if (!cr_limit_is_finite(v) && !(l == CR_LIMIT_MEMORY_SWAP && v == 0 && cr_limit_is_finite(mem)))
		return;
	if (c >= 0 && (cg->v2_ctls & (1u << c))) {
		r = v2_write(cg->v2.fd, l, v, mem);
		if (r >= 0)
			rep->mode[l] = CR_LIMIT_MODE_CGROUP2;
	} else if (c >= 0 && (cg->pending & (1u << c))) {
		/* What v1_write() will find when cr_cgroup_realize() writes it. */
		r = l != CR_LIMIT_MEMORY_SWAP ? 0 : !cr_limit_is_finite(mem) ? -EINVAL : -ENOENT;
		r = r == -ENOENT && cg->memsw ? 0 : r;
		if (r >= 0)
			rep->mode[l] = CR_LIMIT_MODE_CGROUP1;
	} else if (c >= 0 && cg->v1[c].fd >= 0) {
		r = v1_write(cg->v1[c].fd, l, v, mem);
		if (r >= 0)
			rep->mode[l] = CR_LIMIT_MODE_CGROUP1;
	}
	if (rep->mode[l] != CR_LIMIT_MODE_NONE)
		return;
	if (l == CR_LIMIT_MEMORY_SWAP && v == 0 && r == -ENOENT && c >= 0 &&
	    !(cg->v2_ctls & (1u << c)) && cg->v1[c].fd < 0 && !(cg->pending & (1u << c))) {
		rep->value[l] = CR_LIMIT_UNSET; /* the default, and no cgroup to hold it */
		return;
	}
	if (res >= 0 && cgroup_only) {
		cr_say(rep->why[l], sizeof(rep->why[l]),
		       "a default, which only a memory cgroup enforces (RLIMIT_AS would break programs that reserve address space): it bounds the tmpfs mounts only; --memory sets RLIMIT_AS; no memory cgroup: %s",
		       why[c] + (why[c][0] == ';' ? 2 : 0));
	} else if (res >= 0) {
		add_rlimit(cg, res, v);
		rep->mode[l] = CR_LIMIT_MODE_RLIMIT;
		if (l == CR_LIMIT_MEMORY)
			cr_say(rep->why[l], sizeof(rep->why[l]), CR_RLIMIT_AS_WHY);
	} else if (l == CR_LIMIT_MEMORY_SWAP && r == -ENOENT && rep->mode[CR_LIMIT_MEMORY] &&
		   rep->mode[CR_LIMIT_MEMORY] != CR_LIMIT_MODE_RLIMIT) {
		cr_say(rep->why[l], sizeof(rep->why[l]),
		       "the kernel does not account swap (swapaccount)");
	} else if (r != -ENOENT) {
		cr_say(rep->why[l], sizeof(rep->why[l]), "writing the limit failed: %s",
		       strerror(-r));
	} else {
		cr_say(rep->why[l], sizeof(rep->why[l]),
		       "no writable cgroup with the %s controller (%s)", cr_cgroup_ctl_name(c),
		       why[c] + (why[c][0] == ';' ? 2 : 0));
	}
}

static int check_required(const struct cr_limits *limits, const struct cr_limits_report *rep,
			  char *msg, size_t size)
{
	for (int l = 0; limits->required && l < _CR_LIMIT_MAX; l++)
		if (limits->set[l] && cr_limit_is_finite(limits->value[l]) &&
		    rep->mode[l] == CR_LIMIT_MODE_NONE) {
			cr_say(msg, size, "--limits=required: %s cannot be enforced on this host: %s",
			       cr_limit_option(l), rep->why[l]);
			return -EOPNOTSUPP;
		}
	return 0;
}

/* The caller's own cgroup (cr_cgroup_place()) as the run's, in every hierarchy. */
static int use_placed(struct cr_cgroup *cg, const struct cr_cgroup_host *h,
		      const struct cr_limits *limits, char why[_CR_CTL_MAX][256], char *msg,
		      size_t size)
{
	_cleanup_free_ struct cr_cgroup_placed *pl = malloc(sizeof(*pl));
	int r;

	if (!pl)
		return -ENOMEM;
	r = cr_cgroup_place(h, limits, pl, why, msg, size);
	if (r < 0)
		return r;
	r = cr_cgroup_place_files(pl, limits->cgroup_path, limits->files, limits->n_files, msg,
				  size);
	if (r < 0) {
		closep(&pl->v2_fd);
		for (int c = 0; c < _CR_CTL_MAX; c++)
			closep(&pl->v1_fd[c]);
		return r;
	}
	cg->placed = true;
	cg->v2.fd = pl->v2_fd;
	(void)strlcpy(cg->v2.path, pl->v2_path, sizeof(cg->v2.path));
	cg->v2_ctls = pl->v2_ctls;
	for (int c = 0; c < _CR_CTL_MAX; c++) {
		cg->v1[c].fd = pl->v1_fd[c];
		(void)strlcpy(cg->v1[c].path, pl->v1_path[c], sizeof(cg->v1[c].path));
	}
	return 0;
}

int cr_cgroup_create(const struct cr_limits *limits, bool defer, struct cr_cgroup **ret,
		     char *msg, size_t size)
{
	const struct cr_cgroup_host *h = cr_cg_host();
	char why[_CR_CTL_MAX][256] = {};
	double t0 = cr_now_ms_f();
	unsigned need = needed_ctls(limits);
	uint64_t mem = limits->value[CR_LIMIT_MEMORY], swap = limits->value[CR_LIMIT_MEMORY_SWAP];
	struct cr_cgroup *cg;
	int r = 0;

	cg = calloc(1, sizeof(*cg));
	if (!cg)
		return -ENOMEM;
	cg->v2.fd = cg->oom_fd = cg->pids_fd = -EBADF;
	for (int c = 0; c < _CR_CTL_MAX; c++)
		cg->v1[c].fd = cg->v1_tasks[c] = -EBADF;
	if (limits->cgroup_path[0]) {
		r = use_placed(cg, h, limits, why, msg, size);
		if (r < 0) {
			free(cg);
			return r;
		}
	} else {
		if (need)
			need &= ~try_v2(cg, h, need, why);
		if (need)
			try_v1(cg, h, need, defer, why);
	}
	/* --memory alone caps memory and swap together: no swap unless --memory-swap. */
	if (cr_limit_is_finite(mem) && swap == CR_LIMIT_UNSET)
		swap = 0;
	for (int l = 0; l < _CR_LIMIT_MAX; l++)
		assign(cg, l, l == CR_LIMIT_MEMORY_SWAP ? swap : limits->value[l], mem,
		       l == CR_LIMIT_MEMORY && !limits->set[l], why);
	/* nproc and os.cpu_count() read the affinity mask, not cpu.max: ceil(--cpu) CPUs. */
	if (cr_limit_is_finite(limits->value[CR_LIMIT_CPU])) {
		cg->rl.cpus = (unsigned)((limits->value[CR_LIMIT_CPU] + 999) / 1000);
		cg->rep.cpus = cr_rlimits_cpus(cg->rl.cpus);
	}
	cg->setup_ms = cr_now_ms_f() - t0;
	r = check_required(limits, &cg->rep, msg, size);
	if (r < 0) {
		cg = cr_cgroup_free(cg);
		return r;
	}
	*ret = cg;
	return 0;
}

int cr_cgroup_clone_fd(const struct cr_cgroup *cg)
{
	return cg && cg->v2_ctls ? cg->v2.fd : -EBADF;
}

bool cr_cgroup_pending(const struct cr_cgroup *cg)
{
	return cg && cg->pending;
}

int cr_cgroup_realize(struct cr_cgroup *cg, int ret_tasks[CR_CGROUP_TASKS_MAX], size_t *ret_n)
{
	_Static_assert(CR_CGROUP_TASKS_MAX == _CR_CTL_MAX, "one tasks file per controller");
	char why[_CR_CTL_MAX][256] = {};
	unsigned pending = cg->pending;
	double t0 = cr_now_ms_f();
	int r = 0;

	*ret_n = 0;
	cg->pending = 0;
	try_v1(cg, cr_cg_host(), pending, false, why);
	for (int l = 0; r >= 0 && l < _CR_LIMIT_MAX; l++) {
		int c = cr_cg_limit_ctl(l);

		if (c >= 0 && (pending & (1u << c)) && cg->rep.mode[l] == CR_LIMIT_MODE_CGROUP1)
			r = cg->v1[c].fd < 0 ? -ENOENT
					     : v1_write(cg->v1[c].fd, l, cg->rep.value[l],
							cg->rep.value[CR_LIMIT_MEMORY]);
	}
	for (int c = 0; c < _CR_CTL_MAX; c++)
		if ((pending & (1u << c)) && cg->v1_tasks[c] >= 0)
			ret_tasks[(*ret_n)++] = cg->v1_tasks[c];
	cg->setup_ms += cr_now_ms_f() - t0;
	return r;
}

int cr_cgroup_attach(struct cr_cgroup *cg, pid_t pid, bool in_v2, bool v1)
{
	double t0 = cr_now_ms_f();
	int r = 0;

	if (!cg)
		return 0;
	if (cg->v2_ctls && !in_v2)
		r = write_at(cg->v2.fd, "cgroup.procs", "%d", (int)pid);
	for (int c = 0; v1 && r >= 0 && c < _CR_CTL_MAX; c++)
		if (cg->v1[c].fd >= 0)
			r = write_at(cg->v1[c].fd, "cgroup.procs", "%d", (int)pid);
	cg->setup_ms += cr_now_ms_f() - t0;
	return r;
}

/* Why the child moves itself, by thread: writing a pid to cgroup.procs (or any pid but 0 to
 * tasks) write-locks the kernel's global cgroup_threadgroup_rwsem, a percpu rwsem whose writer
 * waits for an RCU grace period unless another writer came just before. Measured here (Linux
 * 6.18, 2 vCPUs, v1 pids): 13 ms median, 25 ms max, when one run is not right behind another;
 * that was the long tail of every corral run with a cgroup v1 limit. Moving the calling thread
 * itself ("0" to tasks) skips that lock (cgroup_procs_write_start()): 0.06 ms. The child is
 * single-threaded, so its one thread is the whole process. The kernel checks the permission
 * with the credentials of the file's opener: the parent's. */
int cr_cgroup_join(struct cr_cgroup *cg)
{
	return cg ? cr_cgroup_join_tasks(cg->v1_tasks, _CR_CTL_MAX) : 0;
}

int cr_cgroup_join_tasks(int *tasks, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (tasks[i] < 0)
			continue;
		if (write(tasks[i], "0", 1) != 1)
			return negative_errno();
		closep(&tasks[i]); /* the child's copy: nothing in the sandbox keeps it */
	}
	return 0;
}

void cr_cgroup_counters(struct cr_cgroup *cg, uint64_t *ret_oom, uint64_t *ret_pids)
{
	const struct cg_dir *mem, *pids;
	bool v2mem, v2pids;

	*ret_oom = *ret_pids = 0;
	if (!cg)
		return;
	v2mem = cg->v2_ctls & (1u << CR_CTL_MEMORY);
	v2pids = cg->v2_ctls & (1u << CR_CTL_PIDS);
	mem = v2mem ? &cg->v2 : &cg->v1[CR_CTL_MEMORY];
	pids = v2pids ? &cg->v2 : &cg->v1[CR_CTL_PIDS];
	/* v1 has oom_kill in memory.oom_control since Linux 4.13. */
	*ret_oom = read_key(&cg->oom_fd, mem->fd, v2mem ? "memory.events" : "memory.oom_control",
			    "oom_kill");
	*ret_pids = read_key(&cg->pids_fd, pids->fd, "pids.events", "max");
}

void cr_cgroup_counter_fds(struct cr_cgroup *cg, int ret[2])
{
	uint64_t oom, pids;

	cr_cgroup_counters(cg, &oom, &pids); /* opens them */
	ret[0] = cg && cg->oom_fd >= 0 ? fcntl(cg->oom_fd, F_DUPFD_CLOEXEC, 3) : -EBADF;
	ret[1] = cg && cg->pids_fd >= 0 ? fcntl(cg->pids_fd, F_DUPFD_CLOEXEC, 3) : -EBADF;
	ret[0] = ret[0] < 0 ? -EBADF : ret[0];
	ret[1] = ret[1] < 0 ? -EBADF : ret[1];
}

void cr_cgroup_counters_at(const int fds[2], uint64_t *ret_oom, uint64_t *ret_pids)
{
	/* Both names of the OOM file (v2's memory.events, v1's memory.oom_control) say oom_kill. */
	int oom = fds[0] >= 0 ? fds[0] : -ENOENT, pids = fds[1] >= 0 ? fds[1] : -ENOENT;

	*ret_oom = read_key(&oom, -EBADF, NULL, "oom_kill");
	*ret_pids = read_key(&pids, -EBADF, NULL, "max");
}

void cr_cgroup_events(struct cr_cgroup *cg, bool *ret_oom, bool *ret_pids)
{
	uint64_t oom, pids;

	cr_cgroup_counters(cg, &oom, &pids);
	*ret_oom = oom > 0;
	*ret_pids = pids > 0;
}

const struct cr_limits_report *cr_cgroup_report(const struct cr_cgroup *cg)
{
	return &cg->rep;
}

const struct cr_rlimits *cr_cgroup_rlimits(const struct cr_cgroup *cg)
{
	return &cg->rl;
}

/* The directory @dir is in, once: co-mounted v1 controllers share one. A @pending directory's
 * path is that directory itself (cr_cgroup_realize() has not made the run's yet). */
static void sweep_parent(const struct cg_dir *dir, bool pending, bool v2, const char *done[],
			 size_t *n)
{
	char base[PATH_MAX];
	const char *slash = strrchr(dir->path, '/');

	if ((dir->fd < 0 && !pending) || !slash)
		return;
	for (size_t i = 0; i < *n; i++)
		if (strcmp(done[i], dir->path) == 0)
			return;
	done[(*n)++] = dir->path;
	(void)snprintf(base, sizeof(base), "%.*s",
		       pending ? (int)strlen(dir->path) : (int)(slash - dir->path), dir->path);
	remove_stale(base, v2, !pending);
}

void cr_cgroup_sweep(const struct cr_cgroup *cg)
{
	const char *done[_CR_CTL_MAX + 1];
	size_t n = 0;

	if (!cg || cg->placed)
		return;
	sweep_parent(&cg->v2, false, true, done, &n);
	for (int c = 0; c < _CR_CTL_MAX; c++)
		sweep_parent(&cg->v1[c], cg->pending & (1u << c), false, done, &n);
}

double cr_cgroup_setup_ms(const struct cr_cgroup *cg)
{
	return cg ? cg->setup_ms : 0;
}

struct cr_cgroup *cr_cgroup_free(struct cr_cgroup *cg)
{
	if (!cg)
		return NULL;
	closep(&cg->oom_fd);
	closep(&cg->pids_fd);
	if (cg->v2.fd >= 0 && !cg->placed)
		(void)destroy_dir(cg->v2.path, true);
	closep(&cg->v2.fd);
	for (int c = 0; c < _CR_CTL_MAX; c++) {
		closep(&cg->v1_tasks[c]);
		if (cg->v1[c].fd >= 0 && !cg->placed)
			(void)destroy_dir(cg->v1[c].path, false);
		closep(&cg->v1[c].fd);
	}
	free(cg);
	return NULL;
}
