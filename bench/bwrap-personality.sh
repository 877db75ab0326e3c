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
# it: on a loaded host, steadier than hyperfine's one command after the other).
set -euo pipefail
corral=$(realpath "${1:-build/corral}")
runs=${2:-300}
rounds=${ROUNDS:-5}
bwrap=${BWRAP:-/usr/bin/bwrap}
command -v hyperfine >/dev/null || { echo "bench: install hyperfine (apt-get install hyperfine)" >&2; exit 1; }
[ -x "$bwrap" ] || { echo "bench: no bwrap at $bwrap (apt-get install bubblewrap, or set BWRAP)" >&2; exit 1; }
top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT
chmod 0755 "$top"
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
for mode in $modes; do
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
[ -n "${INTERLEAVED:-}" ] || exit 0
python3 - "$INTERLEAVED" "$modes" "$bwrap" "$top" "$corral" ${BEFORE:+"$top/before/bwrap"} "$top/door/bwrap" -- $args <<'PY'
import os, statistics, sys, time
n, modes, bwrap, top, corral = int(sys.argv[1]), sys.argv[2].split(), sys.argv[3], sys.argv[4], sys.argv[5]
sep = sys.argv.index("--")
doors, args = sys.argv[6:sep], sys.argv[sep + 1:]
subjects = [("bwrap", None, [bwrap] + args)]
for mode in modes:
    subjects += [(f"{mode} {'/'.join(d.split('/')[-2:])}", mode, [d] + args) for d in doors]
    subjects.append((f"{mode} corral bwrap", mode, [corral, "bwrap"] + args))
times = {s[0]: [] for s in subjects}
for i in range(n + 10):
    for name, mode, argv in subjects if i % 2 else subjects[::-1]:
        env = dict(os.environ, CORRAL_BWRAP_MODE=mode) if mode else os.environ
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
