/* SPDX-License-Identifier: MIT */
/* The ABI probe, the rights corral knows by ABI, and the plan: what the policy asks of Landlock
 * and what this kernel can enforce of it. Pure but for the probe. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "landlock-internal.h"
#include "landlock-sys.h"
#include "launcher/base/macro.h"

/* clang-format off */
const struct cr_ll_right cr_ll_rights[] = {
	{ "fs.execute",			CR_LL_FS,    LANDLOCK_ACCESS_FS_EXECUTE,		1 },
	{ "fs.write_file",		CR_LL_FS,    LANDLOCK_ACCESS_FS_WRITE_FILE,		1 },
	{ "fs.read_file",		CR_LL_FS,    LANDLOCK_ACCESS_FS_READ_FILE,		1 },
	{ "fs.read_dir",		CR_LL_FS,    LANDLOCK_ACCESS_FS_READ_DIR,		1 },
	{ "fs.remove_dir",		CR_LL_FS,    LANDLOCK_ACCESS_FS_REMOVE_DIR,		1 },
	{ "fs.remove_file",		CR_LL_FS,    LANDLOCK_ACCESS_FS_REMOVE_FILE,		1 },
	{ "fs.make_char",		CR_LL_FS,    LANDLOCK_ACCESS_FS_MAKE_CHAR,		1 },
	{ "fs.make_dir",		CR_LL_FS,    LANDLOCK_ACCESS_FS_MAKE_DIR,		1 },
	{ "fs.make_reg",		CR_LL_FS,    LANDLOCK_ACCESS_FS_MAKE_REG,		1 },
	{ "fs.make_sock",		CR_LL_FS,    LANDLOCK_ACCESS_FS_MAKE_SOCK,		1 },
	{ "fs.make_fifo",		CR_LL_FS,    LANDLOCK_ACCESS_FS_MAKE_FIFO,		1 },
	{ "fs.make_block",		CR_LL_FS,    LANDLOCK_ACCESS_FS_MAKE_BLOCK,		1 },
	{ "fs.make_sym",		CR_LL_FS,    LANDLOCK_ACCESS_FS_MAKE_SYM,		1 },
	{ "fs.refer",			CR_LL_FS,    LANDLOCK_ACCESS_FS_REFER,			2 },
	{ "fs.truncate",		CR_LL_FS,    LANDLOCK_ACCESS_FS_TRUNCATE,		3 },
	{ "fs.ioctl_dev",		CR_LL_FS,    LANDLOCK_ACCESS_FS_IOCTL_DEV,		5 },
	{ "net.bind_tcp",		CR_LL_NET,   LANDLOCK_ACCESS_NET_BIND_TCP,		4 },
	{ "net.connect_tcp",		CR_LL_NET,   LANDLOCK_ACCESS_NET_CONNECT_TCP,		4 },
	{ "scope.abstract_unix_socket",	CR_LL_SCOPE, LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET,	6 },
	{ "scope.signal",		CR_LL_SCOPE, LANDLOCK_SCOPE_SIGNAL,			6 },
	{ "log.new_exec_on",		CR_LL_LOG,   LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON,	7 },
};
/* clang-format on */
const size_t cr_ll_n_rights = ELEMENTSOF(cr_ll_rights);

int cr_landlock_abi(void)
{
	int abi = sys_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? 0 : abi;
}

uint64_t landlock_known(enum cr_ll_kind kind, int abi)
{
	uint64_t mask = 0;

	for (size_t i = 0; i < cr_ll_n_rights; i++)
		if (cr_ll_rights[i].kind == kind && cr_ll_rights[i].abi <= abi)
			mask |= cr_ll_rights[i].bit;
	return mask;
}

size_t landlock_attr_size(int abi)
{
	if (abi >= 6)
		return sizeof(struct cr_ll_ruleset_attr);
	if (abi >= 4)
		return offsetof(struct cr_ll_ruleset_attr, scoped);
	return offsetof(struct cr_ll_ruleset_attr, handled_access_net);
}

static void say(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);
static void say(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strnlen(buf, size);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* "a, b (ABI n)": the rights in @mask[] (one mask per kind), in table order; with @abis, each
 * followed by the ABI that brings it; without the logging flag if @access_only. Returns the count. */
static size_t list_rights(const uint64_t mask[_CR_LL_KIND_MAX], bool abis, bool access_only,
			  char *buf, size_t size)
{
	size_t n = 0;

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < cr_ll_n_rights; i++) {
		const struct cr_ll_right *r = &cr_ll_rights[i];

		if (!(mask[r->kind] & r->bit) || (access_only && r->kind == CR_LL_LOG))
			continue;
		say(buf, size, "%s%s", n ? ", " : "", r->name);
		if (abis)
			say(buf, size, " (ABI %d)", r->abi);
		n++;
	}
	return n;
}

size_t cr_landlock_dropped_text(const struct cr_landlock_plan *plan, char *buf, size_t size)
{
	uint64_t dropped[_CR_LL_KIND_MAX];

	for (int k = 0; k < _CR_LL_KIND_MAX; k++)
		dropped[k] = plan->wanted[k] & ~plan->handled[k];
	return list_rights(dropped, false, false, buf, size);
}

void cr_landlock_lacking_text(int abi, int up_to_abi, char *buf, size_t size)
{
	uint64_t lacking[_CR_LL_KIND_MAX];

	for (int k = 0; k < _CR_LL_KIND_MAX; k++)
		lacking[k] = landlock_known(k, up_to_abi) & ~landlock_known(k, abi);
	(void)list_rights(lacking, true, false, buf, size);
}

/* Refuse what the policy requires and this kernel cannot do. -EOPNOTSUPP with a reason. */
static int check_required(const struct cr_policy *p, const struct cr_landlock_plan *plan, char *msg,
			  size_t size)
{
	uint64_t dropped[_CR_LL_KIND_MAX];
	char list[512];

	if (p->landlock_min_abi > 0 && plan->abi < p->landlock_min_abi) {
		cr_landlock_lacking_text(plan->abi, p->landlock_min_abi, list, sizeof(list));
		if (plan->abi == 0)
			(void)snprintf(
				msg, size,
				"--landlock-min-abi %d: Landlock is not available in this kernel",
				p->landlock_min_abi);
		else
			(void)snprintf(msg, size,
				       "--landlock-min-abi %d: this kernel's Landlock ABI is %d, which lacks %s",
				       p->landlock_min_abi, plan->abi, list);
		return -EOPNOTSUPP;
	}
	if (p->landlock != CR_LANDLOCK_REQUIRED)
		return 0;
	if (plan->abi == 0) {
		(void)snprintf(
			msg, size,
			"--landlock=required: Landlock is not available in this kernel (it needs CONFIG_SECURITY_LANDLOCK=y and landlock in the lsm= boot parameter)");
		return -EOPNOTSUPP;
	}
	for (int k = 0; k < _CR_LL_KIND_MAX; k++)
		dropped[k] = plan->wanted[k] & ~plan->handled[k];
	if (list_rights(dropped, true, true, list, sizeof(list)) > 0) {
		(void)snprintf(msg, size,
			       "--landlock=required: this kernel's Landlock ABI %d lacks %s, which the policy needs",
			       plan->abi, list);
		return -EOPNOTSUPP;
	}
	return 0;
}

int cr_landlock_plan_init(const struct cr_policy *p, int abi, bool deny_tcp,
			  struct cr_landlock_plan *ret, char *msg, size_t size)
{
	struct cr_landlock_plan plan = { .mode = p->landlock, .abi = abi };
	int known = abi > CR_LANDLOCK_ABI_MAX ? CR_LANDLOCK_ABI_MAX : abi;
	int r;

	if (p->landlock != CR_LANDLOCK_OFF) {
		plan.wanted[CR_LL_FS] = LL_FS_ALL;
		if (deny_tcp) {
			plan.wanted[CR_LL_NET] =
				LANDLOCK_ACCESS_NET_CONNECT_TCP | LANDLOCK_ACCESS_NET_BIND_TCP;
		} else {
			if (p->tcp_connect) {
				plan.wanted[CR_LL_NET] |= LANDLOCK_ACCESS_NET_CONNECT_TCP;
				plan.tcp_connect = p->tcp_connect;
				plan.n_tcp_connect = p->n_tcp_connect;
			}
			if (p->tcp_bind) {
				plan.wanted[CR_LL_NET] |= LANDLOCK_ACCESS_NET_BIND_TCP;
				plan.tcp_bind = p->tcp_bind;
				plan.n_tcp_bind = p->n_tcp_bind;
			}
		}
		plan.wanted[CR_LL_SCOPE] =
			LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
		plan.wanted[CR_LL_LOG] = LL_LOG_FLAGS;
		plan.enabled = abi > 0;
	}
	for (int k = 0; k < _CR_LL_KIND_MAX; k++)
		plan.handled[k] = plan.wanted[k] & landlock_known(k, known);
	r = check_required(p, &plan, msg, size);
	if (r < 0)
		return r;
	*ret = plan;
	return 0;
}

int cr_landlock_plan_add(struct cr_landlock_plan *plan, const char *path, uint64_t access,
			 bool optional)
{
	struct cr_landlock_rule *rules;
	char *copy;

	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	rules = reallocarray(plan->rules, plan->n_rules + 1, sizeof(*rules));
	if (!rules) {
		free(copy);
		return -ENOMEM;
	}
	rules[plan->n_rules++] = (struct cr_landlock_rule){ copy, access, optional };
	plan->rules = rules;
	return 0;
}

void cr_landlock_plan_done(struct cr_landlock_plan *plan)
{
	for (size_t i = 0; i < plan->n_rules; i++)
		free(plan->rules[i].path);
	free(plan->rules);
	*plan = (struct cr_landlock_plan){};
}
