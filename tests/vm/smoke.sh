#!/bin/sh
# smoke.sh: corral's smoke tests on a real Debian kernel, inside the guest that tests/vm/run.sh
# boots (busybox sh; corral and probe in /usr/bin). Every sandboxed check runs in each MODE:
#   root  corral started by root (the sandbox runs as uid 65534)
#   user  corral started by the unprivileged user tester (uid 1000) through busybox su
# Checks that need the guest host's own view (positive controls) run once, as root.
# TAP lines are printed with the prefix "TAP: ", which keeps them apart from kernel messages on
# the serial console; the exit status is the number of failures.
# shellcheck disable=SC2016 # the sh -c scripts are single-quoted on purpose
set -u

EROFS=30
N=0
FAILED=0
T=$(mktemp -d /tmp/smoke.XXXXXX)
chmod 0755 "$T"

. /usr/share/corral-vm/tap.sh

# as MODE CMD...: run CMD as root (root mode) or as tester (user mode).
as() {
	mode=$1
	shift
	if [ "$mode" = user ]; then
		# "--": busybox su (glibc getopt) would otherwise take CMD's options as its own.
		su -s /bin/sh tester -c 'exec "$0" "$@"' -- "$@"
	else
		"$@"
	fi
}

# sb MODE WS [CORRAL OPTIONS] -- CMD...: corral run as MODE with workspace WS, from inside WS, at
# most 60 s. Its stdout in $OUT, stderr in $ERR, status in $RC.
sb() {
	mode=$1 ws=$2
	shift 2
	OUT=$(cd "$ws" && as "$mode" timeout 60 corral run --grant once --workspace "$ws" "$@" </dev/null 2>"$T/err")
	RC=$?
	ERR=$(cat "$T/err")
}

# fact KEY CMD...: record on the guest host whether CMD succeeds, as KEY=1 or KEY=0 in $OUT.
fact() {
	key=$1
	shift
	if "$@"; then OUT="$OUT
$key=1"; else OUT="$OUT
$key=0"; fi
}

# res NAME KEY=VALUE...: ok if the last KEY= line printed has VALUE (RC is corral's exit status;
# the value !0 means any non-zero number).
res() {
	name=$1
	shift
	bad=
	for kv in "$@"; do
		k=${kv%%=*} v=${kv#*=}
		if [ "$k" = RC ]; then
			got=$RC
		else
			got=$(printf '%s\n' "$OUT" | sed -n "s/^$k=//p" | tail -n 1)
		fi
		case $v in
		'!0') case $got in '' | 0 | *[!0-9]*) bad="$bad $k=${got:-<unset>} (want non-zero)" ;; esac ;;
		*) [ "$got" = "$v" ] || bad="$bad $k=${got:-<unset>} (want $v)" ;;
		esac
	done
	if [ -z "$bad" ]; then
		ok "$name"
	else
		not_ok "$name"
		diag "mismatch:$bad" "stdout: $(printf '%s' "$OUT" | tr '\n' '|')" \
			"stderr: $(printf '%s' "$ERR" | tr '\n' '|')"
	fi
}

start=$(ms)
json=$(timeout 60 corral doctor --json </dev/null 2>/dev/null)
field() { # the value of check $1 in the doctor JSON above
	printf '%s\n' "$json" | sed -n "s/.*\"name\":\"$1\",\"state\":\"\([a-z]*\)\"[^}]*\"value\":\"\{0,1\}\([^\",]*\).*/\2 (\1)/p"
}
diag "kernel $(uname -r); landlock ABI $(field landlock); cgroup $(field cgroup)" \
	"$(corral --version 2>&1)"

# --- positive controls on the guest host, as root -----------------------------------------------
# The same writes that must fail inside a sandbox work here, so a failure inside means the sandbox.
OUT=
RC=0
ERR=
fact sysrq_present test -e /proc/sysrq-trigger
# "4" sets the console log level to 4, which "quiet" already chose: harmless to repeat.
probe sysctl-write /proc/sysrq-trigger 4 2>>"$T/err"
OUT="$OUT
sysrq=$?"
v=$(cat /proc/sys/kernel/ns_last_pid)
probe sysctl-write /proc/sys/kernel/ns_last_pid "$v" 2>>"$T/err"
OUT="$OUT
sysctl=$?"
probe write /etc/corral-vm-control 2>>"$T/err"
OUT="$OUT
etc=$?"
rm -f /etc/corral-vm-control
ERR=$(cat "$T/err")
res "guest host: root can write /proc/sysrq-trigger, /proc/sys/kernel/ns_last_pid and /etc (positive controls)" \
	sysrq_present=1 sysrq=0 sysctl=0 etc=0

for mode in root user; do
	ws=/tmp/ws.$mode
	mkdir -p "$ws"
	if [ "$mode" = root ]; then chown 65534:65534 "$ws"; else chown 1000:1000 "$ws"; fi

	out=$(cd /tmp && as "$mode" timeout 60 corral doctor </dev/null 2>&1)
	rc=$?
	mjson=$(cd /tmp && as "$mode" timeout 60 corral doctor --json </dev/null 2>/dev/null)
	case $rc:$(printf '%s\n' "$out" | head -n 1):$mjson in
	0:*': ready:'*'"ready":true'*) ok "$mode: corral doctor exits 0 and reports ready (its trial run works)" ;;
	*)
		not_ok "$mode: corral doctor exits 0 and reports ready (its trial run works)"
		diag "corral doctor exited $rc:" "$out"
		;;
	esac

	# Every run mounts the plan's /proc knobs read-only: it failed on stock Debian kernels when
	# /proc/sysrq-trigger (a file there) was handled as a directory.
	sb "$mode" "$ws" -- echo ok
	fact out_is_ok [ "$OUT" = ok ]
	res "$mode: corral run -- echo ok prints ok and exits 0" out_is_ok=1 RC=0

	sb "$mode" "$ws" -- sh -c '
		probe write /etc/corral-vm-escape; echo etc=$?
		probe write "$PWD/inside"; echo ws=$?'
	fact host_sees_ws test -f "$ws/inside"
	fact host_etc_clean test ! -e /etc/corral-vm-escape
	res "$mode: writing /etc fails with EROFS while the workspace is writable (and the host sees the file)" \
		etc=$EROFS ws=0 host_sees_ws=1 host_etc_clean=1 RC=0

	# As the namespace's root (--map-root), the strongest position inside: only the read-only
	# mounts stop these writes. O_TRUNC (probe write) reports the read-only mount before any
	# permission check; sysctl-write (O_WRONLY) of ns_last_pid, which a namespace root may open,
	# hits it too.
	sb "$mode" "$ws" --map-root -- sh -c '
		v=$(cat /proc/sys/kernel/ns_last_pid); echo read=$?
		probe sysctl-write /proc/sys/kernel/ns_last_pid "$v"; echo sysctl=$?
		probe write /proc/self/comm; echo comm=$?
		test -e /proc/sysrq-trigger; echo sysrq_present=$?
		probe write /proc/sysrq-trigger; echo sysrq=$?
		probe sysctl-write /proc/sysrq-trigger 4; echo sysrq_wronly=$?'
	res "$mode --map-root: /proc/sys/kernel/ns_last_pid cannot be written (EROFS) while /proc/self/comm can" \
		read=0 sysctl=$EROFS comm=0 RC=0
	res "$mode --map-root: /proc/sysrq-trigger is present and cannot be written (EROFS; O_WRONLY refused too)" \
		sysrq_present=0 sysrq=$EROFS 'sysrq_wronly=!0' RC=0

	sb "$mode" "$ws" -- sh -c '
		ip -o link show lo | grep -q "[<,]UP[,>]"; echo lo_up=$?
		echo ifaces=$(sed -n "3,\$p" /proc/net/dev | cut -d: -f1 | tr -d " " | tr "\n" " ")
		nc -l -p 7777 >"$PWD/nc.got" 2>/dev/null &
		for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
			echo hello | timeout 5 nc -w 2 127.0.0.1 7777 2>/dev/null && break
			sleep 0.2
		done
		echo sent=$?
		wait
		echo got=$(cat "$PWD/nc.got")'
	res "$mode: loopback is up and the only interface: a TCP round trip on 127.0.0.1 works" \
		lo_up=0 ifaces=lo sent=0 got=hello RC=0

	# The uid also shows that the mode is what it says (root's sandbox runs as 65534).
	if [ "$mode" = root ]; then uid=65534; else uid=1000; fi
	sb "$mode" "$ws" -- sh -c 'echo pid=$$ uid=$(id -u)'
	OUT=$(printf '%s\n' "$OUT" | tr ' ' '\n')
	res "$mode: the command is pid 2 of its pid namespace (uid $uid)" pid=2 uid=$uid RC=0

	sb "$mode" "$ws" -- sh -c 'exit 42'
	res "$mode: exit code 42 propagates" RC=42

	# The seccomp filter on this kernel: ptrace (101) and an i386 getpid (int 0x80) are refused,
	# the native getpid (39) is not; with --seccomp=off ptrace reaches the kernel (ESRCH).
	for opt in --seccomp=default --seccomp=off; do
		sb "$mode" "$ws" $opt -- sh -c '
			probe syscall 101 -1 >/dev/null 2>&1; echo ptrace=$?
			probe int80 20 >/dev/null 2>&1; echo i386=$?
			probe syscall 39 >/dev/null 2>&1; echo getpid=$?
			echo seccomp=$(grep "^Seccomp:" /proc/self/status | tr -dc 0-9)'
		if [ $opt = --seccomp=off ]; then
			res "$mode $opt: no filter; ptrace reaches the kernel (ESRCH) and i386 getpid works" \
				ptrace=3 i386=0 getpid=0 seccomp=0 RC=0
		else
			res "$mode $opt: the filter is installed; ptrace and an i386 syscall fail with EPERM, getpid works" \
				ptrace=1 i386=1 getpid=0 seccomp=2 RC=0
		fi
	done

	t0=$(ms)
	sb "$mode" "$ws" --timeout 1 -- sleep 30
	t=$(($(ms) - t0))
	if [ "$t" -ge 900 ] && [ "$t" -lt 10000 ]; then in_time=1; else in_time=0; fi
	OUT="$OUT
in_time=$in_time"
	res "$mode: --timeout 1 on sleep 30 exits 124 after ${t}ms (0.9-10 s)" RC=124 in_time=1
done

# --- Landlock at this kernel's ABI (6.1: ABI 2, 6.12: ABI 6) -----------------------------------
# What the kernel lacks is dropped and reported (JSON, stderr, doctor), never silently; what it
# has is enforced; --landlock=required and --landlock-min-abi refuse what it cannot do.
abi=$(printf '%s\n' "$json" | sed -n 's/.*"name":"landlock","state":"[a-z]*","required":false,"value":"\([0-9]*\)".*/\1/p')
case $abi in
2) lacking='fs.truncate (ABI 3), fs.ioctl_dev (ABI 5), net.bind_tcp (ABI 4), net.connect_tcp (ABI 4), scope.abstract_unix_socket (ABI 6), scope.signal (ABI 6), log.new_exec_on (ABI 7)'
   dropped='"fs.truncate","fs.ioctl_dev","net.bind_tcp","net.connect_tcp","scope.abstract_unix_socket","scope.signal","log.new_exec_on"'
   required=125 min_abi=3 min_missing='fs.truncate (ABI 3)' ;;
6) lacking='log.new_exec_on (ABI 7)'
   dropped='"log.new_exec_on"'
   required=0 min_abi=7 min_missing='log.new_exec_on (ABI 7)' ;;
*) lacking= dropped= required=0 min_abi= min_missing= ;;
esac
# dropped_of FILE: the "dropped" array of enforced.landlock in the one-line status FILE.
dropped_of() { sed -n 's/.*"landlock":{[^}]*"dropped":\[\([^]]*\)\].*/\1/p' "$1"; }
ll_field() { sed -n "s/.*\"landlock\":{[^}]*\"$2\":\([^,}]*\).*/\1/p" "$1"; }
if [ -z "$min_abi" ]; then
	diag "Landlock ABI ${abi:-unknown}: no expectations for it here; the Landlock checks are skipped"
else
	out=$(timeout 60 corral doctor </dev/null 2>&1)
	OUT="detail=$(printf '%s\n' "$out" | grep -A1 "landlock  *$abi\$" | tail -n 1 | grep -c "lacks $lacking;")"
	RC=0
	ERR=
	res "corral doctor: landlock $abi lists what this kernel lacks: $lacking" detail=1
	for mode in root user; do
		ws=/tmp/ws.$mode
		outside=/tmp/outside.$mode
		mkdir -p "$outside"
		echo secret >"$outside/data"
		if [ "$mode" = root ]; then chown -R 65534:65534 "$outside"; else chown -R 1000:1000 "$outside"; fi
		sb "$mode" "$ws" --net=host --tcp-connect 80 --tcp-bind 8080 --json-status "$ws/ll.json" --keep-fd 5 -- sh -c '
			probe read /proc/self/fd/5 >/dev/null; echo fd_read=$?
			probe write /proc/self/fd/5; echo fd_write=$?
			probe write "$PWD/ok"; echo ws=$?' 5<"$outside/data"
		OUT="$OUT
dropped=$(dropped_of "$ws/ll.json")
applied=$(ll_field "$ws/ll.json" applied)
abi=$(ll_field "$ws/ll.json" abi)
warned=$(printf '%s\n' "$ERR" | grep -c "^corral: warning: Landlock ABI $abi lacks what the policy asks for, so it is not enforced: $(printf '%s' "$dropped" | tr -d '"' | sed 's/,/, /g') (")"
		res "$mode: Landlock ABI $abi: the rights this kernel lacks are dropped, listed in enforced.landlock.dropped and in one warning line; the rest is enforced (a read-only descriptor does not reopen for writing: EACCES)" \
			"dropped=$dropped" applied=true "abi=$abi" warned=1 fd_read=0 fd_write=13 ws=0 RC=0
		sb "$mode" "$ws" --landlock=off --keep-fd 5 -- probe write /proc/self/fd/5 5<"$outside/data"
		res "$mode: positive control: with --landlock=off the same descriptor reopens for writing" RC=0
		echo secret >"$outside/data"
		sb "$mode" "$ws" --landlock=required -- true
		OUT="says=$(printf '%s\n' "$ERR" | grep -c -- "--landlock=required: this kernel's Landlock ABI $abi lacks")"
		[ "$required" = 0 ] && OUT="says=1"
		res "$mode: --landlock=required exits $required on ABI $abi (the logging flag alone does not count)" says=1 RC=$required
		sb "$mode" "$ws" --landlock-min-abi "$min_abi" -- true
		OUT="says=$(printf '%s\n' "$ERR" | grep -c -- "--landlock-min-abi $min_abi: this kernel's Landlock ABI is $abi, which lacks $min_missing")"
		res "$mode: --landlock-min-abi $min_abi exits 125 and names what ABI $abi lacks" says=1 RC=125
	done

	# Degraded mode on this kernel: user namespaces forbidden by the sysctl, --allow-degraded.
	ws=/tmp/ws.user
	max=$(cat /proc/sys/user/max_user_namespaces)
	echo 0 >/proc/sys/user/max_user_namespaces
	sb user "$ws" --allow-degraded --json-status "$ws/dg.json" -- sh -c '
		probe write /tmp/outside.user/made; echo outside=$?
		probe write "$PWD/ok2"; echo ws=$?
		probe write "$TMPDIR/t"; echo tmpdir=$?'
	echo "$max" >/proc/sys/user/max_user_namespaces
	OUT="$OUT
degraded=$(grep -c '"degraded":true' "$ws/dg.json")
warned=$(printf '%s\n' "$ERR" | grep -c '^corral: warning: degraded mode: user namespaces are unavailable')"
	res "user: degraded mode (user.max_user_namespaces=0, --allow-degraded): Landlock ABI $abi still refuses writes outside the workspace (EACCES); it says so" \
		outside=13 ws=0 tmpdir=0 degraded=1 warned=1 RC=0
fi

diag "guest suite: $(($(ms) - start)) ms"
echo "TAP: 1..$N"
rm -rf "$T"
exit "$FAILED"
