/* SPDX-License-Identifier: MIT */
/* Shared between the parts of the Linux driver: the child's setup stages and their reports. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "launcher/driver.h"
#include "idmap.h"
#include "landlock/landlock.h"
#include "mount-plan.h"
#include "launcher/policy/policy.h"

/* The child's setup, in order. The failing stage's name is reported to the parent. */
enum cr_stage {
	CR_STAGE_SYNC,
	CR_STAGE_MOUNT_NS,
	CR_STAGE_OPEN_SOURCES,
	CR_STAGE_CREDS,
	CR_STAGE_USERNS_LIMIT,
	CR_STAGE_ROOT,
	CR_STAGE_MOUNTS,
	CR_STAGE_PIVOT_ROOT,
	CR_STAGE_REMOUNT_RO,
	CR_STAGE_LOOPBACK,
	CR_STAGE_HOSTNAME,
	CR_STAGE_CWD,
	CR_STAGE_CAPS,
	CR_STAGE_NO_NEW_PRIVS,
	CR_STAGE_LANDLOCK,
	CR_STAGE_LIMITS,
	CR_STAGE_FORK,
	CR_STAGE_FDS,
	CR_STAGE_SECCOMP, /* also the parent's, when a profile cannot be prepared */
	CR_STAGE_EXEC,
	/* Parent-side steps, reported in the same vocabulary. */
	CR_STAGE_CLONE,
	CR_STAGE_UID_MAP,
	CR_STAGE_DEGRADED,
	_CR_STAGE_MAX,
};

const char *cr_stage_to_string(enum cr_stage stage);

/* An explicit policy's namespaces (enum cr_ns_bit) as clone flags, a mount namespace always. */
unsigned long cr_ns_explicit_clone_flags(unsigned ns);
/* Enter the user and pid namespaces an explicit policy was given (setns), in corral's own
 * process before clone, so that the sandbox is made in the one and starts in the other. 0, or
 * -errno with @err filled. */
int cr_ns_explicit_enter(const struct cr_policy *p, struct cr_setup_error *err);

enum cr_msg_type {
	CR_MSG_ERROR = 1, /* a setup stage, or execve, failed */
	CR_MSG_EXIT,	  /* the command ended; status is its wait status */
	CR_MSG_TIMEOUT,	  /* pid 1 reached the deadline and stops the command (ns/jobs.c) */
};

/* Sent child -> parent on a CLOEXEC pipe; small enough to be written atomically. */
struct cr_child_msg {
	int type;
	int stage;
	int err; /* positive errno */
	int status;
	char detail[200];
};

struct cr_cgroup;
struct cr_rlimits;
struct cr_seccomp;

/* What the child needs; prepared by the parent before clone, read-only afterwards except for
 * the plan's source descriptors and the scratch detail buffer. */
struct cr_child_ctx {
	const struct cr_policy *policy;
	struct cr_mount_plan plan;
	struct cr_idmap idmap;
	int sync_fd; /* read end: one byte once the id maps are written, EOF if the parent died */
	int msg_fd;  /* write end of the report pipe */
	sigset_t ignored; /* interrupt signals corral was started with ignored; the command too */
	const struct cr_rlimits *rlimits; /* set by pid 1 before the fork; NULL: only RLIMIT_CORE */
	struct cr_cgroup *cgroup; /* the run's; pid 1 joins its v1 hierarchies itself. NULL: none */
	struct cr_landlock_plan landlock; /* enforced by pid 1 as its last stage before the fork */
	const struct cr_seccomp *seccomp; /* installed by the command's process; NULL: none */
	int proxy_fd;	     /* allow_hosts: the sandbox's end of the proxy's socketpair; else -EBADF */
	int proxy_listen_fd; /* allow_hosts: 127.0.0.1:3128, bound by stage loopback; else -EBADF */
	unsigned warm_pool;  /* a warm sandbox (ns/zygote.c): workers pid 1 keeps ready; 0: a run */
	int warm_fd;	     /* with warm_pool: pid 1's end of the control socket */
	int proc_fd;	     /* explicit policies: the /proc pid 1 started with, for what it does
			      * after the root changed; or -EBADF */
	int parent_stat_fd;  /* corral's /proc/PID/stat, watched by pid 1 (ns/jobs.c); or -EBADF */
	int max_userns_fd;   /* sys/user/max_user_namespaces of the sandbox's own /proc, opened by
			      * cr_mounts_apply() before /proc/sys is made read-only; -errno if it
			      * could not be; -EBADF: no /proc in the plan. An explicit policy's
			      * (--disable-userns): opened after its --proc, or -EBADF */
	int64_t deadline_ns; /* --timeout as a CLOCK_MONOTONIC time, kept by pid 1 too; 0: none */
	uint64_t kill_after_ms; /* --kill-after: SIGKILL this long after the deadline's SIGTERM */
	char detail[200];
};

/* Exit status of a child that stops because the parent is gone or already reported. */
#define CR_EXIT_SETUP_SILENT 125

/* Run the setup stages in order. 0, or -errno with the failing stage in @ret_failed. */
int cr_stages_run(struct cr_child_ctx *ctx, enum cr_stage *ret_failed);

/* The child's body after clone: build the sandbox, fork the command, reap. Never returns. */
_Noreturn void cr_child_main(struct cr_child_ctx *ctx);

/* The command's side of the fork: reset signals, close descriptors, execve with a PATH search in
 * the sandbox's environment. Reports a failure on ctx->msg_fd and exits 126/127. */
_Noreturn void cr_command_main(struct cr_child_ctx *ctx);

/* execve() @argv[0] with a PATH search in @envp's PATH, as execvp(3) but without its /bin/sh
 * fallback. Returns only on failure: -errno (-ENOENT: no PATH entry had it, -EACCES: one had it
 * but it could not be executed). Shared by the command of a run and a warm sandbox's runner. */
int cr_exec_command(char *const argv[], char *const envp[]);
/* The same, executing @file (looked up as argv[0] would be) with @argv as it is. */
int cr_exec_file(const char *file, char *const argv[], char *const envp[]);
/* An explicit policy's own seccomp programs (cr_policy.ex), after corral's filter, in the order
 * given: a run's command and a process entered into a running sandbox (ns/enter.c). 0 or -errno. */
int cr_install_programs(const struct cr_policy *p);
/* Without no_new_privs (cr_policy.ex.new_privs): corral's filter and the policy's programs,
 * installed by the stage that drops the capabilities, while CAP_SYS_ADMIN in the sandbox's user
 * namespace still allows it; they then bind the rest of the setup as well as the command (its
 * first process, ex.as_pid_1). 0 or -errno, with ctx->detail set. */
int cr_child_filters_early(struct cr_child_ctx *ctx);
/* Job control and the deadline in pid 1 (ns/jobs.c), every CR_JOBS_TICK_MS while the command
 * runs. cr_jobs_start(): after the command's fork, with SIGTSTP, SIGCONT and SIGALRM blocked;
 * installs their handlers and the timer. 0 or -errno. */
#define CR_JOBS_TICK_MS 100

/* Built with AddressSanitizer: pid 1 then forks the command instead of sharing its memory with
 * it (ns/child.c), since the sanitizer keeps one shadow of the stack for both and cannot follow
 * a child on a stack it does not know. */
#if defined(__SANITIZE_ADDRESS__)
#define CR_SANITIZED true
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CR_SANITIZED true
#endif
#endif
#ifndef CR_SANITIZED
#define CR_SANITIZED false
#endif
int cr_jobs_start(const struct cr_child_ctx *ctx);
/* In pid 1's SIGTERM handler: true if the deadline has passed, the SIGTERM then being the
 * timeout's, which goes to the sandbox once (and false before: forward it). */
bool cr_jobs_timeout_term(void);
/* Whom cr_jobs_kill_all() signals: every other process of the pid namespace when pid 1 of its
 * own, else only @pid, the command. Set before the signal handlers run. */
void cr_jobs_set_command(pid_t pid);
int cr_jobs_kill_all(int sig);
/* Whether the text of a /proc/PID/stat (@n bytes, perhaps cut short after the state) says the
 * process is stopped by a signal (state T). */
bool cr_jobs_stat_stopped(const char *stat, size_t n);

/* Apply the mount plan under the directory @root (the new root, not yet pivoted into). Returns 0
 * or -errno with the path that failed in ctx->detail. */
int cr_mounts_open_sources(struct cr_child_ctx *ctx);
int cr_mounts_apply(struct cr_child_ctx *ctx, const char *root);
int cr_mounts_pivot(const char *root);
/* In a warm sandbox's worker, in its own mount namespace: a /proc of its own pid namespace over
 * the session's, with the plan's read-only knobs under it. 0, or -errno with the mount in @msg. */
int cr_mounts_worker_proc(const struct cr_mount_plan *plan, char *msg, size_t size);
int cr_mounts_seal(struct cr_child_ctx *ctx);
/* Clone the tree at @src_fd (with its submounts if @recursive), set @attrs (MOUNT_ATTR_*) on all
 * of it, attach it at @target_fd. 0 or -errno. */
int cr_mounts_attach_clone(int src_fd, int target_fd, uint64_t attrs, bool recursive);
/* Mount a fresh file system of @type on the directory open at @target_fd. 0 or -errno. */
int cr_mounts_fs(int target_fd, const char *type, unsigned long flags, const char *data);
/* A fresh filesystem of @op's kind (tmpfs with its mode, size and inode count, proc, devpts,
 * mqueue) mounted on @target_fd, with corral's flags for it. 0 or -errno. */
int cr_mounts_fresh(const struct cr_mount_op *op, int target_fd);
/* One operation of an explicit filesystem (CR_MNT_EXPLICIT) under @root_fd, the new root not
 * yet pivoted into (ns/mounts-explicit.c). 0, or -errno with a sentence in ctx->detail. */
/* An explicit operation's source, in the child's mount namespace: the caller's path with
 * symlinks followed (or the descriptor it passed, found again by its path), cloned at once with
 * what is mounted under it, before the new root covers anything. A descriptor, -ENOENT (with
 * ctx->detail empty: an optional source that is missing) or -errno with ctx->detail set. */
int cr_mounts_explicit_source(struct cr_child_ctx *ctx, struct cr_mount_op *op);
int cr_mounts_explicit_one(struct cr_child_ctx *ctx, const struct cr_mount_op *op, int root_fd);
