#!/bin/bash
# ptrace: --ptrace=sandbox and the ci profile, which has it. Under --profile ci an ASan binary's
# LeakSanitizer report runs at exit (exit 23, "detected memory leaks"), gdb -batch prints the
# backtrace of a crashing program, strace -f follows a shell, and a process traces, seizes and
# reads the memory of a child of its own. In the same sandboxes, as an attacker: ptrace
# (PTRACE_ATTACH, PTRACE_SEIZE), process_vm_readv and /proc/PID/mem of the sandbox's pid 1, of the
# proxy forwarder (--allow-host), of pid 1 with --map-root and of a served command's worker
# (corral serve) all fail. The default profile still refuses ptrace with EPERM next to a positive
# control, and asking for --ptrace=sandbox beyond a profile is denied unless granted. In degraded
# mode (no pid namespace) a process of the host with the sandbox's uid, and corral itself, stay out
# of reach (Landlock's ptrace rule) next to the same positive control. The JSON
# status reports enforced.seccomp.ptrace. As a user whose memory limit can only be RLIMIT_AS,
# corral says that it breaks AddressSanitizer, and --memory max lifts it.
# shellcheck disable=SC2016 # the sh -c scripts are single-quoted on purpose
# shellcheck source=SCRIPTDIR/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

EPERM=1 EACCES=13

# The tools under test; tools/setup.sh installs them. Missing is a failure, not a skip.
for t in gcc gdb strace python3; do
	OUT="found=$(command -v "$t" >/dev/null && echo 1)" RC=0
	res "$t is installed (tools/setup.sh installs it)" found=1
done

cp "$CR_PTRACER" "$BIN/ptracer"
printf '%s\n' '#include <stdlib.h>' 'void *keep;' \
	'int main(void) { keep = malloc(64); keep = 0; return 0; }' >"$CR_TMP/leak.c"
printf '%s\n' 'static void boom(volatile int *p) { *p = 42; }' \
	'int main(void) { boom(0); return 0; }' >"$CR_TMP/crash.c"
gcc -fsanitize=address -g -O0 -o "$BIN/leak" "$CR_TMP/leak.c"
gcc -g -O0 -o "$BIN/crash" "$CR_TMP/crash.c"
chmod -R a+rX "$BIN"

# json FILE EXPR: a Python expression on the JSON status in FILE (as j).
json() {
	python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1
}

HOST_PIDS=()
pt_cleanup() {
	local p
	for p in "${HOST_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
}
CR_CLEANUP_HOOK="${CR_CLEANUP_HOOK:+$CR_CLEANUP_HOOK; }pt_cleanup"

# The forwarder's pid, as the command finds it: the process named corral-proxy. The forwarder
# names itself after pid 1 forked it, while pid 1 goes on to start the command: the command looks
# until the name is there (up to 10 s), not once.
FWD='i=0 f=
	while [ -z "$f" ] && [ $i -lt 200 ]; do
		f=$(grep -l "^corral-proxy$" /proc/[0-9]*/comm | cut -d/ -f3)
		[ -n "$f" ] || sleep 0.05
		i=$((i + 1))
	done'

for mode in $MODES; do
	ws=$(mkws "$mode")
	st=$ws/status.json

	# --- the ci profile: debuggers, strace, LeakSanitizer ------------------------------------
	sb "$mode" "$ws" --profile ci --json-status "$st" -- true
	memory_mode=$(json "$st" 'j["enforced"]["limits"]["memory"]["mode"]')
	OUT="ptrace=$(json "$st" 'j["enforced"]["seccomp"]["ptrace"]')"
	res "$mode: --profile ci: enforced.seccomp.ptrace is sandbox" ptrace=sandbox RC=0

	# Where memory is RLIMIT_AS (a user without a delegated cgroup), ASan cannot start under it:
	# corral must say so, and --memory max (beyond the profile: granted) lifts it.
	lift=()
	if [ "$memory_mode" = rlimit ]; then
		sb "$mode" "$ws" --profile ci -- true
		OUT="warned=$(grep -c 'RLIMIT_AS.*AddressSanitizer' <<<"$ERR")"
		res "$mode: --profile ci, memory as RLIMIT_AS: a warning says that AddressSanitizer cannot run under it" \
			warned=1 RC=0
		lift=(--memory max)
	fi
	sb "$mode" "$ws" --profile ci "${lift[@]}" --setenv LSAN_OPTIONS=exitcode=23 -- "$BIN/leak"
	OUT="report=$(grep -c 'ERROR: LeakSanitizer: detected memory leaks' <<<"$ERR")
under_ptrace=$(grep -c 'does not work under ptrace' <<<"$ERR")"
	res "$mode: --profile ci${lift[*]:+ ${lift[*]}}: an ASan binary's LeakSanitizer check runs at exit and reports the leak (exit 23)" \
		report=1 under_ptrace=0 RC=23

	sb "$mode" "$ws" --profile ci -- gdb -q -batch -ex run -ex bt "$BIN/crash"
	OUT="sigsegv=$(grep -c 'SIGSEGV' <<<"$OUT")
frame0=$(grep -c '^#0 .* boom (p=0x0) at .*crash.c:1' <<<"$OUT")
frame1=$(grep -c '^#1 .* main () at .*crash.c:2' <<<"$OUT")"
	res "$mode: --profile ci: gdb -batch -ex run -ex bt prints the crashing program's backtrace" \
		sigsegv=1 frame0=1 frame1=1 RC=0

	sb "$mode" "$ws" --profile ci -- sh -c 'strace -f -o strace.out sh -c "/bin/true; exit 3"; echo rc=$?
		echo execves=$(grep -c "execve(" strace.out)'
	res "$mode: --profile ci: strace -f follows a shell and its child (two execve calls)" \
		rc=3 execves=2 RC=0

	# --- attackers in the same sandboxes ------------------------------------------------------
	sb "$mode" "$ws" --profile ci --allow-host example.com -- sh -c "$FWD"'
		echo "control: $("$0" control)"
		echo "pid1: $("$0" 1)"
		echo "forwarder($f): $("$0" "$f")"' "$BIN/ptracer"
	OUT=$(sed -e 's/^control: /control=/' -e 's/^pid1: /pid1=/' -e 's/^forwarder([0-9][0-9]*): /forwarder=/' <<<"$OUT")
	res "$mode: --profile ci --allow-host: a process attaches to, seizes and reads the memory of its own child (positive control)" \
		"control=attach=0 seize=0 vmread=0 mem=0 read=secret" RC=0
	res "$mode: --profile ci --allow-host: PTRACE_ATTACH, PTRACE_SEIZE, process_vm_readv and /proc/1/mem of pid 1 fail" \
		"pid1=attach=$EPERM seize=$EPERM vmread=$EPERM mem=$EACCES" RC=0
	res "$mode: --profile ci --allow-host: the same against the proxy forwarder fail" \
		"forwarder=attach=$EPERM seize=$EPERM vmread=$EPERM mem=$EACCES" RC=0

	sb "$mode" "$ws" --profile ci --map-root -- sh -c '
		echo "control=$("$0" control)"; echo "pid1=$("$0" 1)"; echo uid=$(id -u)' "$BIN/ptracer"
	res "$mode: --profile ci --map-root: uid 0 inside still cannot trace or read pid 1, next to its own child" \
		uid=0 "control=attach=0 seize=0 vmread=0 mem=0 read=secret" \
		"pid1=attach=$EPERM seize=$EPERM vmread=$EPERM mem=$EACCES" RC=0

	# --- the default profile keeps refusing it -------------------------------------------------
	sb "$mode" "$ws" --json-status "$st" -- sh -c '
		echo "control=$("$0" control)"; "$1" write ok; echo write=$?; "$1" syscall 39; echo getpid=$?' \
		"$BIN/ptracer" "$PROBE"
	OUT+=$'\n'"ptrace=$(json "$st" 'j["enforced"]["seccomp"]["ptrace"]')"
	res "$mode: default profile: ptrace and process_vm_readv of the command's own child fail with EPERM, while getpid and a workspace write work; enforced.seccomp.ptrace is refused" \
		"control=attach=$EPERM seize=$EPERM vmread=$EPERM mem=0 read=nothing" write=0 getpid=0 \
		ptrace=refused RC=0

	OUT=$(cd "$ws" && as "$mode" "$CORRAL" run --workspace "$ws" --ptrace=sandbox -- true \
		2>"$CR_TMP/stderr")
	RC=$? ERR=$(<"$CR_TMP/stderr")
	OUT+=$'\n'"denied=$(grep -c '^{"denied":"capability","needs":{"unconfined":\["ptrace"\]}' <<<"$ERR")"
	res "$mode: --ptrace=sandbox beyond the default profile is denied without a grant (needs unconfined ptrace)" \
		denied=1 RC='!0'
	sb "$mode" "$ws" --ptrace=sandbox -- sh -c 'echo "control=$("$0" control)"; echo "pid1=$("$0" 1)"' \
		"$BIN/ptracer"
	res "$mode: --ptrace=sandbox --grant once: the own child can be traced, pid 1 cannot" \
		"control=attach=0 seize=0 vmread=0 mem=0 read=secret" \
		"pid1=attach=$EPERM seize=$EPERM vmread=$EPERM mem=$EACCES" RC=0

	# --- degraded mode: no pid namespace, Landlock's ptrace rule -------------------------------
	as_bg "$mode" sleep 60
	victim=${HOST_PIDS[-1]}
	OUT=$(cd "$ws" && as "$mode" timeout -k 5 30 "$PEER" deny-userns -- "$CORRAL" run --grant once \
		--allow-degraded --ptrace=sandbox --workspace "$ws" --ro "$BIN" -- sh -c '
		echo "control=$("$0" control)"; echo "host=$("$0" "$1")"; echo "corral=$("$0" "$PPID")"' \
		"$BIN/ptracer" "$victim" 2>"$CR_TMP/stderr")
	RC=$? ERR=$(<"$CR_TMP/stderr")
	if [ "$RC" = 38 ] || grep -q "needs Landlock" <<<"$ERR"; then
		skip "$mode: degraded mode with --ptrace=sandbox" "no degraded mode here (peer deny-userns or Landlock missing)"
	else
		res "$mode: degraded mode, --ptrace=sandbox: the command traces its own child, but not a host process of its uid nor corral" \
			"control=attach=0 seize=0 vmread=0 mem=0 read=secret" \
			"host=attach=$EPERM seize=$EPERM vmread=$EPERM mem=$EACCES" \
			"corral=attach=$EPERM seize=$EPERM vmread=$EPERM mem=$EACCES" RC=0
	fi
	kill "$victim" 2>/dev/null

	# --- corral serve: a served command's pid 1 is its worker ----------------------------------
	prof=$CR_TMP/ptrace-$mode.ini
	printf '%s\n' '[profile]' 'description = ptrace suite' '[filesystem]' "read = $BIN" \
		'[security]' 'ptrace = sandbox' >"$prof"
	chmod 0644 "$prof"
	OUT=$(cd "$CR_TMP" && as "$mode" python3 -c '
import json, subprocess, sys
corral, prof, ptracer = sys.argv[1:]
p = subprocess.Popen([corral, "serve", "--stdio", "--no-audit"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE)
def call(m):
    p.stdin.write((json.dumps(m) + "\n").encode())
    p.stdin.flush()
    while True:
        o = json.loads(p.stdout.readline())
        if o.get("id") == m["id"]:
            return o
r = call(dict(type="open_session", id=1, session="pt", profile=prof))
print("ptrace=%s" % r.get("enforced", {}).get("seccomp", {}).get("ptrace"))
r = call(dict(type="exec", id=2, session="pt",
              shell="echo control=$(%s control); echo pid1=$(%s 1)" % (ptracer, ptracer)))
print(r.get("stdout", ""))
print("sandbox=%s" % r.get("sandbox"))
p.stdin.close()
p.wait(30)' "$CORRAL" "$prof" "$BIN/ptracer" 2>"$CR_TMP/stderr")
	RC=$? ERR=$(<"$CR_TMP/stderr")
	res "$mode: corral serve, a profile with ptrace = sandbox: a warm command traces its own child, not its worker (pid 1)" \
		ptrace=sandbox sandbox=warm "control=attach=0 seize=0 vmread=0 mem=0 read=secret" \
		"pid1=attach=$EPERM seize=$EPERM vmread=$EPERM mem=$EACCES" RC=0
done
