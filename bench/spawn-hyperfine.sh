#!/usr/bin/env bash
# Whole-process spawn overhead of `corral run -- /bin/true` against the bare command and, when
# installed, bubblewrap with comparable isolation, and corral-floor (the kernel's share: corral's
# namespaces and nothing else; bench/README.md), measured in one hyperfine run so the numbers
# share the machine's state. Prints hyperfine's table and a median summary.
#
#   bench/spawn-hyperfine.sh [CORRAL] [RUNS]
set -euo pipefail
corral=${1:-build/corral}
runs=${2:-500}
command -v hyperfine >/dev/null || { echo "bench: install hyperfine (apt-get install hyperfine)" >&2; exit 1; }
corral=$(realpath "$corral")
ws=$(mktemp -d)
out=$(mktemp)
trap 'rm -rf "$ws" "$out"' EXIT
[ "$(id -u)" -ne 0 ] || chown 65534:65534 "$ws"
cd "$ws"

cmds=("$corral run -- /bin/true" "/bin/true")
floor=$(dirname "$corral")/bench/corral-floor
[ -x "$floor" ] || floor=$(dirname "$corral")/corral-floor
[ ! -x "$floor" ] || cmds+=("$floor /bin/true")
if command -v bwrap >/dev/null; then
	cmds+=("bwrap --unshare-all --ro-bind / / --dev /dev --proc /proc /bin/true")
fi
hyperfine -N --warmup 50 --runs "$runs" --export-json "$out" "${cmds[@]}"
python3 - "$out" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
base = next(r for r in res if r["command"] == "/bin/true")["median"]
bwrap = next((r["median"] for r in res if r["command"].startswith("bwrap ")), None)
print("\nmedian wall time per spawn:")
for r in res:
    vs = f', {r["median"]/bwrap:4.2f}x bwrap' if bwrap else ""
    print(f'  {r["median"]*1e3:7.3f} ms  ({r["median"]/base:5.1f}x /bin/true{vs})  {r["command"]}')
PY
