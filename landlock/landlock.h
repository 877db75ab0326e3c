/* SPDX-License-Identifier: MIT */
/* Landlock: the filesystem and network access rules the kernel enforces below the mount plan. */
#pragma once

/* Highest Landlock ABI the running kernel supports; 0 if Landlock is unavailable (not built,
 * not enabled with lsm=, or disabled). Never fails. */
int cr_landlock_abi(void);
