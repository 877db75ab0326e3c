/* SPDX-License-Identifier: MIT */
/* `corral pool` where the driver has no warm sandboxes (every host but Linux): corral run runs
 * cold, --pool=require fails, and the verb says why. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "launcher/base/exit-codes.h"
#include "launcher/base/log.h"
#include "pool.h"

const char cr_pool_usage[] = "corral pool: not available on this host (Linux only)\n";

int cr_pool_mode_resolve(const char *opt, char *const *env, enum cr_pool_mode *ret, char *msg,
			 size_t size)
{
	(void)env;
	if (opt && strcmp(opt, "require") == 0)
		*ret = CR_POOL_REQUIRE;
	else
		*ret = CR_POOL_NEVER;
	(void)msg;
	(void)size;
	return 0;
}

int cr_pool_connect(char *const *env, char *reason, size_t size)
{
	(void)env;
	return cr_msg(reason, size, -ENOENT, "no pool: corral pool is Linux only");
}

int cr_pool_run(const struct cr_pool_call *call, struct cr_pool_result *ret)
{
	(void)call;
	return cr_msg(ret->reason, sizeof(ret->reason), -ENOENT,
		      "no pool: corral pool is Linux only");
}

int cr_pool_status(struct json_object *st, const char *via, const char *note)
{
	(void)st;
	(void)via;
	(void)note;
	return 0;
}

void cr_pool_door_register(const struct cr_pool_door *door)
{
	(void)door;
}

int cr_pool_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cr_log_error("pool: not available on this host (Linux only)");
	return CR_EXIT_SETUP;
}
