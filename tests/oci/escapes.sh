#!/bin/bash
# The escape battery in a container: tests/helpers/probe.c's attacks run inside a container that
# podman starts through RUNTIME, beside the same attacks under `corral run` (issue 21: a container
# run through corral must block at least what `corral run` blocks).
#
#   tests/oci/escapes.sh RUNTIME CORRAL [PROBE_SOURCE]
#
# RUNTIME: the OCI runtime podman is given (runc, crun, corral-oci); CORRAL: the corral binary
# for the `corral run` column; PROBE_SOURCE: tests/helpers/probe.c (default: beside this script).
# The probe is built static (the busybox image has no C library) and bound read-only into the
# container at /probe. Needs root, gcc with a static C library, podman and the image localhost/bb
# (docs/oci.md, "Testing with real engines").
#
# Prints one line an attack: the errno on the host (root, no sandbox; only the syscalls, whose
# arguments make them fail harmlessly), under `corral run`, and in the container; "blocked" is a
# result other than success and other than the host's (a host that answers EPERM or ENOSYS itself,
# as a hosted VM's filter may, is named so). A call that config.json's capabilities grant and
# the runtime-spec requires (SPEC below: chroot with CAP_SYS_CHROOT) is "allowed" when the escape
# it could serve is blocked. Exits 1 when the container lets through an attack that `corral run`
# blocks, 0 otherwise, 2 when something needed is missing.
# shellcheck disable=SC2016 # the scripts run inside are single-quoted on purpose
set -u

RUNTIME=${1:?usage: escapes.sh RUNTIME CORRAL [PROBE_SOURCE]}
CORRAL=${2:?usage: escapes.sh RUNTIME CORRAL [PROBE_SOURCE]}
SRC=${3:-$(dirname "$0")/../helpers/probe.c}
RUNTIME=$(readlink -f "$(command -v "$RUNTIME")")
CORRAL=$(readlink -f "$(command -v "$CORRAL")")

missing() { echo "escapes.sh: skipped: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || missing "needs root"
command -v podman >/dev/null || missing "podman is not installed"
podman image exists localhost/bb || missing "no image localhost/bb (the test bed's setup-podman.sh)"
[ -x "$RUNTIME" ] || missing "no runtime $1"
[ -x "$CORRAL" ] || missing "no corral binary $2"

T=$(mktemp -d /var/tmp/oci-escapes.XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 0755 "$T"
mkdir -p "$T/bin" "$T/ws"
gcc -static -O2 -D_GNU_SOURCE -o "$T/bin/probe" "$SRC" 2>"$T/gcc.log" || missing "gcc -static failed: $(cat "$T/gcc.log")"
# corral-oci is the name under which corral is an OCI runtime.
rt=$RUNTIME
if [ "$(basename "$RUNTIME")" = corral ]; then
	ln -s "$RUNTIME" "$T/corral-oci"
	rt=$T/corral-oci
fi

# nr NAME: the syscall's number on this host, from the C library's headers.
nr() {
	local n
	n=$(printf '#include <sys/syscall.h>\nSYS_%s\n' "$1" | gcc -E -P - 2>/dev/null | tail -n 1)
	[[ $n =~ ^[0-9]+$ ]] && echo "$n"
}

# The battery: "LABEL PROBE-ACTION ARGS..." for the filesystem and credential attacks (not run on
# the host), "LABEL syscall NAME ARGS..." for raw syscalls with harmless arguments (bad pointers,
# descriptors and flags: unfiltered they fail otherwise than with EPERM), as the seccomp suite's.
FS=(
	"remount_root_rw remount-rw /"
	"remount_proc_sys_rw remount-rw /proc/sys"
	"mount_tmpfs mount-tmpfs /tmp"
	"sysctl_ns_last_pid sysctl-write /proc/sys/kernel/ns_last_pid @/proc/sys/kernel/ns_last_pid"
	"sysctl_core_pattern sysctl-write /proc/sys/kernel/core_pattern @/proc/sys/kernel/core_pattern"
	"write_sys_kernel write /sys/kernel/profiling"
	"unshare_user unshare-user"
	"chroot chroot /"
	"chroot_escape chroot-escape /tmp"
)
# What config.json grants and the runtime-spec requires of every runtime: "LABEL CAPABILITY
# ESCAPE". The call succeeds in a container given CAPABILITY (podman's and Docker's default set
# has CAP_SYS_CHROOT), while `corral run` drops every capability; what an attacker wants of it,
# ESCAPE, must still be blocked. chroot(2) in a container that pivot_root'ed into its own mount
# namespace cannot leave the root: ".." stops at the namespace's root, which is the container's.
SPEC=(
	"chroot CAP_SYS_CHROOT chroot_escape"
)
SYSCALLS=(
	"ptrace ptrace -1"
	"process_vm_readv process_vm_readv 0 0 0 0 0 1"
	"pidfd_getfd pidfd_getfd -1 0 0"
	"perf_event_open perf_event_open 1 0 -1 -1 0"
	"mount mount 1 1 1 0 0"
	"umount2 umount2 1 0xffffffff"
	"open_tree open_tree -1 1 0xffffffff"
	"fsconfig fsconfig -1 0xffffffff 0 0 0"
	"mount_setattr mount_setattr -1 1 0xffffffff 0 0"
	"unshare_newuser unshare 0x10000001"
	"clone_newuser clone 0x10010000"
	"setns setns -1 0"
	"keyctl keyctl -1"
	"add_key add_key 1 1 0 0 0"
	"request_key request_key 1 1 1 0"
	"bpf bpf -1 0 0"
	"io_uring_setup io_uring_setup 0 1"
	"userfaultfd userfaultfd 0xffffffff"
	"open_by_handle_at open_by_handle_at -1 1 0"
	"name_to_handle_at name_to_handle_at -1 1 0 0 0xffffffff"
	"kexec_file_load kexec_file_load -1 -1 0 0 0xffffffff"
	"init_module init_module 0 0 1"
	"finit_module finit_module -1 1 0xffffffff"
	"delete_module delete_module 1 0"
	"iopl iopl 4"
	"ioperm ioperm 0x10000 1 1"
	"swapoff swapoff 1"
	"settimeofday settimeofday 1 0"
	"clock_settime clock_settime 0 1"
	"adjtimex adjtimex 1"
	"quotactl quotactl 0xffffffff 1 0 0"
	"syslog syslog -1 0 0"
	"uselib uselib 1"
	"personality_addr_no_randomize personality 0x0040000"
	"ioctl_tiocsti ioctl -1 0x5412 0"
	"ioctl_tioclinux ioctl -1 0x541c 0"
)

# The script run in each place: "LABEL=errno" lines. $0 is the probe.
script=
for e in "${FS[@]}"; do
	read -r -a f <<<"$e"
	args=
	for a in "${f[@]:2}"; do
		if [ "${a:0:1}" = @ ]; then args+=" \"\$(cat ${a:1} 2>/dev/null)\""; else args+=" $a"; fi
	done
	script+="\"\$0\" ${f[1]}$args >/dev/null 2>&1; echo ${f[0]}=\$?; "
done
sys_script=
for e in "${SYSCALLS[@]}"; do
	read -r -a f <<<"$e"
	n=$(nr "${f[1]}") || continue
	sys_script+="\"\$0\" syscall $n ${f[*]:2} >/dev/null 2>&1; echo ${f[0]}=\$?; "
done
[ "$(uname -m)" = x86_64 ] && sys_script+='"$0" int80 20 >/dev/null 2>&1; echo i386_getpid=$?; '

host=$(sh -c "$sys_script" "$T/bin/probe" 2>&1)
cr=$(cd "$T/ws" && XDG_STATE_HOME=$T/state XDG_CONFIG_HOME=$T/config "$CORRAL" run --workspace "$T/ws" \
	--ro "$T/bin" --grant once -- sh -c "$script$sys_script" "$T/bin/probe" 2>"$T/corral.err")
[ -n "$cr" ] || echo "escapes.sh: corral run printed nothing: $(cat "$T/corral.err")" >&2
ct=$(timeout 120 podman --runtime "$rt" run --rm -v "$T/bin/probe:/probe:ro" localhost/bb \
	sh -c "$script$sys_script" /probe 2>"$T/podman.err")
[ -n "$ct" ] || echo "escapes.sh: the container printed nothing: $(cat "$T/podman.err")" >&2

val() { sed -n "s/^$1=//p" <<<"$2"; }
blocked() { [ -n "$1" ] && [ "$1" != 0 ] && [ "$1" != "$2" ]; }
# EPERM or ENOSYS on the host itself: a filter of the host's (a hosted VM's) refuses the call.
host_blocks() { [ "$1" = 1 ] || [ "$1" = 38 ]; }

worse=0
printf '%-30s %6s %8s %10s  %s\n' attack host corral container verdict
for e in "${FS[@]}" "${SYSCALLS[@]}" "i386_getpid"; do
	label=${e%% *}
	h=$(val "$label" "$host") c=$(val "$label" "$cr") k=$(val "$label" "$ct")
	[ -n "$c$k" ] || continue
	granted=
	for g in "${SPEC[@]}"; do
		read -r -a f <<<"$g"
		[ "${f[0]}" = "$label" ] && blocked "$(val "${f[2]}" "$ct")" "" && granted="${f[1]} (config.json's process.capabilities; the runtime-spec asks for it), ${f[2]} blocked"
	done
	if host_blocks "$h" && [ "$k" != 0 ]; then
		v="the host refuses it already"
	elif [ "$k" = 0 ] && [ -n "$granted" ]; then
		v="allowed by $granted"
	elif blocked "$k" "$h"; then
		v="container blocks"
	elif blocked "$c" "$h"; then
		v="LET THROUGH in the container, blocked by corral run"
		worse=$((worse + 1))
	else
		v="neither blocks"
	fi
	printf '%-30s %6s %8s %10s  %s\n' "$label" "${h:--}" "${c:--}" "${k:--}" "$v"
done
echo "runtime $(basename "$rt"): $worse attacks blocked by corral run get through in the container"
[ -n "$cr" ] && [ -n "$ct" ] || exit 1
[ "$worse" = 0 ]
