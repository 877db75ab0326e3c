#!/bin/bash
# leaks: what a sandbox learns of the host without being shown it, and what corral writes about a
# run whatever bytes its names hold. The caller's PATH (a host-only tool directory) does not
# reach the command, nor does it find a tool there; /etc/machine-id is the sandbox's own, not
# the host's; a workspace and a command named with bytes that are not UTF-8, a quote and a
# newline still give a --json-status, a ledger line and serve responses that a strict UTF-8 JSON
# reader accepts. Each in every mode, next to a positive control in the same sandbox.
# shellcheck disable=SC2016 # the sh -c scripts are single-quoted on purpose
# shellcheck source=SCRIPTDIR/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

command -v python3 >/dev/null && command -v jq >/dev/null || {
	skip "leaks" "python3 and jq are needed to read the JSON strictly"
	exit 0
}

# A tool directory that only the host's PATH names, as ~/.cargo/bin would be. It lies inside
# $BIN, which every sandbox of the suite shows read-only: found there, the tool would run.
HOSTBIN=$BIN/host-only-bin
mkdir -p "$HOSTBIN"
printf '#!/bin/sh\necho host-only-tool-ran\n' >"$HOSTBIN/corral-host-only-tool"
chmod -R a+rX "$HOSTBIN"
chmod a+x "$HOSTBIN/corral-host-only-tool"

# strict_json FILE: FILE is valid UTF-8 and every line a JSON value (python: strict decode).
strict_json() {
	python3 -c '
import json, sys
data = open(sys.argv[1], "rb").read().decode("utf-8")
for line in data.splitlines():
    if line.strip():
        json.loads(line)' "$1" 2>>"$CR_TMP/strict-errors"
}

# jq_check [-s] PROGRAM FILE: jq reads FILE and PROGRAM is true.
jq_check() {
	jq -e "$@" >/dev/null 2>>"$CR_TMP/strict-errors"
}

# The host's machine id, when it has one.
host_id=$(cat /etc/machine-id 2>/dev/null)

for mode in $MODES; do
	ws=$(mkws "$mode")

	# --- PATH -------------------------------------------------------------------------------
	OUT=$(cd "$ws" && as "$mode" env PATH="$HOSTBIN:$PATH" "$CORRAL" run \
		--workspace "$ws" --ro "$BIN" --grant once -- sh -c '
		echo path_names_hostbin=$(case ":$PATH:" in *":$1:"*) echo 1 ;; *) echo 0 ;; esac)
		command -v corral-host-only-tool >/dev/null; echo tool_found=$?
		command -v sh >/dev/null; echo sh_found=$?
		test -x "$1/corral-host-only-tool"; echo tool_visible=$?' sh "$HOSTBIN" 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
	res "$mode: the caller's PATH (a host-only tool dir) is not the sandbox's: the tool is not found by name, sh is (the tool itself is visible)" \
		path_names_hostbin=0 tool_found=!0 sh_found=0 tool_visible=0 RC=0

	# corral's own lookup of the command uses the sandbox's PATH too.
	OUT=$(cd "$ws" && as "$mode" env PATH="$HOSTBIN:$PATH" "$CORRAL" run --workspace "$ws" \
		--ro "$BIN" --grant once -- corral-host-only-tool 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
	OUT+=$'\n'"ran=$([[ $OUT == *host-only-tool-ran* ]] && echo 1 || echo 0)"
	res "$mode: the command is looked up with the sandbox's PATH, not the caller's: a host-only tool is not found (127)" \
		ran=0 RC=127
	OUT=out=$(cd "$ws" && as "$mode" env PATH="$HOSTBIN:$PATH" "$CORRAL" run --workspace "$ws" \
		--ro "$BIN" --grant once -- sh -c 'echo sh-ran' 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
	res "$mode: positive control: sh, on the standard PATH, is found and runs" out=sh-ran RC=0

	# Who asks for the caller's PATH gets it: --keep-env PATH, or --setenv PATH=...
	for opt in "--keep-env PATH" "--setenv PATH=$HOSTBIN:/usr/bin:/bin"; do
		# shellcheck disable=SC2086 # $opt is two words on purpose
		OUT=out=$(cd "$ws" && as "$mode" env PATH="$HOSTBIN:$PATH" "$CORRAL" run --workspace "$ws" \
			--ro "$BIN" --grant once $opt -- corral-host-only-tool 2>"$CR_TMP/stderr")
		RC=$?
		ERR=$(<"$CR_TMP/stderr")
		res "$mode: $opt: the tool in that PATH is found" out=host-only-tool-ran RC=0
	done

	# --- /etc/machine-id --------------------------------------------------------------------
	if [ -z "$host_id" ]; then
		skip "$mode: /etc/machine-id" "the host has none"
	else
		ids=()
		for i in 1 2; do
			sb "$mode" "$ws" -- sh -c '
				echo id=$(cat /etc/machine-id)
				echo bytes=$(wc -c </etc/machine-id)
				echo well_formed=$(grep -qxE "[0-9a-f]{32}" /etc/machine-id && echo 1 || echo 0)
				echo rewrite=$( (echo 0123 >/etc/machine-id) 2>/dev/null && echo 1 || echo 0)
				echo passwd=$(grep -c "^root:" /etc/passwd)'
			ids+=("$(sed -n 's/^id=//p' <<<"$OUT")")
			OUT+=$'\n'"same_as_host=$([ "${ids[-1]}" = "$host_id" ] && echo 1 || echo 0)"
			res "$mode: /etc/machine-id is the sandbox's own (run $i): 32 lowercase hex digits and a newline, not the host's, read-only; the rest of /etc is the host's (positive control)" \
				same_as_host=0 bytes=33 well_formed=1 rewrite=0 passwd=1 RC=0
		done
		check "$mode: two sandboxes have two machine ids (${ids[0]:-?} ${ids[1]:-?})" \
			eval '[ -n "${ids[0]}" ] && [ "${ids[0]}" != "${ids[1]}" ]'
		sandbox "$mode" "$ws" --json-status fd:3 -- true 3>"$CR_TMP/status.json" 2>/dev/null
		check "$mode: enforced.machine_id says /etc/machine-id is covered" \
			jq_check '.enforced.machine_id == ["/etc/machine-id"]' "$CR_TMP/status.json"
	fi

	# --- names that are not UTF-8, in the JSON corral writes ------------------------------------
	# A workspace named with 0xff and a quote (corral refuses control characters in paths), a
	# command named with 0xfe, an argument with a newline and 0xfe.
	bad=$(mktemp -d "$CR_TMP/ws-$(printf '\xff')-\"q\".XXXXXX")
	chmod 0755 "$bad"
	tool="tool-$(printf '\xfe')\""
	printf '#!/bin/sh\npwd >marker\necho ran >>marker\n' >"$bad/$tool"
	chmod 0755 "$bad/$tool"
	give "$mode" "$bad"
	state=$(as "$mode" sh -c 'echo "$XDG_STATE_HOME"')
	ledger=$state/corral/audit.jsonl
	as "$mode" rm -f "$ledger"
	(cd "$bad" && as "$mode" "$CORRAL" run --workspace "$bad" --json-status fd:3 -- "./$tool" \
		"$(printf 'line1\nline2-\xfe')" 3>"$CR_TMP/status.json" >/dev/null 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
	OUT="marker=$(head -n1 "$bad/marker" 2>/dev/null | tr -d "\n" | od -An -tx1 | tr -d ' \n')"
	OUT+=$'\n'"want=$(printf '%s' "$bad" | od -An -tx1 | tr -d ' \n')"
	want=$(sed -n 's/^want=//p' <<<"$OUT")
	res "$mode: positive control: the command named with 0xfe ran in the workspace named with 0xff" \
		"marker=$want" RC=0
	: >"$CR_TMP/strict-errors"
	check "$mode: --json-status is valid UTF-8 JSON (strict decode) though the names are not UTF-8" \
		strict_json "$CR_TMP/status.json"
	check "$mode: --json-status: jq reads it; the command's bytes became U+FFFD, the newline kept" \
		jq_check '.command[0] == "./tool-\ufffd\"" and .command[1] == "line1\nline2-\ufffd" and
			.exit_code == 0' "$CR_TMP/status.json"
	check "$mode: --json-status: the workspace is reported, 0xff as U+FFFD" \
		jq_check '.enforced.writable | any(contains("/ws-\ufffd-\"q\"."))' "$CR_TMP/status.json"
	as "$mode" cat "$ledger" >"$CR_TMP/ledger.jsonl" 2>/dev/null
	check "$mode: the ledger is valid UTF-8 JSON lines (strict decode)" strict_json "$CR_TMP/ledger.jsonl"
	check "$mode: the ledger: jq reads the run's line, argv0 with U+FFFD" \
		jq_check -s 'length == 1 and .[0].argv0 == "./tool-\ufffd\""' "$CR_TMP/ledger.jsonl"
	[ -s "$CR_TMP/strict-errors" ] && diag "$(cat "$CR_TMP/strict-errors")"

	# corral serve: a host path that is not UTF-8 (its home directory) in open_session_result.
	home="$bad/home-$(printf '\xff')"
	mkdir -p "$home"
	give "$mode" "$home"
	(cd "$bad" && printf '%s\n' '{"type":"open_session","id":1,"session":"leaks","workspace":"'"$ws"'"}' \
		'{"type":"exec","id":2,"session":"leaks","argv":["sh","-c","echo $PATH; cat /etc/machine-id"]}' \
		'{"type":"exec","id":3,"session":"leaks","argv":["cat","/etc/machine-id"]}' |
		as "$mode" env HOME="$home" PATH="$HOSTBIN:$PATH" "$CORRAL" serve --stdio --no-audit \
			>"$CR_TMP/serve.jsonl" 2>"$CR_TMP/stderr")
	: >"$CR_TMP/strict-errors"
	check "$mode: corral serve's responses are valid UTF-8 JSON lines (strict decode) with a home directory named with 0xff" \
		strict_json "$CR_TMP/serve.jsonl"
	[ -s "$CR_TMP/strict-errors" ] && diag "$(cat "$CR_TMP/strict-errors")" "$(head -c 600 "$CR_TMP/serve.jsonl" | tr -c '[:print:]\n' '?')"
	check "$mode: corral serve: the session has the standard PATH, not the caller's, and one machine id (not the host's) for its execs" \
		jq_check -s --arg host "$host_id" 'map(select(.type == "exec_result")) | sort_by(.id) | length == 2 and
			(.[0].stdout | startswith("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n")) and
			(.[0].stdout | split("\n")[1]) + "\n" == .[1].stdout and .[1].stdout != $host + "\n"' \
		"$CR_TMP/serve.jsonl"

	# --- corral-bench's stage stamps ---------------------------------------------------------
	# CORRAL_STAMP_FD names a descriptor of the caller's that corral appends timing lines to. The
	# command must find neither the variable (even asking for it with --keep-env) nor the
	# descriptor: not at its number, not anywhere in its /proc/PID/fd.
	stamps=$CR_TMP/stamps-$mode
	: >"$stamps"
	OUT=$(cd "$ws" && as "$mode" env CORRAL_STAMP_FD=9 "$CORRAL" run --workspace "$ws" \
		--keep-env CORRAL_STAMP_FD --grant once -- sh -c '
		echo env_has=$(env | grep -c "^CORRAL_STAMP_FD=")
		echo fd9_open=$( { true >&9; } 2>/dev/null && echo 1 || echo 0)
		echo stamp_fd_seen=$(for f in /proc/$$/fd/*; do readlink "$f"; done | grep -c "$1")
		echo ran=1' sh "${stamps##*/}" 9>>"$stamps" 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
	res "$mode: CORRAL_STAMP_FD: the command sees neither the variable (even with --keep-env) nor the stamps' descriptor" \
		env_has=0 fd9_open=0 stamp_fd_seen=0 ran=1 RC=0
	check "$mode: positive control: the launcher, pid 1 and the command each wrote their stamps there" \
		test "$(grep -cE '^(P main|1 mounts|C seccomp) [0-9]+$' "$stamps")" = 3
done
