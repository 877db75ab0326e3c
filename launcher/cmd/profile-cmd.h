/* SPDX-License-Identifier: MIT */
/* The entry point of `corral profile` (launcher/cmd/profile-cmd.c), called by main.c. */
#pragma once

/* `corral profile list [--json]` and `corral profile show NAME [--json|--ini] [-w DIR]`;
 * argv[0] is "profile". Returns the exit status. */
int cr_profile_main(int argc, char **argv);
