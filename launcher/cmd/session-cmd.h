/* SPDX-License-Identifier: MIT */
/* The entry point of `corral session` (launcher/cmd/session-cmd.c), called by main.c. */
#pragma once

/* `corral session list [--json]`, `corral session show ID [--json]`,
 * `corral session rm ID... | --hash HASH...`; argv[0] is "session". Uses cr_state_dir(environ).
 * Returns the exit status: 0, or CR_EXIT_SETUP after logging the error. */
int cr_session_main(int argc, char **argv);
