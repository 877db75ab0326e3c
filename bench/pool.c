/* SPDX-License-Identifier: MIT */
/* corral-bench's pool subject: a `corral pool` of its own for the run, its socket in a runtime
 * directory of its own (XDG_RUNTIME_DIR, which every corral subject then inherits: the cold
 * ones say --pool=never). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

static int run_corral(const char *corral, const char *const *args, bool quiet)
{
	const char *argv[8] = { corral };
	posix_spawn_file_actions_t fa;
	int status, r;
	pid_t pid;

	for (size_t i = 0; args[i] && i < 6; i++)
		argv[i + 1] = args[i];
	(void)posix_spawn_file_actions_init(&fa);
	if (quiet) {
		(void)posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		(void)posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	}
	r = posix_spawn(&pid, corral, &fa, NULL, (char *const *)argv, environ);
	(void)posix_spawn_file_actions_destroy(&fa);
	if (r > 0)
		return -r;
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

int cr_bench_pool_start(const char *corral, char *rundir, unsigned long stock)
{
	static const char *const teach[] = { "run", "--", "true", NULL };
	char size[24];
	const char *const start[] = { "pool", "start", "--size", size, NULL };
	int r;

	(void)snprintf(size, sizeof(size), "%lu", stock);
	if (!mkdtemp(rundir))
		return -errno;
	if (setenv("XDG_RUNTIME_DIR", rundir, 1) < 0)
		return -errno;
	r = run_corral(corral, start, true);
	if (r < 0)
		return r;
	/* The first run of the policy is cold and teaches it to the pool; then its sandboxes. */
	(void)run_corral(corral, teach, true);
	(void)usleep(1500 * 1000);
	return 0;
}

void cr_bench_pool_stop(const char *corral, const char *rundir)
{
	static const char *const status[] = { "pool", "status", NULL };
	static const char *const stop[] = { "pool", "stop", NULL };
	char path[4200];

	fprintf(stderr, "corral-bench: the pool at the end: ");
	fflush(stderr);
	(void)run_corral(corral, status, false);
	(void)run_corral(corral, stop, true);
	/* `pool stop` may return before the pool has removed its socket: the directory would be
	 * left behind, not empty. */
	(void)snprintf(path, sizeof(path), "%s/corral/pool.sock", rundir);
	(void)unlink(path);
	(void)snprintf(path, sizeof(path), "%s/corral", rundir);
	(void)rmdir(path);
	(void)rmdir(rundir);
}

/* The sum of every "KEY":N in @text (the policies' "ready"), or the first one. */
static unsigned long json_count(const char *text, const char *key, bool sum)
{
	size_t len = strlen(key);
	unsigned long n = 0;

	for (const char *p = text; (p = strstr(p, key)); p += len) {
		n += strtoul(p + len, NULL, 10);
		if (!sum)
			break;
	}
	return n;
}

int cr_bench_pool_counts(const char *corral, struct cr_bench_pool_counts *ret)
{
	const char *argv[] = { corral, "pool", "status", NULL };
	posix_spawn_file_actions_t fa;
	char text[8192];
	size_t len = 0;
	ssize_t n;
	int fds[2], status, r;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	(void)posix_spawn_file_actions_init(&fa);
	(void)posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	(void)posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	r = posix_spawn(&pid, corral, &fa, NULL, (char *const *)argv, environ);
	(void)posix_spawn_file_actions_destroy(&fa);
	(void)close(fds[1]);
	while (r == 0 && len < sizeof(text) - 1 &&
	       (n = read(fds[0], text + len, sizeof(text) - 1 - len)) > 0)
		len += (size_t)n;
	(void)close(fds[0]);
	if (r > 0)
		return -r;
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	text[len] = '\0';
	ret->ready = json_count(text, "\"ready\":", true);
	ret->served = json_count(text, "\"served\":", false);
	ret->missed = json_count(text, "\"missed\":", false);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

int cr_bench_pool_wait(const char *corral, unsigned long stock, int timeout_ms,
		       struct cr_bench_pool_counts *ret)
{
	int r;

	for (int waited = 0;; waited += 20) {
		r = cr_bench_pool_counts(corral, ret);
		if (r < 0 || ret->ready >= stock || waited >= timeout_ms)
			return r;
		(void)usleep(20 * 1000);
	}
}
