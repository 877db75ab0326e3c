#!/bin/bash
# proc: the sandbox's processes. Its own pid namespace (the host's processes are invisible and
# cannot be signalled), nothing it starts outlives corral (daemons, corral killed by SIGKILL,
# timeouts), signals sent to corral reach the command, exit statuses, nothing left on the host
# after many runs, and the host uid a sandboxed process runs as.
# check and check_sb take their condition as a string for eval, in single quotes:
# shellcheck disable=SC2016
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

# Every process the tests start inside a sandbox carries TAG in its command line, so the host can
# find leftovers with pgrep -f. TAG never appears in corral's own argv: the sandboxed scripts are
# files in the workspace.
TAG=crproc-$$-$RANDOM
SB_OUT=$CR_TMP/sb.out
SB_ERR=$CR_TMP/sb.err
HOST_PIDS=()

# Kills what the tests started: the host sleeper, and (if a test failed or the suite was
# interrupted) tagged processes and their children.
proc_cleanup() {
	local p pids=("${HOST_PIDS[@]}") children
	for p in $(pgrep -f "$TAG"); do
		mapfile -t children < <(pgrep -P "$p")
		pids+=("$p" "${children[@]}")
	done
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	rm -f /tmp/"$TAG"-*-scratch # only there if a run wrote to the host's /tmp
}
CR_CLEANUP_HOOK="${CR_CLEANUP_HOOK:+$CR_CLEANUP_HOOK; }proc_cleanup"

# alive PID: the process exists and is not a zombie.
alive() {
	local st
	st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}

json_ok() { jq -e "$2" "$1" >/dev/null 2>&1; }
has_line() { grep -qx -- "$2" "$1" 2>/dev/null; }
no_tagged() { ! pgrep -f "$1" >/dev/null; }
tagged_at_least() { [ "$(pgrep -f "$1" | wc -l)" -ge "$2" ]; }

# sb_start MODE WS [OPTS] -- CMD...: corral run as MODE, in the background, like lib.sh's
# sandbox(); SB_PID is corral's own pid; its output goes to $SB_OUT and $SB_ERR.
sb_start() {
	local mode=$1 ws=$2 pre=() sigs
	shift 2
	if [ "$mode" = user ] && [ "$(id -u)" -eq 0 ]; then
		pre=("${AS_USER[@]}")
	fi
	# bash starts background jobs with SIGINT and SIGQUIT ignored; a foreground corral has them
	# at their defaults. SIGHUP too: the suite itself may run under nohup (or setsid nohup in a
	# CI script), and a signal ignored at bash's start cannot be trapped back.
	if [ -n "${SB_NOHUP:-}" ]; then
		sigs=(--default-signal=INT,QUIT --ignore-signal=HUP)
	else
		sigs=(--default-signal=INT,QUIT,HUP)
	fi
	(cd "$ws" && exec env "${sigs[@]}" "${pre[@]}" \
		"$CORRAL" run --workspace "$ws" --ro "$BIN" --grant once "$@") >"$SB_OUT" 2>"$SB_ERR" &
	SB_PID=$!
}

# sb_wait [SECS]: wait at most SECS (20) for corral; SB_RC is its exit status, or 255 if it had
# to be killed.
sb_wait() {
	local limit=$((${1:-20} * 20)) i
	for ((i = 0; i < limit; i++)); do
		alive "$SB_PID" || break
		sleep 0.05
	done
	if alive "$SB_PID"; then
		diag "corral (pid $SB_PID) still running after ${1:-20}s; killed"
		kill -KILL "$SB_PID"
		{ wait "$SB_PID"; } 2>/dev/null
		SB_RC=255
		return
	fi
	{ wait "$SB_PID"; } 2>/dev/null
	SB_RC=$?
}

# sb MODE WS [OPTS] -- CMD...: run and wait (bounded); SB_RC, $SB_OUT, $SB_ERR.
sb() {
	sb_start "$@"
	sb_wait 20
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

show_failure() {
	diag "corral exit $SB_RC; stdout:" "$(cat "$SB_OUT")" "stderr:" "$(cat "$SB_ERR")"
}

# check_sb NAME COND...: like check, with corral's output shown on failure.
check_sb() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; show_failure; fi
}

# A host process running as the sandbox's own host uid: only the pid namespace keeps the
# sandbox from seeing and signalling it.
start_victim() {
	local u
	u=$(host_uid "$1")
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid="$u" --regid="$u" --clear-groups -- sleep 300 &
	else
		sleep 300 &
	fi
	VICTIM=$!
	HOST_PIDS+=("$VICTIM")
}

test_pidns() {
	local m=$1 ws=$2
	cat >"$ws/pidns.sh" <<-EOF
		[ -d /proc/$VICTIM ] && echo host_visible
		$PEER kill $VICTIM 0; echo host_kill=\$?
		kill -0 $VICTIM 2>/dev/null; echo sh_kill=\$?
		[ -d /proc/1 ] && echo pid1=yes
		echo self=\$\$
		sleep 60 &
		c=\$!
		[ -d /proc/\$c ] && echo child_visible=yes
		$PEER kill \$c 0; echo child_kill0=\$?
		$PEER kill \$c TERM; echo child_kill=\$?
		wait \$c; echo child_status=\$?
		n=0
		for p in /proc/[0-9]*; do n=\$((n + 1)); done
		echo nprocs=\$n
	EOF
	sb "$m" "$ws" -- sh "$ws/pidns.sh"
	check_sb "$m: a host process (same host uid) is absent from the sandbox's /proc and kill(2) on it fails with ESRCH; the command can signal its own child" \
		eval '[ "$SB_RC" -eq 0 ] && ! grep -q host_visible "$SB_OUT" &&
		has_line "$SB_OUT" host_kill=3 && ! has_line "$SB_OUT" sh_kill=0 &&
		has_line "$SB_OUT" child_visible=yes && has_line "$SB_OUT" child_kill0=0 &&
		has_line "$SB_OUT" child_kill=0 && has_line "$SB_OUT" child_status=143'
	check_sb "$m: the sandbox is its own small pid namespace: the command is pid 2, pid 1 exists, few processes" \
		eval 'has_line "$SB_OUT" self=2 && has_line "$SB_OUT" pid1=yes &&
		[ "$(sed -n "s/^nprocs=//p" "$SB_OUT")" -le 6 ]'
	check "$m: the host process is still alive after the sandbox tried to signal it" alive "$VICTIM"
}

# A guard for the sandboxed scripts that signal pid 1 or -1: go on only in a pid namespace of
# our own, without host root, where this suite's shell is out of sight. With a broken corral that
# ran commands on the host, kill(-1, SIGKILL) as root would take the whole machine down.
IN_PIDNS="{ [ \$\$ -eq 2 ] && [ ! -e /proc/$$ ] && [ \$(id -u) -ne 0 ]; }"

test_kill_init() {
	local m=$1 ws=$2
	cat >"$ws/kill1.sh" <<-EOF
		$IN_PIDNS || exit 99
		sleep 60 &
		c=\$!
		$PEER kill 1 KILL; echo kill1=\$?
		sleep 0.2
		[ -d /proc/1 ] && echo pid1=alive
		$PEER kill \$c 0; echo sibling=\$?
		exit 7
	EOF
	sb "$m" "$ws" -- sh "$ws/kill1.sh"
	check_sb "$m: kill -9 1 from inside is ignored: pid 1 and the command live on and corral returns the command's status (7)" \
		eval '[ "$SB_RC" -eq 7 ] && has_line "$SB_OUT" kill1=0 &&
		has_line "$SB_OUT" pid1=alive && has_line "$SB_OUT" sibling=0'
	check "$m: the host process is alive after kill -9 1 inside" alive "$VICTIM"

	# kill(-1) reaches everything the caller may signal: the command itself (positive control:
	# corral reports SIGKILL), but nothing outside the namespace.
	cat >"$ws/killall.sh" <<-EOF
		$IN_PIDNS || exit 99
		$PEER kill -1 KILL
		echo survived
	EOF
	sb "$m" "$ws" -- sh "$ws/killall.sh"
	check_sb "$m: kill -9 -1 from inside kills the sandbox's own processes (exit 137)" \
		eval '[ "$SB_RC" -eq 137 ] && ! grep -q survived "$SB_OUT"'
	check "$m: kill -9 -1 from inside does not reach the host process" alive "$VICTIM"
}

test_daemon() {
	local m=$1 ws=$2 t=$TAG-$1-daemon
	cat >"$ws/daemon.sh" <<-EOF
		$PEER daemon $ws/daemon.pid $t || exit 90
		sh -c "sleep 120; : $t" &
		echo started >$ws/started
		i=0
		while [ ! -e $ws/go ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i + 1)); done
		exit 0
	EOF
	sb_start "$m" "$ws" -- sh "$ws/daemon.sh"
	if wait_for has_line "$ws/started" started && wait_for tagged_at_least "$t" 2 &&
		[ -s "$ws/daemon.pid" ]; then
		ok "$m: positive control: a daemonized grandchild (double fork + setsid) and a background child run while the command runs"
	else
		not_ok "$m: positive control: a daemonized grandchild (double fork + setsid) and a background child run while the command runs"
		diag "processes tagged $t: $(pgrep -f "$t" | tr '\n' ' ')"
	fi
	touch "$ws/go"
	sb_wait 20
	local left
	left=$(pgrep -f "$t" | tr '\n' ' ')
	if [ "$SB_RC" -eq 0 ] && [ -z "$left" ]; then
		ok "$m: the daemon and the background child are dead when corral run returns"
	else
		not_ok "$m: the daemon and the background child are dead when corral run returns"
		diag "exit $SB_RC; still running: $left"
		show_failure
	fi
}

test_immediate_exit() {
	local m=$1 ws=$2 t=$TAG-$1-immediate left
	cat >"$ws/immediate.sh" <<-EOF
		$PEER daemon $ws/immediate.pid $t || exit 90
		sh -c "sleep 120; : $t" &
		exit 0
	EOF
	sb "$m" "$ws" -- sh "$ws/immediate.sh"
	left=$(pgrep -f "$t" | tr '\n' ' ')
	if [ "$SB_RC" -eq 0 ] && [ -s "$ws/immediate.pid" ] && [ -z "$left" ]; then
		ok "$m: a daemon started just before the command exits (it wrote its pid file) does not outlive corral"
	else
		not_ok "$m: a daemon started just before the command exits (it wrote its pid file) does not outlive corral"
		diag "pid file: $(cat "$ws/immediate.pid" 2>/dev/null); still running: $left"
		show_failure
	fi
}

test_sigkill_corral() {
	local m=$1 ws=$2 t=$TAG-$1-sigkill init left
	cat >"$ws/sigkill.sh" <<-EOF
		$PEER daemon $ws/sigkill.pid $t || exit 90
		sh -c "sleep 120; : $t" &
		echo started >$ws/sigkill.started
		sh -c "sleep 30; : $t"
	EOF
	sb_start "$m" "$ws" -- sh "$ws/sigkill.sh"
	wait_for has_line "$ws/sigkill.started" started && wait_for tagged_at_least "$t" 2
	init=$(pgrep -P "$SB_PID")
	check "$m: positive control: the sandbox's pid 1, a daemon and a background child are running" \
		eval '[ -n "$init" ] && tagged_at_least "$t" 2'
	kill -KILL "$SB_PID"
	sb_wait 20 2>/dev/null # no "Killed" job notice from bash
	# The sandbox's pid 1 gets SIGKILL when corral dies (PR_SET_PDEATHSIG), asynchronously.
	wait_for no_tagged "$t"
	left=$(pgrep -f "$t" | tr '\n' ' ')
	if [ "$SB_RC" -eq 137 ] && [ -z "$left" ] && { [ -z "$init" ] || ! alive "$init"; }; then
		ok "$m: corral killed with SIGKILL takes the whole sandbox with it"
	else
		not_ok "$m: corral killed with SIGKILL takes the whole sandbox with it"
		diag "exit $SB_RC; pid 1 ($init) alive: $(alive "$init" && echo yes || echo no); still running: $left"
		alive "$init" && kill -KILL "$init" # and with it the rest of that sandbox
	fi
}

test_forwarding() {
	local m=$1 ws=$2 sig n f
	for sig in TERM INT HUP; do
		n=$(kill -l "$sig")
		f=$ws/handled-$sig
		sb_start "$m" "$ws" -- "$PEER" wait-signal "$sig" "$f"
		if wait_for has_line "$f" ready; then kill -"$sig" "$SB_PID"; fi
		sb_wait 20
		check_sb "$m: SIG$sig sent to corral reaches the command, which handles it; corral returns its status (0)" \
			eval '[ "$SB_RC" -eq 0 ] && has_line "$f" "got SIG$sig"'

		f=$ws/default-$sig
		sb_start "$m" "$ws" -- "$PEER" wait-signal USR1 "$f"
		if wait_for has_line "$f" ready; then kill -"$sig" "$SB_PID"; fi
		sb_wait 20
		check_sb "$m: SIG$sig sent to corral kills a command that does not handle it; corral returns $((128 + n))" \
			eval '[ "$SB_RC" -eq $((128 + n)) ] && has_line "$f" ready'
	done
}

test_timeout() {
	local m=$1 ws=$2 t=$TAG-$1-timeout start elapsed left
	cat >"$ws/stubborn.sh" <<-EOF
		trap '' TERM
		sh -c "sleep 60; : $t" &
		echo started >$ws/stubborn.started
		sh -c "sleep 60; : $t"
	EOF
	start=$(now_ms)
	sb_start "$m" "$ws" --timeout 1 --kill-after 1.5 --json-status "$ws/timeout.json" -- sh "$ws/stubborn.sh"
	wait_for has_line "$ws/stubborn.started" started
	check "$m: positive control: the tree that ignores SIGTERM is running before the timeout" \
		tagged_at_least "$t" 1
	sb_wait 20
	elapsed=$(($(now_ms) - start))
	left=$(pgrep -f "$t" | tr '\n' ' ')
	if [ "$SB_RC" -eq 124 ] && [ "$elapsed" -ge 2400 ] && [ "$elapsed" -lt 8000 ] && [ -z "$left" ] &&
		grep -q 'timed out' "$SB_ERR"; then
		ok "$m: --timeout 1 --kill-after 1.5 kills a tree that ignores SIGTERM after the grace (${elapsed}ms) and exits 124"
	else
		not_ok "$m: --timeout 1 --kill-after 1.5 kills a tree that ignores SIGTERM after the grace (${elapsed}ms) and exits 124"
		diag "still running: $left"
		show_failure
	fi
	if command -v jq >/dev/null; then
		check "$m: the JSON status of a timed-out run says timed_out and exit_code 124" \
			json_ok "$ws/timeout.json" '.timed_out == true and .exit_code == 124'
	else
		skip "$m: the JSON status of a timed-out run says timed_out and exit_code 124" "jq is not installed"
	fi

	start=$(now_ms)
	sb "$m" "$ws" --timeout 1 --kill-after 10 -- sleep 60
	elapsed=$(($(now_ms) - start))
	check_sb "$m: --timeout 1 stops a command that obeys SIGTERM promptly (${elapsed}ms, well before --kill-after 10) and exits 124" \
		eval '[ "$SB_RC" -eq 124 ] && [ "$elapsed" -ge 900 ] && [ "$elapsed" -lt 5000 ]'
}

test_exit_status() {
	local m=$1 ws=$2 sig want
	sb "$m" "$ws" -- sh -c 'exit 3'
	check_sb "$m: positive control: corral returns the command's own status (3)" eval '[ "$SB_RC" -eq 3 ]'
	sb "$m" "$ws" -- sh -c 'exit 130'
	check_sb "$m: a command that exits 130 by itself makes corral return 130" eval '[ "$SB_RC" -eq 130 ]'
	for sig in KILL TERM USR1; do
		want=$((128 + $(kill -l "$sig")))
		sb "$m" "$ws" --json-status "$ws/signal.json" -- sh -c "kill -$sig \$\$; exit 1"
		check_sb "$m: a command killed by SIG$sig makes corral return $want" eval '[ "$SB_RC" -eq $want ]'
	done
	if command -v jq >/dev/null; then
		check "$m: the JSON status names the signal that killed the command" \
			json_ok "$ws/signal.json" '.signal_name == "SIGUSR1" and .exit_code == 138'
	else
		skip "$m: the JSON status names the signal that killed the command" "jq is not installed"
	fi
}

# Processes that could be leftovers of a run: corral itself, and anything running as the
# sandbox's host uid outside this suite's session (sandboxes have sessions of their own). The
# session test leaves out this snapshot's own ps, awk and sort when the suite runs unprivileged.
snapshot_procs() {
	ps -e -o pid=,uid=,sid=,comm= |
		awk -v u="$(host_uid "$1")" -v sid="$(ps -o sid= -p $$)" \
			'($2 == u && $3 != sid) || $4 == "corral" { print $1, $4 }' |
		sort
}

# What is in the host's /tmp, but this suite's own directory.
# What a sandbox could leave in the host's /tmp: entries owned by its host uid, or named after this
# suite. (Other users of the machine, root's tools among them, come and go meanwhile.)
tmp_entries() {
	find /tmp -mindepth 1 -maxdepth 1 ! -path "$CR_TMP" \( -user "$(host_uid "$m")" -o -name "*$TAG*" \) \
		-printf '%f\n' | sort
}

test_batch() {
	local m=$1 ws=$2 t=$TAG-$1-batch i bad=0 procs_before mounts_before tmp_before new_procs
	local procs_after tmp_after mounts_after
	cat >"$ws/batch.sh" <<-EOF
		$PEER daemon $ws/batch.pid $t || exit 90
		sh -c "sleep 120; : $t" &
		echo x >/tmp/$t-scratch
		exit 0
	EOF
	procs_before=$(snapshot_procs "$m")
	mounts_before=$(wc -l </proc/self/mountinfo)
	tmp_before=$(tmp_entries)
	for ((i = 0; i < 20; i++)); do
		sb "$m" "$ws" -- sh "$ws/batch.sh"
		[ "$SB_RC" -eq 0 ] || { bad=$((bad + 1)); show_failure; }
	done
	check "$m: positive control: 20 runs that each start a daemon and a background child succeed" \
		[ "$bad" -eq 0 ]
	procs_after=$(snapshot_procs "$m")
	new_procs=$(comm -13 <(echo "$procs_before") <(echo "$procs_after"))
	if [ -z "$new_procs" ] && no_tagged "$t"; then
		ok "$m: no process is left on the host after 20 runs"
	else
		not_ok "$m: no process is left on the host after 20 runs"
		diag "new processes:" "$new_procs" "tagged: $(pgrep -f "$t" | tr '\n' ' ')"
	fi
	mounts_after=$(wc -l </proc/self/mountinfo)
	check "$m: no mount is left on the host after 20 runs ($mounts_before before, $mounts_after after)" \
		[ "$mounts_before" -eq "$mounts_after" ]
	tmp_after=$(tmp_entries)
	if [ "$tmp_before" = "$tmp_after" ]; then
		ok "$m: nothing is left in the host's /tmp after 20 runs"
	else
		not_ok "$m: nothing is left in the host's /tmp after 20 runs"
		diag "$(diff <(echo "$tmp_before") <(echo "$tmp_after"))"
	fi
}

# field FILE KEY: the value of "KEY:" in a /proc status file, tabs as spaces.
field() { sed -n "s/^$2:[[:space:]]*//p" "$1" 2>/dev/null | tr '\t' ' '; }

test_host_uid() {
	local m=$1 ws=$2 u init cmd want
	local f=$ws/uid.ready
	u=$(host_uid "$m")
	want="$u $u $u $u"
	sb_start "$m" "$ws" -- "$PEER" wait-signal TERM "$f"
	wait_for has_line "$f" ready
	init=$(pgrep -P "$SB_PID")
	cmd=${init:+$(pgrep -P "$init")}
	if [ -n "$cmd" ] && [ "$(field "/proc/$cmd/status" NSpid | awk '{ print $NF }')" = 2 ] &&
		tr '\0' ' ' <"/proc/$cmd/cmdline" 2>/dev/null | grep -q 'peer wait-signal TERM'; then
		ok "$m: positive control: the host finds the sandboxed command (pid $cmd, pid 2 inside)"
	else
		not_ok "$m: positive control: the host finds the sandboxed command (pid $cmd, pid 2 inside)"
	fi
	check "$m: the sandboxed command runs as host uid/gid $u, not 0 (read from the host's /proc)" \
		eval '[ "$(field "/proc/$cmd/status" Uid)" = "$want" ] &&
		[ "$(field "/proc/$cmd/status" Gid)" = "$want" ]'
	check "$m: the sandboxed command has no capabilities (CapEff 0)" \
		eval '[ "$(field "/proc/$cmd/status" CapEff)" = 0000000000000000 ]'
	check "$m: the sandbox's pid 1 runs as host uid/gid $u, not 0" \
		eval '[ "$(field "/proc/$init/status" Uid)" = "$want" ] &&
		[ "$(field "/proc/$init/status" Gid)" = "$want" ]'
	kill -TERM "$SB_PID"
	sb_wait 20
}

# A signal corral was started with ignored (nohup) stays ignored for the command: SIGHUP then
# changes nothing. Control: without nohup the same SIGHUP ends the command (129).
test_nohup() {
	local m=$1 ws=$2 rc_plain rc_nohup
	sb_start "$m" "$ws" -- sleep 1.5
	sleep 0.4
	kill -HUP "$SB_PID"
	sb_wait
	rc_plain=$SB_RC
	SB_NOHUP=1 sb_start "$m" "$ws" -- sleep 1.5
	sleep 0.4
	kill -HUP "$SB_PID"
	sb_wait
	rc_nohup=$SB_RC
	check "$m: started under nohup, SIGHUP to corral leaves the command running to exit 0 (got $rc_nohup; without nohup: $rc_plain)" \
		eval '[ "$rc_nohup" = 0 ] && [ "$rc_plain" = 129 ]'
}

# counter_at FILE: the number the counting command last wrote (-1 before it wrote one).
counter_at() {
	local v
	v=$(tail -n 1 "$1" 2>/dev/null)
	[[ $v =~ ^[0-9]+$ ]] && echo "$v" || echo -1
}

# counter_started FILE: the counting command has written a number.
counter_started() { [ "$(counter_at "$1")" -ge 0 ]; }

# counter_moves FILE SECS: the counter advances within SECS.
counter_moves() {
	local a b i
	a=$(counter_at "$1")
	for ((i = 0; i < $2 * 20; i++)); do
		sleep 0.05
		b=$(counter_at "$1")
		[ "$b" -gt "$a" ] && [ "$a" -ge 0 ] && return 0
	done
	return 1
}

# counter_held FILE SECS: the counter stays still for SECS.
counter_held() {
	local a
	a=$(counter_at "$1")
	sleep "$2"
	[ "$a" -ge 0 ] && [ "$(counter_at "$1")" = "$a" ]
}

# counting_script FILE TAG [PREFIX]: a script that appends an ever growing number to FILE (one
# write per line: a stop never leaves half a number), in a shell whose command line carries TAG
# (corral's does not: the script is a file).
counting_script() {
	printf '%s\n' "exec sh -c '${3:-} i=0; while :; do i=\$((i + 1)); echo \$i >>$1; sleep 0.05; done; : $2'"
}

# all_stopped TAG: every tagged process (the sandboxed shell) is in state T.
all_stopped() {
	local p st n=0
	for p in $(pgrep -f "$1"); do
		st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$p/status" 2>/dev/null)
		[ "$st" = T ] || return 1
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}

# Job control from an interactive shell on a terminal: Ctrl-Z stops the whole sandbox with corral
# (not only corral: the sandbox is in a session of its own, out of the terminal's reach), the
# shell sees corral stopped, fg and bg continue it, Ctrl-C still ends it.
test_job_control() {
	local m=$1 ws=$2 t=$TAG-$1-jobs pre=()
	if ! command -v python3 >/dev/null || ! command -v bash >/dev/null; then
		skip "$m: Ctrl-Z in an interactive shell stops the sandbox" "python3 is not installed"
		return
	fi
	[ "$m" = user ] && [ "$(id -u)" -eq 0 ] && pre=("${AS_USER[@]}")
	counting_script "$ws/jobs.counter" "$t" >"$ws/jobs.sh"
	rm -f "$ws/jobs.counter"
	OUT=$(python3 "$CR_TESTS_DIR/integration/pty-jobs.py" "$ws/jobs.counter" \
		"cd $ws && $CORRAL run --workspace $ws --ro $BIN --grant once -- sh $ws/jobs.sh" \
		-- "${pre[@]}" bash --norc --noprofile -i 2>&1)
	RC=0 ERR=
	res "$m: positive control: from an interactive shell on a terminal the sandboxed counter runs, and Ctrl-C ends corral with 130" \
		started=1 rc=130
	res "$m: Ctrl-Z: the shell reports corral stopped and the command inside stops too (its counter holds for 1s)" \
		shell_stopped=1 held=1
	res "$m: fg continues the sandbox; Ctrl-Z then bg stops and continues it again" \
		fg_runs=1 bg_held=1 bg_runs=1
	check "$m: nothing of the job-control runs is left" wait_for no_tagged "$t"
}

# A SIGSTOP of corral cannot be caught: the sandbox follows it (pid 1 watches corral's state), and
# the timeout still holds while corral is stopped (pid 1 keeps the deadline): the command is gone
# at the deadline and corral, once continued, reports the timeout.
test_sigstop() {
	local m=$1 ws=$2 t=$TAG-$1-stop start left
	counting_script "$ws/stop.counter" "$t" >"$ws/stop.sh"
	counting_script "$ws/stop.counter" "$t-stubborn" 'trap "" TERM;' >"$ws/stubborn.sh"

	rm -f "$ws/stop.counter"
	sb_start "$m" "$ws" --timeout 2 --json-status "$ws/stop.json" -- sh "$ws/stop.sh"
	wait_for counter_started "$ws/stop.counter"
	check "$m: positive control: without a stop the counter of a --timeout 2 run keeps moving" \
		counter_moves "$ws/stop.counter" 1
	sb_wait 20
	check_sb "$m: positive control: the same run, never stopped, ends at the timeout with 124" \
		eval '[ "$SB_RC" -eq 124 ] && no_tagged "$t"'

	rm -f "$ws/stop.counter" "$ws/stop.json"
	start=$(now_ms)
	sb_start "$m" "$ws" --timeout 2 --json-status "$ws/stop.json" -- sh "$ws/stop.sh"
	wait_for counter_started "$ws/stop.counter"
	kill -STOP "$SB_PID"
	sleep 0.4
	check "$m: kill -STOP corral: the command inside stops too (state T, its counter holds)" \
		eval 'all_stopped "$t" && counter_held "$ws/stop.counter" 0.8 ||
		{ diag "$(ps -o pid,stat,args -p "$(pgrep -d, -f "$t")")"; false; }'
	left=$((start + 4000 - $(now_ms)))
	[ "$left" -le 0 ] || sleep "$((left / 1000)).$(printf %03d $((left % 1000)))"
	check "$m: kill -STOP corral with --timeout 2: 4 s after the start the command is gone though corral is still stopped" \
		eval 'no_tagged "$t" && [ "$(field "/proc/$SB_PID/status" State | cut -c1)" = T ]'
	kill -CONT "$SB_PID"
	sb_wait 20
	check_sb "$m: after SIGCONT corral exits 124, says it timed out, and its JSON status says outcome timed_out" \
		eval '[ "$SB_RC" -eq 124 ] && grep -q "timed out" "$SB_ERR" &&
		json_ok "$ws/stop.json" ".outcome == \"timed_out\" and .timed_out == true and .exit_code == 124"'

	rm -f "$ws/stop.counter"
	sb_start "$m" "$ws" --timeout 1 --kill-after 1 -- sh "$ws/stubborn.sh"
	wait_for counter_started "$ws/stop.counter"
	kill -STOP "$SB_PID"
	sleep 3.5
	check "$m: kill -STOP corral with --timeout 1 --kill-after 1 and a command ignoring SIGTERM: 3.5 s later it is gone" \
		no_tagged "$t-stubborn"
	kill -CONT "$SB_PID"
	sb_wait 20
	check_sb "$m: ... and corral exits 124 once continued" eval '[ "$SB_RC" -eq 124 ]'

	rm -f "$ws/stop.counter"
	sb_start "$m" "$ws" -- sh "$ws/stop.sh"
	wait_for counter_started "$ws/stop.counter"
	kill -STOP "$SB_PID"
	sleep 0.4
	counter_held "$ws/stop.counter" 0.5
	kill -CONT "$SB_PID"
	check_sb "$m: kill -CONT corral continues the sandbox it stopped" counter_moves "$ws/stop.counter" 2
	kill -TERM "$SB_PID"
	sb_wait 20
	check_sb "$m: ... which then ends on SIGTERM (143)" eval '[ "$SB_RC" -eq 143 ] && no_tagged "$t"'
}

for m in $MODES; do
	ws=$(new_workspace "$m")
	start_victim "$m"
	test_pidns "$m" "$ws"
	test_kill_init "$m" "$ws"
	test_daemon "$m" "$ws"
	test_immediate_exit "$m" "$ws"
	test_sigkill_corral "$m" "$ws"
	test_forwarding "$m" "$ws"
	test_timeout "$m" "$ws"
	test_exit_status "$m" "$ws"
	test_host_uid "$m" "$ws"
	test_batch "$m" "$ws"
	test_nohup "$m" "$ws"
	test_job_control "$m" "$ws"
	test_sigstop "$m" "$ws"
	kill -KILL "$VICTIM" 2>/dev/null
	wait "$VICTIM" 2>/dev/null
	HOST_PIDS=()
done
true
