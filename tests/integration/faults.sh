#!/bin/bash
# faults: corral under fault injection. Each case asserts how it ends (a clean run or a clear
# error), that no sandbox process survives, that nothing is half-written (a ledger line is whole
# or absent; a JSON status is whole or empty), and that a normal run right after succeeds.
#   - the launcher killed with SIGKILL after a random delay (seeded: CR_FAULTS_SEED; count:
#     CR_FAULTS_KILLS per mode), landing before clone, during setup, while the command runs and
#     during teardown; the next run removes the dead launchers' cgroup directories
#   - corral serve killed with SIGKILL while an exec runs
#   - the disk full (a small tmpfs in a private mount namespace) under the audit ledger, with
#     appends that straddle the last free page, and under the session store
#   - the run's cgroup v1 directory removed underneath a running sandbox (its processes moved
#     out, or killed)
#   - an unreadable workspace; /proc mounted read-only; RLIMIT_NOFILE from 4 to 40 for the
#     launcher and 16 for the server
# shellcheck disable=SC2016 # the sh -c scripts are single-quoted on purpose
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

TAG=crfault-$$-$RANDOM
SEED=${CR_FAULTS_SEED:-$((RANDOM * 32768 + RANDOM))}
KILLS=${CR_FAULTS_KILLS:-100}
RANDOM=$SEED
diag "seed $SEED (CR_FAULTS_SEED=$SEED reproduces the delays), $KILLS kills per mode, tag $TAG"

faults_cleanup() {
	local p
	for p in $(pgrep -f "$TAG"); do kill -KILL "$p" 2>/dev/null; done
}
CR_CLEANUP_HOOK="${CR_CLEANUP_HOOK:+$CR_CLEANUP_HOOK; }faults_cleanup"

MOUNTS0=$(sort /proc/self/mountinfo)
# JSON status files, written by corral as either mode's user.
OUTD=$CR_TMP/out
mkdir -m 0777 "$OUTD"
chmod 0777 "$OUTD"
# A pipe nobody writes to: `read -t` on it sleeps without starting a process.
mkfifo "$CR_TMP/never"
exec 9<>"$CR_TMP/never"
pause() { read -r -t "$1" -u 9 || true; }

ledger_of() { if [ "$1" = user ] && [ "$(id -u)" -eq 0 ]; then echo "$CR_TMP/state-65534/corral/audit.jsonl"; else echo "$XDG_STATE_HOME/corral/audit.jsonl"; fi; }

# whole_lines FILE: every line of FILE is one JSON object and the file ends with a newline (or
# is empty or missing).
whole_lines() {
	[ -s "$1" ] || return 0
	[ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] || return 1
	python3 -c 'import json, sys
for n, l in enumerate(open(sys.argv[1], "rb"), 1):
    o = json.loads(l)
    assert isinstance(o, dict), n' "$1" 2>/dev/null
}

# whole_json FILE: FILE is missing, empty, or one whole JSON object.
whole_json() { [ ! -s "$1" ] || jq -e 'type == "object"' "$1" >/dev/null 2>&1; }

# The run-PID-N cgroup directories whose launcher PID is dead, but for those already there when
# the suite started: another corral killed earlier on this host, in a cgroup no run here shares
# (corral cleans the stale directories of its own parent cgroup), is not this suite's to judge.
all_stale_dirs() {
	local d pid
	while IFS= read -r d; do
		pid=${d##*/run-}
		pid=${pid%%-*}
		kill -0 "$pid" 2>/dev/null || echo "$d"
	done < <(find /sys/fs/cgroup -maxdepth 8 -type d -name 'run-*-*' 2>/dev/null)
}
STALE_AT_START=$(all_stale_dirs)
stale_dirs() { all_stale_dirs | grep -vxF -e "${STALE_AT_START:-/nonexistent}" || true; }

no_tagged() { ! pgrep -f "$TAG" >/dev/null; }

# left NAME: ok when nothing tagged survives (waiting up to 10 s for the kernel to finish
# killing), the host's mount table is as at the start, and no corral-* entry appeared in /tmp.
# corral's own entries in /tmp (corral-doctor.*, corral-degraded.*), not the suites' directories.
tmp_corral() {
	local e
	for e in /tmp/corral-*; do
		case $e in /tmp/corral-test.* | /tmp/corral-soak.* | '/tmp/corral-*') ;; *) echo "$e" ;; esac
	done
}
TMP0=$(tmp_corral)
left() {
	local name=$1 bad=
	wait_for no_tagged || bad+=" processes: $(pgrep -af "$TAG" | head -3 | tr '\n' '|')"
	[ "$(sort /proc/self/mountinfo)" = "$MOUNTS0" ] || bad+=" the mount table changed"
	[ "$(tmp_corral)" = "$TMP0" ] || bad+=" new in /tmp: $(tmp_corral | tr '\n' ' ')"
	if [ -z "$bad" ]; then ok "$name: nothing left (no process, no mount, nothing in /tmp)"; else
		not_ok "$name: nothing left"
		diag "left:$bad"
	fi
}

# control MODE NAME: a normal run right after the fault succeeds.
control() {
	local ws
	ws=$(mkws "$1")
	sb "$1" "$ws" -- sh -c 'echo fine'
	res "$1: $2: a normal run right after succeeds" RC=0
}

# --- the launcher killed at random points --------------------------------------------------
for m in $MODES; do
	ws=$(mkws "$m")
	ledger=$(ledger_of "$m")
	if [ "$m" = user ] && [ "$(id -u)" -eq 0 ]; then AS=("${AS_USER[@]}"); else AS=(); fi
	before=0 running=0 after=0 bad_status=0
	for ((i = 0; i < KILLS; i++)); do
		st=$OUTD/kill-status-$m.json
		rm -f "$st" "$ws/started"
		# Delays from 0 to 30 ms: from the fork to the JSON status of `true` takes about 10 ms here.
		d=$((RANDOM % 30000))
		if ((i % 2)); then
			(cd "$ws" && exec "${AS[@]}" "$CORRAL" run --workspace "$ws" --json-status "$st" -- true) &
		else
			(cd "$ws" && exec "${AS[@]}" "$CORRAL" run --workspace "$ws" --json-status "$st" -- \
				sh -c 'touch "$PWD/started"; sleep 30; : '"$TAG") &
		fi
		pid=$!
		pause "$(printf '0.%06d' "$d")"
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		# A status that is still "started" (written before the sandbox) means corral was killed.
		if [ -s "$st" ] && ! jq -e '.outcome == "started"' "$st" >/dev/null 2>&1; then
			after=$((after + 1))
		elif [ -e "$ws/started" ]; then
			running=$((running + 1))
		else
			before=$((before + 1))
		fi
		whole_json "$st" || bad_status=$((bad_status + 1))
	done 2>/dev/null
	diag "$m: $KILLS kills: $before before the command started, $running while it ran, $after after the status was written"
	check "$m: SIGKILL at random delays: every JSON status is whole or empty" test "$bad_status" = 0
	check "$m: SIGKILL at random delays: the ledger holds whole lines only" whole_lines "$ledger"
	left "$m: SIGKILL at random delays"
	control "$m" "SIGKILL at random delays"
	s=$(stale_dirs)
	check "$m: the next run removed every cgroup directory of the killed launchers" test -z "$s"
	[ -z "$s" ] || diag "stale: $(head -3 <<<"$s" | tr '\n' ' ')"
done

# --- corral serve killed mid-exec --------------------------------------------------------------
for m in $MODES; do
	ws=$(mkws "$m")
	ledger=$(ledger_of "$m")
	if [ "$m" = user ] && [ "$(id -u)" -eq 0 ]; then pre=("${AS_USER[@]}"); else pre=(); fi
	coproc SRV { cd "$ws" && exec "${pre[@]}" "$CORRAL" serve --stdio 2>"$CR_TMP/serve-err"; }
	spid=$SRV_PID
	printf '%s\n' '{"type":"open_session","id":1,"session":"f","workspace":"'"$ws"'"}' \
		'{"type":"exec","id":2,"session":"f","shell":"sleep 30; : '"$TAG"'"}' >&"${SRV[1]}"
	wait_for pgrep -f "$TAG" >/dev/null
	started=$(pgrep -f "$TAG" | wc -l)
	kill -KILL "$spid"
	wait "$spid" 2>/dev/null
	check "$m: corral serve killed with SIGKILL while an exec ran ($started tagged processes were running)" \
		test "$started" -gt 0
	check "$m: corral serve killed: the ledger holds whole lines only" whole_lines "$ledger"
	left "$m: corral serve killed mid-exec"
	control "$m" "corral serve killed mid-exec"
	s=$(stale_dirs)
	check "$m: corral serve killed: the next run removed its cgroup directories" test -z "$s"
done

# --- RLIMIT_NOFILE -----------------------------------------------------------------------------
for m in $MODES; do
	ws=$(mkws "$m")
	bad='' first_ok=
	for n in 4 5 6 8 10 12 14 16 20 24 32 40; do
		OUT=$(cd "$ws" && as "$m" prlimit --nofile="$n" "$CORRAL" run --workspace "$ws" --json-status "$OUTD/nofile-$m.json" -- true 2>"$CR_TMP/stderr")
		RC=$?
		ERR=$(<"$CR_TMP/stderr")
		case $RC in
		0) [ -n "$first_ok" ] || first_ok=$n ;;
		125) [[ $ERR == *"Too many open files"* ]] && [ "$(wc -l <<<"$ERR")" -le 2 ] ||
			bad+=" nofile=$n: rc 125 but stderr '$ERR'"
			# A stage of the sandbox's pid 1 names the limit and the fix.
			[[ $ERR != *"stage 'open_sources'"* || $ERR == *"(RLIMIT_NOFILE is $n; raise it"* ]] ||
			bad+=" nofile=$n: no hint in '$ERR'" ;;
		*) bad+=" nofile=$n: rc $RC, stderr '$ERR'" ;;
		esac
		whole_json "$OUTD/nofile-$m.json" || bad+=" nofile=$n: half-written status"
	done
	check "$m: RLIMIT_NOFILE 4..40 for the launcher: a clean run, or exit 125 naming EMFILE (and the limit, from the sandbox's setup) (first clean run at $first_ok)" \
		test -z "$bad"
	[ -z "$bad" ] || diag "$bad"
	OUT=$(printf '%s\n' '{"type":"open_session","id":1,"session":"n","workspace":"'"$ws"'"}' \
		'{"type":"exec","id":2,"session":"n","argv":["true"]}' |
		(cd "$ws" && as "$m" prlimit --nofile=16 "$CORRAL" serve --stdio --no-audit 2>/dev/null))
	RC=$?
	if [ "$RC" = 0 ] && jq -e -s 'length == 2 and (.[0].type == "open_session_result" or
		(.[0].error == "sandbox_failed" and (.[0].message | test("Too many open files"))))' <<<"$OUT" >/dev/null 2>&1; then
		ok "$m: corral serve with RLIMIT_NOFILE 16: the session opens or fails with sandbox_failed naming EMFILE; exit 0"
	else
		not_ok "$m: corral serve with RLIMIT_NOFILE 16"
		diag "rc $RC: $OUT"
	fi
	left "$m: RLIMIT_NOFILE"
	control "$m" "RLIMIT_NOFILE"
done

# --- an unreadable workspace -------------------------------------------------------------------
for m in $MODES; do
	# A directory of root's, mode 0700: a user's corral may not enter it, nor its sandbox (a
	# sandbox's capabilities in its user namespace cover only its mapped uids).
	ws=$(mktemp -d "$CR_TMP/unread.XXXXXX")
	chmod 0700 "$ws"
	rm -f "$OUTD/unread-$m.json"
	OUT=$(cd / && as "$m" "$CORRAL" run --workspace "$ws" --json-status "$OUTD/unread-$m.json" -- true 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
	if [ "$m" = root ]; then
		# As root the workspace is idmapped to its owner, so the sandbox's uid owns it there:
		# root's 0700 directory is no fault any more, and the run goes ahead.
		check "root: a workspace of root's, mode 0700, is idmapped and entered (exit 0)" \
			eval '[ "$RC" = 0 ] && jq -e --arg ws "$ws" "[.enforced.idmapped[].path] | index(\$ws)" \
				"$OUTD/unread-$m.json" >/dev/null'
		[ "$RC" = 0 ] || diag "rc $RC: $ERR"
	elif [ "$RC" = 125 ] && [[ $ERR == *"cannot enter the working directory $ws"*"Permission denied"* ]] &&
		jq -e '.outcome == "setup_failed" and .error.stage == "cwd" and .error.errno_name == "EACCES"' \
			"$OUTD/unread-$m.json" >/dev/null 2>&1; then
		ok "$m: a workspace the sandbox's uid cannot enter (root's, 0700): exit 125 at stage cwd, saying it cannot be entered (EACCES), not that it is missing"
	else
		not_ok "$m: a workspace the sandbox's uid cannot enter"
		diag "rc $RC: $ERR" "$(cat "$OUTD/unread-$m.json" 2>/dev/null)"
	fi
	if [ "$m" = root ]; then
		# The sandbox's own uid owns it but may not write it: the hint is chmod, not --uid.
		ws=$(mkws root)
		chmod 0555 "$ws"
		sb root "$ws" -- true
		check "root: a workspace of mode 0555 owned by the sandbox's uid: the warning says chmod u+w, not --uid of its owner" \
			eval '[ "$RC" = 0 ] && [[ $ERR == *"whose mode 0555 does not let its owner write; chmod u+w"* ]] &&
				[[ $ERR != *"(its owner)"* ]]'
	fi
	left "$m: unreadable workspace"
	control "$m" "unreadable workspace"
done

if [ "$(id -u)" -ne 0 ]; then
	skip "root-only faults" "disk full, /proc read-only and cgroup removal need root (mounts, cgroup v1)"
	exit 0
fi

# --- /proc read-only ---------------------------------------------------------------------------
# remount,bind,ro changes this mount namespace's /proc mount only, never the proc superblock.
for m in $MODES; do
	ws=$(mkws "$m")
	if [ "$m" = user ]; then pre=("${AS_USER[@]}"); else pre=(); fi
	OUT=$(cd "$ws" && unshare -m --propagation private sh -c 'mount -o remount,bind,ro /proc && exec "$@"' sh \
		"${pre[@]}" "$CORRAL" run --workspace "$ws" --json-status "$OUTD/procro-$m.json" -- true 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
	if [ "$RC" = 125 ] && [[ $ERR == *"Read-only file system"* ]] &&
		jq -e '.outcome == "setup_failed" and .error.stage == "uid_map"' "$OUTD/procro-$m.json" >/dev/null 2>&1; then
		ok "$m: /proc read-only: exit 125 at stage uid_map, naming EROFS"
	else
		not_ok "$m: /proc read-only"
		diag "rc $RC: $ERR" "$(cat "$OUTD/procro-$m.json" 2>/dev/null)"
	fi
	check "$m: /proc read-only: the ledger holds whole lines only" whole_lines "$(ledger_of "$m")"
	left "$m: /proc read-only"
	control "$m" "/proc read-only"
done

# --- the disk full -----------------------------------------------------------------------------
# In a private mount namespace: a 64 KiB tmpfs holding the state directory (ledger, sessions),
# then filled. tmpfs allocates whole pages, so appends keep fitting in the ledger's last page
# until one straddles its end: that write is short, then fails, and must be cut off again.
full_case() {
	local m=$1 dir=$CR_TMP/full-$1 uid
	uid=$(if [ "$m" = user ]; then echo 65534; else id -u; fi)
	mkdir -p "$dir"
	: >"$dir.errs"
	: >"$dir.session-err"
	chmod 0666 "$dir.errs" "$dir.session-err"
	cat >"$CR_TMP/full-$m.sh" <<-'EOF'
		set -u
		dir=$1 uid=$2 corral=$3 ws=$4 cfg=$5
		shift 5
		mount -t tmpfs -o size=64k,mode=0755 tmpfs "$dir" || exit 99
		mkdir -m 0700 "$dir/state" && chown "$uid:$uid" "$dir/state"
		as() { if [ "$uid" = 0 ]; then "$@"; else setpriv --reuid="$uid" --regid="$uid" --clear-groups -- "$@"; fi; }
		run() { (cd "$ws" && as env XDG_STATE_HOME="$dir/state" XDG_CONFIG_HOME="$cfg" "$corral" run --workspace "$ws" "$@"); }
		run -- true 2>/dev/null
		echo "first=$?"
		dd if=/dev/zero of="$dir/filler" bs=4k count=64 2>/dev/null
		for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
			run -- sh -c ": $(head -c $((i * 97)) /dev/zero | tr '\0' x)" 2>>"$dir.errs"
			echo "rc$i=$?"
		done
		echo "errs=$(grep -c 'No space left on device (nothing was written)' "$dir.errs")"
		echo "other=$(grep -vc 'No space left on device (nothing was written)' "$dir.errs")"
		cp "$dir/state/corral/audit.jsonl" "$dir.ledger" 2>/dev/null
		run --session full-s -- true 2>"$dir.session-err"
		echo "session=$?"
		echo "session_msg=$(head -c 300 "$dir.session-err" | tr '\n' ' ')"
		echo "left_ws=$(find "$dir/state/corral/sessions" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | wc -l)"
		as env XDG_STATE_HOME="$dir/state" XDG_CONFIG_HOME="$cfg" "$corral" session list >/dev/null 2>&1
		echo "list=$?"
		rm -f "$dir/filler"
		run --session full-s -- true 2>/dev/null
		echo "retry=$?"
	EOF
	OUT=$(unshare -m --propagation private bash "$CR_TMP/full-$m.sh" "$dir" "$uid" "$CORRAL" "$(mkws "$m")" \
		"$CR_TMP/config-$uid")
	ERR=
	RC=0
	res "$m: ledger on a full disk: every run still completes (exit 0), and the ledger failures say so in one line each" \
		first=0 rc1=0 rc4=0 rc8=0 rc12=0 other=0
	n=$(grep '^errs=' <<<"$OUT")
	check "$m: ledger on a full disk: some appends failed with ENOSPC (${n#errs=} of 12) and the file ends with whole lines only" \
		eval '[ "${n#errs=}" -gt 0 ] && whole_lines "$dir.ledger"'
	res "$m: session store on a full disk: exit 125, nothing run, no workspace left without its record; the store still lists; once there is room, the same session works" \
		session=125 left_ws=0 list=0 retry=0
	check "$m: session store on a full disk: the error names the session file and ENOSPC" \
		grep -q '^session_msg=.*sessions/.*No space left on device' <<<"$OUT"
	left "$m: disk full"
	control "$m" "disk full"
}
for m in $MODES; do full_case "$m"; done

# --- the run's cgroup removed underneath ----------------------------------------------------
if [ -d /sys/fs/cgroup/pids ] && ! grep -qw pids /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	ws=$(mkws root)
	st=$CR_TMP/cg.json
	# 1. The processes moved out to the hierarchy's root, the directory removed.
	(cd "$ws" && exec "$CORRAL" run --workspace "$ws" --json-status "$st" -- sh -c 'sleep 1; : '"$TAG") 2>"$CR_TMP/stderr" &
	pid=$!
	wait_for pgrep -f "$TAG" >/dev/null
	d=$(find /sys/fs/cgroup/pids -maxdepth 4 -type d -name "run-$pid-*")
	while read -r t; do echo "$t" >/sys/fs/cgroup/pids/cgroup.procs; done 2>/dev/null <"$d/cgroup.procs"
	rmdir "$d" 2>/dev/null
	removed=$([ -n "$d" ] && [ ! -d "$d" ] && echo yes)
	wait "$pid"
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
	if [ "$removed" = yes ] && [ "$RC" = 0 ] && [ -z "$ERR" ] && jq -e '.outcome == "exited"' "$st" >/dev/null 2>&1; then
		ok "root: the run's pids cgroup removed underneath (its processes moved out): the command finishes, exit 0, no error"
	else
		not_ok "root: the run's pids cgroup removed underneath (processes moved out)"
		diag "dir '$d' removed '$removed' rc $RC: $ERR"
	fi
	left "root: cgroup removed (moved out)"
	# 2. The processes killed, the directory removed (what an administrator's cleanup does).
	(cd "$ws" && exec "$CORRAL" run --workspace "$ws" --json-status "$st" -- sh -c 'sleep 30; : '"$TAG") 2>"$CR_TMP/stderr" &
	pid=$!
	wait_for pgrep -f "$TAG" >/dev/null
	d=$(find /sys/fs/cgroup/pids -maxdepth 4 -type d -name "run-$pid-*")
	for ((i = 0; i < 50; i++)); do
		while read -r t; do kill -KILL "$t" 2>/dev/null; done 2>/dev/null <"$d/cgroup.procs"
		rmdir "$d" 2>/dev/null && break
		pause 0.05
	done
	wait "$pid"
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
	if [ ! -d "$d" ] && [ "$RC" = 137 ] && jq -e '.outcome == "signaled" and .signal_name == "SIGKILL"' "$st" >/dev/null 2>&1; then
		ok "root: the run's pids cgroup killed and removed underneath: corral reports the SIGKILL (137) and ends"
	else
		not_ok "root: the run's pids cgroup killed and removed underneath"
		diag "dir '$d' rc $RC: $ERR" "$(cat "$st" 2>/dev/null)"
	fi
	left "root: cgroup removed (killed)"
	control root "cgroup removed underneath"
else
	skip "cgroup removed underneath" "no cgroup v1 pids hierarchy (the cgroup v2 case is in tests/vm/)"
fi
