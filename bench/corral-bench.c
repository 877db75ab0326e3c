/* SPDX-License-Identifier: MIT */
/* corral-bench: per-spawn latency of corral against bare fork+exec and posix_spawn, with each
 * sandbox layer turned off in turn, and against peers found on PATH (issue 8).
 *
 * Every round runs every subject once, in an order shuffled with a reported seed, so machine
 * drift reaches all subjects alike. Each sample is CLOCK_MONOTONIC around spawning the subject's
 * full argv (stdout and stderr to /dev/null) and waiting for it. `--series N` instead runs one
 * subject N times in a row and prints percentiles per 1,000 spawns; `--burst` measures
 * throughput: K commands started at once against a stocked pool (every subject's burst waits
 * until the pool has its stock ready, untimed), then the sustained rate, 100 commands with 1
 * and 2 at a time right after (the stock then mostly spent). The "pool" subject is `corral run`
 * through a `corral pool` the bench starts for the run (bench/pool.c); every other corral
 * subject runs cold (--pool=never). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "launcher/base/macro.h"

extern char **environ;

#define MAX_SUBJECTS 16
#define SERIES_CHUNK 1000
#define BURST        100

static const char *const usage_text =
	"Usage: corral-bench [OPTIONS]\n"
	"Per-spawn latency of `corral run` against bare fork+exec and posix_spawn, with each\n"
	"sandbox layer off in turn, measured interleaved in one run.\n\n"
	"      --corral PATH     the corral binary (default: next to corral-bench, or the "
	"build's)\n"
	"      --workload W      true (default), sh (sh -c 'exit 0') or python3 (python3 -c pass)\n"
	"      --runs N          samples per subject (default 300)\n"
	"      --warmup N        unrecorded rounds first (default 20)\n"
	"      --seed N          seed of the shuffled order (default: from the clock; reported)\n"
	"      --vs-peers        also bwrap, unshare, firejail and codex when found on PATH\n"
	"      --series N        run one subject N times in a row; percentiles per 1,000\n"
	"      --subject NAME    the subject of --series (default corral)\n"
	"      --burst           throughput instead, spawns/s (--runs bursts, default 5; --warmup\n"
	"                        default 1): K commands at once once the pool has its stock\n"
	"                        ready, then the sustained rate, 100 commands with 1 and with 2\n"
	"                        workers\n"
	"      --burst-size K    the commands of the burst at once (default 32)\n"
	"      --only LIST       measure only these subjects (comma-separated names)\n"
	"      --stock N         the pool's sandboxes per policy, its --size (1-32; default K,\n"
	"                        at most 32)\n"
	"      --stages          where the time of `corral run` goes: the median and p90 of each\n"
	"                        stage, µs, over --runs runs in a row (stamps; bench/README.md)\n"
	"      --plot FILE.svg   also draw the distributions side by side as SVG box plots\n"
	"      --json            print the results as JSON\n"
	"      --csv             print the results as CSV\n"
	"  -h, --help            show this text\n";

static double now_us(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* xorshift64*: reproducible from the reported seed. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "corral-bench: %s%s%s\nTry 'corral-bench --help'.\n", msg, arg ? ": " : "",
		arg ? arg : "");
	return 2;
}

static int parse_count(const char *s, unsigned long min, unsigned long *ret)
{
	char *end = NULL;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || !end || *end || end == s || *s == '-' || v < min || v > 100000000UL)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* Returns 0 to run, 1 for --help, 2 for a usage error (already reported). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{"corral", required_argument, NULL, 'c'},
		{"workload", required_argument, NULL, 'W'},
		{"runs", required_argument, NULL, 'r'},
		{"warmup", required_argument, NULL, 'u'},
		{"seed", required_argument, NULL, 's'},
		{"vs-peers", no_argument, NULL, 'p'},
		{"series", required_argument, NULL, 'S'},
		{"subject", required_argument, NULL, 'b'},
		{"json", no_argument, NULL, 'j'},
		{"csv", no_argument, NULL, 'C'},
		{"burst", no_argument, NULL, 'B'},
		{"burst-size", required_argument, NULL, 'K'},
		{"stock", required_argument, NULL, 'k'},
		{"only", required_argument, NULL, 'O'},
		{"stages", no_argument, NULL, 'T'},
		{"plot", required_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	unsigned long seed;
	int c;

	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->corral = optarg;
			break;
		case 'W':
			if (strcmp(optarg, "true") && strcmp(optarg, "sh") &&
			    strcmp(optarg, "python3"))
				return usage_error("--workload must be true, sh or python3",
						   optarg);
			o->workload = optarg;
			break;
		case 'r':
			if (parse_count(optarg, 1, &o->runs) < 0)
				return usage_error("--runs needs a whole number of at least 1",
						   optarg);
			break;
		case 'u':
			if (parse_count(optarg, 0, &o->warmup) < 0)
				return usage_error("--warmup needs a whole number", optarg);
			break;
		case 's':
			if (parse_count(optarg, 0, &seed) < 0)
				return usage_error("--seed needs a whole number", optarg);
			o->seed = seed;
			break;
		case 'S':
			if (parse_count(optarg, 1, &o->series) < 0)
				return usage_error("--series needs a whole number of at least 1",
						   optarg);
			break;
		case 'b':
			o->series_subject = optarg;
			break;
		case 'p':
			o->vs_peers = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'C':
			o->csv = true;
			break;
		case 'B':
			o->burst = true;
			break;
		case 'K':
			if (parse_count(optarg, 1, &o->burst_k) < 0 || o->burst_k > 1000)
				return usage_error("--burst-size needs a whole number from 1 to 1000",
						   optarg);
			break;
		case 'O':
			o->only = optarg;
			break;
		case 'k':
			if (parse_count(optarg, 1, &o->stock) < 0 || o->stock > 32)
				return usage_error("--stock needs a whole number from 1 to 32",
						   optarg);
			break;
		case 'P':
			o->plot = optarg;
			break;
		case 'T':
			o->stages = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case ':':
			return usage_error("option needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument", argv[optind]);
	if (o->json && o->csv)
		return usage_error("--json and --csv exclude each other", NULL);
	if ((o->series || o->burst) && (o->json || o->csv || o->plot))
		return usage_error("--series and --burst print a table only", NULL);
	if (o->series && o->burst)
		return usage_error("--series and --burst exclude each other", NULL);
	if (o->stages && (o->series || o->burst || o->json || o->csv || o->plot))
		return usage_error("--stages prints its own table: no --series, --burst, "
				   "--json, --csv or --plot", NULL);
	return 0;
}

/* Is @name one of the comma-separated names of @list? */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p; p += strcspn(p, ","), p += *p == ',')
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

static bool is_executable(const char *path)
{
	return access(path, X_OK) == 0;
}

/* First executable NAME on PATH, newly allocated; NULL if none. */
static char *find_on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		if (len > 0 &&
		    snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, path, name) <
			    (int)sizeof(buf) &&
		    is_executable(buf))
			return strdup(buf);
		path += len + (path[len] == ':');
	}
	return NULL;
}

/* A tool corral-bench runs (corral, corral-floor): next to this binary (installed), in its
 * parent directory (the build tree), at the build's path compiled in, or on PATH. */
static char *find_tool(const char *name, const char *built)
{
	char self[PATH_MAX], buf[PATH_MAX + 32];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (len > 0) {
		self[len] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(buf, sizeof(buf), "%s/%s", self, name);
			if (is_executable(buf))
				return realpath(buf, NULL);
			snprintf(buf, sizeof(buf), "%s/../%s", self, name);
			if (is_executable(buf))
				return realpath(buf, NULL);
		}
	}
	if (built && is_executable(built))
		return strdup(built);
	return find_on_path(name);
}

static size_t workload_argv(const char *w, const char **argv)
{
	if (!strcmp(w, "sh")) {
		argv[0] = "/bin/sh", argv[1] = "-c", argv[2] = "exit 0";
		return 3;
	}
	if (!strcmp(w, "python3")) {
		argv[0] = "/usr/bin/python3", argv[1] = "-c", argv[2] = "pass";
		return 3;
	}
	argv[0] = "/bin/true";
	return 1;
}

/* PREFIX... WORKLOAD..., NULL-terminated, into s->argv. */
static void subject_set(struct subject *s, const char *const *prefix, const char *workload)
{
	size_t n = 0;

	for (; prefix && prefix[n]; n++)
		s->argv[n] = prefix[n];
	n += workload_argv(workload, s->argv + n);
	s->argv[n] = NULL;
}

static struct subject *add_subject(struct subject *v, size_t *n, const char *name, enum kind k)
{
	struct subject *s = &v[(*n)++];

	*s = (struct subject){.name = name, .kind = k};
	return s;
}

/* The peers, each with the command line that gives it isolation comparable to corral's. */
static void add_peers(struct subject *v, size_t *n, const char *workload, char **paths)
{
	static const struct {
		const char *name, *bin;
		const char *args[10];
	} peers[] = {
		{"bwrap",
		 "bwrap",
		 {"--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"}},
		{"unshare", "unshare", {"-Urmnpf", "--mount-proc"}},
		{"firejail", "firejail", {"--quiet", "--noprofile", "--net=none"}},
		{"codex", "codex", {"sandbox", "linux", "--full-auto", "--"}},
	};

	for (size_t i = 0; i < ELEMENTSOF(peers); i++) {
		struct subject *s = add_subject(v, n, peers[i].name, KIND_SPAWN);
		const char *prefix[12] = {};
		size_t k = 1;

		paths[i] = find_on_path(peers[i].bin);
		if (!paths[i]) {
			s->note = "not found on PATH";
			continue;
		}
		prefix[0] = paths[i];
		for (size_t j = 0; peers[i].args[j]; j++)
			prefix[k++] = peers[i].args[j];
		subject_set(s, prefix, workload);
	}
}

static size_t build_subjects(struct subject *v, const struct opts *o, char **peer_paths)
{
	/* clang-format off */
	/* A layer turned off is a request beyond the default profile: granted for the run. */
	/* Cold, every one of them (--pool=never); "pool" through the bench's own pool. */
	static const struct { const char *name; const char *flags[10]; } layers[] = {
		{ "corral", { "--pool=never" } },
		{ "pool", { "--pool=auto" } },
		{ "no-netns", { "--pool=never", "--grant", "once", "--net=host" } },
		{ "no-landlock", { "--pool=never", "--grant", "once", "--landlock=off" } },
		{ "no-seccomp", { "--pool=never", "--grant", "once", "--seccomp=off" } },
		{ "no-cgroup", { "--pool=never", "--pids", "max" } },
		{ "all-off", { "--pool=never", "--grant", "once", "--net=host", "--landlock=off", "--seccomp=off", "--pids", "max" } },
	};
	/* clang-format on */
	size_t n = 0;

	subject_set(add_subject(v, &n, "fork+exec", KIND_FORK), NULL, o->workload);
	subject_set(add_subject(v, &n, "posix_spawn", KIND_SPAWN), NULL, o->workload);
	if (o->floor) {
		const char *prefix[] = {o->floor, NULL};

		subject_set(add_subject(v, &n, "floor", KIND_SPAWN), prefix, o->workload);
	} else {
		add_subject(v, &n, "floor", KIND_SPAWN)->note = "corral-floor not found";
	}
	for (size_t i = 0; i < ELEMENTSOF(layers); i++) {
		const char *prefix[14] = {o->corral, "run"};
		size_t k = 2;

		for (size_t j = 0; layers[i].flags[j]; j++)
			prefix[k++] = layers[i].flags[j];
		prefix[k] = "--";
		subject_set(add_subject(v, &n, layers[i].name, KIND_SPAWN), prefix, o->workload);
	}
	subject_set(add_subject(v, &n, "serve", KIND_SERVE), NULL, o->workload);
	add_subject(v, &n, "no-newroot", KIND_SPAWN)->note =
		"not measurable: corral has no switch for the fresh root yet";
	if (o->vs_peers)
		add_peers(v, &n, o->workload, peer_paths);
	return n;
}

/* The serve subject: one `corral serve --stdio` for the whole run, with one session whose
 * workspace is the bench's; each sample is one exec request written and its response read. */
static struct {
	pid_t pid;
	int to, from;
	char buf[1 << 16];
	size_t len;
	unsigned long next_id;
} serve = { .pid = -1, .to = -1, .from = -1 };

/* Read one response line; 0 if it contains @want, -ECHILD if not, -errno on I/O failure. */
static int serve_read_line(const char *want)
{
	char *nl;
	ssize_t k;

	while (!(nl = memchr(serve.buf, '\n', serve.len))) {
		if (serve.len == sizeof(serve.buf))
			return -E2BIG;
		k = read(serve.from, serve.buf + serve.len, sizeof(serve.buf) - serve.len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EPIPE;
		serve.len += (size_t)k;
	}
	*nl = '\0';
	k = strstr(serve.buf, want) ? 0 : -ECHILD;
	if (k < 0)
		fprintf(stderr, "\ncorral-bench: serve answered: %s\n", serve.buf);
	serve.len -= (size_t)(nl + 1 - serve.buf);
	memmove(serve.buf, nl + 1, serve.len);
	return (int)k;
}

static int serve_write(const char *line, size_t len)
{
	while (len > 0) {
		ssize_t k = write(serve.to, line, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		line += k;
		len -= (size_t)k;
	}
	return 0;
}

/* Send the exec request of @s (its argv has no character JSON would escape). */
static int serve_send_exec(const struct subject *s)
{
	char line[512];
	size_t n;

	n = (size_t)snprintf(line, sizeof(line), "{\"type\":\"exec\",\"id\":%lu,\"session\":\"bench\",\"argv\":[",
			     ++serve.next_id);
	for (size_t i = 0; s->argv[i] && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s\"%s\"", i ? "," : "", s->argv[i]);
	if (n < sizeof(line))
		n += (size_t)snprintf(line + n, sizeof(line) - n, "]}\n");
	if (n >= sizeof(line))
		return -E2BIG;
	return serve_write(line, n);
}

static int serve_start(const char *corral, const char *workspace)
{
	int in[2], out[2], r;
	char line[PATH_MAX + 128];

	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	serve.pid = fork();
	if (serve.pid < 0)
		return -errno;
	if (serve.pid == 0) {
		(void)dup2(in[0], STDIN_FILENO);
		(void)dup2(out[1], STDOUT_FILENO);
		execl(corral, corral, "serve", "--stdio", "--pool", "2", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	serve.to = in[1];
	serve.from = out[0];
	(void)snprintf(line, sizeof(line),
		       "{\"type\":\"open_session\",\"id\":0,\"session\":\"bench\",\"workspace\":\"%s\"}\n",
		       workspace);
	r = serve_write(line, strlen(line));
	return r < 0 ? r : serve_read_line("\"open_session_result\"");
}

static void serve_stop(void)
{
	if (serve.to >= 0)
		close(serve.to); /* end of input: the server stops */
	if (serve.from >= 0)
		close(serve.from);
	if (serve.pid > 0)
		(void)waitpid(serve.pid, NULL, 0);
}

/* Starts the subject, its stdout and stderr on devnull. Returns 0 or -errno. */
static int start(const struct subject *s, int devnull, pid_t *ret_pid)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int r;

	if (s->kind == KIND_FORK) {
		pid = fork();
		if (pid < 0)
			return -errno;
		if (pid == 0) {
			(void)dup2(devnull, STDOUT_FILENO);
			(void)dup2(devnull, STDERR_FILENO);
			execve(s->argv[0], (char *const *)s->argv, environ);
			_exit(127);
		}
		*ret_pid = pid;
		return 0;
	}
	if (posix_spawn_file_actions_init(&fa) != 0)
		return -ENOMEM;
	(void)posix_spawn_file_actions_adddup2(&fa, devnull, STDOUT_FILENO);
	(void)posix_spawn_file_actions_adddup2(&fa, devnull, STDERR_FILENO);
	r = posix_spawn(&pid, s->argv[0], &fa, NULL, (char *const *)s->argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0)
		return -r;
	*ret_pid = pid;
	return 0;
}

/* Waits for pid (-1: any child). Returns 0, or -errno (-ECHILD also: a nonzero exit). */
static int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

/* One sample: spawn and wait, in microseconds. */
static int run_once(const struct subject *s, int devnull, double *ret_us)
{
	double t0 = now_us();
	pid_t pid;
	int r;

	if (s->kind == KIND_SERVE) {
		r = serve_send_exec(s);
		if (r >= 0)
			r = serve_read_line("\"exit_code\":0,");
	} else {
		r = start(s, devnull, &pid);
		if (r >= 0)
			r = reap(pid);
	}
	if (r >= 0)
		*ret_us = now_us() - t0;
	return r;
}

/* @count commands, at most @workers at a time; spawns per second. */
static int run_burst(const struct subject *s, int devnull, int workers, int count,
		     double *ret_rate)
{
	double t0 = now_us();
	int started = 0, done = 0, r = 0;
	pid_t pid;

	while (done < count && r >= 0) {
		while (r >= 0 && started - done < workers && started < count) {
			r = s->kind == KIND_SERVE ? serve_send_exec(s) : start(s, devnull, &pid);
			started += r >= 0;
		}
		if (started > done) {
			int w = s->kind == KIND_SERVE ? serve_read_line("\"exit_code\":0,") : reap(-1);

			r = r < 0 ? r : w;
			done++;
		}
	}
	while (started > done++) /* after a failure: collect what is still running */
		(void)(s->kind == KIND_SERVE ? serve_read_line("") : reap(-1));
	if (r >= 0)
		*ret_rate = count / ((now_us() - t0) / 1e6);
	return r;
}

/* --burst: what the pool had ready when each burst of K began, and how many of the burst's
 * commands it did not serve (they ran cold). */
static struct {
	double stock[4096], missed[4096];
	size_t n;
} pool_seen;

/* One burst of K at once: every subject's waits (untimed) until the pool has its stock. */
static int burst_at_once(struct subject *s, const struct opts *o, int devnull, bool record,
			 double *ret_rate)
{
	struct cr_bench_pool_counts before = {}, after = {};
	bool pool = !strcmp(s->name, "pool");
	int r;

	if (o->pool_on)
		(void)cr_bench_pool_wait(o->corral, o->stock, 10000, &before);
	r = run_burst(s, devnull, (int)o->burst_k, (int)o->burst_k, ret_rate);
	if (r >= 0 && pool && record && pool_seen.n < ELEMENTSOF(pool_seen.stock) &&
	    cr_bench_pool_counts(o->corral, &after) >= 0) {
		pool_seen.stock[pool_seen.n] = (double)before.ready;
		pool_seen.missed[pool_seen.n++] = (double)(after.missed - before.missed);
	}
	return r;
}

static void progress(const char *what, size_t done, size_t total)
{
	int width = 40, fill = total ? (int)((double)width * (double)done / (double)total) : width;

	fprintf(stderr, "\r%-12s [%-*.*s] %zu/%zu", what, width, fill,
		"########################################", done, total);
	if (done == total)
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

static int report_failure(const struct subject *s, int r)
{
	fprintf(stderr, "\ncorral-bench: %s: %s (run it by hand: %s ...)\n", s->name,
		r == -ECHILD ? "the command failed" : strerror(-r), s->argv[0]);
	return r;
}

/* One latency sample, or with --burst one burst of K at once, then the sustained rate with 1
 * worker and with 2 (their rates go to samples[2 * runs + n], samples[n] and
 * samples[runs + n]). */
static int sample(struct subject *s, const struct opts *o, int devnull, bool record)
{
	double x = 0, y = 0, z = 0;
	int r = 0;

	if (o->burst)
		r = burst_at_once(s, o, devnull, record, &z);
	if (r >= 0)
		r = o->burst ? run_burst(s, devnull, 1, BURST, &x) : run_once(s, devnull, &x);
	if (r >= 0 && o->burst)
		r = run_burst(s, devnull, 2, BURST, &y);
	if (r < 0)
		return report_failure(s, r);
	if (record) {
		if (o->burst) {
			s->samples[o->runs + s->n] = y;
			s->samples[2 * o->runs + s->n] = z;
		}
		s->samples[s->n++] = x;
	}
	return 0;
}

/* Interleaved rounds: every measurable subject once per round, in a shuffled order. */
static int run_rounds(struct subject *v, size_t n, const struct opts *o, int devnull)
{
	size_t order[MAX_SUBJECTS], m = 0, total = o->warmup + o->runs;
	bool tty = isatty(STDERR_FILENO);
	uint64_t rng = o->seed;
	int r;

	for (size_t i = 0; i < n; i++)
		if (!v[i].note)
			order[m++] = i;
	for (size_t rd = 0; rd < total; rd++) {
		for (size_t i = m; i > 1; i--) {
			size_t j = rng_next(&rng) % i, t = order[i - 1];

			order[i - 1] = order[j], order[j] = t;
		}
		for (size_t i = 0; i < m; i++) {
			r = sample(&v[order[i]], o, devnull, rd >= o->warmup);
			if (r < 0)
				return r;
		}
		if (tty && (o->burst || rd % 5 == 4 || rd + 1 == total))
			progress(rd < o->warmup ? "warm-up" : "measuring", rd + 1, total);
	}
	return 0;
}

/* --series: one subject N times in a row, percentiles per chunk of 1,000 spawns. */
static int run_series(struct subject *s, const struct opts *o, int devnull)
{
	bool tty = isatty(STDERR_FILENO);
	char a[32], b[32], c[32], d[32], e[32];
	int r;

	for (size_t i = 0; i < o->warmup; i++)
		if ((r = sample(s, o, devnull, false)) < 0)
			return r;
	for (size_t i = 0; i < o->series; i++) {
		if ((r = sample(s, o, devnull, true)) < 0)
			return r;
		if (tty && (i % 50 == 49 || i + 1 == o->series))
			progress("series", i + 1, o->series);
	}
	printf("series: %s, %lu consecutive spawns of %s after %lu warm-up\n", s->name, o->series,
	       o->workload, o->warmup);
	printf("%-13s %12s %12s %12s %12s %12s\n", "spawns", "min", "median", "p90", "p99", "max");
	for (size_t i = 0; i < s->n; i += SERIES_CHUNK) {
		size_t m = s->n - i < SERIES_CHUNK ? s->n - i : SERIES_CHUNK;
		struct stats st = cr_bench_stats(s->samples + i, m);
		char range[32];

		snprintf(range, sizeof(range), "%zu-%zu", i + 1, i + m);
		printf("%-13s %s %s %s %s %s\n", range, cr_bench_fmt_time(a, sizeof(a), st.min),
		       cr_bench_fmt_time(b, sizeof(b), st.median),
		       cr_bench_fmt_time(c, sizeof(c), st.p90),
		       cr_bench_fmt_time(d, sizeof(d), st.p99),
		       cr_bench_fmt_time(e, sizeof(e), s->samples[i + m - 1]));
	}
	return 0;
}

/* As root, corral runs the command as 65534, which must be able to use the workspace. */
static int make_workspace(char *tmpl)
{
	if (!mkdtemp(tmpl))
		return -errno;
	if (geteuid() == 0 && chown(tmpl, 65534, 65534) < 0) {
		int r = -errno;

		(void)rmdir(tmpl);
		return r;
	}
	if (chdir(tmpl) < 0) {
		int r = -errno;

		(void)rmdir(tmpl);
		return r;
	}
	return 0;
}

static int alloc_samples(struct subject *v, size_t n, unsigned long count)
{
	for (size_t i = 0; i < n; i++)
		if (!v[i].note && !(v[i].samples = calloc(count, sizeof(double))))
			return -ENOMEM;
	return 0;
}

static struct subject *find_subject(struct subject *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!v[i].note && !strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* --burst: median spawns/s over the bursts: K at once, then sustained with 1 and 2 workers. */
static void print_burst(struct subject *v, size_t n, const struct opts *o)
{
	printf("throughput of %s: %lu bursts per subject after %lu warm-up, interleaved, seed "
	       "%llu; a burst of K=%lu at once (the pool stocked: --size %lu), then %d commands "
	       "with 1 and with 2 workers (sustained)\n",
	       o->workload, o->runs, o->warmup, (unsigned long long)o->seed, o->burst_k, o->stock,
	       BURST);
	if (pool_seen.n) {
		struct stats st = cr_bench_stats(pool_seen.stock, pool_seen.n);
		struct stats mi = cr_bench_stats(pool_seen.missed, pool_seen.n);

		printf("pool: ready at the start of a burst of K: min %.0f, median %.0f; of its K "
		       "commands, run cold (missed): median %.0f, max %.0f\n",
		       st.min, st.median, mi.median, mi.max);
	}
	printf("%-12s %16s %16s %16s\n", "subject", "K at once", "1 worker", "2 workers");
	for (size_t i = 0; i < n; i++) {
		if (v[i].note)
			continue;
		printf("%-12s %13.0f /s %13.0f /s %13.0f /s\n", v[i].name,
		       cr_bench_stats(v[i].samples + 2 * o->runs, v[i].n).median,
		       cr_bench_stats(v[i].samples, v[i].n).median,
		       cr_bench_stats(v[i].samples + o->runs, v[i].n).median);
	}
}

static int measure(struct subject *v, size_t n, struct opts *o)
{
	struct stats st[MAX_SUBJECTS] = {};
	char title[128];
	_cleanup_close_ int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int r;

	if (devnull < 0)
		return -errno;
	if (o->series)
		return run_series(find_subject(v, n, o->series_subject), o, devnull);
	if (o->stages) {
		printf("stages of `corral run -- %s`: %lu runs in a row after %lu warm-up runs\n",
		       o->workload, o->runs, o->warmup);
		r = cr_bench_stages(find_subject(v, n, "corral")->argv, o->runs, o->warmup, devnull);
		if (r < 0)
			return report_failure(find_subject(v, n, "corral"), r);
		return 0;
	}
	r = run_rounds(v, n, o, devnull);
	if (r < 0)
		return r;
	if (o->burst) {
		print_burst(v, n, o);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (!v[i].note)
			st[i] = cr_bench_stats(v[i].samples, v[i].n);
	snprintf(title, sizeof(title), "corral-bench: spawn latency of %s, %lu runs, seed %llu",
		 o->workload, o->runs, (unsigned long long)o->seed);
	if (o->plot && (r = cr_bench_plot_svg(o->plot, v, n, st, title)) < 0)
		fprintf(stderr, "corral-bench: cannot write %s: %s\n", o->plot, strerror(-r));
	if (o->json) {
		if (cr_bench_print_json(v, n, st, o) < 0) {
			fprintf(stderr, "corral-bench: out of memory building the JSON report\n");
			return 1;
		}
	} else if (o->csv)
		cr_bench_print_csv(v, n, st);
	else {
		printf("spawn latency of %s: %lu runs per subject after %lu warm-up rounds, "
		       "interleaved, seed %llu\n",
		       o->workload, o->runs, o->warmup, (unsigned long long)o->seed);
		cr_bench_print_table(v, n, st);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {.workload = "true",
			 .series_subject = "corral",
			 .runs = ULONG_MAX,
			 .warmup = ULONG_MAX};
	struct subject v[MAX_SUBJECTS] = {};
	char *peer_paths[4] = {}, ws[] = "/tmp/corral-bench.XXXXXX";
	char rundir[] = "/tmp/corral-bench-run.XXXXXX";
	bool pool = false;
	_cleanup_free_ char *corral = NULL, *floor_path = NULL;
	size_t n;
	int r;

	o.seed = (uint64_t)now_us() ^ (uint64_t)getpid();
	r = parse_args(argc, argv, &o);
	if (r)
		return r == 1 ? 0 : 2;
	o.seed = o.seed ? o.seed : 1; /* xorshift needs a nonzero state */
	if (o.runs == ULONG_MAX)
		o.runs = o.burst ? 5 : 300;
	if (o.warmup == ULONG_MAX)
		o.warmup = o.burst ? 1 : 20;
	corral = o.corral ? realpath(o.corral, NULL) : find_tool("corral", CR_BENCH_CORRAL);
	if (!corral || !is_executable(corral)) {
		fprintf(stderr, "corral-bench: cannot find corral%s%s; use --corral PATH\n",
			o.corral ? " at " : "", o.corral ? o.corral : "");
		return 2;
	}
	o.corral = corral;
	o.floor = floor_path = find_tool("corral-floor", CR_BENCH_FLOOR);
	n = build_subjects(v, &o, peer_paths);
	for (size_t i = 0; o.only && i < n; i++)
		if (!v[i].note && !in_list(o.only, v[i].name))
			v[i].note = "not selected (--only)";
	if (o.series && !find_subject(v, n, o.series_subject)) {
		r = usage_error("--subject names no measurable subject", o.series_subject);
		goto out_free;
	}
	if (!o.burst_k)
		o.burst_k = 32;
	if (!o.stock)
		o.stock = o.burst_k < 32 ? o.burst_k : 32;
	r = alloc_samples(v, n, o.series ? o.series : o.burst ? 3 * o.runs : o.runs);
	if (r >= 0)
		r = make_workspace(ws);
	if (r >= 0 && find_subject(v, n, "serve") && serve_start(corral, ws) < 0) {
		fprintf(stderr, "corral-bench: corral serve did not start; skipping its subject\n");
		find_subject(v, n, "serve")->note = "corral serve did not start";
	}
	if (r >= 0 && find_subject(v, n, "pool")) {
		pool = cr_bench_pool_start(corral, rundir, o.burst ? o.stock : 16) >= 0;
		o.pool_on = pool;
		if (!pool) {
			fprintf(stderr, "corral-bench: corral pool did not start; skipping its subject\n");
			find_subject(v, n, "pool")->note = "corral pool did not start";
		}
	}
	if (r >= 0) {
		r = measure(v, n, &o);
		serve_stop();
		if (pool)
			cr_bench_pool_stop(corral, rundir);
		(void)chdir("/");
		(void)rmdir(ws);
	} else
		fprintf(stderr, "corral-bench: %s\n", strerror(-r));
	r = r < 0 ? 1 : 0;
out_free:
	for (size_t i = 0; i < n; i++)
		free(v[i].samples);
	for (size_t i = 0; i < ELEMENTSOF(peer_paths); i++)
		free(peer_paths[i]);
	return r;
}
