#!/bin/bash
# timings.sh [CORRAL] [RUNS]: the ci suite's jobs (tests/ci/project.sh) bare and under
# `corral run --profile ci`, as root in a root-owned checkout, RUNS times each (default 3),
# interleaved (bare and corral alternate, their order swapped each round, so that the load of this
# shared machine falls on both alike). Prints each job's median wall time bare and under corral,
# the difference and the ratio; each run's time on stderr.
#   build       ./configure, make -j2, make check, from a clean checkout (git clean -fdx)
#   cargo-cold  cargo build and cargo test with an empty target directory
#   cargo-warm  the same with the target directory the cold run left (corral: the named cache)
#   asan        two ASan programs built and run (LeakSanitizer reports one, exit 23)
#   gdb         a crashing program built and backtraced by gdb -batch
#   git         a clone of an upstream repository and a commit as ~/.gitconfig's user
#   secret      a value read from a file into the environment (corral: --secret)
# CORRAL defaults to build/corral beside this checkout. Needs root (the CI case the issue names).
# shellcheck disable=SC2016 # the jobs are single-quoted on purpose
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/ci/project.sh
source "$here/project.sh"
corral=$(realpath "${1:-$here/../../build/corral}")
runs=${2:-3}
[ "$(id -u)" -eq 0 ] || {
	echo "timings.sh: run it as root (a root-owned checkout is the case it times)" >&2
	exit 2
}
[ -x "$corral" ] || {
	echo "timings.sh: no corral at $corral" >&2
	exit 2
}

tmp=$(mktemp -d /tmp/ci-timings.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
export XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config TMPDIR=$tmp
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mkdir -m 0700 "$XDG_STATE_HOME" "$XDG_CONFIG_HOME"

ws=$tmp/job
mkdir "$ws"
ci_project "$ws"
git -C "$ws" init -q && git -C "$ws" add -A &&
	git -C "$ws" -c user.name=dev -c user.email=dev@example.org commit -qm project
up=$tmp/upstream
git init -q "$up" && echo up >"$up/README" && git -C "$up" add README &&
	git -C "$up" -c user.name=up -c user.email=up@example.org commit -qm upstream
home=$tmp/home
mkdir -m 0700 "$home"
printf '[user]\n\tname = CI Runner\n\temail = runner@example.org\n' >"$home/.gitconfig"
printf 'tok-%s\n' "$RANDOM$RANDOM" >"$tmp/token"
chmod 0600 "$tmp/token"
cache=$XDG_STATE_HOME/corral/caches/cargo-target

JOB_GIT='rm -rf build/up && git clone -q "$UPSTREAM" build/up && git commit -q --allow-empty -m ci'
JOB_SECRET='printf %s "$DEPLOY_TOKEN" | sha256sum >/dev/null'

# script JOB: the job's shell script.
script() {
	case $1 in
	build) echo "$CI_JOB_BUILD" ;;
	cargo-*) echo "$CI_JOB_CARGO" ;;
	asan) echo "$CI_JOB_ASAN" ;;
	gdb) echo "$CI_JOB_GDB" ;;
	git) echo "$JOB_GIT" ;;
	secret) echo "$JOB_SECRET" ;;
	esac
}

# prepare JOB WHERE: what the job starts from (WHERE: bare or corral).
prepare() {
	git -C "$ws" clean -fdxq
	case $1 in
	cargo-cold) rm -rf "$tmp/target-bare" "${cache:?}"/* ;;
	cargo-warm) # a cold build first, unless the bare target directory has one
		if [ "$2" = corral ] || [ ! -d "$tmp/target-bare/release" ]; then
			run "$2" cargo-cold >/dev/null
		fi
		;;
	esac
}

# run WHERE JOB: run the job once; prints its wall time in ms, or FAIL.
run() {
	local t0 rc
	t0=$(date +%s%N)
	if [ "$1" = bare ]; then
		(cd "$ws" && HOME=$home CARGO_TARGET_DIR=$tmp/target-bare UPSTREAM=$up \
			DEPLOY_TOKEN=$(<"$tmp/token") sh -c "$(script "$2")") >/dev/null 2>&1
	else
		(cd "$ws" && HOME=$home "$corral" run --profile ci --grant once --workspace "$ws" \
			--no-audit --ro "$up" --cache cargo-target='~/.cache/cargo-target' \
			--setenv CARGO_TARGET_DIR="$home/.cache/cargo-target" --setenv UPSTREAM="$up" \
			--secret DEPLOY_TOKEN="$tmp/token" -- sh -c "$(script "$2")") >/dev/null 2>&1
	fi
	rc=$?
	[ "$rc" = 0 ] || { echo FAIL; return; }
	echo $((($(date +%s%N) - t0) / 1000000))
}

median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

jobs=(build cargo-cold cargo-warm asan gdb git secret)
declare -A times
for ((i = 1; i <= runs; i++)); do
	if ((i % 2)); then order=(bare corral); else order=(corral bare); fi
	for j in "${jobs[@]}"; do
		for w in "${order[@]}"; do
			prepare "$j" "$w"
			times[$w.$j]+="$(run "$w" "$j") "
		done
	done
done
for j in "${jobs[@]}"; do
	printf '# %-10s bare: %s corral: %s\n' "$j" "${times[bare.$j]}" "${times[corral.$j]}" >&2
done

printf '%s, median of %d runs each, bare and corral interleaved (%s, %s)\n' \
	"root in a root-owned checkout, --profile ci" "$runs" "$(nproc) CPUs" "load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| %-10s | %9s | %11s | %9s | %6s |\n' job "bare (ms)" "corral (ms)" "+ (ms)" ratio
printf '|%s|%s|%s|%s|%s|\n' ------------ ----------- ------------- ----------- --------
for j in "${jobs[@]}"; do
	if [[ "${times[bare.$j]} ${times[corral.$j]}" == *FAIL* ]]; then
		printf '| %-10s | failed: bare %s, corral %s |\n' "$j" "${times[bare.$j]}" "${times[corral.$j]}"
		continue
	fi
	b=$(tr ' ' '\n' <<<"${times[bare.$j]}" | grep . | median)
	c=$(tr ' ' '\n' <<<"${times[corral.$j]}" | grep . | median)
	printf '| %-10s | %9s | %11s | %9s | %6s |\n' "$j" "$b" "$c" "$(awk -v b="$b" -v c="$c" 'BEGIN {printf "%+d", c - b}')" \
		"$(awk -v b="$b" -v c="$c" 'BEGIN {printf "%.2f", c / b}')"
done
