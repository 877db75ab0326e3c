# shellcheck shell=bash
# Shared by the integration suites: TAP output, and running the real corral binary as root and as
# an unprivileged user (uid/gid 65534) with its own workspace.
#
# Environment (set by meson): CR_LAUNCHER, CR_PROBE, CR_PEER.
#
# Every sandboxed check runs in each available MODE:
#   root  corral started by root (the sandbox must still not hold host root)
#   user  corral started by an unprivileged user: 65534 via setpriv when we are root, or the
#         invoking user when the suite itself runs unprivileged
set -u

CR_TEST_N=0
CR_TEST_FAILED=0
CR_TMP=$(mktemp -d /tmp/corral-test.XXXXXX)
chmod 0755 "$CR_TMP"
trap 'cr_cleanup' EXIT

cr_cleanup() {
	local rc=$?
	[ -n "${CR_CLEANUP_HOOK:-}" ] && eval "$CR_CLEANUP_HOOK"
	rm -rf "$CR_TMP"
	echo "1..$CR_TEST_N"
	# The verdict is the TAP lines; a non-zero status from the script's last command is not.
	[ "$CR_TEST_FAILED" -eq 0 ] || exit 1
	[ "$rc" -lt 128 ] || exit "$rc" # killed
	exit 0
}

# Binaries copied where an unprivileged user can execute them (the build tree may sit under a
# 0700 home). bin/ is shown inside sandboxes with --ro.
mkdir -p "$CR_TMP/bin"
cp "$CR_LAUNCHER" "$CR_TMP/bin/corral"
[ -n "${CR_PROBE:-}" ] && cp "$CR_PROBE" "$CR_TMP/bin/probe"
[ -n "${CR_PEER:-}" ] && cp "$CR_PEER" "$CR_TMP/bin/peer"
chmod -R a+rX "$CR_TMP/bin"
CORRAL=$CR_TMP/bin/corral
PROBE=$CR_TMP/bin/probe
PEER=$CR_TMP/bin/peer
BIN=$CR_TMP/bin

if [ "$(id -u)" -eq 0 ]; then
	MODES="root user"
else
	MODES="user"
fi

# Each mode keeps its corral state (audit ledger, sessions) and profiles in the suite's own
# directories, never in the invoking user's home. AS_USER runs a command as the unprivileged user.
export XDG_STATE_HOME=$CR_TMP/state-$(id -u) XDG_CONFIG_HOME=$CR_TMP/config-$(id -u)
mkdir -p -m 0700 "$XDG_STATE_HOME" "$XDG_CONFIG_HOME"
AS_USER=(setpriv --reuid=65534 --regid=65534 --clear-groups --
	env XDG_STATE_HOME="$CR_TMP/state-65534" XDG_CONFIG_HOME="$CR_TMP/config-65534")
if [ "$(id -u)" -eq 0 ]; then
	mkdir -p -m 0700 "$CR_TMP/state-65534" "$CR_TMP/config-65534"
	chown 65534:65534 "$CR_TMP/state-65534" "$CR_TMP/config-65534"
fi

ok() {
	CR_TEST_N=$((CR_TEST_N + 1))
	echo "ok $CR_TEST_N - $*"
}

not_ok() {
	CR_TEST_N=$((CR_TEST_N + 1))
	CR_TEST_FAILED=$((CR_TEST_FAILED + 1))
	echo "not ok $CR_TEST_N - $*"
}

skip() {
	CR_TEST_N=$((CR_TEST_N + 1))
	echo "ok $CR_TEST_N - $1 # SKIP $2"
}

diag() {
	printf '# %s\n' "$@" | sed 's/^# $/#/'
}

# check NAME COND...: ok if the command COND succeeds.
# is NAME 'SHELL CONDITION': ok if the condition, evaluated, holds; else the condition, $RC,
# $OUT and $ERR as diagnostics.
is() {
	local name=$1
	if eval "$2"; then
		ok "$name"
	else
		not_ok "$name"
		diag "condition: $2" "rc=$RC" "stdout: $(tr '\n' '|' <<<"$OUT")" "stderr: $(tr '\n' '|' <<<"${ERR-}")"
	fi
}

check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# A fresh workspace directory the sandbox of MODE can write (owned by its host uid).
# Usage: ws=$(new_workspace MODE)
new_workspace() {
	local d
	d=$(mktemp -d "$CR_TMP/ws.XXXXXX")
	chmod 0755 "$d"
	[ "$(id -u)" -ne 0 ] || chown "$(host_uid "$1"):$(host_uid "$1")" "$d"
	echo "$d"
}

# as MODE CMD...: run CMD as root (root mode) or as the unprivileged user (user mode).
as() {
	local mode=$1
	shift
	if [ "$mode" = user ] && [ "$(id -u)" -eq 0 ]; then
		"${AS_USER[@]}" "$@"
	else
		"$@"
	fi
}

# sandbox MODE WORKSPACE [CORRAL OPTIONS] -- CMD...: corral run as MODE with WORKSPACE, the test
# binaries shown read-only, from inside WORKSPACE. Prints what the sandbox prints; returns
# corral's exit status.
sandbox() {
	local mode=$1 ws=$2
	shift 2
	(cd "$ws" && as "$mode" "$CORRAL" run --workspace "$ws" --ro "$BIN" --grant once "$@")
}

# The uid the sandbox runs as on the host in MODE (root mode maps to 65534 by default).
host_uid() {
	if [ "$1" = root ] || [ "$(id -u)" -eq 0 ]; then echo 65534; else id -u; fi
}

# --- helpers for the sandboxed checks ------------------------------------------------------

# A workspace the sandbox of MODE can write to: owned by the host uid the sandbox runs as.
mkws() {
	local d
	d=$(new_workspace "$1")
	[ "$(id -u)" -ne 0 ] || chown "$(host_uid "$1"):$(host_gid "$1")" "$d"
	echo "$d"
}

host_gid() {
	if [ "$1" = root ] || [ "$(id -u)" -eq 0 ]; then echo 65534; else id -g; fi
}

# give MODE PATH...: hand files made by the suite to the host user the sandbox of MODE runs as.
give() {
	local mode=$1
	shift
	[ "$(id -u)" -ne 0 ] || chown -R "$(host_uid "$mode"):$(host_gid "$mode")" "$@"
}

# sb MODE WS [OPTS] -- CMD...: run a sandbox; its stdout in $OUT, stderr in $ERR, status in $RC.
sb() {
	OUT=$(sandbox "$@" 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
}

# fact KEY CMD...: record on the host whether CMD succeeds, as KEY=1 or KEY=0 in $OUT.
fact() {
	local key=$1
	shift
	if "$@"; then OUT+=$'\n'"$key=1"; else OUT+=$'\n'"$key=0"; fi
}

# res NAME KEY=VALUE...: ok if each KEY=VALUE line was printed (the last one counts; RC is the
# exit status of the sandbox; the value !0 means any non-zero number).
res() {
	local name=$1 kv k v got line bad=
	shift
	for kv in "$@"; do
		k=${kv%%=*}
		v=${kv#*=}
		got=
		if [ "$k" = RC ]; then
			got=$RC
		else
			while IFS= read -r line; do
				[[ $line != "$k="* ]] || got=${line#"$k="}
			done <<<"$OUT"
		fi
		case $v in
		'!0') [[ $got =~ ^[0-9]+$ && $got != 0 ]] || bad+=" $k=${got:-<unset>} (want non-zero)" ;;
		*) [ "$got" = "$v" ] || bad+=" $k=${got:-<unset>} (want $v)" ;;
		esac
	done
	if [ -z "$bad" ]; then
		ok "$name"
	else
		not_ok "$name"
		diag "mismatch:$bad" "stdout: $(tr '\n' '|' <<<"$OUT")" "stderr: $(tr '\n' '|' <<<"$ERR")"
	fi
}

# as_bg MODE CMD...: CMD in the background as the host user the sandbox of MODE runs as; its pid
# is appended to HOST_PIDS.
as_bg() {
	local mode=$1
	shift
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid="$(host_uid "$mode")" --regid="$(host_gid "$mode")" --clear-groups -- "$@" &
	else
		"$@" &
	fi
	HOST_PIDS+=($!)
}

# wait_for COND...: poll COND every 0.05s for up to 10 seconds.
wait_for() {
	local i
	for ((i = 0; i < 200; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}

[ "$(id -u)" -eq 0 ] ||
	skip "root mode" "the suite runs as uid $(id -u); run it as root to also test corral started by root"

# Skip a mode only when the host cannot create the namespaces (corral doctor says so).
for m in $MODES; do
	case $(as "$m" "$CORRAL" doctor --json 2>/dev/null) in
	*'"name":"user_namespaces","state":"missing"'*)
		skip "$m mode" "corral doctor: user namespaces are unavailable to the $m user"
		MODES=$(tr -s ' ' <<<"${MODES/$m/}")
		;;
	esac
done
[ -n "${MODES// /}" ] || exit 0
