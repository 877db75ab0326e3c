#!/bin/bash
# policy: profiles, the capability gate, grants, sessions and the audit ledger, through the real
# corral binary in each mode. Each built-in profile runs a real command; a request beyond the
# profile is refused (exit 126, a JSON denial) and passes with a grant; a session keeps its
# workspace and its grants; the ledger gets one whole JSON line per run, also from 8 concurrent
# runs; a broken profile is refused with its file and line.
# is takes its condition as a string for eval, in single quotes:
# shellcheck disable=SC2016
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

command -v jq >/dev/null || {
	not_ok "jq is installed (tools/setup.sh installs it)"
	exit 1
}

# run MODE WS [OPTS] -- CMD...: corral run as MODE from inside WS with the test binaries shown
# (the options must grant that read themselves, or --profile a profile that has it). Status in
# $RC, stdout in $OUT, stderr in $ERR, the JSON status in $ST.
run() {
	local mode=$1 ws=$2
	shift 2
	OUT=$(cd "$ws" && as "$mode" "$CORRAL" run --workspace "$ws" --json-status "$STF" \
		"$@" 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
	ST=$(cat "$STF" 2>/dev/null)
	rm -f "$STF"
}

# jcheck NAME JQ-EXPR [JSON]: ok if the expression is true of JSON (default $ST).
jcheck() {
	local name=$1 expr=$2 json=${3-$ST}
	if jq -e "$expr" <<<"$json" >/dev/null 2>&1; then
		ok "$name"
	else
		not_ok "$name"
		diag "jq: $expr" "json: $json" "rc=$RC" "stderr: $(tr '\n' '|' <<<"$ERR")"
	fi
}

# The state and config directories of MODE (lib.sh points XDG_* there).
state_of() { if [ "$1" = user ] && [ "$(id -u)" -eq 0 ]; then echo "$CR_TMP/state-65534"; else echo "$XDG_STATE_HOME"; fi; }
config_of() { if [ "$1" = user ] && [ "$(id -u)" -eq 0 ]; then echo "$CR_TMP/config-65534"; else echo "$XDG_CONFIG_HOME"; fi; }

# A profile of MODE's own that shows the test binaries, on top of the default one.
test_profile() {
	local dir
	dir=$(config_of "$1")/corral/profiles
	as "$1" mkdir -p "$dir"
	printf '[profile]\ndescription = the tests\n[filesystem]\nread = %s\n' "$BIN" |
		as "$1" sh -c "cat >'$dir/tests.ini'"
	as "$1" chmod 0644 "$dir/tests.ini"
}

for mode in $MODES; do
	ws=$(mkws "$mode")
	STF=$(mkws "$mode")/st.json # where corral as MODE writes the JSON status
	state=$(state_of "$mode")
	test_profile "$mode"
	outside=$(new_workspace "$mode")
	echo secret >"$outside/data"
	give "$mode" "$outside"

	# --- built-in profiles end to end -----------------------------------------------------
	run "$mode" "$ws" --ro "$BIN" --grant once -- sh -c "echo w >'$ws/w' && cat '$ws/w'"
	is "$mode: profile workspace (default): the workspace is writable" \
		'[ "$RC" = 0 ] && [ "$OUT" = w ]'
	jcheck "$mode: profile workspace: status names it, network none, decision granted once" \
		'.profile == "workspace" and .enforced.network == "none" and .decision == "granted" and .grant == "once"'

	run "$mode" "$ws" --profile tests -- "$PROBE" write "$ws/strict"
	res "$mode: positive control: profile tests (workspace + the binaries) writes the workspace" RC=0
	jcheck "$mode: profile tests: allowed, nothing requested" \
		'.decision == "allowed" and .grant == null and .request == {}'

	run "$mode" "$ws" --profile strict --ro "$BIN" --grant once -- "$PROBE" write "$ws/strict"
	res "$mode: profile strict: the workspace is read-only (EROFS)" RC=30
	run "$mode" "$ws" --profile strict --ro "$BIN" --grant once -- "$PROBE" read "$ws/w"
	res "$mode: profile strict: positive control: the workspace is readable" RC=0
	run "$mode" "$ws" --profile strict --ro "$BIN" --grant once -- "$PROBE" fork
	res "$mode: profile strict: the command cannot start a process (EPERM)" RC=1
	jcheck "$mode: profile strict: seccomp strict, spawn off in the status" \
		'.enforced.seccomp.mode == "strict" and .enforced.seccomp.spawn == false'

	run "$mode" "$ws" --profile ci --ro "$BIN" --grant once -- sh -c 'echo ci'
	if [ "$RC" = 0 ]; then
		jcheck "$mode: profile ci: 1024 processes, 4 GiB, an hour, all enforced" \
			'.enforced.limits.pids.value == 1024 and .enforced.limits.memory.value == 4294967296 and .enforced.limits.pids.mode != "none" and .enforced.limits.memory.mode != "none"'
	else
		# enforce = required: a host that cannot enforce a limit refuses the run, naming it
		is "$mode: profile ci: a limit this host cannot enforce stops the run (125, named)" \
			'[ "$RC" = 125 ] && grep -q "limit" <<<"$ERR"'
	fi

	run "$mode" "$ws" --profile autonomous --ro "$BIN" --grant once -- true
	jcheck "$mode: profile autonomous: the host network, seccomp still on" \
		'.exit_code == 0 and .enforced.network == "host" and .enforced.seccomp.mode == "default"'

	run "$mode" "$ws" --profile power_user --ro "$BIN" --grant once -- true
	jcheck "$mode: profile power_user: allow_hosts, through the proxy" \
		'.exit_code == 0 and .enforced.network == "allow_hosts"'

	# --- escalation: denied, then granted ------------------------------------------------
	run "$mode" "$ws" --profile tests --ro "$outside" -- "$PROBE" read "$outside/data"
	is "$mode: a read outside the profile is denied: exit 126, nothing ran" \
		'[ "$RC" = 126 ] && [ -z "$OUT" ]'
	jcheck "$mode: the denial JSON, the last line of stderr, names what is needed" \
		'.denied == "capability" and .baseline == "tests" and .needs == {"fs_read": ["'"$outside"'"]}' \
		"$(tail -n 1 <<<"$ERR")"
	jcheck "$mode: the JSON status says denied" \
		'.outcome == "denied" and .exit_code == 126 and .decision == "denied" and .enforced == null and .denied.needs.fs_read == ["'"$outside"'"]'
	run "$mode" "$ws" --profile tests --ro "$outside" --grant once -- "$PROBE" read "$outside/data"
	res "$mode: with --grant once the same run reads it" RC=0
	run "$mode" "$ws" --profile tests --net=host -- true
	jcheck "$mode: --net=host is denied as the whole network" \
		'.outcome == "denied" and .denied.needs == {"network": "all"}'
	run "$mode" "$ws" --profile tests --seccomp=off -- true
	jcheck "$mode: --seccomp=off is denied as a weaker layer" \
		'.outcome == "denied" and .denied.needs == {"unconfined": ["seccomp"]}'
	run "$mode" "$ws" --profile tests --net=none --spawn=no -- "$PROBE" read "$ws/w"
	res "$mode: options that only take away need no grant" RC=0
	run "$mode" "$ws" --profile ci --ro "$BIN" --grant once --pids max -- true
	jcheck "$mode: profile ci: --pids max is beyond its limit (granted here, and recorded)" \
		'.decision == "granted" and .request.limits.pids == "max"'
	run "$mode" "$ws" --profile ci --ro "$BIN" --pids 2000 -- true
	jcheck "$mode: profile ci: --pids 2000 without a grant is denied" \
		'.outcome == "denied" and .denied.needs.limits == {"pids": 2000}'

	# --- sessions ------------------------------------------------------------------------
	sid="agent-$mode-$$"
	hash=$(printf %s "$sid" | sha256sum | cut -c1-32)
	sws=$state/corral/sessions/$hash
	OUT=$(cd / && as "$mode" "$CORRAL" run --session "$sid" --profile tests -- sh -c 'pwd; echo kept >note' 2>&1)
	RC=$?
	is "$mode: --session: the workspace is sessions/<sha256 prefix>, created 0700, the cwd" \
		'[ "$RC" = 0 ] && [ "$OUT" = "$sws" ] && [ "$(stat -c %a "$sws")" = 700 ]'
	OUT=$(cd / && as "$mode" "$CORRAL" run --session "$sid" --profile tests -- cat note 2>&1)
	res "$mode: a later run of the session finds its files" RC=0
	is "$mode: ... the file's content" '[ "$OUT" = kept ]'
	OUT=$(cd / && as "$mode" "$CORRAL" run --session "other-$sid" --profile tests -- sh -c 'cat note' 2>&1)
	is "$mode: another session does not see them" '[ "$OUT" != kept ]'
	OUT=$(cd / && as "$mode" "$CORRAL" run --session "$sid" --profile tests --cwd "$sws/../.." -- pwd 2>&1)
	RC=$?
	is "$mode: --cwd outside the session's workspace is refused (125)" \
		'[ "$RC" = 125 ] && grep -q "inside the session" <<<"$OUT"'
	is "$mode: the session record sits beside the workspace, 0600, with the id" \
		'[ "$(jq -r .id "$sws.json")" = "$sid" ] && [ "$(stat -c %a "$sws.json")" = 600 ]'

	# grants kept with the session
	sw=$(cd / && as "$mode" "$CORRAL" run --session "$sid" --profile tests --ro "$outside" -- true 2>&1)
	RC=$?
	is "$mode: session: a read outside is denied before any grant" '[ "$RC" = 126 ]'
	(cd / && as "$mode" "$CORRAL" run --session "$sid" --profile tests --ro "$outside" --grant session \
		--json-status "$STF" -- "$PROBE" read "$outside/data" >/dev/null 2>&1)
	RC=$?
	ST=$(<"$STF")
	jcheck "$mode: --grant session: runs and is kept" '.exit_code == 0 and .grant == "session"'
	(cd / && as "$mode" "$CORRAL" run --session "$sid" --profile tests --ro "$outside" \
		--json-status "$STF" -- "$PROBE" read "$outside/data" >/dev/null 2>&1)
	ST=$(<"$STF")
	jcheck "$mode: a later run within the grant passes without asking (cached)" \
		'.exit_code == 0 and .decision == "granted" and .grant == "cached"'
	(cd / && as "$mode" "$CORRAL" run --session "$sid" --profile tests --ro "$outside" --net=host \
		--json-status "$STF" -- true >/dev/null 2>&1)
	ST=$(<"$STF")
	jcheck "$mode: ... but not one beyond it: only the network is needed" \
		'.outcome == "denied" and .denied.needs == {"network": "all"} and .denied.session == "'"$sid"'"'
	OUT=$(as "$mode" "$CORRAL" session show "$sid" --json 2>&1)
	jcheck "$mode: corral session show lists the grant" \
		'.granted.fs_read == ["'"$outside"'"] and .grants == 1' "$OUT"
	OUT=$(as "$mode" "$CORRAL" session list --json 2>&1)
	jcheck "$mode: corral session list has the session" \
		'[.[] | select(.id == "'"$sid"'")] | length == 1' "$OUT"
	as "$mode" "$CORRAL" session rm "$sid" >/dev/null 2>&1
	is "$mode: corral session rm removes the workspace, record and grants" \
		'[ ! -e "$sws" ] && [ ! -e "$sws.json" ] && [ ! -e "$sws.grants.jsonl" ]'

	# --- the audit ledger ----------------------------------------------------------------
	ledger=$state/corral/audit.jsonl
	before=$(wc -l <"$ledger")
	pids=()
	for i in 1 2 3 4 5 6 7 8; do
		(cd "$ws" && as "$mode" "$CORRAL" run --profile tests -- sh -c "exit $i" >/dev/null 2>&1) &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
	after=$(wc -l <"$ledger")
	is "$mode: 8 concurrent runs add 8 ledger lines" '[ $((after - before)) = 8 ]'
	is "$mode: every ledger line is one whole JSON object" \
		'jq -c . "$ledger" >/dev/null && [ "$(jq -s length "$ledger")" = "$after" ]'
	is "$mode: the 8 lines carry exit codes 1 to 8" \
		'[ "$(tail -n 8 "$ledger" | jq -s "[.[].exit_code] | sort == [1,2,3,4,5,6,7,8]")" = true ]'
	jcheck "$mode: a ledger line has the time, argv hash, decision, modes and outcome" \
		'(.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T")) and .argv0 == "sh" and (.argv_sha256 | length) == 64 and .decision == "allowed" and .enforced.seccomp == "default" and .outcome == "exited" and .profile == "tests"' \
		"$(tail -n 1 "$ledger")"
	is "$mode: the ledger is 0600" '[ "$(stat -c %a "$ledger")" = 600 ]'
	jcheck "$mode: a denied run is in the ledger too" \
		'.decision == "denied" and .outcome == "denied"' "$(grep '"denied"' "$ledger" | tail -n 1)"
	before=$(wc -l <"$ledger")
	(cd "$ws" && as "$mode" "$CORRAL" run --profile tests --no-audit -- true)
	is "$mode: --no-audit adds no line" '[ "$(wc -l <"$ledger")" = "$before" ]'
	own=$ws/own.jsonl
	(cd "$ws" && as "$mode" "$CORRAL" run --profile tests --audit "$own" -- true)
	is "$mode: --audit FILE writes there" '[ "$(jq -s length "$own")" = 1 ]'
	as "$mode" ln -sf "$own" "$ws/link.jsonl"
	OUT=$(cd "$ws" && as "$mode" "$CORRAL" run --profile tests --audit "$ws/link.jsonl" -- echo ran 2>&1)
	RC=$?
	is "$mode: a symlinked ledger is refused before the run (125, nothing ran)" \
		'[ "$RC" = 125 ] && ! grep -qx ran <<<"$OUT"'

	# --- corral's own files inside a writable workspace ----------------------------------
	# An agent working in its home: the profiles, the state (sessions, grants, the ledger) and
	# the cache live inside the workspace. Whatever the command does to them or to the
	# directories above them, the runs after it read the same files at the same places.
	home=$(mkws "$mode")
	henv=(env HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_STATE_HOME="$home/.local/state"
		XDG_CACHE_HOME="$home/.cache")
	# hrun [OPTS] -- CMD...: corral run as MODE from $home (the workspace), with corral's files
	# inside it; no grant is given.
	hrun() {
		OUT=$(cd "$home" && as "$mode" "${henv[@]}" "$CORRAL" run --json-status "$STF" "$@" \
			2>"$CR_TMP/stderr")
		RC=$?
		ERR=$(<"$CR_TMP/stderr")
		ST=$(cat "$STF" 2>/dev/null)
		rm -f "$STF"
	}
	sid="anchor-$mode-$$"
	hash=$(printf %s "$sid" | sha256sum | cut -c1-32)
	hrun --session "$sid" -- true
	res "$mode: own files: a session is made with the state inside the home" RC=0
	ledger=$home/.local/state/corral/audit.jsonl
	lines=$(wc -l <"$ledger")

	# (a) a profile planted through a renamed ancestor
	hrun -- sh -c 'mv .config .config.x 2>/dev/null; echo mv=$?
		mv .config/corral .config/c.x 2>/dev/null; echo mvc=$?
		mkdir -p .config/corral/profiles 2>/dev/null
		printf "[network]\nmode = all\n" >.config/corral/profiles/workspace.ini 2>/dev/null; echo plant=$?
		mkdir -p .config/ctl 2>/dev/null && mv .config/ctl .config/ctl2 && echo cfgctl=0
		mkdir -p d/e && mv d d.x && echo ctl=0
		echo w >control && echo control=0'
	res "$mode: own files (a): ~/.config and ~/.config/corral cannot be renamed, no profile planted; control: a directory of the workspace is made and renamed, a file written" \
		RC=0 mv='!0' mvc='!0' plant='!0' ctl=0 control=0
	# root's corral made ~/.config (0700, root's): the sandbox (uid 65534) cannot use it
	[ "$mode" = root ] || res "$mode: own files (a): control: a directory in ~/.config is made and renamed" cfgctl=0
	hrun -- cat /proc/net/dev
	jcheck "$mode: own files (a): the next run has no network (profile workspace as built in)" \
		'.exit_code == 0 and .profile == "workspace" and .enforced.network == "none"'
	is "$mode: own files (a): ... /proc/net/dev lists only lo" \
		'[ "$RC" = 0 ] && [ "$(grep -c ":" <<<"$OUT")" = 1 ] && grep -q "lo:" <<<"$OUT"'
	jcheck "$mode: own files: the status shows the directories above corral's pinned, not as writable" \
		'(.enforced.pinned | index("'"$home"'/.config")) != null and (.enforced.pinned | index("'"$home"'/.local")) != null and .enforced.writable == ["'"$home"'"]'
	# root's sandbox cannot search root's ~/.config: nothing below it is bound
	[ "$mode" = root ] || jcheck "$mode: own files: ... and corral's directories read-only" \
		'(.enforced.read_only | index("'"$home"'/.config/corral")) != null and (.enforced.read_only | index("'"$home"'/.local/state/corral")) != null'

	# (b) a session's grants forged through a renamed ancestor
	hrun -- sh -c 'mv .local .local.x 2>/dev/null; echo mv=$?
		mv .local/state .local/state.x 2>/dev/null; echo mvs=$?
		mkdir -p .local/state/corral/sessions 2>/dev/null
		cp -a .local.x/state/corral/sessions/. .local/state/corral/sessions/ 2>/dev/null
		echo "{\"time\":\"2026-01-01T00:00:00Z\",\"scope\":\"session\",\"profile\":\"workspace\",\"grant\":{\"network\":\"all\"}}" \
			>>.local/state/corral/sessions/'"$hash"'.grants.jsonl 2>/dev/null; echo forge=$?
		mkdir -p d/e && mv d d.y && echo control=0'
	res "$mode: own files (b): ~/.local and the state directory cannot be renamed, the grants file not written; control: a directory of the workspace is renamed" \
		RC=0 mv='!0' mvs='!0' forge='!0' control=0
	hrun --session "$sid" --net=host -- true
	jcheck "$mode: own files (b): --session ID --net=host is still denied (126)" \
		'.outcome == "denied" and .exit_code == 126 and .denied.needs == {"network": "all"} and .denied.session == "'"$sid"'"'

	# (c) the ledger moved away or replaced by a link
	lines=$(wc -l <"$ledger")
	hrun -- sh -c 'mv .local/state/corral/audit.jsonl x 2>/dev/null; echo mv=$?
		ln -sf /dev/null .local/state/corral/audit.jsonl 2>/dev/null; echo link=$?
		mv .local/state/corral .local/state/c.x 2>/dev/null; echo mvd=$?
		mv .local/state .local/s.x 2>/dev/null; ln -sT s.x .local/state 2>/dev/null; echo swap=$?
		echo ok >ledger-control && echo control=0'
	res "$mode: own files (c): the ledger cannot be moved or replaced, nor its directories; control: the workspace is written" \
		RC=0 mv='!0' link='!0' mvd='!0' swap='!0' control=0
	hrun -- true
	is "$mode: own files (c): the runs go on appending to the same ledger" \
		'[ "$RC" = 0 ] && [ "$(wc -l <"$ledger")" = $((lines + 2)) ] && [ -d "$home/.local/state" ] && [ ! -L "$home/.local/state" ]'

	# (d) links: hard links into or out of corral's files, a symbolic link in place of a directory
	hrun -- sh -c 'ln .local/state/corral/audit.jsonl hard 2>/dev/null; echo hard=$?
		echo "[network]" >evil.ini; ln evil.ini .config/corral/evil.ini 2>/dev/null; echo into=$?
		mv .cache .cache.x 2>/dev/null; ln -sT /tmp .cache 2>/dev/null; echo cache=$?
		ln evil.ini evil2.ini && ln -s evil.ini evil3.ini && echo control=0'
	res "$mode: own files (d): no hard link to the ledger or into the profiles, ~/.cache not replaced by a link; control: links in the workspace" \
		RC=0 hard='!0' into='!0' cache='!0' control=0
	is "$mode: own files (d): ~/.cache is still the directory corral made" \
		'[ -d "$home/.cache/corral" ] && [ ! -L "$home/.cache" ]'

	# (e) a writable path inside corral's files is refused, naming both
	hrun --rw "$home/.local/state/corral/sessions" -- true
	is "$mode: own files (e): --rw inside the state directory is refused (125), naming both paths" \
		'[ "$RC" = 125 ] && grep -qF -- "--rw $home/.local/state/corral/sessions" <<<"$ERR" && grep -qF "state directory $home/.local/state/corral" <<<"$ERR"'
	OUT=$(cd "$ws" && as "$mode" "${henv[@]}" "$CORRAL" run --workspace "$home/.config/corral" -- true 2>&1)
	RC=$?
	is "$mode: own files (e): a workspace inside the configuration directory is refused (125)" \
		'[ "$RC" = 125 ] && grep -qF "configuration directory $home/.config/corral" <<<"$OUT"'
	OUT=$(cd / && as "$mode" "${henv[@]}" "$CORRAL" run --session "$sid" -- sh -c 'echo s >note && pwd' 2>&1)
	RC=$?
	is "$mode: own files (e): positive control: the session's own workspace, under the state directory, is writable" \
		'[ "$RC" = 0 ] && [ "$OUT" = "$home/.local/state/corral/sessions/$hash" ]'

	# (f) a profile given by path, inside the workspace
	printf '[profile]\ndescription = the workspace own profile\n' | as "$mode" sh -c "cat >'$home/p.ini'"
	as "$mode" chmod 0644 "$home/p.ini"
	[ "$mode" = user ] || chown root:root "$home/p.ini" # root's corral reads only root's profiles
	hrun --profile ./p.ini -- sh -c 'printf "[network]\nmode = all\n" >>p.ini 2>/dev/null; echo edit=$?
		mv p.ini p.x 2>/dev/null; echo mv=$?; echo x >p2.ini && mv p2.ini p3.ini && echo control=0'
	res "$mode: own files (f): a profile given by path cannot be changed or moved by its command; control: files beside it can" \
		RC=0 edit='!0' mv='!0' control=0
	hrun --profile ./p.ini -- true
	jcheck "$mode: own files (f): the next run with that profile has no network" \
		'.exit_code == 0 and .enforced.network == "none"'

	# A configuration directory reached through a link the command could replace.
	as "$mode" mkdir -p "$home/real-config"
	as "$mode" ln -s real-config "$home/cfg-link"
	OUT=$(cd "$home" && as "$mode" "${henv[@]}" XDG_CONFIG_HOME="$home/cfg-link" "$CORRAL" run -- true 2>&1)
	RC=$?
	is "$mode: own files: a configuration directory behind a link inside the workspace is refused (125)" \
		'[ "$RC" = 125 ] && grep -qF "symbolic link $home/cfg-link" <<<"$OUT"'
	OUT=$(cd "$home" && as "$mode" "${henv[@]}" XDG_CONFIG_HOME="$home/real-config" "$CORRAL" run -- \
		sh -c 'mv real-config r.x 2>/dev/null; echo mv=$?' 2>&1)
	RC=$?
	res "$mode: own files: positive control: named by its target, it runs and is pinned" RC=0 mv='!0'

	# --- profiles: list, show, errors ----------------------------------------------------
	OUT=$(as "$mode" "$CORRAL" profile list --json 2>&1)
	jcheck "$mode: corral profile list has the five built-ins and the user's" \
		'([.profiles[].name] | contains(["strict","workspace","ci","power_user","autonomous","tests"]))' "$OUT"
	OUT=$(cd "$ws" && as "$mode" "$CORRAL" profile show strict --json 2>&1)
	jcheck "$mode: corral profile show strict: the workspace read-only, no spawn" \
		'.baseline.spawn == false and (.baseline.fs_write | length) == 0' "$OUT"
	OUT=$(cd "$ws" && as "$mode" "$CORRAL" profile show strict --backend macos --json 2>&1)
	jcheck "$mode: corral profile show --backend macos: the SBPL text and its parameters, no path in the text" \
		'.backend == "macos" and .params.WORKSPACE == "'"$ws"'" and (.profile | contains("(deny default)")) and (.profile | contains("'"$ws"'") | not)' "$OUT"
	bad=$(config_of "$mode")/corral/profiles/bad.ini
	printf '[profile]\ndescription = x\n[network]\nmode = some\n' | as "$mode" sh -c "cat >'$bad'"
	run "$mode" "$ws" --profile bad -- true
	is "$mode: a bad value in a profile: exit 125 naming the file and line 4" \
		'[ "$RC" = 125 ] && grep -qF "$bad:4" <<<"$ERR"'
	printf '[profile]\ndescriptoin = x\n' | as "$mode" sh -c "cat >'$bad'"
	run "$mode" "$ws" --profile bad -- true
	is "$mode: an unknown key: exit 125 naming the file and line 2" \
		'[ "$RC" = 125 ] && grep -qF "$bad:2" <<<"$ERR"'
	run "$mode" "$ws" --profile no-such-profile -- true
	is "$mode: an unknown profile: exit 125" '[ "$RC" = 125 ] && grep -q "no-such-profile" <<<"$ERR"'
done

# --- WSL: the interop variables are never passed (WSL simulated by its /proc/version) -------
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
	ws=$(mkws root)
	printf 'Linux version 5.15.167.4-microsoft-standard-WSL2 (root@x) #1 SMP\n' >"$CR_TMP/wsl-version"
	OUT=$(cd "$ws" && WSL_INTEROP=/run/WSL/1_interop unshare -m sh -c \
		'mount --bind "$1" /proc/version && exec "$2" run --keep-env WSL_INTEROP -- env' \
		sh "$CR_TMP/wsl-version" "$CORRAL" 2>&1)
	RC=$?
	is "root: under WSL (simulated), --keep-env WSL_INTEROP is refused (125), nothing runs" \
		'[ "$RC" = 125 ] && grep -q "WSL_INTEROP: under WSL" <<<"$OUT" && ! grep -q "^WSL_INTEROP=" <<<"$OUT"'
	OUT=$(cd "$ws" && WSL_INTEROP=/run/WSL/1_interop "$CORRAL" run --keep-env WSL_INTEROP -- env 2>&1)
	RC=$?
	is "root: positive control: outside WSL the same run passes the variable" \
		'[ "$RC" = 0 ] && grep -qx "WSL_INTEROP=/run/WSL/1_interop" <<<"$OUT"'
else
	skip "root: under WSL (simulated), --keep-env WSL_INTEROP is refused" "needs root and unshare -m"
fi
