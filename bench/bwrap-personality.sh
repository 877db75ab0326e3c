#!/usr/bin/env bash
# The speed check of corral's bwrap personality (issue 20): srt's typical bwrap command line run
# by /usr/bin/bwrap and by the personality, both ways it is reached (an executable named `bwrap`
# and `corral bwrap`), in ONE hyperfine run (-N, no shell) so that all share the machine's state.
# Prints hyperfine's table and each median as a ratio of bwrap's; the goal is at most 0.5x.
#
#   bench/bwrap-personality.sh [CORRAL] [RUNS]
# Environment: BWRAP (default /usr/bin/bwrap), CR_BWRAP (the personality's own executable, when
# it has one; default: a copy of CORRAL named `bwrap`).
set -euo pipefail
corral=$(realpath "${1:-build/corral}")
runs=${2:-300}
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
hyperfine -N --warmup 20 --runs "$runs" --export-json "$top/out.json" \
	"$bwrap $args" "$top/door/bwrap $args" "$corral bwrap $args"
python3 - "$top/out.json" "$bwrap" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
ref = next(r for r in res if r["command"].startswith(sys.argv[2] + " "))["median"]
print("\nmedian wall time per run (goal for the personality: at most 0.50x bwrap):")
for r in res:
    print(f'  {r["median"]*1e3:7.3f} ms  {r["median"]/ref:5.2f}x bwrap  {r["command"].split(" ")[0]}')
PY
