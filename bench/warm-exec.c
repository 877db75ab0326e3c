/* SPDX-License-Identifier: MIT */
/* bench-warm-exec [RUNS]: what an exec in a warm sandbox (corral serve's) costs, against a bare
 * fork + execve + waitpid of the same program, interleaved in one run:
 *
 *   warm  exec() of /bin/true on a ready worker, until exec_handle() reports its end: the
 *         request over the exec channel, the runner's execve, the worker's status message
 *   bare  fork(), execve("/bin/true") in the child, waitpid()
 *
 * Between two warm samples the pool is refilled (not timed), as on a server between requests, and
 * every sample, warm or bare, follows the same 2 ms pause.
 * Prints min, median and p99 in microseconds and the ratio of the medians; then the memory of a
 * warm session: the Pss (/proc/PID/smaps_rollup) of its pid 1 and every process below it, with a
 * pool of 1 and of 2. RUNS defaults to 500. Needs user namespaces (or root). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kcmp.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher/policy/policy-build.h"
#include "launcher/policy/request.h"
#include "launcher/driver.h"
#include "launcher/base/log.h"
#include "launcher/policy/policy.h"

#define PAUSE_US 2000

static const struct cr_warm_ops *ops;

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

static struct cr_warm *start(const char *ws, unsigned pool, struct cr_policy *p)
{
	static char *argv[] = { "true", NULL };
	struct cr_run_options o = { .argv = argv, .workspace = ws, .kill_after_ms = 2000,
				    .uid = CR_DEFAULT_SANDBOX_ID, .gid = CR_DEFAULT_SANDBOX_ID };
	struct cr_setup_error err = {};
	struct cr_warm *w = NULL;
	char msg[512] = "";

	if (cr_policy_build(&o, environ, geteuid() == 0, p, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "policy: %s\n", msg);
		return NULL;
	}
	if (ops->start(p, pool, &w, &err) < 0) {
		fprintf(stderr, "start: %s: %s\n", err.stage, err.message);
		cr_policy_done(p);
		return NULL;
	}
	return w;
}

/* Until @want workers are ready. */
static int fill(struct cr_warm *w, unsigned want)
{
	while (ops->ready(w) < want) {
		struct pollfd pf = { .fd = ops->fd(w), .events = POLLIN };
		int r;

		if (poll(&pf, 1, 10000) <= 0)
			return -ETIMEDOUT;
		r = ops->handle(w);
		if (r < 0)
			return r;
	}
	return 0;
}

static double warm_sample(struct cr_warm *w, const struct cr_policy *p, int null)
{
	char *argv[] = { "/bin/true", NULL };
	struct cr_exec_request req = { .argv = argv, .envp = p->env, .cwd = p->workspace,
				       .stdio = { null, null, null } };
	struct cr_exec_result res;
	struct cr_exec *e = NULL;
	double t0 = now_us(), t;
	int r;

	r = ops->exec(w, &req, &e);
	if (r >= 0)
		while ((r = ops->exec_handle(e, &res)) == -EAGAIN) {
			struct pollfd pf = { .fd = ops->exec_fd(e), .events = POLLIN };

			(void)poll(&pf, 1, 10000);
		}
	t = now_us() - t0;
	ops->exec_free(e);
	if (r < 0 || res.kind != CR_OUTCOME_EXITED || res.status != 0) {
		fprintf(stderr, "warm exec: r=%d kind=%d status=%d err=%d\n", r, res.kind, res.status,
			res.err);
		return -1;
	}
	return t;
}

static double bare_sample(void)
{
	char *argv[] = { "/bin/true", NULL };
	double t0 = now_us();
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execve(argv[0], argv, environ);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
		return -1;
	return now_us() - t0;
}

static void print_stats(const char *name, double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	printf("%-44s min %8.1f  median %8.1f  p99 %8.1f us\n", name, v[0], v[n / 2],
	       v[(n * 99) / 100]);
}

/* Pss of @pid (a child of @ppid, or 0) in KiB, and of every process below it. A vfork() child
 * that has not executed yet (a ready worker's runner) shares its parent's memory: counted once. */
static long pss_tree(int ppid, int pid)
{
	char path[384], line[256];
	long kib = 0, v;
	DIR *d;
	FILE *f = NULL;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pid);
	if (ppid <= 0 || syscall(SYS_kcmp, ppid, pid, KCMP_VM, 0, 0) != 0)
		f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Pss: %ld kB", &v) == 1)
			kib += v;
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	for (struct dirent *de; d && (de = readdir(d));) {
		int child;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/children", pid, de->d_name);
		f = fopen(path, "re");
		while (f && fscanf(f, "%d", &child) == 1)
			kib += pss_tree(pid, child);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return kib;
}

static int memory(const char *ws, unsigned pool)
{
	struct cr_policy p = {};
	struct cr_warm *w = start(ws, pool, &p);

	if (!w || fill(w, pool) < 0)
		return -1;
	usleep(300000); /* the runners finish their setup and block in recvmsg() */
	printf("warm session memory, pool %u: %ld KiB Pss (pid 1 and everything below it)\n", pool,
	       pss_tree(0, ops->pid(w)));
	ops->free(w);
	cr_policy_done(&p);
	return 0;
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/bench-warm.XXXXXX";
	int runs = argc > 1 ? atoi(argv[1]) : 500, null, r = 1;
	double *warm = calloc((size_t)runs, sizeof(double)), *bare = calloc((size_t)runs, sizeof(double));
	struct cr_policy p = {};
	struct cr_warm *w;

	ops = cr_driver_native()->warm;
	cr_log_set_level(CR_LOG_ERR);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (runs < 10 || !warm || !bare || null < 0 || !mkdtemp(tmpl) || chmod(tmpl, 0755) < 0 ||
	    (geteuid() == 0 && chown(tmpl, 65534, 65534) < 0))
		return 1;
	w = start(tmpl, 1, &p);
	if (!w)
		goto out;
	for (int i = 0; i < runs; i++) {
		/* Each sample after the same idle pause, the refill (the zygote makes it once the
		 * last command ended) before both: neither pays for it, as on a server between
		 * requests. */
		if (fill(w, 1) < 0 || usleep(PAUSE_US) < 0 || (bare[i] = bare_sample()) < 0 ||
		    usleep(PAUSE_US) < 0 || (warm[i] = warm_sample(w, &p, null)) < 0) {
			fprintf(stderr, "sample %d failed\n", i);
			goto out_free;
		}
	}
	printf("%d runs of /bin/true, interleaved\n", runs);
	print_stats("warm exec (exec -> exec_handle done)", warm, runs);
	print_stats("bare fork + execve + waitpid", bare, runs);
	printf("ratio of medians (warm / bare): %.2f\n", warm[runs / 2] / bare[runs / 2]);
	r = 0;
out_free:
	ops->free(w);
	cr_policy_done(&p);
	if (r == 0)
		r = memory(tmpl, 1) < 0 || memory(tmpl, 2) < 0;
out:
	(void)rmdir(tmpl);
	free(warm);
	free(bare);
	return r;
}
