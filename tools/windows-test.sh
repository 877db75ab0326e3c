#!/usr/bin/env bash
# Cross-build the windows driver (windows/) with mingw-w64 and run its tests under Wine, on
# Debian 12, as root or as a user with sudo:
#   tools/windows-test.sh          install what is missing, build into build-win/, run the tests
# Exits 0 when every test passes. Wine runs the job plumbing but enforces neither job limits nor
# integrity levels: those asserts are skipped there, each with a "# skipped on Wine" line, and
# windows/README.md says how to run the same tests on Windows.
set -euo pipefail

cd "$(dirname "$0")/.."
top=$PWD
build=$top/build-win
t0=$(date +%s)

sudo=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "windows-test: not root and no sudo: install sudo or run as root" >&2; exit 1; }
	sudo=sudo
fi

# The cross compiler, Wine (64-bit only: no i386 multiarch needed), meson, xz for cmocka's tarball.
packages=(gcc-mingw-w64-x86-64 wine64 meson ninja-build xz-utils)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "windows-test: installing ${missing[*]}"
	$sudo apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
wine=/usr/lib/wine/wine64
wineserver=/usr/lib/wine/wineserver

# cmocka has no mingw package: compile cmocka.c from Debian's source package (apt checks it
# against the signed Sources index). A private sources list and state directory under build-win,
# so the system's apt configuration is left as it is.
cmocka=$(ls -d "$build"/cmocka/cmocka-1.1.*/ 2>/dev/null | head -n 1 || true)
cmocka=${cmocka%/}
if [ -z "$cmocka" ] || [ ! -f "$cmocka/src/cmocka.c" ]; then
	apt=$build/cmocka/apt
	mkdir -p "$apt/lists/partial"
	echo "deb-src http://deb.debian.org/debian bookworm main" >"$apt/sources.list"
	opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
		-o "Dir::State::Lists=$apt/lists" -o "APT::Sandbox::User=root")
	echo "windows-test: fetching cmocka's source (Debian source package)"
	apt-get "${opts[@]}" update -qq
	(cd "$build/cmocka" && apt-get "${opts[@]}" source --download-only -qq cmocka >/dev/null)
	tar -C "$build/cmocka" -xf "$(ls "$build"/cmocka/cmocka_1.1.*.orig.tar.xz | head -n 1)"
	cmocka=$(ls -d "$build"/cmocka/cmocka-1.1.*/ | head -n 1)
	cmocka=${cmocka%/}
fi

if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" windows --cross-file windows/cross-mingw64.ini -Dcmocka_src="$cmocka" >/dev/null
fi
ninja -C "$build" >/dev/null

# A Wine prefix of our own, made once; no display needed for console programs. mscoree and
# mshtml are disabled so wineboot does not try to install Mono and Gecko.
export WINEPREFIX=$build/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=d"
if [ ! -f "$WINEPREFIX/system.reg" ]; then
	echo "windows-test: creating the Wine prefix $WINEPREFIX"
	"$wine" wineboot -i >/dev/null 2>&1
	"$wineserver" -w
fi

t1=$(date +%s)
set +e
"$wine" "$build/test-windows.exe" 2>&1 | tee "$build/test-windows.log"
rc=${PIPESTATUS[0]}
set -e
"$wineserver" -k 2>/dev/null || true # this prefix's server only

passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$build/test-windows.log")
failed=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$build/test-windows.log")
skips=$(grep -c '^# skipped on Wine' "$build/test-windows.log" || true)
echo
echo "windows (wine): ${passed:-0} passed, ${failed:-0} failed; $skips enforcement asserts skipped on Wine (windows/README.md); tests $(($(date +%s) - t1))s, total $(($(date +%s) - t0))s"
[ "$rc" -eq 0 ] && [ -n "$passed" ] && [ "${failed:-0}" -eq 0 ]
