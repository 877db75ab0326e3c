/* SPDX-License-Identifier: MIT */
/* seccomp: the syscall filter installed just before exec. */
#pragma once

#include <stdbool.h>

/* Can this kernel install seccomp filters (CONFIG_SECCOMP_FILTER)? */
bool cr_seccomp_available(void);
