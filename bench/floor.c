/* SPDX-License-Identifier: MIT */
/*
 * corral-floor: the least a cold launcher with corral's isolation must do, as a statically
 * linked program: clone into the same seven namespaces (user, mount, pid, net, ipc, uts,
 * cgroup), exec the command as pid 1 there, wait, exit with its status. No uid map, mount,
 * loopback, Landlock, seccomp, cgroup or status: every real launcher does more. corral-bench
 * measures it as the subject `floor` to show how close to the kernel's own cost a cold
 * `corral run` is. Not a sandbox: never use it to run anything.
 *
 * Usage: corral-floor CMD [ARGS...]
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	const unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET |
				    CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
	pid_t pid;
	int status;

	if (argc < 2) {
		fputs("usage: corral-floor CMD [ARGS...]\n(a benchmark floor for corral-bench, not a sandbox)\n", stderr);
		return 2;
	}
	pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid < 0) {
		fprintf(stderr, "corral-floor: clone: %s\n", strerror(errno));
		return 125;
	}
	if (pid == 0) {
		execve(argv[1], argv + 1, environ);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return 125;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
