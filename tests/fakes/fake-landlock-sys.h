/* SPDX-License-Identifier: MIT */
/* A fake of landlock/landlock-sys.c for the unit tests: a kernel with any Landlock ABI, which
 * records what corral asks of it instead of enforcing anything. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "landlock/landlock-uapi.h"

#define FAKE_LL_MAX_RULES 256

struct fake_ll_rule {
	int type;        /* CR_LL_RULE_PATH_BENEATH or CR_LL_RULE_NET_PORT */
	uint64_t access; /* allowed_access */
	uint64_t port;   /* NET_PORT */
	dev_t dev;       /* PATH_BENEATH: what parent_fd was, by fstat() at the call */
	ino_t ino;
	bool is_dir;
};

struct fake_ll {
	int abi;           /* what the version query answers; 0: -EOPNOTSUPP (disabled) */
	int fail_create;   /* -errno to fail landlock_create_ruleset() with, or 0 */
	int fail_restrict; /* the same for landlock_restrict_self() */
	int n_create;      /* calls made (version queries not counted) */
	struct cr_ll_ruleset_attr attr; /* of the last ruleset, as much as size covered */
	size_t attr_size;
	struct fake_ll_rule rules[FAKE_LL_MAX_RULES];
	size_t n_rules;
	int n_restrict;
	uint32_t restrict_flags;
};

extern struct fake_ll fake_ll;

/* Forget every call; answer @abi from now on. */
void fake_ll_reset(int abi);
/* The recorded path rule on the file at @path; NULL if none. */
const struct fake_ll_rule *fake_ll_rule_for(const char *path);
