#!/bin/bash
# degraded: --allow-degraded where user namespaces cannot be created, simulated with peer
# deny-userns (a seccomp filter: clone3 fails with ENOSYS, clone/unshare with CLONE_NEWUSER with
# EPERM). The command runs without namespaces, under Landlock on host paths: writes outside the
# workspace, its private TMPDIR and HOME are refused (EACCES) while those work; the host's /tmp is
# neither readable nor writable; signals and abstract unix sockets outside are refused by scoping;
# TCP is refused with --net=none; nothing the command starts outlives it; the private directory is
# removed. The status and stderr say "degraded" and name the missing layers; without the flag,
# corral refuses (exit 125) and says how to fix it or to pass the flag.
# check takes its condition as a string for eval, in single quotes:
# shellcheck disable=SC2016
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

EACCES=13 EPERM=1 ENOENT=2
TAG=crdeg-$$-$RANDOM
HOST_PIDS=()
OUTSIDE_TMP=$(mktemp -d /var/tmp/corral-degraded-test.XXXXXX)
chmod 0755 "$OUTSIDE_TMP"
dg_cleanup() {
	local p
	for p in "${HOST_PIDS[@]}" $(pgrep -f "$TAG"); do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$OUTSIDE_TMP" /tmp/"$TAG"-*
}
CR_CLEANUP_HOOK="${CR_CLEANUP_HOOK:+$CR_CLEANUP_HOOK; }dg_cleanup"

json() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@" 2>&1; }

# dsb MODE WS [OPTS] -- CMD...: corral run --allow-degraded as MODE on a host without user
# namespaces (at most 30 s); stdout in $OUT, stderr in $ERR, status in $RC.
dsb() {
	local mode=$1 ws=$2
	shift 2
	OUT=$(cd "$ws" && as "$mode" timeout -k 5 30 "$PEER" deny-userns -- "$CORRAL" run --grant once --allow-degraded \
		--workspace "$ws" --ro "$BIN" "$@" 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
}

ABI=$("$CORRAL" doctor --json 2>/dev/null | python3 -c '
import json, sys
print(next(c["value"] for c in json.load(sys.stdin)["checks"] if c["name"] == "landlock"))' 2>/dev/null)
"$PEER" deny-userns -- true 2>/dev/null
if [ $? -eq 38 ]; then # ENOSYS
	skip "degraded suite" "peer deny-userns has no seccomp filter for $(uname -m)"
	exit 0
fi
if [ -z "$ABI" ] || [ "$ABI" = 0 ]; then
	skip "degraded suite" "Landlock is not available in this kernel; degraded mode refuses to run without it"
	exit 0
fi

for mode in $MODES; do
	ws=$(mkws "$mode")
	if as "$mode" "$PEER" deny-userns -- unshare --user true 2>&1 | grep -q "Operation not permitted" &&
		as "$mode" unshare --user true 2>/dev/null; then
		ok "$mode: positive control: peer deny-userns makes unshare --user fail with EPERM (it succeeds without)"
	else
		not_ok "$mode: positive control: peer deny-userns makes unshare --user fail with EPERM (it succeeds without)"
	fi

	# --- without the flag: refused, with the way out -----------------------------------------
	OUT=$(cd "$ws" && as "$mode" "$PEER" deny-userns -- "$CORRAL" run --workspace "$ws" -- sh -c "echo ran >$ws/ran" 2>&1)
	RC=$?
	fact ran test -e "$ws/ran"
	fact hint grep -q "or pass --allow-degraded to run under Landlock without them" <<<"$OUT"
	res "$mode: without --allow-degraded: exit 125, nothing runs, and the message offers --allow-degraded" \
		ran=0 hint=1 RC=125

	OUT=$(cd "$ws" && as "$mode" "$PEER" deny-userns -- "$CORRAL" doctor 2>&1)
	fact mentions grep -q "corral run --allow-degraded runs commands under Landlock without namespaces" <<<"$OUT"
	RC=0
	res "$mode: corral doctor there says user namespaces are missing and that --allow-degraded can still run commands" mentions=1

	# --- with user namespaces, --allow-degraded changes nothing ------------------------------
	sb "$mode" "$ws" --allow-degraded --json-status "$ws/ns.json" -- true
	OUT="ns=$(json "$ws/ns.json" '(d["degraded"], len(d["enforced"]["namespaces"]), d["enforced"]["root"])')"
	fact quiet test -z "$ERR"
	res "$mode: positive control: where user namespaces work, --allow-degraded runs the full sandbox, silently" \
		"ns=(False, 7, 'tmpfs+pivot_root')" quiet=1 RC=0

	# --- the filesystem ---------------------------------------------------------------------
	outside=$OUTSIDE_TMP/outside-$mode
	mkdir -p "$outside"
	echo secret >"$outside/data"
	give "$mode" "$outside"
	hosttmp=/tmp/$TAG-$mode
	mkdir -p "$hosttmp"
	echo host >"$hosttmp/data"
	give "$mode" "$hosttmp"
	dsb "$mode" "$ws" --json-status "$ws/dg.json" -- sh -c '
		"$0" write "$1/made"; echo outside_write=$?
		"$0" read "$1/data" >/dev/null; echo outside_read=$?
		"$0" write "$2/made"; echo hosttmp_write=$?
		"$0" read "$2/data" >/dev/null; echo hosttmp_read=$?
		"$0" write "$3/ok"; echo ws=$?
		"$0" write "$TMPDIR/t"; echo tmpdir=$?
		"$0" write "$HOME/h"; echo home=$?
		"$0" read /etc/os-release >/dev/null; echo etc_read=$?
		/usr/bin/true; echo exec=$?
		echo tmpdir_path=$TMPDIR
		echo home_path=$HOME
		echo uid=$(id -u)' "$PROBE" "$outside" "$hosttmp" "$ws"
	tmpdir=$(sed -n 's/^tmpdir_path=//p' <<<"$OUT")
	fact outside_clean test ! -e "$outside/made"
	fact ws_host test -s "$ws/ok"
	fact private_gone eval '[[ $tmpdir == /tmp/corral-degraded.*/tmp ]] && [ ! -e "${tmpdir%/tmp}" ]'
	res "$mode: degraded: a directory of the same user outside the workspace is neither writable nor readable (EACCES), nor is the host's /tmp; the workspace, TMPDIR and HOME are writable" \
		outside_write=$EACCES outside_read=$EACCES hosttmp_write=$EACCES hosttmp_read=$EACCES \
		ws=0 tmpdir=0 home=0 etc_read=0 exec=0 outside_clean=1 ws_host=1 RC=0
	res "$mode: degraded: TMPDIR and HOME are corral's private directory, which is gone after the run; the command runs as host uid $(host_uid "$mode")" \
		private_gone=1 "uid=$(host_uid "$mode")" RC=0
	as "$mode" "$PROBE" write "$outside/made" 2>/dev/null
	OUT="host=$?"
	res "$mode: positive control: the same user writes that directory on the host" host=0
	rm -f "$outside/made"

	# stderr: one line of corral's (the rest is the probe's), naming what is missing.
	fact one_line eval '[ "$(grep -c "^corral:" <<<"$ERR")" = 1 ]'
	fact names grep -q "^corral: warning: degraded mode: user namespaces are unavailable (Operation not permitted); the command runs without namespaces, mount isolation, pid isolation, network isolation, ipc isolation and uts isolation: .*Landlock (ABI $ABI)" <<<"$ERR"
	OUT+=$'\n'"degraded=$(json "$ws/dg.json" '(d["degraded"], d["enforced"]["degraded"])')"
	OUT+=$'\n'"missing=$(json "$ws/dg.json" '",".join(d["enforced"]["missing_layers"])')"
	OUT+=$'\n'"ns=$(json "$ws/dg.json" '(d["enforced"]["namespaces"], d["enforced"]["root"], d["enforced"]["network"])')"
	OUT+=$'\n'"ll=$(json "$ws/dg.json" '(d["enforced"]["landlock"]["applied"], d["enforced"]["landlock"]["tcp_connect"], d["enforced"]["landlock"]["tcp_bind"])')"
	OUT+=$'\n'"private=$(json "$ws/dg.json" '[p.rsplit("/", 1)[1] for p in d["enforced"]["private"]]')"
	OUT+=$'\n'"ids=$(json "$ws/dg.json" '(d["enforced"]["uid_map"]["inside"], d["enforced"]["uid_map"]["outside"])')"
	OUT+=$'\n'"env=$(json "$ws/dg.json" '"TMPDIR" in d["enforced"]["environment"]')"
	if [ "$ABI" -ge 4 ]; then want_tcp="(True, [], [])"; else want_tcp="(True, None, None)"; fi
	uid=$(host_uid "$mode")
	res "$mode: degraded: one warning line names the missing layers; the JSON status says degraded, lists them, and what the command had instead" \
		one_line=1 names=1 "degraded=(True, True)" \
		missing=namespaces,mount_isolation,pid_isolation,network_isolation,ipc_isolation,uts_isolation \
		"ns=([], 'host', 'host')" "ll=$want_tcp" "private=['tmp', 'home']" "ids=($uid, $uid)" env=True

	# --- signals and abstract sockets outside ---------------------------------------------
	if [ "$ABI" -ge 6 ]; then
		as_bg "$mode" "$PEER" wait-signal USR1 "$ws/sig"
		sigpid=$!
		wait_for grep -qx ready "$ws/sig"
		sleep 0.2
		target=$(pgrep -f "wait-signal USR1 $ws/sig" | tail -n 1)
		name=$TAG-abstract-$mode
		as_bg "$mode" "$PEER" listen-abstract "$name" "$ws/abstract.ready"
		wait_for test -s "$ws/abstract.ready"
		dsb "$mode" "$ws" -- sh -c '
			"$0" kill "$1" USR1; echo host_signal=$?
			sleep 5 & "$0" kill $! TERM; echo inside_signal=$?
			"$0" connect-abstract "$2"; echo host_abstract=$?
			"$0" listen-abstract "$2-in" "$3/in.ready" & l=$!
			i=0; while [ ! -s "$3/in.ready" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
			"$0" connect-abstract "$2-in"; echo inside_abstract=$?
			kill $l' "$PEER" "$target" "$name" "$ws"
		fact not_signalled grep -qx ready "$ws/sig"
		as "$mode" "$PEER" kill "$target" 0
		OUT+=$'\n'"host_can_signal=$?"
		as "$mode" "$PEER" connect-abstract "$name"
		OUT+=$'\n'"host_can_connect=$?"
		res "$mode: degraded: a process of the same user outside the sandbox cannot be signalled (EPERM) nor its abstract socket reached (EPERM); inside both work, and on the host both work" \
			host_signal=$EPERM not_signalled=1 inside_signal=0 host_abstract=$EPERM inside_abstract=0 \
			host_can_signal=0 host_can_connect=0 RC=0
		as "$mode" "$PEER" kill "$target" USR1
		wait "$sigpid" 2>/dev/null
	else
		skip "$mode: degraded: signals and abstract sockets outside are refused by scoping" "Landlock ABI $ABI < 6"
	fi

	# --- TCP --------------------------------------------------------------------------------
	as_bg "$mode" "$PEER" listen-tcp 0 "$ws/port"
	wait_for test -s "$ws/port"
	port=$(<"$ws/port")
	dsb "$mode" "$ws" -- "$PEER" connect-tcp 127.0.0.1 "$port"
	none_rc=$RC
	dsb "$mode" "$ws" --net=host -- "$PEER" connect-tcp 127.0.0.1 "$port"
	OUT="none=$none_rc"$'\n'"host=$RC"
	if [ "$ABI" -ge 4 ]; then
		res "$mode: degraded --net=none: TCP to the host's listener on 127.0.0.1:$port is refused by Landlock (EACCES); with --net=host it connects" \
			none=$EACCES host=0
	else
		res "$mode: degraded --net=none: TCP is not restricted (Landlock ABI $ABI < 4); with --net=host it connects" \
			none=0 host=0
	fi

	# --- nothing outlives the command --------------------------------------------------------
	start=$SECONDS
	dsb "$mode" "$ws" -- sh -c '"$0" daemon "$1/daemon.pid" "$2"; echo started=$?' "$PEER" "$ws" "$TAG"
	dpid=$(cat "$ws/daemon.pid" 2>/dev/null)
	fact daemon_gone eval '[ -n "$dpid" ] && ! kill -0 "$dpid" 2>/dev/null'
	fact no_tagged eval '! pgrep -f "$TAG" | grep -qv "^$$\$"'
	res "$mode: degraded: a daemon the command started (double fork, setsid) is killed when the command exits" \
		started=0 daemon_gone=1 RC=0
	t0=$SECONDS
	naps="30.$$$RANDOM"
	dsb "$mode" "$ws" --timeout 1 -- sh -c 'sleep "$0" & exec sleep "$0"1' "$naps"
	OUT="in_time=$((SECONDS - t0 < 10))"$'\n'"left=$(pgrep -fc "sleep $naps")"
	res "$mode: degraded: --timeout 1 stops the command and what it started: exit 124" in_time=1 left=0 RC=124

	# --- what Landlock cannot do alone is refused ------------------------------------------
	mkdir -p "$ws/secrets" "$outside/hidden"
	give "$mode" "$ws/secrets" "$outside/hidden"
	dsb "$mode" "$ws" --hide "$ws/secrets" -- true
	fact says grep -q "degraded mode cannot hide $ws/secrets" <<<"$ERR"
	res "$mode: degraded: --hide inside the workspace cannot be enforced by Landlock: exit 125, saying why" says=1 RC=125
	dsb "$mode" "$ws" --ro "$ws/secrets" -- true
	fact says grep -q "degraded mode cannot make read-only $ws/secrets" <<<"$ERR"
	res "$mode: degraded: --ro inside the writable workspace: exit 125, saying why" says=1 RC=125
	dsb "$mode" "$ws" --hide "$outside/hidden" -- "$PROBE" read "$outside/data"
	res "$mode: degraded: --hide of a path nothing shows is fine: it is out of reach anyway" RC=$EACCES
	dsb "$mode" "$ws" --landlock=required --landlock-min-abi "$ABI" -- true
	res "$mode: degraded: --landlock=required --landlock-min-abi $ABI run" RC=0
	# corral's own files inside the workspace: no mount can hold them in place
	OUT=$(cd "$ws" && as "$mode" env XDG_CONFIG_HOME="$ws/.config" timeout -k 5 30 "$PEER" deny-userns -- \
		"$CORRAL" run --grant once --allow-degraded -- sh -c 'mv .config .c.x; echo ran' 2>&1)
	RC=$?
	fact says grep -q "degraded mode cannot keep $ws/.config in place" <<<"$OUT"
	fact ran grep -qx ran <<<"$OUT"
	res "$mode: degraded: corral's configuration inside the workspace: exit 125, saying why, nothing ran" \
		says=1 ran=0 RC=125
done
true
