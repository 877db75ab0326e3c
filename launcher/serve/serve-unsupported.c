/* SPDX-License-Identifier: MIT */
/* `corral serve` where it is not built: the server needs Linux (signalfd, prctl, close_range and
 * the warm sandboxes of ns/zygote.c), so other hosts get this entry point instead. */
#include "launcher/base/exit-codes.h"
#include "launcher/base/log.h"
#include "serve.h"

int cr_serve_main(int argc, char **argv)
{
	cr_log_error("corral serve: not available on this host (it needs Linux)");
	return CR_EXIT_SETUP;
}
