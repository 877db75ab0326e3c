# shellcheck shell=bash
# What the pool suites (pool, pool-direct, pool-trust, pool-stock) share: each mode's pool in a runtime
# directory of its own under the suite's temporary directory, corral run through it, and what
# its status and a run's JSON status say. Sourced after lib.sh; $CR_OUT is the mode's output
# directory.

# The runtime directory of MODE's pool (its socket is corral/pool.sock in it).
rundir() {
	echo "$CR_TMP/run-$1"
}

# pool_env MODE CMD...: CMD as MODE with that mode's XDG_RUNTIME_DIR.
pool_env() {
	local mode=$1
	shift
	as "$mode" env XDG_RUNTIME_DIR="$(rundir "$mode")" "$@"
}

# prun MODE WS STATUS [OPTS] -- CMD...: corral run through MODE's pool, stdin /dev/null (a
# terminal there keeps a run cold); $OUT, $ERR, $RC, and the JSON status in the file STATUS.
prun() {
	local mode=$1 ws=$2 st=$3
	shift 3
	OUT=$(cd "$ws" && pool_env "$mode" "$CORRAL" run --workspace "$ws" --ro "$BIN" --grant once \
		--json-status "$st" "$@" </dev/null 2>"$CR_OUT/stderr")
	RC=$?
	ERR=$(<"$CR_OUT/stderr")
}

# ready MODE WS: MODE's pool has a sandbox of WS's policy ready.
ready() {
	pool_env "$1" "$CORRAL" pool status 2>/dev/null |
		grep -q "\"workspace\":\"$2\",\"ready\":[1-9]"
}

# via STATUS HOW: the run of that JSON status went HOW (pool or cold).
via() {
	grep -q "\"via\":\"$2\"" "$1"
}

# start_pool MODE SIZE: MODE's pool started with --size SIZE in its runtime directory; its pid in
# $POOL_PID, also added to POOL_PIDS (the suite's cleanup kills them).
start_pool() {
	local mode=$1 size=$2 st
	mkdir -p -m 0700 "$(rundir "$mode")"
	[ "$(id -u)" -ne 0 ] || [ "$mode" = root ] || chown 65534:65534 "$(rundir "$mode")"
	pool_env "$mode" "$CORRAL" pool start --size "$size" >/dev/null
	st=$(pool_env "$mode" "$CORRAL" pool status 2>/dev/null)
	POOL_PID=$(sed -n 's/^{"pid":\([0-9]*\),.*/\1/p' <<<"$st")
	[ -n "$POOL_PID" ] && POOL_PIDS+=("$POOL_PID")
}
