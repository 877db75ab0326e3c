#!/bin/bash
# oci-engines: an OCI runtime driven by the real engines that call one (issue 21), as TAP.
#
#   tests/oci/engines.sh [RUNTIME [MIN_VALIDATION]]
#
# RUNTIME is any runtime binary (runc, crun, corral-oci); without it, CR_LAUNCHER (corral, set by
# meson) is copied as corral-oci, the name under which corral is an OCI runtime. Each check runs
# the engine as its users do:
#   podman run --rm (root, and rootless as ROOTLESS_USER), podman run -it on a pseudo-terminal
#   (the console socket), podman exec, podman stop, an OOM kill seen by conmon (podman inspect's
#   State.OOMKilled); ctr run and a CRI pod (the test bed's cri.js through a runtime handler, what
#   a Kubernetes RuntimeClass names) on a containerd of the test's own; docker run --runtime on a
#   dockerd of the test's own; tests/oci/escapes.sh's probe battery in a podman container beside
#   `corral run` (OCI_CORRAL, else CR_LAUNCHER; skipped without either); opencontainers/
#   runtime-tools' validation programs, which must pass at least MIN_VALIDATION of them (default
#   OCI_MIN_VALIDATION, else 33: crun's count on this kind of host).
#
# Needs root and the offline test bed (docs/oci.md, "Testing with real engines") in OCI_TESTBED
# (default /var/tmp/oci-testbed): podman, conmon, containerd, ctr, dockerd, node with the CRI
# client, runtime-tools built, the images localhost/bb and localhost/pause. A missing piece skips
# its checks, naming it. OCI_VALIDATION=0 skips the validation suite (about 2 minutes).
#
# Every runtime call goes through a logging wrapper: on a failure the check prints, as TAP
# comments, what the engine printed and the runtime calls it made, with their stderr, exit
# status and --log file.
# shellcheck disable=SC2016 # the checks are single-quoted on purpose: evaluated later
set -u

W=${OCI_TESTBED:-/var/tmp/oci-testbed}
RU=${ROOTLESS_USER:-ciuser}
MIN=${2:-${OCI_MIN_VALIDATION:-33}}
N=0
FAILED=0
PIDS=()

ok() { N=$((N + 1)); echo "ok $N - $*"; }
not_ok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $*"; }
skip() { N=$((N + 1)); echo "ok $N - $1 # SKIP $2"; }
diag() { sed 's/^/#   /'; }

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root (podman, containerd and dockerd as root; rootless podman as $RU)"
	exit 0
fi

RUNTIME=${1:-}
T=$(mktemp -d /var/tmp/oci-engines.XXXXXX)
chmod 0755 "$T"
mkdir -p "$T/bin"
if [ -z "$RUNTIME" ]; then
	[ -n "${CR_LAUNCHER:-}" ] || { echo "Bail out! no RUNTIME argument and no CR_LAUNCHER"; exit 1; }
	cp "$CR_LAUNCHER" "$T/bin/corral-oci"
	REAL=$T/bin/corral-oci
else
	RUNTIME=$(readlink -f "$(command -v "$RUNTIME")") || { echo "Bail out! no runtime $1"; exit 1; }
	# A copy the rootless user can run (a build tree may sit under a 0700 home). corral is an OCI
	# runtime under the name corral-oci.
	name=$(basename "$RUNTIME")
	[ "$name" = corral ] && name=corral-oci
	cp "$RUNTIME" "$T/bin/$name"
	REAL=$T/bin/$name
fi
chmod 0755 "$REAL"

# The logging wrapper the engines are given: each call's argv, stderr, exit status and --log file.
CALLS=$T/calls.log
: >"$CALLS"
chmod 0666 "$CALLS"
RT=$T/bin/rt
cat >"$RT" <<EOF
#!/bin/bash
printf '%s uid=%s %s\n' "\$(date +%T.%N | cut -c1-12)" "\$(id -u)" "\$*" >>$CALLS
log=; prev=; for a; do [ "\$prev" = --log ] && log=\$a; prev=\$a; done
$REAL "\$@" 2> >(tee -a $CALLS >&2); rc=\$?
if [ \$rc != 0 ]; then
	echo "  -> exit \$rc" >>$CALLS
	[ -n "\$log" ] && [ -f "\$log" ] && sed 's/^/  --log: /' "\$log" >>$CALLS
fi
exit \$rc
EOF
chmod 0755 "$RT"

cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
	done
	grep -q " $T/" /proc/mounts && awk -v t="$T/" 'index($2, t) == 1 { print $2 }' /proc/mounts |
		sort -r | xargs -r -n1 umount -l 2>/dev/null
	rm -rf "$T"
	echo "1..$N"
	[ "$FAILED" = 0 ] || exit 1
	exit 0
}
trap cleanup EXIT

# mark / report: a failed check prints what the engine said and the runtime calls since mark.
mark() { CALLS_AT=$(wc -l <"$CALLS"); }
report() {
	echo "engine output:" | diag
	printf '%s\n' "$OUT" | tail -n 30 | diag
	echo "runtime calls:" | diag
	tail -n +"$((CALLS_AT + 1))" "$CALLS" | tail -n 40 | diag
}
# check NAME COND: ok if COND (evaluated) holds, else not ok with the report.
check() {
	if eval "$2"; then ok "$1"; else not_ok "$1 (exit $RC)"; report; fi
}
# run CMD...: OUT = its stdout and stderr, RC = its status; at most 120 s.
run() { mark; OUT=$(timeout 120 "$@" 2>&1); RC=$?; }

echo "# runtime: $REAL ($("$REAL" --version 2>&1 | head -n 1))"

# --- podman, as root --------------------------------------------------------------------------
PODMAN=(podman --runtime "$RT")
if ! command -v podman >/dev/null; then
	for c in "run --rm" "run -it" "exec" "stop" "OOM kill" "kill, no OOM"; do skip "podman $c" "podman is not installed"; done
elif ! podman image exists localhost/bb; then
	for c in "run --rm" "run -it" "exec" "stop" "OOM kill" "kill, no OOM"; do skip "podman $c" "no image localhost/bb (run the test bed's setup-podman.sh)"; done
else
	run "${PODMAN[@]}" run --rm localhost/bb echo hi
	check "podman run --rm localhost/bb echo hi, as root" '[ "$RC" = 0 ] && [ "$OUT" = hi ]'

	# -it: conmon hands the runtime a console socket; the container's stdio is that terminal.
	run python3 -c '
import os, sys
pid, fd = os.forkpty()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        b = os.read(fd, 4096)
    except OSError:
        break
    if not b:
        break
    out += b
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(st))' "${PODMAN[@]}" run --rm -it localhost/bb sh -c 'tty; [ -t 0 ] && echo stdin-tty'
	check "podman run -it: the command's stdio is a terminal (the console socket)" \
		'[ "$RC" = 0 ] && grep -q "^/dev/pts/" <<<"$OUT" && grep -q stdin-tty <<<"$OUT"'

	name=oci-engines-$$
	run "${PODMAN[@]}" run -d --name "$name" localhost/bb sleep 600
	if [ "$RC" != 0 ]; then
		not_ok "podman run -d (for exec and stop) (exit $RC)"; report
	else
		run "${PODMAN[@]}" exec "$name" sh -c 'echo hi from exec; cat /proc/1/cmdline | tr "\0" " "'
		check "podman exec: a process in the running container, beside its pid 1" \
			'[ "$RC" = 0 ] && [ "$OUT" = "hi from exec
sleep 600 " ]'
		run "${PODMAN[@]}" stop -t 2 "$name"
		stopped=$RC
		run "${PODMAN[@]}" inspect -f '{{.State.Status}} {{.State.ExitCode}}' "$name"
		RC="stop $stopped, inspect $RC"
		check "podman stop -t 2: the container is stopped (SIGTERM, then SIGKILL to a pid 1 that ignores it)" \
			'[ "$stopped" = 0 ] && [ "${OUT%% *}" = exited ]'
	fi
	"${PODMAN[@]}" rm -f "$name" >/dev/null 2>&1

	# The command holds 200 MB in a shell variable under a 32 MiB limit: the kernel kills it, in
	# the container's memory cgroup, where the runtime must have put it. podman 4.3 reports
	# State.OOMKilled when it finds a file "oom" in the container's bundle (its userdata) as the
	# container ends; conmon 2.1.6 sees the OOM event but writes its "oom" relative to its working
	# directory (podman's own), so with runc and crun State.OOMKilled stays false here. corral's
	# monitor writes the bundle's file itself when the cgroup counted an OOM kill (docs/oci.md):
	# with corral, inspect must say true; with another runtime, conmon's file in the directory
	# podman runs in counts as the OOM seen.
	mkdir -p "$T/oom-cwd"
	run bash -c 'cd "$1" && shift && "$@"' _ "$T/oom-cwd" "${PODMAN[@]}" run --name "$name-oom" \
		--memory 32m localhost/bb sh -c 'x=$(head -c 200000000 /dev/zero | tr "\0" a); echo survived ${#x}'
	oom_rc=$RC
	out1=$OUT
	run "${PODMAN[@]}" inspect -f '{{.State.OOMKilled}} {{.State.ExitCode}}' "$name-oom"
	OUT="run: exit $oom_rc: $out1
inspect: $OUT
conmon's oom file: $([ -e "$T/oom-cwd/oom" ] && echo written || echo none)"
	RC="run $oom_rc"
	if [ "$(basename "$REAL")" = corral-oci ]; then
		check "podman run --memory 32m over its limit: OOM-killed, podman inspect's State.OOMKilled true" \
			'[ "$oom_rc" = 137 ] && grep -q "^inspect: true 137" <<<"$OUT"'
	else
		check "podman run --memory 32m over its limit: OOM-killed, seen by conmon (State.OOMKilled in podman inspect, or conmon's oom file)" \
			'[ "$oom_rc" = 137 ] && { grep -q "^inspect: true 137" <<<"$OUT" || [ -e "$T/oom-cwd/oom" ]; }'
		grep -q "^inspect: true" <<<"$OUT" || [ ! -e "$T/oom-cwd/oom" ] || echo "# podman inspect: State.OOMKilled false (conmon 2.1.6 wrote its oom file in its working directory)"
	fi
	"${PODMAN[@]}" rm -f "$name-oom" >/dev/null 2>&1

	# The negative control: the same limit, exit 137 from a SIGKILL (podman kill), no OOM.
	run "${PODMAN[@]}" run -d --name "$name-kill" --memory 32m localhost/bb sleep 600
	kill_rc=$RC
	[ "$kill_rc" != 0 ] || run "${PODMAN[@]}" kill -s KILL "$name-kill"
	[ "$kill_rc" != 0 ] || run "${PODMAN[@]}" wait "$name-kill"
	run "${PODMAN[@]}" inspect -f '{{.State.OOMKilled}} {{.State.ExitCode}}' "$name-kill"
	RC="run -d $kill_rc, inspect $RC"
	check "podman kill -s KILL of a --memory 32m container: exit 137, State.OOMKilled false" \
		'[ "$kill_rc" = 0 ] && [ "$OUT" = "false 137" ]'
	"${PODMAN[@]}" rm -f "$name-kill" >/dev/null 2>&1
fi

# --- podman, rootless -------------------------------------------------------------------------
RL=(runuser -u "$RU" -- env HOME="$W/rootless/home" XDG_RUNTIME_DIR="$W/rootless/run")
if ! command -v podman >/dev/null; then
	skip "rootless podman run --rm" "podman is not installed"
elif ! id "$RU" >/dev/null 2>&1 || ! grep -q "^$RU:" /etc/subuid; then
	skip "rootless podman run --rm" "no user $RU with /etc/subuid entries (ROOTLESS_USER)"
elif ! (cd / && "${RL[@]}" podman image exists localhost/bb 2>/dev/null); then
	skip "rootless podman run --rm" "no image localhost/bb in $RU's storage under $W/rootless (the test bed's setup-podman.sh with ROOTLESS_USER=$RU)"
else
	# slirp4netns needs /dev/net/tun, which some hosts keep root's (0600): no network then.
	net=()
	runuser -u "$RU" -- test -r /dev/net/tun -a -w /dev/net/tun || net=(--network none)
	[ ${#net[@]} = 0 ] || echo "# rootless: /dev/net/tun is not $RU's to open: --network none"
	run bash -c 'cd / && "$@"' _ "${RL[@]}" podman --runtime "$RT" run --rm "${net[@]}" localhost/bb \
		sh -c 'echo hi; cat /proc/self/uid_map'
	check "rootless podman run --rm localhost/bb echo hi, as $RU (in a user namespace)" \
		'[ "$RC" = 0 ] && [ "$(head -n 1 <<<"$OUT")" = hi ] && [ "$(sed -n "2{s/  */ /g;s/^ //;p}" <<<"$OUT")" = "0 $(id -u "$RU") 1" ]'
	# rootless podman on cgroup v1 drops --memory ("Resource limits are not supported and
	# ignored on cgroups V1 rootless systems"): no limit reaches the runtime, no OOM to report.
	if [ "$(cd / && "${RL[@]}" podman info --format '{{.Host.CgroupsVersion}}' 2>/dev/null)" = v1 ]; then
		skip "rootless podman OOM kill" "rootless podman ignores --memory on cgroup v1"
	fi
fi

# --- containerd: ctr run and a CRI pod, on a containerd of the test's own ---------------------
C=$T/ctrd
if ! command -v containerd >/dev/null || ! command -v ctr >/dev/null; then
	skip "ctr run" "containerd is not installed"
	skip "CRI pod through a runtime handler" "containerd is not installed"
elif [ ! -f "$W/bb-oci.tar" ] || [ ! -f "$W/pause-oci.tar" ]; then
	skip "ctr run" "no $W/bb-oci.tar and pause-oci.tar (the test bed's setup-podman.sh)"
	skip "CRI pod through a runtime handler" "no $W/bb-oci.tar and pause-oci.tar"
else
	mkdir -p "$C"
	containerd config default >"$C/config.toml"
	python3 - "$C" "$RT" <<'EOF'
import re, sys
c, rt = sys.argv[1], sys.argv[2]
p = c + "/config.toml"
s = open(p).read()
s = re.sub(r'(?m)^root = .*', f'root = "{c}/root"', s)
s = re.sub(r'(?m)^state = .*', f'state = "{c}/state"', s)
s = s.replace('[grpc]\n  address = "/run/containerd/containerd.sock"', f'[grpc]\n  address = "{c}/containerd.sock"')
s = s.replace('[ttrpc]\n  address = ""', f'[ttrpc]\n  address = "{c}/containerd.sock.ttrpc"')
s = s.replace('sandbox_image = "registry.k8s.io/pause:3.6"', 'sandbox_image = "localhost/pause:latest"')
s = s.replace('restrict_oom_score_adj = false', 'restrict_oom_score_adj = true')  # no CAP_SYS_RESOURCE
anchor = '        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n'
assert anchor in s
s = s.replace(anchor, f'''        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.candidate]
          runtime_type = "io.containerd.runc.v2"
          pod_annotations = ["io.corral.*"]
          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.candidate.options]
            BinaryName = "{rt}"

''' + anchor, 1)
open(p, "w").write(s)
EOF
	containerd --config "$C/config.toml" >"$C/containerd.log" 2>&1 &
	PIDS+=($!)
	for _ in $(seq 100); do [ -S "$C/containerd.sock" ] && break; sleep 0.1; done
	CTR=(ctr -a "$C/containerd.sock")
	"${CTR[@]}" images import --base-name localhost/bb "$W/bb-oci.tar" >/dev/null 2>&1
	for img in bb pause; do
		"${CTR[@]}" -n k8s.io images import --base-name "localhost/$img" "$W/$img-oci.tar" >/dev/null 2>&1
	done
	run "${CTR[@]}" run --rm --runc-binary "$RT" localhost/bb:latest "oci-engines-$$" echo hi from ctr
	check "ctr run --rm --runc-binary (containerd 1.6's runc shim v2)" '[ "$RC" = 0 ] && [ "$OUT" = "hi from ctr" ]'

	if ! command -v node >/dev/null || [ ! -d "$W/cri/node_modules/@grpc/grpc-js" ] || [ ! -f "$W/cri/api.proto" ] || [ ! -f "$W/cri/cri.js" ]; then
		skip "CRI pod through a runtime handler" "no node, or no CRI client in $W/cri (cri.js, node_modules, api.proto: the test bed's setup-podman.sh with CRI_API_PROTO)"
	else
		cp "$W/cri/api.proto" "$C/api.proto"
		ln -s "$W/cri/node_modules" "$C/node_modules"
		cp "$W/cri/cri.js" "$C/cri.js"
		run node "$C/cri.js" "$C/containerd.sock" candidate localhost/bb:latest echo hi from CRI
		check "CRI: RunPodSandbox, CreateContainer, StartContainer, ExecSync, StopPodSandbox through runtime handler 'candidate' (a RuntimeClass)" \
			'[ "$RC" = 0 ] && grep -q "CONTAINER_EXITED exit=0" <<<"$OUT" && grep -q "stdout F hi from CRI" <<<"$OUT"'
	fi
fi

# --- docker, on a dockerd of the test's own ---------------------------------------------------
D=$T/docker
DOCKER=/usr/bin/docker # Debian's client: a newer one may come first on PATH
if ! command -v dockerd >/dev/null || [ ! -x "$DOCKER" ]; then
	skip "docker run --runtime" "docker.io (dockerd, /usr/bin/docker) is not installed"
elif [ ! -f "$W/busybox-rootfs.tar" ]; then
	skip "docker run --runtime" "no $W/busybox-rootfs.tar (the test bed's setup-podman.sh)"
else
	mkdir -p "$D"
	cat >"$D/daemon.json" <<EOF
{ "runtimes": { "candidate": { "path": "$RT" } },
  "default-ulimits": { "nofile": { "Name": "nofile", "Hard": 1024, "Soft": 1024 } },
  "iptables": false, "bridge": "none" }
EOF
	dockerd --config-file "$D/daemon.json" --data-root "$D/data" --exec-root "$D/exec" \
		--pidfile "$D/dockerd.pid" -H "unix://$D/docker.sock" >"$D/dockerd.log" 2>&1 &
	PIDS=("$!" "${PIDS[@]}")
	for _ in $(seq 150); do [ -S "$D/docker.sock" ] && break; sleep 0.2; done
	DK=("$DOCKER" -H "unix://$D/docker.sock")
	"${DK[@]}" import "$W/busybox-rootfs.tar" localhost/bb >/dev/null 2>&1
	run "${DK[@]}" run --rm --runtime candidate --network none localhost/bb echo hi from docker
	check "docker run --rm --runtime candidate (dockerd 20.10 -> containerd -> runc shim)" \
		'[ "$RC" = 0 ] && [ "$OUT" = "hi from docker" ]'
fi

# --- the probe battery in a container, beside corral run ---------------------------------------
CORRAL_BIN=${OCI_CORRAL:-${CR_LAUNCHER:-}}
if [ -z "$CORRAL_BIN" ]; then
	skip "the probe battery in a container blocks what corral run blocks" "no corral to compare with (OCI_CORRAL)"
else
	run "$(dirname "$0")/escapes.sh" "$REAL" "$CORRAL_BIN"
	if [ "$RC" = 2 ]; then
		skip "the probe battery in a container blocks what corral run blocks" "$OUT"
	else
		check "the probe battery (tests/oci/escapes.sh) in a container blocks what corral run blocks" '[ "$RC" = 0 ]'
	fi
fi

# --- runtime-tools' validation suite ----------------------------------------------------------
R=$W/rt/runtime-tools
if [ "${OCI_VALIDATION:-1}" = 0 ]; then
	skip "runtime-tools validation" "OCI_VALIDATION=0"
elif [ ! -x "$R/runtimetest" ] || ! ls "$R"/validation/*/*.t >/dev/null 2>&1; then
	skip "runtime-tools validation" "runtime-tools is not built in $R (the test bed's setup-podman.sh with RUNTIME_TOOLS_GIT)"
else
	V=$T/validation
	mkdir -p "$V"
	s=$(date +%s)
	for t in "$R"/validation/*/*.t; do
		n=$(basename "$t" .t)
		# the spec as written (corral: no user namespace added for root, docs/oci.md, "Root
		# without a user namespace"), as the other runtimes run it; OCI_VALIDATION_USERNS=auto
		# measures corral's default
		(cd "$R" && CORRAL_OCI_USERNS=${OCI_VALIDATION_USERNS:-spec} RUNTIME=$REAL timeout 60 "$t" \
			>"$V/$n.tap" 2>"$V/$n.err"; echo "rc=$?" >>"$V/$n.err")
	done
	# A program passes when it exits 0 with no not ok and at least one ok that is not a skip
	# (the test bed's summarize.sh counts the same way).
	pass=0 total=0 failed=()
	for f in "$V"/*.tap; do
		n=$(basename "$f" .tap)
		total=$((total + 1))
		if ! grep -q '^not ok' "$f" && grep -qx 'rc=0' "$V/$n.err" &&
			[ "$(grep -c '^ok' "$f")" -gt "$(grep -ciE '^ok.*# *skip' "$f")" ]; then
			pass=$((pass + 1))
		else
			failed+=("$n($(grep -c '^not ok' "$f") not ok, $(grep -o 'rc=[0-9]*' "$V/$n.err" | tail -n 1))")
		fi
	done
	echo "# runtime-tools validation: $pass of $total programs passed in $(($(date +%s) - s)) s"
	if [ "$pass" -ge "$MIN" ]; then
		ok "runtime-tools validation: $pass of $total programs pass (at least $MIN)"
	else
		not_ok "runtime-tools validation: $pass of $total programs pass (at least $MIN)"
	fi
	printf '%s\n' "failed: ${failed[*]}" | fold -s -w 100 | diag
fi
