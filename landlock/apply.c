/* SPDX-License-Identifier: MIT */
/* The child's side: turn the plan into a ruleset and enforce it on the calling thread. Runs after
 * clone (or fork, degraded), so it allocates nothing and only reports through @detail. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "landlock-internal.h"
#include "landlock-sys.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/path-open.h"

/* Grant @access (already masked by what the ruleset handles) beneath the file at @fd, of
 * @mode; a file that is not a directory keeps only the file rights. 0 (also when nothing is left
 * to grant) or -errno. */
static int add_beneath(int ruleset, int fd, mode_t mode, uint64_t access)
{
	struct cr_ll_path_beneath_attr attr = { .parent_fd = fd };

	if (!S_ISDIR(mode))
		access &= LL_FS_FILE;
	if (access == 0)
		return 0; /* the kernel refuses an empty rule (ENOMSG) */
	attr.allowed_access = access;
	return sys_landlock_add_rule(ruleset, CR_LL_RULE_PATH_BENEATH, &attr, 0);
}

static int add_path(int ruleset, const struct cr_landlock_rule *rule, uint64_t handled)
{
	_cleanup_close_ int fd = -EBADF;
	struct stat st;

	fd = cr_open_path_nofollow(rule->path);
	if (fd == -ENOENT && rule->optional)
		return 0;
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return negative_errno();
	return add_beneath(ruleset, fd, st.st_mode, rule->access & handled);
}

/* Let the command reopen what descriptor @fd already gives it, as /dev/stdout and
 * /proc/self/fd/N do: a file or a device outside the sandbox's tree (a log file the output goes
 * to, the terminal corral was started from) is otherwise refused, although the command can
 * write to it through @fd all the same. Only the rights @fd's open mode has; pipes, sockets and
 * directories are left alone. Best effort: without the rule, access is only narrower. */
static void add_fd(int ruleset, int fd, uint64_t handled)
{
	uint64_t access = 0;
	struct stat st;
	int flags;

	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || (flags & O_PATH) || fstat(fd, &st) < 0)
		return;
	if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode))
		return;
	if ((flags & O_ACCMODE) != O_WRONLY)
		access |= LANDLOCK_ACCESS_FS_READ_FILE;
	if ((flags & O_ACCMODE) != O_RDONLY)
		access |= LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE;
	if (!S_ISREG(st.st_mode))
		access |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	if (add_beneath(ruleset, fd, st.st_mode, access & handled) < 0)
		cr_debug("landlock: no rule for descriptor %d", fd);
}

static int add_ports(int ruleset, const struct cr_port_range *ranges, size_t n, uint64_t right)
{
	struct cr_ll_net_port_attr attr = { .allowed_access = right };
	int r;

	for (size_t i = 0; i < n; i++)
		for (unsigned port = ranges[i].first; port <= ranges[i].last; port++) {
			attr.port = port;
			r = sys_landlock_add_rule(ruleset, CR_LL_RULE_NET_PORT, &attr, 0);
			if (r < 0)
				return r;
		}
	return 0;
}

static int fill(int ruleset, const struct cr_landlock_plan *plan, const int *keep_fds,
		size_t n_keep_fds, char *detail, size_t size)
{
	uint64_t fs = plan->handled[CR_LL_FS], net = plan->handled[CR_LL_NET];
	int r;

	for (size_t i = 0; i < plan->n_rules; i++) {
		r = add_path(ruleset, &plan->rules[i], fs);
		if (r < 0) {
			(void)snprintf(detail, size, "cannot add the Landlock rule for %s",
				       plan->rules[i].path);
			return r;
		}
	}
	for (int fd = 0; fd <= 2; fd++)
		add_fd(ruleset, fd, fs);
	for (size_t i = 0; i < n_keep_fds; i++)
		if (keep_fds[i] > 2)
			add_fd(ruleset, keep_fds[i], fs);
	r = 0;
	if (net & LANDLOCK_ACCESS_NET_CONNECT_TCP)
		r = add_ports(ruleset, plan->tcp_connect, plan->n_tcp_connect,
			      LANDLOCK_ACCESS_NET_CONNECT_TCP);
	if (r >= 0 && (net & LANDLOCK_ACCESS_NET_BIND_TCP))
		r = add_ports(ruleset, plan->tcp_bind, plan->n_tcp_bind,
			      LANDLOCK_ACCESS_NET_BIND_TCP);
	if (r < 0)
		(void)snprintf(detail, size, "cannot add the Landlock TCP port rules");
	return r;
}

static size_t port_rules(const struct cr_landlock_plan *plan)
{
	uint64_t net = plan->handled[CR_LL_NET];

	return (net & LANDLOCK_ACCESS_NET_CONNECT_TCP
			? cr_ports_count(plan->tcp_connect, plan->n_tcp_connect)
			: 0) +
	       (net & LANDLOCK_ACCESS_NET_BIND_TCP
			? cr_ports_count(plan->tcp_bind, plan->n_tcp_bind)
			: 0);
}

static long elapsed_us(const struct timespec *t0)
{
	struct timespec t1;

	(void)clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000000L + (t1.tv_nsec - t0->tv_nsec) / 1000;
}

int cr_landlock_apply(const struct cr_landlock_plan *plan, const int *keep_fds, size_t n_keep_fds,
		      char *detail, size_t size)
{
	struct cr_ll_ruleset_attr attr = {
		.handled_access_fs = plan->handled[CR_LL_FS],
		.handled_access_net = plan->handled[CR_LL_NET],
		.scoped = plan->handled[CR_LL_SCOPE],
	};
	_cleanup_close_ int ruleset = -EBADF;
	struct timespec t0;
	int r;

	if (!plan->enabled)
		return 0;
	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	ruleset = sys_landlock_create_ruleset(&attr, landlock_attr_size(plan->abi), 0);
	if (ruleset < 0) {
		(void)snprintf(detail, size, "cannot create the Landlock ruleset");
		return ruleset;
	}
	r = fill(ruleset, plan, keep_fds, n_keep_fds, detail, size);
	if (r < 0)
		return r;
	r = sys_landlock_restrict_self(ruleset, (uint32_t)plan->handled[CR_LL_LOG]);
	if (r < 0) {
		(void)snprintf(detail, size, "cannot enforce the Landlock ruleset");
		return r;
	}
	cr_debug("landlock: ABI %d ruleset of %zu path rules and %zu port rules built and enforced in %ld us",
		 plan->abi, plan->n_rules, port_rules(plan), elapsed_us(&t0));
	return 0;
}
