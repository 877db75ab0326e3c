/* SPDX-License-Identifier: MIT */
/* --net=allow_hosts: the two ends of the socketpair between the forwarder, in the sandbox, and
 * corral's proxy (ns/net/proxy.c). The forwarder parses nothing and decides nothing: it hands each
 * connection it accepts to corral. See proxy.h. */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <netinet/in.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "launcher/base/fd-util.h"
#include "launcher/base/macro.h"
#include "proxy-internal.h"
#include "proxy.h"
#include "landlock/landlock.h"
#include "seccomp/seccomp.h"

/* Connections the kernel queues on the forwarder's port before it accepts them: SOMAXCONN's
 * value before Linux 5.4, room for a burst of parallel downloads by the command. */
#define LISTEN_BACKLOG 128
/* After accept() failed for want of memory or descriptors, wait this long (10 ms) before the
 * next try: the forwarder must not spin on a limit, and a descriptor freed is soon used. */
#define ACCEPT_BACKOFF_NS 10000000L

/* --- corral's end --------------------------------------------------------------------------- */

static bool is_stream_socket(int fd)
{
	int type = 0;
	socklen_t len = sizeof(type);

	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM;
}

int cr_proxy_receive_fd(int sock)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(4 * sizeof(int))];
	} ctl;
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf) };
	ssize_t n;
	int fd = -EBADF;

	n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? -EAGAIN : negative_errno();
	if (n == 0)
		return -EPIPE;
	for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (h->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int got;

			memcpy(&got, CMSG_DATA(h) + i * sizeof(int), sizeof(int));
			if (fd < 0)
				fd = got;
			else
				(void)close(got);
		}
	}
	if (fd >= 0 && !is_stream_socket(fd)) {
		(void)close(fd);
		return -EAGAIN;
	}
	return fd >= 0 ? fd : -EAGAIN;
}

/* --- the forwarder, in the sandbox ------------------------------------------------------------ */

int cr_proxy_listen(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(CR_PROXY_PORT),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	_cleanup_close_ int fd = -EBADF;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return negative_errno();
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, LISTEN_BACKLOG) < 0)
		return negative_errno();
	return TAKE_FD(fd);
}

static int send_fd(int sock, int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl = {};
	char byte = 'c';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);

	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof(int));
	while (sendmsg(sock, &m, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return negative_errno();
	return 0;
}

/* accept() errors that concern one connection only (accept(2): "treat them like EAGAIN"). */
static bool accept_retry(int err)
{
	static const int errs[] = { EINTR,	 EAGAIN, ECONNABORTED, EPROTO,	     ENETDOWN,
				    ENOPROTOOPT, EHOSTDOWN, ENONET,    EHOSTUNREACH, EOPNOTSUPP,
				    ENETUNREACH };

	for (size_t i = 0; i < ELEMENTSOF(errs); i++)
		if (err == errs[i])
			return true;
	return false;
}

/* The whole forwarder: it parses nothing and decides nothing. It ignores the signals pid 1
 * forwards (an interrupt for the command must not take the network away from it), runs under the
 * command's syscall filter, and ends with the sandbox's pid namespace, when corral's end of the
 * socketpair is gone, or at an error that is not about one connection. */
static _Noreturn void forwarder_main(int listen_fd, int sock_fd,
				     const struct cr_landlock_plan *landlock,
				     const struct cr_seccomp *filter)
{
	char msg[200];
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t none;

	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)sigaction(sig, &ign, NULL);
	(void)sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	(void)prctl(PR_SET_NAME, "corral-proxy", 0, 0, 0);
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 ||
	    (landlock && cr_landlock_apply(landlock, NULL, 0, msg, sizeof(msg)) < 0) ||
	    cr_close_all_except(0, (int[]){ listen_fd, sock_fd }, 2) < 0 ||
	    cr_seccomp_install(filter) < 0)
		_exit(1);
	for (;;) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC), r;

		if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM))
			(void)nanosleep(&(struct timespec){.tv_nsec = ACCEPT_BACKOFF_NS}, NULL);
		else if (fd < 0 && !accept_retry(errno))
			_exit(1);
		if (fd < 0)
			continue;
		r = send_fd(sock_fd, fd);
		(void)close(fd);
		if (r == -EPIPE || r == -ECONNREFUSED || r == -ENOTCONN || r == -ECONNRESET)
			_exit(0); /* corral's proxy is gone */
	}
}

pid_t cr_proxy_fork_forwarder(int listen_fd, int sock_fd, const struct cr_landlock_plan *landlock,
			      const struct cr_seccomp *filter)
{
	pid_t pid = fork();

	if (pid < 0)
		return negative_errno();
	if (pid == 0)
		forwarder_main(listen_fd, sock_fd, landlock, filter);
	return pid;
}
