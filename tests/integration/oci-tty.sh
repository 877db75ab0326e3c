#!/bin/bash
# oci-tty: a container's console as engines take it (--console-socket, docs/oci.md): the suite
# listens on the socket itself (oci-console.py, as conmon does), runs `corral oci create` and
# `exec` with process.terminal, and checks that the terminal is one of the container's own
# devpts: `tty` names it inside, stdin and stdout are it, and the master received is not of the
# host's /dev/pts. Attacked beside it: a host pty left open and writable by everyone (0666) is
# not reachable from the container by its /dev/pts/N. As root and as the unprivileged user.
# shellcheck disable=SC2016 # the conditions of is are single-quoted, evaluated there
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

# shellcheck source=tests/integration/oci-lib.sh
source "$CR_TESTS_DIR/integration/oci-lib.sh"

# A host pty, writable by everyone, whose master this holder drains into a file: what a
# container must not reach. Its number is written first.
HOLD=$CR_TMP/host-pty
cat >"$CR_TMP/hold.py" <<'EOF'
import os, sys, time
out = sys.argv[1]
m, s = os.openpty()
while os.ttyname(s) == "/dev/pts/0":  # never 0: a container's own first pty is its /dev/pts/0
    m, s = os.openpty()
os.chmod(os.ttyname(s), 0o666)
open(out + ".name", "w").write(os.ttyname(s))
with open(out, "wb") as f:
    while True:
        f.write(os.read(m, 4096))
        f.flush()
EOF
python3 "$CR_TMP/hold.py" "$HOLD" </dev/null >/dev/null 2>&1 &
HOST_PIDS+=($!)
wait_for test -s "$HOLD.name"
HOST_PTY=$(cat "$HOLD.name")

rootfs=$CR_TMP/rootfs
mkdir -p "$rootfs"/{bin,etc,proc,sys,dev,tmp,root}
cp /bin/busybox "$rootfs/bin/"
for a in sh echo cat ls sleep tty stat test true; do ln -sf busybox "$rootfs/bin/$a"; done
chmod -R a+rX "$rootfs"

# bundle MODE DIR TERMINAL SCRIPT: DIR/config.json running `sh -c SCRIPT`, shaped like runc
# spec's (as root, or as root of a user namespace mapped to MODE's uid).
bundle() {
	mkdir -p "$2"
	python3 - "$(as "$1" id -u)" "$(as "$1" id -g)" "$@" "$rootfs" <<'EOF'
import json, os, sys
uid, gid, mode, d, terminal, script, rootfs = sys.argv[1:8]
ns = [{"type": t} for t in ("pid", "network", "ipc", "uts", "mount")]
c = {"ociVersion": "1.0.2", "root": {"path": rootfs, "readonly": True},
     "process": {"terminal": terminal == "tty", "user": {"uid": 0, "gid": 0},
                 "consoleSize": {"height": 33, "width": 101},
                 "args": ["sh", "-c", script], "env": ["PATH=/bin"], "cwd": "/"},
     "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"},
                {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=755"]},
                {"destination": "/dev/pts", "type": "devpts", "source": "devpts", "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]}],
     "linux": {"namespaces": ns}}
if mode == "user":
    ns.append({"type": "user"})
    for k, ids in (("uidMappings", uid), ("gidMappings", gid)):
        c["linux"][k] = [{"containerID": 0, "hostID": int(ids), "size": 1}]
json.dump(c, open(os.path.join(d, "config.json"), "w"))
EOF
	chmod -R a+rX "$2"
}

# listen MODE SOCK OUT: oci-console.py on SOCK as MODE, in the background.
listen() {
	as "$1" sh -c 'echo $$ >"$1.pid"; exec python3 "$0" "$1" "$2"' \
		"$CR_TESTS_DIR/integration/oci-console.py" "$2" "$3" </dev/null >/dev/null 2>&1 &
	wait_for test -S "$2"
	HOST_PIDS+=("$(cat "$2.pid")")
}

INSIDE='tty; test -t 0 && test -t 1 && echo stdin-tty; stat -c "dev %d" "$(tty)" /dev/pts/ptmx; echo ESCAPE >'$HOST_PTY' 2>/dev/null && echo WROTE-HOST; test -e '$HOST_PTY' || echo no-host-pty'

for m in $MODES; do
	d=$CR_TMP/$m root=$CR_TMP/$m/root
	mkdir -p "$d" && chown "$(as "$m" id -u)" "$d" && chmod 0700 "$d"
	BOX_ROOTS+=("$root")

	# --- create: the container's init makes the console --------------------------------------
	bundle "$m" "$d/tty" tty "$INSIDE; exit 4"
	listen "$m" "$d/c.sock" "$d/c.out"
	(cd "$d/tty" && as "$m" python3 "$CR_TESTS_DIR/integration/oci-reaper.py" "$d/pid" "$d/res" -- \
		"$CORRAL" oci --root "$root" create --bundle . --console-socket "$d/c.sock" --pid-file "$d/pid" c1 \
		>/dev/null 2>"$d/create.err" </dev/null) &
	HOST_PIDS+=($!)
	wait_for test -s "$d/pid" -o -e "$d/res"
	as "$m" "$CORRAL" oci --root "$root" start c1 2>>"$d/create.err"
	wait_for test -e "$d/res"
	wait_for grep -q no-host-pty "$d/c.out"
	RC=$(cat "$d/res")
	OUT=$(cat "$d/res" "$d/c.out" "$d/create.err" 2>&1)
	echo "$OUT" | sed 's/^/# /'
	devs=$(sed -n 's/^dev //p' "$d/c.out" | tr -d '\r' | sort -u | wc -l)
	is "$m: create with a terminal: tty names the console inside (/dev/pts/N), stdin and stdout are it, the process's status is the container's" \
		'[ "$(cat "$d/res")" = "exited 4" ] && grep -q "^/dev/pts/[0-9]" "$d/c.out" && grep -q stdin-tty "$d/c.out" && grep -q "^name: /dev/pts/[0-9]" "$d/c.out"'
	is "$m: the console is of the container's own devpts: the terminal received is not of the host's /dev/pts, the tty and the container's /dev/pts/ptmx are one file system" \
		'grep -q "^devpts: other" "$d/c.out" && [ "$(grep -c "^dev " "$d/c.out")" = 2 ] && [ "$devs" = 1 ]'
	is "$m: a host pty open to everyone ($HOST_PTY, 0666) is not reachable from the container by its name, nothing reached it" \
		'grep -q no-host-pty "$d/c.out" && ! grep -q WROTE-HOST "$d/c.out" && ! grep -q ESCAPE "$HOLD"'
	as "$m" "$CORRAL" oci --root "$root" delete c1 2>/dev/null

	# --- exec: the process makes its own console, in the running container's devpts -----------
	bundle "$m" "$d/run" notty 'sleep 300'
	(cd "$d/run" && as "$m" python3 "$CR_TESTS_DIR/integration/oci-reaper.py" "$d/pid2" "$d/res2" -- \
		"$CORRAL" oci --root "$root" create --bundle . --pid-file "$d/pid2" c2 \
		>/dev/null 2>&1 </dev/null) &
	HOST_PIDS+=($!)
	wait_for test -s "$d/pid2" -o -e "$d/res2"
	as "$m" "$CORRAL" oci --root "$root" start c2
	python3 -c 'import json, sys; print(json.dumps({"terminal": True, "consoleSize": {"height": 33, "width": 101}, "args": ["sh", "-c", sys.argv[1]], "env": ["PATH=/bin"], "cwd": "/", "user": {"uid": 0, "gid": 0}}))' \
		"$INSIDE; exit 5" >"$d/proc.json"
	chmod a+r "$d/proc.json"
	listen "$m" "$d/e.sock" "$d/e.out"
	as "$m" "$CORRAL" oci --root "$root" exec --process "$d/proc.json" --console-socket "$d/e.sock" --tty c2 \
		>/dev/null 2>"$d/exec.err" </dev/null
	RC=$?
	wait_for grep -q no-host-pty "$d/e.out"
	cat "$d/e.out" "$d/exec.err" 2>&1 | sed 's/^/# /'
	devs=$(sed -n 's/^dev //p' "$d/e.out" | tr -d '\r' | sort -u | wc -l)
	is "$m: exec --console-socket --tty: tty names the console inside, stdin and stdout are it, exec exits with the process's status" \
		'[ "$RC" = 5 ] && grep -q "^/dev/pts/[0-9]" "$d/e.out" && grep -q stdin-tty "$d/e.out"'
	is "$m: exec's console is of the container's devpts, not the host's; the host's open pty is not reachable" \
		'grep -q "^devpts: other" "$d/e.out" && [ "$devs" = 1 ] && grep -q no-host-pty "$d/e.out" && ! grep -q WROTE-HOST "$d/e.out" && ! grep -q ESCAPE "$HOLD"'
	as "$m" "$CORRAL" oci --root "$root" exec --process "$d/proc.json" c2 >/dev/null 2>"$d/exec.err" </dev/null
	RC=$?
	is "$m: exec of a process with a terminal but no --console-socket: exit 1 naming it" \
		'[ "$RC" = 1 ] && grep -q "process.terminal: a terminal needs --console-socket" "$d/exec.err"'
	as "$m" "$CORRAL" oci --root "$root" delete --force c2 2>/dev/null
done
