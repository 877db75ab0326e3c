#!/bin/bash
# warm: the Linux driver's warm sandboxes (corral serve's), driven directly by
# tests/helpers/warm-client (built next to probe), as root and as an unprivileged user. Each
# warm-client test prints "ok - ..." / "not ok - ..." lines, which become TAP lines here.
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

WARM_CLIENT=$(dirname "$CR_PROBE")/warm-client
if [ ! -x "$WARM_CLIENT" ]; then
	not_ok "warm suite: $WARM_CLIENT is built (tests/meson.build builds it before this suite)"
	exit 0
fi
cp "$WARM_CLIENT" "$BIN/warm-client"
chmod a+rx "$BIN/warm-client"

# client MODE TEST [ARGS]: run one warm-client test in a fresh workspace (at most 60 s).
client() {
	local mode=$1 t=$2 ws line out rc
	shift 2
	ws=$(mkws "$mode")
	out=$(cd "$ws" && as "$mode" timeout -k 5 60 "$BIN/warm-client" "$ws" "$t" "$@" 2>&1)
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "$mode: ${line#ok - }" ;;
		"not ok - "*) not_ok "$mode: ${line#not ok - }" ;;
		"# "*) diag "$mode: ${line#\# }" ;;
		*) diag "$mode: $line" ;;
		esac
	done <<<"$out"
	[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || not_ok "$mode: warm-client $t exited $rc"
}

for m in $MODES; do
	client "$m" run-seq 50
	client "$m" exec-fail
	client "$m" persist
	client "$m" tree
	client "$m" isolation
	client "$m" crash
	client "$m" redirect
	client "$m" hosts
	client "$m" concurrent
	client "$m" server-death
	client "$m" worker-fail
	client "$m" pool-short
done
# root only: the test makes a user namespace of its own to forbid nested ones
[ "$(id -u)" -ne 0 ] || client root no-userns
