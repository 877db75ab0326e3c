/* SPDX-License-Identifier: MIT */
/* ptracer PID | control: what a debugger does to another process, as an attacker in a sandbox
 * would do it to the sandbox's pid 1 or corral's proxy forwarder. Prints one line,
 * "attach=E seize=E vmread=E mem=E", each E the errno of the attempt (0: it worked):
 *   attach  PTRACE_ATTACH (and PTRACE_DETACH after it)
 *   seize   PTRACE_SEIZE
 *   vmread  process_vm_readv of 8 bytes (at any address: the access check comes first, EPERM;
 *           a bad address only after it, EFAULT)
 *   mem     open and pread /proc/PID/mem
 * control: the same against a child of its own, which must work where ptrace is allowed; adds
 * "read=secret" when both reads returned the child's copy of a variable. Always exits 0, but 2
 * on bad usage. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define SECRET 0x5ec2e7ul

static volatile unsigned long secret = SECRET;

static int attach(pid_t pid, enum __ptrace_request req)
{
	if (ptrace(req, pid, 0, 0) < 0)
		return errno;
	if (req == PTRACE_ATTACH)
		(void)waitpid(pid, NULL, __WALL);
	(void)ptrace(PTRACE_DETACH, pid, 0, 0);
	return 0;
}

static int vmread(pid_t pid, unsigned long addr, unsigned long *out)
{
	struct iovec local = { out, sizeof(*out) }, remote = { (void *)addr, sizeof(*out) };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) < 0 ? errno : 0;
}

static int mem(pid_t pid, unsigned long addr, unsigned long *out)
{
	char path[64];
	int fd, r = 0;

	(void)snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (pread(fd, out, sizeof(*out), (off_t)addr) < 0)
		r = errno;
	(void)close(fd);
	return r;
}

static void attack(pid_t pid, unsigned long addr, unsigned long *v, unsigned long *w)
{
	int a = attach(pid, PTRACE_ATTACH);
	int s = attach(pid, PTRACE_SEIZE);
	int vr = vmread(pid, addr, v);
	int m = mem(pid, addr, w);

	printf("attach=%d seize=%d vmread=%d mem=%d", a, s, vr, m);
}

int main(int argc, char **argv)
{
	unsigned long v = 0, w = 0;
	pid_t pid;

	if (argc != 2)
		return 2;
	if (strcmp(argv[1], "control") != 0) {
		attack((pid_t)atoi(argv[1]), 0x10000, &v, &w);
		printf("\n");
		return 0;
	}
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		pause();
		_exit(0);
	}
	attack(pid, (unsigned long)&secret, &v, &w);
	printf(" read=%s\n", v == SECRET && w == SECRET ? "secret" : "nothing");
	(void)kill(pid, SIGKILL);
	(void)waitpid(pid, NULL, 0);
	return 0;
}
