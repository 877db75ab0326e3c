#!/bin/bash
# pool-trust: what `corral run` may trust of a pool and what a pooled sandbox must match
# (docs/pool.md, threat model), as root and as uid 65534. Attacks, each beside a positive control:
# - another uid's socket at the client's pool path (a runtime directory shared by mistake) gets
#   nothing of the run, though the same impostor fools a client of its own uid;
# - a run with --cache is never served by a sandbox without its cache, and the pool serves it
#   with the cache;
# - the pool's status stays JSON whatever a workspace is called;
# - as root, a volume unmounted from under the workspace after the pool stocked is not shown by
#   a pooled run.
# shellcheck disable=SC2016 # the sandboxed commands are single-quoted on purpose
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"
# shellcheck source=tests/integration/pool-lib.sh
source "$CR_TESTS_DIR/integration/pool-lib.sh"

POOL_PIDS=() FAKE_PIDS=() VOLS=()
CR_CLEANUP_HOOK='for p in "${POOL_PIDS[@]}" "${FAKE_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	for v in "${VOLS[@]}"; do umount "$v" 2>/dev/null; done'

# status_lists MODE WS: MODE's pool status parses as JSON and lists a policy of WS.
status_lists() {
	pool_env "$1" "$CORRAL" pool status 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(sys.argv[1] not in [p["workspace"] for p in d["policies"]])' "$2" 2>/dev/null
}

# An impostor pool: it records what each client sends (type, size, descriptors, whether the
# marker of the client's environment is in it), offers nothing, and answers a request with "it
# ran, exit 0" (POOL_STARTED, POOL_RESULT) and a status with a made-up pid.
cat >"$BIN/fakepool" <<'EOF'
#!/usr/bin/python3
import array, os, socket, struct, sys
path, log, marker = sys.argv[1], sys.argv[2], sys.argv[3].encode()
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(path)
os.chmod(path, 0o777)
s.listen(8)
open(log + ".ready", "w").close()

def reply(c, t, text=b""):
    c.send(struct.pack("<I3i4BI32sI", t, 0, 0, 0, 0, 0, 0, 0, len(text), bytes(32), 0) + text)

while True:
    c, _ = s.accept()
    with c:
        while True:
            try:
                msg, anc, _, _ = c.recvmsg(1 << 17, socket.CMSG_SPACE(16 * 4))
            except OSError:
                break
            if len(msg) < 8:
                break
            fds = array.array("i")
            for level, kind, data in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
            t = struct.unpack_from("<I", msg)[0]
            with open(log, "a") as f:
                f.write("msg type=%d len=%d fds=%d marker=%d\n" % (t, len(msg), len(fds), marker in msg))
            for fd in fds:
                os.close(fd)
            if t == 6:    # POOL_HELLO: POOL_NO_OFFER
                reply(c, 6)
            elif t == 1:  # POOL_EXEC: POOL_STARTED, then POOL_RESULT: exited 0
                reply(c, 4)
                reply(c, 2)
            elif t == 4:  # POOL_STATUS
                reply(c, 3, b'{"pid":4242,"impostor":true}')
            else:
                break
EOF
chmod 0755 "$BIN/fakepool"

for m in $MODES; do
	CR_OUT=$CR_TMP/out-$m
	mkdir -p "$CR_OUT"
	[ "$(id -u)" -ne 0 ] || [ "$m" = root ] || chown 65534:65534 "$CR_OUT"

	# --- another uid's socket at the pool's path ------------------------------------------
	# The victim's XDG_RUNTIME_DIR is a directory others may write (sticky, as /tmp): the
	# attacker (65534 against root, 65533 against 65534) makes corral/pool.sock there first.
	if [ "$(id -u)" -eq 0 ]; then
		att=65534
		[ "$m" = root ] || att=65533
		shared=$CR_TMP/shared-$m
		mkdir -p -m 1777 "$shared"
		mkdir -p -m 0755 "$shared/corral"
		chown "$att:$att" "$shared/corral"
		log=$CR_TMP/fake-$m/log
		mkdir -p "$CR_TMP/fake-$m"
		chown "$att:$att" "$CR_TMP/fake-$m"
		setpriv --reuid="$att" --regid="$att" --clear-groups -- \
			/usr/bin/python3 "$BIN/fakepool" "$shared/corral/pool.sock" "$log" "TOKEN_$m" &
		FAKE_PIDS+=($!)
		wait_for test -e "$log.ready"
		ws=$(mkws "$m")
		vrun() {
			OUT=$(cd "$ws" && as "$m" env XDG_RUNTIME_DIR="$shared" SECRET_TOKEN="TOKEN_$m" \
				"$CORRAL" run --workspace "$ws" --ro "$BIN" --grant once --keep-env SECRET_TOKEN \
				--json-status "$CR_OUT/v.json" "$@" 2>"$CR_OUT/stderr")
			RC=$?
			ERR=$(<"$CR_OUT/stderr")
		}
		vrun -- sh -c 'echo ran'
		is "$m: another uid's socket at the pool's path gets nothing of the run (not its environment, not its descriptors, not a byte)" \
			'! grep -q "^msg" "$log"'
		is "$m: ... the command runs, cold, and the status and stderr say why" \
			'[ "$RC" = 0 ] && [ "$OUT" = ran ] && via "$CR_OUT/v.json" cold && grep -q "\"pool_fallback\":\"[^\"]*not this user.s pool" "$CR_OUT/v.json" && [[ $ERR == *"uid $att listens on it"* ]]'
		vrun --pool=require -- sh -c 'echo ran'
		is "$m: ... with --pool=require: exit 125, the command never ran" \
			'[ "$RC" = 125 ] && [ -z "$OUT" ] && ! grep -q "^msg" "$log"'
		OUT=$(as "$m" env XDG_RUNTIME_DIR="$shared" "$CORRAL" pool status 2>"$CR_OUT/stderr")
		RC=$? ERR=$(<"$CR_OUT/stderr")
		is "$m: corral pool status refuses another uid's socket (exit 1, says why)" \
			'[ "$RC" = 1 ] && [[ $OUT != *impostor* ]] && [[ $ERR == *"not this user"* ]]'
		# Control: the impostor works: a client of its own uid is fooled (the command never
		# runs, the run reports exit 0 through the "pool"), the command's environment (a
		# variable it keeps, as an agent passes its tokens) and its descriptors sent.
		aws=$(mktemp -d "$CR_TMP/aws.XXXXXX")
		mkdir -p -m 0700 "$CR_TMP/state-$att" "$CR_TMP/config-$att"
		chown "$att:$att" "$aws" "$CR_TMP/state-$att" "$CR_TMP/config-$att"
		OUT=$(cd "$aws" && setpriv --reuid="$att" --regid="$att" --clear-groups -- env \
			XDG_STATE_HOME="$CR_TMP/state-$att" XDG_CONFIG_HOME="$CR_TMP/config-$att" \
			XDG_RUNTIME_DIR="$shared" SECRET_TOKEN="TOKEN_$m" "$CORRAL" run --workspace "$aws" \
			--ro "$BIN" --grant once --keep-env SECRET_TOKEN -- sh -c 'echo ran' 2>/dev/null)
		RC=$?
		is "$m: control: the impostor fools a client of its own uid (the command never ran, exit 0, its environment and 3 descriptors sent)" \
			'[ "$RC" = 0 ] && [ -z "$OUT" ] && grep -q "^msg type=1 .*fds=3 marker=1" "$log"'
	else
		skip "$m: another uid's socket at the pool's path" "needs root to act as two users"
	fi

	# --- the fingerprint covers the caches ---------------------------------------------------
	start_pool "$m" 2
	check "$m: a pool runs" test -n "$POOL_PID"
	ws=$(mkws "$m")
	prun "$m" "$ws" "$CR_OUT/t.json" -- true # teaches the pool the policy without a cache
	wait_for ready "$m" "$ws"
	prun "$m" "$ws" "$CR_OUT/c1.json" --cache "t$m=~/.cache/t" -- \
		sh -c 'echo one >"$HOME/.cache/t/one" && echo wrote=1'
	c1=$OUT
	prun "$m" "$ws" "$CR_OUT/r.json" --pool=never --cache "t$m=~/.cache/t" -- \
		sh -c 'cat "$HOME/.cache/t/one"'
	OUT=$(printf '%s\n' "$c1" "read=$OUT")
	res "$m: a run with --cache is not served by the pool's sandbox without that cache: its write lands in the cache" \
		wrote=1 read=one
	# The pool, taught the policy with the cache, serves it with the cache attached.
	for _ in 1 2 3 4 5; do
		wait_for ready "$m" "$ws"
		prun "$m" "$ws" "$CR_OUT/c2.json" --cache "t$m=~/.cache/t" -- \
			sh -c 'cat "$HOME/.cache/t/one" && echo two >"$HOME/.cache/t/two"'
		via "$CR_OUT/c2.json" pool && break
		sleep 0.5
	done
	# shellcheck disable=SC2034 # read in eval (is)
	c2=$OUT
	prun "$m" "$ws" "$CR_OUT/r.json" --pool=never --cache "t$m=~/.cache/t" -- \
		sh -c 'cat "$HOME/.cache/t/two"'
	is "$m: control: through the pool, a --cache run gets its cache (reads the last run's file, its own write kept)" \
		'via "$CR_OUT/c2.json" pool && [ "$c2" = one ] && [ "$OUT" = two ]'

	# --- the pool's status is JSON whatever a workspace is called -----------------------------
	qws="$CR_TMP/q\"uote\\$m"
	mkdir -m 0755 "$qws"
	[ "$(id -u)" -ne 0 ] || chown "$(host_uid "$m"):$(host_gid "$m")" "$qws"
	prun "$m" "$qws" "$CR_OUT/q.json" -- true
	check "$m: corral pool status is JSON with a workspace named with a quote and a backslash" \
		wait_for status_lists "$m" "$qws"

	# --- a volume unmounted from under the workspace after the pool stocked ------------------
	if [ "$(id -u)" -eq 0 ]; then
		ws=$(mkws "$m")
		mkdir "$ws/vol"
		mount -t tmpfs -o mode=0755 corral-test "$ws/vol" && VOLS+=("$ws/vol")
		echo secret >"$ws/vol/s"
		chmod 0644 "$ws/vol/s"
		prun "$m" "$ws" "$CR_OUT/t.json" -- true
		for _ in 1 2 3 4 5; do
			wait_for ready "$m" "$ws"
			prun "$m" "$ws" "$CR_OUT/v1.json" -- cat vol/s
			via "$CR_OUT/v1.json" pool && break
			sleep 0.5
		done
		is "$m: control: a pooled run sees the volume mounted under the workspace" \
			'[ "$OUT" = secret ] && via "$CR_OUT/v1.json" pool'
		# A mount elsewhere on the host (what a container engine does all day) is not one
		# the sandboxes copied: the stock stays.
		wait_for ready "$m" "$ws"
		mkdir -p "$CR_TMP/elsewhere-$m"
		mount -t tmpfs corral-test "$CR_TMP/elsewhere-$m" && VOLS+=("$CR_TMP/elsewhere-$m")
		prun "$m" "$ws" "$CR_OUT/v3.json" -- cat vol/s
		umount "$CR_TMP/elsewhere-$m"
		is "$m: control: a mount made elsewhere on the host leaves the stock: the next run is pooled, the volume seen" \
			'[ "$OUT" = secret ] && via "$CR_OUT/v3.json" pool'
		wait_for ready "$m" "$ws"
		umount "$ws/vol"
		prun "$m" "$ws" "$CR_OUT/v2.json" -- cat vol/s
		is "$m: the volume unmounted on the host (locked) after the pool stocked: the run does not see it" \
			'[ "$RC" != 0 ] && [ "$OUT" != secret ]'
		is "$m: ... it ran cold, saying the policy's paths changed" \
			'via "$CR_OUT/v2.json" cold && grep -q "\"pool_fallback\":\"a path of the policy changed" "$CR_OUT/v2.json"'
	else
		skip "$m: a volume unmounted under the workspace" "mounting on the host needs root"
	fi
	pool_env "$m" "$CORRAL" pool stop >/dev/null 2>&1
done
