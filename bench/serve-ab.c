/* SPDX-License-Identifier: MIT */
/* bench-serve-ab [--runs N] [--stdio] CORRAL...: the round trip of an exec through `corral serve`
 * against a bare spawn of the same program from the client's process, with one server per CORRAL
 * (before and after a change), interleaved in one run:
 *
 *   posix_spawn  posix_spawn("/bin/true") + waitpid, stdout and stderr on /dev/null
 *   fork+exec    fork() + execve("/bin/true") + waitpid, the same
 *   CORRAL       one {"type":"exec",...,"argv":["/bin/true"]} line written to CORRAL's server
 *                and its exec_result line read back
 *
 * Each server is `CORRAL serve --socket PATH --pool 2` (with --stdio: on pipes), its ledger and
 * state in a temporary directory, with one session opened before the first round. Every round
 * runs every subject once, in a shuffled order, after 20 unrecorded rounds; every sample follows
 * the same 2 ms pause, so that each starts from an idle machine and the refill of a server's pool
 * (made after its answer) is not charged to the next subject. Prints min, median and p90 in
 * microseconds and each median's ratio to posix_spawn's and to fork+exec's. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_SERVERS 4
#define WARMUP      20
#define PAUSE_US    2000

struct server {
	const char *corral;
	pid_t pid;
	int to, from;
	char buf[1 << 16];
	size_t len;
	unsigned long next_id;
};

static double now_us(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Read one response line; 0 if it contains @want, -ECHILD if not, -errno on I/O failure. */
static int read_line(struct server *s, const char *want)
{
	char *nl;
	ssize_t k;
	int r;

	while (!(nl = memchr(s->buf, '\n', s->len))) {
		if (s->len == sizeof(s->buf))
			return -E2BIG;
		k = read(s->from, s->buf + s->len, sizeof(s->buf) - s->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EPIPE;
		s->len += (size_t)k;
	}
	*nl = '\0';
	r = strstr(s->buf, want) ? 0 : -ECHILD;
	if (r < 0)
		fprintf(stderr, "bench-serve-ab: %s answered: %s\n", s->corral, s->buf);
	s->len -= (size_t)(nl + 1 - s->buf);
	memmove(s->buf, nl + 1, s->len);
	return r;
}

static int write_all(int fd, const char *line, size_t len)
{
	while (len > 0) {
		ssize_t k = write(fd, line, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		line += k;
		len -= (size_t)k;
	}
	return 0;
}

static int connect_to(const char *path, int *ret_fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	for (int i = 0; i < 500; i++) { /* up to 5 s for the server to listen */
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			*ret_fd = fd;
			return 0;
		}
		(void)close(fd);
		(void)usleep(10000);
	}
	return -ETIMEDOUT;
}

/* Start @s's server with its socket in @dir, open a session whose workspace is @dir/ws (the
 * server refuses a session that would see its socket). */
static int server_start(struct server *s, const char *dir, int index, bool stdio)
{
	char sock[256], line[512];
	int in[2], out[2], r;

	snprintf(sock, sizeof(sock), "%s/serve-%d.sock", dir, index);
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	s->pid = fork();
	if (s->pid < 0)
		return -errno;
	if (s->pid == 0) {
		(void)dup2(in[0], STDIN_FILENO);
		(void)dup2(out[1], STDOUT_FILENO);
		if (stdio)
			execl(s->corral, s->corral, "serve", "--stdio", "--pool", "2", (char *)NULL);
		else
			execl(s->corral, s->corral, "serve", "--socket", sock, "--pool", "2",
			      (char *)NULL);
		_exit(127);
	}
	(void)close(in[0]);
	(void)close(out[1]);
	s->to = in[1];
	s->from = out[0];
	if (!stdio) {
		r = connect_to(sock, &s->to);
		if (r < 0)
			return r;
		(void)close(s->from);
		s->from = s->to;
	}
	snprintf(line, sizeof(line),
		 "{\"type\":\"open_session\",\"id\":0,\"session\":\"ab\",\"workspace\":\"%s/ws\"}\n",
		 dir);
	r = write_all(s->to, line, strlen(line));
	return r < 0 ? r : read_line(s, "\"open_session_result\"");
}

static void server_stop(struct server *s)
{
	if (s->pid <= 0)
		return;
	(void)kill(s->pid, SIGTERM);
	(void)waitpid(s->pid, NULL, 0);
}

/* One sample of subject @i (0 posix_spawn, 1 fork+exec, 2... a server), in microseconds. */
static int sample(struct server *sv, size_t i, int devnull, double *ret_us)
{
	static char *const argv[] = { "/bin/true", NULL };
	posix_spawn_file_actions_t fa;
	double t0 = now_us();
	char line[256];
	pid_t pid;
	int r = 0, status;

	if (i == 0) {
		if (posix_spawn_file_actions_init(&fa) != 0)
			return -ENOMEM;
		(void)posix_spawn_file_actions_adddup2(&fa, devnull, STDOUT_FILENO);
		(void)posix_spawn_file_actions_adddup2(&fa, devnull, STDERR_FILENO);
		r = -posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
		posix_spawn_file_actions_destroy(&fa);
	} else if (i == 1) {
		pid = fork();
		if (pid == 0) {
			(void)dup2(devnull, STDOUT_FILENO);
			(void)dup2(devnull, STDERR_FILENO);
			execve(argv[0], argv, environ);
			_exit(127);
		}
		r = pid < 0 ? -errno : 0;
	} else {
		struct server *s = &sv[i - 2];

		snprintf(line, sizeof(line),
			 "{\"type\":\"exec\",\"id\":%lu,\"session\":\"ab\",\"argv\":[\"%s\"]}\n",
			 ++s->next_id, argv[0]);
		r = write_all(s->to, line, strlen(line));
		r = r < 0 ? r : read_line(s, "\"exit_code\":0,");
		pid = -1;
	}
	if (r == 0 && pid > 0 && (waitpid(pid, &status, 0) < 0 || status != 0))
		r = -ECHILD;
	*ret_us = now_us() - t0;
	return r;
}

static void print_subject(const char *name, double *v, size_t n, double spawn, double fork_exec)
{
	double med = v[n / 2];

	printf("%-36s min %8.1f  median %8.1f  p90 %8.1f us  x posix_spawn %5.2f  x fork+exec "
	       "%5.2f\n",
	       name, v[0], med, v[n * 9 / 10], med / spawn, med / fork_exec);
}

static int measure(struct server *sv, size_t n_sv, size_t runs, double *samples)
{
	size_t n = 2 + n_sv, order[2 + MAX_SERVERS];
	uint64_t rng = (uint64_t)now_us() | 1;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC), r = 0;

	if (devnull < 0)
		return -errno;
	for (size_t rd = 0; rd < WARMUP + runs && r >= 0; rd++) {
		for (size_t i = 0; i < n; i++)
			order[i] = i;
		for (size_t i = n; i > 1; i--) { /* xorshift64* */
			size_t j, t;

			rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
			j = (size_t)((rng * 2685821657736338717ULL) % i);
			t = order[i - 1], order[i - 1] = order[j], order[j] = t;
		}
		for (size_t k = 0; k < n && r >= 0; k++) {
			double us = 0;

			(void)usleep(PAUSE_US);
			r = sample(sv, order[k], devnull, &us);
			if (rd >= WARMUP)
				samples[order[k] * runs + rd - WARMUP] = us;
		}
	}
	(void)close(devnull);
	return r;
}

int main(int argc, char **argv)
{
	struct server sv[MAX_SERVERS] = {};
	char dir[] = "/tmp/bench-serve-ab.XXXXXX", path[300];
	size_t runs = 500, n_sv = 0;
	bool stdio = false;
	double *samples;
	int r = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--stdio"))
			stdio = true;
		else if (argv[i][0] != '-' && n_sv < MAX_SERVERS)
			sv[n_sv++].corral = argv[i];
		else
			runs = 0;
	}
	if (runs < 10 || n_sv == 0) {
		fprintf(stderr, "usage: bench-serve-ab [--runs N] [--stdio] CORRAL... (1 to %d)\n",
			MAX_SERVERS);
		return 2;
	}
	samples = calloc((2 + n_sv) * runs, sizeof(double));
	if (!samples || !mkdtemp(dir) || chmod(dir, 0755) < 0)
		return 1;
	/* As root, corral runs the command as 65534, which must be able to use the workspace. */
	snprintf(path, sizeof(path), "%s/ws", dir);
	if (mkdir(path, 0755) < 0 || (geteuid() == 0 && chown(path, 65534, 65534) < 0))
		return 1;
	/* The servers' ledgers and state stay in the temporary directory. */
	snprintf(path, sizeof(path), "%s/state", dir);
	(void)setenv("XDG_STATE_HOME", path, 1);
	snprintf(path, sizeof(path), "%s/config", dir);
	(void)setenv("XDG_CONFIG_HOME", path, 1);
	(void)signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; i < n_sv && r >= 0; i++)
		if ((r = server_start(&sv[i], dir, (int)i, stdio)) < 0)
			fprintf(stderr, "bench-serve-ab: %s serve: %s\n", sv[i].corral, strerror(-r));
	if (r >= 0 && (r = measure(sv, n_sv, runs, samples)) < 0)
		fprintf(stderr, "bench-serve-ab: a sample failed: %s\n", strerror(-r));
	for (size_t i = 0; i < n_sv; i++)
		server_stop(&sv[i]);
	if (r >= 0) {
		for (size_t i = 0; i < 2 + n_sv; i++)
			qsort(samples + i * runs, runs, sizeof(double), cmp_double);
		printf("%zu runs of /bin/true after %d warm-up rounds, interleaved, %s\n", runs,
		       WARMUP, stdio ? "--stdio" : "--socket");
		for (size_t i = 0; i < 2 + n_sv; i++)
			print_subject(i == 0 ? "posix_spawn" : i == 1 ? "fork+exec" : sv[i - 2].corral,
				      samples + i * runs, runs, samples[runs / 2],
				      samples[runs + runs / 2]);
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	(void)!system(path);
	free(samples);
	return r < 0;
}
