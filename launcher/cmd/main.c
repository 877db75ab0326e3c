/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>

#include "check-cmd.h"
#include "doctor.h"
#include "profile-cmd.h"
#include "session-cmd.h"
#include "launcher/bwrap/bwrap-pool.h"
#include "launcher/bwrap/bwrap.h"
#include "launcher/policy/cli.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/log.h"
#include "run.h"
#include "launcher/oci/oci.h"
#include "launcher/pool/pool.h"
#include "launcher/serve/serve.h"

static int help(const char *topic)
{
	if (topic && strcmp(topic, "run") == 0)
		fputs(cr_run_usage, stdout);
	else if (topic && strcmp(topic, "doctor") == 0) {
		char *args[] = { "doctor", "--help", NULL };

		return cr_doctor_main(2, args);
	} else if (topic && strcmp(topic, "profile") == 0) {
		char *args[] = { "profile", "--help", NULL };

		return cr_profile_main(2, args);
	} else if (topic && strcmp(topic, "session") == 0) {
		char *args[] = { "session", "--help", NULL };

		return cr_session_main(2, args);
	} else if (topic && strcmp(topic, "check") == 0) {
		char *args[] = { "check", "--help", NULL };

		return cr_check_main(2, args);
	} else if (topic && strcmp(topic, "serve") == 0) {
		char *args[] = { "serve", "--help", NULL };

		return cr_serve_main(2, args);
	} else if (topic && strcmp(topic, "oci") == 0) {
		char *args[] = { "oci", "--help", NULL };

		return cr_oci_main(2, args);
	} else if (topic && strcmp(topic, "bwrap") == 0) {
		char *args[] = { "bwrap", "--help", NULL };

		return cr_bwrap_main(2, args, "corral bwrap");
	} else if (topic && strcmp(topic, "pool") == 0) {
		fputs(cr_pool_usage, stdout);
	} else if (topic) {
		cr_log_error("help: unknown command '%s'", topic);
		return CR_EXIT_SETUP;
	} else
		fputs(cr_main_usage, stdout);
	return 0;
}

/* With 0, 1 or 2 closed, the next descriptor corral opens (a pipe to the sandbox, the status
 * file) would land there and be handed to the command as its stdin or stdout. */
static void ensure_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd)
			_exit(CR_EXIT_SETUP);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	const char *base = argv[0] ? strrchr(argv[0], '/') : NULL;

	ensure_std_fds();
	/* corral installed (or linked) under the name bwrap: the personality, as its own
	 * executable in $libexecdir/corral is. */
	base = base ? base + 1 : argv[0];
	if (base && strcmp(base, "bwrap") == 0)
		return cr_bwrap_main(argc, argv, argv[0]);

	/* Engines that take one runtime binary path get corral-oci, a link to corral. */
	if (argc > 0 && strcmp(basename(argv[0]), "corral-oci") == 0)
		return cr_oci_main(argc, argv);
	if (!cmd) {
		fputs(cr_main_usage, stderr);
		return CR_EXIT_SETUP;
	}
	if (strcmp(cmd, "run") == 0)
		return cr_run_main(argc - 1, argv + 1);
	if (strcmp(cmd, "doctor") == 0)
		return cr_doctor_main(argc - 1, argv + 1);
	if (strcmp(cmd, "profile") == 0)
		return cr_profile_main(argc - 1, argv + 1);
	if (strcmp(cmd, "session") == 0)
		return cr_session_main(argc - 1, argv + 1);
	if (strcmp(cmd, "serve") == 0)
		return cr_serve_main(argc - 1, argv + 1);
	if (strcmp(cmd, "pool") == 0) {
		/* The pool builds the bwrap door's policies too, by the door's code. */
		cr_pool_door_register(&cr_bwrap_pool_door);
		return cr_pool_main(argc - 1, argv + 1);
	}
	if (strcmp(cmd, "check") == 0)
		return cr_check_main(argc - 1, argv + 1);
	if (strcmp(cmd, "oci") == 0)
		return cr_oci_main(argc - 1, argv + 1);
	if (strcmp(cmd, "bwrap") == 0)
		return cr_bwrap_main(argc - 1, argv + 1, "corral bwrap");
	if (strcmp(cmd, "help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0)
		return help(strcmp(cmd, "help") == 0 && argc > 2 ? argv[2] : NULL);
	if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
		printf("corral %s\n", CR_VERSION);
		return 0;
	}
	cr_log_error("unknown command '%s' (try: corral --help)", cmd);
	return CR_EXIT_SETUP;
}
