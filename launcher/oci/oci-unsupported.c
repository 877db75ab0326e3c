/* SPDX-License-Identifier: MIT */
/* `corral oci` where it is not built: OCI containers are Linux's. */
#include "launcher/base/exit-codes.h"
#include "launcher/base/log.h"
#include "oci.h"

int cr_oci_main(int argc, char **argv)
{
	cr_log_error("corral oci: not available on this host (it needs Linux)");
	return CR_EXIT_SETUP;
}
