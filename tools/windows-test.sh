#!/usr/bin/env bash
# Cross-build the windows driver (windows/) and corral.exe with mingw-w64 and run their tests
# under Wine, on Debian 12, as root or as a user with sudo:
#   tools/windows-test.sh          install what is missing, build into build-win/, run the tests
# Two test programs: test-windows.exe (the driver) and test-corral.exe (corral.exe end to end,
# the wsl backend against windows/tests/fake-wsl.c).
# Exits 0 when every test passes. Wine runs the job plumbing but enforces neither job limits nor
# integrity levels: those asserts are skipped there, each with a "# skipped on Wine" line, and
# windows/README.md says how to run the same tests on Windows.
set -euo pipefail

cd "$(dirname "$0")/.."
top=$PWD
build=$top/build-win
t0=$(date +%s)

# The cross compiler, Wine (64-bit only: no i386 multiarch needed), meson, xz for cmocka's
# tarball, cmake for json-c.
packages=(gcc-mingw-w64-x86-64 wine64 meson ninja-build xz-utils cmake)
. tools/apt-install.sh
install_missing windows-test "${packages[@]}"
wine=/usr/lib/wine/wine64
wineserver=/usr/lib/wine/wineserver

# cmocka and json-c have no mingw package: build them from Debian's source packages (apt checks
# them against the signed Sources index). A private sources list and state directory under
# build-win, so the system's apt configuration is left as it is.
apt=$build/apt
apt_opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
	-o "Dir::State::Lists=$apt/lists" -o "APT::Sandbox::User=root")
apt_updated=
fetch_source() { # PACKAGE DIR
	if [ -z "$apt_updated" ]; then
		mkdir -p "$apt/lists/partial"
		echo "deb-src http://deb.debian.org/debian bookworm main" >"$apt/sources.list"
		apt-get "${apt_opts[@]}" update -qq
		apt_updated=1
	fi
	echo "windows-test: fetching $1's source (Debian source package)"
	mkdir -p "$2"
	(cd "$2" && apt-get "${apt_opts[@]}" source --download-only -qq "$1" >/dev/null)
}

cmocka=$(ls -d "$build"/cmocka/cmocka-1.1.*/ 2>/dev/null | head -n 1 || true)
cmocka=${cmocka%/}
if [ -z "$cmocka" ] || [ ! -f "$cmocka/src/cmocka.c" ]; then
	fetch_source cmocka "$build/cmocka"
	tar -C "$build/cmocka" -xf "$(ls "$build"/cmocka/cmocka_1.1.*.orig.tar.xz | head -n 1)"
	cmocka=$(ls -d "$build"/cmocka/cmocka-1.1.*/ | head -n 1)
	cmocka=${cmocka%/}
fi

# json-c 0.16 (bookworm's) as a static library, for corral.exe's JSON status (written, and the
# inner one read back): its own CMake build with the mingw cross compiler, about 15 s.
jsonc=$build/jsonc/install
if [ ! -f "$jsonc/lib/libjson-c.a" ]; then
	fetch_source json-c "$build/jsonc"
	tar -C "$build/jsonc" -xzf "$(ls "$build"/jsonc/json-c_0.16*.orig.tar.gz | head -n 1)"
	src=$(ls -d "$build"/jsonc/json-c-*/ | head -n 1)
	printf '%s\n' 'set(CMAKE_SYSTEM_NAME Windows)' \
		'set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)' \
		'set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)' \
		'set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)' >"$build/jsonc/mingw.cmake"
	echo "windows-test: building json-c for mingw"
	cmake -S "$src" -B "$build/jsonc/build" -DCMAKE_TOOLCHAIN_FILE="$build/jsonc/mingw.cmake" \
		-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DBUILD_STATIC_LIBS=ON \
		-DBUILD_TESTING=OFF -DBUILD_APPS=OFF -DDISABLE_THREAD_LOCAL_STORAGE=ON \
		-DCMAKE_INSTALL_PREFIX="$jsonc" >"$build/jsonc/cmake.log" 2>&1
	cmake --build "$build/jsonc/build" -j "$(nproc)" >"$build/jsonc/build.log" 2>&1
	cmake --install "$build/jsonc/build" >/dev/null
fi

if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" windows --cross-file windows/cross-mingw64.ini -Dcmocka_src="$cmocka" \
		-Djsonc_dir="$jsonc" >/dev/null
else
	meson configure "$build" -Dcmocka_src="$cmocka" -Djsonc_dir="$jsonc" >/dev/null
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
rc=0
total_passed=0
total_failed=0
for t in test-windows test-corral; do
	set +e
	"$wine" "$build/$t.exe" 2>&1 | tee "$build/$t.log"
	trc=${PIPESTATUS[0]}
	set -e
	passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$build/$t.log")
	failed=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$build/$t.log")
	echo "windows (wine): $t: ${passed:-0} passed, ${failed:-0} failed"
	if [ "$trc" -ne 0 ] || [ -z "$passed" ] || [ "${failed:-0}" -ne 0 ]; then
		rc=1
	fi
	total_passed=$((total_passed + ${passed:-0}))
	total_failed=$((total_failed + ${failed:-0}))
done
"$wineserver" -k 2>/dev/null || true # this prefix's server only

skips=$(grep -c '^# skipped on Wine' "$build/test-windows.log" || true)
echo
echo "windows (wine): $total_passed passed, $total_failed failed; $skips enforcement asserts skipped on Wine (windows/README.md); tests $(($(date +%s) - t1))s, total $(($(date +%s) - t0))s"
[ "$rc" -eq 0 ]
