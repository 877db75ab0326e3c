/* SPDX-License-Identifier: MIT */
/* The peer check of corral's servers; see peer.h. The peer is pinned by a pidfd (SO_PEERPIDFD,
 * or pidfd_open() of SO_PEERCRED's pid on kernels before 6.5), its /proc entries read through
 * its pid, and the pidfd asked afterwards whether the process still lives: if it does, the pid
 * was not reused while we read. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launcher/base/macro.h"
#include "peer.h"

#define MAX_ANCESTORS 4096

static int refuse(char *why, size_t size, int r, const char *fmt, ...) _printf_(4, 5);
static int refuse(char *why, size_t size, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return r;
}

/* "run-" digits "-" digits, the whole component. */
static bool run_component(const char *s, size_t len)
{
	size_t i = 4, dashes = 0, digits = 0;

	if (len < 7 || strncmp(s, "run-", 4) != 0)
		return false;
	for (; i < len; i++) {
		if (s[i] == '-') {
			if (digits == 0 || ++dashes > 1)
				return false;
			digits = 0;
		} else if (s[i] >= '0' && s[i] <= '9')
			digits++;
		else
			return false;
	}
	return dashes == 1 && digits > 0;
}

bool cr_peer_cgroup_is_sandbox(const char *text)
{
	for (const char *line = text; line && *line;) {
		const char *end = strchrnul(line, '\n');
		const char *path = memchr(line, ':', (size_t)(end - line));

		/* "ID:CONTROLLERS:PATH": the path is after the second colon */
		path = path ? memchr(path + 1, ':', (size_t)(end - path - 1)) : NULL;
		for (const char *p = path ? path + 1 : end; p < end;) {
			size_t len = strcspn(p, "/\n");

			if (run_component(p, len))
				return true;
			p += len + 1;
		}
		line = *end ? end + 1 : end;
	}
	return false;
}

/* A /proc file the kernel makes whole on the first read (stat, cgroup): a read shorter than
 * asked is its end, and no second read is spent to hear so. */
static int read_text(const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return negative_errno();
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return negative_errno();
		len += (size_t)n;
		if ((size_t)n < size - 1 - (len - (size_t)n))
			break;
	}
	buf[len] = '\0';
	return 0;
}

/* What the peer is compared with: this process's executable and its user and pid namespaces,
 * each looked up once per check (on first use) rather than once per ancestor. */
enum { SELF_EXE, SELF_USERNS, SELF_PIDNS, _SELF_MAX };
static const char *const self_what[_SELF_MAX] = { "exe", "ns/user", "ns/pid" };

struct self_ids {
	bool known[_SELF_MAX];
	dev_t dev[_SELF_MAX];
	ino_t ino[_SELF_MAX];
};

static int self_id(struct self_ids *self, int what)
{
	char path[64];
	struct stat st;

	if (self->known[what])
		return 0;
	(void)snprintf(path, sizeof(path), "/proc/self/%s", self_what[what]);
	if (stat(path, &st) < 0)
		return negative_errno();
	self->dev[what] = st.st_dev;
	self->ino[what] = st.st_ino;
	self->known[what] = true;
	return 0;
}

/* Is /proc/@pid/<what> the same file as ours? 1, 0 or -errno. */
static int same_file(struct self_ids *self, pid_t pid, int what)
{
	char path[64];
	struct stat st;
	int r = self_id(self, what);

	if (r < 0)
		return r;
	(void)snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, self_what[what]);
	if (stat(path, &st) < 0)
		return negative_errno();
	return st.st_dev == self->dev[what] && st.st_ino == self->ino[what];
}

/* The parent and the command name (comm) of @pid, from /proc/PID/stat. */
static int proc_stat(pid_t pid, pid_t *ret_ppid, char *comm, size_t size)
{
	char path[64], buf[1024], *open_paren, *close_paren;
	int ppid;

	(void)snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_text(path, buf, sizeof(buf)) < 0)
		return -ESRCH;
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren ||
	    sscanf(close_paren + 1, " %*c %d", &ppid) != 1)
		return -EBADMSG;
	*close_paren = '\0';
	(void)snprintf(comm, size, "%s", open_paren + 1);
	*ret_ppid = ppid;
	return 0;
}

/* Degraded mode's sandboxes share our namespaces, and a user's have no cgroup of their own:
 * what marks them is their launcher, a corral process above them that they cannot signal
 * (Landlock's signal scope) and that reaps their orphans (a child subreaper). So: is a corral
 * process (this server, our executable, or a process named "corral") an ancestor of @pid? */
static int corral_ancestor(struct self_ids *self, pid_t pid, pid_t *ret_ancestor)
{
	pid_t p = pid, ppid, me = getpid();
	char comm[64];

	for (int i = 0; i < MAX_ANCESTORS; i++) {
		int r = proc_stat(p, &ppid, comm, sizeof(comm));

		if (r < 0)
			return r;
		if (p != pid &&
		    (p == me || strcmp(comm, "corral") == 0 || same_file(self, p, SELF_EXE) > 0)) {
			*ret_ancestor = p;
			return 1;
		}
		if (ppid <= 1) /* init, or the top of our pid namespace */
			return 0;
		p = ppid;
	}
	return -ELOOP;
}

/* The peer's pidfd: SO_PEERPIDFD, or pidfd_open() of @pid where the kernel lacks it. */
static int peer_pidfd(int fd, pid_t pid)
{
	int pidfd = -EBADF;
	socklen_t len = sizeof(pidfd);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0 && pidfd >= 0)
		return pidfd;
	if (errno != ENOPROTOOPT && errno != EINVAL)
		return negative_errno();
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	return pidfd < 0 ? negative_errno() : pidfd;
}

static bool pidfd_alive(int pidfd)
{
	return syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
}

/* The namespaces, the cgroup and the ancestors of @pid; 0 or a refusal. */
static int inspect(pid_t pid, char *why, size_t size)
{
	static const int ns[] = { SELF_USERNS, SELF_PIDNS };
	struct self_ids self = {};
	char path[64], cgroup[8192];
	pid_t ancestor = 0;
	int r;

	for (size_t i = 0; i < ELEMENTSOF(ns); i++) {
		r = same_file(&self, pid, ns[i]);
		if (r < 0)
			return refuse(why, size, -EPERM,
				      "cannot read the %s namespace of peer pid %d (%s): refused",
				      self_what[ns[i]] + 3, (int)pid, strerror(-r));
		if (r == 0)
			return refuse(why, size, -EPERM,
				      "peer pid %d is in another %s namespace (a sandbox's)",
				      (int)pid, self_what[ns[i]] + 3);
	}
	(void)snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	r = read_text(path, cgroup, sizeof(cgroup));
	if (r < 0)
		return refuse(why, size, -EPERM,
			      "cannot read the cgroup of peer pid %d (%s): refused", (int)pid,
			      strerror(-r));
	if (cr_peer_cgroup_is_sandbox(cgroup))
		return refuse(why, size, -EPERM, "peer pid %d is in a corral sandbox's cgroup",
			      (int)pid);
	r = corral_ancestor(&self, pid, &ancestor);
	if (r < 0)
		return refuse(why, size, -EPERM,
			      "cannot follow the ancestors of peer pid %d (%s): refused", (int)pid,
			      strerror(-r));
	if (r > 0)
		return refuse(why, size, -EPERM,
			      "peer pid %d runs under corral process %d (a sandbox without "
			      "namespaces)",
			      (int)pid, (int)ancestor);
	return 0;
}

int cr_peer_check(int fd, char *why, size_t size)
{
	struct ucred cred = {};
	socklen_t len = sizeof(cred);
	_cleanup_close_ int pidfd = -EBADF;
	int r;

	why[0] = '\0';
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || len != sizeof(cred))
		return refuse(why, size, negative_errno(),
			      "cannot read the peer's credentials: %m");
	if (cred.uid != getuid())
		return refuse(why, size, -EPERM, "the peer is of uid %d, not the server's",
			      (int)cred.uid);
	if (cred.pid <= 0)
		return refuse(why, size, -EPERM,
			      "the peer's process is not in the server's pid namespace");
	pidfd = peer_pidfd(fd, cred.pid);
	if (pidfd < 0)
		return refuse(why, size, -EPERM, "peer pid %d: no pidfd (%s): refused",
			      (int)cred.pid, strerror(-pidfd));
	r = inspect(cred.pid, why, size);
	if (r < 0)
		return r;
	/* Alive now: /proc/PID was still this process while we read it. */
	if (!pidfd_alive(pidfd))
		return refuse(why, size, -EPERM,
			      "peer pid %d exited before it could be checked: refused",
			      (int)cred.pid);
	return 0;
}
