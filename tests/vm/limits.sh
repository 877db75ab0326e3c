#!/bin/sh
# limits.sh: corral's resource limits on a pure cgroup v2 host, inside the guest that
# tests/vm/run.sh boots (busybox sh, no jq: the one-line JSON status is matched with grep).
# Runs after smoke.sh, in each MODE:
#   root  corral started by root: its runs go in /sys/fs/cgroup/corral/run-PID-N
#   user  corral started by tester (uid 1000) from this suite's shell, which init moved into the
#         leaf /sys/fs/cgroup/delegated/shell of a subtree delegated to uid 1000 (as systemd's
#         Delegate=yes makes one): corral shares its cgroup with the shell, so it makes its runs
#         beside it, /sys/fs/cgroup/delegated/run-PID-N.
#   scope corral started by tester alone in a fresh cgroup of that subtree, as
#         `systemd-run --user --scope -p Delegate=yes corral ...` starts it
#         (/sys/fs/cgroup/delegated/scope-PID, made by $T/scope): corral moves itself into the leaf
#         scope-PID/corral-launcher and makes its runs beside it, scope-PID/run-PID-N. This mode
#         runs the limits that matter for fairness (memory, pids, cpu) and the placement.
# The same assertions as tests/integration/limits.sh: OOM is reported (exit 137), a fork bomb
# stops at the pids limit, --cpu-time stops a busy loop, no run directory survives 100 runs or a
# SIGKILLed corral; plus placement by clone3(CLONE_INTO_CGROUP), cpu.max throttling a busy loop,
# and corral doctor's cgroup_delegation check. Prints "TAP: " lines; the exit
# status is the number of failures.
# shellcheck disable=SC2016 # the sh -c scripts are single-quoted on purpose
set -u

CG=/sys/fs/cgroup
N=0
FAILED=0
T=$(mktemp -d /tmp/limits.XXXXXX)
chmod 0755 "$T"

# $T/scope CMD...: CMD alone in a new cgroup of the delegated subtree, whose parent hands out
# memory, pids and cpu, as a systemd scope with Delegate=yes (the user manager enables them on
# the slice above it). The directory is named after the pid, which exec keeps.
cat >"$T/scope" <<'EOF'
#!/bin/sh
d=/sys/fs/cgroup/delegated/scope-$$
echo "+memory +pids +cpu" >/sys/fs/cgroup/delegated/cgroup.subtree_control &&
	mkdir "$d" && echo $$ >"$d/cgroup.procs" && exec "$@"
echo "scope: cannot start $1 in $d" >&2
exit 125
EOF
chmod 0755 "$T/scope"

. /usr/share/corral-vm/tap.sh

# launch MODE [timeout N] CMD...: exec CMD as MODE (call it in a subshell); su execs down to
# tester's command, so the pid stays that of corral. In scope mode, busybox's timeout (whose
# watcher is a process of its own) stays outside the scope.
launch() {
	mode=$1
	shift
	case $mode in
	user) exec su -s /bin/sh tester -c 'exec "$0" "$@"' -- "$@" ;;
	scope)
		if [ "$1" = timeout ]; then
			t=$2
			shift 2
			exec su -s /bin/sh tester -c "exec timeout $t $T/scope"' "$0" "$@"' -- "$@"
		fi
		exec su -s /bin/sh tester -c "exec $T/scope"' "$0" "$@"' -- "$@"
		;;
	esac
	exec "$@"
}

# sb MODE WS [CORRAL OPTIONS] -- CMD...: corral run -v as MODE with the JSON status on fd 3:
# stdout in $OUT, stderr in $ERR, the status in $ST, corral's exit status in $RC.
sb() {
	mode=$1 ws=$2
	shift 2
	OUT=$(cd "$ws" && (launch "$mode" timeout 120 corral run -v --workspace "$ws" --json-status fd:3 "$@") \
		3>"$T/st" </dev/null 2>"$T/err")
	RC=$?
	ERR=$(cat "$T/err")
	ST=$(cat "$T/st")
}

# has NAME PATTERN...: ok if the status holds every fixed string PATTERN.
has() {
	name=$1
	shift
	bad=
	for p in "$@"; do
		case $ST in *"$p"*) ;; *) bad="$bad $p" ;; esac
	done
	if [ -z "$bad" ]; then
		ok "$name"
	else
		not_ok "$name"
		diag "missing:$bad" "corral exit $RC; status: $ST" "stdout: $OUT" \
			"stderr: $(printf '%s' "$ERR" | grep -v 'debug: mount plan' | tr '\n' '|')"
	fi
}

check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# run_dirs PID: the run-PID-N cgroup directories of corral process PID.
run_dirs() {
	find "$CG" -maxdepth 4 -type d -name "run-$1-*" 2>/dev/null
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%s", v[int((NR + 1) / 2)]; else printf "?" }'
}

# The physical RAM, and the default memory limit: half of it, at least 2 GiB or 3/4 of a small
# host's, whole MiB (cr_limit_default_memory()).
RAM=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) * 1024))
# shellcheck disable=SC2017 # rounded as the C code rounds it
DEFMEM=$((RAM / 4 * 3 < 2147483648 ? RAM / 4 * 3 : 2147483648))
DEFMEM=$(((RAM / 2 > DEFMEM ? RAM / 2 : DEFMEM) / 1048576 * 1048576))

start=$(ms)
for mode in root user scope; do
	ws=/tmp/lws.$mode
	mkdir -p "$ws"
	if [ "$mode" = root ]; then chown 65534:65534 "$ws"; else chown 1000:1000 "$ws"; fi

	ST=$(cd /tmp && (launch "$mode" timeout 120 corral doctor --json) </dev/null 2>/dev/null)
	RC=$?
	if [ "$mode" = root ]; then deleg=root; else deleg=delegated; fi
	has "$mode: corral doctor: memory, swap, pids and cpu would be enforced by cgroup2; cgroup_delegation is $deleg" \
		'"name":"limit_memory","state":"ok","required":false,"value":"cgroup2"' \
		'"name":"limit_memory_swap","state":"ok","required":false,"value":"cgroup2"' \
		'"name":"limit_pids","state":"ok","required":false,"value":"cgroup2"' \
		'"name":"limit_cpu","state":"ok","required":false,"value":"cgroup2"' '"ready":true' \
		'"name":"cgroup_delegation","state":"ok","required":false,"value":"'"$deleg"'"'

	sb "$mode" "$ws" --timeout 60 -- cat /proc/self/cgroup
	has "$mode: no option: pids 4096 and the default memory limit ($DEFMEM) by cgroup2, which bounds the tmpfs mounts, every limit reported" \
		'"pids":{"value":4096,"mode":"cgroup2"}' '"memory":{"value":'"$DEFMEM"',"mode":"cgroup2"}' \
		'"tmpfs":{"basis":"memory_cgroup","ram":'"$RAM"',' \
		'"memory_swap":' '"cpu":' '"cpu_time":' '"file_size":' '"open_files":' \
		'"oom_killed":false' '"pids_limit_hit":false' '"exit_code":0'
	# The sandbox's cgroup namespace is rooted where its pid 1 was at clone time: "0::/" shows
	# that was already the run's cgroup. Had it been born in corral's cgroup and moved, the
	# command would see "0::/../run-PID-N" or "0::/corral/run-PID-N".
	case $OUT:$ERR in
	'0::/:'*'by CLONE_INTO_CGROUP'*) placed=1 ;;
	*) placed=0 ;;
	esac
	check "$mode: the child was cloned straight into its run cgroup (clone3 CLONE_INTO_CGROUP; the command's /proc/self/cgroup is $OUT: the cgroup namespace's root)" \
		[ "$placed" = 1 ]

	# tmpfs pages are charged to the run's memory cgroup: a fill of /tmp beyond --memory ends in
	# the OOM killer's kill, after a small write worked.
	sb "$mode" "$ws" --memory 32M --timeout 60 -- sh -c 'echo small >/tmp/s && echo control=ok
		dd if=/dev/zero of=/tmp/fill bs=1048576 count=64 2>/dev/null; echo rc=$?'
	has "$mode: --memory 32M: filling /tmp with 64 MiB gets the writer OOM-killed (cgroup2 is charged for tmpfs pages)" \
		'"memory":{"value":33554432,"mode":"cgroup2"}' '"oom_killed":true' '"basis":"memory_cgroup"'
	check "$mode: ...after a small write to /tmp worked" eval 'printf "%s" "$OUT" | grep -q "^control=ok$"'

	sb "$mode" "$ws" --memory 32M --timeout 60 -- awk 'BEGIN { s = "x"; while (1) s = s s }'
	has "$mode: --memory 32M: the hog is OOM-killed, reported as oom_killed, exit 137 (cgroup2; swap 0)" \
		'"memory":{"value":33554432,"mode":"cgroup2"}' '"oom_killed":true' '"exit_code":137'
	check "$mode: the OOM kill is explained on stderr" eval 'printf "%s" "$ERR" | grep -q "out of memory"'

	cat >"$ws/bomb.sh" <<-'EOF'
		n=0
		while [ $n -lt 200 ]; do
			sleep 30 &
			n=$((n + 1))
			echo $n >"$PWD/started"
		done 2>/dev/null
	EOF
	chmod 0644 "$ws/bomb.sh"
	t0=$(ms)
	sb "$mode" "$ws" --pids 32 --timeout 60 -- sh "$ws/bomb.sh"
	t=$(($(ms) - t0))
	n=$(cat "$ws/started" 2>/dev/null)
	has "$mode: --pids 32: a fork bomb stops at the limit and is reported as pids_limit_hit (cgroup2)" \
		'"pids":{"value":32,"mode":"cgroup2"}' '"pids_limit_hit":true' '"timed_out":false'
	check "$mode: the fork bomb started ${n:-0} of 200 children (fewer than 32) in ${t} ms; none is left" \
		eval '[ "${n:-0}" -lt 32 ] && ! pgrep -x sleep >/dev/null'
	sb "$mode" "$ws" -- true
	check "$mode: sandboxes still start after the fork bomb" [ "$RC" = 0 ]

	sb "$mode" "$ws" --cpu-time 1 --timeout 60 -- sh -c 'while :; do :; done'
	has "$mode: --cpu-time 1 stops a busy loop with SIGXCPU (exit 152)" \
		'"cpu_time":{"value":1,"mode":"rlimit"}' '"signal_name":"SIGXCPU"' '"exit_code":152'

	sb "$mode" "$ws" --limits=required --memory 64M --memory-swap 16M --pids 64 --cpu 0.5 --timeout 60 -- \
		sh -c 'cat /sys/fs/cgroup/cpu.max /sys/fs/cgroup/memory.max 2>/dev/null; true'
	has "$mode: --limits=required: memory, swap, pids and cpu.max all by cgroup2" \
		'"memory":{"value":67108864,"mode":"cgroup2"}' '"memory_swap":{"value":16777216,"mode":"cgroup2"}' \
		'"pids":{"value":64,"mode":"cgroup2"}' '"cpu":{"value":0.5,"mode":"cgroup2","affinity":1}' '"exit_code":0'

	# --cpu 0.5 --memory 64M, seen from the host while the run lasts: the run's cgroup has
	# cpu.max "50000 100000" and memory.max 64 MiB, and a 3 s busy loop is throttled, getting
	# about 1.5 s of CPU (its shell's children's time, in clock ticks, from /proc/PID/stat).
	(cd "$ws" && launch "$mode" corral run --workspace "$ws" --cpu 0.5 --memory 64M --timeout 60 -- \
		sh -c 'timeout 3 sh -c "while :; do :; done"; cut -d" " -f16,17 /proc/$$/stat') \
		</dev/null >"$T/cpu.out" 2>"$T/cpu.err" &
	cpid=$!
	i=0
	while [ $i -lt 200 ] && [ -z "$(run_dirs "$cpid")" ]; do sleep 0.05; i=$((i + 1)); done
	dir=$(run_dirs "$cpid" | head -n 1)
	sleep 2
	cmax=$(cat "$dir/cpu.max" 2>/dev/null)
	mmax=$(cat "$dir/memory.max" 2>/dev/null)
	throttled=$(awk '$1 == "nr_throttled" { print $2 }' "$dir/cpu.stat" 2>/dev/null)
	wait "$cpid"
	RC=$?
	ticks=$(awk '{ print $1 + $2 }' "$T/cpu.out" 2>/dev/null)
	check "$mode: --cpu 0.5 --memory 64M: the run's cgroup ($dir) has cpu.max '$cmax' and memory.max '$mmax'" \
		[ "$cmax:$mmax" = "50000 100000:67108864" ]
	check "$mode: ...a 3 s busy loop was throttled ${throttled:-?} times and got ${ticks:-?} ticks of CPU (45 to 210 of 300; exit $RC)" \
		eval '[ "$RC" = 0 ] && [ "${throttled:-0}" -gt 0 ] && [ "${ticks:-0}" -ge 45 ] && [ "${ticks:-999}" -le 210 ]'
	[ "$RC" = 0 ] || diag "stderr: $(tr '\n' '|' <"$T/cpu.err")"

	if [ "$mode" = scope ]; then
		# While a run lasts: corral sits in scope-PID/corral-launcher, the sandbox in
		# scope-PID/run-PID-N, and scope-PID itself holds no process (no-internal-process rule).
		(cd "$ws" && launch scope corral run --workspace "$ws" --memory 64M -- sleep 4) \
			</dev/null >/dev/null 2>"$T/serr" &
		cpid=$!
		i=0
		while [ $i -lt 200 ] && [ -z "$(run_dirs "$cpid")" ]; do sleep 0.05; i=$((i + 1)); done
		dirs=$(run_dirs "$cpid")
		own=$(cat "/proc/$cpid/cgroup" 2>/dev/null)
		inside=$(cat "$CG/delegated/scope-$cpid/cgroup.procs" 2>/dev/null)
		case $dirs in "$CG/delegated/scope-$cpid/run-$cpid-"*) placed=1 ;; *) placed=0 ;; esac
		check "scope: corral alone in its delegated cgroup moved into its leaf ($own) and made its run beside it ($dirs); the scope holds no process (${inside:-none})" \
			eval '[ "$placed" = 1 ] && [ "$own" = "0::/delegated/scope-$cpid/corral-launcher" ] && [ -z "$inside" ]'
		wait "$cpid"
		RC=$?
		check "scope: the run exits 0 and leaves no run directory (exit $RC; $(cat "$T/serr"))" \
			eval '[ "$RC" = 0 ] && [ -z "$(run_dirs "$cpid")" ]'
		continue
	fi

	# 100 runs: no directory left; the median cost of cgroup setup and teardown (-v).
	: >"$T/setup"
	: >"$T/teardown"
	: >"$T/pids"
	i=0
	while [ $i -lt 100 ]; do
		(cd "$ws" && launch "$mode" corral run -v --workspace "$ws" --memory 64M -- true) \
			</dev/null >/dev/null 2>"$T/verr" &
		echo $! >>"$T/pids"
		wait $!
		sed -n 's/.*cgroup setup.*: \([0-9.]*\) ms$/\1/p' "$T/verr" >>"$T/setup"
		sed -n 's/.*cgroup teardown.*: \([0-9.]*\) ms$/\1/p' "$T/verr" >>"$T/teardown"
		i=$((i + 1))
	done
	left=
	while read -r p; do left="$left$(run_dirs "$p")"; done <"$T/pids"
	check "$mode: 100 runs with --memory 64M leave no run-PID-N cgroup directory" [ -z "$left" ]
	diag "$mode: cgroup2 per-run cost over $(wc -l <"$T/setup") runs: median setup $(median <"$T/setup") ms, median teardown $(median <"$T/teardown") ms"

	(cd "$ws" && launch "$mode" corral run --workspace "$ws" --memory 64M -- sleep 60) \
		</dev/null >/dev/null 2>&1 &
	cpid=$!
	i=0
	while [ $i -lt 200 ] && [ -z "$(run_dirs "$cpid")" ]; do sleep 0.05; i=$((i + 1)); done
	before=$(run_dirs "$cpid")
	kill -KILL "$cpid"
	wait "$cpid" 2>/dev/null
	i=0
	while [ $i -lt 200 ] && pgrep -x sleep >/dev/null; do sleep 0.05; i=$((i + 1)); done
	after_kill=$(run_dirs "$cpid")
	sb "$mode" "$ws" --memory 64M -- true
	after_next=$(run_dirs "$cpid")
	stale=0
	[ -n "$before" ] && [ -n "$after_kill" ] && [ -z "$after_next" ] && [ "$RC" = 0 ] && stale=1
	check "$mode: corral killed with SIGKILL mid-run: the next run removes its stale directory ($before)" \
		[ "$stale" = 1 ]
done

# corral doctor's cgroup_delegation where uid 1000 has no usable delegated cgroup: a cgroup of
# root's (none), a delegated one whose parent hands out memory and pids but not cpu (partial),
# and a delegated one shared with another process under a parent of root's (shared). Root moves
# the shell into the cgroup, then su execs down to corral, alone there.
doctor_in() {
	ST=$(cd /tmp && sh -c 'echo $$ >"$1/cgroup.procs" && exec su -s /bin/sh tester -c "exec corral doctor --json"' \
		sh "$1" </dev/null 2>/dev/null)
	RC=$?
}
# user_cgroup DIR: DIR delegated to uid 1000, as systemd's Delegate=yes makes it.
user_cgroup() {
	mkdir "$1" && chown 1000:1000 "$1" "$1/cgroup.procs" "$1/cgroup.threads" "$1/cgroup.subtree_control"
}
mkdir "$CG/plain"
doctor_in "$CG/plain"
has "no delegation: corral doctor's cgroup_delegation is missing (none) and gives the recipe; memory falls back to an rlimit" \
	'"name":"cgroup_delegation","state":"missing","required":false,"value":"none"' \
	'fix":"run corral in a delegated cgroup of its own: systemd-run --user --scope -p Delegate=yes corral ...' \
	'loginctl enable-linger tester' 'in a CI container: run the job as root, or give it a delegated cgroup' \
	'"name":"limit_memory","state":"degraded","required":false,"value":"rlimit"' '"ready":true'
mkdir "$CG/partial"
echo "+memory +pids" >"$CG/partial/cgroup.subtree_control"
user_cgroup "$CG/partial/scope"
doctor_in "$CG/partial/scope"
has "a delegated cgroup without cpu: cgroup_delegation is degraded (partial), names cpu and the Delegate= drop-in" \
	'"name":"cgroup_delegation","state":"degraded","required":false,"value":"partial"' \
	'cannot hand out [cpu]; it can: [memory pids]' '[Service] Delegate=cpu memory pids' \
	'"name":"limit_memory","state":"ok","required":false,"value":"cgroup2"' \
	'"name":"limit_cpu","state":"missing","required":false,"value":"none"'
mkdir "$CG/shared"
user_cgroup "$CG/shared/user"
sh -c 'echo $$ >"$1/cgroup.procs" && exec sleep 60' sh "$CG/shared/user" &
spid=$!
doctor_in "$CG/shared/user"
kill "$spid"
wait "$spid" 2>/dev/null
has "a delegated cgroup shared with another process, its parent root's: cgroup_delegation is degraded (shared), with the recipe" \
	'"name":"cgroup_delegation","state":"degraded","required":false,"value":"shared"' \
	'but other processes are in it and its parent cannot take corral' \
	'systemd-run --user --scope -p Delegate=yes corral'

diag "limits suite: $(($(ms) - start)) ms"
echo "TAP: 1..$N"
rm -rf "$T"
exit "$FAILED"
