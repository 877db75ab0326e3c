#!/bin/bash
# landlock: the Landlock ruleset behind the mount plan. A path bound into the sandbox but left out
# of the ruleset (corral-test-hooks with CORRAL_TEST_LANDLOCK_OMIT) is refused by Landlock alone
# (EACCES) while the workspace works; --landlock=off, and corral without hooks, show that the
# mount itself allows it. Abstract unix sockets of the host are out of reach even with --net=host
# (scoping); --tcp-connect/--tcp-bind restrict TCP to their ports; what the command legitimately
# does (reopen /dev/stderr, rename across directories, run programs from the workspace, write
# /proc/self/comm, signal pid 1) still works; the JSON status and the options. Signal scoping
# needs degraded mode to be seen (degraded.sh): inside the pid namespace no process outside the
# Landlock domain exists to be signalled.
# check and check_sb take their condition as a string for eval, in single quotes:
# shellcheck disable=SC2016
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

EACCES=13 EPERM=1 EROFS=30
cp "$CR_LAUNCHER_HOOKS" "$BIN/corral-test-hooks"
chmod a+rx "$BIN/corral-test-hooks"
HOOKS=$BIN/corral-test-hooks
HOST_PIDS=()
OUTSIDE_TMP=$(mktemp -d /var/tmp/corral-landlock.XXXXXX)
chmod 0755 "$OUTSIDE_TMP"
ll_cleanup() {
	local p
	for p in "${HOST_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$OUTSIDE_TMP"
}
CR_CLEANUP_HOOK="${CR_CLEANUP_HOOK:+$CR_CLEANUP_HOOK; }ll_cleanup"

ABI=$("$CORRAL" doctor --json 2>/dev/null | python3 -c '
import json, sys
print(next(c["value"] for c in json.load(sys.stdin)["checks"] if c["name"] == "landlock"))' 2>/dev/null)
diag "this kernel's Landlock ABI: ${ABI:-unknown}"
if [ -z "$ABI" ] || [ "$ABI" = 0 ]; then
	skip "landlock suite" "corral doctor: Landlock is not available in this kernel"
	exit 0
fi

# jq-free JSON checks: json FILE PYTHON-EXPRESSION on d (the status); prints what it evaluates.
json() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@" 2>&1; }

# hsb MODE WS [OPTS] -- CMD...: like sb, with corral-test-hooks in place of corral.
hsb() {
	local mode=$1 ws=$2
	shift 2
	OUT=$(cd "$ws" && as "$mode" "$HOOKS" run --workspace "$ws" --ro "$BIN" --grant once "$@" 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
}

for mode in $MODES; do
	ws=$(mkws "$mode")

	# --- a bound path outside the ruleset -------------------------------------------------
	# Not under /tmp: Landlock rules reach down across mount points, so a bind inside the
	# sandbox's own /tmp (or private home) has their rights whatever its own rule says.
	rw=$OUTSIDE_TMP/rw-$mode ro=$OUTSIDE_TMP/ro-$mode
	mkdir -p "$rw" "$ro"
	echo data >"$ro/data"
	give "$mode" "$rw" "$ro"
	script='"$0" write "$1/made"; echo rw=$?
		"$0" read "$2/data" >/dev/null; echo ro=$?
		"$0" write "$3/ok"; echo ctl=$?'
	CORRAL_TEST_LANDLOCK_OMIT=$rw hsb "$mode" "$ws" --rw "$rw" --ro "$ro" -- sh -c "$script" "$PROBE" "$rw" "$ro" "$ws"
	fact host_clean test ! -e "$rw/made"
	fact warned grep -q "test hook: the Landlock rule for $rw is left out" <<<"$ERR"
	res "$mode: a --rw path bound writable but left out of the ruleset: the write is refused by Landlock (EACCES) while the workspace write works" \
		rw=$EACCES ro=0 ctl=0 host_clean=1 warned=1 RC=0
	CORRAL_TEST_LANDLOCK_OMIT=$ro hsb "$mode" "$ws" --rw "$rw" --ro "$ro" -- sh -c "$script" "$PROBE" "$rw" "$ro" "$ws"
	res "$mode: a --ro path bound but left out of the ruleset: reading it is refused (EACCES) while the rest works" \
		rw=0 ro=$EACCES ctl=0 RC=0
	rm -f "$rw/made"
	CORRAL_TEST_LANDLOCK_OMIT=$rw hsb "$mode" "$ws" --landlock=off --rw "$rw" --ro "$ro" -- sh -c "$script" "$PROBE" "$rw" "$ro" "$ws"
	fact host_made test -e "$rw/made"
	res "$mode: positive control: with --landlock=off the same mount lets the write through (so the EACCES was Landlock's)" \
		rw=0 ro=0 ctl=0 host_made=1 RC=0
	rm -f "$rw/made"
	OUT=$(cd "$ws" && CORRAL_TEST_LANDLOCK_OMIT=$rw as "$mode" "$CORRAL" run --workspace "$ws" --ro "$BIN" --grant once --rw "$rw" --ro "$ro" -- sh -c "$script" "$PROBE" "$rw" "$ro" "$ws" 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
	fact quiet test -z "$ERR"
	res "$mode: corral itself has no such hook: CORRAL_TEST_LANDLOCK_OMIT changes nothing, says nothing" \
		rw=0 ro=0 ctl=0 quiet=1 RC=0

	# --- what commands do, under Landlock --------------------------------------------------
	outside=$CR_TMP/outside-$mode
	mkdir -p "$outside"
	echo secret >"$outside/file"
	: >"$outside/log"
	give "$mode" "$outside"
	(cd "$ws" && as "$mode" "$CORRAL" run --workspace "$ws" --ro "$BIN" --grant once --keep-fd 5 -- sh -c '
		ls / >/dev/null; echo ls_root=$?
		printf "#!/bin/sh\necho ran\n" >"$1/tool.sh" && chmod +x "$1/tool.sh"; echo exec=$("$1/tool.sh")
		mkdir "$1/d1" "$1/d2" && "$0" write "$1/d1/a" && ln "$1/d1/a" "$1/d2/a"; echo refer=$?
		mkfifo /tmp/fifo; echo fifo=$?
		"$0" write /tmp/t && : >/tmp/t; echo truncate=$?
		"$0" write /proc/self/comm; echo comm=$?
		"$0" write /dev/null; echo null=$?
		"$0" write /dev/shm/x; echo shm=$?
		kill -0 1; echo pid1=$?
		sleep 5 & kill $!; echo sibling=$?
		"$0" read /proc/self/fd/5 >/dev/null; echo fd_read=$?
		"$0" write /proc/self/fd/5; echo fd_write=$?
		"$0" read "$2/file"; echo outside=$?
		echo to-stderr >/dev/stderr; echo stderr=$?' "$PROBE" "$ws" "$outside" \
		5<"$outside/file" >"$CR_TMP/stdout" 2>"$outside/log")
	RC=$?
	OUT=$(<"$CR_TMP/stdout")
	ERR=$(<"$outside/log")
	fact stderr_file grep -qx to-stderr "$outside/log"
	fact unchanged grep -qx secret "$outside/file"
	res "$mode: under Landlock / lists, a script made in the workspace runs, a hard link into another directory (refer), fifos, truncation, /proc/self/comm, /dev/null, /dev/shm and signals to pid 1 (same domain) work" \
		ls_root=0 exec=ran refer=0 fifo=0 truncate=0 comm=0 null=0 shm=0 pid1=0 sibling=0 RC=0
	res "$mode: /dev/stderr reopens stderr, a file outside the sandbox; a --keep-fd opened read-only reopens read-only (EACCES for writing); nothing else of the host is reachable" \
		stderr=0 stderr_file=1 fd_read=0 fd_write=$EACCES unchanged=1 outside=2 RC=0

	# --- abstract unix sockets: scoped, even with the host's network ----------------------
	name=corral-ll-$$-$RANDOM-$mode
	as_bg "$mode" "$PEER" listen-abstract "$name" "$ws/abstract.ready"
	wait_for test -s "$ws/abstract.ready"
	check "$mode: positive control: the host's abstract socket @$name accepts a connection from the host" \
		"$PEER" connect-abstract "$name"
	if [ "$ABI" -ge 6 ]; then
		sb "$mode" "$ws" --net=host -- sh -c '
			"$0" connect-abstract "$1"; echo host=$?
			"$0" listen-abstract "$1-in" "$2/in.ready" & l=$!
			i=0; while [ ! -s "$2/in.ready" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
			"$0" connect-abstract "$1-in"; echo inside=$?
			kill $l' "$PEER" "$name" "$ws"
		res "$mode: --net=host: the host's abstract socket is refused by Landlock scoping (EPERM) while one made inside accepts" \
			host=$EPERM inside=0 RC=0
		sb "$mode" "$ws" --net=host --landlock=off -- sh -c '"$0" connect-abstract "$1"; echo host=$?' "$PEER" "$name"
		res "$mode: positive control: with --landlock=off the same connection works" host=0 RC=0
	else
		skip "$mode: --net=host: the host's abstract socket is refused by Landlock scoping" "Landlock ABI $ABI < 6"
	fi

	# --- TCP ports ---------------------------------------------------------------------------
	if [ "$ABI" -ge 4 ]; then
		as_bg "$mode" "$PEER" listen-tcp 0 "$ws/port-a"
		as_bg "$mode" "$PEER" listen-tcp 0 "$ws/port-b"
		wait_for test -s "$ws/port-a" && wait_for test -s "$ws/port-b"
		pa=$(<"$ws/port-a") pb=$(<"$ws/port-b")
		free=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		sb "$mode" "$ws" --net=host --tcp-connect "$pa" --tcp-bind "$free" --json-status "$ws/tcp.json" -- sh -c '
			"$0" connect-tcp 127.0.0.1 "$1"; echo allowed=$?
			"$0" connect-tcp 127.0.0.1 "$2"; echo other=$?
			timeout 1 "$0" listen-tcp "$3" "$4/l.ready"; [ -s "$4/l.ready" ]; echo bind=$?
			timeout 1 "$0" listen-tcp 0 "$4/l0.ready"; echo bind0=$?' "$PEER" "$pa" "$pb" "$free" "$ws"
		res "$mode: --tcp-connect $pa --tcp-bind $free: connecting to $pa and binding $free work; port $pb and binding another port are refused (EACCES)" \
			allowed=0 other=$EACCES bind=0 bind0=$EACCES RC=0
		OUT="connect=$(json "$ws/tcp.json" 'd["enforced"]["landlock"]["tcp_connect"]')
bind=$(json "$ws/tcp.json" 'd["enforced"]["landlock"]["tcp_bind"]')"
		res "$mode: the JSON status lists the ports" "connect=['$pa']" "bind=['$free']"
		sb "$mode" "$ws" --net=host --tcp-connect "$pa" -- sh -c '"$0" connect-tcp 127.0.0.1 "$1"; echo pb=$?' "$PEER" "$pb"
		restricted=$OUT
		sb "$mode" "$ws" --net=host -- sh -c '"$0" connect-tcp 127.0.0.1 "$1"; echo pb=$?' "$PEER" "$pb"
		OUT="restricted_$restricted"$'\n'"$OUT"
		res "$mode: positive control: without --tcp-connect TCP is not restricted (port $pb connects; with --tcp-connect $pa it does not)" \
			restricted_pb=$EACCES pb=0 RC=0
	else
		skip "$mode: --tcp-connect/--tcp-bind restrict TCP ports" "Landlock ABI $ABI < 4"
	fi
	sb "$mode" "$ws" --tcp-connect 443 -- true
	fact one_warning eval '[ "$(wc -l <<<"$ERR")" = 1 ] && grep -q "unnecessary with --net=none" <<<"$ERR"'
	res "$mode: --tcp-connect with --net=none runs, with one warning that it is unnecessary" one_warning=1 RC=0

	# --- the JSON status and the modes ----------------------------------------------------------
	sb "$mode" "$ws" --json-status "$ws/ll.json" -- true
	OUT="mode=$(json "$ws/ll.json" 'd["enforced"]["landlock"]["mode"]')
abi=$(json "$ws/ll.json" 'd["enforced"]["landlock"]["abi"]')
applied=$(json "$ws/ll.json" 'd["enforced"]["landlock"]["applied"]')
handled=$(json "$ws/ll.json" 'len(d["enforced"]["landlock"]["handled"])')
scoped=$(json "$ws/ll.json" '",".join(d["enforced"]["landlock"]["scoped"])')
tcp=$(json "$ws/ll.json" '(d["enforced"]["landlock"]["tcp_connect"], d["enforced"]["landlock"]["tcp_bind"])')
keys=$(json "$ws/ll.json" '",".join(d["enforced"]["landlock"])')
degraded=$(json "$ws/ll.json" '(d["degraded"], d["enforced"]["degraded"], d["enforced"]["missing_layers"])')"
	want_handled=13 want_scoped=
	[ "$ABI" -lt 2 ] || want_handled=14
	[ "$ABI" -lt 3 ] || want_handled=15
	[ "$ABI" -lt 5 ] || want_handled=16
	[ "$ABI" -lt 6 ] || want_scoped=scope.abstract_unix_socket,scope.signal
	res "$mode: enforced.landlock: best-effort, ABI $ABI, applied, every filesystem right this ABI has, both scopes, TCP unrestricted; not degraded" \
		mode=best-effort "abi=$ABI" applied=True "handled=$want_handled" "scoped=$want_scoped" "tcp=(None, None)" \
		keys=mode,abi,applied,handled,scoped,log_flags,dropped,tcp_connect,tcp_bind "degraded=(False, False, [])" RC=0
	sb "$mode" "$ws" --landlock=off --json-status "$ws/off.json" -- "$PROBE" write /proc/self/comm
	OUT="ll=$(json "$ws/off.json" '(d["enforced"]["landlock"]["mode"], d["enforced"]["landlock"]["applied"], d["enforced"]["landlock"]["handled"], d["enforced"]["landlock"]["dropped"])')"
	fact quiet test -z "$ERR"
	res "$mode: --landlock=off: reported as off, not applied, nothing dropped, no warning" \
		"ll=('off', False, [], [])" quiet=1 RC=0
	if [ "$ABI" -ge 6 ]; then
		sb "$mode" "$ws" --landlock=required --landlock-min-abi "$ABI" -- true
		fact quiet test -z "$ERR"
		res "$mode: --landlock=required --landlock-min-abi $ABI run on this kernel (ABI $ABI), silently" quiet=1 RC=0
	else
		sb "$mode" "$ws" --landlock=required -- true
		fact says eval 'grep -q -- "--landlock=required: this kernel.s Landlock ABI $ABI lacks" <<<"$ERR"'
		res "$mode: --landlock=required refuses on this kernel (ABI $ABI)" says=1 RC=125
	fi
	# The ruleset is built before the command's rlimits: a tight --open-files still runs.
	sb "$mode" "$ws" --open-files 4 -- /usr/bin/true
	res "$mode: --open-files 4 leaves Landlock room to build its ruleset: /usr/bin/true runs" RC=0
	sb "$mode" "$ws" -v -- true
	fact timed grep -Eq "^corral: debug: landlock: ABI $ABI ruleset of [0-9]+ path rules and 0 port rules built and enforced in [0-9]+ us$" <<<"$ERR"
	# After no_new_privs; nothing after it but the command's rlimits.
	fact order eval '[ "$(sed -n "s/^corral: debug: sandbox setup: //p" <<<"$ERR" | tail -n 3 | tr "\n" " ")" = "no_new_privs landlock limits " ]'
	res "$mode: -v: landlock comes right after no_new_privs, followed only by the rlimits, and says how long building and enforcing took" timed=1 order=1 RC=0
done

# --- options ----------------------------------------------------------------------------------
ws=$(mkws user)
bad() {
	local want=$1
	shift
	sb user "$ws" "$@" -- true
	if [ "$RC" = 125 ] && [ "$(wc -l <<<"$ERR")" = 1 ] && [[ $ERR == *"$want"* ]]; then
		ok "option error: $* -> 125, \"$want\""
	else
		not_ok "option error: $* -> 125, \"$want\""
		diag "exit $RC: $ERR"
	fi
}
bad "--landlock: unknown mode 'strict' (expected best-effort, required or off)" --landlock=strict
bad "--landlock-min-abi: '8' is not a Landlock ABI version this corral knows (1-7)" --landlock-min-abi 8
bad "--landlock-min-abi: '0' is not a Landlock ABI version" --landlock-min-abi 0
bad "--tcp-connect: '0' is not a list of ports (1-65535)" --tcp-connect 0
bad "--tcp-connect: '70000' is not a list of ports" --tcp-connect 70000
bad "--tcp-connect: '90-80' is not a list of ports" --tcp-connect 90-80
bad "--tcp-connect: '80,' is not a list of ports" --tcp-connect 80,
bad "--tcp-bind: 'http' is not a list of ports (0-65535)" --tcp-bind http
bad "--tcp-connect needs Landlock: it cannot be combined with --landlock=off" --landlock=off --tcp-connect 443
bad "--landlock-min-abi needs Landlock" --landlock-min-abi 1 --landlock=off
bad "--allow-degraded needs Landlock: it cannot be combined with --landlock=off (corral never runs a command with neither namespaces nor Landlock)" \
	--landlock=off --allow-degraded
OUT=$("$CORRAL" run --help)
check "corral run --help documents --landlock, --landlock-min-abi, --tcp-connect, --tcp-bind and --allow-degraded" \
	eval '[[ $OUT == *--landlock=MODE* && $OUT == *--landlock-min-abi* && $OUT == *--tcp-connect* && $OUT == *--tcp-bind* && $OUT == *--allow-degraded* ]]'
OUT=$("$CORRAL" doctor 2>&1)
check "corral doctor: the landlock check names the ABI and says what corral enforces" \
	eval 'grep -A1 -E "^(ok|degraded) +landlock +$ABI\$" <<<"$OUT" | grep -q "Landlock ABI $ABI: corral run enforces"'
true
