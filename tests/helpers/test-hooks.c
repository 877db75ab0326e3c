/* SPDX-License-Identifier: MIT */
/* Test-only hooks, linked into corral-test-hooks and never into corral (tests/meson.build).
 *
 *   CORRAL_TEST_LANDLOCK_OMIT=PATH  leave the Landlock rule for the sandbox path PATH out of the
 *                                   ruleset while its mount stays: a path bound but outside the
 *                                   Landlock policy, to show that Landlock refuses access on its
 *                                   own (landlock/landlock-internal.h). corral warns when it does.
 */
#include <stdlib.h>

#include "landlock/landlock-internal.h"

const char *cr_landlock_test_omit(void)
{
	const char *path = getenv("CORRAL_TEST_LANDLOCK_OMIT");

	return path && *path ? path : NULL;
}
