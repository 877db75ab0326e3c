/* SPDX-License-Identifier: MIT */
/* Per-stage timing stamps, for corral-bench's stage table (bench/README.md). When corral is
 * started with CORRAL_STAMP_FD naming an open descriptor above 2, each cr_stamp() appends one
 * line "WHO NAME NS\n" to it: WHO is the process (P the launcher, 1 the sandbox's pid 1, C the
 * command before its exec), NAME the stage that just ended, NS CLOCK_MONOTONIC in nanoseconds.
 * Without it a stamp is one test of a global: nothing is read, written or allocated. */
#pragma once

/* Reads and removes CORRAL_STAMP_FD (so no sandbox inherits the name; the descriptor itself is
 * made close-on-exec and closed with the rest before the command runs). Call once, in main(). */
void cr_stamp_init(void);

/* The process writing from now on: 'P', '1' or 'C'. Inherited across fork and clone. */
void cr_stamp_who(char who);

/* One stamp: @name ended now. A write that fails is ignored: a measurement is not the run. */
void cr_stamp(const char *name);

/* No more stamps from this process: call before it closes its descriptors, so that no later
 * stamp lands in a descriptor that reuses the number. */
void cr_stamp_end(void);

/* The descriptor stamps go to, or -1: a process that closes all others keeps it (it is
 * close-on-exec) to stamp up to its execve(). */
int cr_stamp_fd(void);
