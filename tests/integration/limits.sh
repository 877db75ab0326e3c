#!/bin/bash
# limits: --memory, --pids, --cpu-time, --file-size, --open-files and the default pids limit, as
# root (cgroup v1 on a hybrid host like this one: memory and pids live on v1) and as an
# unprivileged user (no writable cgroup: the rlimit fallback). Asserts the JSON status names the
# mode, that a memory hog is reported as OOM (exit 137), that a fork bomb stops at the pids limit
# with the host unharmed, that --cpu-time stops a busy loop, and that no run-PID-N cgroup
# directory is left after 100 runs, or after corral is killed with SIGKILL (the next run removes
# it); that the v1 directories corral makes after clone hold the command from its first act, and
# that a failure to make them restarts the run as one that made them before clone. The cgroup v2
# side of the same assertions is in tests/vm/limits.sh.
# shellcheck disable=SC2016 # the sh -c scripts are single-quoted on purpose
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

ST=$CR_TMP/status.json
TAG=crlim-$$-$RANDOM

lim_cleanup() {
	local p
	for p in $(pgrep -f "$TAG"); do kill -KILL "$p" 2>/dev/null; done
}
CR_CLEANUP_HOOK="${CR_CLEANUP_HOOK:+$CR_CLEANUP_HOOK; }lim_cleanup"

# What this host gives root: cgroup2 where its cgroup2 offers the controller, else v1.
v1_mode() {
	if grep -qw "$1" /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		echo cgroup2
	elif [ -d "/sys/fs/cgroup/$1" ]; then
		echo cgroup1
	else
		echo none
	fi
}

# sbj MODE WS [OPTS] -- CMD...: sb with the JSON status in $ST (readable by the suite).
sbj() {
	local m=$1 ws=$2
	shift 2
	rm -f "$ST"
	OUT=$(cd "$ws" && as "$m" "$CORRAL" run --workspace "$ws" --ro "$BIN" --grant once --json-status fd:3 "$@" \
		3>"$ST" 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
}

j() { jq -r "$1" "$ST" 2>/dev/null; }

# jcheck NAME JQ-EXPR: ok if the status satisfies the expression.
jcheck() {
	if jq -e "$2" "$ST" >/dev/null 2>&1; then
		ok "$1"
	else
		not_ok "$1"
		diag "corral exit $RC; status: $(cat "$ST" 2>/dev/null)" "stdout: $OUT" "stderr: $ERR"
	fi
}

# The physical RAM, and the memory limit a run gets when nothing sets one: half of it, at least
# 2 GiB or 3/4 of a small host's, whole MiB (cr_limit_default_memory()).
RAM=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) * 1024))
# shellcheck disable=SC2017 # rounded as the C code rounds it
DEFMEM=$((RAM / 4 * 3 < 2147483648 ? RAM / 4 * 3 : 2147483648))
DEFMEM=$(((RAM / 2 > DEFMEM ? RAM / 2 : DEFMEM) / 1048576 * 1048576))

# The run-PID-N cgroup directories of corral process PID, anywhere under /sys/fs/cgroup.
run_dirs() {
	find /sys/fs/cgroup -maxdepth 8 -type d -name "run-$1-*" 2>/dev/null
}

for m in $MODES; do
	ws=$(mkws "$m")
	if [ "$m" = root ]; then
		mem=$(v1_mode memory) pids=$(v1_mode pids)
	else
		mem=rlimit pids=rlimit
	fi
	[ "$m" = root ] && [ "$mem" = none ] && mem=rlimit
	[ "$m" = root ] && [ "$pids" = none ] && pids=rlimit

	# --- corral doctor: a delegated cgroup for this uid, or how to get one ----------------------
	# The suite's user has none on this host (no writable cgroup2 directory, as the rlimit
	# modes above assume): doctor must say so and give the recipe, in JSON and in text.
	as "$m" "$CORRAL" doctor --json >"$ST" 2>"$CR_TMP/stderr"
	RC=$? OUT='' ERR=$(<"$CR_TMP/stderr")
	if [ "$m" = root ]; then
		jcheck "$m: corral doctor --json: cgroup_delegation is ok with the value root, no fix" \
			'[.checks[] | select(.name == "cgroup_delegation")] as $c | ($c | length) == 1 and
			 $c[0].state == "ok" and $c[0].value == "root" and $c[0].fix == null and
			 $c[0].required == false'
	else
		jcheck "$m: corral doctor --json: cgroup_delegation is missing (value none) and its fix gives the systemd-run scope, enable-linger for services and root or a delegated cgroup for CI containers" \
			'[.checks[] | select(.name == "cgroup_delegation")] as $c | ($c | length) == 1 and
			 $c[0].state == "missing" and $c[0].value == "none" and $c[0].required == false and
			 ($c[0].detail | test("uid [0-9]+ has no delegated cgroup2 subtree")) and
			 ($c[0].fix | contains("systemd-run --user --scope -p Delegate=yes corral")) and
			 ($c[0].fix | test("loginctl enable-linger [a-z]")) and
			 ($c[0].fix | contains("in a CI container: run the job as root, or give it a delegated cgroup")) and
			 .ready == true'
		OUT=$(as "$m" "$CORRAL" doctor 2>&1)
		check "$m: corral doctor (text) prints the cgroup_delegation line and its fix" \
			eval 'grep -q "^missing *cgroup_delegation none$" <<<"$OUT" && grep -q "fix: run corral in a delegated cgroup of its own: systemd-run --user --scope -p Delegate=yes" <<<"$OUT"'
	fi

	# --- the default ---------------------------------------------------------------------------
	sbj "$m" "$ws" -- sh -c 'echo core=$(ulimit -c); cat /proc/self/cgroup'
	jcheck "$m: no option: pids is limited to 4096 by $pids, memory has its default, core dumps off (RLIMIT_CORE 0), every limit reported" \
		'.enforced.limits.pids == {"value":4096,"mode":"'"$pids"'"} and
		 .enforced.limits.memory.value == '"$DEFMEM"' and
		 (.enforced.limits | keys) == ["cpu","cpu_time","file_size","memory","memory_swap","open_files","pids"] and
		 .oom_killed == false and .pids_limit_hit == false and .exit_code == 0'
	if [ "$pids" = cgroup1 ]; then
		check "$m: the command runs inside its own v1 pids cgroup (run-PID-N)" \
			grep -q '^[0-9]*:pids:.*/run-[0-9]*-[0-9]*$' <<<"$OUT"
	fi
	grep -q '^core=0$' <<<"$OUT" || diag "core: $OUT"

	# --- memory --------------------------------------------------------------------------------
	sbj "$m" "$ws" --memory 32M -- awk 'BEGIN { s = "x"; while (1) s = s s }'
	if [ "$mem" = rlimit ]; then
		jcheck "$m: --memory 32M without a writable cgroup: RLIMIT_AS stops the hog (it fails, nothing is OOM-killed); its reason says that AddressSanitizer cannot run under it" \
			'(.enforced.limits.memory | del(.reason)) == {"value":33554432,"mode":"rlimit"} and
			 (.enforced.limits.memory.reason | test("AddressSanitizer")) and .exit_code != 0 and
			 .oom_killed == false'
	else
		jcheck "$m: --memory 32M: a memory hog is killed by the OOM killer, reported as oom_killed, exit 137 ($mem)" \
			'.enforced.limits.memory == {"value":33554432,"mode":"'"$mem"'"} and
			 .enforced.limits.memory_swap.value == 0 and .oom_killed == true and .exit_code == 137'
		check "$m: the OOM kill is explained in one line on stderr" \
			eval '[ "$RC" = 137 ] && [ "$(grep -c "out of memory" <<<"$ERR")" = 1 ]'
	fi
	sbj "$m" "$ws" --memory 64M -- awk 'BEGIN { s = "x"; for (i = 0; i < 20; i++) s = s s; print length(s) }'
	jcheck "$m: --memory 64M: a command within the limit runs normally" \
		'.exit_code == 0 and .oom_killed == false'

	# --- the default memory limit, and the tmpfs mounts it bounds -------------------------------
	# tmpfs pages belong to no process the OOM killer could pick: what the sandbox can write to
	# /tmp, /dev/shm and its home must be bounded by a memory cgroup charged for them, or else by
	# the sizes themselves. Read the sizes the kernel enforces (statfs), not only the report.
	sbj "$m" "$ws" -- sh -c 'for d in /tmp /dev/shm "$HOME"; do stat -f -c "%b %S" "$d"; done
		echo small >/tmp/s && echo small >/dev/shm/s && echo small >"$HOME/s" && echo control=ok'
	if [ "$m" = root ] && [ "$mem" != rlimit ]; then
		jcheck "$m: no option: memory is limited to half the RAM ($DEFMEM) by $mem" \
			'.enforced.limits.memory == {"value":'"$DEFMEM"',"mode":"'"$mem"'"} and
			 .enforced.limits.memory_swap.value == 0'
		basis=memory_cgroup
	else
		jcheck "$m: no option, no memory cgroup: the default ($DEFMEM) is reported, not made RLIMIT_AS, and says why" \
			'.enforced.limits.memory.value == '"$DEFMEM"' and .enforced.limits.memory.mode == "none" and
			 (.enforced.limits.memory.reason | test("RLIMIT_AS"))'
		basis=memory_limit_shared
	fi
	jcheck "$m: the JSON status gives the size of /tmp, /dev/shm and the home ($basis, RAM $RAM)" \
		'.enforced.tmpfs.basis == "'"$basis"'" and .enforced.tmpfs.ram == '"$RAM"' and
		 ([.enforced.tmpfs.mounts[].path] | sort) == (["/tmp", "/dev/shm", (.enforced.private[] | select(. != "/tmp"))] | sort) and
		 all(.enforced.tmpfs.mounts[]; .size > 0 and .nr_inodes > 0)'
	sizes=$(awk '/^[0-9]+ [0-9]+$/ { printf "%s%.0f", s, $1 * $2; s = " " }' <<<"$OUT")
	# shellcheck disable=SC2034 # read in the eval below
	want=$(j '.enforced.tmpfs.mounts as $m | [("/tmp", "/dev/shm", (.enforced.private[] | select(. != "/tmp"))) as $p | $m[] | select(.path == $p) | .size | tostring] | join(" ")')
	check "$m: inside, statfs of /tmp, /dev/shm and \$HOME gives the reported sizes ($sizes) and a small write to each works" \
		eval '[ "$sizes" = "$want" ] && grep -q "^control=ok$" <<<"$OUT"'
	read -r s_tmp s_shm s_home <<<"$sizes"
	total=$((${s_tmp:-0} + ${s_shm:-0} + ${s_home:-0}))
	if [ "$basis" = memory_cgroup ]; then
		check "$m: each of them is at most the memory limit, which is charged for their pages" \
			eval '[ "${s_tmp:-0}" -gt 0 ] && [ "${s_tmp:-0}" -le "$DEFMEM" ] && [ "${s_shm:-0}" -le "$DEFMEM" ] && [ "${s_home:-0}" -le "$DEFMEM" ]'
	else
		check "$m: together they hold at most a quarter of the RAM ($total bytes)" \
			eval '[ "${s_tmp:-0}" -gt 0 ] && [ "$total" -le $((RAM / 4)) ]'
	fi

	# The attack: fill each beyond its size under --memory 64M. With a memory cgroup the
	# writer is OOM-killed; without one the writes end in ENOSPC with at most 64 MiB written in
	# all, and the host's shared memory grows by no more than that while the sandbox still holds
	# the files. A small write in the same sandbox works first (the positive control).
	rm -f "$ws/filled"
	shmem0=$(awk '/^Shmem:/ { print $2 * 1024 }' /proc/meminfo)
	(sbj "$m" "$ws" --memory 64M -- sh -c 'echo small >/tmp/s && echo small >/dev/shm/s &&
		echo small >"$HOME/s" && echo control=ok
		head -c 100M /dev/zero >/tmp/fill 2>/dev/null; echo tmp_rc=$?
		dd if=/dev/zero of=/dev/shm/fill bs=1M count=100 2>/dev/null; echo shm_rc=$?
		fallocate -l 100M "$HOME/fill" 2>/dev/null || head -c 100M /dev/zero >"$HOME/fill" 2>/dev/null
		echo home_rc=$?
		echo total=$(cat /tmp/fill /dev/shm/fill "$HOME/fill" 2>/dev/null | wc -c)
		touch "$PWD/filled"; sleep 3'
	 echo "$OUT" >"$CR_TMP/fill.out") &
	fill_pid=$!
	wait_for eval '[ -e "$ws/filled" ] || ! kill -0 "$fill_pid" 2>/dev/null'
	shmem1=$(awk '/^Shmem:/ { print $2 * 1024 }' /proc/meminfo)
	wait "$fill_pid"
	OUT=$(<"$CR_TMP/fill.out")
	grown=$(((shmem1 - shmem0) / 1048576))
	if [ "$basis" = memory_cgroup ]; then
		jcheck "$m: --memory 64M ($mem): filling /tmp, /dev/shm and \$HOME with 300 MiB gets the writer OOM-killed, reported" \
			'.enforced.limits.memory == {"value":67108864,"mode":"'"$mem"'"} and .oom_killed == true and
			 .enforced.tmpfs.basis == "memory_cgroup"'
		check "$m: ...after the small writes worked" grep -q '^control=ok$' <<<"$OUT"
	else
		total=$(sed -n 's/^total=//p' <<<"$OUT")
		check "$m: --memory 64M (rlimit): /tmp, /dev/shm and \$HOME refuse 100 MiB each (ENOSPC), ${total:-?} bytes in all (at most 64 MiB), after the small writes worked" \
			eval 'grep -q "^control=ok$" <<<"$OUT" && grep -q "^tmp_rc=1$" <<<"$OUT" &&
			      grep -q "^shm_rc=1$" <<<"$OUT" && grep -q "^home_rc=1$" <<<"$OUT" &&
			      [ -n "$total" ] && [ "$total" -le 67108864 ] && [ "$total" -gt 0 ]'
		check "$m: ...and the host's shared memory grew by ${grown} MiB while the sandbox held them (bound 64 MiB; others' runs add noise)" \
			test "$grown" -lt 150
	fi
	[ "$basis" = memory_cgroup ] || grep -q "^total=" <<<"$OUT" || diag "fill: $OUT"

	if [ "$basis" != memory_cgroup ]; then
		# The case that was reported: an rlimit of 256 MiB, and 512 MiB landed in /tmp.
		sbj "$m" "$ws" --memory 256M -- sh -c 'head -c 512M /dev/zero >/tmp/big 2>/dev/null; echo rc=$?
			wc -c </tmp/big; echo small >/dev/shm/s && rm /tmp/big && echo small >/tmp/s && echo control=ok'
		check "$m: --memory 256M as an rlimit: 512 MiB cannot be put in /tmp ($(sed -n 2p <<<"$OUT") bytes landed); /dev/shm takes a small file, and /tmp once freed" \
			eval '[ "$(sed -n 1p <<<"$OUT")" = rc=1 ] && [ "$(sed -n 2p <<<"$OUT")" -le 134217728 ] &&
			      [ "$(sed -n 3p <<<"$OUT")" = control=ok ]'
		jcheck "$m: --memory 256M as an rlimit: the tmpfs sizes share the limit" \
			'(.enforced.limits.memory | del(.reason)) == {"value":268435456,"mode":"rlimit"} and
			 (.enforced.limits.memory.reason | test("AddressSanitizer")) and
			 .enforced.tmpfs.basis == "memory_limit_shared" and
			 ([.enforced.tmpfs.mounts[].size] | add) <= 268435456'
	fi

	# max lifts the default; the tmpfs mounts are then bounded by a quarter of the RAM alone.
	sbj "$m" "$ws" --memory max -- sh -c 'stat -f -c "%b %S" /tmp'
	jcheck "$m: --memory max lifts the default memory limit; the tmpfs mounts share a quarter of the RAM" \
		'.enforced.limits.memory == {"value":"max","mode":"none"} and .enforced.tmpfs.basis == "ram" and
		 ([.enforced.tmpfs.mounts[].size] | add) <= '"$((RAM / 4))"' and .exit_code == 0'

	if [ "$basis" = memory_cgroup ]; then
		# Enforced, not only reported: the run's memory cgroup on the host holds the default.
		(sandbox "$m" "$ws" -- sh -c "sleep 30 # $TAG-def" >/dev/null 2>&1) &
		def_pid=$!
		wait_for pgrep -f "^sh -c sleep 30 # $TAG-def" >/dev/null
		cg=$(awk -F: '$2 == "memory" { print $3 }' "/proc/$(pgrep -nf "^sh -c sleep 30 # $TAG-def")/cgroup" 2>/dev/null)
		lim=$(cat "/sys/fs/cgroup/memory$cg/memory.limit_in_bytes" 2>/dev/null)
		for p in $(pgrep -f "$TAG-def"); do kill -KILL "$p" 2>/dev/null; done
		wait "$def_pid" 2>/dev/null
		check "$m: no option: the sandbox's memory cgroup on the host ($cg) has memory.limit_in_bytes $lim = $DEFMEM" \
			test "${lim:-0}" = "$DEFMEM"
	fi

	# --- pids ----------------------------------------------------------------------------------
	# Each child carries TAG in its command line, so the host can look for survivors.
	cat >"$ws/bomb.sh" <<-EOF
		n=0
		while [ \$n -lt 200 ]; do
			sh -c 'sleep 30; : $TAG' &
			n=\$((n + 1))
			echo \$n >"\$PWD/started"
		done 2>/dev/null
	EOF
	give "$m" "$ws/bomb.sh"
	t0=$(date +%s)
	sbj "$m" "$ws" --pids 32 --timeout 30 -- sh "$ws/bomb.sh"
	t=$(($(date +%s) - t0))
	if [ "$pids" = rlimit ]; then
		jcheck "$m: --pids 32 (RLIMIT_NPROC): a fork bomb stops at the limit, well before the timeout" \
			'.enforced.limits.pids == {"value":32,"mode":"rlimit"} and .timed_out == false'
	else
		jcheck "$m: --pids 32 ($pids): a fork bomb stops at the limit and is reported as pids_limit_hit" \
			'.enforced.limits.pids == {"value":32,"mode":"'"$pids"'"} and .pids_limit_hit == true and
			 .timed_out == false'
	fi
	n=$(cat "$ws/started" 2>/dev/null)
	check "$m: the fork bomb started ${n:-0} of 200 children (fewer than 32), ended in ${t}s, and left nothing on the host" \
		eval '[ "${n:-0}" -lt 32 ] && [ "$t" -lt 20 ] && ! pgrep -f "$TAG" >/dev/null'
	sbj "$m" "$ws" -- true
	check "$m: the host still starts sandboxes after the fork bomb" test "$RC" = 0

	# --- v1 cgroups made after clone (ns/limits.c) ---------------------------------------------
	# corral makes the run's v1 directories while pid 1 builds the sandbox, and pid 1 joins them
	# just before it forks the command. The attack: a command whose very first act (it is the
	# exec'd program itself, not a shell) finds itself or pid 1 outside them, or forks past the
	# limit because pid 1 is not counted; and, when making them after clone fails, a run that
	# goes on without them or runs the command twice.
	if [ "$m" = root ] && [ "$mem" = cgroup1 ] && [ "$pids" = cgroup1 ]; then
		sbj "$m" "$ws" -- cat /proc/self/cgroup /proc/1/cgroup
		cgs=$(grep -E '^[0-9]+:(memory|pids):' <<<"$OUT")
		check "$m: the command's first act and pid 1 both see the run's v1 memory and pids cgroups (one run-PID-N each, the same launcher PID)" \
			eval '[ "$(grep -cE ":/corral/run-[0-9]+-[0-9]+$" <<<"$cgs")" = 4 ] &&
			      [ "$(sort -u <<<"$cgs" | wc -l)" = 2 ] &&
			      [ "$(sed -E "s/.*run-([0-9]+)-.*/\1/" <<<"$cgs" | sort -u | wc -l)" = 1 ]'
		[ "$(wc -l <<<"$cgs")" = 4 ] || diag "cgroups: $OUT"
		for lim in 6 12; do
			rm -f "$ws"/forked.*
			# (each child is seen before the next fork: the shell exits at its first failed
			# fork, and the sandbox ends with it, children that had not yet written
			# included; under load that was all of them)
			sbj "$m" "$ws" --pids "$lim" -- sh -c 'for i in 1 2 3 4 5 6 7 8; do
				( : >"$PWD/forked.$i"; exec sleep 3 ) 2>/dev/null &
				while [ ! -e "$PWD/forked.$i" ]; do :; done; done; wait'
			n=$(find "$ws" -name 'forked.*' | wc -l)
			diag "--pids $lim: $n children started; exit $RC; pids_limit_hit $(j .pids_limit_hit); pids $(j .enforced.limits.pids.value) ($(j .enforced.limits.pids.mode))"
			if [ "$lim" = 6 ]; then
				check "$m: --pids 6: pid 1 and the shell count, so 4 of 8 children start, reported as pids_limit_hit" \
					eval '[ "$n" = 4 ] && [ "$(j .pids_limit_hit)" = true ]'
			else
				check "$m: --pids 12 (the control): all 8 children start" \
					eval '[ "$n" = 8 ] && [ "$(j .pids_limit_hit)" = false ] && [ "$RC" = 0 ]'
			fi
		done
		# The fallback: every run-PID-N name this corral takes already exists, so making them after
		# clone fails; pid 1 goes before it forks anything, and the run starts again with its
		# cgroups made before clone, whose failure falls back to rlimits as it always did.
		rm -f "$ws/ran" "$ST"
		OUT=$(cd "$ws" && exec sh -c 'for c in memory pids; do
			own=$(awk -F: -v c=$c "\$2 == c { print \$3 }" /proc/self/cgroup)
			for i in 1 2 3 4 5 6 7 8; do
				mkdir -p "/sys/fs/cgroup/$c${own%/}/corral/run-$$-$i"; done; done
			echo $$ >"$2"
			exec "$0" run -v --workspace "$1" --grant once --json-status fd:3 --memory 64M -- \
				sh -c "echo ran >>\"\$PWD/ran\"; grep -E \"^[0-9]+:(memory|pids):\" /proc/self/cgroup"' \
			"$CORRAL" "$ws" "$CR_TMP/fallback.pid" 3>"$ST" 2>"$CR_TMP/stderr")
		RC=$? ERR=$(<"$CR_TMP/stderr") fpid=$(cat "$CR_TMP/fallback.pid")
		jcheck "$m: the cgroups cannot be made after clone (taken names): the run falls back to RLIMIT_AS and RLIMIT_NPROC, as one that could not make them before clone" \
			'.exit_code == 0 and .enforced.limits.memory.mode == "rlimit" and
			 .enforced.limits.pids == {"value":4096,"mode":"rlimit"} and
			 (.enforced.tmpfs.basis != "memory_cgroup")'
		# (Another corral's sweep may remove the taken ones once this one has exited: count only
		# what this one could have made itself, names past the taken 1-8.)
		check "$m: ... the command ran once, in no run cgroup, and corral left no directory of its own" \
			eval '[ "$(cat "$ws/ran")" = ran ] && ! grep -q run- <<<"$OUT" &&
			      ! run_dirs "$fpid" | grep -qE -- "-(9|[1-9][0-9]+)\$"'
		check "$m: ... the first attempt made them after clone, and was abandoned (corral -v says so)" \
			grep -q "cgroup v1 directories after clone: .*; again, made before clone" <<<"$ERR"
		for d in $(run_dirs "$fpid"); do rmdir "$d" 2>/dev/null; done
	fi

	# --- rlimits -------------------------------------------------------------------------------
	t0=$(date +%s)
	sbj "$m" "$ws" --cpu-time 1 --timeout 30 -- sh -c 'while :; do :; done'
	t=$(($(date +%s) - t0))
	jcheck "$m: --cpu-time 1 stops a busy loop with SIGXCPU (exit 152) after ${t}s" \
		'.enforced.limits.cpu_time == {"value":1,"mode":"rlimit"} and .signal_name == "SIGXCPU" and
		 .exit_code == 152 and .timed_out == false'
	sbj "$m" "$ws" --file-size 1K -- sh -c 'head -c 4096 /dev/zero >"$PWD/big"; echo rc=$?; wc -c <"$PWD/big"'
	jcheck "$m: --file-size 1K: writing past 1 KiB fails (SIGXFSZ) and the file stops at 1024 bytes" \
		'.enforced.limits.file_size == {"value":1024,"mode":"rlimit"}'
	check "$m: --file-size 1K: the writer got SIGXFSZ (153) and the file holds 1024 bytes" \
		eval '[ "$OUT" = "rc=153
1024" ]'
	sbj "$m" "$ws" --open-files 12 -- sh -c 'ulimit -n'
	jcheck "$m: --open-files 12 sets RLIMIT_NOFILE in the sandbox" \
		'.enforced.limits.open_files == {"value":12,"mode":"rlimit"} and .exit_code == 0'
	check "$m: --open-files 12: the command sees 12" test "$OUT" = 12

	# --- --limits=required -------------------------------------------------------------------
	if [ "$m" = user ]; then
		sbj "$m" "$ws" --limits=required --cpu 0.5 -- true
		jcheck "$m: --limits=required --cpu 0.5 with no writable cpu cgroup: exit 125, stage limits, the reason" \
			'.exit_code == 125 and .error.stage == "limits" and (.error.message | test("--cpu cannot be enforced"))'
		sbj "$m" "$ws" --cpu 0.5 -- true
		jcheck "$m: --cpu 0.5 by default (best effort): runs, reports cpu as none with the reason" \
			'.exit_code == 0 and .enforced.limits.cpu.mode == "none" and .enforced.limits.cpu.value == 0.5 and
			 (.enforced.limits.cpu.reason | length) > 0'
		check "$m: best effort says on stderr what it could not enforce" grep -q -- '--cpu 0.500 is not enforced' <<<"$ERR"
	else
		sbj "$m" "$ws" --limits=required --memory 64M --memory-swap 16M --pids 100 --cpu 0.5 -- true
		jcheck "$m: --limits=required with limits this host can enforce runs (memory, swap, pids, cpu: $mem)" \
			'.exit_code == 0 and .enforced.limits.memory.mode == "'"$mem"'" and
			 .enforced.limits.memory_swap == {"value":16777216,"mode":"'"$mem"'"} and
			 .enforced.limits.pids.mode == "'"$pids"'" and .enforced.limits.cpu.mode != "none"'
	fi
	sbj "$m" "$ws" --pids max -- true
	jcheck "$m: --pids max lifts the default" '.enforced.limits.pids == {"value":"max","mode":"none"}'

	# --- teardown ------------------------------------------------------------------------------
	t0=$(date +%s%N)
	launchers=()
	for ((i = 0; i < 100; i++)); do
		if [ "$m" = user ] && [ "$(id -u)" -eq 0 ]; then
			(cd "$ws" && exec "${AS_USER[@]}" "$CORRAL" run \
				--workspace "$ws" --memory 64M -- true) &
		else
			(cd "$ws" && exec "$CORRAL" run --workspace "$ws" --memory 64M -- true) &
		fi
		launchers+=($!)
		wait $!
	done 2>/dev/null
	t=$((($(date +%s%N) - t0) / 1000000))
	left=$(for p in "${launchers[@]}"; do run_dirs "$p"; done)
	check "$m: 100 runs with --memory 64M (${t} ms) leave no run-PID-N cgroup directory" test -z "$left"
	[ -z "$left" ] || diag "left: $left"

	if [ "$m" = root ] && [ "$mem" = cgroup1 ]; then
		SB_PID=
		(cd "$ws" && exec "$CORRAL" run --workspace "$ws" --memory 64M -- sh -c "sleep 60 # $TAG") &
		SB_PID=$!
		wait_for eval '[ -n "$(run_dirs "$SB_PID")" ] && pgrep -f "$TAG" >/dev/null'
		before=$(run_dirs "$SB_PID")
		kill -KILL "$SB_PID"
		wait "$SB_PID" 2>/dev/null
		wait_for eval '! pgrep -f "$TAG" >/dev/null'
		after_kill=$(run_dirs "$SB_PID")
		sbj "$m" "$ws" --memory 64M -- true
		after_next=$(run_dirs "$SB_PID")
		stale=0
		[ -n "$before" ] && [ -n "$after_kill" ] && [ -z "$after_next" ] && [ "$RC" = 0 ] && stale=1
		check "$m: corral killed with SIGKILL mid-run: its sandbox dies, and the next run removes its stale cgroup directories" \
			test "$stale" = 1
		[ -z "$after_next" ] || diag "before: $before" "after the next run: $after_next"

		# Interrupted: SIGTERM reaches the sandbox through corral, which then tears down.
		(cd "$ws" && exec "$CORRAL" run --workspace "$ws" --memory 64M -- sh -c "sleep 60 # $TAG") &
		SB_PID=$!
		wait_for eval '[ -n "$(run_dirs "$SB_PID")" ] && pgrep -f "$TAG" >/dev/null'
		before=$(run_dirs "$SB_PID")
		kill -TERM "$SB_PID"
		wait "$SB_PID"
		rc=$?
		check "$m: corral interrupted by SIGTERM mid-run (exit $rc): the sandbox stops and its cgroup directories are gone" \
			eval '[ -n "$before" ] && [ -z "$(run_dirs "$SB_PID")" ] && [ "$rc" = 143 ] && ! pgrep -f "$TAG" >/dev/null'
	fi
done
