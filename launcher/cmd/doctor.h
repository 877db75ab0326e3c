/* SPDX-License-Identifier: MIT */
/* The entry point of `corral doctor` (launcher/cmd/doctor.c), called by main.c. */
#pragma once

/* Run `corral doctor [--json]` (argv[0] is "doctor"). Returns 0 if corral run can work here,
 * 1 if a required feature is missing, 125 on bad usage. */
int cr_doctor_main(int argc, char **argv);
