#!/usr/bin/env bash
# bubblewrap's own test suite (../shared/bwrap-suite, or $BWRAP_SUITE) against the bwrap
# personality, in compat and in hardened mode, as root and as uid 65534. Fails when fewer pass
# than the minimum of each mode: what the personality passes now (corral-bwrap(1), TESTS, lists
# every failure and why). Skips when the suite is not there or we are not root.
#   tools/bwrap-suite.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
suite=${BWRAP_SUITE:-}
for d in ../shared/bwrap-suite ../../shared/bwrap-suite; do
	[ -n "$suite" ] || [ ! -x "$d/run.sh" ] || suite=$d
done
suite=${suite:-../shared/bwrap-suite}
min_compat=${CR_BWRAP_SUITE_MIN_COMPAT:-138}
min_hardened=${CR_BWRAP_SUITE_MIN_HARDENED:-129}

if [ ! -x "$suite/run.sh" ]; then
	echo "bwrap-suite: skipped (no $suite/run.sh; set BWRAP_SUITE)"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "bwrap-suite: skipped (it must run as root)"
	exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 0755 "$work"
rc=0
for mode in compat hardened; do
	# The mode travels in the environment, which the suite clears: a wrapper sets it (the
	# sandbox's environment keeps it, so /proc/self/exe runs in the same mode).
	printf '#!/bin/bash\nCORRAL_BWRAP_MODE=%s exec -a "$0" %q "$@"\n' "$mode" \
		"$(readlink -f "$build/bwrap")" >"$work/$mode"
	chmod 0755 "$work/$mode"
	last=$(BWRAP_SUITE_WORK=${BWRAP_SUITE_WORK:-$work/suite} "$suite/run.sh" "$work/$mode" | tail -n 1) || true
	passed=${last%% passed*}
	min=$([ "$mode" = compat ] && echo "$min_compat" || echo "$min_hardened")
	echo "bwrap-suite $mode: $last (minimum $min passed)"
	if ! [[ $passed =~ ^[0-9]+$ ]] || [ "$passed" -lt "$min" ]; then
		rc=1
	fi
done
exit $rc
