/* SPDX-License-Identifier: MIT */
/* The three Landlock system calls, raw. The only file that makes them (landlock-sys.c), so the
 * unit tests can link a fake instead (tests/fakes/fake-landlock-sys.c). Each returns what the
 * system call returns on success (a descriptor, an ABI version, 0) or -errno; errno itself is
 * left as the call left it. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "landlock-uapi.h"

int sys_landlock_create_ruleset(const struct cr_ll_ruleset_attr *attr, size_t size, uint32_t flags);
int sys_landlock_add_rule(int ruleset_fd, int rule_type, const void *rule_attr, uint32_t flags);
int sys_landlock_restrict_self(int ruleset_fd, uint32_t flags);
