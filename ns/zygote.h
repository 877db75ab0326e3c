/* SPDX-License-Identifier: MIT */
/* Warm sandboxes for `corral serve` (struct cr_warm_ops): a sandbox built as a run's is, whose
 * pid 1 becomes a zygote that keeps workers ready instead of forking a command. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "launcher/driver.h"

struct cr_child_ctx;
struct cr_run;

/* The Linux driver's warm sandboxes (driver.warm). */
extern const struct cr_warm_ops linux_warm_ops;

/* In a warm sandbox's pid 1, stage "capabilities": lock the securebits as cr_caps_drop_all()
 * does, empty the bounding and ambient sets, and keep CAP_SYS_ADMIN (effective and permitted,
 * in the sandbox's own user namespace) and nothing else, to create the workers' pid namespaces.
 * 0 or -errno. */
int cr_zygote_caps(void);

/* In a warm sandbox's pid 1, first thing: /dev/null as 0, 1 and 2. The server's own must not
 * reach the sandbox, nor get Landlock rules for the commands to reopen them. 0 or -errno. */
int cr_zygote_stdio(void);

/* A warm sandbox's pid 1 after its stages: keep ctx->warm_pool workers ready, each announced on
 * ctx->warm_fd, and make one more each time the server asks. Never returns. */
_Noreturn void cr_zygote_main(struct cr_child_ctx *ctx);

/* ns/driver.c: start the sandbox of a prepared run with pid 1 as the zygote of @pool workers,
 * talking over @control_fd (its end of the control socket). 0, or -errno with @ret_error. */
int cr_ns_spawn_warm(struct cr_run *run, unsigned pool, int control_fd,
		     struct cr_setup_error *ret_error);
/* The host pid of the run's pid 1 (-1 before clone); the report pipe's read end. */
pid_t cr_ns_run_pid(const struct cr_run *run);
int cr_ns_run_msg_fd(const struct cr_run *run);
/* The run's cgroups (NULL: none), for a warm sandbox's event counters. */
struct cr_cgroup *cr_ns_run_cgroup(const struct cr_run *run);
