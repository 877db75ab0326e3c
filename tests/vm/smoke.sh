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

ok() {
	N=$((N + 1))
	echo "TAP: ok $N - $*"
}

not_ok() {
	N=$((N + 1))
	FAILED=$((FAILED + 1))
	echo "TAP: not ok $N - $*"
}

diag() {
	for l in "$@"; do
		printf '%s\n' "$l" | sed 's/^/TAP: # /'
	done
}

ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

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
	OUT=$(cd "$ws" && as "$mode" timeout 60 corral run --workspace "$ws" "$@" </dev/null 2>"$T/err")
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

	t0=$(ms)
	sb "$mode" "$ws" --timeout 1 -- sleep 30
	t=$(($(ms) - t0))
	if [ "$t" -ge 900 ] && [ "$t" -lt 10000 ]; then in_time=1; else in_time=0; fi
	OUT="$OUT
in_time=$in_time"
	res "$mode: --timeout 1 on sleep 30 exits 124 after ${t}ms (0.9-10 s)" RC=124 in_time=1
done

diag "guest suite: $(($(ms) - start)) ms"
echo "TAP: 1..$N"
rm -rf "$T"
exit "$FAILED"
