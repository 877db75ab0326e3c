/* SPDX-License-Identifier: MIT */
/* Shared inside landlock/ and with its unit tests: the rights corral knows, by ABI. The sets of
 * rights each kind of path gets are public: landlock-rights.h. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "landlock-rights.h"
#include "landlock-uapi.h"
#include "landlock.h"

/* One right (or scope, or restrict_self flag) and the ABI that brought it. */
struct cr_ll_right {
	const char *name; /* "fs.truncate", "net.connect_tcp", "scope.signal", "log.new_exec_on" */
	enum cr_ll_kind kind;
	uint64_t bit;
	int abi;
};

extern const struct cr_ll_right cr_ll_rights[];
extern const size_t cr_ll_n_rights;

/* Everything of @kind a kernel with @abi knows (0: nothing; above CR_LANDLOCK_ABI_MAX: what
 * corral knows). The same fall-through as samples/landlock/sandboxer.c, as a table. */
uint64_t landlock_known(enum cr_ll_kind kind, int abi);

/* How many bytes of struct cr_ll_ruleset_attr a kernel with @abi reads. */
size_t landlock_attr_size(int abi);

/* clang-format off */
#define LL_FS_ALL	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
			 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | \
			 LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
			 LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | \
			 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | \
			 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | \
			 LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER | \
			 LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)
/* The rights that mean something on a file that is not a directory; the kernel refuses a rule
 * on such a file with any other (EINVAL), so they are masked off, as sandboxer.c does. */
#define LL_FS_FILE	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
			 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
			 LANDLOCK_ACCESS_FS_IOCTL_DEV)
/* clang-format on */

/* What corral passes to landlock_restrict_self(): log the denials of the command, which runs
 * after an execve (by default only the domain creator's own executable is logged). */
#define LL_LOG_FLAGS LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON
