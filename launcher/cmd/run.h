/* SPDX-License-Identifier: MIT */
/* `corral run` and `corral doctor`: the orchestration every backend shares. */
#pragma once

/* Run `corral run ...` (argv[0] is "run"). Returns corral's exit status. */
int cr_run_main(int argc, char **argv);

/* Run `corral doctor [--json]` (argv[0] is "doctor"). Returns 0 if corral run can work here,
 * 1 if a required feature is missing, 125 on bad usage. */
int cr_doctor_main(int argc, char **argv);
