# shellcheck shell=sh
# Sourced by the guest scripts (smoke.sh, limits.sh): TAP lines prefixed "TAP: " so the runner can
# pick them out of the console, and a millisecond clock. The caller sets N=0 and FAILED=0.

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
