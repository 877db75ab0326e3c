#!/bin/bash
# seccomp: the syscall filter. Under the default profile a shell, python3, gcc, make, git and a
# threaded program work; every denied class of syscalls fails with EPERM from inside corral run,
# next to a control that succeeds in the same sandbox, while the same calls under --seccomp=off
# fail otherwise (or succeed): the filter refused them, not the kernel. An i386 syscall (int
# $0x80) and an x32 one are refused. --seccomp=strict, --spawn=no and --seccomp-profile (with
# its errors, line numbers and cache) do what corral(1) says, and the JSON status reports them.
# shellcheck disable=SC2016 # the sh -c scripts are single-quoted on purpose
# shellcheck source=SCRIPTDIR/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

EPERM=1 ENOSYS=38 EROFS=30 EACCES=13

# The positive controls need these; tools/setup.sh installs them. Missing is a failure, not a
# skip.
for t in sh gcc make git python3; do
	OUT="found=$(command -v "$t" >/dev/null && echo 1)" RC=0
	res "$t is installed (tools/setup.sh installs it; the positive controls need it)" found=1
done

# nr NAME: the syscall's number on this host, from the C library's headers; empty if none.
nr() {
	local n
	n=$(printf '#include <sys/syscall.h>\nSYS_%s\n' "$1" | gcc -E -P - 2>/dev/null | tail -n 1)
	[[ $n =~ ^[0-9]+$ ]] && echo "$n"
}

arch=$(uname -m)

# The denied classes: "GROUP LABEL SYSCALL ARGS...", with harmless arguments (bad pointers,
# descriptors and flags). A + before the label marks a call that unfiltered fails otherwise than
# with EPERM on every kernel corral supports: there the unfiltered run must not say EPERM.
DENIED=(
	"@debug +ptrace ptrace -1"
	"@debug +process_vm_readv process_vm_readv 0 0 0 0 0 1"
	"@debug +process_vm_writev process_vm_writev 0 0 0 0 0 1"
	"@debug +pidfd_getfd pidfd_getfd -1 0 0"
	"@debug +perf_event_open perf_event_open 1 0 -1 -1 0"
	"@mount +mount mount 1 1 1 0 0"
	"@mount +umount2 umount2 1 0xffffffff"
	"@mount pivot_root pivot_root 1 1"
	"@mount move_mount move_mount -1 1 -1 1 0xffffffff"
	"@mount +open_tree open_tree -1 1 0xffffffff"
	"@mount fsopen fsopen 1 0xffffffff"
	"@mount +fsconfig fsconfig -1 0xffffffff 0 0 0"
	"@mount fsmount fsmount -1 0xffffffff 0"
	"@mount fspick fspick -1 1 0xffffffff"
	"@mount +mount_setattr mount_setattr -1 1 0xffffffff 0 0"
	"@namespace +unshare_newuser unshare 0x10000001"
	"@namespace +clone_newuser clone 0x10010000"
	"@namespace +setns setns -1 0"
	"@keyring +keyctl keyctl -1"
	"@keyring +add_key add_key 1 1 0 0 0"
	"@keyring +request_key request_key 1 1 1 0"
	"@bpf bpf bpf -1 0 0"
	"@io-uring io_uring_setup io_uring_setup 0 1"
	"@io-uring +io_uring_enter io_uring_enter -1 0 0 0 0 0"
	"@io-uring +io_uring_register io_uring_register -1 0 0 0"
	"@userfaultfd +userfaultfd userfaultfd 5"
	"@file-handle open_by_handle_at open_by_handle_at -1 1 0"
	"@file-handle +name_to_handle_at name_to_handle_at -1 1 0 0 0xffffffff"
	"@reboot kexec_load kexec_load 0 0 0 0xdeadbeef"
	"@reboot kexec_file_load kexec_file_load -1 -1 0 0 0xffffffff"
	"@reboot reboot reboot 0 0 0 0"
	"@module init_module init_module 0 0 1"
	"@module finit_module finit_module -1 1 0xffffffff"
	"@module delete_module delete_module 1 0"
	"@raw-io +iopl iopl 4"
	"@raw-io +ioperm ioperm 0x10000 1 1"
	"@swap swapon swapon 1 0"
	"@swap swapoff swapoff 1"
	"@clock +settimeofday settimeofday 1 0"
	"@clock +clock_settime clock_settime 0 1"
	"@clock +clock_adjtime clock_adjtime 0 1"
	"@clock +adjtimex adjtimex 1"
	"@admin acct acct 1"
	"@admin +quotactl quotactl 0xffffffff 1 0 0"
	"@admin +quotactl_fd quotactl_fd -1 0 0 0"
	"@admin syslog syslog -1 0 0"
	"@admin vhangup vhangup"
	"@legacy +uselib uselib 1"
	"@personality +personality_addr_no_randomize personality 0x0040000"
	"@personality +personality_linux32 personality 8"
	"@tty +ioctl_tiocsti ioctl -1 0x5412 0"
	"@tty +ioctl_tioclinux ioctl -1 0x541c 0"
	"@tty +ioctl_tiocsti_high_bits ioctl -1 0x100005412 0"
)
# Allowed next to them, in the same sandbox: the kernel answers (memfd_create: EFAULT for the bad
# name pointer), not the filter.
ALLOWED=(
	"getpid getpid"
	"ioctl_tcgets ioctl -1 0x5401 0"
	"personality_query personality 0xffffffff"
	"unshare_files unshare 0x400"
	"memfd_create memfd_create 1 0"
)

# The sh -c script that runs "$0 syscall NR ARGS" for each entry and prints LABEL=status.
calls_script() {
	local e label name n s=
	for e in "$@"; do
		read -r -a f <<<"$e"
		[ "${f[0]:0:1}" = @ ] && f=("${f[@]:1}")
		label=${f[0]#+} name=${f[1]}
		n=$(nr "$name") || continue
		s+="\"\$0\" syscall $n ${f[*]:2} >/dev/null 2>&1; echo $label=\$?; "
	done
	echo "$s"
}

DENIED_SH=$(calls_script "${DENIED[@]}")
ALLOWED_SH=$(calls_script "${ALLOWED[@]}")
CLONE3=$(nr clone3)

# The workloads of an agent's commands, each printing NAME=status.
WORKLOADS='
	cd "$1"
	echo seccomp=$(sed -n "s/^Seccomp:[[:space:]]*//p" /proc/self/status)
	echo sh=$(sh -c "echo \$((6 * 7))")
	echo python=$(python3 -c "import os, json; print(json.dumps({\"pid\": os.getpid() > 0}))")
	printf "#include <stdio.h>\nint main(void) { printf(\"hello\\\\n\"); return 0; }\n" >hello.c
	gcc -O2 -o hello hello.c; echo gcc=$?
	echo hello=$(./hello)
	printf "all: hello2\nhello2: hello.c\n\t\$(CC) -o \$@ hello.c\n" >Makefile
	make -s CC=gcc >/dev/null; echo make=$?
	echo hello2=$(./hello2)
	rm -rf repo && git init -q repo && cd repo && echo x >f && git add f &&
		git -c user.name=corral -c user.email=corral@example.com commit -qm first; echo git=$?
	echo commits=$(git log --oneline | wc -l)
	cd ..
	printf "%s\n" "#include <pthread.h>" "#include <stdio.h>" \
		"static void *run(void *a) { return (char *)a + 1; }" \
		"int main(void) { pthread_t t[8]; long n = 0; void *r;" \
		"  for (int i = 0; i < 8; i++) if (pthread_create(&t[i], 0, run, (void *)0)) return 1;" \
		"  for (int i = 0; i < 8; i++) { pthread_join(t[i], &r); n += (long)r; }" \
		"  printf(\"%ld\\n\", n); return 0; }" >threads.c
	gcc -pthread -o threads threads.c && echo threads=$(./threads)
	echo pythreads=$(python3 -c "
import threading
out = []
ts = [threading.Thread(target=out.append, args=(i,)) for i in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
print(len(out))")
	echo subprocess=$(python3 -c "import subprocess; print(subprocess.run([\"true\"]).returncode)")
	echo memfd=$(python3 -c "import os; os.memfd_create(\"gpu\"); print(0)")
	"$0" write "$1/ok"; echo ctl=$?'

# json FILE EXPR: evaluate a Python expression on the JSON status in FILE (as j).
json() {
	python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1
}

# res_denied NAME GROUP: each call of GROUP printed EPERM in $OUT.
res_group() {
	local mode=$1 group=$2 e want=() names=()
	for e in "${DENIED[@]}"; do
		read -r -a f <<<"$e"
		[ "${f[0]}" = "$group" ] || continue
		nr "${f[2]}" >/dev/null || continue
		want+=("${f[1]#+}=$EPERM")
		names+=("${f[2]}")
	done
	if [ ${#want[@]} -eq 0 ]; then
		skip "$mode: $group is refused" "no syscall of $group exists on $arch"
		return
	fi
	res "$mode: $group: $(printf '%s\n' "${names[@]}" | sort -u | paste -sd' ') fail with EPERM, while getpid, ioctl TCGETS (EBADF), the personality query, unshare(CLONE_FILES), memfd_create (EFAULT) and a workspace write reach the kernel" \
		"${want[@]}" getpid=0 ioctl_tcgets=9 personality_query=0 unshare_files=0 \
		memfd_create=14 ctl=0 RC=0
}

for mode in $MODES; do
	ws=$(mkws "$mode")
	luid=$(as "$mode" id -u) # corral's own uid, which owns the cache

	# --- the default profile lets ordinary work through -------------------------------------
	for opt in "" --seccomp=strict; do
		sb "$mode" "$ws" $opt -- sh -c "$WORKLOADS" "$PROBE" "$ws"
		res "$mode${opt:+ $opt}: sh, python3, gcc, make, git init+commit, 8 pthreads, python threads, a subprocess and memfd_create all work under the filter" \
			seccomp=2 sh=42 'python={"pid": true}' gcc=0 hello=hello make=0 hello2=hello git=0 \
			commits=1 threads=8 pythreads=8 subprocess=0 memfd=0 ctl=0 RC=0
	done

	# --- every denied class, with controls, against the same calls unfiltered --------------
	sb "$mode" "$ws" -- sh -c "$DENIED_SH $ALLOWED_SH"'
		"$0" syscall '"$CLONE3"' 0 0 >/dev/null 2>&1; echo clone3=$?
		"$0" write "$1/ok"; echo ctl=$?' "$PROBE" "$ws"
	denied_out=$OUT denied_rc=$RC denied_err=$ERR
	groups=$(printf '%s\n' "${DENIED[@]}" | cut -d' ' -f1 | uniq)
	for g in $groups; do
		OUT=$denied_out RC=$denied_rc ERR=$denied_err
		res_group "$mode" "$g"
	done
	OUT=$denied_out RC=$denied_rc ERR=$denied_err
	res "$mode: @namespace: clone3 fails with ENOSYS (so libc falls back to clone, whose flags the filter sees)" \
		clone3=$ENOSYS ctl=0 RC=0

	sb "$mode" "$ws" --seccomp=off -- sh -c "$DENIED_SH $ALLOWED_SH"'
		"$0" syscall '"$CLONE3"' 0 0 >/dev/null 2>&1; echo clone3=$?
		echo seccomp=$(sed -n "s/^Seccomp:[[:space:]]*//p" /proc/self/status)
		"$0" write "$1/ok"; echo ctl=$?' "$PROBE" "$ws"
	bad=
	for e in "${DENIED[@]}"; do
		read -r -a f <<<"$e"
		[ "${f[1]:0:1}" = + ] || continue
		nr "${f[2]}" >/dev/null || continue
		v=$(sed -n "s/^${f[1]#+}=//p" <<<"$OUT")
		[[ $v =~ ^[0-9]+$ && $v != "$EPERM" ]] || bad+=" ${f[1]#+}=${v:-<unset>}"
	done
	OUT+=$'\n'"unfiltered_not_eperm=${bad:-yes}"
	res "$mode --seccomp=off: no filter (Seccomp 0), and the same calls fail otherwise than with EPERM, or succeed: it was the filter that refused them" \
		seccomp=0 unfiltered_not_eperm=yes clone3='!0' getpid=0 ctl=0 RC=0

	# --- other ABIs: i386 through int $0x80, and x32 numbers --------------------------------
	if [ "$arch" != x86_64 ]; then
		skip "$mode: an i386 syscall through int \$0x80 is refused" "the host is $arch"
		skip "$mode: an x32 syscall is refused" "the host is $arch"
	elif ! "$PROBE" int80 20 >/dev/null 2>&1; then
		skip "$mode: an i386 syscall through int \$0x80 is refused" "this kernel runs no i386 code (ia32_emulation off): $("$PROBE" int80 20 2>&1)"
	else
		for opt in "" --seccomp=strict --seccomp=off; do
			sb "$mode" "$ws" $opt -- sh -c '
				"$0" int80 20 >/dev/null 2>&1; echo i386_getpid=$?
				"$0" int80 21 1 1 1 0 0 >/dev/null 2>&1; echo i386_mount=$?
				"$0" int80 26 0xffffffff 0 0 0 >/dev/null 2>&1; echo i386_ptrace=$?
				"$0" syscall 0x40000027 >/dev/null 2>&1; echo x32_getpid=$?
				"$0" syscall 39 >/dev/null 2>&1; echo getpid=$?
				"$0" write "$1/ok"; echo ctl=$?' "$PROBE" "$ws"
			if [ "$opt" = --seccomp=off ]; then
				# Unfiltered: i386 getpid works, mount gets EFAULT; x32 is ENOSYS or works.
				OUT+=$'\n'"x32_not_eperm=$(test "$(sed -n 's/^x32_getpid=//p' <<<"$OUT")" != $EPERM && echo 1)"
				res "$mode --seccomp=off: the same i386 calls run unfiltered (getpid works, mount gets EFAULT)" \
					i386_getpid=0 i386_mount=14 x32_not_eperm=1 getpid=0 ctl=0 RC=0
			else
				res "$mode${opt:+ $opt}: i386 syscalls through int \$0x80 (getpid, mount, ptrace) and an x32 getpid fail with EPERM while the native getpid works" \
					i386_getpid=$EPERM i386_mount=$EPERM i386_ptrace=$EPERM \
					x32_getpid=$EPERM getpid=0 ctl=0 RC=0
			fi
		done
	fi

	# --- strict: what default allows and strict refuses -------------------------------------
	for opt in "" --seccomp=strict; do
		sb "$mode" "$ws" $opt -- sh -c '
			"$0" syscall '"$(nr kcmp)"' -1 -1 99 0 0 >/dev/null 2>&1; echo kcmp=$?
			"$0" syscall '"$(nr vmsplice)"' -1 0 0 0 >/dev/null 2>&1; echo vmsplice=$?
			"$0" syscall '"$(nr ioctl)"' -1 0x5423 0 >/dev/null 2>&1; echo tiocsetd=$?
			"$0" syscall '"$(nr ptrace)"' -1 >/dev/null 2>&1; echo ptrace=$?
			"$0" write "$1/ok"; echo ctl=$?' "$PROBE" "$ws"
		if [ -z "$opt" ]; then
			res "$mode: the default profile lets kcmp, vmsplice and ioctl TIOCSETD through to the kernel (ESRCH, EBADF, EBADF)" \
				kcmp=3 vmsplice=9 tiocsetd=9 ptrace=$EPERM ctl=0 RC=0
		else
			res "$mode --seccomp=strict: kcmp, vmsplice and ioctl TIOCSETD fail with EPERM, and so does what default refuses" \
				kcmp=$EPERM vmsplice=$EPERM tiocsetd=$EPERM ptrace=$EPERM ctl=0 RC=0
		fi
	done

	# --- --spawn=no: no new process, threads still ------------------------------------------
	sb "$mode" "$ws" --spawn=no -- "$PROBE" fork
	OUT+=$'\n'"probe_fork=$RC"
	res "$mode --spawn=no: fork fails with EPERM" probe_fork=$EPERM
	sb "$mode" "$ws" -- "$PROBE" fork
	res "$mode: fork works without --spawn=no" RC=0
	sb "$mode" "$ws" --spawn=no -- python3 -c '
import errno, os, subprocess, threading
out = []
ts = [threading.Thread(target=out.append, args=(i,)) for i in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
print("threads=%d" % len(out))
for name, f in (("fork", os.fork), ("subprocess", lambda: subprocess.run(["true"]))):
    try:
        f()
        print(name + "=0")
    except OSError as e:
        print("%s=%d" % (name, e.errno))
open(os.getcwd() + "/ok", "w").write("x")
print("ctl=0")'
	res "$mode --spawn=no: python3 starts 4 threads, but os.fork and subprocess fail with EPERM" \
		threads=4 fork=$EPERM subprocess=$EPERM ctl=0 RC=0
	sb "$mode" "$ws" --spawn=no -- sh -c 'echo builtin=ok; exec "$0" syscall '"$(nr getpid)" "$PROBE"
	res "$mode --spawn=no: a shell runs its builtins and exec, but cannot fork" builtin=ok RC=0
	sb "$mode" "$ws" --spawn=no -- sh -c '/bin/true; echo after=$?'
	OUT+=$'\n'"no_fork=$(grep -q -i 'fork' <<<"$ERR" && echo 1)"
	res "$mode --spawn=no: the shell's fork for /bin/true fails" no_fork=1 after= RC='!0'
	sb "$mode" "$ws" --seccomp=off --spawn=no -- sh -c 'exec "$0" fork' "$PROBE"
	OUT+=$'\n'"probe_fork=$RC"
	res "$mode --seccomp=off --spawn=no: still no fork (the spawn filter alone)" probe_fork=$EPERM

	# --- @vsock: no way to a hypervisor or its host (WSL's interop) ----------------------------
	sb "$mode" "$ws" -- python3 -c '
import socket
for name, family in (("vsock", 40), ("unix", socket.AF_UNIX), ("inet", socket.AF_INET)):
    try:
        socket.socket(family, socket.SOCK_STREAM).close()
        print(name + "=0")
    except OSError as e:
        print("%s=%d" % (name, e.errno))'
	res "$mode: socket(AF_VSOCK) fails with EPERM while AF_UNIX and AF_INET sockets open" \
		vsock=$EPERM unix=0 inet=0 RC=0
	sb "$mode" "$ws" --seccomp=off -- python3 -c '
import socket
try:
    socket.socket(40, socket.SOCK_STREAM).close(); print("vsock=0")
except OSError as e:
    print("vsock=%d" % e.errno)'
	OUT+=$'\n'"not_eperm=$([ "$(sed -n 's/^vsock=//p' <<<"$OUT")" != "$EPERM" ] && echo 1)"
	res "$mode --seccomp=off: the kernel answers AF_VSOCK itself (no EPERM): the filter refused it" \
		not_eperm=1 RC=0

	# --- the JSON status --------------------------------------------------------------------
	st=$(mkws "$mode")/status.json # where the mode's user can write it
	declare -A sha=()
	for opt in default strict off; do
		sb "$mode" "$ws" --seccomp=$opt --json-status "$st" -- true
		sha[$opt]=$(json "$st" 'j["enforced"]["seccomp"]["sha256"]')
		OUT=$(json "$st" '"\n".join("%s=%s" % (k, json.dumps(v)) for k, v in j["enforced"]["seccomp"].items())')
		if [ $opt = off ]; then
			res "$mode --seccomp=off: enforced.seccomp says off, with no program" \
				mode='"off"' profile=null sha256=null architectures='[]' spawn=true cache='"none"' RC=0
		else
			res "$mode --seccomp=$opt: enforced.seccomp names the profile, its SHA-256, the architecture, spawn and no cache" \
				mode="\"$opt\"" profile="\"$opt\"" architectures="[\"$arch\"]" spawn=true cache='"none"' RC=0
		fi
	done
	sb "$mode" "$ws" --spawn=no --json-status "$st" -- true
	spawn=$(json "$st" 'j["enforced"]["seccomp"]["spawn"]')
	sha[nospawn]=$(json "$st" 'j["enforced"]["seccomp"]["sha256"]')
	sb "$mode" "$ws" --json-status "$st" -- true
	sha[again]=$(json "$st" 'j["enforced"]["seccomp"]["sha256"]')
	OUT="spawn=$spawn"$'\n'"hex=$(test ${#sha[default]} = 64 && test -z "${sha[default]//[0-9a-f]/}" && echo 1)"
	OUT+=$'\n'"distinct=$(test "${sha[default]}" != "${sha[strict]}" && test "${sha[nospawn]}" != "${sha[default]}" && echo 1)"
	OUT+=$'\n'"stable=$(test "${sha[again]}" = "${sha[default]}" && echo 1)"
	res "$mode: sha256 is 64 hex digits, the same run after run, and differs for strict and with --spawn=no (spawn: false)" \
		spawn=False hex=1 distinct=1 stable=1 RC=0

	# --- --seccomp-profile ------------------------------------------------------------------
	pdir=$(mkws "$mode")
	cache=$pdir/cache
	printf '%s\n' '# a test profile' '[profile]' 'base = default' '[rules]' \
		'mkdir = errno:EROFS' 'mkdirat = errno:EROFS' '@keyring = errno:EACCES' >"$pdir/p.ini"
	give "$mode" "$pdir"
	for want in miss hit; do
		XDG_CACHE_HOME=$cache sb "$mode" "$ws" --seccomp-profile "$pdir/p.ini" \
			--json-status "$st" -- sh -c '
			"$0" mkdir "$1/d"; echo mkdir=$?
			"$0" syscall '"$(nr keyctl)"' -1 >/dev/null 2>&1; echo keyctl=$?
			"$0" syscall '"$(nr ptrace)"' -1 >/dev/null 2>&1; echo ptrace=$?
			"$0" write "$1/ok"; echo ctl=$?' "$PROBE" "$ws"
		OUT+=$'\n'"json=$(json "$st" '"%s %s %s %s" % tuple(j["enforced"]["seccomp"][k] for k in ("mode", "profile", "cache", "spawn"))')"
		res "$mode --seccomp-profile ($want): mkdir gets the profile's EROFS, keyctl EACCES, ptrace the base's EPERM; the cache is a $want" \
			mkdir=$EROFS keyctl=$EACCES ptrace=$EPERM ctl=0 "json=profile $pdir/p.ini $want True" RC=0
	done
	OUT="entries=$(find "$cache/corral/seccomp" -name '*.bpf' -user "$luid" -perm 0600 | wc -l)"
	res "$mode --seccomp-profile: one cache entry, the user's own, mode 0600" entries=1

	# A damaged cache entry is a miss, and the run goes on.
	for f in "$cache"/corral/seccomp/*.bpf; do printf 'garbage' >>"$f"; done
	XDG_CACHE_HOME=$cache sb "$mode" "$ws" --seccomp-profile "$pdir/p.ini" --json-status "$st" \
		-- "$PROBE" mkdir "$ws/d"
	OUT="cache=$(json "$st" 'j["enforced"]["seccomp"]["cache"]')"$'\n'"probe=$RC"
	res "$mode --seccomp-profile: a damaged cache entry is a miss and the profile still applies" \
		cache=miss probe=$EROFS
	# A cache that cannot be written is a miss too.
	XDG_CACHE_HOME=/proc/self/nonexistent sb "$mode" "$ws" --seccomp-profile "$pdir/p.ini" \
		--json-status "$st" -- "$PROBE" mkdir "$ws/d"
	OUT="cache=$(json "$st" 'j["enforced"]["seccomp"]["cache"]')"$'\n'"probe=$RC"
	res "$mode --seccomp-profile: an unwritable cache is a miss, not an error" cache=miss probe=$EROFS

	# A bad profile: exit 125, the file and line named, stage seccomp.
	printf '%s\n' '[rules]' 'ptrace = kill' 'no_such_call = deny' >"$pdir/bad.ini"
	printf '%s\n' '[rules]' '@nosuchgroup = deny' >"$pdir/bad-group.ini"
	printf '%s\n' '[profile]' 'base = default' '' '[rules]' 'ptrace = sometimes' >"$pdir/bad-action.ini"
	give "$mode" "$pdir"
	for b in "bad.ini:3: unknown syscall 'no_such_call'" "bad-group.ini:2: unknown group '@nosuchgroup'" \
		"bad-action.ini:5: unknown action 'sometimes'"; do
		f=${b%%:*}
		sb "$mode" "$ws" --seccomp-profile "$pdir/$f" --json-status "$st" -- "$PROBE" write "$ws/no"
		OUT="named=$(grep -qF "$pdir/$b" <<<"$ERR" && echo 1)"$'\n'"stage=$(json "$st" 'j["error"]["stage"]')"
		OUT+=$'\n'"ran=$(test -e "$ws/no" && echo 1)"
		res "$mode --seccomp-profile $f: refused before anything runs (exit 125), the message names $b" \
			named=1 stage=seccomp ran= RC=125
	done

	# Conflicts are usage errors.
	for opt in --seccomp=off --seccomp=strict; do
		sb "$mode" "$ws" "$opt" --seccomp-profile "$pdir/p.ini" -- true
		OUT="named=$(grep -qF -- "--seccomp-profile cannot be combined with $opt" <<<"$ERR" && echo 1)"
		res "$mode: $opt with --seccomp-profile is a usage error (exit 125)" named=1 RC=125
	done
	sb "$mode" "$ws" --seccomp=lenient -- true
	OUT="named=$(grep -qF -- "--seccomp: unknown mode 'lenient'" <<<"$ERR" && echo 1)"
	res "$mode: --seccomp=lenient is a usage error" named=1 RC=125
	sb "$mode" "$ws" --spawn=maybe -- true
	OUT="named=$(grep -qF -- "--spawn: 'maybe' is not yes or no" <<<"$ERR" && echo 1)"
	res "$mode: --spawn=maybe is a usage error" named=1 RC=125
done

# corral doctor reports the filter it installs.
OUT=$(python3 -c '
import json, sys
c = [c for c in json.load(sys.stdin)["checks"] if c["name"] == "seccomp"][0]
print("state=%s\nvalue=%s\nsays=%d" % (c["state"], c["value"], "syscalls refused" in c["detail"]))' \
	< <("$CORRAL" doctor --json 2>/dev/null) 2>&1)
RC=0
res "corral doctor: the seccomp check is ok and names the default profile it installs" \
	state=ok value=default says=1
