#!/usr/bin/env bash
# Build the libFuzzer harnesses of tests/fuzz (clang, ASan + UBSan) and run each for a bounded
# time on a copy of its committed corpus (tests/fuzz/corpus/NAME, which is never grown here).
#   tools/fuzz.sh [SECONDS_PER_HARNESS]   default 20
# Fails (exit 1) on any crash, leak, UBSan report, timeout, out-of-memory or invariant abort;
# the input is kept in $FUZZ_ARTIFACTS (default build-fuzz/fuzz-artifacts). FUZZ_ONLY="cli shell"
# runs only those harnesses; FUZZ_JOBS=N runs N at a time (default: one per CPU). Longer local
# runs: tests/fuzz/README.md.
set -euo pipefail

cd "$(dirname "$0")/.."
seconds=${1:-20}
case $seconds in
'' | *[!0-9]*)
	echo "usage: tools/fuzz.sh [SECONDS_PER_HARNESS]" >&2
	exit 2
	;;
esac

# clang, and its runtimes (libFuzzer, ASan, UBSan) in libclang-rt-14-dev; the rest as
# tools/setup.sh installs it.
packages=(clang libclang-rt-14-dev meson ninja-build pkg-config libseccomp-dev
	libinih-dev libbsd-dev libmd-dev libjson-c-dev)
. tools/apt-install.sh
install_missing fuzz "${packages[@]}"

build=build-fuzz
[ -f $build/build.ninja ] || CC=clang meson setup $build -Dfuzz=true -Dtests=false \
	-Db_sanitize=address,undefined -Db_lundef=false >/dev/null
ninja -C $build fuzz

names=${FUZZ_ONLY:-$(cd tests/fuzz/corpus && ls)}
artifacts=${FUZZ_ARTIFACTS:-$PWD/$build/fuzz-artifacts}
mkdir -p "$artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Leaks fail the run; UBSan reports abort (libFuzzer then keeps the input).
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# One harness: its report line (and, on failure, the log's end) in $work/NAME.out; exit 1 when
# it failed.
fuzz_one() {
	local name=$1 bin=$build/tests/fuzz/fuzz-$1 log=$work/$1.log out=$work/$1.out
	local start took execs cov frc=0

	if [ ! -x "$bin" ]; then
		echo "fuzz-$name: not built" >"$out"
		return 1
	fi
	mkdir -p "$work/$name"
	cp -r tests/fuzz/corpus/"$name"/. "$work/$name/"
	start=$(date +%s)
	nice -n 10 "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$artifacts/$name-" -print_final_stats=1 "$work/$name" >"$log" 2>&1 || frc=$?
	took=$(($(date +%s) - start))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -n 1 || true)
	if [ "$frc" -eq 0 ]; then
		echo "fuzz-$name: ok, ${execs:-?} execs in ${took} s, ${cov:-no coverage line}" >"$out"
		return 0
	fi
	{
		echo "fuzz-$name: FAILED (exit $frc) after ${execs:-?} execs in ${took} s; the log's end:"
		grep -E 'ERROR|SUMMARY|invariant failed|Test unit written|leak' "$log" | head -n 20 | sed 's/^/    /'
	} >"$out"
	return 1
}

# One harness per CPU at a time (FUZZ_JOBS overrides): they share nothing but the artifacts
# directory, where each input is named after its harness.
jobs=${FUZZ_JOBS:-$(nproc)}
rc=0
running=0
for name in $names; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n || rc=1
		running=$((running - 1))
	fi
	fuzz_one "$name" &
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
	wait -n || rc=1
	running=$((running - 1))
done
for name in $names; do
	cat "$work/$name.out" 2>/dev/null || echo "fuzz-$name: no result (see the errors above)"
done
[ "$rc" -eq 0 ] && echo "fuzz: all harnesses passed (${seconds} s each)" || echo "fuzz: FAILED" >&2
exit $rc
