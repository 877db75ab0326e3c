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
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
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
	(cd "$ws" && as "$mode" "$CORRAL" run --workspace "$ws" --ro "$BIN" "$@")
}

# The uid the sandbox runs as on the host in MODE (root mode maps to 65534 by default).
host_uid() {
	if [ "$1" = root ] || [ "$(id -u)" -eq 0 ]; then echo 65534; else id -u; fi
}
