/* SPDX-License-Identifier: MIT */
/* linux.sysctl: the namespaced kernel settings a container may have its own values of (those of
 * its network and IPC namespaces), written from its monitor once the sandbox is built and before
 * its process starts, from inside the container's namespaces so that the host's are untouched. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/base/fd-util.h"
#include "launcher/base/macro.h"
#include "sysctl.h"

static bool is_ipc_key(const char *k)
{
	return strcmp(k, "kernel.msgmax") == 0 || strcmp(k, "kernel.msgmnb") == 0 ||
	       strcmp(k, "kernel.msgmni") == 0 || strcmp(k, "kernel.sem") == 0 ||
	       strcmp(k, "kernel.shmall") == 0 || strcmp(k, "kernel.shmmax") == 0 ||
	       strcmp(k, "kernel.shmmni") == 0 || strcmp(k, "kernel.shm_rmid_forced") == 0 ||
	       strncmp(k, "fs.mqueue.", 10) == 0;
}

int cr_oci_sysctl_check(const struct cr_oci_map *m, unsigned namespaces, char *err, size_t size)
{
	for (size_t i = 0; i < m->n; i++) {
		const char *k = m->keys[i];
		bool net = strncmp(k, "net.", 4) == 0, ipc = is_ipc_key(k);

		if (!net && !ipc)
			return snprintf(err, size,
					"linux.sysctl.%s: only the network and IPC namespaces' settings (net.*, kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*) can be a container's own",
					k),
			       -EOPNOTSUPP;
		if ((net && !(namespaces & CR_NS_NET)) || (ipc && !(namespaces & CR_NS_IPC)))
			return snprintf(err, size,
					"linux.sysctl.%s: the container shares the host's %s namespace: this would change the host's",
					k, net ? "network" : "IPC"),
			       -EPERM;
		if (strstr(k, "..") || strchr(k, '/'))
			return snprintf(err, size, "linux.sysctl.%s: not a setting's name", k), -EINVAL;
	}
	return 0;
}

static int join(pid_t pid, const char *ns, int type)
{
	char path[64];
	_cleanup_close_ int fd = -EBADF;

	(void)snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, type) < 0)
		return negative_errno();
	return 0;
}

static int write_one(const char *key, const char *value)
{
	char path[256];
	_cleanup_close_ int fd = -EBADF;

	if (snprintf(path, sizeof(path), "/proc/sys/%s", key) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (char *p = path + 10; *p; p++)
		if (*p == '.')
			*p = '/';
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return negative_errno();
	return cr_write_all(fd, value, strlen(value));
}

int cr_oci_sysctl_apply(const struct cr_oci_map *m, pid_t init, bool userns, char *err,
			size_t size)
{
	int status, r = 0;
	pid_t pid;

	if (m->n == 0)
		return 0;
	pid = fork();
	if (pid < 0)
		return negative_errno();
	if (pid == 0) {
		/* /proc/sys/net and the IPC settings are those of the opener's namespaces. Root (of
		 * its own user namespace) holds every capability over the container's, made below
		 * it, and joins none: the container's first process is in one nested in the one
		 * owning its network namespace, where setns() to that would be refused. */
		r = userns && geteuid() != 0 ? join(init, "user", CLONE_NEWUSER) : 0;
		r = r ?: join(init, "net", CLONE_NEWNET);
		r = r ?: join(init, "ipc", CLONE_NEWIPC);
		for (size_t i = 0; r >= 0 && i < m->n; i++)
			if ((r = write_one(m->keys[i], m->values[i])) < 0)
				_exit((int)(i + 1 > 200 ? 200 : i + 1));
		_exit(r < 0 ? 255 : 0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return negative_errno();
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) != 255 && WEXITSTATUS(status) <= (int)m->n)
		(void)snprintf(err, size, "linux.sysctl.%s: cannot be set to '%s'",
			       m->keys[WEXITSTATUS(status) - 1], m->values[WEXITSTATUS(status) - 1]);
	else
		(void)snprintf(err, size, "linux.sysctl: cannot enter the container's namespaces");
	return -EPERM;
}
