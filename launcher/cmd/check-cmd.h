/* SPDX-License-Identifier: MIT */
/* The entry point of `corral check` (launcher/cmd/check-cmd.c), called by main.c. */
#pragma once

/* `corral check --shell CMD [--json] [-w DIR]` and `corral check [--json] [-w DIR] -- ARGV...`;
 * argv[0] is "check". Exit status: 0 safe, 1 caution, 2 unknown, 3 dangerous, 125 usage. */
int cr_check_main(int argc, char **argv);
