/* SPDX-License-Identifier: MIT */
/* bench-seccomp-install [RUNS]: what the default seccomp profile costs at spawn. In one run,
 * interleaved, each sample in a freshly forked child (as corral's command process is):
 *
 *   precompiled  install the BPF generated at build time with seccomp(2), as corral does
 *   libseccomp   compile the same groups with libseccomp and seccomp_load() them, as a launcher
 *                without precompiled programs would at every spawn
 *
 * Only the install is timed (CLOCK_MONOTONIC around it, in the child), not fork or exit. Prints
 * min, median and p90 in microseconds and the ratio of the medians; then what one allowed
 * syscall (getppid) costs with the filter installed and without. RUNS defaults to 2000. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher/base/macro.h"
#include "seccomp/seccomp-internal.h"
#include "seccomp/seccomp.h"

enum { PRECOMPILED, LIBSECCOMP, UNFILTERED_CALL, FILTERED_CALL, _KINDS };

static const char *const names[_KINDS] = {
	[PRECOMPILED] = "precompiled BPF, seccomp(2)",
	[LIBSECCOMP] = "libseccomp compile + seccomp_load",
	[UNFILTERED_CALL] = "getppid, no filter",
	[FILTERED_CALL] = "getppid, default profile",
};

#define CALLS 100000

static double now_us(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* In the child: the measured step, in microseconds (per call for the syscall kinds); < 0 on
 * failure. */
static double measure(int kind, const struct cr_seccomp *precompiled)
{
	struct cr_sc_ruleset rs = { .default_action = CR_SC_ALLOW };
	double t0, t;
	int r = 0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	if (kind == FILTERED_CALL && cr_seccomp_install(precompiled) < 0)
		return -1;
	t0 = now_us();
	switch (kind) {
	case PRECOMPILED:
		r = cr_seccomp_install(precompiled);
		break;
	case LIBSECCOMP:
		r = cr_sc_ruleset_add_group(&rs, cr_sc_group_find("@default"));
		if (r >= 0)
			r = cr_sc_compile_and_load(&rs);
		cr_sc_ruleset_done(&rs);
		break;
	default:
		for (int i = 0; i < CALLS; i++)
			(void)syscall(SYS_getppid);
		break;
	}
	t = now_us() - t0;
	if (kind == UNFILTERED_CALL || kind == FILTERED_CALL)
		t /= CALLS;
	return r < 0 ? -1 : t;
}

static int sample(int kind, const struct cr_seccomp *precompiled, double *ret)
{
	int fds[2], status;
	double v = -1;
	pid_t pid;

	if (pipe(fds) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		v = measure(kind, precompiled);
		_exit(write(fds[1], &v, sizeof(v)) == sizeof(v) ? 0 : 1);
	}
	(void)close(fds[1]);
	if (read(fds[0], &v, sizeof(v)) != sizeof(v))
		v = -1;
	(void)close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) || v < 0)
		return -EIO;
	*ret = v;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(const double *sorted, size_t n, double p)
{
	return sorted[(size_t)(p * (double)(n - 1) + 0.5)];
}

int main(int argc, char **argv)
{
	const struct cr_sc_builtin *b = cr_sc_builtin_find("default", CR_SECCOMP_NATIVE_ARCH);
	size_t runs = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000, n[_KINDS] = {};
	_cleanup_free_ double *v = NULL;
	struct cr_seccomp *s = NULL;
	double med[_KINDS] = {};
	char msg[256];
	int r;

	if (!b || runs < 20) {
		fprintf(stderr, "bench: %s\n",
			b ? "RUNS must be at least 20" : "no built-in program for this architecture");
		return 1;
	}
	r = cr_seccomp_prepare(CR_SECCOMP_DEFAULT, NULL, true, false, &s, msg, sizeof(msg));
	v = calloc(_KINDS * runs, sizeof(double));
	if (r < 0 || !v) {
		fprintf(stderr, "bench: %s\n", r < 0 ? msg : "out of memory");
		return 1;
	}
	/* Interleaved, so that both kinds see the same machine state, after 20 warm-up rounds.
	 * The syscall loops are sampled every 20th round. */
	for (size_t i = 0; i < runs + 20; i++)
		for (int k = 0; k < _KINDS; k++) {
			double x = 0;

			if (k >= UNFILTERED_CALL && i % 20)
				continue;
			r = sample(k, s, &x);
			if (r < 0) {
				fprintf(stderr, "bench: %s: %s\n", names[k], strerror(-r));
				return 1;
			}
			if (i >= 20)
				v[k * runs + n[k]++] = x;
		}
	printf("seccomp install at spawn: the default profile (%s, %zu syscalls, %zu instructions), %zu runs each, interleaved, in forked children\n",
	       b->arch, b->n_syscalls, b->len, runs);
	for (int k = 0; k < _KINDS; k++) {
		double *x = v + k * runs;

		qsort(x, n[k], sizeof(double), cmp_double);
		med[k] = pct(x, n[k], 0.5);
		if (k == UNFILTERED_CALL)
			printf("one allowed syscall, %zu samples of %d calls each:\n", n[k], CALLS);
		printf("  %-36s min %9.3f us  median %9.3f us  p90 %9.3f us\n", names[k], x[0],
		       med[k], pct(x, n[k], 0.9));
	}
	printf("ratio of install medians (libseccomp / precompiled): %.1fx\n",
	       med[LIBSECCOMP] / med[PRECOMPILED]);
	printf("filter overhead per allowed syscall: %+.3f us\n",
	       med[FILTERED_CALL] - med[UNFILTERED_CALL]);
	cr_seccomp_free(s);
	return 0;
}
