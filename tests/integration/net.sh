#!/bin/bash
# net: the sandbox's network. By default it has its own network namespace with only a loopback
# that is up: the host's TCP listeners and abstract unix sockets are out of reach while the same
# kinds of endpoints made inside work. --net=host shares the host's network and says so in the JSON
# status. Without user namespaces (simulated with a seccomp filter) corral refuses to run, exit 125,
# and points at corral doctor. All traffic stays on loopback.
# check and check_sb take their condition as a string for eval, in single quotes:
# shellcheck disable=SC2016
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

SB_OUT=$CR_TMP/sb.out
SB_ERR=$CR_TMP/sb.err
SB_WRAP=()
HOST_PIDS=()
ECONNREFUSED=111
ENETUNREACH=101

net_cleanup() {
	local p
	for p in "${HOST_PIDS[@]}"; do
		kill -KILL "$p"
		wait "$p"
	done
}
# Quietly: no "Killed" job notices from bash.
CR_CLEANUP_HOOK="${CR_CLEANUP_HOOK:+$CR_CLEANUP_HOOK; }net_cleanup 2>/dev/null"

has_line() { grep -qx -- "$2" "$1" 2>/dev/null; }
json_ok() { jq -e "$2" "$1" >/dev/null 2>&1; }

# sb MODE WS [OPTS] -- CMD...: corral run as MODE like lib.sh's sandbox(), stopped after 20
# seconds at most (exit 124 then), run under "${SB_WRAP[@]}" if set. SB_RC is the exit status;
# the output is in $SB_OUT and $SB_ERR.
sb() {
	local mode=$1 ws=$2 pre=()
	shift 2
	if [ "$mode" = user ] && [ "$(id -u)" -eq 0 ]; then
		pre=("${AS_USER[@]}")
	fi
	(cd "$ws" && exec timeout -k 5 20 "${pre[@]}" "${SB_WRAP[@]}" \
		"$CORRAL" run --workspace "$ws" --ro "$BIN" --grant once "$@") >"$SB_OUT" 2>"$SB_ERR"
	SB_RC=$?
}

show_failure() {
	diag "corral exit $SB_RC; stdout:" "$(cat "$SB_OUT")" "stderr:" "$(cat "$SB_ERR")"
}

check_sb() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; show_failure; fi
}

# value KEY: the value of "KEY=..." in the sandbox's output.
value() { sed -n "s/^$1=//p" "$SB_OUT"; }

refused() { [ "$1" = "$ECONNREFUSED" ] || [ "$1" = "$ENETUNREACH" ]; }

# Interface names in a /proc/net/dev listing, sorted, space separated.
interfaces() { sed -n 's/^ *\([^ :]*\):.*/\1/p' | sort | tr '\n' ' '; }

# Host endpoints, started once: a TCP listener on 127.0.0.1 and an abstract unix socket.
"$PEER" listen-tcp 0 "$CR_TMP/host.port" &
HOST_PIDS+=($!)
ABSTRACT=corral-test-net-$$-$RANDOM
"$PEER" listen-abstract "$ABSTRACT" "$CR_TMP/host.abstract" &
HOST_PIDS+=($!)
wait_for test -s "$CR_TMP/host.port" && wait_for test -s "$CR_TMP/host.abstract"
HOST_PORT=$(cat "$CR_TMP/host.port" 2>/dev/null)
check "positive control: the host's TCP listener on 127.0.0.1:$HOST_PORT accepts a connection from the host" \
	"$PEER" connect-tcp 127.0.0.1 "${HOST_PORT:-0}"
check "positive control: the host's abstract socket @$ABSTRACT accepts a connection from the host" \
	"$PEER" connect-abstract "$ABSTRACT"
HOST_IFACES=$(interfaces </proc/net/dev)

test_private() {
	local m=$1 ws=$2
	# The host's endpoints first, while nothing inside uses their names; then the same port and
	# the same abstract name are taken inside, which only works in a network namespace of its own.
	cat >"$ws/private.sh" <<-EOF
		$PEER connect-tcp 127.0.0.1 $HOST_PORT; echo host_tcp=\$?
		$PEER connect-abstract $ABSTRACT; echo host_abstract=\$?
		$PEER listen-tcp $HOST_PORT $ws/inside.port & l=\$!
		$PEER listen-abstract $ABSTRACT $ws/inside.abstract & a=\$!
		i=0
		while [ ! -s $ws/inside.port ] || [ ! -s $ws/inside.abstract ]; do
			[ \$i -lt 200 ] || break
			sleep 0.05
			i=\$((i + 1))
		done
		[ -s $ws/inside.port ] && echo tcp_listening=yes
		[ -s $ws/inside.abstract ] && echo abstract_listening=yes
		$PEER connect-tcp 127.0.0.1 \$(cat $ws/inside.port); echo inside_tcp=\$?
		$PEER connect-abstract $ABSTRACT; echo inside_abstract=\$?
		kill \$l \$a
		echo "interfaces=\$(sed -n 's/^ *\([^ :]*\):.*/\1/p' /proc/net/dev | sort | tr '\n' ' ')"
		if command -v ip >/dev/null; then echo "ip_link=\$(ip -o link show | cut -d' ' -f2-3 | tr '\n' ' ')"; fi
	EOF
	sb "$m" "$ws" --json-status "$ws/private.json" -- sh "$ws/private.sh"
	check_sb "$m: loopback is up inside: a TCP listener made inside on 127.0.0.1 (on the host listener's port) accepts a connection" \
		eval '[ "$(value tcp_listening)" = yes ] && [ "$(value inside_tcp)" = 0 ]'
	check_sb "$m: the host's TCP listener on 127.0.0.1:$HOST_PORT is unreachable from inside (got errno $(value host_tcp))" \
		eval 'refused "$(value host_tcp)"'
	check_sb "$m: an abstract unix socket made inside accepts a connection (same name as the host's)" \
		eval '[ "$(value abstract_listening)" = yes ] && [ "$(value inside_abstract)" = 0 ]'
	check_sb "$m: the host's abstract unix socket is unreachable from inside (got errno $(value host_abstract))" \
		eval '[ "$(value host_abstract)" = $ECONNREFUSED ]'
	check_sb "$m: only lo exists inside (/proc/net/dev lists: $(value interfaces); the host: $HOST_IFACES)" \
		eval '[ "$(value interfaces)" = "lo " ]'
	if grep -q '^ip_link=' "$SB_OUT"; then
		check_sb "$m: ip link inside shows lo alone, and up" \
			eval 'value ip_link | grep -Eq "^lo: <([A-Z_]+,)*UP[,>][^:]*$"'
	else
		skip "$m: ip link inside shows lo alone, and up" "ip (iproute2) is not installed"
	fi
	if command -v jq >/dev/null; then
		check "$m: the JSON status says network \"none\", loopback true, and a net namespace" \
			json_ok "$ws/private.json" '.enforced.network == "none" and .enforced.loopback == true and
				(.enforced.namespaces | index("net")) != null'
	else
		skip "$m: the JSON status says network \"none\", loopback true, and a net namespace" "jq is not installed"
	fi
}

test_host_net() {
	local m=$1 ws=$2
	cat >"$ws/host.sh" <<-EOF
		$PEER connect-tcp 127.0.0.1 $HOST_PORT; echo host_tcp=\$?
		$PEER connect-abstract $ABSTRACT; echo host_abstract=\$?
		echo "interfaces=\$(sed -n 's/^ *\([^ :]*\):.*/\1/p' /proc/net/dev | sort | tr '\n' ' ')"
	EOF
	# Landlock (ABI 6+) scopes abstract unix sockets to the sandbox whatever the network;
	# landlock.sh tests that. Here, the network alone.
	sb "$m" "$ws" --net=host --landlock=off --json-status "$ws/host.json" -- sh "$ws/host.sh"
	check_sb "$m: --net=host --landlock=off reaches the host's TCP listener on 127.0.0.1 and its abstract socket" \
		eval '[ "$SB_RC" -eq 0 ] && [ "$(value host_tcp)" = 0 ] && [ "$(value host_abstract)" = 0 ]'
	check_sb "$m: --net=host shows the host's interfaces ($HOST_IFACES)" \
		eval '[ "$(value interfaces)" = "$HOST_IFACES" ]'
	if command -v jq >/dev/null; then
		check "$m: the JSON status of --net=host says network \"host\", no loopback setup, no net namespace" \
			json_ok "$ws/host.json" '.enforced.network == "host" and .enforced.loopback == false and
				(.enforced.namespaces | index("net")) == null'
	else
		skip "$m: the JSON status of --net=host says network \"host\", no loopback setup, no net namespace" "jq is not installed"
	fi
}

# A host without user namespaces, simulated: clone3 fails with ENOSYS, clone and unshare with
# CLONE_NEWUSER fail with EPERM.
test_no_userns() {
	local m=$1 ws=$2 pre=() doctor doctor_rc
	if [ "$m" = user ] && [ "$(id -u)" -eq 0 ]; then
		pre=("${AS_USER[@]}")
	fi
	if ! as "$m" unshare --user true 2>/dev/null; then
		skip "$m: without user namespaces corral exits 125 and runs nothing" "unshare --user fails here even without the filter"
		return
	fi
	"${pre[@]}" "$PEER" deny-userns -- true 2>/dev/null
	if [ $? -eq 38 ]; then # ENOSYS
		skip "$m: without user namespaces corral exits 125 and runs nothing" "peer deny-userns has no seccomp filter for $(uname -m)"
		return
	fi
	if "${pre[@]}" "$PEER" deny-userns -- unshare --user true 2>&1 | grep -q "Operation not permitted"; then
		ok "$m: positive control: peer deny-userns makes unshare --user fail with EPERM (it succeeds without)"
	else
		not_ok "$m: positive control: peer deny-userns makes unshare --user fail with EPERM (it succeeds without)"
		return
	fi
	check "$m: positive control: peer deny-userns runs ordinary commands" \
		eval '[ "$("${pre[@]}" "$PEER" deny-userns -- sh -c "echo fine")" = fine ]'

	SB_WRAP=("$PEER" deny-userns --)
	sb "$m" "$ws" --json-status "$ws/nouserns.json" -- sh -c "echo ran >$ws/ran"
	SB_WRAP=()
	check_sb "$m: without user namespaces corral exits 125 and runs nothing" \
		eval '[ "$SB_RC" -eq 125 ] && [ ! -e "$ws/ran" ]'
	check_sb "$m: ... with one line on stderr that says the namespaces cannot be created and points at 'corral doctor'" \
		eval '[ "$(wc -l <"$SB_ERR")" -eq 1 ] && grep -q "^corral: " "$SB_ERR" &&
		grep -qi "namespaces" "$SB_ERR" && grep -q "corral doctor" "$SB_ERR"'
	if command -v jq >/dev/null; then
		check "$m: ... and a JSON status with outcome setup_failed at stage clone, EPERM, exit_code 125" \
			json_ok "$ws/nouserns.json" '.outcome == "setup_failed" and .exit_code == 125 and
				.error.stage == "clone" and .error.errno_name == "EPERM"'
	else
		skip "$m: ... and a JSON status with outcome setup_failed at stage clone, EPERM, exit_code 125" "jq is not installed"
	fi
	doctor=$("${pre[@]}" "$PEER" deny-userns -- "$CORRAL" doctor 2>&1)
	doctor_rc=$?
	if as "$m" "$CORRAL" doctor >/dev/null 2>&1 && [ "$doctor_rc" -eq 1 ] &&
		grep -Eq "^missing +user_namespaces" <<<"$doctor"; then
		ok "$m: corral doctor there reports user namespaces missing and exits 1 (it exits 0 without the filter)"
	else
		not_ok "$m: corral doctor there reports user namespaces missing and exits 1 (it exits 0 without the filter)"
		diag "corral doctor exit $doctor_rc:" "$doctor"
	fi

	sb "$m" "$ws" -- sh -c "echo ran >$ws/ran"
	check_sb "$m: positive control: the same corral run without the filter runs the command" \
		eval '[ "$SB_RC" -eq 0 ] && [ -e "$ws/ran" ]'
}

for m in $MODES; do
	ws=$(new_workspace "$m")
	test_private "$m" "$ws"
	test_host_net "$m" "$ws"
	test_no_userns "$m" "$ws"
done
true # lib.sh's EXIT trap passes on the status of the last command
