/* SPDX-License-Identifier: MIT */
/* probe ACTION [ARG...]: perform exactly one action, with harmless arguments, and exit with 0 on
 * success or the errno of the failure (after "probe: ACTION: strerror" on stderr). Modelled on
 * bubblewrap's tests/try-syscall.c. Used inside sandboxes and, as a control, on the host.
 *
 *   write PATH             create or truncate PATH and write one byte
 *   read PATH              read PATH and copy it to stdout
 *   read-fd N              read descriptor N and copy it to stdout
 *   mkdir PATH             create the directory PATH
 *   remount-rw PATH        clear read-only on the mount at PATH with mount(MS_REMOUNT|MS_BIND)
 *                          and with mount_setattr(); succeeds if either call does
 *   mount-tmpfs PATH       mount a tmpfs on PATH
 *   tiocsti FD             push one space into the input queue of the terminal on FD
 *   isatty FD              TCGETS on FD
 *   status-field NAME      print the value of NAME from /proc/self/status
 *   setuid N               setuid(N)
 *   unshare-user           unshare(CLONE_NEWUSER)
 *   clone3-user            clone3() with CLONE_NEWUSER: a child that exits 0, reaped
 *   fork                   fork a child that exits 0, and reap it
 *   forks N                a bounded fork bomb: fork up to N children that wait (each dies with
 *                          probe), print how many were made, kill and reap them; 0 if all N
 *                          were made, else the errno of the fork that failed
 *   fds                    print the numbers of the open descriptors, e.g. "0 1 2"
 *   chroot PATH            chroot(PATH)
 *   chroot-escape DIR      the classic escape from a chroot: chroot(DIR) with the working
 *                          directory left outside it, climb with "..", chroot("."); succeeds
 *                          only if the root reached is not the one it started in (else EPERM)
 *   sysctl-write PATH VAL  write VAL to PATH (pass the current value)
 *   chroot-escape DIR PATH the classic way out of a chroot: chroot to DIR (made) with the
 *                          working directory left above it, climb "..", chroot there, read PATH
 *   syscall NR [ARG...]    the raw syscall NR with up to 6 arguments (C syntax: 0x1f, -1);
 *                          prints its return value
 *   int80 NR [ARG...]      the same through the i386 entry, int $0x80 (x86_64 only): NR and
 *                          the arguments are i386's, 32 bits
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

/* Declared here rather than taken from <linux/mount.h>, which clashes with <sys/mount.h> on
 * older glibc. */
struct probe_mount_attr {
	unsigned long long attr_set, attr_clr, propagation, userns_fd;
};

static const char *action;

/* Every action returns 0 or a positive errno. */
static int fail(void)
{
	return errno ?: EIO;
}

static int parse_num(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 0 || v > INT_MAX) {
		fprintf(stderr, "probe: %s: '%s' is not a number\n", action, s);
		exit(EINVAL);
	}
	return (int)v;
}

static int copy_out(int fd)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write(STDOUT_FILENO, buf, (size_t)n) != n)
			return fail();
	}
	return 0;
}

static int do_write(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);
	int r = 0;

	if (fd < 0)
		return fail();
	if (write(fd, "x", 1) != 1)
		r = fail();
	if (close(fd) < 0 && r == 0)
		r = fail();
	return r;
}

static int do_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	int r;

	if (fd < 0)
		return fail();
	r = copy_out(fd);
	(void)close(fd);
	return r;
}

static int do_sysctl_write(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(value);
	int r = 0;

	if (fd < 0)
		return fail();
	if (write(fd, value, len) != (ssize_t)len)
		r = fail();
	(void)close(fd);
	return r;
}

static int do_remount_rw(const char *path)
{
	struct probe_mount_attr attr = { .attr_clr = MOUNT_ATTR_RDONLY };
	int r;

	if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND, NULL) == 0)
		return 0;
	r = errno;
	fprintf(stderr, "probe: remount-rw: mount(MS_REMOUNT|MS_BIND): %s\n", strerror(r));
	if (syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &attr, sizeof(attr)) == 0)
		return 0;
	fprintf(stderr, "probe: remount-rw: mount_setattr: %s\n", strerror(errno));
	return r;
}

static int do_tiocsti(int fd)
{
	char c = ' ';

	return ioctl(fd, TIOCSTI, &c) == 0 ? 0 : fail();
}

static int do_isatty(int fd)
{
	struct termios t;

	return ioctl(fd, TCGETS, &t) == 0 ? 0 : fail();
}

static int do_status_field(const char *name)
{
	size_t len = strlen(name);
	char line[512];
	FILE *f;

	f = fopen("/proc/self/status", "re");
	if (!f)
		return fail();
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, name, len) == 0 && line[len] == ':') {
			fputs(line + len + 1 + strspn(line + len + 1, " \t"), stdout);
			(void)fclose(f);
			return 0;
		}
	(void)fclose(f);
	return ENOENT;
}

static int do_fork(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return fail();
	if (pid == 0)
		_exit(0);
	if (waitpid(pid, &status, 0) < 0)
		return fail();
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : ECHILD;
}

/* struct clone_args's first fields (CLONE_ARGS_SIZE_VER0), declared here for older headers. */
struct probe_clone_args {
	unsigned long long flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

/* clone3()'s flags live in memory, where no seccomp filter reads them. */
static int do_clone3_user(void)
{
	struct probe_clone_args a = { .flags = CLONE_NEWUSER, .exit_signal = SIGCHLD };
	int status;
	long pid = syscall(__NR_clone3, &a, sizeof(a));

	if (pid < 0)
		return fail();
	if (pid == 0)
		_exit(0);
	if (waitpid((pid_t)pid, &status, 0) < 0)
		return fail();
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : ECHILD;
}

static int do_chroot_escape_read(const char *dir, const char *path)
{
	if ((mkdir(dir, 0700) < 0 && errno != EEXIST) || chroot(dir) < 0)
		return fail();
	for (int i = 0; i < 64; i++)
		if (chdir("..") < 0)
			return fail();
	return chroot(".") == 0 ? do_read(path) : fail();
}

static int do_forks(long n)
{
	pid_t *kids = calloc(n > 0 ? (size_t)n : 1, sizeof(*kids));
	long made = 0;
	int r = 0;

	if (!kids)
		return ENOMEM;
	for (; made < n; made++) {
		kids[made] = fork();
		if (kids[made] < 0) {
			r = fail();
			break;
		}
		if (kids[made] == 0) {
			(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
			pause();
			_exit(0);
		}
	}
	printf("%ld\n", made);
	for (long i = 0; i < made; i++)
		(void)kill(kids[i], SIGKILL);
	for (long i = 0; i < made; i++)
		(void)waitpid(kids[i], NULL, 0);
	free(kids);
	return r;
}

static int do_chroot_escape(const char *dir)
{
	struct stat before, after;

	if (stat("/", &before) < 0 || chdir("/") < 0 || chroot(dir) < 0)
		return fail();
	for (int i = 0; i < 256; i++)
		if (chdir("..") < 0)
			return fail();
	if (chroot(".") < 0 || stat("/", &after) < 0)
		return fail();
	if (before.st_dev == after.st_dev && before.st_ino == after.st_ino) {
		fprintf(stderr, "probe: %s: still in the same root\n", action);
		return EPERM;
	}
	return 0;
}

static int do_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	const char *sep = "";
	struct dirent *e;

	if (!d)
		return fail();
	/* Numeric order is the order of the kernel's listing. */
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d)) {
			printf("%s%s", sep, e->d_name);
			sep = " ";
		}
	putchar('\n');
	(void)closedir(d);
	return 0;
}

static unsigned long long parse_u64(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = *s == '-' ? (unsigned long long)strtoll(s, &end, 0) : strtoull(s, &end, 0);
	if (errno || *end || end == s) {
		fprintf(stderr, "probe: %s: '%s' is not a number\n", action, s);
		exit(EINVAL);
	}
	return v;
}

#if defined(__x86_64__)
static long int80(unsigned long long *v)
{
	long ret;

	/* i386 registers: eax the number, then ebx, ecx, edx, esi, edi. */
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(v[0]), "b"(v[1]), "c"(v[2]), "d"(v[3]), "S"(v[4]), "D"(v[5])
			 : "memory", "r8", "r9", "r10", "r11");
	return (int)ret;
}
#endif

static int do_syscall(int argc, char **argv, int i386)
{
	unsigned long long v[7] = {};
	long r;

	if (argc > 7)
		return EINVAL;
	for (int i = 0; i < argc; i++)
		v[i] = parse_u64(argv[i]);
	if (i386) {
#if defined(__x86_64__)
		r = int80(v);
		if (r < 0 && r > -4096) {
			errno = (int)-r;
			return fail();
		}
#else
		return ENOSYS;
#endif
	} else {
		r = syscall((long)v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
		if (r < 0)
			return fail();
	}
	printf("%ld\n", r);
	return 0;
}

static int usage(void)
{
	fputs("usage: probe ACTION [ARG...]; ACTION is one of write read read-fd mkdir remount-rw\n"
	      "       mount-tmpfs tiocsti isatty status-field setuid unshare-user clone3-user fork\n"
	      "       forks fds chroot chroot-escape sysctl-write syscall int80 (see probe.c)\n",
	      stderr);
	return EINVAL;
}

static int run(int argc, char **argv)
{
	const char *a;

	if (argc == 1 && strcmp(action, "unshare-user") == 0)
		return unshare(CLONE_NEWUSER) == 0 ? 0 : fail();
	if (argc == 1 && strcmp(action, "clone3-user") == 0)
		return do_clone3_user();
	if (argc == 1 && strcmp(action, "fork") == 0)
		return do_fork();
	if (argc == 1 && strcmp(action, "fds") == 0)
		return do_fds();
	if (argc >= 2 && (strcmp(action, "syscall") == 0 || strcmp(action, "int80") == 0))
		return do_syscall(argc - 1, argv + 1, strcmp(action, "int80") == 0);
	if (argc == 3 && strcmp(action, "chroot-escape") == 0)
		return do_chroot_escape_read(argv[1], argv[2]);
	if (argc != 2 && !(argc == 3 && strcmp(action, "sysctl-write") == 0))
		return usage();
	a = argv[1];
	if (strcmp(action, "write") == 0)
		return do_write(a);
	if (strcmp(action, "read") == 0)
		return do_read(a);
	if (strcmp(action, "read-fd") == 0)
		return copy_out(parse_num(a));
	if (strcmp(action, "forks") == 0)
		return do_forks(parse_num(a));
	if (strcmp(action, "mkdir") == 0)
		return mkdir(a, 0755) == 0 ? 0 : fail();
	if (strcmp(action, "remount-rw") == 0)
		return do_remount_rw(a);
	if (strcmp(action, "mount-tmpfs") == 0)
		return mount("tmpfs", a, "tmpfs", 0, NULL) == 0 ? 0 : fail();
	if (strcmp(action, "tiocsti") == 0)
		return do_tiocsti(parse_num(a));
	if (strcmp(action, "isatty") == 0)
		return do_isatty(parse_num(a));
	if (strcmp(action, "status-field") == 0)
		return do_status_field(a);
	if (strcmp(action, "setuid") == 0)
		return setuid((uid_t)parse_num(a)) == 0 ? 0 : fail();
	if (strcmp(action, "chroot") == 0)
		return chroot(a) == 0 ? 0 : fail();
	if (strcmp(action, "chroot-escape") == 0)
		return do_chroot_escape(a);
	if (strcmp(action, "sysctl-write") == 0)
		return do_sysctl_write(a, argv[2]);
	return usage();
}

int main(int argc, char **argv)
{
	int r;

	if (argc < 2)
		return usage();
	action = argv[1];
	r = run(argc - 1, argv + 1);
	if (r > 255)
		r = EIO; /* not representable as an exit status */
	if (r != 0)
		fprintf(stderr, "probe: %s: %s\n", action, strerror(r));
	return r;
}
