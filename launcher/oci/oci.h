/* SPDX-License-Identifier: MIT */
/* `corral oci`: corral as an OCI runtime, for engines that start containers through one (podman,
 * containerd, Docker). The command line follows the one they call (global --root, --log,
 * --log-format; then create, start, state, kill, delete, exec, features); docs/oci.md says what
 * is implemented. */
#pragma once

/* argv[0] is "oci" (or the executable's name, for engines that take one binary path). Returns
 * the exit status: 0, 1 when a command failed, 125 on bad usage. */
int cr_oci_main(int argc, char **argv);
