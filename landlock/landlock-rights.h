/* SPDX-License-Identifier: MIT */
/* What each kind of path gets: the sets of LANDLOCK_ACCESS_FS_* rights a plan's rules grant,
 * for whoever makes the rules (ns/landlock-rules.c, from the mount plan) and passes them to
 * cr_landlock_plan_add(). The plan masks them with what the kernel's ABI handles, and a rule on
 * a file that is not a directory keeps only the rights that mean something there. */
#pragma once

#include "landlock-uapi.h"

/* clang-format off */
/* Read-only binds: the system directories and --ro paths. */
#define LL_FS_RO	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | \
			 LANDLOCK_ACCESS_FS_READ_DIR)
/* The workspace, --rw paths, /tmp, /dev/shm and the private home: everything but ioctl on
 * devices (the mounts are nodev). REFER is safe between them: they all get the same rights,
 * so a rename or link can never move a file to where it would gain any. */
#define LL_FS_RW	(LL_FS_RO | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
			 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | \
			 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | \
			 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | \
			 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM | \
			 LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE)
/* Device nodes and /dev/pts: read, write and device ioctls (terminals need them). */
#define LL_FS_DEVICE	(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
			 LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV | \
			 LANDLOCK_ACCESS_FS_READ_DIR)
/* The sandbox's own /proc: read, and write files (/proc/self/comm, oom_score_adj...). Its
 * kernel knobs are read-only mounts; what else is writable belongs to the sandbox's own
 * processes, and the kernel's own checks govern it. No execute: /proc/self/exe is checked at
 * the path it resolves to. */
#define LL_FS_PROC	(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | \
			 LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE)
/* The host's /proc in degraded mode: read only. */
#define LL_FS_PROC_RO	(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
/* The sandbox's root tmpfs: listing directories. As rules reach beneath, every directory of the
 * sandbox can be listed; a file's contents still need a rule of their own. */
#define LL_FS_LIST	LANDLOCK_ACCESS_FS_READ_DIR
/* A hidden file (/dev/null bound over it): it reads empty, as the mount intends. */
#define LL_FS_HIDDEN	LANDLOCK_ACCESS_FS_READ_FILE
/* clang-format on */

/* Test builds only: tests/helpers/test-hooks.c, linked into the corral-test-hooks binary and
 * never into corral itself, defines it to return $CORRAL_TEST_LANDLOCK_OMIT: a sandbox path
 * whose rule is left out of the ruleset, while its mount stays. In corral it is undefined, so
 * its address is NULL and nothing can leave a rule out. */
const char *cr_landlock_test_omit(void) __attribute__((weak));
