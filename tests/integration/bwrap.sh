#!/bin/bash
# bwrap: the bwrap personality (`corral bwrap`, and the `bwrap` executable of libexec/corral),
# as root and as uid 65534, in both modes. Positive controls: an srt-like and an Astrid-like
# command line run the command, give back its exit status, write where they bind writable, and
# the help and version say what clients probe. Attacks, each with the same argv in compat mode
# as the control that the attempt itself works there: a root caller's write to a kernel knob
# through the host's /proc (refused in hardened mode, and so is undoing the read-only mount),
# TIOCSTI and io_uring (refused by the hardened filter, attempted by the kernel in compat), the
# pids limit (hardened only), nested user namespaces (allowed, as clients need, unless
# --disable-userns). Bad input: bwrap's messages and exit status 1, and so for a typo'd key or a
# malformed line in /etc/corral/bwrap.conf (beside the same file with the right key).
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

command -v jq >/dev/null || {
	not_ok "jq is installed (tools/setup.sh installs it)"
	exit 1
}
command -v python3 >/dev/null || {
	not_ok "python3 is installed (tools/setup.sh installs it)"
	exit 1
}

# bw MODE BWMODE ARGS...: `corral bwrap ARGS` as MODE with CORRAL_BWRAP_MODE=BWMODE; stdout in
# $OUT, stderr in $ERR, status in $RC.
bw() {
	local mode=$1 bwmode=$2
	shift 2
	OUT=$(cd "$CR_TMP" && as "$mode" env CORRAL_BWRAP_MODE="$bwmode" "$CORRAL" bwrap "$@" 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
}

# The syscall probes, as the command runs them: what errno the call got.
cat >"$CR_TMP/bin/sysprobe.py" <<'EOF'
import ctypes, errno, fcntl, sys, termios
libc = ctypes.CDLL(None, use_errno=True)
what = sys.argv[1]
if what == "tiocsti":
    try:
        fcntl.ioctl(0, termios.TIOCSTI, b"x")
        print("tiocsti=ok")
    except OSError as e:
        print("tiocsti=" + errno.errorcode[e.errno])
elif what == "io_uring":
    # io_uring_setup(0, NULL): the kernel says EINVAL or EFAULT; a filter says EPERM
    r = libc.syscall(425, 0, None)
    print("io_uring=" + ("ok" if r >= 0 else errno.errorcode[ctypes.get_errno()]))
EOF
chmod a+rx "$CR_TMP/bin/sysprobe.py"

# --- the door itself -----------------------------------------------------------------------
bw root hardened --help
is "--help lists --perms and --as-pid-1 (what Codex probes)" \
	'[ $RC = 0 ] && grep -q -- "--perms" <<<"$OUT" && grep -q -- "--as-pid-1" <<<"$OUT" && grep -q "^usage: corral bwrap" <<<"$OUT"'
bw root hardened --version
is "--version: bwrap's line first (what srt parses), corral's after" \
	'[ $RC = 0 ] && [ "$(head -n1 <<<"$OUT")" = "bubblewrap 0.11.1" ] && grep -q "^corral " <<<"$OUT"'
bw root hardened --bogus-option true
is "an unknown option: bwrap's message, exit 1" '[ $RC = 1 ] && [ "$ERR" = "bwrap: Unknown option --bogus-option" ]'
bw root hardened --bind /nonexistent-corral-source /x true
is "a missing source: bwrap's message, exit 1" '[ $RC = 1 ] && grep -q "^bwrap: Can'"'"'t find source path /nonexistent-corral-source" <<<"$ERR"'
OUT=$(cd "$CR_TMP" && CORRAL_BWRAP_MODE=lax "$CORRAL" bwrap --ro-bind / / true 2>&1)
RC=$?
is "an unknown CORRAL_BWRAP_MODE is refused, not ignored" '[ $RC = 1 ] && grep -q "CORRAL_BWRAP_MODE=lax" <<<"$OUT"'

for mode in $MODES; do
	for bwmode in compat hardened; do
		# the workspace belongs to the caller: bwrap maps only its uid
		ws=$(mktemp -d "$CR_TMP/ws.XXXXXX")
		chmod 0755 "$ws"
		[ "$mode" = root ] || [ "$(id -u)" -ne 0 ] || chown 65534:65534 "$ws"
		# srt's shape: the host read-only, the workspace writable, a tmpfs over a secret
		# directory, /dev/null over a file that does not exist yet
		bw "$mode" "$bwmode" --new-session --die-with-parent --unshare-net --ro-bind / / \
			--bind "$ws" "$ws" --tmpfs "$ws/.ssh" --ro-bind /dev/null "$ws/.bashrc" \
			--dev /dev --unshare-pid --unshare-user --cap-drop ALL --proc /proc --chdir "$ws" \
			-- sh -c 'echo in-ws > ./made; echo x > /etc/corral-bwrap-test 2>/dev/null && echo etc=w || echo etc=ro; echo pid=$$; exit 7'
		res "$mode/$bwmode: srt-like argv runs the command, exit status kept" RC=7 etc=ro pid=2
		is "$mode/$bwmode: srt-like argv wrote in the workspace" '[ "$(cat "$ws/made" 2>/dev/null)" = in-ws ]'
		# Astrid's shape
		bw "$mode" "$bwmode" --ro-bind / / --tmpfs /tmp --bind "$ws" "$ws" --dev /dev --proc /proc \
			--unshare-all --share-net --die-with-parent --chdir "$ws" \
			-- sh -c 'touch /tmp/t && echo tmp=1; kill -TERM $$'
		res "$mode/$bwmode: Astrid-like argv, a signal's death is 128+15" RC=143 tmp=1

		# nested user namespaces: what srt's apply-seccomp makes
		bw "$mode" "$bwmode" --ro-bind / / --unshare-user --unshare-pid --proc /proc --dev /dev \
			-- sh -c 'unshare -U true && echo nested=1 || echo nested=0'
		res "$mode/$bwmode: a nested user namespace is allowed by default" RC=0 nested=1
		bw "$mode" "$bwmode" --ro-bind / / --unshare-user --disable-userns --unshare-pid --proc /proc \
			-- sh -c 'unshare -U true 2>/dev/null && echo nested=1 || echo nested=0'
		res "$mode/$bwmode: --disable-userns refuses it" RC=0 nested=0

		# TIOCSTI and io_uring: the kernel answers in compat mode (ENOTTY: stdin is no
		# terminal; EINVAL or EFAULT), the filter in hardened mode (EPERM)
		bw "$mode" "$bwmode" --ro-bind / / --dev /dev --unshare-pid --proc /proc \
			-- sh -c "python3 $BIN/sysprobe.py tiocsti </dev/null; python3 $BIN/sysprobe.py io_uring"
		if [ "$bwmode" = hardened ]; then
			res "$mode/hardened: TIOCSTI and io_uring are refused" RC=0 tiocsti=EPERM io_uring=EPERM
		else
			is "$mode/compat: TIOCSTI and io_uring reach the kernel (controls)" \
				'[ $RC = 0 ] && grep -qx "tiocsti=ENOTTY" <<<"$OUT" && grep -qE "^io_uring=(EINVAL|EFAULT)$" <<<"$OUT"'
		fi

		# the pids limit, read from the cgroup the command is in
		bw "$mode" "$bwmode" --ro-bind / / --dev /dev --unshare-pid --proc /proc \
			-- sh -c 'p=$(sed -n "s/^[0-9]*:pids://p" /proc/self/cgroup); l=$(cat /sys/fs/cgroup/pids$p/pids.max 2>/dev/null); [ -n "$l" ] || l=$(awk "/^Max processes/ {print \$3}" /proc/self/limits); [ "$l" != unlimited ] || l=none; echo "pids=$l"'
		if [ "$bwmode" = hardened ]; then
			res "$mode/hardened: a pids limit holds the command" RC=0 pids=4096
		else
			is "$mode/compat: no limit of corral's (bwrap has none; control)" \
				'[ $RC = 0 ] && grep -q "^pids=" <<<"$OUT" && ! grep -qx "pids=4096" <<<"$OUT"'
		fi

		# --json-status-fd: bwrap's keys, and what corral added
		OUT=$(cd "$CR_TMP" && as "$mode" env CORRAL_BWRAP_MODE="$bwmode" "$CORRAL" bwrap --ro-bind / / \
			--unshare-pid --json-status-fd 3 -- sh -c 'exit 42' 3>"$CR_TMP/js" 2>&1)
		RC=$?
		is "$mode/$bwmode: --json-status-fd: child-pid, exit-code, the corral object, all JSON" \
			'[ $RC = 42 ] && jq -s -e ".[0][\"child-pid\"] > 0 and .[0].corral.mode == \"$bwmode\" and .[1][\"exit-code\"] == 42 and ((.[0].corral.added | length > 0) == (\"$bwmode\" == \"hardened\"))" "$CR_TMP/js" >/dev/null'
		if [ "$bwmode" = hardened ]; then
			# the memory hog's and the fork bomb's bounds, and how they hold (the default
			# memory limit needs a memory cgroup: without one, the reason is given)
			is "$mode/hardened: the memory and pids limits are enforced, and the status says how" \
				'jq -s -e ".[0].corral.limits.pids.value == 4096 and .[0].corral.limits.pids.mode != \"none\" and .[0].corral.limits.memory.value > 0 and (.[0].corral.limits.memory.mode != \"none\" or (.[0].corral.limits.memory.reason | length > 0)) and .[0].corral.seccomp.profile == \"basic\"" "$CR_TMP/js" >/dev/null'
		fi
	done
done

# --- a root caller and the kernel's knobs ----------------------------------------------------
if [ "$(id -u)" -eq 0 ]; then
	# The host's /proc through a bind of / (no --proc): bwrap leaves its knobs writable to root.
	# Control: in compat mode the knob opens for writing (nothing is written).
	bw root compat --dev-bind / / -- sh -c ': 3>>/proc/sys/kernel/core_pattern && echo open=1 || echo open=0'
	res "root/compat: /proc/sys/kernel/core_pattern opens for writing (control)" RC=0 open=1
	# Attack: write it, or undo the read-only mount first, as root would.
	bw root hardened --dev-bind / / -- sh -c '
		echo "|/bin/false" >/proc/sys/kernel/core_pattern 2>/dev/null && echo write=1 || echo write=0
		umount /proc/sys 2>/dev/null || mount -o remount,rw /proc/sys 2>/dev/null
		echo "|/bin/false" >/proc/sys/kernel/core_pattern 2>/dev/null && echo write2=1 || echo write2=0
		echo 1 >/proc/sysrq-trigger 2>/dev/null && echo sysrq=1 || echo sysrq=0'
	res "root/hardened: core_pattern and sysrq-trigger cannot be written, nor the mount undone" \
		RC=0 write=0 write2=0 sysrq=0
	is "root/hardened: the host's core_pattern is unchanged" '! grep -q "/bin/false" /proc/sys/kernel/core_pattern'
	# and with a fresh /proc
	bw root hardened --dev-bind / / --unshare-pid --proc /proc -- sh -c \
		'echo x >/proc/sys/kernel/core_pattern 2>/dev/null && echo write=1 || echo write=0'
	res "root/hardened: the same through --proc" RC=0 write=0
	# srt's order, --proc /proc last: its knobs are made read-only once, not again at the end.
	# Attack: undo that mount, then write a knob (domainname, with the value it has: harmless
	# if it went through). Control: in compat mode, as in bwrap, both work.
	knob='umount /proc/sys 2>/dev/null; d=$(cat /proc/sys/kernel/domainname)
		echo "$d" >/proc/sys/kernel/domainname 2>/dev/null && echo write=1 || echo write=0'
	bw root compat --ro-bind / / --dev /dev --unshare-user --unshare-pid --proc /proc -- sh -c "$knob"
	res "root/compat: a knob under --proc /proc is written once its mount is undone (control)" \
		RC=0 write=1
	bw root hardened --ro-bind / / --dev /dev --unshare-user --unshare-pid --proc /proc -- sh -c "$knob"
	res "root/hardened: not with --proc /proc last either" RC=0 write=0

	# A pid namespace joined by descriptor (--pidns, as a pod's container joins its pause's):
	# --proc must show that namespace, never the caller's, whose processes (host init's command
	# line among them) the sandbox is not among. Control: the sandbox is in the joined namespace
	# and sees its processes there.
	unshare --pid --fork sleep 60 </dev/null >/dev/null 2>&1 &
	unshare_pid=$!
	for _ in $(seq 50); do
		target=$(pgrep -P "$unshare_pid" | head -n 1)
		[ -n "$target" ] && break
		sleep 0.1
	done
	host_init=$(tr '\0' ' ' </proc/1/cmdline)
	look='echo ns=$(readlink /proc/self/ns/pid); echo pids=$(ls /proc | grep -c "^[0-9]")
		echo init=$(tr "\0" " " </proc/1/cmdline)'
	want_ns=$(readlink "/proc/$target/ns/pid")
	for bwmode in compat hardened; do
		bw root "$bwmode" --pidns 3 --ro-bind / / --dev /dev --proc /proc -- sh -c "$look" \
			3<"/proc/$target/ns/pid"
		is "root/$bwmode: --pidns: the command is in the joined pid namespace, and its /proc shows that namespace's processes, not the host's (control)" \
			'[ $RC = 0 ] && grep -qxF "ns=$want_ns" <<<"$OUT" && grep -qx "init=sleep 60" <<<"$OUT" && [ "$(sed -n "s/^pids=//p" <<<"$OUT")" -lt 10 ]'
		bw root "$bwmode" --pidns 3 --unshare-user --ro-bind / / --dev /dev --proc /proc -- \
			sh -c "$look" 3<"/proc/$target/ns/pid"
		is "root/$bwmode: --pidns with --unshare-user: a procfs of that namespace cannot be mounted from the new user namespace, so the run fails; the host's /proc is never shown in its place" \
			'[ $RC != 0 ] && ! grep -qF "init=$host_init" <<<"$OUT"'
	done
	kill -KILL "$target" 2>/dev/null # pid 1 of its namespace: only SIGKILL reaches it
	wait "$unshare_pid" 2>/dev/null
fi

# --- the bwrap executable, and /proc/self/exe -----------------------------------------------
if [ -n "${CR_BWRAP:-}" ] && [ -x "$CR_BWRAP" ]; then
	cp "$CR_BWRAP" "$CR_TMP/bin/bwrap"
	chmod a+rx "$CR_TMP/bin/bwrap"
	for mode in $MODES; do
		OUT=$(cd "$CR_TMP" && as "$mode" env CORRAL_BWRAP_MODE=compat "$CR_TMP/bin/bwrap" --unshare-user \
			--uid 0 --gid 0 --cap-add ALL --bind / / --bind /proc /proc \
			-- /proc/self/exe --unshare-all --bind / / --bind /proc /proc echo again 2>&1)
		RC=$?
		is "$mode: the bwrap executable runs bwrap's command line, and again as /proc/self/exe" \
			'[ $RC = 0 ] && [ "$OUT" = again ]'
	done
else
	skip "the bwrap executable" "CR_BWRAP is not set"
fi

# --- /etc/corral/bwrap.conf ------------------------------------------------------------------
# conf_bw MODE TEXT ARGS...: `corral bwrap ARGS` as MODE, without CORRAL_BWRAP_MODE, with
# /etc/corral/bwrap.conf saying TEXT: a tmpfs on /etc/corral in a mount namespace of the
# test's own (the host's file, which other runs read, is never touched). $OUT, $ERR, $RC.
conf_bw() {
	local mode=$1 text=$2 pre=()
	shift 2
	[ "$mode" = user ] && pre=("${AS_USER[@]}")
	OUT=$(cd "$CR_TMP" && unshare -m -- sh -c 'mount -t tmpfs -o mode=0755 none /etc/corral &&
		printf "%s" "$1" >/etc/corral/bwrap.conf && chmod 0644 /etc/corral/bwrap.conf &&
		shift && exec "$@"' sh "$text" "${pre[@]}" env -u CORRAL_BWRAP_MODE -u CORRAL_POOL \
		"$CORRAL" bwrap "$@" 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
}

# (a fresh machine has no /etc/corral: made for the tmpfs's mount point, empty, and removed
# after)
if [ "$(id -u)" -eq 0 ] && [ ! -e /etc/corral ] && mkdir /etc/corral; then
	CR_CLEANUP_HOOK="${CR_CLEANUP_HOOK:+$CR_CLEANUP_HOOK; }rmdir /etc/corral"
fi
if [ "$(id -u)" -ne 0 ] || [ ! -d /etc/corral ]; then
	skip "bwrap.conf" "needs root, for a tmpfs on /etc/corral in a mount namespace"
else
	for mode in $MODES; do
		conf_bw "$mode" $'# the door\n\n  mode = compat  \n; pool is auto\npool=never\n' --version
		is "$mode: control: bwrap.conf with comments, blank lines and mode = compat: compat mode" \
			'[ $RC = 0 ] && grep -q "compat mode" <<<"$OUT"'
		conf_bw "$mode" $'# the door\nmode = compat\n' --ro-bind / / echo ran
		is "$mode: control: a run with that bwrap.conf succeeds" '[ $RC = 0 ] && [ "$OUT" = ran ] && [ -z "$ERR" ]'
		conf_bw "$mode" $'# the door\nmdoe = compat\n' --ro-bind / / echo ran
		is "$mode: bwrap.conf's typo'd key (mdoe) is refused, naming file, line and key, exit 1, nothing run" \
			'[ $RC = 1 ] && [ -z "$OUT" ] && [ "$ERR" = "bwrap: /etc/corral/bwrap.conf:2: unknown key '"'mdoe'"' (bwrap.conf has: mode, pool)" ]'
		conf_bw "$mode" $'mode = compat\nmode compat\n' --ro-bind / / echo ran
		is "$mode: bwrap.conf's malformed line is refused, naming file and line, exit 1" \
			'[ $RC = 1 ] && [ -z "$OUT" ] && [[ $ERR == "bwrap: /etc/corral/bwrap.conf:2: expected KEY = VALUE"* ]]'
		conf_bw "$mode" $'mode = compat extra\n' --ro-bind / / echo ran
		is "$mode: bwrap.conf's value followed by more text is refused" \
			'[ $RC = 1 ] && [ -z "$OUT" ] && [[ $ERR == "bwrap: /etc/corral/bwrap.conf:1: expected KEY = VALUE"* ]]'
	done
fi
