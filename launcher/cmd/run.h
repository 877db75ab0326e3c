/* SPDX-License-Identifier: MIT */
/* `corral run` and `corral doctor`: the orchestration every backend shares. */
#pragma once

/* Run `corral run ...` (argv[0] is "run"). Returns corral's exit status. */
int cr_run_main(int argc, char **argv);

