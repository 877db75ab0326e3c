#!/bin/bash
# bwrap-clients: the real clients that exec `bwrap`, srt (@anthropic-ai/sandbox-runtime 0.0.83)
# and the Codex CLI (@openai/codex 0.169.0), unmodified, with corral's personality first on PATH as
# `bwrap`, as root and as uid 65534. For each client, each door (tests/integration/bwrap-lib.sh)
# and each mode, one run of `echo hi`, a write in the working directory (positive controls), a write
# outside it and a read of a planted ~/.ssh canary (negative controls), then a `sleep` whose
# ancestors on the host must include corral's binary, and not the client's own bwrap (Codex falls
# back to its bundled copy, silently, when it dislikes the one on PATH). What the clients exec is in
# tests/clients/recorded-argv.md. The clients are installed from npm by tests/clients/install.sh
# (cached); without npm or the registry, or without rg and socat (srt needs them), the suite skips.
# CR_BWRAP_UNDER_TEST=/usr/bin/bwrap runs the same checks against bubblewrap, to check the suite.
# shellcheck disable=SC2016 # the client's commands are single-quoted on purpose
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"
# shellcheck source=tests/integration/bwrap-lib.sh
source "$CR_TESTS_DIR/integration/bwrap-lib.sh"

if ! command -v node >/dev/null || ! NPM_DIR=$("$CR_TESTS_DIR/clients/install.sh" 2>"$CR_TMP/install.err"); then
	skip "srt and codex" "the clients could not be installed from npm: $(tail -n 1 "$CR_TMP/install.err" 2>/dev/null || echo 'node is missing')"
	exit 0
fi
CLIENTS="srt codex"
if ! command -v rg >/dev/null || ! command -v socat >/dev/null; then
	skip "srt" "srt needs ripgrep (rg) and socat on PATH (tools/setup.sh installs them)"
	CLIENTS=codex
fi
bwrap_doors_setup
diag "doors: $DOORS; a command that went through them runs under one of: ${THROUGH[*]}"

# client_run CLIENT MODE DOOR: runs the client as MODE in a fresh working directory with DOOR first
# on PATH; sets OUT (its output, with the host-side facts appended), RC, and WS.
client_run() {
	local client=$1 mode=$2 door=$3 top tok pid chain
	top=$(mktemp -d "$CR_TMP/$client-$mode-$door.XXXXXX")
	chmod 0755 "$top"
	mkdir -p "$top/ws" "$top/home/.ssh" "$top/tmp" "$top/codex"
	WS=$top/ws
	echo "canary-$RANDOM$RANDOM" >"$top/home/.ssh/id_canary"
	CANARY=$(<"$top/home/.ssh/id_canary")
	printf '%s\n' '{"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]},' \
		'"network":{"allowedDomains":[],"deniedDomains":[]}}' >"$top/srt.json"
	printf '%s\n' 'default_permissions = "ws"' '[permissions.ws.filesystem]' '":root" = "read"' \
		'":workspace_roots" = "write"' '"~/.ssh" = "none"' >"$top/codex/config.toml"
	# The client runs as MODE's user itself (root stays root): its files are that user's.
	[ "$mode" = root ] || give "$mode" "$top"
	tok=$(new_token 3)
	local cmd='echo hi; echo made >inws; echo inws=$?; echo x >'"$top"'/outside; echo out=$?
		cat ~/.ssh/id_canary; echo ssh=$?; sleep '"$tok"'; echo end=$?'
	local argv
	if [ "$client" = srt ]; then
		argv=("$NPM_DIR/node_modules/.bin/srt" --settings "$top/srt.json" -c "$cmd")
	else
		argv=("$NPM_DIR/node_modules/.bin/codex" sandbox -- bash -c "$cmd")
	fi
	# Outside /tmp's policy: CODEX_HOME must not lie under TMPDIR (see recorded-argv.md).
	(cd "$WS" && as "$mode" env HOME="$top/home" TMPDIR="$top/tmp" CODEX_HOME="$top/codex" \
		PATH="$(door_dir "$door"):$PATH" timeout -k 5 60 "${argv[@]}") >"$top/out" 2>"$top/err" &
	local bg=$!
	chain=
	if pid=$(find_token "$tok" "$bg"); then chain=$(exe_chain "$pid"); fi
	wait "$bg"
	RC=$?
	OUT=$(<"$top/out")
	ERR=$(<"$top/err")
	OUT+=$'\n'"via=$(through_verdict "$chain")"
	[ -e "$top/outside" ] && OUT+=$'\n'"outside_exists=1" || OUT+=$'\n'"outside_exists=0"
	case $OUT in *"$CANARY"*) OUT+=$'\n'"canary_seen=1" ;; *) OUT+=$'\n'"canary_seen=0" ;; esac
	[ "$(cat "$WS/inws" 2>/dev/null)" = made ] && OUT+=$'\n'"inws_host=1" || OUT+=$'\n'"inws_host=0"
	grep -q '^hi$' <<<"$OUT" && OUT+=$'\n'"echo=1" || OUT+=$'\n'"echo=0"
	[ -z "$chain" ] || ERR+=$'\n'"ancestors: $(tr '\n' ' ' <<<"$chain")"
}

for mode in $MODES; do
	for door in $DOORS; do
		for client in $CLIENTS; do
			client_run "$client" "$mode" "$door"
			res "$mode $door: $client: echo runs and a file written in the working directory appears on the host" \
				echo=1 inws=0 inws_host=1 end=0 RC=0
			res "$mode $door: $client: a write outside the working directory and a read of ~/.ssh fail" \
				out='!0' outside_exists=0 ssh='!0' canary_seen=0
			res "$mode $door: $client: the command ran under ${THROUGH[0]##*/} (the bwrap on PATH), not the client's own" \
				via=through
		done
	done
done
