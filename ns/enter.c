/* SPDX-License-Identifier: MIT */
/* A command run inside a running sandbox (enter.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps.h"
#include "console.h"
#include "enter.h"
#include "launcher/base/fd-util.h"
#include "launcher/base/macro.h"
#include "linux-internal.h"
#include "seccomp/seccomp.h"

/* The order they are joined in: the user namespace first (it owns the others), pid last (it
 * applies to the next child). */
static const struct {
	const char *name;
	int type;
} kinds[] = {
	{ "user", CLONE_NEWUSER }, { "mnt", CLONE_NEWNS },	{ "ipc", CLONE_NEWIPC },
	{ "uts", CLONE_NEWUTS },   { "net", CLONE_NEWNET },	{ "cgroup", CLONE_NEWCGROUP },
	{ "pid", CLONE_NEWPID },
};

struct target {
	int ns[ELEMENTSOF(kinds)]; /* -1: the same as ours, not joined */
	int owner;		   /* the user namespace owning the mount namespace; -1: ours */
	bool owner_is_init;	   /* ...is the first process's own */
	int root;
};

static int open_target(pid_t init, struct target *t, char *msg, size_t size)
{
	char path[64];

	for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
		struct stat a, b;

		(void)snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)init, kinds[i].name);
		t->ns[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (t->ns[i] < 0)
			return snprintf(msg, size, "%s: %m", path), negative_errno();
		(void)snprintf(path, sizeof(path), "/proc/self/ns/%s", kinds[i].name);
		if (fstat(t->ns[i], &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino) {
			(void)close(t->ns[i]);
			t->ns[i] = -1;
		}
	}
	t->owner = t->ns[1] >= 0 ? ioctl(t->ns[1], NS_GET_USERNS) : -1;
	if (t->owner >= 0) {
		struct stat a, b;

		(void)snprintf(path, sizeof(path), "/proc/self/ns/user");
		if (fstat(t->owner, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino) {
			(void)close(t->owner);
			t->owner = -1;
		}
		t->owner_is_init = t->owner >= 0 && t->ns[0] >= 0 && fstat(t->owner, &a) == 0 &&
				   fstat(t->ns[0], &b) == 0 && a.st_ino == b.st_ino;
	}
	if (t->owner < 0 && t->ns[0] >= 0) { /* the first process's own, entered first */
		t->owner = t->ns[0];
		t->owner_is_init = true;
	}
	(void)snprintf(path, sizeof(path), "/proc/%d/root", (int)init);
	t->root = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->root < 0)
		return snprintf(msg, size, "%s: %m", path), negative_errno();
	return 0;
}

/* Into the sandbox's cgroups: its limits count what the command does. */
static void join_cgroups(pid_t init)
{
	char path[64], line[1024];
	FILE *f;

	(void)snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)init);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		char *ctrl = strchr(line, ':'), *cg = ctrl ? strchr(ctrl + 1, ':') : NULL, procs[2048];
		_cleanup_close_ int fd = -EBADF;

		if (!cg)
			continue;
		*cg++ = '\0';
		cg[strcspn(cg, "\n")] = '\0';
		if (!ctrl[1] || strncmp(ctrl + 1, "name=", 5) == 0)
			(void)snprintf(procs, sizeof(procs), "/sys/fs/cgroup/unified%s/cgroup.procs", cg);
		else
			(void)snprintf(procs, sizeof(procs), "/sys/fs/cgroup/%s%s/cgroup.procs", ctrl + 1,
				       cg);
		fd = open(procs, O_WRONLY | O_CLOEXEC);
		if (fd >= 0)
			(void)cr_write_all(fd, "0", 1);
	}
	if (f)
		(void)fclose(f);
}

/* The command's side, in the sandbox's pid namespace: what a command of the policy gets. */
static _Noreturn void command(const struct cr_policy *p, const struct cr_seccomp *sc, int err_fd)
{
	const char *step = "ids";
	int r = 0;

	if (p->ex.late_ids)
		r = cr_caps_switch_ids(p->ex.late_uid, p->ex.late_gid, p->ex.groups, p->ex.n_groups);
	else if (setgroups(0, NULL) < 0 && errno != EPERM)
		r = negative_errno();
	if (r >= 0 && !p->ex.late_ids &&
	    (setresgid(p->ex.gid, p->ex.gid, p->ex.gid) < 0 ||
	     setresuid(p->ex.uid, p->ex.uid, p->ex.uid) < 0))
		r = negative_errno();
	/* A console: a session of its own, whose terminal is made in the sandbox's devpts, once
	 * the ids are the process's (the terminal is theirs). */
	if (r >= 0 && p->ex.console) {
		struct cr_console c = { .sock = p->ex.console_fd, .rows = p->ex.console_rows,
					.cols = p->ex.console_cols,
					.uid = p->ex.late_ids ? p->ex.late_uid : p->ex.uid,
					.gid = p->ex.late_ids ? p->ex.late_gid : p->ex.gid };
		char detail[256] = "";

		r = setsid() < 0 ? negative_errno() : cr_console_make(&c, detail, sizeof(detail));
		(void)close(p->ex.console_fd);
		if (r < 0) {
			dprintf(err_fd, "%s", detail[0] ? detail : strerror(-r));
			_exit(126);
		}
	}
	/* without no_new_privs, the filters go in while CAP_SYS_ADMIN allows it (stages.c) */
	if (r >= 0 && p->ex.new_privs && (step = "seccomp", 1)) {
		r = cr_seccomp_install(sc);
		r = r ?: cr_install_programs(p);
	}
	if (r >= 0 && (step = "capabilities", 1))
		r = !p->ex.caps || (!p->ex.nested_userns && !p->ex.userns_limit_own)
			    ? cr_caps_drop_all()
		    : p->ex.caps_exact ? cr_caps_set(p->ex.caps, p->ex.caps_inh, p->ex.caps_amb)
				       : cr_caps_keep(p->ex.caps, p->ex.caps_inheritable, p->ex.uid != 0);
	if (r >= 0 && !p->ex.new_privs &&
	    (step = "no_new_privs", prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0))
		r = negative_errno();
	if (r >= 0 && (step = "cwd", chdir(p->cwd ?: "/") < 0))
		r = negative_errno();
	if (r >= 0 && !p->ex.new_privs && (step = "seccomp", 1)) {
		r = cr_seccomp_install(sc);
		r = r ?: cr_install_programs(p);
	}
	if (r >= 0) {
		step = "exec";
		r = cr_exec_file(p->argv[0], p->argv, p->env);
	}
	dprintf(err_fd, "%s: %s", step, strerror(-r));
	_exit(r == -ENOENT ? 127 : 126);
}

/* The middle process: joins, forks the command, tells its pid, exits. */
static _Noreturn void middle(pid_t init, const struct cr_policy *p, const struct cr_seccomp *sc,
			     struct target *t, int out)
{
	bool joined[ELEMENTSOF(kinds)] = { false };
	pid_t pid;

	join_cgroups(init);
	/* Root (of the caller's user namespace) first joins what it can as it is: a namespace an
	 * ancestor of the sandbox's user namespace owns (an engine's network namespace, joined by
	 * a container in a user namespace corral added) is out of reach from inside it. */
	for (size_t i = 1; geteuid() == 0 && i < ELEMENTSOF(kinds); i++)
		joined[i] = t->ns[i] >= 0 && setns(t->ns[i], kinds[i].type) == 0;
	/* The user namespace that owns the mount namespace first: the sandbox's first process may
	 * be in one nested in it (no user namespace inside the sandbox), which holds no rights
	 * over the mounts; that one is entered last, once the others are. */
	if (t->owner >= 0 && setns(t->owner, CLONE_NEWUSER) < 0) {
		dprintf(out, "-setns user (the mounts' owner): %s", strerror(errno));
		_exit(1);
	}
	for (size_t i = 1; i < ELEMENTSOF(kinds); i++)
		if (t->ns[i] >= 0 && !joined[i] && setns(t->ns[i], kinds[i].type) < 0) {
			dprintf(out, "-setns %s: %s", kinds[i].name, strerror(errno));
			_exit(1);
		}
	if (fchdir(t->root) < 0 || chroot(".") < 0) {
		dprintf(out, "-the sandbox's root: %s", strerror(errno));
		_exit(1);
	}
	if (t->ns[0] >= 0 && !t->owner_is_init && setns(t->ns[0], CLONE_NEWUSER) < 0) {
		dprintf(out, "-setns user: %s", strerror(errno));
		_exit(1);
	}
	pid = fork();
	if (pid < 0) {
		dprintf(out, "-fork: %s", strerror(errno));
		_exit(1);
	}
	if (pid == 0)
		command(p, sc, out);
	dprintf(out, "+%d", (int)pid);
	_exit(0);
}

pid_t cr_ns_enter(pid_t init, const struct cr_policy *p, char *msg, size_t size)
{
	_cleanup_(cr_seccomp_freep) struct cr_seccomp *sc = NULL;
	struct target t = { .owner = -1, .root = -1 };
	int pipefd[2], status, r;
	char buf[512] = "";
	ssize_t n;
	pid_t mid;

	r = cr_seccomp_prepare(p->seccomp, p->seccomp_profile, true, false, &sc, msg, size);
	r = r ?: open_target(init, &t, msg, size);
	if (r < 0)
		return r;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return negative_errno();
	mid = fork();
	if (mid < 0)
		return negative_errno();
	if (mid == 0) {
		(void)close(pipefd[0]);
		middle(init, p, sc, &t, pipefd[1]);
	}
	(void)close(pipefd[1]);
	for (size_t i = 0; i < ELEMENTSOF(kinds); i++)
		if (t.ns[i] >= 0)
			(void)close(t.ns[i]);
	(void)close(t.root);
	if (t.owner >= 0 && t.owner != t.ns[0])
		(void)close(t.owner);
	(void)waitpid(mid, &status, 0);
	/* "+PID", then the command's own error if its exec failed (the pipe closes at exec) */
	n = read(pipefd[0], buf, sizeof(buf) - 1);
	if (n > 0 && buf[0] == '+') {
		char *end;
		long pid = strtol(buf + 1, &end, 10);
		ssize_t k = *end ? 0 : read(pipefd[0], end, sizeof(buf) - 1 - (size_t)(end - buf));

		(void)close(pipefd[0]);
		if (k > 0 || *end)
			return snprintf(msg, size, "%s", *end ? end : buf), -ENOEXEC;
		return (pid_t)pid;
	}
	(void)close(pipefd[0]);
	buf[n > 0 ? n : 0] = '\0';
	return snprintf(msg, size, "%s", n > 1 ? buf + 1 : "cannot enter the sandbox"), -EPERM;
}
