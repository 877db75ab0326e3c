/* SPDX-License-Identifier: MIT */
/* peer: processes and sockets for the proc and net suites, run on the host and inside sandboxes.
 *
 *   peer listen-tcp PORT READYFILE     listen on 127.0.0.1:PORT (0: any free port), write the port
 *                                      to READYFILE, accept and close connections until killed
 *   peer connect-tcp HOST PORT         one TCP connection to a numeric IPv4 or IPv6 address
 *   peer listen-abstract NAME READYFILE, peer connect-abstract NAME
 *   peer listen-unix PATH READYFILE,     peer connect-unix PATH
 *                                      the same for an abstract or a path-bound unix socket
 *   peer daemon MARKERFILE [TAG...]    double fork + setsid; the grandchild writes its pid to
 *                                      MARKERFILE and sleeps; returns once it has. TAGs are
 *                                      ignored: they mark the command line for pgrep -f
 *   peer kill PID SIG                  kill(2); SIG is a number or a name (TERM, SIGTERM)
 *   peer wait-signal SIG FILE          write "ready" to FILE, wait for SIG, then write
 *                                      "ready\ngot SIGNAME" to FILE and exit 0
 *   peer deny-userns -- CMD [ARG...]   exec CMD under a seccomp filter that fails clone3 with
 *                                      ENOSYS and clone/unshare with CLONE_NEWUSER with EPERM:
 *                                      a host without user namespaces
 *
 * Exit status: 0, or the errno of what failed, with "peer: ACTION: strerror" on stderr. Every
 * wait is bounded; listeners and sleepers end by themselves after LIFETIME seconds at the latest,
 * so a test that dies before its cleanup leaves nothing behind for long. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define LIFETIME 600	 /* seconds a listener or a daemon lives at most */
#define WAIT_TIMEOUT 30 /* seconds wait-signal waits */
#define CONNECT_TIMEOUT 10

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#define NATIVE_ARCH 0 /* deny-userns reports ENOSYS; the test skips */
#endif

static const char *action = "peer";

static int fail(int err, const char *what)
{
	if (what)
		fprintf(stderr, "peer: %s: %s: %s\n", action, what, strerror(err));
	else
		fprintf(stderr, "peer: %s: %s\n", action, strerror(err));
	return err;
}

static int usage(const char *text)
{
	fprintf(stderr, "usage: peer %s\n", text);
	return EINVAL;
}

/* Write @text to @path in one go: readers see no file, or the whole text. */
static int write_file(const char *path, const char *text)
{
	char tmp[4096];
	int fd;
	ssize_t n;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno;
	n = write(fd, text, strlen(text));
	if (n != (ssize_t)strlen(text) || close(fd) < 0)
		return n < 0 ? errno : EIO;
	if (rename(tmp, path) < 0)
		return errno;
	return 0;
}

static int parse_int(const char *s, long min, long max, long *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return EINVAL;
	*ret = v;
	return 0;
}

static int parse_signal(const char *s, int *ret)
{
	long v;

	if (parse_int(s, 0, NSIG - 1, &v) == 0) {
		*ret = (int)v;
		return 0;
	}
	if (strncmp(s, "SIG", 3) == 0)
		s += 3;
	for (int sig = 1; sig < NSIG; sig++) {
		const char *name = sigabbrev_np(sig);

		if (name && strcmp(name, s) == 0) {
			*ret = sig;
			return 0;
		}
	}
	return EINVAL;
}

/* Accept and drop connections until killed (or LIFETIME runs out). */
static int serve(int fd, const char *readyfile, const char *ready)
{
	int r;

	if (listen(fd, 64) < 0)
		return fail(errno, "listen");
	r = write_file(readyfile, ready);
	if (r)
		return fail(r, readyfile);
	alarm(LIFETIME);
	for (;;) {
		int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

		if (c >= 0)
			close(c);
		else if (errno != EINTR && errno != ECONNABORTED)
			return fail(errno, "accept");
	}
}

static int listen_tcp(char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	char port[16];
	long v;
	int fd, one = 1;

	if (parse_int(argv[0], 0, 65535, &v))
		return usage("listen-tcp PORT READYFILE");
	sa.sin_port = htons((uint16_t)v);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(errno, "socket");
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return fail(errno, "bind");
	if (getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
		return fail(errno, "getsockname");
	(void)snprintf(port, sizeof(port), "%u\n", ntohs(sa.sin_port));
	return serve(fd, argv[1], port);
}

static int connect_tcp(char **argv)
{
	struct sockaddr_in6 sa6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct sockaddr *addr = (struct sockaddr *)&sa;
	socklen_t len = sizeof(sa);
	long port;
	int fd;

	if (parse_int(argv[1], 1, 65535, &port))
		return usage("connect-tcp HOST PORT");
	sa.sin_port = sa6.sin6_port = htons((uint16_t)port);
	if (inet_pton(AF_INET6, argv[0], &sa6.sin6_addr) == 1) {
		addr = (struct sockaddr *)&sa6;
		len = sizeof(sa6);
	} else if (inet_pton(AF_INET, argv[0], &sa.sin_addr) != 1) {
		return usage("connect-tcp HOST PORT (HOST: a numeric address)");
	}
	fd = socket(addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(errno, "socket");
	alarm(CONNECT_TIMEOUT);
	if (connect(fd, addr, len) < 0)
		return fail(errno, "connect");
	return 0;
}

/* A unix address: @name in the abstract namespace if @abstract, else a path. */
static int unix_addr(const char *name, bool abstract, struct sockaddr_un *sa, socklen_t *ret_len)
{
	size_t n = strlen(name), off = abstract ? 1 : 0;

	*sa = (struct sockaddr_un){ .sun_family = AF_UNIX };
	if (n + off >= sizeof(sa->sun_path))
		return ENAMETOOLONG;
	memcpy(sa->sun_path + off, name, n);
	*ret_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + off + n + (abstract ? 0 : 1));
	return 0;
}

static int listen_unix_common(char **argv, bool abstract)
{
	struct sockaddr_un sa;
	socklen_t len;
	int fd, r;

	r = unix_addr(argv[0], abstract, &sa, &len);
	if (r)
		return fail(r, argv[0]);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(errno, "socket");
	if (bind(fd, (struct sockaddr *)&sa, len) < 0)
		return fail(errno, "bind");
	return serve(fd, argv[1], "ready\n");
}

static int connect_unix_common(char **argv, bool abstract)
{
	struct sockaddr_un sa;
	socklen_t len;
	int fd, r;

	r = unix_addr(argv[0], abstract, &sa, &len);
	if (r)
		return fail(r, argv[0]);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(errno, "socket");
	alarm(CONNECT_TIMEOUT);
	if (connect(fd, (struct sockaddr *)&sa, len) < 0)
		return fail(errno, "connect");
	return 0;
}

static int listen_abstract(char **argv)
{
	return listen_unix_common(argv, true);
}

static int connect_abstract(char **argv)
{
	return connect_unix_common(argv, true);
}

static int listen_unix(char **argv)
{
	return listen_unix_common(argv, false);
}

static int connect_unix(char **argv)
{
	return connect_unix_common(argv, false);
}

static _Noreturn void daemon_grandchild(const char *marker, int ready_fd)
{
	char pid[32];
	int fd;

	(void)snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (write_file(marker, pid) != 0)
		_exit(1);
	/* Let go of the caller's stdio, as a daemon does: a pipe held open here would keep a
	 * test's $(...) waiting for as long as this process lives. */
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		(void)dup2(fd, 0);
		(void)dup2(fd, 1);
		(void)dup2(fd, 2);
	}
	(void)!write(ready_fd, "1", 1);
	close(ready_fd);
	alarm(LIFETIME); /* SIGALRM ends it */
	for (;;)
		pause();
}

static int daemon_(char **argv)
{
	int pipefd[2], status;
	pid_t child;
	char c;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return fail(errno, "pipe");
	child = fork();
	if (child < 0)
		return fail(errno, "fork");
	if (child == 0) {
		close(pipefd[0]);
		if (setsid() < 0)
			_exit(1);
		child = fork();
		if (child == 0)
			daemon_grandchild(argv[0], pipefd[1]);
		_exit(child < 0 ? 1 : 0);
	}
	close(pipefd[1]);
	if (waitpid(child, &status, 0) < 0)
		return fail(errno, "waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return fail(ECHILD, "the intermediate child failed");
	alarm(CONNECT_TIMEOUT);
	if (read(pipefd[0], &c, 1) != 1)
		return fail(EPIPE, "the daemon did not start");
	return 0;
}

static int kill_(char **argv)
{
	long pid;
	int sig;

	if (parse_int(argv[0], -2147483647L, 2147483647L, &pid) || parse_signal(argv[1], &sig))
		return usage("kill PID SIG");
	if (kill((pid_t)pid, sig) < 0)
		return fail(errno, NULL);
	return 0;
}

static int wait_signal(char **argv)
{
	struct timespec timeout = { .tv_sec = WAIT_TIMEOUT };
	char text[64];
	sigset_t set;
	int sig, r;

	if (parse_signal(argv[0], &sig) || sig == 0)
		return usage("wait-signal SIG FILE");
	(void)sigemptyset(&set);
	(void)sigaddset(&set, sig);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return fail(errno, "sigprocmask");
	r = write_file(argv[1], "ready\n");
	if (r)
		return fail(r, argv[1]);
	if (sigtimedwait(&set, NULL, &timeout) < 0)
		return fail(errno, "sigtimedwait");
	(void)snprintf(text, sizeof(text), "ready\ngot SIG%s\n", sigabbrev_np(sig));
	r = write_file(argv[1], text);
	return r ? fail(r, argv[1]) : 0;
}

static int deny_userns(char **argv)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 3),
		/* The flags are the first argument of both; its low word on these little-endian
		 * architectures. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };

	if (strcmp(argv[0], "--") == 0)
		argv++;
	if (!argv[0])
		return usage("deny-userns -- CMD [ARG...]");
	if (NATIVE_ARCH == 0)
		return fail(ENOSYS, "no filter for this architecture");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(errno, "PR_SET_NO_NEW_PRIVS");
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return fail(errno, "PR_SET_SECCOMP");
	execvp(argv[0], argv);
	return fail(errno, argv[0]);
}

static const struct {
	const char *name;
	int n_args; /* at least */
	int (*run)(char **argv);
	const char *usage;
} actions[] = {
	{ "listen-tcp", 2, listen_tcp, "listen-tcp PORT READYFILE" },
	{ "connect-tcp", 2, connect_tcp, "connect-tcp HOST PORT" },
	{ "listen-abstract", 2, listen_abstract, "listen-abstract NAME READYFILE" },
	{ "connect-abstract", 1, connect_abstract, "connect-abstract NAME" },
	{ "listen-unix", 2, listen_unix, "listen-unix PATH READYFILE" },
	{ "connect-unix", 1, connect_unix, "connect-unix PATH" },
	{ "daemon", 1, daemon_, "daemon MARKERFILE [TAG...]" },
	{ "kill", 2, kill_, "kill PID SIG" },
	{ "wait-signal", 2, wait_signal, "wait-signal SIG FILE" },
	{ "deny-userns", 1, deny_userns, "deny-userns -- CMD [ARG...]" },
};

int main(int argc, char **argv)
{
	for (size_t i = 0; argc > 1 && i < sizeof(actions) / sizeof(actions[0]); i++) {
		if (strcmp(argv[1], actions[i].name) != 0)
			continue;
		action = actions[i].name;
		if (argc - 2 < actions[i].n_args)
			return usage(actions[i].usage);
		return actions[i].run(argv + 2);
	}
	fprintf(stderr, "usage: peer ACTION [ARG...]; actions:\n");
	for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		fprintf(stderr, "  peer %s\n", actions[i].usage);
	return EINVAL;
}
