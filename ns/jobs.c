/* SPDX-License-Identifier: MIT */
/* Job control and the deadline, kept by the sandbox's pid 1 while the command runs.
 *
 * corral stops the sandbox with itself: on SIGTSTP, SIGTTIN or SIGTTOU it sends pid 1 SIGTSTP
 * and stops, on SIGCONT it sends pid 1 SIGCONT (ns/driver.c). A SIGSTOP of corral cannot be
 * caught: pid 1 reads corral's state every CR_JOBS_TICK_MS through corral's /proc/PID/stat, which
 * corral opened before clone, and follows it. pid 1 stops and continues the sandbox with SIGSTOP
 * and SIGCONT to every other process of its pid namespace (kill(-1)); it is never stopped itself,
 * so it keeps reaping, and keeps the deadline: at --timeout it sends SIGTERM (and SIGCONT, so
 * that a stopped command can handle it), --kill-after later SIGKILL, even while corral is
 * stopped, and tells corral on the report pipe. Everything here runs in signal handlers, each
 * with every other signal blocked, and uses only async-signal-safe calls. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "linux-internal.h"
#include "launcher/base/macro.h"
#include "launcher/base/time-util.h"

static struct {
	int stat_fd; /* corral's /proc/PID/stat; -EBADF: not watched */
	int msg_fd;
	int64_t deadline_ns, kill_ns; /* CLOCK_MONOTONIC; 0: no --timeout */
	bool stopped;		      /* the sandbox is stopped */
	bool by_watch;		      /* ... because corral was seen stopped, not told */
	int phase;		      /* 0; 1: the deadline's SIGTERM was sent; 2: its SIGKILL */
} jobs = { .stat_fd = -EBADF, .msg_fd = -EBADF };

bool cr_jobs_stat_stopped(const char *stat, size_t n)
{
	/* "PID (COMM) STATE ...": COMM may hold anything, ')' too, but no field after it does. */
	const char *p = memrchr(stat, ')', n);

	return p && (size_t)(p - stat) + 2 < n && p[1] == ' ' && p[2] == 'T';
}

/* Every other process of the sandbox: kill(-1) from pid 1 of its own pid namespace. An explicit
 * policy may share the caller's pid namespace, where kill(-1) would reach every process the
 * caller may signal: there, only the command (cr_jobs_set_command()). */
static pid_t only_pid;

void cr_jobs_set_command(pid_t pid)
{
	only_pid = getpid() == 1 ? 0 : pid;
}

int cr_jobs_kill_all(int sig)
{
	return kill(only_pid > 0 ? only_pid : -1, sig);
}

static void stop_all(bool by_watch)
{
	if (jobs.stopped || jobs.phase)
		return;
	(void)cr_jobs_kill_all(SIGSTOP); /* from pid 1: every other process of the namespace */
	jobs.stopped = true;
	jobs.by_watch = by_watch;
}

static void continue_all(void)
{
	if (!jobs.stopped)
		return;
	(void)cr_jobs_kill_all(SIGCONT);
	jobs.stopped = jobs.by_watch = false;
}

/* The deadline passed: the polite stop, sent once; a stopped sandbox is continued so that the
 * command can handle it, as it could had it not been stopped. */
static void timeout_term(void)
{
	struct cr_child_msg msg = { .type = CR_MSG_TIMEOUT };

	jobs.phase = 1;
	(void)!write(jobs.msg_fd, &msg, sizeof(msg));
	(void)cr_jobs_kill_all(SIGTERM);
	continue_all();
}

static void on_tick(int sig)
{
	int saved = errno;
	int64_t now = cr_now_ns();
	char buf[64];
	ssize_t n;

	if (jobs.deadline_ns && !jobs.phase && now >= jobs.deadline_ns)
		timeout_term();
	if (jobs.phase == 1 && now >= jobs.kill_ns) {
		(void)cr_jobs_kill_all(SIGKILL);
		jobs.phase = 2;
	}
	if (jobs.stat_fd >= 0 && !jobs.phase) {
		n = pread(jobs.stat_fd, buf, sizeof(buf), 0);
		if (n > 0 && cr_jobs_stat_stopped(buf, (size_t)n))
			stop_all(true);
		else if (n > 0 && jobs.by_watch)
			continue_all();
	}
	errno = saved;
}

static void on_job_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	/* Only corral's (or another host process's): a sender outside the namespace shows as pid
	 * 0. The command cannot stop or continue the sandbox through pid 1. */
	if (si->si_code != SI_USER || si->si_pid != 0)
		return;
	if (sig == SIGTSTP)
		stop_all(false);
	else
		continue_all();
	errno = saved;
}

bool cr_jobs_timeout_term(void)
{
	if (!jobs.deadline_ns || cr_now_ns() < jobs.deadline_ns)
		return false;
	if (!jobs.phase)
		timeout_term();
	return true;
}

int cr_jobs_start(const struct cr_child_ctx *ctx)
{
	struct sigaction job = { .sa_sigaction = on_job_signal,
				 .sa_flags = SA_SIGINFO | SA_RESTART };
	struct sigaction tick = { .sa_handler = on_tick, .sa_flags = SA_RESTART };
	struct itimerval every = { .it_interval = { .tv_usec = CR_JOBS_TICK_MS * 1000 },
				   .it_value = { .tv_usec = CR_JOBS_TICK_MS * 1000 } };

	jobs.stat_fd = ctx->parent_stat_fd;
	jobs.msg_fd = ctx->msg_fd;
	if (ctx->deadline_ns) {
		jobs.deadline_ns = ctx->deadline_ns;
		jobs.kill_ns = ctx->deadline_ns + (int64_t)ctx->kill_after_ms * 1000000;
	}
	(void)sigfillset(&job.sa_mask);
	(void)sigfillset(&tick.sa_mask);
	if (sigaction(SIGTSTP, &job, NULL) < 0 || sigaction(SIGCONT, &job, NULL) < 0 ||
	    sigaction(SIGALRM, &tick, NULL) < 0)
		return negative_errno();
	if ((jobs.stat_fd >= 0 || jobs.deadline_ns) && setitimer(ITIMER_REAL, &every, NULL) < 0)
		return negative_errno();
	return 0;
}
