/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "request.h"

static const char *const grant_names[_CR_GRANT_MAX] = {
	[CR_GRANT_NONE] = "none",
	[CR_GRANT_ONCE] = "once",
	[CR_GRANT_SESSION] = "session",
};

const char *cr_grant_scope_to_string(enum cr_grant_scope g)
{
	return g >= 0 && g < _CR_GRANT_MAX ? grant_names[g] : NULL;
}

void cr_run_options_done(struct cr_run_options *o)
{
	free(o->paths);
	free(o->caches);
	free(o->setenv);
	free(o->keep_env);
	free(o->secrets);
	free(o->secret_files);
	free(o->env_files);
	free(o->keep_fds);
	free(o->tcp_connect);
	free(o->tcp_bind);
	free(o->allow_hosts);
	*o = (struct cr_run_options){};
}
