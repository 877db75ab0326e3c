#!/bin/bash
# bwrap-pool: the bwrap personality through a running `corral pool` (corral-bwrap(1), POOL), as
# root and as uid 65534, under srt's typical argv. With CORRAL_POOL=require a run that does not
# go through the pool fails, so each check below proves the pooled path: the command's semantics
# (stdio, exit status, signal, directory, environment), the escape probes (a write outside the
# workspace, /proc/sys as a root caller, a fork bomb, the pool's socket from inside), the
# caller's death (--die-with-parent), and staleness (a bound directory replaced, a --ro-bind-try
# source created after the pool stocked: the run sees the host's new state). Positive controls
# in the same sandboxes. What cannot be pooled runs cold and says why.
# shellcheck disable=SC2016 # the sandboxed commands are single-quoted on purpose
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"
# shellcheck source=tests/integration/bwrap-lib.sh
source "$CR_TESTS_DIR/integration/bwrap-lib.sh"

EROFS=30 EAGAIN=11
POOL_PIDS=()
CR_CLEANUP_HOOK='for p in "${POOL_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	for v in "$CR_TMP"/pool-*/vol; do umount "$v" 2>/dev/null; done'
bwrap_doors_setup
BW=$(door_dir exe)/bwrap

# A client passes only 0, 1 and 2 (srt's node and codex's Rust start bwrap so): the harness's
# other descriptors would be passed on by bwrap's semantics, and keep a run cold.
cat >"$BIN/nofd" <<'EOF'
#!/usr/bin/python3
import os, sys
os.closerange(3, 65536)
os.execv(sys.argv[1], sys.argv[1:])
EOF
chmod 0755 "$BIN/nofd"

# The first JSON document of argv[1] (--json-status-fd's): its corral object went cold, saying why.
# shellcheck disable=SC2034 # read in eval (is)
CORRAL_OBJ='import json, sys
c = json.JSONDecoder().raw_decode(sys.argv[1])[0]["corral"]
sys.exit(not (c["via"] == "cold" and "json-status-fd" in c.get("pool_fallback", "")))'

# ancestors PID: PID and each of its ancestors' pids, one a line.
ancestors() {
	local p=$1 i
	for ((i = 0; i < 40 && p > 1; i++)); do
		echo "$p"
		p=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
		[ -n "$p" ] || break
	done
}

rundir() {
	echo "$CR_TMP/run-$1"
}

# pbw MODE [VAR=VALUE...] -- BWRAP-ARGS...: the personality as MODE with MODE's pool, verbose;
# $OUT, $ERR, $RC. Under CORRAL_POOL=require, a run refused because the host's mount table
# changed since the stock was built (other processes mount on a shared host: a correct refusal)
# is tried again once the pool has restocked, up to three times.
pbw() {
	local mode=$1 envs=() try
	shift
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	for try in 1 2 3; do
		OUT=$(cd "$WS" && as "$mode" env XDG_RUNTIME_DIR="$(rundir "$mode")" HOME="$HOMEDIR" \
			CORRAL_BWRAP_VERBOSE=1 "${envs[@]}" "$BIN/nofd" "$BW" "$@" 2>"$CR_TMP/err" <"$CR_TMP/in")
		RC=$?
		ERR=$(<"$CR_TMP/err")
		[[ $ERR == *"bwrap: pool: a path of the policy changed"* ]] || break
		diag "try $try: $ERR"
		wait_for ready "$mode"
	done
	OUT+=$'\n'"pooled=$([[ $ERR == *"ran in a pool's sandbox"* ]] && echo 1 || echo 0)"
}

ready() {
	as "$1" env XDG_RUNTIME_DIR="$(rundir "$1")" "$CORRAL" pool status 2>/dev/null |
		grep -q '"ready":[1-9]'
}

# teach MODE ARGS...: one run that teaches the pool the policy of ARGS, then until it is ready.
teach() {
	local mode=$1
	shift
	pbw "$mode" -- "$@" -- true
	wait_for ready "$mode"
}

for mode in $MODES; do
	top=$(mktemp -d "$CR_TMP/pool-$mode.XXXXXX")
	chmod 0755 "$top"
	WS=$top/ws HOMEDIR=$top/home DATA=$top/data LATE=$top/late
	mkdir -p "$WS" "$HOMEDIR/.ssh" "$DATA" "$(rundir "$mode")"
	chmod 0700 "$(rundir "$mode")"
	echo old >"$DATA/f"
	echo input >"$CR_TMP/in"
	[ "$mode" = root ] || give "$mode" "$top" "$WS" "$HOMEDIR" "$HOMEDIR/.ssh" "$DATA" "$(rundir "$mode")"
	as "$mode" env XDG_RUNTIME_DIR="$(rundir "$mode")" "$CORRAL" pool start --size 2 >/dev/null
	st=$(as "$mode" env XDG_RUNTIME_DIR="$(rundir "$mode")" "$CORRAL" pool status 2>/dev/null)
	pid=$(sed -n 's/^{"pid":\([0-9]*\),.*/\1/p' <<<"$st")
	[ -z "$pid" ] || POOL_PIDS+=("$pid")
	check "$mode: a pool runs" test -n "$pid"
	# srt's typical argv (as root srt adds --cap-add CAP_SETFCAP, which keeps a run cold: a pooled
	# command has no capability), plus a bound directory and a --ro-bind-try whose source is
	# missing, under a tmpfs.
	ARGV=(--new-session --die-with-parent --unshare-net --ro-bind / / --bind "$WS" "$WS"
		--tmpfs "$HOMEDIR/.ssh" --dev /dev --unshare-pid --unshare-user --cap-drop ALL
		--tmpfs /mnt --ro-bind "$DATA" /mnt/data --ro-bind-try "$LATE" /mnt/late --proc /proc)
	teach "$mode" "${ARGV[@]}"
	check "$mode: the pool stocks sandboxes for a bwrap policy it was taught" ready "$mode"

	# Semantics through the pool (require: a cold run fails).
	pbw "$mode" CORRAL_POOL=require -- "${ARGV[@]}" --setenv FOO bar --unsetenv HOSTNAME -- sh -c '
		echo pwd=$(pwd); echo foo=$FOO; echo in=$(cat); echo err >&2; echo data=$(cat /mnt/data/f)
		exit 7'
	res "$mode: through the pool: stdin, stdout, the directory, --setenv, the exit status are bwrap's" \
		pooled=1 pwd="$WS" foo=bar in=input data=old RC=7
	pbw "$mode" CORRAL_POOL=require -- "${ARGV[@]}" -- sh -c 'kill -TERM $$'
	res "$mode: through the pool: a command killed by SIGTERM exits 143, as under bwrap" pooled=1 RC=143
	teach "$mode" "${ARGV[@]}" --chdir / # another policy: its directory is given
	pbw "$mode" CORRAL_POOL=require -- "${ARGV[@]}" --chdir / --clearenv --setenv A 1 -- /usr/bin/env
	res "$mode: through the pool: --chdir and --clearenv" pooled=1 A=1 RC=0
	[[ $OUT != *PATH=* ]] || not_ok "$mode: --clearenv through the pool leaves PATH"

	# --args FD: the options it holds decide (the pool builds from them), the descriptor is closed.
	printf -- '--setenv\0FROM\0args\0' >"$top/args"
	chmod 0644 "$top/args"
	argsrun() {
		OUT=$(cd "$WS" && as "$mode" env XDG_RUNTIME_DIR="$(rundir "$mode")" HOME="$HOMEDIR" \
			CORRAL_BWRAP_VERBOSE=1 CORRAL_POOL="$1" "$BIN/nofd" /bin/bash -c 'exec 3<"$0"; exec "$@"' \
			"$top/args" "$BW" "${ARGV[@]}" --args 3 -- sh -c 'echo from=$FROM; [ -e /proc/self/fd/3 ]; echo fd3=$?' \
			2>"$CR_TMP/err" </dev/null)
		RC=$?
		ERR=$(<"$CR_TMP/err")
		OUT+=$'\n'"pooled=$([[ $ERR == *"ran in a pool's sandbox"* ]] && echo 1 || echo 0)"
	}
	argsrun auto
	for try in 1 2 3; do # a refusal for a changed mount table is tried again (see pbw)
		wait_for ready "$mode"
		argsrun require
		[[ $ERR == *"bwrap: pool: a path of the policy changed"* ]] || break
	done
	res "$mode: through the pool: --args FD's options apply and the descriptor is not passed on" \
		pooled=1 from=args fd3=1 RC=0

	# Escape probes through the pool, each with its positive control in the same sandbox.
	pbw "$mode" CORRAL_POOL=require -- "${ARGV[@]}" -- sh -c '
		"$0" write "$1/ok"; echo ctl=$?
		"$0" write "$2"; echo outside=$?
		v=$(cat /proc/sys/kernel/core_pattern); echo sysread=$?
		"$0" sysctl-write /proc/sys/kernel/core_pattern "$v" 2>/dev/null; echo sysctl=$?
		"$0" fork; echo fork=$?
		"$0" forks 5000 >/dev/null 2>&1; echo bomb=$?
		"$3" pool status >/dev/null 2>&1; echo socket=$?' "$PROBE" "$WS" "$top/outside" "$CORRAL"
	res "$mode: through the pool: a write in the workspace, a fork and a read of /proc/sys work" \
		pooled=1 ctl=0 sysread=0 fork=0
	res "$mode: through the pool: a write outside the workspace fails (EROFS)" pooled=1 outside=$EROFS
	res "$mode: through the pool: writing /proc/sys/kernel/core_pattern (its own value) fails" pooled=1 sysctl='!0'
	res "$mode: through the pool: a fork bomb stops at the pids limit (EAGAIN)" pooled=1 bomb=$EAGAIN
	res "$mode: through the pool: the pool's socket refuses a client inside the sandbox" pooled=1 socket='!0'
	OUT=$(as "$mode" env XDG_RUNTIME_DIR="$(rundir "$mode")" "$CORRAL" pool status >/dev/null 2>&1; echo socket=$?)
	res "$mode: the same client outside every sandbox is served (control)" socket=0

	# TIOCSTI into the caller's terminal through stdout (stdin is not a terminal: a terminal on
	# stdin keeps a run cold), as the host can on the same pty (control).
	if command -v script >/dev/null && [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null)" != 0 ]; then
		pre=
		[ "$mode" = user ] && [ "$(id -u)" -eq 0 ] && pre="$(printf '%q ' "${AS_USER[@]}")"
		wait_for ready "$mode"
		printf '%s\n' "cd $(printf %q "$WS")" \
			"$pre$(printf %q "$PROBE") tiocsti 1 </dev/null; r=\$?; echo; echo host_tiocsti=\$r" \
			"$pre$(printf '%q ' env XDG_RUNTIME_DIR="$(rundir "$mode")" HOME="$HOMEDIR" CORRAL_POOL=require \
				CORRAL_BWRAP_VERBOSE=1 "$BIN/nofd" "$BW" "${ARGV[@]}" -- "$PROBE" tiocsti 1) </dev/null 2>&1; r=\$?; echo; echo tiocsti=\$r" \
			>"$CR_TMP/tty.sh"
		for try in 1 2 3; do # a refusal for a changed mount table is tried again (see pbw)
			OUT=$(SHELL=/bin/sh timeout -k 1 20 script -qec "/bin/sh $CR_TMP/tty.sh" /dev/null </dev/null 2>&1 | tr -d '\r')
			[[ $OUT == *"bwrap: pool: a path of the policy changed"* ]] || break
			wait_for ready "$mode"
		done
		RC=0 ERR=
		OUT+=$'\n'"pooled=$([[ $OUT == *"ran in a pool's sandbox"* ]] && echo 1 || echo 0)"
		res "$mode: through the pool: TIOCSTI on the caller's terminal through stdout fails; the host's works" \
			host_tiocsti=0 tiocsti='!0' pooled=1
	else
		skip "$mode: TIOCSTI through the pool" "no script(1), or the host forbids TIOCSTI"
	fi

	# --die-with-parent: the client killed, the pooled command dies with it.
	for try in 1 2 3; do # a refusal for a changed mount table is tried again (see pbw)
		wait_for ready "$mode"
		tok=$(new_token 30)
		(cd "$WS" && as "$mode" env XDG_RUNTIME_DIR="$(rundir "$mode")" HOME="$HOMEDIR" CORRAL_POOL=require \
			"$BIN/nofd" "$BW" "${ARGV[@]}" -- sleep "$tok" </dev/null >/dev/null 2>&1) &
		bg=$!
		cmd=$(find_token "$tok" "$bg")
		client=$(pgrep -f -n "$BW .* sleep $tok")
		[ -z "$cmd" ] || break
		wait "$bg" 2>/dev/null
	done
	if [ -n "$cmd" ] && [ -n "$client" ]; then
		check "$mode: the sleeping command runs in a sandbox of the pool (pid $pid among its ancestors)" \
			eval 'ancestors "$cmd" | grep -qx "$pid"'
		if [ "$mode" = root ]; then
			cgm=$(cgroup_of "$cmd" memory) cgp=$(cgroup_of "$cmd" pids)
			mlim=$(cat "/sys/fs/cgroup/memory$cgm/memory.limit_in_bytes" 2>/dev/null)
			pmax=$(cat "/sys/fs/cgroup/pids$cgp/pids.max" 2>/dev/null)
			# shellcheck disable=SC2034 # read in eval (is)
			memtotal=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) * 1024))
			is "$mode: through the pool: the command is in memory and pids cgroups of its own with limits (memory $cgm: $mlim, pids $cgp: $pmax)" \
				'[ "$cgm" != "$(cgroup_of $$ memory)" ] && [ -n "$mlim" ] && [ "$mlim" -lt "$memtotal" ] && [[ $pmax =~ ^[0-9]+$ ]]'
		fi
		kill -9 "$client"
		wait_for eval '! kill -0 "$cmd" 2>/dev/null'
		check "$mode: through the pool: the client killed, the command dies (--die-with-parent)" \
			eval '! kill -0 "$cmd" 2>/dev/null'
	else
		not_ok "$mode: through the pool: --die-with-parent (the command never started: $cmd/$client)"
	fi
	wait "$bg" 2>/dev/null

	# Staleness: the bound directory replaced after the pool stocked. The run sees the new one.
	wait_for ready "$mode"
	mv "$DATA" "$DATA.old"
	mkdir "$DATA"
	echo new >"$DATA/f"
	[ "$mode" = root ] || give "$mode" "$DATA"
	pbw "$mode" -- "${ARGV[@]}" -- cat /mnt/data/f
	is "$mode: a bound directory replaced after the pool stocked: the run reads the new one, cold, and says why" \
		'[[ $OUT == new* ]] && [[ $ERR == *"changed since the sandboxes were built"* ]]'
	# A --ro-bind-try source created after the pool stocked (skipped by its sandboxes' build).
	wait_for ready "$mode"
	mkdir "$LATE"
	echo planted >"$LATE/x"
	[ "$mode" = root ] || give "$mode" "$LATE"
	pbw "$mode" -- "${ARGV[@]}" -- cat /mnt/late/x
	is "$mode: a --ro-bind-try source created after the pool stocked: the run sees it" \
		'[[ $OUT == planted* ]] && [[ $ERR == *"changed since the sandboxes were built"* ]]'
	wait_for ready "$mode"
	pbw "$mode" CORRAL_POOL=require -- "${ARGV[@]}" -- cat /mnt/late/x
	is "$mode: the pool restocks with the new state, and serves it (control)" \
		'[[ $OUT == planted* ]] && [[ $OUT == *pooled=1* ]]'

	# A mount made on the host after the pool stocked (a volume attached under a bound directory),
	# then unmounted (a volume locked): each run sees the host's mount table of its own time.
	if [ "$(id -u)" -eq 0 ]; then
		mkdir -p "$top/vol"
		chmod 0755 "$top/vol"
		wait_for ready "$mode"
		mount -t tmpfs -o mode=0755 corral-test "$top/vol" && echo secret >"$top/vol/s" && chmod 0644 "$top/vol/s"
		pbw "$mode" -- "${ARGV[@]}" -- cat "$top/vol/s"
		# Cold and saying why, or in a sandbox the pool built after the mount: either way the
		# host's new mount table.
		is "$mode: a mount made on the host after the pool stocked: the run sees it" '[[ $OUT == secret* ]]'
		diag "$mode: that run: $(tr '\n' ' ' <<<"$ERR")"
		wait_for ready "$mode"
		umount "$top/vol"
		pbw "$mode" -- "${ARGV[@]}" -- cat "$top/vol/s"
		is "$mode: that mount gone from the host (a volume locked): the run does not see it" \
			'[ "$RC" != 0 ] && [[ $OUT != secret* ]]'
	else
		skip "$mode: a host mount after the pool stocked" "mounting on the host needs root"
	fi

	# Attack: a relative source names the caller's directory; a sandbox the pool built would
	# have resolved it in the pool's own (its /, after a spec is built): `--bind . /mnt/here`
	# from the workspace must bind the workspace, never the host's / writable. Cold, saying why.
	echo mark >"$WS/marker"
	[ "$mode" = root ] || give "$mode" "$WS/marker"
	teach "$mode" "${ARGV[@]}" --bind . /mnt/here
	pbw "$mode" -- "${ARGV[@]}" --bind . /mnt/here -- sh -c '
		cat /mnt/here/marker >/dev/null; echo ws=$?
		"$0" write /mnt/here/rel-ok; echo ctl=$?
		"$0" write "/mnt/here$1/escaped"; echo escape=$?' "$PROBE" "$top"
	res "$mode: control: --bind . /mnt/here from the workspace shows it, writable" ws=0 ctl=0
	is "$mode: --bind . is not served by a pre-built sandbox (it would bind the pool's /): cold, saying why" \
		'[[ $OUT == *pooled=0* ]] && [[ $ERR == *"relative source"* ]] && [ ! -e "$top/escaped" ]'

	# Unpoolable: cold, and said so (--json-status-fd's corral object, CORRAL_POOL=require).
	pbw "$mode" -- "${ARGV[@]}" --json-status-fd 1 -- true
	is "$mode: --json-status-fd runs cold and its corral object says why (via, pool_fallback)" \
		'python3 -c "$CORRAL_OBJ" "$OUT"'
	pbw "$mode" CORRAL_POOL=require -- "${ARGV[@]}" --sync-fd 0 -- echo ran
	is "$mode: CORRAL_POOL=require with a run the pool cannot serve fails, the command never ran" \
		'[ "$RC" = 1 ] && [[ $OUT != ran* ]] && [[ $ERR == *"bwrap: pool: --sync-fd"* ]]'
	pbw "$mode" -- "${ARGV[@]}" --as-pid-1 -- echo ran
	is "$mode: --as-pid-1 runs cold (auto), says why, and runs" \
		'[ "$RC" = 0 ] && [[ $OUT == ran* ]] && [[ $OUT == *pooled=0* ]] && [[ $ERR == *"ran cold: the command as pid 1"* ]]'
	as "$mode" env XDG_RUNTIME_DIR="$(rundir "$mode")" "$CORRAL" pool stop >/dev/null 2>&1
done
