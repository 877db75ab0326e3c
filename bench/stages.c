/* SPDX-License-Identifier: MIT */
/* corral-bench --stages: where the time of one `corral run` goes. Each run gets a memfd as
 * CORRAL_STAMP_FD; corral appends a line "WHO NAME NS" at the end of every stage (P the launcher,
 * 1 the sandbox's pid 1, C the command before its execve; launcher/base/stamp.h). A stage's time
 * is its stamp less the one before it in the same process; pid 1's first is counted from the
 * launcher's pre_clone stamp, the command's from pid 1's pre_fork. Two rows come from the bench's
 * own clock: P main (posix_spawn to corral's main: exec, ld.so, libc start-up) and P exit (the
 * last stamp to waitpid returning: exit and reaping). */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

#define MAX_ROWS  64
#define MAX_STAMP 128

struct row {
	char who;
	char name[32];
	double *us;
	size_t n;
};

struct stamp {
	char who;
	char name[32];
	long long ns;
};

static long long now_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct row *row_get(struct row *rows, size_t *n, char who, const char *name, size_t runs)
{
	for (size_t i = 0; i < *n; i++)
		if (rows[i].who == who && strcmp(rows[i].name, name) == 0)
			return &rows[i];
	if (*n == MAX_ROWS)
		return NULL;
	rows[*n] = (struct row){ .who = who, .us = calloc(runs, sizeof(double)) };
	(void)snprintf(rows[*n].name, sizeof(rows[*n].name), "%s", name);
	return rows[*n].us ? &rows[(*n)++] : NULL;
}

static void add(struct row *rows, size_t *n, char who, const char *name, double us, size_t runs)
{
	struct row *r = row_get(rows, n, who, name, runs);

	if (r && r->n < runs)
		r->us[r->n++] = us;
}

static int by_time(const void *a, const void *b)
{
	const struct stamp *x = a, *y = b;

	return (x->ns > y->ns) - (x->ns < y->ns);
}

static size_t read_stamps(int fd, struct stamp *v)
{
	static char buf[16384];
	ssize_t len = pread(fd, buf, sizeof(buf) - 1, 0);
	size_t n = 0;

	if (len <= 0)
		return 0;
	buf[len] = '\0';
	for (char *line = strtok(buf, "\n"); line && n < MAX_STAMP; line = strtok(NULL, "\n"))
		if (sscanf(line, "%c %31s %lld", &v[n].who, v[n].name, &v[n].ns) == 3)
			n++;
	qsort(v, n, sizeof(*v), by_time);
	return n;
}

/* One run's stamps into the rows: each stage against the previous stamp of its process. */
static void account(struct row *rows, size_t *nrows, struct stamp *v, size_t n, long long t0,
		    long long t1, size_t runs)
{
	long long prev_p = t0, prev_1 = 0, prev_c = 0, pre_clone = t0, pre_fork = 0;

	for (size_t i = 0; i < n; i++) {
		long long *prev = v[i].who == 'P' ? &prev_p : v[i].who == '1' ? &prev_1 : &prev_c;

		if (v[i].who == '1' && !prev_1)
			prev_1 = pre_clone;
		if (v[i].who == 'C' && !prev_c)
			prev_c = pre_fork ? pre_fork : prev_1;
		add(rows, nrows, v[i].who, v[i].name, (double)(v[i].ns - *prev) / 1e3, runs);
		*prev = v[i].ns;
		if (v[i].who == 'P' && strcmp(v[i].name, "pre_clone") == 0)
			pre_clone = v[i].ns;
		if (v[i].who == '1' && strcmp(v[i].name, "pre_fork") == 0)
			pre_fork = v[i].ns;
	}
	add(rows, nrows, 'P', "exit", (double)(t1 - prev_p) / 1e3, runs);
	add(rows, nrows, '=', "total", (double)(t1 - t0) / 1e3, runs);
}

static int run_one(const char *const *argv, int devnull, int fd, long long *t0, long long *t1)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int r, status;

	if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	if (posix_spawn_file_actions_init(&fa) != 0)
		return -ENOMEM;
	(void)posix_spawn_file_actions_adddup2(&fa, devnull, STDOUT_FILENO);
	(void)posix_spawn_file_actions_adddup2(&fa, devnull, STDERR_FILENO);
	*t0 = now_ns();
	r = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0)
		return -r;
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	*t1 = now_ns();
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

static void print_rows(struct row *rows, size_t n, size_t runs)
{
	static const char *const whom[] = { ['P'] = "launcher", ['1'] = "pid 1",
					    ['C'] = "command", ['='] = "" };

	printf("%-10s %-18s %10s %10s %6s\n", "process", "stage", "median", "p90", "n");
	for (size_t i = 0; i < n; i++) {
		struct stats st = cr_bench_stats(rows[i].us, rows[i].n);

		printf("%-10s %-18s %7.0f µs %7.0f µs %6zu\n", whom[(unsigned char)rows[i].who],
		       rows[i].name, st.median, st.p90, rows[i].n);
	}
	printf("(%zu runs; a stage is its end stamp less the one before it in its process;\n"
	       " pid 1 counts from the launcher's pre_clone, the command from pid 1's pre_fork)\n",
	       runs);
}

int cr_bench_stages(const char *const *argv, unsigned long runs, unsigned long warmup,
		    int devnull)
{
	struct row rows[MAX_ROWS];
	struct stamp v[MAX_STAMP];
	size_t nrows = 0;
	char val[16];
	int fd, r = 0;

	fd = memfd_create("corral-stamps", 0);
	if (fd < 0)
		return -errno;
	(void)snprintf(val, sizeof(val), "%d", fd);
	if (setenv("CORRAL_STAMP_FD", val, 1) < 0) {
		r = -errno;
		goto out;
	}
	for (unsigned long i = 0; i < warmup + runs && r >= 0; i++) {
		long long t0 = 0, t1 = 0;

		r = run_one(argv, devnull, fd, &t0, &t1);
		if (r >= 0 && i >= warmup)
			account(rows, &nrows, v, read_stamps(fd, v), t0, t1, runs);
	}
	if (r >= 0)
		print_rows(rows, nrows, runs);
	for (size_t i = 0; i < nrows; i++)
		free(rows[i].us);
	(void)unsetenv("CORRAL_STAMP_FD");
out:
	(void)close(fd);
	return r;
}
