#!/bin/bash
# serve: `corral serve` driven by tests/integration/serve-client.py in each mode: 1,000
# sequential execs in one session, 8 concurrent sessions isolated from each other, two commands of
# one session that cannot see each other in /proc while ps lists their own, output caps
# and truncation flags, a timeout that kills the whole tree, the ask/approve/deny round trips
# (per-tier rules, the allowlist, approvals by scope, a permanent one across a restart), the
# ledger, capability requests in one-off sandboxes, a crashed sandbox replaced, SIGKILL to the
# server leaving no sandbox process, corral's own files inside a session's workspace (a command,
# warm or one-off, cannot move them for the next session), and the socket transport (mode 0600,
# a peer of another uid refused, a file that is not a socket left alone, a socket in /usr refused
# at start-up). guard: commands inside sandboxes (served, one-off, `corral run`, degraded) attack
# a server's socket that they see: refused, while a client outside is served; a session that
# would see the server's socket is refused. backlog: a client that never reads its answers (execs
# of 10 MiB of binary output, and of 4 MiB of NULs, 6 bytes each in JSON) leaves the server's
# memory bounded and another client's latency intact.
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

CLIENT=$CR_TMP/bin/serve-client.py
cp "$CR_TESTS_DIR/integration/serve-client.py" "$CLIENT"
chmod a+rx "$CLIENT"

command -v python3 >/dev/null || {
	skip "corral serve" "python3 is not installed"
	exit 0
}

# scenario MODE NAME [ARGS]: run one scenario of serve-client.py as MODE; each PASS/FAIL line
# becomes one TAP line; stderr lines that start with "#" are diagnostics.
scenario() {
	local mode=$1 name=$2 line
	shift 2
	while IFS= read -r line; do
		case $line in
		"PASS "*) ok "$mode: $name: ${line#PASS }" ;;
		"FAIL "*) not_ok "$mode: $name: ${line#FAIL }" ;;
		*) diag "$line" ;;
		esac
	done < <(cd "$CR_TMP" && as "$mode" python3 "$CLIENT" "$name" "$CORRAL" "$@" 2>"$CR_TMP/serve-stderr")
	grep '^#' "$CR_TMP/serve-stderr" || true
	grep -v '^#' "$CR_TMP/serve-stderr" | head -n 5 | sed 's/^/# stderr: /'
	return 0
}

config_of() { if [ "$1" = user ] && [ "$(id -u)" -eq 0 ]; then echo "$CR_TMP/config-65534"; else echo "$XDG_CONFIG_HOME"; fi; }

# A profile that asks before caution-tier commands (rm, mv, ...).
ask_profile() {
	local dir
	dir=$(config_of "$1")/corral/profiles
	as "$1" mkdir -p "$dir"
	printf '[profile]\ndescription = serve tests: ask before caution\n[commands]\ncaution = ask\ndangerous = deny\nallow = rm -f /tmp/allowed\n' |
		as "$1" sh -c "cat >'$dir/serve-ask.ini'"
	as "$1" chmod 0644 "$dir/serve-ask.ini"
}

# Small limits, for the events scenario. An AddressSanitizer build's runners cannot allocate
# under RLIMIT_AS (ASan reserves terabytes of address space for its shadow), which is how a
# user's memory limit is enforced where no cgroup is delegated; that build as the user gets the
# pids limit only.
limits_profile() {
	local dir memory='memory = 32M\n'
	dir=$(config_of "$1")/corral/profiles
	if [ "$1" = user ] && grep -q libasan "$CORRAL"; then
		memory=
		diag "user: events: no memory limit: an ASan build cannot run under RLIMIT_AS"
	fi
	as "$1" mkdir -p "$dir"
	printf '[profile]\ndescription = serve tests: small limits\n[limits]\n'"$memory"'pids = 16\n' |
		as "$1" sh -c "cat >'$dir/serve-limits.ini'"
	as "$1" chmod 0644 "$dir/serve-limits.ini"
}

# Does this corral have warm sandboxes (the driver's warm ops)?
probe=$(printf '{"type":"open_session","id":"probe","workspace":"%s"}\n' "$CR_TMP" |
	"$CORRAL" serve --stdio --no-audit 2>/dev/null)
if [[ $probe == *'"error":"not_supported"'* ]]; then
	not_ok "corral serve: the linux driver has warm sandboxes"
	exit 0
fi

for mode in $MODES; do
	scenario "$mode" seq
	scenario "$mode" ledger
	scenario "$mode" iso
	scenario "$mode" procs
	scenario "$mode" caps
	scenario "$mode" timeout
	scenario "$mode" leftover
	scenario "$mode" crash
	scenario "$mode" sigkill
	scenario "$mode" cold
	scenario "$mode" guard "$PEER"
	scenario "$mode" backlog /dev/urandom 10 24
	scenario "$mode" backlog /dev/zero 4 48
	limits_profile "$mode"
	scenario "$mode" events
	ask_profile "$mode"
	scenario "$mode" ask "rm -f /tmp/nothing-here"
	# corral's own files inside a session's workspace (a home), with the server's XDG_* there
	scenario "$mode" anchors "$(mkws "$mode")"
	# Requests piped in: the end of input still gets every answer of what was running.
	ws=$(mkws "$mode")
	OUT=$(cd "$ws" && printf '%s\n' '{"type":"open_session","id":1,"session":"drain-'"$mode"'","workspace":"'"$ws"'"}' \
		'{"type":"exec","id":2,"session":"drain-'"$mode"'","shell":"sleep 0.3; echo done"}' |
		as "$mode" "$CORRAL" serve --stdio --no-audit 2>/dev/null)
	if jq -e -s 'length == 2 and .[1].type == "exec_result" and .[1].stdout == "done\n"' <<<"$OUT" >/dev/null 2>&1; then
		ok "$mode: stdin ends right after an exec: the exec is still answered, then the server exits"
	else
		not_ok "$mode: stdin ends right after an exec: the exec is still answered, then the server exits"
		diag "$OUT"
	fi
done

if [ "$(id -u)" -eq 0 ]; then
	scenario root socket 65534
else
	scenario user socket
fi
