/* SPDX-License-Identifier: MIT */
/* The valgrind suite's positive control (tests/soak/README.md): preloaded into one corral
 * launcher, it loses 100 bytes before main, a definite leak memcheck must report. */
#include <stdlib.h>

/* volatile: without it the compiler drops an allocation whose result is never used. */
void *volatile cr_soak_leak_keep;

__attribute__((constructor)) static void leak(void)
{
	cr_soak_leak_keep = malloc(100);
	cr_soak_leak_keep = NULL;
}
