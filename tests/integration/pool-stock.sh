#!/bin/bash
# pool-stock: the stock of `corral pool` (docs/pool.md): --size and pool.conf's size, their bad
# values refused with a clear error, the option over the file; `pool status` valid JSON whatever
# its paths hold and however long; as root and as an unprivileged user.
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"
# shellcheck source=tests/integration/pool-lib.sh
source "$CR_TESTS_DIR/integration/pool-lib.sh"

POOL_PIDS=()
CR_CLEANUP_HOOK='for p in "${POOL_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done'

# The mode's configuration directory (lib.sh's XDG_CONFIG_HOME for it).
confdir() {
	if [ "$1" = user ] && [ "$(id -u)" -eq 0 ]; then
		echo "$CR_TMP/config-65534/corral"
	else
		echo "$XDG_CONFIG_HOME/corral"
	fi
}

# start MODE ARGS...: corral pool start ARGS; $RC, $ERR, and the pool's "size" in $SIZE.
start() {
	local mode=$1 st pid
	shift
	SIZE=
	pool_env "$mode" "$CORRAL" pool start "$@" >/dev/null 2>"$CR_TMP/err"
	RC=$?
	ERR=$(<"$CR_TMP/err")
	[ "$RC" = 0 ] || return 0
	st=$(pool_env "$mode" "$CORRAL" pool status 2>/dev/null)
	pid=$(sed -n 's/^{"pid":\([0-9]*\),.*/\1/p' <<<"$st")
	[ -n "$pid" ] && POOL_PIDS+=("$pid")
	SIZE=$(sed -n 's/.*"size":\([0-9]*\),.*/\1/p' <<<"$st")
	pool_env "$mode" "$CORRAL" pool stop 2>/dev/null
	wait_for sh -c "! kill -0 $pid 2>/dev/null"
}

# conf MODE TEXT: pool.conf of MODE says TEXT (empty: no file).
conf() {
	local d
	d=$(confdir "$1")
	mkdir -p "$d"
	rm -f "$d/pool.conf"
	[ -z "$2" ] || printf '%s\n' "$2" >"$d/pool.conf"
	[ "$(id -u)" -ne 0 ] || [ "$1" = root ] || chown -R 65534:65534 "$(dirname "$d")"
}

for m in $MODES; do
	mkdir -p -m 0700 "$(rundir "$m")"
	[ "$(id -u)" -ne 0 ] || [ "$m" = root ] || chown 65534:65534 "$(rundir "$m")"

	# --size: a bad value is refused by name, with its range; nothing starts.
	for bad in 0 33 -1 abc 1x ""; do
		start "$m" --size "$bad"
		is "$m: --size '$bad' is refused: exit 125, the value and the range named" \
			'[ "$RC" = 125 ] && [[ $ERR == *"--size $bad: expected a whole number from 1 to 32"* ]] && [ -z "$SIZE" ]'
	done
	start "$m" --size 3
	is "$m: control: --size 3 starts a pool whose stock is 3" '[ "$RC" = 0 ] && [ "$SIZE" = 3 ]'
	start "$m"
	is "$m: without --size or pool.conf the stock is 8" '[ "$RC" = 0 ] && [ "$SIZE" = 8 ]'

	# pool.conf: its size is the stock; the option wins; a bad file is refused, line named.
	conf "$m" $'# the pool\n[pool]\nsize = 5'
	start "$m"
	is "$m: pool.conf's size = 5 is the stock" '[ "$RC" = 0 ] && [ "$SIZE" = 5 ]'
	start "$m" --size 2
	is "$m: --size 2 wins over pool.conf's" '[ "$RC" = 0 ] && [ "$SIZE" = 2 ]'
	conf "$m" $'[pool]\nsize = 40'
	start "$m"
	is "$m: pool.conf's size = 40 is refused: exit 125, the file, line and range named" \
		'[ "$RC" = 125 ] && [[ $ERR == *"pool.conf:2: size = 40: expected a whole number from 1 to 32"* ]] && [ -z "$SIZE" ]'
	conf "$m" $'[pool]\nstock = 4'
	start "$m"
	is "$m: pool.conf's unknown key is refused, not skipped" \
		'[ "$RC" = 125 ] && [[ $ERR == *"pool.conf:2: unknown key '"'stock'"'"* ]]'
	conf "$m" $'[pools]\nsize = 4'
	start "$m"
	is "$m: pool.conf's unknown section is refused" '[ "$RC" = 125 ] && [[ $ERR == *"pool.conf:1:"* ]]'
	conf "$m" ""
done

# pool status is JSON whatever the paths hold: a socket path with `"`, `\` and a control
# character, and four long workspaces (the most policies a pool keeps; one with `"` and `\`, as a
# workspace cannot hold a control character) whose status passes 4096 bytes, parse with jq and
# read back as they are; the control, plain paths, first.
command -v jq >/dev/null || { skip "pool status parses" "jq is not installed"; exit 0; }

# learn MODE RUNDIR WS: one run (cold) that teaches the pool of RUNDIR the policy of WS.
learn() {
	(cd "$3" && as "$1" env XDG_RUNTIME_DIR="$2" "$CORRAL" run --workspace "$3" --ro "$BIN" \
		--grant once -- true >/dev/null 2>&1)
}

# status_of MODE RUNDIR: the pool's status in $OUT, jq's reading of its workspaces in $WS_SEEN.
status_of() {
	OUT=$(as "$1" env XDG_RUNTIME_DIR="$2" "$CORRAL" pool status 2>"$CR_TMP/err")
	RC=$?
	ERR=$(<"$CR_TMP/err")
	WS_SEEN=$(jq -j '.policies[].workspace + "\u0000"' <<<"$OUT" 2>/dev/null | tr '\0' '|')
}

# status_pool MODE RUNDIR: start a pool of stock 1 there; its pid in POOL_PIDS.
status_pool() {
	mkdir -p -m 0700 "$2"
	[ "$(id -u)" -ne 0 ] || [ "$1" = root ] || chown 65534:65534 "$2"
	as "$1" env XDG_RUNTIME_DIR="$2" "$CORRAL" pool start --size 1 >/dev/null 2>&1
	pid=$(as "$1" env XDG_RUNTIME_DIR="$2" "$CORRAL" pool status 2>/dev/null |
		sed -n 's/^{"pid":\([0-9]*\),.*/\1/p')
	[ -n "$pid" ] && POOL_PIDS+=("$pid")
}

for m in $MODES; do
	run=$CR_TMP/st-$m
	status_pool "$m" "$run"
	ws=$(mkws "$m")
	learn "$m" "$run" "$ws"
	status_of "$m" "$run"
	is "$m: control: pool status of plain paths parses and shows the workspace" \
		'[ "$RC" = 0 ] && [ "$(jq -r .socket <<<"$OUT")" = "$run/corral/pool.sock" ] && [ "$WS_SEEN" = "$ws|" ]'
	as "$m" env XDG_RUNTIME_DIR="$run" "$CORRAL" pool stop 2>/dev/null

	run=$CR_TMP/st-$m-$'r"t\\\x01'
	status_pool "$m" "$run"
	base=$(mkws "$m")
	long=$base$(printf '/%0250d' 1 2 3 4)
	want=
	for name in 'q"b\n' l1 l2 l3; do
		w=$long/$name
		mkdir -p "$w"
		[ "$(id -u)" -ne 0 ] || chown -R "$(host_uid "$m"):$(host_gid "$m")" "$base"
		learn "$m" "$run" "$w"
		want+=$w'|'
	done
	status_of "$m" "$run"
	is "$m: pool status of a socket with \", \\ and a control character, workspaces with \" and \\, over 4096 bytes, parses" \
		'[ "$RC" = 0 ] && [ "${#OUT}" -gt 4096 ] && [ "$(jq -r .socket <<<"$OUT")" = "$run/corral/pool.sock" ]'
	is "$m: pool status names each workspace as it is" '[ "$WS_SEEN" = "$want" ]'
	as "$m" env XDG_RUNTIME_DIR="$run" "$CORRAL" pool stop 2>/dev/null
done
