/* SPDX-License-Identifier: MIT */
/* Landlock: the filesystem, TCP and IPC-scope rules the kernel enforces behind the mount plan, so
 * that even a wrong bind gives no access the policy does not grant.
 *
 * The parent computes a plan once (cr_landlock_plan_init() for the rights this kernel has, then
 * the rules, ns/landlock-rules.h); the sandbox's pid 1 turns it into a ruleset and enforces it on
 * itself as its last setup stage (cr_landlock_apply()), so pid 1 and the command share one
 * domain. In degraded mode the command's own process does the same with rules on host paths. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "launcher/policy/policy.h"

struct json_object;

/* The four kinds of things a plan controls, each a bit mask of the kernel's constants:
 * LANDLOCK_ACCESS_FS_*, LANDLOCK_ACCESS_NET_*, LANDLOCK_SCOPE_* and LANDLOCK_RESTRICT_SELF_*. */
enum cr_ll_kind {
	CR_LL_FS,
	CR_LL_NET,
	CR_LL_SCOPE,
	CR_LL_LOG,
	_CR_LL_KIND_MAX,
};

struct cr_landlock_rule {
	char *path;      /* absolute: in the sandbox after pivot_root, or on the host (degraded) */
	uint64_t access; /* LANDLOCK_ACCESS_FS_* granted beneath @path, before the ABI's mask */
	bool optional;   /* skipped if @path does not exist (an optional mount the host lacks) */
};

struct cr_landlock_plan {
	enum cr_landlock_mode mode;
	int abi;      /* the kernel's ABI version; 0 when Landlock is unavailable */
	bool enabled; /* a ruleset is made and enforced (not off, and the kernel has Landlock) */
	uint64_t wanted[_CR_LL_KIND_MAX];  /* what the policy controls */
	uint64_t handled[_CR_LL_KIND_MAX]; /* what of it this kernel enforces */
	struct cr_landlock_rule *rules;
	size_t n_rules;
	/* The ports TCP may connect to / bind, when handled[CR_LL_NET] has that right (none listed:
	 * none allowed). Borrowed from the policy, which outlives the plan. */
	const struct cr_port_range *tcp_connect;
	size_t n_tcp_connect;
	const struct cr_port_range *tcp_bind;
	size_t n_tcp_bind;
};

/* Highest Landlock ABI the running kernel supports; 0 if Landlock is unavailable (not built,
 * not enabled with lsm=, or disabled). Never fails. */
int cr_landlock_abi(void);

/* What @policy asks of Landlock on a kernel with @abi: every filesystem right, TCP connect/bind
 * when --tcp-connect/--tcp-bind restrict them (both, with no port allowed, when @deny_tcp: no
 * network namespace keeps the command off the network), both scopes, and logging of the
 * command's denials. Rights the kernel lacks are dropped. Refuses with -EOPNOTSUPP and a reason
 * in @msg when --landlock=required and Landlock is unavailable or an access right or scope had
 * to be dropped (the logging flag does not count: it is not access control), or when the ABI is
 * below --landlock-min-abi. The plan has no rules yet. 0, -EOPNOTSUPP or -ENOMEM. */
int cr_landlock_plan_init(const struct cr_policy *policy, int abi, bool deny_tcp,
			  struct cr_landlock_plan *ret, char *msg, size_t msg_size);
/* Grant @access beneath @path. 0 or -ENOMEM. */
int cr_landlock_plan_add(struct cr_landlock_plan *plan, const char *path, uint64_t access,
			 bool optional);
void cr_landlock_plan_done(struct cr_landlock_plan *plan);

/* "fs.truncate, scope.signal": what @plan wanted and the kernel lacks, in @buf (empty if
 * nothing). Returns the number of dropped items. */
size_t cr_landlock_dropped_text(const struct cr_landlock_plan *plan, char *buf, size_t size);
/* What a kernel with @abi lacks of everything corral can use, each with the ABI that brings it:
 * "fs.ioctl_dev (ABI 5), ...". Empty at CR_LANDLOCK_ABI_MAX and above. */
void cr_landlock_lacking_text(int abi, int up_to_abi, char *buf, size_t size);

/* In the child, after no_new_privs: make the ruleset, open every rule's path (O_PATH, no symlink
 * followed), add the port rules, and rules that let the command reopen what descriptors 0-2 and
 * @keep_fds already give it (/dev/stderr when that is a file), then enforce it on the calling
 * thread. A missing path that is not optional fails, naming it in @detail. 0 or -errno. */
int cr_landlock_apply(const struct cr_landlock_plan *plan, const int *keep_fds, size_t n_keep_fds,
		      char *detail, size_t detail_size);

/* The enforced.landlock object of the JSON status. NULL on allocation failure. */
struct json_object *cr_landlock_report(const struct cr_landlock_plan *plan);
