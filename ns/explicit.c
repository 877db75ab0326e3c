/* SPDX-License-Identifier: MIT */
/* The Linux driver's part of an explicit policy (cr_policy.ex) that happens in corral's own
 * process: which namespaces clone makes, and the ones the door was given, entered first. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "launcher/base/macro.h"
#include "linux-internal.h"

unsigned long cr_ns_explicit_clone_flags(unsigned ns)
{
	static const struct {
		unsigned bit;
		unsigned long flag;
	} map[] = {
		{ CR_NS_USER, CLONE_NEWUSER }, { CR_NS_PID, CLONE_NEWPID },
		{ CR_NS_NET, CLONE_NEWNET },   { CR_NS_IPC, CLONE_NEWIPC },
		{ CR_NS_UTS, CLONE_NEWUTS },   { CR_NS_CGROUP, CLONE_NEWCGROUP },
	};
	unsigned long flags = CLONE_NEWNS;

	for (size_t i = 0; i < ELEMENTSOF(map); i++)
		if (ns & map[i].bit)
			flags |= map[i].flag;
	return flags;
}

static int enter(int fd, int type, const char *what, struct cr_setup_error *err)
{
	int r;

	if (fd < 0 || setns(fd, type) == 0)
		return 0;
	r = negative_errno();
	(void)snprintf(err->stage, sizeof(err->stage), "%s", cr_stage_to_string(CR_STAGE_CLONE));
	err->err = -r;
	(void)snprintf(err->message, sizeof(err->message), "Can't enter the %s namespace: %s", what,
		       strerror(-r));
	return r;
}

int cr_ns_explicit_enter(const struct cr_policy *p, struct cr_setup_error *err)
{
	if (!p->ex.on)
		return 0;
	static const struct {
		unsigned bit;
		int type;
		const char *name;
	} joins[] = {
		{ CR_NS_NET, CLONE_NEWNET, "network" },
		{ CR_NS_IPC, CLONE_NEWIPC, "ipc" },
		{ CR_NS_UTS, CLONE_NEWUTS, "uts" },
		{ CR_NS_CGROUP, CLONE_NEWCGROUP, "cgroup" },
	};
	int r;

	if (!p->ex.on)
		return 0;
	r = enter(p->ex.userns_fd, CLONE_NEWUSER, "user", err);
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(joins); i++)
		if (p->ex.joins & joins[i].bit)
			r = enter(p->ex.join_fds[__builtin_ctz(joins[i].bit)], joins[i].type,
				  joins[i].name, err);
	return r < 0 ? r : enter(p->ex.pidns_fd, CLONE_NEWPID, "pid", err);
}
