/* SPDX-License-Identifier: MIT */
/* `corral pool start|stop|status`: the verb. start binds the socket, then leaves the pool running
 * in the background (or, with --foreground, runs it in this process). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "launcher/base/exit-codes.h"
#include "launcher/base/fd-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/parse-util.h"
#include "launcher/serve/serve-internal.h"
#include "pool-internal.h"
#include "pool-server.h"
#include "pool.h"

extern char **environ;

const char cr_pool_usage[] =
	"Usage: corral pool start [--size N] [--foreground]\n"
	"       corral pool stop\n"
	"       corral pool status\n"
	"\n"
	"Keep pre-built, never-used sandboxes ready for `corral run` (docs/pool.md). Each command\n"
	"gets a sandbox nobody used before, destroyed when it ends; the pool builds the next one off\n"
	"the command's path. The socket is $XDG_RUNTIME_DIR/corral/pool.sock (else pool.sock in\n"
	"corral's state directory); only processes of your uid outside every sandbox may use it.\n"
	"\n"
	"  --size N        sandboxes kept ready for each policy, the stock a burst is served from\n"
	"                  (1-32; default: size in the [pool] section of\n"
	"                  $XDG_CONFIG_HOME/corral/pool.conf, else 8)\n"
	"  --foreground    run the pool in this process (its messages on stderr)\n"
	"  -h, --help      show this text\n"
	"\n"
	"corral run uses a running pool by default (--pool=auto, or CORRAL_POOL); --pool=require\n"
	"fails without one, --pool=never never uses it. Exit status: 0, 1 when no pool runs (stop,\n"
	"status), 125 on bad usage or when the pool cannot start.\n";

static int connect_pool(const char *path, char *why, size_t size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;

		(void)close(fd);
		return r;
	}
	if (pool_server_check(fd, path, why, size) < 0) {
		(void)close(fd);
		return -EPERM;
	}
	return fd;
}

static int listen_pool(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -EBADF;
	struct stat st;
	mode_t old;
	int r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return cr_log_errno(-ENAMETOOLONG, "pool: the socket path %s is too long", path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return cr_log_errno(-EEXIST, "pool: %s exists and is not a socket", path);
		(void)unlink(path); /* a dead pool's: connect() failed */
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return cr_log_errno(-errno, "pool: socket: %m");
	old = umask(077);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? -errno : 0;
	(void)umask(old);
	if (r < 0)
		return cr_log_errno(r, "pool: cannot bind %s: %m", path);
	if (listen(fd, 128) < 0)
		return cr_log_errno(-errno, "pool: cannot listen on %s: %m", path);
	return TAKE_FD(fd);
}

/* In the background: a session of its own, /dev/null for 0-2, no controlling terminal. */
static int detach(void)
{
	pid_t pid = fork();
	int null;

	if (pid != 0)
		return pid < 0 ? -errno : 1;
	(void)setsid();
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int i = 0; null >= 0 && i < 3; i++)
		(void)dup2(null, i);
	if (null > 2)
		(void)close(null);
	return 0;
}

static int pool_start(unsigned size, bool foreground)
{
	_cleanup_free_ char *path = NULL;
	const char *where;
	char why[512];
	int fd, r;

	r = cr_pool_socket_path(environ, true, &path);
	if (r < 0)
		return cr_log_errno(r, "pool: cannot make the socket's directory: %m"), CR_EXIT_SETUP;
	where = cr_serve_policy_shows(&(struct cr_policy){}, cr_driver_native()->system_paths,
				      path);
	if (where) {
		cr_log_error("pool: the socket %s lies inside %s, which every sandbox sees; set "
			     "XDG_RUNTIME_DIR elsewhere", path, where);
		return CR_EXIT_SETUP;
	}
	fd = connect_pool(path, why, sizeof(why));
	if (fd == -EPERM) {
		cr_log_error("pool: %s", why);
		return CR_EXIT_SETUP;
	}
	if (fd >= 0) {
		(void)close(fd);
		printf("%s\n", path);
		cr_log_warning("pool: already running on %s", path);
		return 0;
	}
	fd = listen_pool(path);
	if (fd < 0)
		return CR_EXIT_SETUP;
	if (!foreground) {
		r = detach();
		if (r != 0) {
			(void)close(fd);
			if (r < 0)
				return cr_log_errno(r, "pool: fork: %m"), CR_EXIT_SETUP;
			printf("%s\n", path);
			return 0;
		}
	}
	r = pool_serve(fd, path, size);
	(void)unlink(path);
	(void)close(fd);
	if (r < 0)
		cr_log_errno(r, "pool: %m");
	return r < 0 ? CR_EXIT_SETUP : 0;
}

/* stop and status: one request, then the reply (status) or the end of the pool (stop). */
static int pool_ask(uint32_t type)
{
	_cleanup_free_ char *path = NULL, *buf = malloc(CR_POOL_MAX_MSG);
	struct pool_req h = { .type = type, .proto = CR_POOL_PROTO };
	char why[512];
	struct pool_reply rp;
	_cleanup_close_ int fd = -EBADF;
	ssize_t n;

	if (!buf || cr_pool_socket_path(environ, false, &path) < 0)
		return CR_EXIT_SETUP;
	fd = connect_pool(path, why, sizeof(why));
	if (fd == -EPERM) {
		cr_log_error("pool: %s", why);
		return 1;
	}
	if (fd < 0) {
		cr_log_error("pool: no pool is running (%s: %s)", path, strerror(-fd));
		return 1;
	}
	if (cr_send_fds(fd, &h, sizeof(h), NULL, 0, 0) < 0)
		return 1;
	n = recv(fd, buf, CR_POOL_MAX_MSG - 1, 0); /* stop: end of file once it is gone */
	if (type == POOL_STATUS) {
		if (n < (ssize_t)sizeof(rp))
			return 1;
		memcpy(&rp, buf, sizeof(rp));
		if (rp.type != POOL_STATS) {
			cr_log_error("pool: the pool could not report its state (out of memory)");
			return 1;
		}
		buf[n] = '\0';
		printf("%s\n", buf + sizeof(rp));
	}
	return 0;
}

/* start with the stock of --size @opt, else pool.conf's, else the default. */
static int start_sized(const char *opt, bool foreground)
{
	unsigned size = CR_POOL_DEFAULT_SIZE;
	uint64_t v;
	char msg[512];

	if (opt && cr_parse_uint(opt, 1, CR_POOL_MAX_SIZE, &v) < 0) {
		cr_log_error("pool: --size %s: expected a whole number from 1 to %d", opt,
			     CR_POOL_MAX_SIZE);
		return CR_EXIT_SETUP;
	}
	if (opt)
		size = (unsigned)v;
	else if (pool_config_size(environ, &size, msg, sizeof(msg)) < 0) {
		cr_log_error("pool: %s", msg);
		return CR_EXIT_SETUP;
	}
	return pool_start(size, foreground);
}

int cr_pool_main(int argc, char **argv)
{
	static const struct option opts[] = { { "size", required_argument, NULL, 's' },
					      { "foreground", no_argument, NULL, 'f' },
					      { "help", no_argument, NULL, 'h' },
					      {} };
	const char *verb = argc > 1 ? argv[1] : NULL;
	bool foreground = false;
	const char *size = NULL;
	int c;

	if (verb && (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0)) {
		fputs(cr_pool_usage, stdout);
		return 0;
	}
	opterr = 0;
	optind = 0; /* full reinitialisation; argv[1], the verb, is getopt's argv[0] */
	while (verb && (c = getopt_long(argc - 1, argv + 1, "+", opts, NULL)) != -1) {
		if (c == 'f')
			foreground = true;
		else if (c == 's')
			size = optarg;
		else if (c == 'h') {
			fputs(cr_pool_usage, stdout);
			return 0;
		} else {
			cr_log_error("pool: bad option '%s' (try: corral pool --help)",
				     argv[optind]);
			return CR_EXIT_SETUP;
		}
	}
	if (verb && optind == argc - 1 && strcmp(verb, "start") == 0)
		return start_sized(size, foreground);
	if (verb && argc == 2 && strcmp(verb, "stop") == 0)
		return pool_ask(POOL_STOP);
	if (verb && argc == 2 && strcmp(verb, "status") == 0)
		return pool_ask(POOL_STATUS);
	if (verb)
		cr_log_error("pool: unknown command or extra arguments: %s (try: corral pool --help)",
			     verb);
	else
		fputs(cr_pool_usage, stderr);
	return CR_EXIT_SETUP;
}
