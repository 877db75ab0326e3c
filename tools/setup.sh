#!/usr/bin/env bash
# Set up corral on Debian 12, as root or as a user with sudo: install what is missing, build, and
#   tools/setup.sh demo   run a command in a sandbox and show what it may and may not do
#   tools/setup.sh test   run the whole test suite (unit, integration, soak, fault injection and
#                         valgrind on the plain build; unit, integration and a soak on an ASan/UBSan
#                         build; the libFuzzer harnesses, 20 s each; and corral.exe and the
#                         windows driver cross-built with mingw-w64 and run under Wine)
set -euo pipefail

cd "$(dirname "$0")/.."
mode=${1:-}
case $mode in
demo | test) ;;
*)
	echo "usage: tools/setup.sh demo|test" >&2
	exit 2
	;;
esac

# Build: compiler, meson, the libraries corral links (libmd: SHA-256 for the seccomp cache),
# scdoc for the man page.
# Tests: cmocka, util-linux (setpriv, script, flock), procps (pgrep), python3 and jq (JSON checks),
# iproute2; make and git (with gcc and python3, the seccomp suite's ordinary workloads); the vm
# suite: qemu-system-x86, busybox-static (the guest's userland), cpio; the valgrind suite:
# valgrind; the ptrace suite: gdb and strace (Debian packages of those names), which it runs under
# --profile ci, and gcc's AddressSanitizer (libasan, which gcc already brings); the ci suite: cargo
# (Debian's, which brings rustc: its Rust job builds a crate without dependencies, offline, as
# root and as uid 65534, which cannot see a toolchain in root's HOME); the bwrap suite
# (bubblewrap's own tests against the bwrap personality, ../shared/bwrap-suite): libcap-dev to
# build the reference, python3-seccomp for its seccomp tests, libcap2-bin (capsh, getpcaps).
packages=(gcc meson ninja-build pkg-config libseccomp-dev libinih-dev
	libbsd-dev libmd-dev libjson-c-dev scdoc libcmocka-dev util-linux procps python3 iproute2
	jq make git qemu-system-x86 busybox-static cpio valgrind gdb strace cargo libcap-dev
	python3-seccomp libcap2-bin)
. tools/apt-install.sh
install_missing setup "${packages[@]}"
# The bwrap-clients suite: ripgrep and socat, without which srt refuses to run (node and npm must
# be there already: the suite skips without them); bubblewrap, the reference that the bwrap suites
# and bench/bwrap-personality.sh compare with.
install_missing setup ripgrep socat bubblewrap

[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build

if [ "$mode" = demo ]; then
	# A fresh workspace the sandbox may write. When root starts corral, the sandbox runs as the
	# unprivileged uid 65534, so that is who must own it.
	ws=$(mktemp -d)
	trap 'rm -rf "$ws"' EXIT
	[ "$(id -u)" -ne 0 ] || chown 65534:65534 "$ws"
	cd "$ws"
	echo "+ corral run -- sh -c 'id; ls /; touch /etc/x; touch ./in-workspace'"
	"$OLDPWD/build/corral" run -- sh -c '
		echo "id:        $(id)"
		echo "ls /:      $(ls / | tr "\n" " ")"
		if touch /etc/x 2>/dev/null; then echo "/etc/x:    WRITTEN (unexpected)"; else echo "/etc/x:    refused (read-only system)"; fi
		if touch ./in-workspace; then echo "workspace: written ($PWD)"; fi
		echo "network:   $(sed -n "3,\$p" /proc/net/dev | cut -d: -f1 | tr -d " " | tr "\n" " ")(interfaces)"'
	exit $?
fi

# test: every suite on the normal build, then on an AddressSanitizer + UndefinedBehaviorSanitizer
# build (leak checks on for unit tests; integration runs the launcher in forked children, where
# leak reports would only repeat the parent's).
summary() { # meson's own per-test counts from its log
	python3 - "$1/meson-logs/testlog.json" <<'PY'
import json, sys
p = f = s = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"): p += 1
    elif r == "SKIP": s += 1
    else: f += 1
print(p, f, s)
PY
}

# What failed, kept for the end of the output: meson prints a failing test's log where it fails,
# which scrolls far above the summary when the fuzzers and the Wine tests follow.
failed=$(mktemp)
trap 'rm -f "$failed"' EXIT
failures() { # DIR LABEL: each failed test's "not ok" lines and the end of its log
	python3 - "$1/meson-logs/testlog.json" "$2" >>"$failed" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["result"] in ("OK", "EXPECTEDFAIL", "SKIP"):
        continue
    out = (r.get("stdout") or "").splitlines()
    print(f"--- {sys.argv[2]}: {r['name']}: {r['result']}")
    for l in out:
        if l.startswith("not ok"):
            print("  " + l)
    print("  (the end of its log:)")
    for l in out[-25:]:
        print("  " + l)
PY
}

# The bwrap clients (srt, codex: pinned, from npm, ~420 MB) for the bwrap-clients suite, into a
# cache kept between runs (tests/clients/install.sh); without npm or the registry the suite skips.
tests/clients/install.sh >/dev/null ||
	echo "setup: srt and codex could not be installed from npm: the bwrap-clients suite will skip" >&2

rc=0
# Every suite but oci-engines, which needs the offline test bed of real engines (docs/oci.md) and
# is run by hand: `meson test -C build --suite oci-engines`.
meson test -C build --no-suite oci-engines --print-errorlogs || rc=1
read -r p1 f1 s1 < <(summary build)
failures build build

[ -f build-asan/build.ninja ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
ninja -C build-asan
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
meson test -C build-asan --suite unit --print-errorlogs || rc=1
read -r p2 f2 s2 < <(summary build-asan)
failures build-asan asan-unit
ASAN_OPTIONS=detect_leaks=0 meson test -C build-asan --suite integration --print-errorlogs || rc=1
read -r p3 f3 s3 < <(summary build-asan)
failures build-asan asan-integration
# A smaller soak on the ASan build, leak checks on: memcheck (the valgrind suite) cannot follow
# a run into its sandbox, LeakSanitizer can (tests/soak/README.md).
ASAN_OPTIONS=detect_leaks=1 CR_SOAK_RUNS=400 CR_SOAK_SERVE_EXECS=200 \
	meson test -C build-asan --suite soak --print-errorlogs || rc=1
read -r p4 f4 s4 < <(summary build-asan)
failures build-asan asan-soak

# The parsers' libFuzzer harnesses, 20 s each on their seed corpora (tests/fuzz/README.md).
frc=0
./tools/fuzz.sh 20 || frc=1
[ "$frc" -eq 0 ] || rc=1

# The windows driver, cross-built with mingw-w64 and tested under Wine (windows/README.md).
wrc=0
./tools/windows-test.sh || wrc=1
[ "$wrc" -eq 0 ] || rc=1

# bubblewrap's own tests against the bwrap personality, both modes (tools/bwrap-suite.sh).
brc=0
./tools/bwrap-suite.sh build || brc=1
[ "$brc" -eq 0 ] || rc=1

echo
if [ -s "$failed" ]; then
	echo "What failed (the whole logs are printed above, where each failed):"
	cat "$failed"
	echo
fi
echo "build: $p1 passed, $f1 failed, $s1 skipped"
echo "asan-unit: $p2 passed, $f2 failed, $s2 skipped"
echo "asan-integration: $p3 passed, $f3 failed, $s3 skipped"
echo "asan-soak: $p4 passed, $f4 failed, $s4 skipped"
echo "fuzz: $([ "$frc" -eq 0 ] && echo passed || echo FAILED) (one line per harness above)"
echo "windows (wine): $([ "$wrc" -eq 0 ] && echo passed || echo FAILED) (its own summary is above)"
echo "bwrap-suite: $([ "$brc" -eq 0 ] && echo passed || echo FAILED) (its two lines are above)"
echo "corral: $((p1 + p2 + p3 + p4)) passed, $((f1 + f2 + f3 + f4)) failed, $((s1 + s2 + s3 + s4)) skipped"
exit $rc
