# shellcheck shell=bash
# What the OCI suites (oci, oci-fs, oci-tty, oci-userns) leave behind, removed when the suite
# ends, whatever happened: the containers of every --root a suite used (BOX_ROOTS), the host
# processes it started (HOST_PIDS) and the host mounts it made (HOST_MOUNTS). Sourced after
# lib.sh.
HOST_PIDS=()
BOX_ROOTS=()
HOST_MOUNTS=()
oci_suite_cleanup() {
	local p r id
	for r in "${BOX_ROOTS[@]}"; do
		for id in "$r"/*/; do
			[ -d "$id" ] && "$CORRAL" oci --root "$r" delete --force "$(basename "$id")" 2>/dev/null
		done
	done
	for p in "${HOST_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	for p in "${HOST_MOUNTS[@]}"; do umount -R "$p" 2>/dev/null; done
}
CR_CLEANUP_HOOK="${CR_CLEANUP_HOOK:+$CR_CLEANUP_HOOK; }oci_suite_cleanup"
