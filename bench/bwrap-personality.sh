#!/usr/bin/env bash
# The speed check of corral's bwrap personality (issue 20): srt's typical bwrap command line run
# by /usr/bin/bwrap and by the personality, both ways it is reached (an executable named `bwrap`
# and `corral bwrap`), in ONE hyperfine run (-N, no shell) so that all share the machine's state.
# Each hardening level (CORRAL_BWRAP_MODE: compat, hardened) has hyperfine runs of its own, each
# with bwrap in it. Prints each median and its ratio to bwrap's (the median of ROUNDS rounds'
# ratios; default 5); the goal is at most 0.5x.
#
#   bench/bwrap-personality.sh [CORRAL] [RUNS]
# Environment: BWRAP (default /usr/bin/bwrap), CR_BWRAP (the personality's own executable, when
# it has one; default: a copy of CORRAL named `bwrap`), BEFORE (another corral, e.g. an older
# build, run as `bwrap` in the same runs: a before/after in one run), MODES (default
# "compat hardened"), INTERLEAVED (a number of runs: then also a run that alternates the commands
# run by run, each spawned directly, and gives each one's median ratio to the bwrap run next to
# it: on a loaded host, steadier than hyperfine's one command after the other), POOL (default 1:
# also the personality through a running `corral pool`, started for the bench with its own
# XDG_RUNTIME_DIR and taught the policy of each mode: hyperfine runs of bwrap and the pooled door
# per mode, and pooled subjects in the interleaved run; 0: cold only). The cold subjects get a
# runtime directory with no pool: corral's default (auto) with no pool running.
set -euo pipefail
corral=$(realpath "${1:-build/corral}")
runs=${2:-300}
rounds=${ROUNDS:-5}
bwrap=${BWRAP:-/usr/bin/bwrap}
command -v hyperfine >/dev/null || { echo "bench: install hyperfine (apt-get install hyperfine)" >&2; exit 1; }
[ -x "$bwrap" ] || { echo "bench: no bwrap at $bwrap (apt-get install bubblewrap, or set BWRAP)" >&2; exit 1; }
top=$(mktemp -d)
pool=${POOL:-1}
trap '[ "$pool" = 0 ] || XDG_RUNTIME_DIR=$top/run "$corral" pool stop >/dev/null 2>&1; rm -rf "$top"' EXIT
chmod 0755 "$top"
# The caller's descriptors above 2 would be passed on to the sandbox (bwrap's semantics) and keep
# a pooled run cold: a client such as srt passes 0, 1 and 2 only.
for fd in "/proc/$$/fd/"*; do
	fd=${fd##*/}
	[ "$fd" -le 2 ] || eval "exec $fd>&-" 2>/dev/null || true
done
mkdir -m 0700 "$top/run" "$top/nopool"
export XDG_RUNTIME_DIR=$top/nopool
mkdir -p "$top/ws" "$top/home/.ssh" "$top/door"
cp "${CR_BWRAP:-$corral}" "$top/door/bwrap"
cd "$top/ws"

# srt's typical argv, as the issue gives it (tests/clients/recorded-argv.md has srt's whole one).
args="--ro-bind / / --bind $top/ws $top/ws --tmpfs $top/home/.ssh --dev /dev --proc /proc"
args+=" --unshare-net --unshare-pid --unshare-user --new-session --die-with-parent -- /bin/true"
export HOME=$top/home
before=()
if [ -n "${BEFORE:-}" ]; then
	mkdir -p "$top/before"
	cp "$BEFORE" "$top/before/bwrap"
	before=("$top/before/bwrap $args")
fi
# hyperfine runs one command's runs after the other's: on a shared, loaded host the load drifts
# between them. So ROUNDS short hyperfine runs, each with the commands in another order (a
# rotation: none is always first or last), and the ratio is the median of each round's.
modes=${MODES:-compat hardened}
cmds=("$bwrap $args" ${before[@]+"${before[@]}"} "$top/door/bwrap $args" "$corral bwrap $args")
for ((r = 0; r < rounds; r++)); do
	order=()
	for ((i = 0; i < ${#cmds[@]}; i++)); do
		order+=("${cmds[(i + r) % ${#cmds[@]}]}")
	done
	for mode in $modes; do
		CORRAL_BWRAP_MODE=$mode hyperfine -N --warmup 10 --runs "$((runs / rounds))" \
			--export-json "$top/out.$mode.$r.json" "${order[@]}" >/dev/null
	done
done
if [ "$pool" != 0 ]; then
	XDG_RUNTIME_DIR=$top/run "$corral" pool start --size 32 >/dev/null
	pmodes=
	for mode in $modes; do # one cold run teaches the pool each mode's policy
		# shellcheck disable=SC2086 # the options, split as the commands above are
		CORRAL_BWRAP_MODE=$mode XDG_RUNTIME_DIR=$top/run "$top/door/bwrap" $args
		sleep 3
		# compat as root keeps the caller's capabilities, as bwrap does: never pooled
		# shellcheck disable=SC2086 # likewise
		why=$(CORRAL_BWRAP_VERBOSE=1 CORRAL_BWRAP_MODE=$mode XDG_RUNTIME_DIR=$top/run \
			"$top/door/bwrap" $args 2>&1)
		if [[ $why == *"ran in a pool's sandbox"* ]]; then
			pmodes+=" $mode"
		else
			echo "pooled-$mode: not served by the pool (${why#bwrap: })"
		fi
	done
	# hyperfine runs the same command back to back, faster than the pool rebuilds: each round
	# takes fewer runs than the pool holds, and waits for the pool to restock.
	pcmds=("$bwrap $args" "$top/door/bwrap $args")
	for ((r = 0; r < rounds; r++)); do
		for mode in $pmodes; do
			sleep 2
			CORRAL_BWRAP_MODE=$mode XDG_RUNTIME_DIR=$top/run hyperfine -N --warmup 2 --runs 24 \
				--export-json "$top/out.pooled-$mode.$r.json" \
				"${pcmds[@]:r % 2:1}" "${pcmds[@]:(r + 1) % 2:1}" >/dev/null
		done
	done
	modes_out=$modes
	for mode in $pmodes; do modes_out+=" pooled-$mode"; done
else
	modes_out=$modes
fi
for mode in $modes_out; do
	python3 - "$mode" "$bwrap" "$top"/out."$mode".*.json <<'PY'
import json, statistics, sys
rounds = [{r["command"]: r for r in json.load(open(f))["results"]} for f in sys.argv[3:]]
bwrap = next(c for c in rounds[0] if c.startswith(sys.argv[2] + " "))
print(f"{sys.argv[1]}: median wall time per run, {len(rounds)} rounds "
      "(goal for the personality: at most 0.50x bwrap):")
for cmd in sorted(rounds[0], key=lambda c: c != bwrap):
    name = "/".join(cmd.split(" ")[0].split("/")[-2:])
    meds = [rd[cmd]["median"] for rd in rounds]
    ratios = [rd[cmd]["median"] / rd[bwrap]["median"] for rd in rounds]
    print(f'  {statistics.median(meds)*1e3:7.3f} ms  {statistics.median(ratios):5.2f}x bwrap '
          f'(rounds: {" ".join(f"{x:.2f}" for x in ratios)})  {name}')
PY
done
[ "$pool" = 0 ] || echo "pool: $(XDG_RUNTIME_DIR=$top/run "$corral" pool status | grep -o '"served":[0-9]*,"missed":[0-9]*' | head -n 1)"
[ -n "${INTERLEAVED:-}" ] || exit 0
python3 - "$INTERLEAVED" "$modes" "$bwrap" "$top" "$corral" "${pmodes:-}" ${BEFORE:+"$top/before/bwrap"} "$top/door/bwrap" -- $args <<'PY'
import os, statistics, sys, time
n, modes, bwrap, top, corral = int(sys.argv[1]), sys.argv[2].split(), sys.argv[3], sys.argv[4], sys.argv[5]
pooled = sys.argv[6].split()
sep = sys.argv.index("--")
doors, args = sys.argv[7:sep], sys.argv[sep + 1:]
subjects = [("bwrap", None, [bwrap] + args)]
for mode in modes:
    subjects += [(f"{mode} {'/'.join(d.split('/')[-2:])}", mode, [d] + args) for d in doors]
    subjects.append((f"{mode} corral bwrap", mode, [corral, "bwrap"] + args))
    if mode in pooled:  # one run a round: the pool restocks while the other subjects run
        subjects.append((f"{mode} pooled door/bwrap", mode, [doors[-1]] + args))
times = {s[0]: [] for s in subjects}
for i in range(n + 10):
    for name, mode, argv in subjects if i % 2 else subjects[::-1]:
        env = dict(os.environ, CORRAL_BWRAP_MODE=mode) if mode else dict(os.environ)
        if name.endswith("pooled door/bwrap"):
            env["XDG_RUNTIME_DIR"] = top + "/run"
        t = time.perf_counter_ns()
        _, st = os.waitpid(os.posix_spawn(argv[0], argv, env), 0)
        if st:
            sys.exit(f"bench: {name} failed ({st})")
        if i >= 10:
            times[name].append((time.perf_counter_ns() - t) / 1e6)
print(f"interleaved: {n} runs of each, alternating run by run (goal: at most 0.50x bwrap):")
for name, _, _ in subjects:
    ratio = statistics.median(a / b for a, b in zip(times[name], times["bwrap"]))
    print(f"  {statistics.median(times[name]):7.3f} ms  {ratio:5.2f}x bwrap (median of run-by-run ratios)  {name}")
PY
