/* SPDX-License-Identifier: MIT */
/* warm-client WORKSPACE TEST [N]: drives cr_driver_native()->warm directly, as `corral serve`
 * does, and prints TAP-ish lines ("ok - ...", "not ok - ..."); exits 1 if any check failed.
 * WORKSPACE must be writable by the sandbox's user (65534 when run as root). Tests:
 *   run-seq N   N sequential execs of `echo i`: output and exit code; the report's "warm"
 *   tree        a command with background children and a setsid'ed daemon; exec_kill(SIGKILL)
 *               leaves none of them, and the session still runs a new exec
 *   isolation   two sandboxes: /tmp is private to each; a command cannot signal another exec's
 *               command in the same session, nor anything of the other sandbox
 *   crash       SIGKILL to pid 1: handle() says -EPIPE; free; a new sandbox works
 *   exec-fail   a missing command: EXEC_FAILED with ENOENT; a missing cwd: EXEC_FAILED
 *   persist     files written by one exec in the workspace and /tmp are seen by the next
 *   redirect    (no warm exec) a run with redirect_stdio: its command's 0, 1, 2 are the policy's
 *   hosts       allow_hosts: every command gets the proxy's variables
 *   concurrent  eight commands at once on a pool of two
 *   server-death  a server SIGKILLed takes its warm sandbox with it
 *   worker-fail   workers that cannot be made (--pids 2: no runner): each exec fails at once with
 *                 the worker's error
 *   pool-short    a pool of two under --pids 2: pid 1 cannot make the second worker, and the
 *                 server warns of it on stderr
 *   no-userns   (root) where no user namespace can be made: start() refuses, never degraded */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/policy/policy-build.h"
#include "launcher/policy/request.h"
#include "launcher/driver.h"
#include "launcher/base/log.h"
#include "launcher/policy/policy.h"

static const struct cr_warm_ops *ops;
static int failed;
static const char *ws;

static void check(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool cond, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	for (char *c = text; *c; c++)
		if (*c == '\n')
			*c = '|';
	printf("%s - %s\n", cond ? "ok" : "not ok", text);
	fflush(stdout);
	if (!cond)
		failed++;
}

static const char *allow_host; /* test hosts: start with --allow-host */
static const char *start_cwd;  /* --cwd */
static bool allow_degraded;
static uint64_t start_pids; /* --pids, or 0 */
static struct cr_setup_error start_error;

static struct cr_warm *start(struct cr_policy *p, unsigned pool)
{
	static char *argv[] = { "true", NULL };
	const char *hosts[] = { allow_host, NULL };
	struct cr_run_options o = { .allow_hosts = allow_host ? hosts : NULL,
				    .n_allow_hosts = allow_host ? 1 : 0,
				    .net = allow_host ? CR_NET_HOSTS : CR_NET_NONE,
				    .net_set = allow_host != NULL, .cwd = start_cwd,
				    .allow_degraded = allow_degraded, .argv = argv, .workspace = ws, .uid = 65534, .gid = 65534,
				    .uid_set = geteuid() == 0, .gid_set = geteuid() == 0,
				    .kill_after_ms = 2000 };
	struct cr_setup_error err = {};
	struct cr_warm *w = NULL;
	char msg[512] = "";
	int r;

	o.limits.value[CR_LIMIT_PIDS] = start_pids;
	o.limits.set[CR_LIMIT_PIDS] = start_pids > 0;
	r = cr_policy_build(&o, environ, geteuid() == 0, p, msg, sizeof(msg));
	if (r < 0) {
		printf("# policy: %s\n", msg);
		return NULL;
	}
	r = ops->start(p, pool, &w, &err);
	start_error = err;
	if (r < 0) {
		printf("# start: %s: %s (%s)\n", err.stage, err.message, strerror(-r));
		return NULL;
	}
	return w;
}

static int wait_ready(struct cr_warm *w)
{
	while (ops->ready(w) == 0) {
		struct pollfd p = { .fd = ops->fd(w), .events = POLLIN };
		int r;

		if (poll(&p, 1, 10000) <= 0)
			return -ETIMEDOUT;
		r = ops->handle(w);
		if (r < 0)
			return r;
	}
	return 0;
}

static int wait_exec(struct cr_exec *e, struct cr_exec_result *res, int timeout_ms)
{
	int r;

	while ((r = ops->exec_handle(e, res)) == -EAGAIN) {
		struct pollfd p = { .fd = ops->exec_fd(e), .events = POLLIN };

		if (poll(&p, 1, timeout_ms) <= 0)
			return -ETIMEDOUT;
	}
	return r;
}

/* exec() on a ready worker. -EAGAIN is exec()'s "wait for handle()": the ready workers it tried
 * had died idle (a worker that could not be made), and fewer than the server's limit in a row had
 * (how many pid 1 had queued depends on the schedule: under load, one). Then the next worker is
 * waited for and tried, as corral serve queues the command; a bounded number of times, so that a
 * server that never fails the command still fails the test rather than hang it. */
static int exec_when_ready(struct cr_warm *w, const struct cr_exec_request *req,
			   struct cr_exec **ret)
{
	int r = -EAGAIN;

	for (int i = 0; i < 8 && r == -EAGAIN; i++) {
		r = wait_ready(w);
		if (r >= 0)
			r = ops->exec(w, req, ret);
	}
	return r;
}

/* Start @argv (via sh -c @script if @script) with stdout to @out_fd (-1: /dev/null). */
static int exec_start(struct cr_warm *w, const struct cr_policy *p, const char *script,
		      const char *cwd, int out_fd, struct cr_exec **ret)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	int null = open("/dev/null", O_RDWR | O_CLOEXEC), r;
	struct cr_exec_request req = {
		.argv = argv, .envp = p->env, .cwd = cwd ?: p->workspace,
		.stdio = { null, out_fd >= 0 ? out_fd : null, 2 },
	};

	r = exec_when_ready(w, &req, ret);
	close(null);
	return r;
}

/* Run @script to the end; its stdout (up to @size) in @out. */
static int run(struct cr_warm *w, const struct cr_policy *p, const char *script, char *out,
	       size_t size, struct cr_exec_result *res)
{
	struct cr_exec *e = NULL;
	int pfd[2], r;
	size_t len = 0;
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	r = exec_start(w, p, script, NULL, pfd[1], &e);
	close(pfd[1]);
	while (r >= 0 && len + 1 < size && (n = read(pfd[0], out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(pfd[0]);
	if (r >= 0)
		r = wait_exec(e, res, 10000);
	ops->exec_free(e);
	return r;
}

static bool exited(const struct cr_exec_result *res, int code)
{
	return res->kind == CR_OUTCOME_EXITED && res->status == code;
}

/* The value of @key in /proc/@pid/status. */
static bool status_line(int pid, const char *key, char *buf, size_t size)
{
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	while (f && !found && fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0) {
			snprintf(buf, size, "%s", line + strlen(key) + strspn(line + strlen(key), " \t"));
			buf[strcspn(buf, "\n")] = '\0';
			found = true;
		}
	if (f)
		fclose(f);
	return found;
}

/* @pid's CapEff and CapPrm, appended to @seen; false if it is gone. @bare: both are 0. */
static bool caps_of(int pid, const char *what, char *seen, size_t size, bool *bare)
{
	char eff[64], prm[64];
	size_t len = strlen(seen);

	if (!status_line(pid, "CapEff:", eff, sizeof(eff)) ||
	    !status_line(pid, "CapPrm:", prm, sizeof(prm))) {
		snprintf(seen + len, size - len, "%s%s %d gone", len ? "; " : "", what, pid);
		return false;
	}
	snprintf(seen + len, size - len, "%s%s %d CapEff %s CapPrm %s", len ? "; " : "", what, pid,
		 eff, prm);
	*bare = strcmp(eff, "0000000000000000") == 0 && strcmp(prm, "0000000000000000") == 0;
	return true;
}

/* One look at the processes below pid 1, described in @seen. Returns whether the pool is settled:
 * at least one worker, and each has its runner and neither is gone. A worker being made holds the
 * zygote's CAP_SYS_ADMIN until it drops it, just before it forks its runner, and the worker of the
 * command that just ended is gone or exiting, its runner reaped: neither is a settled state.
 * @bare: every worker and runner seen has CapEff and CapPrm 0. */
static bool look_at_workers(int pid1, char *seen, size_t size, bool *bare)
{
	char path[64];
	int child, n = 0;
	bool settled = true;
	FILE *f;

	*bare = true;
	seen[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid1, pid1);
	f = fopen(path, "re");
	while (f && fscanf(f, "%d", &child) == 1) {
		int runner, runners = 0;
		bool b = false;
		FILE *g;

		settled &= caps_of(child, "worker", seen, size, &b);
		*bare &= b;
		n++;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", child, child);
		g = fopen(path, "re");
		while (g && fscanf(g, "%d", &runner) == 1) {
			settled &= caps_of(runner, "runner", seen, size, &b);
			*bare &= b;
			runners++;
		}
		if (g)
			fclose(g);
		settled &= runners > 0;
	}
	if (f)
		fclose(f);
	if (n == 0)
		snprintf(seen, size, "no worker below pid 1");
	return settled && n > 0;
}

static void test_run_seq(struct cr_warm *w, const struct cr_policy *p, int n)
{
	struct cr_exec_result res;
	char out[64], want[64], script[64], out2[1024];
	int good = 0, r = 0;
	bool settled = false, bare = false;
	json_object *o = json_object_new_object(), *warm;

	for (int i = 0; i < n; i++) {
		snprintf(script, sizeof(script), "echo %d", i);
		snprintf(want, sizeof(want), "%d\n", i);
		r = run(w, p, script, out, sizeof(out), &res);
		if (r < 0 || !exited(&res, 0) || strcmp(out, want) != 0) {
			printf("# exec %d: r=%d kind=%d status=%d out='%s'\n", i, r, res.kind,
			       res.status, out);
			break;
		}
		good++;
	}
	check(good == n, "run-seq: %d of %d execs printed their number and exited 0", good, n);
	r = run(w, p, "exit 3", out, sizeof(out), &res);
	check(r == 0 && exited(&res, 3), "run-seq: exit status 3 is reported");
	r = run(w, p, "kill -TERM $$", out, sizeof(out), &res);
	check(r == 0 && res.kind == CR_OUTCOME_SIGNALED && res.status == SIGTERM,
	      "run-seq: a command killed by SIGTERM is reported SIGNALED 15");
	r = run(w, p, "grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status | tr -s '\t' ' '",
		out2, sizeof(out2), &res);
	check(r == 0 && strcmp(out2, "CapPrm: 0000000000000000\nCapEff: 0000000000000000\n"
				     "CapBnd: 0000000000000000\nNoNewPrivs: 1\nSeccomp: 2\n") == 0,
	      "run-seq: the command has no capability, no_new_privs and the seccomp filter: %s",
	      out2);
	check(status_line(ops->pid(w), "CapEff:", out2, sizeof(out2)) &&
		      strcmp(out2, "0000000000200000") == 0 &&
		      status_line(ops->pid(w), "CapBnd:", out2, sizeof(out2)) &&
		      strcmp(out2, "0000000000000000") == 0 &&
		      status_line(ops->pid(w), "NoNewPrivs:", out2, sizeof(out2)) &&
		      strcmp(out2, "1") == 0,
	      "run-seq: pid 1 keeps CAP_SYS_ADMIN only, an empty bounding set, no_new_privs");
	/* Wait for the pool to settle (up to 3 s, which an ASan build under CI's parallel suites
	 * needed), then judge that same look: another could see a worker that has come or gone
	 * since. */
	for (int i = 0;
	     !(settled = look_at_workers(ops->pid(w), out2, sizeof(out2), &bare)) && i < 150; i++)
		usleep(20000);
	check(settled && bare, "run-seq: the workers and their runners have no capability: %s",
	      out2);
	r = ops->report(w, o);
	check(r == 0 && json_object_object_get_ex(o, "warm", &warm) &&
		      json_object_object_get_ex(o, "landlock", NULL),
	      "run-seq: report has warm and landlock: %s",
	      json_object_to_json_string(json_object_object_get(o, "warm")));
	json_object_put(o);
}

/* Under --pids 2 (pid 1 and one worker) no worker can fork its runner: each exec fails with
 * EXEC_FAILED and the worker's error, EAGAIN, rather than waiting for a worker that never comes
 * or ending SIGNALED 9 without a word; and the next exec too (a failed worker is replaced). */
static void test_worker_fail(struct cr_warm *w, const struct cr_policy *p)
{
	for (int i = 0; i < 2; i++) {
		struct cr_exec_result res = {};
		char out[64];
		int r = run(w, p, "echo ran", out, sizeof(out), &res);

		check(r == 0 && res.kind == CR_OUTCOME_EXEC_FAILED && res.err == EAGAIN &&
			      out[0] == '\0',
		      "worker-fail: exec %d fails with its worker's error: r=%d kind=%d err %s out '%s'",
		      i, r, res.kind, strerror(res.err), out);
	}
}

/* Under --pids 2 with a pool of two, pid 1 can clone one worker but not the second (EAGAIN): the
 * server is told, and warns on stderr (a memfd since before start(): @err_fd), rather than pid 1
 * retrying without a word. */
static void test_pool_short(struct cr_warm *w, int err_fd, int saved_stderr)
{
	char buf[4096] = "";
	ssize_t n = 0;

	for (int i = 0; i < 100 && !strstr(buf, "could not be made"); i++) {
		struct pollfd pf = { .fd = ops->fd(w), .events = POLLIN };

		(void)poll(&pf, 1, 30);
		(void)ops->handle(w);
		n = pread(err_fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
	}
	(void)dup2(saved_stderr, 2);
	check(strstr(buf, "warm sandbox: a worker could not be made: Resource temporarily unavailable") !=
		      NULL,
	      "pool-short: the server warns that pid 1 could not make a worker: %s", buf);
}

/* Is host process @pid below @root? */
static bool is_below(int pid, int root)
{
	for (int hops = 0; pid > 1 && pid != root && hops < 64; hops++) {
		char path[64], buf[512], *p = NULL;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "re");
		if (f && fgets(buf, sizeof(buf), f))
			p = strrchr(buf, ')');
		if (f)
			fclose(f);
		pid = p ? atoi(p + 4) : 0;
	}
	return pid == root;
}

/* Host processes below @root whose comm is @comm: their number, and one of them in @ret_pid. */
static int find_below(pid_t root, const char *comm, int *ret_pid)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int count = 0;

	while (d && (de = readdir(d))) {
		char path[64], name[64] = "";
		int pid = atoi(de->d_name);
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		if (pid <= 0 || !(f = fopen(path, "re")))
			continue;
		if (!fgets(name, sizeof(name), f))
			name[0] = '\0';
		fclose(f);
		name[strcspn(name, "\n")] = '\0';
		if (strcmp(name, comm) == 0 && is_below(pid, root)) {
			count++;
			if (ret_pid)
				*ret_pid = pid;
		}
	}
	if (d)
		closedir(d);
	return count;
}

static int count_descendants(pid_t root, const char *comm)
{
	return find_below(root, comm, NULL);
}

static bool wait_count(pid_t root, const char *comm, int want)
{
	for (int i = 0; i < 200; i++) {
		if (count_descendants(root, comm) == want)
			return true;
		usleep(20000);
	}
	return false;
}

static void test_tree(struct cr_warm *w, const struct cr_policy *p)
{
	struct cr_exec_result res;
	struct cr_exec *e = NULL;
	char out[64];
	int r;

	bool up;

	r = exec_start(w, p, "setsid sleep 100 & sleep 101 & sleep 102", NULL, -1, &e);
	up = r == 0 && wait_count(ops->pid(w), "sleep", 3);
	check(up, "tree: the command, its background child and a setsid'ed daemon run (%d)",
	      count_descendants(ops->pid(w), "sleep"));
	r = r ?: ops->exec_kill(e, SIGKILL);
	r = r ?: wait_exec(e, &res, 10000);
	check(r == 0 && res.kind == CR_OUTCOME_SIGNALED && res.status == SIGKILL,
	      "tree: exec_kill(SIGKILL) ends the exec, SIGNALED 9 (r=%d)", r);
	check(count_descendants(ops->pid(w), "sleep") == 0,
	      "tree: no process of the command is left once exec_handle() reported the end");
	ops->exec_free(e);
	r = run(w, p, "echo again", out, sizeof(out), &res);
	check(r == 0 && exited(&res, 0) && strcmp(out, "again\n") == 0,
	      "tree: the session still runs a new exec");
	e = NULL;
	r = exec_start(w, p, "sleep 105 & exec sleep 106", NULL, -1, &e);
	up = r == 0 && wait_count(ops->pid(w), "sleep", 2);
	r = r ?: ops->exec_kill(e, SIGTERM);
	r = r ?: wait_exec(e, &res, 10000);
	check(up && r == 0 && res.kind == CR_OUTCOME_SIGNALED && res.status == SIGTERM &&
		      count_descendants(ops->pid(w), "sleep") == 0,
	      "tree: exec_kill(SIGTERM) reaches the command and its children: SIGNALED 15");
	ops->exec_free(e);
	e = NULL;
	r = exec_start(w, p, "sleep 107 & sleep 108", NULL, -1, &e);
	up = r == 0 && wait_count(ops->pid(w), "sleep", 2);
	ops->exec_free(e);
	check(up && wait_count(ops->pid(w), "sleep", 0),
	      "tree: exec_free() of a running exec kills what it started");
	/* The command's own end ends what it left running, too. */
	r = run(w, p, "sleep 103 & setsid sleep 104 & echo bye", out, sizeof(out), &res);
	check(r == 0 && exited(&res, 0) && count_descendants(ops->pid(w), "sleep") == 0,
	      "tree: when the command exits, what it left in the background is gone");
}

/* The session-namespace pid of a host pid: the second NSpid field. */
static int session_pid(int host_pid)
{
	char path[64], line[256];
	int a = 0, b = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", host_pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "NSpid: %d %d", &a, &b) == 2)
			break;
	if (f)
		fclose(f);
	return b;
}

static void test_isolation(struct cr_warm *w, const struct cr_policy *p)
{
	char ws2[] = "/tmp/warm-client.XXXXXX", out[256], script[256];
	struct cr_policy p2 = {};
	struct cr_exec_result res;
	struct cr_exec *e = NULL;
	struct cr_warm *w2;
	int r, host, sess;

	if (!mkdtemp(ws2) || chmod(ws2, 0755) < 0 || (geteuid() == 0 && chown(ws2, 65534, 65534) < 0)) {
		check(false, "isolation: second workspace");
		return;
	}
	ws = ws2;
	w2 = start(&p2, 1);
	check(w2 != NULL, "isolation: a second warm sandbox starts");
	if (!w2)
		goto out;
	r = run(w, p, "echo secret > /tmp/mine", out, sizeof(out), &res);
	r = r ?: run(w2, &p2, "test -e /tmp/mine; echo $?", out, sizeof(out), &res);
	check(r == 0 && strcmp(out, "1\n") == 0, "isolation: one sandbox's /tmp file is invisible to the other");

	r = exec_start(w, p, "SECRET=xyz exec sleep 100", NULL, -1, &e);
	check(r == 0 && wait_count(ops->pid(w), "sleep", 1), "isolation: exec B sleeps");
	host = 0;
	(void)find_below(ops->pid(w), "sleep", &host);
	sess = session_pid(host);
	snprintf(script, sizeof(script), "kill -0 %d 2>/dev/null; echo $?; kill -9 %d 2>/dev/null; echo $?",
		 sess, sess);
	r = run(w, p, script, out, sizeof(out), &res);
	check(r == 0 && strcmp(out, "1\n1\n") == 0 && kill(host, 0) == 0,
	      "isolation: exec A cannot signal exec B's command (session pid %d): %s", sess, out);
	/* Each command has the /proc of its own pid namespace: exec B's sleep is not there at all,
	 * so neither are its environ and descriptors. */
	r = run(w, p, "for d in /proc/[0-9]*; do [ \"$(cat $d/comm 2>/dev/null)\" = sleep ] && "
		      "echo seen; grep -qs SECRET=xyz $d/environ && echo secret; done; "
		      "cat /proc/self/environ >/dev/null; echo $?", out, sizeof(out), &res);
	check(r == 0 && strcmp(out, "0\n") == 0,
	      "isolation: exec A sees no process of exec B in /proc, so neither its environ nor its descriptors: %s",
	      out);
	r = run(w, p, "sleep 30 & sleep 0.3; for d in /proc/[0-9]*; do "
		      "[ \"$(cat $d/comm 2>/dev/null)\" = sleep ] && cat $d/environ >/dev/null 2>&1 && "
		      "echo readable; done; kill $!", out, sizeof(out), &res);
	check(r == 0 && strcmp(out, "readable\n") == 0,
	      "isolation: positive control: of the two sleeps, only exec A's own is readable: %s", out);
	snprintf(script, sizeof(script),
		 "for p in %d %d %d; do kill -0 $p 2>/dev/null && echo $p; done; "
		 "kill -0 $$ && echo self", host,
		 sess, ops->pid(w));
	r = run(w2, &p2, script, out, sizeof(out), &res);
	check(r == 0 && strcmp(out, "self\n") == 0 && kill(host, 0) == 0,
	      "isolation: the other sandbox cannot signal it either (only itself answers): %s",
	      out);
	if (e) {
		r = ops->exec_kill(e, SIGKILL);
		r = r ?: wait_exec(e, &res, 10000);
		check(r == 0 && res.kind == CR_OUTCOME_SIGNALED, "isolation: exec B killed");
		ops->exec_free(e);
	}
	w2 = ops->free(w2);
out:
	cr_policy_done(&p2);
	rmdir(ws2);
}

static void test_crash(struct cr_warm *w, struct cr_policy *p)
{
	struct cr_exec_result res;
	char out[64];
	int r = 0, pid = ops->pid(w);

	check(kill(pid, SIGKILL) == 0, "crash: SIGKILL to pid 1");
	for (int i = 0; i < 100 && r == 0; i++) {
		struct pollfd pf = { .fd = ops->fd(w), .events = POLLIN };

		(void)poll(&pf, 1, 100);
		r = ops->handle(w);
	}
	check(r == -EPIPE, "crash: handle() returns -EPIPE (%d)", r);
	ops->free(w);
	check(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "crash: no child left after free");
	cr_policy_done(p);
	w = start(p, 1);
	check(w != NULL, "crash: a new sandbox starts");
	if (!w)
		return;
	r = run(w, p, "echo fresh", out, sizeof(out), &res);
	check(r == 0 && exited(&res, 0) && strcmp(out, "fresh\n") == 0, "crash: and runs a command");
	ops->free(w);
}

static void test_exec_fail(struct cr_warm *w, const struct cr_policy *p)
{
	char *argv[] = { "no-such-command-here", NULL };
	struct cr_exec_request req = { .argv = argv, .envp = p->env, .cwd = p->workspace,
				       .stdio = { 0, 1, 2 } };
	struct cr_exec_result res;
	struct cr_exec *e = NULL;
	int r;

	r = exec_when_ready(w, &req, &e);
	r = r ?: wait_exec(e, &res, 10000);
	check(r == 0 && res.kind == CR_OUTCOME_EXEC_FAILED && res.err == ENOENT,
	      "exec-fail: a missing command is EXEC_FAILED ENOENT (kind %d err %d)", res.kind,
	      res.err);
	ops->exec_free(e);
	e = NULL;
	{
		struct cr_policy p2 = {};
		struct cr_warm *w2;

		start_cwd = "/no/such/dir";
		w2 = start(&p2, 1);
		check(!w2 && strcmp(start_error.stage, "cwd") == 0 && start_error.err == ENOENT,
		      "exec-fail: a sandbox whose setup fails: start() says which stage (%s, %s)",
		      start_error.stage, start_error.message);
		ops->free(w2);
		cr_policy_done(&p2);
		start_cwd = NULL;
	}
	argv[0] = "true";
	req.cwd = "/no/such/dir";
	r = exec_when_ready(w, &req, &e);
	r = r ?: wait_exec(e, &res, 10000);
	check(r == 0 && res.kind == CR_OUTCOME_EXEC_FAILED && res.err == ENOENT,
	      "exec-fail: a missing working directory is EXEC_FAILED ENOENT");
	ops->exec_free(e);
}

static void test_persist(struct cr_warm *w, const struct cr_policy *p)
{
	struct cr_exec_result res;
	char out[64];
	int r;

	r = run(w, p, "echo a > f && echo b > /tmp/g && echo c > ~/h", out, sizeof(out), &res);
	check(r == 0 && exited(&res, 0), "persist: exec 1 writes the workspace, /tmp and home");
	r = run(w, p, "cat f /tmp/g ~/h", out, sizeof(out), &res);
	check(r == 0 && exited(&res, 0) && strcmp(out, "a\nb\nc\n") == 0,
	      "persist: exec 2 reads them: '%s'", out);
	/* Reparenting (Landlock's refer right) works as in a run: each command's own domain
	 * must not forbid it. */
	r = run(w, p, "mkdir -p d1 d2 && mv f d1/ && mv d1/f d2/ && ln d2/f d1/l && mv /tmp/g d2/ && "
		      "echo moved", out, sizeof(out), &res);
	check(r == 0 && exited(&res, 0) && strcmp(out, "moved\n") == 0,
	      "persist: files can be moved and linked across directories: '%s'", out);
}

/* allow_hosts: the proxy's variables reach every command, as in a run, unless it sets them. */
static void test_hosts(struct cr_warm *w, const struct cr_policy *p)
{
	struct cr_exec_result res;
	char out[128];
	int r;

	r = run(w, p, "echo $http_proxy $NO_PROXY", out, sizeof(out), &res);
	check(r == 0 && strcmp(out, "http://127.0.0.1:3128 localhost,127.0.0.1,::1\n") == 0,
	      "hosts: the command gets the proxy's variables: %s", out);
}

/* The server SIGKILLed: its sandboxes die with it (pid 1's parent-death signal). */
static void test_server_death(void)
{
	struct cr_policy p = {};
	int pfd[2], pid1 = 0, st;
	pid_t server;
	char path[64];

	if (pipe(pfd) < 0)
		return;
	server = fork();
	if (server == 0) {
		struct cr_warm *w = start(&p, 2);
		int pid = w ? ops->pid(w) : 0;

		(void)!write(pfd[1], &pid, sizeof(pid));
		pause();
		_exit(0);
	}
	close(pfd[1]);
	(void)!read(pfd[0], &pid1, sizeof(pid1));
	close(pfd[0]);
	check(pid1 > 0, "server-death: a server process started a warm sandbox (pid 1 is %d)", pid1);
	kill(server, SIGKILL);
	waitpid(server, &st, 0);
	snprintf(path, sizeof(path), "/proc/%d", pid1);
	for (int i = 0; i < 200 && access(path, F_OK) == 0; i++)
		usleep(20000);
	check(pid1 > 0 && access(path, F_OK) < 0,
	      "server-death: SIGKILL to the server takes the sandbox's pid 1 with it");
}

/* Eight commands at once on a pool of two: exec() as workers become ready, then every end. */
static void test_concurrent(struct cr_warm *w, const struct cr_policy *p)
{
	enum { N = 8 };
	struct cr_exec *e[N] = {};
	struct cr_exec_result res;
	char script[64], out[16];
	int pfd[N][2], good = 0, r = 0;

	for (int i = 0; i < N && r == 0; i++) {
		if (pipe2(pfd[i], O_CLOEXEC) < 0)
			return;
		snprintf(script, sizeof(script), "sleep 0.3; echo %d", i);
		r = exec_start(w, p, script, NULL, pfd[i][1], &e[i]);
		close(pfd[i][1]);
	}
	check(r == 0, "concurrent: %d commands started on a pool of 2", N);
	for (int i = 0; i < N; i++) {
		ssize_t n = e[i] ? read(pfd[i][0], out, sizeof(out) - 1) : -1;

		out[n > 0 ? n : 0] = '\0';
		if (e[i] && wait_exec(e[i], &res, 10000) == 0 && exited(&res, 0) && atoi(out) == i)
			good++;
		ops->exec_free(e[i]);
		close(pfd[i][0]);
	}
	check(good == N, "concurrent: all %d printed their number and exited 0 (%d)", N, good);
}

/* The cold path of corral serve: a one-off run whose command gets the policy's stdio. */
static void test_redirect(struct cr_policy *p)
{
	static char *argv[] = { "sh", "-c", "read x; echo out:$x; echo err:$x >&2", NULL };
	const struct cr_driver *drv = cr_driver_native();
	int in[2], out[2], err[2];
	struct cr_setup_error se = {};
	struct cr_outcome o = {};
	struct cr_run *run = NULL;
	char buf[64] = "", ebuf[64] = "";
	ssize_t n;
	int r;

	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		return;
	p->argv = argv;
	p->redirect_stdio = true;
	p->stdio[0] = in[0];
	p->stdio[1] = out[1];
	p->stdio[2] = err[1];
	r = drv->prepare(p, &run, &se);
	r = r ?: drv->spawn(run);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	(void)!write(in[1], "hi\n", 3);
	close(in[1]);
	r = r ?: drv->wait(run, 10000, &o);
	n = read(out[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	n = read(err[0], ebuf, sizeof(ebuf) - 1);
	ebuf[n > 0 ? n : 0] = '\0';
	check(r == 0 && o.kind == CR_OUTCOME_EXITED && o.status == 0 &&
		      strcmp(buf, "out:hi\n") == 0 && strcmp(ebuf, "err:hi\n") == 0,
	      "redirect: a run's command reads and writes the policy's stdio (%s: %s) '%s' '%s'",
	      se.stage, se.message, buf, ebuf);
	drv->run_free(run);
	close(out[0]);
	close(err[0]);
	p->redirect_stdio = false;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r;

	r = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	if (fd >= 0)
		close(fd);
	return r;
}

/* In a user namespace of its own (uids and gids 0-999 mapped to the host's) whose
 * max_user_namespaces is 0, as uid 500: a warm sandbox cannot be made, and start() refuses
 * rather than fall back to degraded mode, even with allow_degraded. Needs root. */
static int test_no_userns(void)
{
	int to_parent[2], to_child[2], st;
	char path[64], c;
	pid_t pid;

	if (geteuid() != 0) {
		printf("ok - no-userns: # SKIP needs root\n");
		return 0;
	}
	if (pipe(to_parent) < 0 || pipe(to_child) < 0)
		return 1;
	pid = fork();
	if (pid == 0) {
		struct cr_policy p = {};
		struct cr_warm *w;

		if (unshare(CLONE_NEWUSER) < 0 || write(to_parent[1], "u", 1) != 1 ||
		    read(to_child[0], &c, 1) != 1 ||
		    write_file("/proc/sys/user/max_user_namespaces", "0") < 0 ||
		    setgroups(0, NULL) < 0 || setresgid(500, 500, 500) < 0 ||
		    setresuid(500, 500, 500) < 0) {
			check(false, "no-userns: the test's own user namespace (%m)");
			_exit(1);
		}
		allow_degraded = true;
		w = start(&p, 1);
		check(!w && strcmp(start_error.stage, "clone") == 0 &&
			      strstr(start_error.message, "no degraded mode") != NULL,
		      "no-userns: start() refuses without namespaces, even with allow_degraded: %s: %s",
		      start_error.stage, start_error.message);
		ops->free(w);
		_exit(failed ? 1 : 0);
	}
	if (pid < 0 || read(to_parent[0], &c, 1) != 1)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	st = write_file(path, "0 0 1000");
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	st = st ?: write_file(path, "0 0 1000");
	(void)!write(to_child[1], "g", 1);
	if (waitpid(pid, &st, 0) != pid || st != 0)
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int err_fd = -1, saved_stderr = -1;
	struct cr_policy p = {};
	struct cr_warm *w;
	const char *t;

	if (argc < 3) {
		fprintf(stderr, "usage: warm-client WORKSPACE TEST [N]\n");
		return 2;
	}
	ws = argv[1];
	t = argv[2] ? argv[2] : "";
	ops = cr_driver_native()->warm;
	cr_log_set_level(CR_LOG_ERR);
	if (strcmp(t, "server-death") == 0) {
		test_server_death();
		check(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "%s: no child process left", t);
		return failed ? 1 : 0;
	}
	if (strcmp(t, "no-userns") == 0)
		return test_no_userns();
	if (strcmp(t, "hosts") == 0)
		allow_host = "example.com";
	if (strcmp(t, "worker-fail") == 0 || strcmp(t, "pool-short") == 0)
		start_pids = 2;
	if (strcmp(t, "pool-short") == 0) {
		err_fd = memfd_create("stderr", MFD_CLOEXEC);
		saved_stderr = dup(2);
		if (err_fd < 0 || saved_stderr < 0 || dup2(err_fd, 2) < 0)
			return 1;
		cr_log_set_level(CR_LOG_WARNING);
	}
	w = start(&p, strcmp(t, "isolation") == 0 || strcmp(t, "concurrent") == 0 ||
				      strcmp(t, "pool-short") == 0
			      ? 2
			      : 1);
	check(w != NULL, "%s: the warm sandbox starts", t);
	if (!w)
		return 1;
	if (strcmp(t, "run-seq") == 0)
		test_run_seq(w, &p, argc > 3 ? atoi(argv[3]) : 20);
	else if (strcmp(t, "tree") == 0)
		test_tree(w, &p);
	else if (strcmp(t, "isolation") == 0)
		test_isolation(w, &p);
	else if (strcmp(t, "crash") == 0)
		test_crash(w, &p), w = NULL;
	else if (strcmp(t, "exec-fail") == 0)
		test_exec_fail(w, &p);
	else if (strcmp(t, "persist") == 0)
		test_persist(w, &p);
	else if (strcmp(t, "redirect") == 0)
		test_redirect(&p);
	else if (strcmp(t, "hosts") == 0)
		test_hosts(w, &p);
	else if (strcmp(t, "concurrent") == 0)
		test_concurrent(w, &p);
	else if (strcmp(t, "worker-fail") == 0)
		test_worker_fail(w, &p);
	else if (strcmp(t, "pool-short") == 0)
		test_pool_short(w, err_fd, saved_stderr);
	else
		check(false, "unknown test %s", t);
	ops->free(w);
	cr_policy_done(&p);
	check(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "%s: no child process left", t);
	return failed ? 1 : 0;
}
