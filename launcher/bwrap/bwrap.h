/* SPDX-License-Identifier: MIT */
/* The bwrap personality: `corral bwrap ARGS...`, and the `bwrap` executable of
 * $libexecdir/corral (launcher/bwrap/main.c). */
#pragma once

/* Run bwrap's command line @argv (argv[0]: the program, not an option); @prog names it in the
 * usage text. Returns the exit status: the command's, 128 + a signal, or 1 when the sandbox
 * could not be made (with a "bwrap: ..." message on stderr), as bwrap does. */
int cr_bwrap_main(int argc, char **argv, const char *prog);
