#!/bin/bash
# oci: `corral oci`, the OCI runtime door, as far as it goes (docs/oci.md): --version, --help,
# `features` (the runtime-spec features JSON), the same entry under the name corral-oci, `state
# ID` over a state root, `create` reading the bundle's config.json (and then failing: running
# containers comes next), errors on stderr and as JSON lines in --log (where containerd and
# Docker read them), and the commands not there yet failing with a message. As root and as the
# unprivileged user. `state` is attacked the way a neighbour would: ids that climb out of the
# root, a root or container directory others can write or that is a symlink, a state.json that
# is a symlink or huge, a pid that now names another process; each beside a positive control
# that `state` reads in the same root.
# shellcheck disable=SC2016,SC2034 # the conditions of is are single-quoted, evaluated there
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

# shellcheck source=tests/integration/oci-lib.sh
source "$CR_TESTS_DIR/integration/oci-lib.sh"
VERSION=$("$CORRAL" --version | sed -n 's/^corral //p')

# oci MODE ARGS...: corral oci as MODE; stdout in $OUT, stderr in $ERR, the status in $RC.
oci() {
	local m=$1
	shift
	OUT=$(as "$m" "$CORRAL" oci "$@" 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
}

# json_get FILE-OR-TEXT PY-EXPR: the expression over the JSON document d, or "INVALID".
json_get() {
	python3 -c 'import json, sys
try:
    d = json.loads(sys.argv[1])
    print(eval(sys.argv[2]))
except Exception as e:
    print("INVALID", e)' "$1" "$2"
}

# start_time PID: field 22 of /proc/PID/stat.
start_time() {
	sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20
}

# own MODE PATH...: new 0700 directories of MODE's uid (made by the suite: CR_TMP is its own).
own() {
	local m=$1
	shift
	mkdir -m 0700 "$@" && chown "$(as "$m" id -u):$(as "$m" id -g)" "$@"
}

# put_state MODE ROOT ID STATUS PID [START]: write ROOT/ID/state.json as MODE, as `create` will.
put_state() {
	local m=$1 root=$2 id=$3 status=$4 pid=$5 start=${6:-0}
	as "$m" mkdir -p -m 0700 "$root/$id"
	printf '{"ociVersion":"1.2.0","id":"%s","status":"%s","pid":%s,"pid_start_time":%s,"bundle":"/srv/bundles/%s","annotations":{"io.example":"x"}}\n' \
		"$id" "$status" "$pid" "$start" "$id" | as "$m" tee "$root/$id/state.json" >/dev/null
}

# make_rootfs DIR: a busybox-static root (the applets as symlinks), readable by everyone.
make_rootfs() {
	local d=$1 a
	mkdir -p "$d"/{bin,etc,proc,sys,dev,tmp,root}
	cp /bin/busybox "$d/bin/"
	for a in sh echo cat ls sleep id kill true false hostname touch head wc mkdir unshare mknod; do
		ln -sf busybox "$d/bin/$a"
	done
	echo 'root:x:0:0:root:/root:/bin/sh' >"$d/etc/passwd"
	chmod -R a+rX "$d"
}

# make_bundle MODE DIR ROOTFS SCRIPT [SECCOMP]: DIR/config.json running `sh -c SCRIPT` in ROOTFS, shaped
# like `runc spec`'s (the mounts, masked and read-only paths engines send), as root in a user
# namespace of its own mapped to MODE's uid in user mode. SECCOMP: "deny-mkdir" (a profile that
# allows all but mkdir) or "allow-all" (one that allows everything).
make_bundle() {
	mkdir -p "$2"
	python3 - "$(as "$1" id -u)" "$(as "$1" id -g)" "$@" <<'EOF'
import json, os, sys
uid, gid, mode, d, rootfs, script = sys.argv[1:7]
seccomp = sys.argv[7] if len(sys.argv) > 7 else ""
caps = ["CAP_KILL", "CAP_NET_BIND_SERVICE", "CAP_AUDIT_WRITE"]
ns = [{"type": t} for t in ("pid", "network", "ipc", "uts", "mount")]
c = {"ociVersion": "1.0.2", "root": {"path": rootfs, "readonly": True}, "hostname": "bb",
     "process": {"terminal": False, "user": {"uid": 0, "gid": 0}, "args": ["sh", "-c", script],
                 "env": ["PATH=/bin"], "cwd": "/", "noNewPrivileges": True,
                 "capabilities": {k: caps for k in ("bounding", "effective", "permitted", "ambient")},
                 "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024}]},
     "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"},
                {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
                {"destination": "/dev/pts", "type": "devpts", "source": "devpts", "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]},
                {"destination": "/dev/shm", "type": "tmpfs", "source": "shm", "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
                {"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue", "options": ["nosuid", "noexec", "nodev"]},
                {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]},
                {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup", "options": ["ro"]},
                {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["mode=1777"]}],
     "linux": {"namespaces": ns, "resources": {"devices": [{"allow": False, "access": "rwm"}]},
               "maskedPaths": ["/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/timer_list", "/sys/firmware"],
               "readonlyPaths": ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"]}}
if mode == "user":
    ns.append({"type": "user"})
    for k, ids in (("uidMappings", uid), ("gidMappings", gid)):
        c["linux"][k] = [{"containerID": 0, "hostID": int(ids), "size": 1}]
if seccomp == "deny-mkdir":
    c["linux"]["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64"],
                             "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO"}]}
elif seccomp == "allow-all":
    c["linux"]["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW"}
json.dump(c, open(os.path.join(d, "config.json"), "w"), indent=1)
EOF
}

# run_box MODE ROOT BUNDLE ID: create ID as an engine does, through oci-reaper.py (a subreaper
# that takes the exit status of the pid create writes); sets BOX_RES, BOX_OUT, BOX_PIDFILE.
run_box() {
	local m=$1 root=$2 b=$3 id=$4
	local d=$CR_TMP/box-$m
	[ -d "$d" ] || own "$m" "$d"
	BOX_RES=$d/res-$id BOX_OUT=$d/out-$id BOX_PIDFILE=$d/pid-$id
	(cd "$b" && as "$m" python3 "$CR_TESTS_DIR/integration/oci-reaper.py" "$BOX_PIDFILE" "$BOX_RES" -- \
		"$CORRAL" oci --root "$root" create --bundle . --pid-file "$BOX_PIDFILE" "$id" \
		>"$BOX_OUT" 2>&1 </dev/null) &
	HOST_PIDS+=($!)
	wait_for test -s "$BOX_PIDFILE" -o -e "$BOX_RES"
}

# box_status MODE ROOT ID: the status `state` gives.
box_status() {
	as "$1" "$CORRAL" oci --root "$2" state "$3" 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["status"])' 2>/dev/null
}

for m in $MODES; do
	uid=$(as "$m" id -u)
	# --- --version, --help, features -------------------------------------------------------
	oci "$m" --version
	is "$m: corral oci --version names corral's version and the runtime-spec version" \
		'[ "$RC" = 0 ] && [ "$OUT" = "corral version $VERSION"$'"'\n'"'"spec: 1.2.0" ]'
	oci "$m" --help
	is "$m: corral oci --help lists features and state and the global options" \
		'[ "$RC" = 0 ] && [[ $OUT == *"features"* && $OUT == *"state ID"* && $OUT == *"--root DIR"* && $OUT == *"--log-format"* ]]'
	oci "$m" features
	is "$m: corral oci features: the runtime-spec features JSON (versions, the hooks that run, namespaces with user, 41 capabilities, seccomp on, AppArmor and SELinux off, corral's annotations)" \
		'[ "$RC" = 0 ] && [ "$(json_get "$OUT" "[d[\"ociVersionMin\"], d[\"ociVersionMax\"], d[\"hooks\"], \"user\" in d[\"linux\"][\"namespaces\"], len(d[\"linux\"][\"capabilities\"]), d[\"linux\"][\"seccomp\"][\"enabled\"], d[\"linux\"][\"apparmor\"][\"enabled\"], d[\"linux\"][\"selinux\"][\"enabled\"], sorted(k for k in d[\"annotations\"] if k.startswith(\"io.corral.\"))]")" = "['"'"'1.0.0'"'"', '"'"'1.2.0'"'"', ['"'"'prestart'"'"', '"'"'createRuntime'"'"', '"'"'poststart'"'"', '"'"'poststop'"'"'], True, 41, True, False, False, ['"'"'io.corral.floor.no-new-privs'"'"', '"'"'io.corral.landlock'"'"', '"'"'io.corral.resources'"'"', '"'"'io.corral.selinux'"'"', '"'"'io.corral.tcp-connect'"'"', '"'"'io.corral.userns'"'"', '"'"'io.corral.version'"'"']]" ]'
	ln -sf "$CORRAL" "$CR_TMP/bin/corral-oci"
	OUT=$(as "$m" "$CR_TMP/bin/corral-oci" features 2>&1)
	RC=$?
	is "$m: the same entry under the name corral-oci (for engines that take one binary path)" \
		'[ "$RC" = 0 ] && [ "$(json_get "$OUT" "d[\"ociVersionMax\"]")" = 1.2.0 ]'
	oci "$m" features extra
	is "$m: features with an argument: 125" '[ "$RC" = 125 ] && [[ $ERR == *"features takes no argument"* ]]'

	# --- global options and commands not there yet -------------------------------------------
	oci "$m" --systemd-cgroup state x
	is "$m: --systemd-cgroup is refused with the fix (125)" \
		'[ "$RC" = 125 ] && [[ $ERR == *"--systemd-cgroup: not supported by corral"*cgroupfs* ]]'
	oci "$m" --bogus state x
	is "$m: an unknown global option: 125" '[ "$RC" = 125 ] && [[ $ERR == *"unknown global option '"'"'--bogus'"'"'"* ]]'
	oci "$m" --root relative state x
	is "$m: a relative --root: 125" '[ "$RC" = 125 ] && [[ $ERR == *"--root: '"'"'relative'"'"' is not an absolute path"* ]]'
	oci "$m" --log-format xml state x
	is "$m: --log-format xml: 125" '[ "$RC" = 125 ] && [[ $ERR == *"is not text or json"* ]]'
	root=$CR_TMP/oci-root-$m
	log=$CR_TMP/oci-log-$m.json
	own "$m" "$root"
	touch "$log" && chown "$uid" "$log"
	oci "$m" --root "$root" --log "$log" --log-format json pause c9
	is "$m: pause is not there yet: it fails (exit 1) saying so, on stderr and as a JSON line in --log" \
		'[ "$RC" = 1 ] && [[ $ERR == "corral oci: pause: not implemented yet"* ]] && [ "$(json_get "$(tail -n 1 "$log")" "[d[\"level\"], d[\"msg\"].startswith(\"pause: not implemented yet\"), len(d[\"time\"])]")" = "['"'"'error'"'"', True, 20]" ]'

	# --- create: the options engines pass, and config.json read -------------------------------
	b=$CR_TMP/bundle-$m
	mkdir -p "$b/rootfs" "$b-rdt" "$b-link"
	cp "$CR_TESTS_DIR/unit/fixtures/oci/runc-spec.json" "$b/config.json"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["linux"]["intelRdt"] = {"closID": "x"}; json.dump(d, open(sys.argv[2], "w"))' \
		"$b/config.json" "$b-rdt/config.json"
	ln -s "$b/config.json" "$b-link/config.json"
	chmod -R a+rX "$b" "$b-rdt" "$b-link"
	oci "$m" --root "$root" --log "$log" --log-format json create --bundle "$b" --pid-file "$CR_TMP/pid" \
		--console-socket "$CR_TMP/sock" --preserve-fds 2 --no-pivot c9
	is "$m: create with runc spec's config.json (a terminal) and every option engines pass, the console socket missing (as a user: no user namespace in it): exit 1 naming it (and logged), nothing left in the root" \
		'[ "$RC" = 1 ] && [[ $ERR == *"--console-socket $CR_TMP/sock: No such file or directory"* || ( $m == user && $ERR == *"a caller other than root needs a user namespace"* ) ]] && [ "$(json_get "$(tail -n 1 "$log")" "d[\"msg\"].startswith(\"create c9: \")")" = True ] && [ ! -e "$root/c9" ]'
	oci "$m" --root "$root" create --bundle "$b-rdt" c9
	is "$m: create with a field corral does not implement (linux.intelRdt): refused, the field named" \
		'[ "$RC" = 1 ] && [[ $ERR == *"config.json: linux.intelRdt: not supported by corral"* ]]'
	oci "$m" --root "$root" create --bundle "$b-link" c9
	is "$m: create with a config.json that is a symlink: refused" \
		'[ "$RC" = 1 ] && [[ $ERR == *"config.json: Too many levels of symbolic links"* ]]'
	oci "$m" --root "$root" create --bundle "$b" ../c9
	is "$m: create with an id that climbs out of the root: refused" '[ "$RC" = 1 ] && [[ $ERR == *"container id"* ]]'
	oci "$m" --root "$root" create --bundle "$b" --frob c9
	is "$m: create with an unknown option: 125" '[ "$RC" = 125 ] && [[ $ERR == *"create: unknown option '"'"'--frob'"'"'"* ]]'
	oci "$m" --root "$root" create --bundle "$b"
	is "$m: create without an id: 125" '[ "$RC" = 125 ] && [[ $ERR == *"usage: corral oci create"* ]]'
	# --- containers run as engines drive them --------------------------------------------------
	rootfs=$CR_TMP/rootfs-$m
	broot=$CR_TMP/box-root-$m
	make_rootfs "$rootfs"
	own "$m" "$broot"
	BOX_ROOTS+=("$broot")
	bb=$CR_TMP/bb-$m
	make_bundle "$m" "$bb/life" "$rootfs" 'echo hello from $(hostname) as $(id -u); exit 7'
	make_bundle "$m" "$bb/sleep" "$rootfs" 'trap "echo got TERM; exit 3" TERM; echo up; while :; do sleep 0.1; done'
	make_bundle "$m" "$bb/tree" "$rootfs" 'sleep 300 & sleep 300 & echo up; wait'
	chmod -R a+rX "$bb"
	run_box "$m" "$broot" "$bb/life" life
	mpid=$(cat "$BOX_PIDFILE" 2>/dev/null)
	oci "$m" --root "$broot" state life
	ipid=$(json_get "$(cat "$broot/life/state.json")" 'd["init_pid"]')
	is "$m: create returns leaving the container created: the monitor's pid in --pid-file, the container's process's in state (in a pid namespace of its own), the process not started yet" \
		'[ -n "$mpid" ] && [ "$(json_get "$OUT" "[d[\"status\"], d[\"pid\"] == int(\"$ipid\"), d[\"bundle\"]]")" = "['"'"'created'"'"', True, '"'"'$bb/life'"'"']" ] && [ "$ipid" != "$mpid" ] && [ "$(readlink "/proc/$ipid/ns/pid")" != "$(readlink /proc/self/ns/pid)" ] && [ ! -s "$BOX_OUT" ]'
	oci "$m" --root "$broot" start life
	wait_for test -e "$BOX_RES"
	is "$m: start runs it: its output on the stdout create was given, and the reaper of the pid in --pid-file gets the process's exit status (7)" \
		'[ "$RC" = 0 ] && [ "$(cat "$BOX_RES")" = "exited 7" ] && [ "$(cat "$BOX_OUT")" = "hello from bb as 0" ]'
	oci "$m" --root "$broot" state life
	is "$m: state says stopped once it ended" '[ "$(json_get "$OUT" "d[\"status\"]")" = stopped ]'
	is "$m: corral's JSON status of the container is in its state directory (exit code 7, the layers enforced)" \
		'[ "$(json_get "$(cat "$broot/life/status.json")" "[d[\"exit_code\"], d[\"oom_killed\"], d[\"enforced\"][\"seccomp\"][\"mode\"], d[\"enforced\"][\"no_new_privs\"]]")" = "[7, False, '"'"'default'"'"', True]" ]'
	oci "$m" --root "$broot" start life
	is "$m: start of a stopped container is refused" '[ "$RC" = 1 ] && [[ $ERR == *"is stopped, not created"* ]]'
	oci "$m" --root "$broot" delete life
	is "$m: delete of a stopped container removes its state" '[ "$RC" = 0 ] && [ ! -e "$broot/life" ]'

	run_box "$m" "$broot" "$bb/sleep" sleeper
	oci "$m" --root "$broot" start sleeper
	wait_for grep -q up "$BOX_OUT"
	oci "$m" --root "$broot" state sleeper
	is "$m: a started container is running" '[ "$(json_get "$OUT" "d[\"status\"]")" = running ]'
	oci "$m" --root "$broot" delete sleeper
	is "$m: delete of a running container without --force is refused, and it runs on" \
		'[ "$RC" = 1 ] && [[ $ERR == *"is running"* ]] && [ "$(box_status "$m" "$broot" sleeper)" = running ]'
	oci "$m" --root "$broot" kill sleeper TERM
	wait_for test -e "$BOX_RES"
	is "$m: kill ID TERM reaches the container's process (its trap exits 3, seen by the reaper)" \
		'[ "$RC" = 0 ] && [ "$(cat "$BOX_RES")" = "exited 3" ] && grep -q "got TERM" "$BOX_OUT"'
	# an engine that signals as soon as start returns: start returns once the command runs,
	# not while corral's setup (where pid 1 ignores what it has no handler for) still does
	early=0
	for i in 1 2 3; do
		run_box "$m" "$broot" "$bb/sleep" early$i
		oci "$m" --root "$broot" start early$i
		oci "$m" --root "$broot" kill early$i TERM
		wait_for test -e "$BOX_RES"
		[ "$(cat "$BOX_RES")" = "exited 3" ] && early=$((early + 1))
		oci "$m" --root "$broot" delete --force early$i
	done
	OUT="$early of 3"
	is "$m: kill TERM right after start reaches the command's trap (3 of 3)" '[ "$early" = 3 ]'
	oci "$m" --root "$broot" kill sleeper KILL
	is "$m: kill of a stopped container fails" '[ "$RC" = 1 ] && [[ $ERR == *"not running"* ]]'
	oci "$m" --root "$broot" delete sleeper

	# runtime-spec: delete of a container that is not stopped fails and has no effect, a
	# created one too (engines kill first, or pass --force); beside it, the same container
	# killed then deleted
	run_box "$m" "$broot" "$bb/life" made
	ipid=$(json_get "$(cat "$broot/made/state.json")" 'd["init_pid"]')
	oci "$m" --root "$broot" delete made
	is "$m: delete of a created container without --force is refused, and it stays created with its process waiting" \
		'[ "$RC" = 1 ] && [[ $ERR == *"is created, not stopped"* ]] && [ "$(box_status "$m" "$broot" made)" = created ] && [ -e "/proc/$ipid" ] && [ ! -e "$BOX_RES" ]'
	oci "$m" --root "$broot" kill made KILL
	wait_for test -e "$BOX_RES"
	oci "$m" --root "$broot" delete made
	is "$m: the same container killed is stopped, and delete removes it" \
		'[ "$RC" = 0 ] && [ "$(cat "$BOX_RES")" = "signaled 9" ] && [ ! -e "$broot/made" ] && [ ! -e "/proc/$ipid" ]'

	# RLIMIT_CORE stays 0 (corral's floor) when config.json asks for cores, and create says so;
	# beside it, RLIMIT_NOFILE as asked
	mkdir -p "$bb/core"
	python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); c["process"]["args"][2] = "echo core=$(ulimit -c) nofile=$(ulimit -n)"; c["process"]["rlimits"] += [{"type": "RLIMIT_CORE", "hard": 4294967296, "soft": 3221225472}]; json.dump(c, open(sys.argv[2], "w"))' \
		"$bb/life/config.json" "$bb/core/config.json"
	chmod -R a+rX "$bb"
	run_box "$m" "$broot" "$bb/core" core
	oci "$m" --root "$broot" start core
	wait_for test -e "$BOX_RES"
	OUT=$(cat "$BOX_OUT")
	is "$m: process.rlimits asking for core dumps: create warns (RLIMIT_CORE is 0 in every corral container) and the process has RLIMIT_CORE 0, beside RLIMIT_NOFILE as asked" \
		'grep -q "warning: create core: process.rlimits\[1\]: RLIMIT_CORE is 0 in every corral container" <<<"$OUT" && grep -qx "core=0 nofile=1024" <<<"$OUT"'
	oci "$m" --root "$broot" delete core

	# runtime-spec: process is optional at create and required at start
	mkdir -p "$bb/noproc"
	python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); del c["process"]; json.dump(c, open(sys.argv[2], "w"))' \
		"$bb/life/config.json" "$bb/noproc/config.json"
	chmod -R a+rX "$bb"
	run_box "$m" "$broot" "$bb/noproc" noproc
	is "$m: create takes a config.json without process: the container is created" \
		'[ "$(box_status "$m" "$broot" noproc)" = created ]'
	oci "$m" --root "$broot" start noproc
	is "$m: start of a container without process fails, saying so, and the container is stopped" \
		'[ "$RC" = 1 ] && [[ $ERR == *"config.json has no process"* ]] && [ "$(box_status "$m" "$broot" noproc)" = stopped ] && [ ! -s "$BOX_OUT" ]'
	oci "$m" --root "$broot" delete noproc
	is "$m: delete then removes it" '[ "$RC" = 0 ] && [ ! -e "$broot/noproc" ]'

	run_box "$m" "$broot" "$bb/tree" tree
	mpid=$(cat "$BOX_PIDFILE" 2>/dev/null)
	oci "$m" --root "$broot" start tree
	wait_for grep -q up "$BOX_OUT"
	oci "$m" --root "$broot" ps --format json tree
	pids=$(json_get "$OUT" "' '.join(map(str, d))")
	is "$m: ps --format json lists the container's processes by host pid (sh and its two sleeps)" \
		'[ "$RC" = 0 ] && [ "$(wc -w <<<"$pids")" = 3 ] && for p in $pids; do grep -q sleep "/proc/$p/cmdline" || grep -q sh "/proc/$p/cmdline" || exit 1; done'
	# ps takes its format as a value, as engines pass it: -f json, --format json, --format=json
	# and table; another value, or none, is refused by name.
	init=$(json_get "$(as "$m" "$CORRAL" oci --root "$broot" state tree 2>/dev/null)" 'd["pid"]')
	for f in "-f json" "--format json" "--format=json"; do
		# shellcheck disable=SC2086 # the option and its value, two words
		oci "$m" --root "$broot" ps $f tree
		is "$m: ps $f prints a JSON array of host pids that holds the container's pid 1 ($init)" \
			'[ "$RC" = 0 ] && [ "$(json_get "$OUT" "isinstance(d, list) and $init in d")" = True ]'
	done
	oci "$m" --root "$broot" ps -f table tree
	is "$m: ps -f table prints a PID column holding the container's pid 1" \
		'[ "$RC" = 0 ] && [ "$(head -1 <<<"$OUT")" = PID ] && grep -qx "$init" <<<"$OUT"'
	oci "$m" --root "$broot" ps -f bogus tree
	is "$m: ps -f bogus fails with exit 125, naming the value and the formats" \
		'[ "$RC" = 125 ] && [ -z "$OUT" ] && [[ $ERR == *"--format bogus: expected table or json"* ]]'
	oci "$m" --root "$broot" ps -f tree
	is "$m: ps -f without a value fails with exit 125, saying so" \
		'[ "$RC" = 125 ] && [ -z "$OUT" ] && [[ $ERR == *"-f needs a value"* ]]'
	cgs=$(ls -d /sys/fs/cgroup/*/corral/run-"$mpid"-* /sys/fs/cgroup/unified/corral/run-"$mpid"-* 2>/dev/null)
	oci "$m" --root "$broot" delete --force tree
	wait_for test -e "$BOX_RES"
	left=""
	for p in $pids $mpid; do [ -e "/proc/$p" ] && [ "$(sed 's/.*) //' "/proc/$p/stat" | cut -c1)" != Z ] && left+=" $p"; done
	for c in $cgs; do [ -e "$c" ] && left+=" $c"; done
	is "$m: delete --force of a running container leaves nothing: its processes, monitor, cgroups ($(wc -w <<<"$cgs")) and state are gone, the reaper saw SIGKILL" \
		'[ "$RC" = 0 ] && [ -z "$left" ] && [ ! -e "$broot/tree" ] && [ "$(cat "$BOX_RES")" = "signaled 9" ]'

	# --- escapes from inside a container -------------------------------------------------------
	echo canary >"$CR_TMP/canary-$m"
	as_bg "$m" sleep 300
	hpid=${HOST_PIDS[-1]}
	make_bundle "$m" "$bb/esc" "$rootfs" '
		echo 1 > /proc/sys/kernel/core_pattern 2>/dev/null && echo ESC-core_pattern
		echo x > /proc/sys/kernel/hostname 2>/dev/null && echo ESC-hostname
		echo h > /proc/sysrq-trigger 2>/dev/null && echo ESC-sysrq
		cat '"$CR_TMP/canary-$m"' 2>/dev/null && echo ESC-hostpath
		touch /bin/planted 2>/dev/null && echo ESC-rootfs
		kill -0 '"$hpid"' 2>/dev/null && echo ESC-hostpid
		cat /proc/kcore 2>/dev/null | head -c 1 | wc -c | grep -q 1 && echo ESC-kcore
		cat /proc/sys/kernel/ostype >/dev/null && echo OK-read-proc-sys
		touch /tmp/x && echo OK-tmp-write
		kill -0 1 && echo OK-own-pid
		true'
	chmod -R a+rX "$bb"
	run_box "$m" "$broot" "$bb/esc" esc
	oci "$m" --root "$broot" start esc
	wait_for test -e "$BOX_RES"
	out=$(cat "$BOX_OUT")
	is "$m: inside a container /proc/sys and /proc/sysrq-trigger cannot be written, host paths and host pids are not there, the rootfs is read-only, /proc/kcore masked; beside the controls (read /proc/sys, write its /tmp, signal itself)" \
		'[ "$(grep -c ESC <<<"$out")" = 0 ] && [ "$(grep -c OK- <<<"$out")" = 3 ] && [ ! -e "$rootfs/bin/planted" ]'
	oci "$m" --root "$broot" delete esc

	# --- exec into a running container -------------------------------------------------------
	run_box "$m" "$broot" "$bb/sleep" ex
	oci "$m" --root "$broot" start ex
	wait_for grep -q up "$BOX_OUT"
	proc=$CR_TMP/box-$m/process.json
	printf '{"args":["sh","-c","echo in $(hostname) as $(id -u); echo 1 > /proc/sys/kernel/core_pattern 2>/dev/null && echo ESC-core; unshare -U true 2>/dev/null && echo ESC-userns; cat %s 2>/dev/null && echo ESC-host; kill -0 %s 2>/dev/null && echo ESC-hostpid; grep -c sleep /proc/1/cmdline; exit 6"],"env":["PATH=/bin"],"cwd":"/tmp","user":{"uid":0,"gid":0}}\n' \
		"$CR_TMP/canary-$m" "$hpid" >"$proc"
	chmod a+r "$proc"
	oci "$m" --root "$broot" exec --process "$proc" --pid-file "$CR_TMP/box-$m/exec.pid" ex
	is "$m: exec --process runs in the running container (its hostname, its pid 1 the container's), exits with the process's status (6), its pid in --pid-file; and from it /proc/sys, a new user namespace, a host path and a host pid stay out of reach" \
		'[ "$RC" = 6 ] && [ "$OUT" = "in bb as 0"$'"'\n'"'"1" ] && [ -s "$CR_TMP/box-$m/exec.pid" ]'
	printf '{"args":["sleep","300"],"env":["PATH=/bin"],"cwd":"/","user":{"uid":0,"gid":0}}\n' >"$proc"
	# its output is the process's: not a pipe this shell would wait on
	as "$m" "$CORRAL" oci --root "$broot" exec --process "$proc" --detach --pid-file "$CR_TMP/box-$m/exec.pid" ex \
		>/dev/null 2>"$CR_TMP/stderr" </dev/null
	RC=$?
	epid=$(cat "$CR_TMP/box-$m/exec.pid" 2>/dev/null)
	oci "$m" --root "$broot" ps --format json ex
	is "$m: exec --detach returns at once, the process left running in the container (ps lists it)" \
		'[ "$RC" = 0 ] && [ -n "$epid" ] && [ "$(json_get "$OUT" "$epid in d")" = True ]'
	oci "$m" --root "$broot" delete --force ex
	wait_for test ! -e "/proc/$epid"
	is "$m: delete --force takes the exec'd process too" '[ "$RC" = 0 ] && [ ! -e "/proc/$epid" ]'
	oci "$m" --root "$broot" exec --process "$proc" ex
	is "$m: exec into a container that is gone fails" '[ "$RC" = 1 ] && [[ $ERR == *"does not exist"* ]]'

	# --- a console, as conmon takes it ---------------------------------------------------------
	make_bundle "$m" "$bb/tty" "$rootfs" 'test -t 0 && test -t 1 && echo on-a-terminal; exit 4'
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["process"]["terminal"] = True; json.dump(d, open(sys.argv[1], "w"))' "$bb/tty/config.json"
	chmod -R a+rX "$bb"
	sock=$CR_TMP/box-$m/console.sock
	as "$m" python3 "$CR_TESTS_DIR/integration/oci-console.py" "$sock" "$CR_TMP/box-$m/console.out" &
	HOST_PIDS+=($!)
	wait_for test -S "$sock"
	BOX_RES=$CR_TMP/box-$m/res-tty
	(cd "$bb/tty" && as "$m" python3 "$CR_TESTS_DIR/integration/oci-reaper.py" "$CR_TMP/box-$m/pid-tty" "$BOX_RES" -- \
		"$CORRAL" oci --root "$broot" create --bundle . --console-socket "$sock" --pid-file "$CR_TMP/box-$m/pid-tty" tty \
		>/dev/null 2>"$CR_TMP/box-$m/tty.err" </dev/null) &
	wait_for test -s "$CR_TMP/box-$m/pid-tty" -o -e "$BOX_RES"
	oci "$m" --root "$broot" start tty
	wait_for test -e "$BOX_RES"
	wait_for grep -q on-a-terminal "$CR_TMP/box-$m/console.out"
	OUT=$(cat "$BOX_RES" "$CR_TMP/box-$m/console.out" "$CR_TMP/box-$m/tty.err" 2>&1)
	is "$m: with process.terminal and --console-socket the terminal's master reaches the socket (SCM_RIGHTS, with its name) and the process's stdin and stdout are that terminal" \
		'[ "$(cat "$BOX_RES")" = "exited 4" ] && grep -q "^name: /dev/pts/" "$CR_TMP/box-$m/console.out" && grep -q on-a-terminal "$CR_TMP/box-$m/console.out"'
	oci "$m" --root "$broot" delete tty

	# --- a bundle's seccomp profile, over corral's floor -------------------------------------
	make_bundle "$m" "$bb/sc-deny" "$rootfs" 'mkdir /tmp/d 2>/dev/null && echo MKDIR; touch /tmp/f && echo TOUCH' deny-mkdir
	make_bundle "$m" "$bb/sc-all" "$rootfs" 'unshare -U true 2>/dev/null && echo ESC-userns; unshare -m true 2>/dev/null && echo ESC-mountns; echo ran' allow-all
	chmod -R a+rX "$bb"
	run_box "$m" "$broot" "$bb/sc-deny" scdeny
	oci "$m" --root "$broot" start scdeny
	wait_for test -e "$BOX_RES"
	OUT=$(cat "$BOX_RES" "$BOX_OUT")
	is "$m: a bundle's seccomp profile applies (mkdir refused) beside what it allows (touch)" \
		'[ "$(cat "$BOX_RES")" = "exited 0" ] && [ "$(cat "$BOX_OUT")" = TOUCH ]'
	oci "$m" --root "$broot" delete scdeny
	run_box "$m" "$broot" "$bb/sc-all" scall
	oci "$m" --root "$broot" start scall
	wait_for test -e "$BOX_RES"
	OUT=$(cat "$BOX_RES" "$BOX_OUT")
	is "$m: a bundle's allow-everything profile does not lift corral's floor: new user and mount namespaces still refused" \
		'[ "$(cat "$BOX_RES")" = "exited 0" ] && [ "$(cat "$BOX_OUT")" = ran ] && [ "$(json_get "$(cat "$broot/scall/status.json")" "d[\"enforced\"][\"seccomp\"][\"mode\"]")" = default ]'
	oci "$m" --root "$broot" delete scall

	# --- linux.cgroupsPath: the caller's own cgroup ------------------------------------------
	# config_set BUNDLE PY: change BUNDLE/config.json (c) with a python statement.
	config_set() { python3 -c 'import json, sys
c = json.load(open(sys.argv[1])); exec(sys.argv[2]); json.dump(c, open(sys.argv[1], "w"))' "$1/config.json" "$2"; }
	# create_refused MODE ROOT BUNDLE ID: create expected to fail, as oci sets RC and ERR, but
	# with its output in files and a timeout, so that a create that succeeds (a binary that
	# ignores the field) does not hang the suite on its monitor, which keeps its stdout.
	create_refused() {
		as "$1" timeout 10 "$CORRAL" oci --root "$2" create --bundle "$3" "$4" >"$CR_TMP/stdout" 2>"$CR_TMP/stderr" </dev/null
		RC=$? ERR=$(<"$CR_TMP/stderr")
		as "$1" "$CORRAL" oci --root "$2" delete --force "$4" >/dev/null 2>&1
	}
	# --- process.noNewPrivileges false: followed, under the same floor ----------------------
	# The attacker's moves without no_new_privs: a setuid-root copy of busybox (every mount is
	# nosuid, the bounding set is the config's), a new user or mount namespace (corral's floor),
	# a syscall the bundle's profile denies (mkdir).
	make_bundle "$m" "$bb/nnp" "$rootfs" 'grep -q "^NoNewPrivs:.0" /proc/self/status && echo NNP0; grep -q "^Seccomp:.2" /proc/self/status && echo FILTERED; c=$(/suid/grep ^CapEff /proc/self/status | cut -f2); case $c in 0000000020000420|0000000000000000) echo CAPS-KEPT;; *) echo ESC-caps-$c;; esac; unshare -U true 2>/dev/null && echo ESC-userns; unshare -m true 2>/dev/null && echo ESC-mountns; mkdir /tmp/d 2>/dev/null && echo ESC-mkdir; touch /tmp/f && echo TOUCH' deny-mkdir
	config_set "$bb/nnp" 'c["process"]["noNewPrivileges"] = False'
	nnp_root=$CR_TMP/nnp-rootfs-$m
	rm -rf "$nnp_root" && cp -a "$rootfs" "$nnp_root" && mkdir "$nnp_root/suid" && cp /bin/busybox "$nnp_root/suid/grep" && chmod 4755 "$nnp_root/suid/grep"
	[ "$m" = root ] || chown -R "$(as "$m" id -u)" "$nnp_root"
	[ "$m" = root ] || chmod 4755 "$nnp_root/suid/grep"
	config_set "$bb/nnp" "c['root']['path'] = '$nnp_root'"
	chmod -R a+rX "$bb"
	run_box "$m" "$broot" "$bb/nnp" nnp
	oci "$m" --root "$broot" start nnp
	wait_for test -e "$BOX_RES"
	OUT=$(cat "$BOX_RES" "$BOX_OUT")
	is "$m: noNewPrivileges false is followed (NoNewPrivs 0) while corral's floor and the bundle's profile still filter: a setuid-root binary gains no capability, new user and mount namespaces and mkdir stay refused, touch works" \
		'[ "$(cat "$BOX_RES")" = "exited 0" ] && [ "$(cat "$BOX_OUT")" = "NNP0"$'"'\n'"'"FILTERED"$'"'\n'"'"CAPS-KEPT"$'"'\n'"'"TOUCH" ] && [ "$(json_get "$(cat "$broot/nnp/status.json")" "d[\"enforced\"][\"no_new_privs\"]")" = False ]'
	oci "$m" --root "$broot" delete nnp

	# --- the mount table in mounts[]' order (binds too), as runtime-tools reads it ----------
	make_bundle "$m" "$bb/order" "$rootfs" 'awk '"'"'$5 ~ /^\/mnt\// { print $5 }'"'"' /proc/self/mountinfo'
	mkdir -p "$rootfs"/mnt/a "$rootfs"/mnt/b "$rootfs"/mnt/c "$rootfs"/mnt/d
	config_set "$bb/order" 'c["mounts"] += [{"destination": "/mnt/a", "type": "tmpfs", "source": "tmpfs"}, {"destination": "/mnt/b", "source": c["root"]["path"] + "/etc", "options": ["rbind", "ro"]}, {"destination": "/mnt/c", "type": "tmpfs", "source": "tmpfs"}, {"destination": "/mnt/d", "source": c["root"]["path"] + "/bin", "options": ["bind", "ro"]}]'
	chmod -R a+rX "$bb"
	run_box "$m" "$broot" "$bb/order" order
	oci "$m" --root "$broot" start order
	wait_for test -e "$BOX_RES"
	OUT=$(cat "$BOX_RES" "$BOX_OUT")
	is "$m: /proc/self/mountinfo lists config.json's mounts in their order, binds among them" \
		'[ "$(cat "$BOX_RES")" = "exited 0" ] && [ "$(cat "$BOX_OUT" | tr "\n" " ")" = "/mnt/a /mnt/b /mnt/c /mnt/d " ]'
	oci "$m" --root "$broot" delete order

	# --- process.user as another user (root without a user namespace) ------------------------
	if [ "$m" = root ]; then
		make_bundle "$m" "$bb/user" "$rootfs" 'id -u; id -G; grep ^CapEff /proc/self/status | cut -f2; kill -0 1 && echo own-pid1; echo done'
		config_set "$bb/user" 'c["process"]["user"] = {"uid": 1000, "gid": 1000, "additionalGids": [5, 7]}; c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"] if n["type"] != "user"]'
		chmod -R a+rX "$bb"
		run_box "$m" "$broot" "$bb/user" user
		oci "$m" --root "$broot" start user
		wait_for test -e "$BOX_RES"
		OUT=$(cat "$BOX_RES" "$BOX_OUT")
		is "$m: process.user uid 1000, gid 1000, additionalGids 5 and 7 as root without a user namespace: the process has those ids and groups, no capability left at execve (none inheritable)" \
			'[ "$(cat "$BOX_RES")" = "exited 0" ] && [ "$(cat "$BOX_OUT")" = "1000"$'"'\n'"'"1000 5 7"$'"'\n'"'"0000000000000000"$'"'\n'"'"own-pid1"$'"'\n'"'"done" ] && [ "$(json_get "$(cat "$broot/user/status.json")" "d[\"enforced\"][\"uid_map\"][\"inside\"]")" = 1000 ]'
		oci "$m" --root "$broot" delete user
	fi

	# --- linux.seccomp.flags: create accepts exactly what features lists ---------------------
	oci "$m" features
	supported=$(json_get "$OUT" '" ".join(d["linux"]["seccomp"]["supportedFlags"])')
	unlisted=$(json_get "$OUT" '([f for f in d["linux"]["seccomp"]["knownFlags"] if f not in d["linux"]["seccomp"]["supportedFlags"]] + ["SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"])[0]')
	for flag in $supported; do
		make_bundle "$m" "$bb/scf" "$rootfs" 'echo ran' allow-all
		config_set "$bb/scf" "c[\"linux\"][\"seccomp\"][\"flags\"] = [\"$flag\"]"
		chmod -R a+rX "$bb"
		run_box "$m" "$broot" "$bb/scf" scf
		oci "$m" --root "$broot" start scf
		wait_for test -e "$BOX_RES"
		OUT=$(cat "$BOX_RES" "$BOX_OUT")
		is "$m: linux.seccomp.flags $flag, listed by features, is accepted by create" \
			'[ "$(cat "$BOX_RES")" = "exited 0" ] && [ "$(cat "$BOX_OUT")" = ran ]'
		oci "$m" --root "$broot" delete --force scf
	done
	is "$m: features' linux.seccomp.supportedFlags is a list ('$supported'), each tried above" '[[ $supported != *INVALID* ]]'
	make_bundle "$m" "$bb/scf" "$rootfs" 'echo ran' allow-all
	config_set "$bb/scf" "c[\"linux\"][\"seccomp\"][\"flags\"] = [\"$unlisted\"]"
	chmod -R a+rX "$bb"
	create_refused "$m" "$broot" "$bb/scf" scfno
	is "$m: linux.seccomp.flags $unlisted, not in features' supportedFlags, is refused by create, naming the field" \
		'[ "$RC" = 1 ] && [[ $ERR == *"linux.seccomp.flags"* ]]'

	make_bundle "$m" "$bb/cg-sysd" "$rootfs" 'true'
	config_set "$bb/cg-sysd" 'c["linux"]["cgroupsPath"] = "system.slice:libpod:abc"'
	chmod -R a+rX "$bb"
	create_refused "$m" "$broot" "$bb/cg-sysd" cgsysd
	is "$m: a systemd cgroupsPath (slice:prefix:name) is refused, naming the field and the form" \
		'[ "$RC" = 1 ] && [[ $ERR == *"linux.cgroupsPath"*"systemd form"* ]]'
	for bad in / /a/../../b; do
		config_set "$bb/cg-sysd" "c[\"linux\"][\"cgroupsPath\"] = \"$bad\""
		create_refused "$m" "$broot" "$bb/cg-sysd" cgbad
		is "$m: cgroupsPath '$bad' (the hierarchy's root, a climb out) is refused" \
			'[ "$RC" = 1 ] && [[ $ERR == *"linux.cgroupsPath"* ]]'
	done
	if [ "$m" = root ]; then
		cgp=/corral-oci-test-$$/box
		make_bundle "$m" "$bb/cg" "$rootfs" 'sleep 30'
		config_set "$bb/cg" 'c["linux"]["cgroupsPath"] = "'"$cgp"'"; c["linux"]["resources"].update({"memory": {"limit": 67108864}, "pids": {"limit": 50}, "cpu": {"quota": 50000, "period": 100000, "shares": 512}})'
		chmod -R a+rX "$bb"
		run_box "$m" "$broot" "$bb/cg" cg
		oci "$m" --root "$broot" start cg
		init=$(json_get "$(cat "$broot/cg/state.json")" 'd["init_pid"]')
		mon=$(cat "$BOX_PIDFILE")
		# where the kernel says the container's first process and the monitor (the pid the
		# engine was given, whose cgroup conmon watches) are, and the limits written there
		cg_of() { awk -F: -v c="$2" '$2 == c || ($2 == "" && c == "") { print $3 }' "/proc/$1/cgroup"; }
		mem=$(cg_of "$init" memory) pids=$(cg_of "$init" pids) v2=$(cg_of "$init" "")
		if [ -n "$mem" ]; then
			memlim=$(cat "/sys/fs/cgroup/memory$mem/memory.limit_in_bytes")
			pidlim=$(cat "/sys/fs/cgroup/pids$pids/pids.max")
		else
			memlim=$(cat "/sys/fs/cgroup$v2/memory.max") pidlim=$(cat "/sys/fs/cgroup$v2/pids.max")
		fi
		OUT="init $init: mem=$mem pids=$pids v2=$v2 memlim=$memlim pidlim=$pidlim; monitor $mon: $(cat /proc/$mon/cgroup | tr '\n' ' ')"
		is "root: cgroupsPath $cgp holds the container's processes and the monitor, with memory and pids limits written there" \
			'[ "${mem:-$v2}" = "$cgp" ] && [ "${pids:-$v2}" = "$cgp" ] && [ "$memlim" = 67108864 ] && [ "$pidlim" = 50 ] && grep -q ":$cgp\$" "/proc/$mon/cgroup"'
		oci "$m" --root "$broot" delete --force cg
		left=$(ls -d /sys/fs/cgroup/*/corral-oci-test-$$/box /sys/fs/cgroup/corral-oci-test-$$/box 2>/dev/null)
		OUT="left: $left"
		is "root: delete removes the container's cgroup (cgroupsPath) in every hierarchy" '[ -z "$left" ]'
		rmdir /sys/fs/cgroup/*/corral-oci-test-$$ /sys/fs/cgroup/corral-oci-test-$$ 2>/dev/null
	fi

	# --- the rest of linux.resources: written into the caller's cgroup, or refused, named -------
	# without a cgroupsPath there is nowhere to write cpu.cpus: refused, not dropped
	make_bundle "$m" "$bb/res-nocg" "$rootfs" 'true'
	config_set "$bb/res-nocg" 'c["linux"]["resources"]["cpu"] = {"cpus": "0"}'
	chmod -R a+rX "$bb"
	create_refused "$m" "$broot" "$bb/res-nocg" resnocg
	is "$m: linux.resources.cpu.cpus without a cgroupsPath is refused, named" \
		'[ "$RC" = 1 ] && [[ $ERR == *"linux.resources.cpu.cpus: needs linux.cgroupsPath"* ]]'
	config_set "$bb/res-nocg" 'c["linux"]["resources"] = {"hugepageLimits": [{"pageSize": "2MB/../../../memory", "limit": 1}]}'
	create_refused "$m" "$broot" "$bb/res-nocg" resnocg
	is "$m: a hugepage size that climbs out of the cgroup's files is refused, named" \
		'[ "$RC" = 1 ] && [[ $ERR == *"linux.resources.hugepageLimits[0]: pageSize"* ]]'
	if [ "$m" != root ]; then
		# a user's cgroupsPath in hierarchies it may not write: a clear error, not a silent drop
		config_set "$bb/res-nocg" 'c["linux"]["cgroupsPath"] = "/corral-oci-test-'$$'/user"; c["linux"]["resources"] = {"cpu": {"cpus": "0"}}'
		create_refused "$m" "$broot" "$bb/res-nocg" resnocg
		is "$m: cpu.cpus in a cgroupsPath the user may not write fails, naming the field" \
			'[ "$RC" = 1 ] && [[ $ERR == *"linux.resources.cpu.cpus"* ]]'
	fi
	if [ "$m" = root ] && [ -d /sys/fs/cgroup/devices/cgroup.procs -o -e /sys/fs/cgroup/devices/devices.list ] &&
		[ -e /sys/fs/cgroup/cpuset/cpuset.cpus ] && [ -e /sys/fs/cgroup/memory/memory.soft_limit_in_bytes ]; then
		cgp=/corral-oci-test-$$/res
		# the attack: /dev/full is in corral's /dev, which corral's rules allow after the
		# caller's; the caller's rules deny it by its number (and allow /dev/zero)
		make_bundle "$m" "$bb/res" "$rootfs" 'head -c 1 /dev/full >/dev/null 2>&1 && echo READ-FULL; head -c 1 /dev/zero | wc -c; sleep 30'
		config_set "$bb/res" 'c["linux"]["cgroupsPath"] = "'"$cgp"'"; c["linux"]["resources"] = {"memory": {"limit": 67108864, "reservation": 33554432, "swappiness": 10}, "cpu": {"quota": 50000, "period": 500000, "cpus": "0", "mems": "0"}, "devices": [{"allow": False, "access": "rwm"}, {"allow": True, "type": "c", "major": 1, "minor": 5, "access": "rwm"}, {"allow": True, "type": "c", "major": 1, "minor": 3, "access": "rw"}, {"allow": False, "type": "c", "major": 1, "minor": 7, "access": "rwm"}]}'
		chmod -R a+rX "$bb"
		run_box "$m" "$broot" "$bb/res" res
		oci "$m" --root "$broot" start res
		wait_for grep -q 1 "$BOX_OUT"
		init=$(json_get "$(cat "$broot/res/state.json")" 'd["init_pid"]')
		cg_of() { awk -F: -v c="$2" '$2 == c { print $3 }' "/proc/$1/cgroup"; }
		got="$(cat "/sys/fs/cgroup/memory$(cg_of "$init" memory)/memory.soft_limit_in_bytes") $(cat "/sys/fs/cgroup/memory$(cg_of "$init" memory)/memory.swappiness") $(cat "/sys/fs/cgroup/cpuset$(cg_of "$init" cpuset)/cpuset.cpus") $(cat "/sys/fs/cgroup/cpu$(cg_of "$init" cpu)/cpu.cfs_period_us") $(cat "/sys/fs/cgroup/cpu$(cg_of "$init" cpu)/cpu.cfs_quota_us") $(cat "/sys/fs/cgroup/devices$(cg_of "$init" devices)/devices.list" | tr '\n' ,)"
		OUT="got: $got; cpuset $(cg_of "$init" cpuset); out: $(cat "$BOX_OUT")"
		is "root: memory.reservation, swappiness, cpu.cpus, the exact period and quota and the device rules are read back from the container's cgroups ($cgp), corral's /dev nodes allowed after the caller's rules but /dev/full, which they deny" \
			'[[ $got == "33554432 10 0 500000 50000 c 1:5 rwm,c 1:3 rw"* ]] && [[ $got != *" 1:7 "* ]] && [[ $got == *"c 136:* rwm"* ]] && [ "$(cg_of "$init" cpuset)" = "$cgp" ] && [ "$(cg_of "$init" devices)" = "$cgp" ]'
		is "root: the devices cgroup denies /dev/full (in corral's /dev, denied by the rules); /dev/zero (allowed) reads" \
			'[ "$(cat "$BOX_OUT")" = 1 ]'
		oci "$m" --root "$broot" delete --force res
		left=$(ls -d /sys/fs/cgroup/*/corral-oci-test-$$/res /sys/fs/cgroup/unified/corral-oci-test-$$/res 2>/dev/null)
		OUT="left: $left"
		is "root: delete removes the container's cgroup in the cpuset and devices hierarchies too" '[ -z "$left" ]'
		# an OOM kill under memory.limit in the caller's cgroup, in the status
		# (128 MiB: the monitor is in the cgroup too, and under AddressSanitizer its own pages
		# would make it the biggest task under a smaller limit)
		make_bundle "$m" "$bb/oom" "$rootfs" 'x=$(head -c 600000000 /dev/zero | tr "\0" a); echo SURVIVED'
		config_set "$bb/oom" 'c["linux"]["cgroupsPath"] = "'"$cgp"'"; c["linux"]["resources"] = {"memory": {"limit": 134217728, "swap": 134217728}, "devices": [{"allow": True, "access": "rwm"}]}'
		chmod -R a+rX "$bb"
		run_box "$m" "$broot" "$bb/oom" oom
		oci "$m" --root "$broot" start oom
		wait_for test -e "$BOX_RES"
		OUT="res: $(cat "$BOX_RES"); out: $(cat "$BOX_OUT"); status: $(cat "$broot/oom/status.json" 2>/dev/null)"
		is "root: a memory hog over memory.limit in its cgroupsPath is OOM-killed, and status.json says oom_killed" \
			'! grep -q SURVIVED "$BOX_OUT" && [ "$(json_get "$(cat "$broot/oom/status.json")" "d[\"oom_killed\"]")" = True ]'
		oci "$m" --root "$broot" delete oom
		# podman's convention: a file "oom" in the bundle is the OOM kill seen, there before the
		# engine reaps the monitor (the reaper's result); a kill that is not an OOM leaves none
		OUT="$OUT; bundle: $(ls "$bb/oom")"
		is "root: the OOM kill leaves the engine's mark, oom in the bundle, before the monitor's exit" \
			'[ -f "$bb/oom/oom" ] && [ ! -L "$bb/oom/oom" ]'
		make_bundle "$m" "$bb/oomkill" "$rootfs" 'echo up; sleep 30'
		config_set "$bb/oomkill" 'c["linux"]["cgroupsPath"] = "'"$cgp"'"; c["linux"]["resources"] = {"memory": {"limit": 134217728, "swap": 134217728}, "devices": [{"allow": True, "access": "rwm"}]}'
		chmod -R a+rX "$bb"
		run_box "$m" "$broot" "$bb/oomkill" oomkill
		oci "$m" --root "$broot" start oomkill
		wait_for grep -q up "$BOX_OUT"
		oci "$m" --root "$broot" kill oomkill 9
		wait_for test -e "$BOX_RES"
		OUT="res: $(cat "$BOX_RES"); bundle: $(ls "$bb/oomkill"); status: $(cat "$broot/oomkill/status.json" 2>/dev/null)"
		is "root: the same limit and a SIGKILL (exit 137, no OOM): no mark in the bundle, oom_killed false" \
			'[[ $(cat "$BOX_RES") == "signaled 9"* ]] && [ ! -e "$bb/oomkill/oom" ] && [ "$(json_get "$(cat "$broot/oomkill/status.json")" "d[\"oom_killed\"]")" = False ]'
		oci "$m" --root "$broot" delete oomkill
		# what this host cannot apply fails create, naming the field (and leaves no cgroup)
		for f in 'c["linux"]["resources"] = {"network": {"classID": 1048577}}|linux.resources.network.classID|/sys/fs/cgroup/net_cls' \
			'c["linux"]["resources"] = {"blockIO": {"weight": 500}}|linux.resources.blockIO.weight|/sys/fs/cgroup/blkio/blkio.weight' \
			'c["linux"]["resources"] = {"memory": {"kernel": 50593792}}|linux.resources.memory.kernel|'; do
			py=${f%%|*} rest=${f#*|} field=${rest%%|*} host=${rest#*|}
			[ -n "$host" ] && [ -e "$host" ] && continue
			[ -z "$host" ] && [ "$(uname -r | cut -d. -f1)" -lt 6 ] && continue
			config_set "$bb/res-nocg" 'c["linux"]["cgroupsPath"] = "'"$cgp"'"; '"$py"
			create_refused "$m" "$broot" "$bb/res-nocg" resbad
			left=$(ls -d /sys/fs/cgroup/*/corral-oci-test-$$/res /sys/fs/cgroup/unified/corral-oci-test-$$/res 2>/dev/null)
			OUT="rc $RC: $ERR; left: $left"
			is "root: $field, which this host cannot apply, fails create naming it, and leaves no cgroup" \
				'[ "$RC" = 1 ] && [[ $ERR == *"$field: "* ]] && [ -z "$left" ]'
		done
		rmdir /sys/fs/cgroup/*/corral-oci-test-$$ /sys/fs/cgroup/unified/corral-oci-test-$$ 2>/dev/null
	fi

	# --- linux.resources.devices: an allowlist grants no node corral's /dev lacks -------------
	# Docker's and containerd's lists allow mknod of any node and a few character devices; the
	# attack: CAP_MKNOD and an allow rule for the host's first disk, then the node made and read.
	make_bundle "$m" "$bb/dev" "$rootfs" 'mknod /dev/sdz b 8 0 2>/dev/null; mknod /tmp/sdz b 8 0 2>/dev/null; for n in /dev/sdz /tmp/sdz; do head -c 1 $n >/dev/null 2>&1 && echo READ-$n; done; head -c 1 /dev/zero | wc -c'
	config_set "$bb/dev" 'c["process"]["capabilities"] = {k: ["CAP_MKNOD"] for k in ("bounding", "effective", "permitted")}; c["linux"]["resources"]["devices"] = [{"allow": False, "access": "rwm"}, {"allow": True, "type": "b", "major": 8, "minor": 0, "access": "rwm"}, {"allow": True, "type": "c", "access": "m"}, {"allow": True, "type": "b", "access": "m"}, {"allow": True, "type": "c", "major": 1, "minor": 5, "access": "rwm"}]'
	chmod -R a+rX "$bb"
	run_box "$m" "$broot" "$bb/dev" dev
	oci "$m" --root "$broot" start dev
	wait_for test -e "$BOX_RES"
	OUT=$(cat "$BOX_RES" "$BOX_OUT")
	is "$m: a devices allowlist (Docker's shape, a disk allowed, CAP_MKNOD) is accepted and grants nothing: a disk node made in /dev or /tmp cannot be read; /dev/zero can" \
		'[ "$(cat "$BOX_RES")" = "exited 0" ] && [ "$(cat "$BOX_OUT")" = 1 ]'
	oci "$m" --root "$broot" delete dev

	# --- hooks: prestart, createRuntime, poststart, poststop with the state on stdin ----------
	hd=$CR_TMP/hooks-$m
	own "$m" "$hd"
	make_bundle "$m" "$bb/hk" "$rootfs" 'sleep 2; echo ran'
	config_set "$bb/hk" 'h = lambda n: {"path": "/bin/sh", "args": ["sh", "-c", "cat > '"$hd"'/" + n + "; echo $0 >> '"$hd"'/order", n]}
c["hooks"] = {k: [h(k)] for k in ("prestart", "createRuntime", "poststart", "poststop")}'
	chmod -R a+rX "$bb"
	run_box "$m" "$broot" "$bb/hk" hk
	hinit=$(json_get "$(cat "$broot/hk/state.json")" 'd["init_pid"]')
	created=$(cat "$hd/order" 2>/dev/null | tr '\n' ' ')
	oci "$m" --root "$broot" start hk
	wait_for test -e "$BOX_RES"
	oci "$m" --root "$broot" delete hk
	OUT="order: $(tr '\n' ' ' <"$hd/order" 2>/dev/null); at create: $created; prestart: $(cat "$hd/prestart" 2>/dev/null); poststop: $(cat "$hd/poststop" 2>/dev/null); res: $(cat "$BOX_RES")"
	is "$m: hooks run in order (prestart, createRuntime during create; poststart at start; poststop at delete), each with the state on stdin (the container's pid, its status)" \
		'[ "$(tr "\n" " " <"$hd/order")" = "prestart createRuntime poststart poststop " ] && [ "$created" = "prestart createRuntime " ] && [ "$(json_get "$(cat "$hd/prestart")" "[d[\"id\"], d[\"status\"], d[\"pid\"] == $hinit]")" = "['"'"'hk'"'"', '"'"'created'"'"', True]" ] && [ "$(json_get "$(cat "$hd/poststart")" "d[\"status\"]")" = running ] && [ "$(json_get "$(cat "$hd/poststop")" "[d[\"status\"], \"pid\" in d]")" = "['"'"'stopped'"'"', False]" ] && [ "$(cat "$BOX_RES")" = "exited 0" ]'
	# a failing prestart fails create: no container, no process left
	make_bundle "$m" "$bb/hkf" "$rootfs" 'echo ESCAPED-HOOK'
	config_set "$bb/hkf" 'c["hooks"] = {"prestart": [{"path": "/bin/sh", "args": ["sh", "-c", "echo refused-by-hook >&2; exit 3"]}]}'
	chmod -R a+rX "$bb"
	run_box "$m" "$broot" "$bb/hkf" hkf
	wait_for test -e "$BOX_RES"
	OUT=$(cat "$BOX_RES" "$BOX_OUT")
	is "$m: a prestart hook that fails fails create (exit 1), naming the hook, its status and its stderr; the process never runs" \
		'[ "$(cat "$BOX_RES")" = "create 1" ] && [[ $(cat "$BOX_OUT") == *"hooks.prestart[0] /bin/sh: exit status 3: refused-by-hook"* ]] && [[ $(cat "$BOX_OUT") != *ESCAPED* ]] && [ ! -e "$broot/hkf/state.json" ]'
	config_set "$bb/hkf" 'c["hooks"] = {"startContainer": [{"path": "/bin/true"}]}'
	create_refused "$m" "$broot" "$bb/hkf" hkc
	is "$m: a startContainer hook (run inside the container) is refused, named" \
		'[ "$RC" = 1 ] && [[ $ERR == *"hooks.startContainer"*"not supported"* ]]'

	# --- a pod: a container joining the namespaces of another by its monitor's pid (CRI) ------
	# containerd names the pause container's namespaces /proc/PID/ns/TYPE with the pid it was
	# given, the monitor's, which is in the caller's namespaces: they must be the pause's own.
	if [ "$m" = root ]; then
		make_bundle "$m" "$bb/pause" "$rootfs" 'sleep 30'
		config_set "$bb/pause" 'c["hostname"] = "podhost"'
		chmod -R a+rX "$bb"
		run_box "$m" "$broot" "$bb/pause" pause
		oci "$m" --root "$broot" start pause
		pmon=$(cat "$BOX_PIDFILE")
		make_bundle "$m" "$bb/podc" "$rootfs" 'hostname; cat /proc/1/cmdline; echo; ls /proc | grep -c "^[0-9]"'
		config_set "$bb/podc" 'c.pop("hostname"); c["linux"]["namespaces"] = [{"type": t, "path": "/proc/'"$pmon"'/ns/" + n} for t, n in (("pid", "pid"), ("ipc", "ipc"), ("uts", "uts"))] + [{"type": "mount"}, {"type": "network"}]'
		chmod -R a+rX "$bb"
		run_box "$m" "$broot" "$bb/podc" podc
		[ -e "$BOX_RES" ] || oci "$m" --root "$broot" start podc
		wait_for test -e "$BOX_RES"
		OUT=$(cat "$BOX_RES" "$BOX_OUT")
		is "$m: namespaces named by another container's monitor pid (/proc/PID/ns/..., as containerd names a pod's) are that container's: its hostname, and a /proc of its pid namespace, whose pid 1 is the pause's process (never the host's /proc)" \
			'[ "$(cat "$BOX_RES")" = "exited 0" ] && [ "$(head -n 1 "$BOX_OUT")" = podhost ] && [ "$(sed -n 2p "$BOX_OUT" | tr -d "\\0")" = sleep30 ] && [ "$(sed -n 3p "$BOX_OUT")" -lt 10 ]'
		oci "$m" --root "$broot" delete podc
		oci "$m" --root "$broot" delete --force pause
	fi

	oci "$m" frobnicate
	is "$m: an unknown command: 125" '[ "$RC" = 125 ] && [[ $ERR == *"unknown command '"'"'frobnicate'"'"'"* ]]'

	# --- state: positive controls -----------------------------------------------------------
	as_bg "$m" sleep 300
	spid=${HOST_PIDS[-1]}
	wait_for test -e "/proc/$spid/stat"
	put_state "$m" "$root" c1 created "$spid" "$(start_time "$spid")"
	oci "$m" --root "$root" state c1
	is "$m: state c1 (created, its init alive): the runtime-spec state JSON with its pid, bundle and annotations" \
		'[ "$RC" = 0 ] && [ "$(json_get "$OUT" "[list(d), d[\"status\"], d[\"pid\"] == $spid, d[\"bundle\"], d[\"annotations\"]]")" = "[['"'"'ociVersion'"'"', '"'"'id'"'"', '"'"'status'"'"', '"'"'pid'"'"', '"'"'bundle'"'"', '"'"'annotations'"'"'], '"'"'created'"'"', True, '"'"'/srv/bundles/c1'"'"', {'"'"'io.example'"'"': '"'"'x'"'"'}]" ]'
	put_state "$m" "$root" c2 running "$spid" "$(($(start_time "$spid") + 1))"
	oci "$m" --root "$root" state c2
	is "$m: a running container whose pid now names another process (start time differs) is stopped, without a pid" \
		'[ "$RC" = 0 ] && [ "$(json_get "$OUT" "[d[\"status\"], \"pid\" in d]")" = "['"'"'stopped'"'"', False]" ]'
	kill "$spid"
	wait "$spid" 2>/dev/null
	oci "$m" --root "$root" state c1
	is "$m: once its init is gone, c1 is stopped" \
		'[ "$RC" = 0 ] && [ "$(json_get "$OUT" "d[\"status\"]")" = stopped ]'
	if [ "$m" = user ] && [ "$(id -u)" -eq 0 ]; then
		xdg=$CR_TMP/xdg-$m
		own "$m" "$xdg"
		as "$m" mkdir -m 0700 "$xdg/corral-oci"
		put_state "$m" "$xdg/corral-oci" c3 stopped 0
		OUT=$(as "$m" env XDG_RUNTIME_DIR="$xdg" "$CORRAL" oci state c3 2>&1)
		RC=$?
		is "$m: without --root, a user's root is \$XDG_RUNTIME_DIR/corral-oci" \
			'[ "$RC" = 0 ] && [ "$(json_get "$OUT" "d[\"id\"]")" = c3 ]'
		OUT=$(as "$m" env -u XDG_RUNTIME_DIR "$CORRAL" oci state c3 2>&1)
		RC=$?
		is "$m: ...and without XDG_RUNTIME_DIR it says to set it or pass --root (exit 1)" \
			'[ "$RC" = 1 ] && [[ $OUT == *"XDG_RUNTIME_DIR is not set"*"--root DIR"* ]]'
	fi

	# --- state: attacks ---------------------------------------------------------------------
	oci "$m" --root "$root" --log "$log" --log-format json state nosuch
	is "$m: state of a container that does not exist: exit 1, named, and logged" \
		'[ "$RC" = 1 ] && [[ $ERR == *"container '"'"'nosuch'"'"' does not exist"* ]] && [ "$(json_get "$(tail -n 1 "$log")" "d[\"level\"]")" = error ]'
	mkdir -p "$CR_TMP/elsewhere-$m/c1"
	for id in ../c1 "../elsewhere-$m/c1" /etc/passwd . .. 'a b' ''; do
		oci "$m" --root "$root" state "$id"
		is "$m: state '$id': an id that is not a plain name is refused (exit 1)" \
			'[ "$RC" = 1 ] && [[ $ERR == *"container id"* ]] && [ -z "$OUT" ]'
	done
	put_state "$m" "$root" good stopped 0
	as "$m" ln -s "$root/good" "$root/link"
	oci "$m" --root "$root" state link
	is "$m: a container directory that is a symlink (to another container) is refused" \
		'[ "$RC" = 1 ] && [ -z "$OUT" ]'
	as "$m" mkdir -m 0700 "$root/lnk"
	as "$m" ln -s "$root/good/state.json" "$root/lnk/state.json"
	oci "$m" --root "$root" state lnk
	is "$m: a state.json that is a symlink is refused" '[ "$RC" = 1 ] && [ -z "$OUT" ] && [[ $ERR == *state.json* ]]'
	put_state "$m" "$root" other stopped 0
	as "$m" chmod 0777 "$root/other"
	oci "$m" --root "$root" state other
	is "$m: a container directory others can write (a neighbour could swap its state) is refused" \
		'[ "$RC" = 1 ] && [ -z "$OUT" ]'
	put_state "$m" "$root" big stopped 0
	as "$m" python3 -c 'import sys; open(sys.argv[1], "a").write(" " * (1 << 20))' "$root/big/state.json"
	oci "$m" --root "$root" state big
	is "$m: a state.json over 1 MiB is refused" '[ "$RC" = 1 ] && [[ $ERR == *"larger than"* ]]'
	put_state "$m" "$root" liar stopped 0
	sed 's/"id":"liar"/"id":"good"/' "$root/liar/state.json" | as "$m" tee "$root/liar/state.json.new" >/dev/null
	as "$m" mv "$root/liar/state.json.new" "$root/liar/state.json"
	oci "$m" --root "$root" state liar
	is "$m: a state.json that names another container is refused" \
		'[ "$RC" = 1 ] && [[ $ERR == *"names another container"* ]]'
	oci "$m" --root "$root" state good
	is "$m: ...positive control: 'good' in the same root is read" \
		'[ "$RC" = 0 ] && [ "$(json_get "$OUT" "[d[\"id\"], d[\"status\"]]")" = "['"'"'good'"'"', '"'"'stopped'"'"']" ]'
	wroot=$CR_TMP/oci-wroot-$m
	own "$m" "$wroot"
	put_state "$m" "$wroot" good stopped 0
	as "$m" chmod 0777 "$wroot"
	oci "$m" --root "$wroot" state good
	is "$m: a state root others can write is refused" '[ "$RC" = 1 ] && [ -z "$OUT" ]'
	if [ "$m" = user ] && [ "$(id -u)" -eq 0 ]; then
		froot=$CR_TMP/oci-foreign
		mkdir -m 0755 "$froot"
		put_state root "$froot" good stopped 0
		chmod 0755 "$froot/good" "$froot/good/state.json"
		oci "$m" --root "$froot" state good
		is "$m: a state root of another uid (root's) is refused" '[ "$RC" = 1 ] && [ -z "$OUT" ]'
	fi
	diag "$m: uid $uid"
done
