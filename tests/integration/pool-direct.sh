#!/bin/bash
# pool-direct: the pool hands the client its sandbox's channels (docs/pool.md, "The request's
# path"), as root and as an unprivileged user: the command's end reaches the client with the pool
# out of the way; a client killed mid-run leaves nothing behind; no channel is reachable from
# inside the sandbox.
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"
# shellcheck source=tests/integration/pool-lib.sh
source "$CR_TESTS_DIR/integration/pool-lib.sh"

POOL_PIDS=()
CR_CLEANUP_HOOK='for p in "${POOL_PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done'

# The host pid of the sandbox that runs the process PID: its ancestor whose parent is the pool.
sandbox_of() {
	local p=$1 pp
	while [ "$p" -gt 1 ]; do
		pp=$(awk '/^PPid:/ {print $2}' "/proc/$p/status" 2>/dev/null) || return 1
		[ "$pp" = "$POOL_PID" ] && echo "$p" && return 0
		p=$pp
	done
	return 1
}

for m in $MODES; do
	CR_OUT=$CR_TMP/out-$m
	mkdir -p "$CR_OUT" -m 0700
	[ "$(id -u)" -ne 0 ] || [ "$m" = root ] || chown 65534:65534 "$CR_OUT"
	ws=$(mkws "$m")
	start_pool "$m" 2
	prun "$m" "$ws" "$CR_OUT/teach.json" -- true
	wait_for ready "$m" "$ws"

	# The command's end goes from its sandbox to the client: with the pool stopped (SIGSTOP)
	# once the command runs, the run still ends, with its output and status.
	(cd "$ws" && pool_env "$m" "$CORRAL" run --workspace "$ws" --ro "$BIN" --grant once \
		--json-status "$CR_OUT/stop.json" -- sh -c 'sleep 1.2345; echo done; exit 5' \
		</dev/null >"$CR_OUT/stop.out" 2>/dev/null; echo "rc=$?" >>"$CR_OUT/stop.out") &
	cpid=$!
	wait_for pgrep -fx "sleep 1.2345" >/dev/null
	kill -STOP "$POOL_PID"
	ended() { ! kill -0 "$cpid" 2>/dev/null; }
	for ((i = 0; i < 100; i++)); do ended && break; sleep 0.05; done
	while_stopped=no
	ended && while_stopped=yes
	kill -CONT "$POOL_PID"
	wait "$cpid"
	OUT=$(<"$CR_OUT/stop.out")
	is "$m: the pool stopped mid-run: the run still ends meanwhile, its output and exit status 5" \
		'[ "$while_stopped" = yes ] && [ "$OUT" = $'"'"'done\nrc=5'"'"' ] && via "$CR_OUT/stop.json" pool'
	wait_for ready "$m" "$ws"
	prun "$m" "$ws" "$CR_OUT/st.json" -- sh -c 'echo after'
	is "$m: control: the pool, continued, serves the next run" \
		'[ "$RC" = 0 ] && [ "$OUT" = after ] && via "$CR_OUT/st.json" pool'

	# Attack: corral run killed (SIGKILL) while its command runs, holding the sandbox's
	# channels: the command, its children and the sandbox are gone; the pool serves on.
	wait_for ready "$m" "$ws"
	# corral itself is the background job's pid (setpriv and env exec it).
	pre=()
	[ "$m" = root ] || [ "$(id -u)" -ne 0 ] || pre=("${AS_USER[@]}")
	(cd "$ws" && exec "${pre[@]}" env XDG_RUNTIME_DIR="$(rundir "$m")" "$CORRAL" run \
		--workspace "$ws" --ro "$BIN" --grant once -- sh -c '(sleep 27.18 &); sleep 27.18' \
		</dev/null >/dev/null 2>&1) &
	cpid=$!
	wait_for sh -c '[ "$(pgrep -fxc "sleep 27.18")" -ge 2 ]'
	# (the sleeps themselves: the client's command line and the shell's name them too, and
	# which of those has the lowest pid depends on when the pool forked ahead)
	sbx=$(sandbox_of "$(pgrep -fx "sleep 27.18" | head -1)")
	kill -9 "$cpid"
	wait "$cpid" 2>/dev/null
	gone() { ! pgrep -f "sleep 27.18" >/dev/null && { [ -z "$sbx" ] || ! kill -0 "$sbx" 2>/dev/null; }; }
	check "$m: corral run SIGKILLed mid-run: its command, the command's child and the sandbox are gone" \
		wait_for gone
	is "$m: control: the command ran in a sandbox of the pool" '[ -n "$sbx" ]'
	wait_for ready "$m" "$ws"
	prun "$m" "$ws" "$CR_OUT/st.json" -- true
	is "$m: control: the pool serves the next run" '[ "$RC" = 0 ] && via "$CR_OUT/st.json" pool'

	# Attack: look for the channels from inside: no socket among any visible process's
	# descriptors (the runner's ends are gone with its exec, the worker is not dumpable).
	# Control: the same search finds a socket pair the command makes itself.
	wait_for ready "$m" "$ws"
	prun "$m" "$ws" "$CR_OUT/st.json" -- sh -c '
		echo own=$(ls /proc/self/fd | wc -l)
		echo sockets=$(ls -l /proc/[0-9]*/fd/ 2>/dev/null | grep -c "socket:")
		echo fd1=$(ls /proc/1/fd 2>/dev/null | wc -l)
		python3 -c "import socket, subprocess; a, b = socket.socketpair(); subprocess.run([\"sh\", \"-c\", \"echo control=\$(ls -l /proc/[0-9]*/fd/ 2>/dev/null | grep -c socket:)\"], pass_fds=[a.fileno()])"'
	is "$m: the search for channels ran through the pool" 'via "$CR_OUT/st.json" pool'
	res "$m: no socket is visible from inside the sandbox; pid 1's descriptors are not" \
		sockets=0 fd1=0
	res "$m: control: the search lists the command's own descriptors and finds its own socket pair" \
		own='!0' control='!0'
	pool_env "$m" "$CORRAL" pool stop
done
