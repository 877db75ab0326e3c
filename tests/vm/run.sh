#!/bin/bash
# vm: corral's smoke tests (tests/vm/smoke.sh) on real Debian kernels, each booted under qemu.
# This machine's kernel is one version with its own configuration; stock Debian kernels differ
# (CONFIG_MAGIC_SYSRQ, pure cgroup v2, Landlock ABI), and a bug seen only there made every
# `corral run` fail. The qemu recipe (-M pc, software emulation, an initramfs made from a
# directory, "GUEST_RC=<n>" on the console) follows the one the project used by hand.
#
# For each kernel: resolve the meta package to the current image package with apt-cache, fetch
# it once with `apt-get download` and unpack it with `dpkg -x` (never installed) into $VM_CACHE
# (default ~/.cache/corral-vm), pack an initramfs (busybox-static as the userland, corral and
# probe with their shared libraries at the same paths, tests/vm/init as /init), boot it with
# software emulation, and re-emit the TAP lines the guest prints ("TAP: ..." on the console),
# numbered across kernels and labelled with the kernel, followed by one test for the guest
# finishing (GUEST_RC=0 and all its tests reported).
#
# Environment: CR_LAUNCHER, CR_PROBE (set by meson); VM_CACHE; CR_VM_KERNELS (space-separated
# meta packages, default Debian 12's 6.1 and 6.12 cloud kernels); CR_VM_ACCEL (tcg; KVM cannot
# run guests on the development machines); CR_VM_BOOT_TIMEOUT (seconds per boot, default 240).
#
# A kernel is skipped (TAP "# SKIP") only when its package cannot be resolved or downloaded and
# none is cached. Without qemu, busybox or cpio the whole suite is skipped with "1..0 # SKIP":
# tools/setup.sh installs them (meson 1.0.1 counts exit 77 from a TAP test as an error).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
launcher=${CR_LAUNCHER:?CR_LAUNCHER: path of the corral binary}
probe=${CR_PROBE:?CR_PROBE: path of the probe helper}
cache=${VM_CACHE:-${HOME:?}/.cache/corral-vm}
kernels=${CR_VM_KERNELS:-linux-image-cloud-amd64 linux-image-6.12-cloud-amd64}
accel=${CR_VM_ACCEL:-tcg}
boot_timeout=${CR_VM_BOOT_TIMEOUT:-240}

for tool in qemu-system-x86_64:qemu-system-x86 busybox:busybox-static cpio:cpio gzip:gzip \
	apt-get:apt dpkg:dpkg; do
	if ! command -v "${tool%%:*}" >/dev/null; then
		echo "1..0 # SKIP ${tool%%:*} not installed (tools/setup.sh installs ${tool#*:})"
		exit 0
	fi
done

N=0
FAILED=0
TMP=$(mktemp -d /tmp/corral-vm.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

ok() {
	N=$((N + 1))
	echo "ok $N - $*"
}

not_ok() {
	N=$((N + 1))
	FAILED=$((FAILED + 1))
	echo "not ok $N - $*"
}

skip() {
	N=$((N + 1))
	echo "ok $N - $1 # SKIP $2"
}

diag() {
	printf '%s\n' "$@" | sed 's/^/# /; s/^# $/#/'
}

now_ms() {
	date +%s%3N
}

# --- the guest's root, shared by every kernel --------------------------------------------------
# A merged-/usr layout like Debian 12's: /bin, /sbin, /lib, /lib64 are symlinks into /usr, so a
# library the host finds at /lib/x86_64-linux-gnu/X lands at /usr/lib/x86_64-linux-gnu/X.
root=$TMP/root
mkdir -p "$root"/usr/{bin,sbin,lib,lib64,share/corral-vm} "$root"/{etc,proc,sys,dev,tmp,run,root,home/tester}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$root/$d"; done

# copy_with_libs FILE DEST: FILE at DEST in the guest, with the shared libraries ldd lists.
copy_with_libs() {
	local lib dst
	mkdir -p "$root$(dirname "$2")"
	cp -L "$1" "$root$2" || return 1
	chmod 0755 "$root$2"
	# ldd fails ("not a dynamic executable") on static binaries: nothing to copy then.
	for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*'); do
		case $lib in
		/lib/* | /lib32/* | /lib64/* | /libx32/*) dst=/usr$lib ;;
		*) dst=$lib ;;
		esac
		[ -e "$root$dst" ] && continue
		mkdir -p "$root$(dirname "$dst")"
		cp -L "$lib" "$root$dst" || return 1
	done
}

if ! copy_with_libs "$(command -v busybox)" /usr/bin/busybox ||
	! copy_with_libs "$launcher" /usr/bin/corral ||
	! copy_with_libs "$probe" /usr/bin/probe; then
	not_ok "pack the guest root (busybox, corral, probe and their libraries)"
	echo "1..$N"
	exit 1
fi
install -m 0755 "$here/init" "$root/init"
install -m 0644 "$here/tap.sh" "$root/usr/share/corral-vm/tap.sh"
install -m 0644 "$here/smoke.sh" "$root/usr/share/corral-vm/smoke.sh"
install -m 0644 "$here/limits.sh" "$root/usr/share/corral-vm/limits.sh"
install -m 0644 "$here/oci.sh" "$root/usr/share/corral-vm/oci.sh"
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
tester:x:1000:1000:tester:/home/tester:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
tester:x:1000:
nogroup:x:65534:
EOF
echo /bin/sh >"$root/etc/shells"
# Owned by root in the guest whoever runs the suite; init hands /home/tester to uid 1000.
initrd=$TMP/initrd.gz
(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$initrd" || {
	not_ok "pack the guest initramfs"
	echo "1..$N"
	exit 1
}

# --- kernels ----------------------------------------------------------------------------------
# fetch_kernel META: set KERNEL (a vmlinuz) and PKG, or REASON and return 1.
fetch_kernel() {
	local meta=$1 dl log=$TMP/apt.log
	local -a apt_opts=() images
	KERNEL='' REASON=''
	PKG=$(apt-cache depends "$meta" 2>/dev/null | awk '/Depends:/ { print $2; exit }')
	if [ -z "$PKG" ]; then
		REASON="$meta is not in the configured apt sources (apt-get update?)"
		return 1
	fi
	mkdir -p "$cache" || { REASON="cannot create $cache"; return 1; }
	# apt's _apt download user may not reach a cache under /root: download as ourselves.
	[ "$(id -u)" -ne 0 ] || apt_opts=(-o APT::Sandbox::User=root)
	(
		flock -w 600 9 || exit 1
		ls "$cache/$PKG"/boot/vmlinuz-* >/dev/null 2>&1 && exit 0
		dl=$(mktemp -d "$cache/.download.XXXXXX") || exit 1
		trap 'rm -rf "$dl"' EXIT
		cd "$dl" &&
			timeout 300 apt-get "${apt_opts[@]}" download "$PKG" >"$log" 2>&1 &&
			dpkg -x "$PKG"_*.deb "$PKG" >>"$log" 2>&1 &&
			find "$PKG" -mindepth 1 -maxdepth 1 ! -name boot -exec rm -rf {} + && # modules: unused
			rm -rf "${cache:?}/$PKG" &&
			mv -T "$PKG" "$cache/$PKG"
	) 9>>"$cache/.lock"
	images=("$cache/$PKG"/boot/vmlinuz-*)
	if [ -f "${images[0]}" ]; then
		KERNEL=${images[0]}
	else
		REASON="apt-get download $PKG failed: $(tail -n 1 "$log" 2>/dev/null)"
		return 1
	fi
}

# boot KERNEL CONSOLE: boot the guest; its console (without CRs) in CONSOLE.
boot() {
	timeout "$boot_timeout" qemu-system-x86_64 -M pc -accel "$accel" -cpu max -m 768 -smp 2 \
		-kernel "$1" -initrd "$initrd" -append "console=ttyS0 quiet panic=-1" \
		-nographic -no-reboot -nodefaults -serial stdio -monitor none </dev/null 2>&1 |
		tr -d '\r' >"$2"
}

t_suite=$(now_ms)
for meta in $kernels; do
	if ! fetch_kernel "$meta"; then
		skip "$meta: smoke tests in a qemu guest" "$REASON"
		continue
	fi
	label=${PKG#linux-image-}
	console=$TMP/console.$label
	t0=$(now_ms)
	boot "$KERNEL" "$console"
	# A kernel that panics while it boots, before the guest's suite has said anything, failed
	# under the emulator (qemu's TCG: seen in sched_init_debug on 6.12), not under corral: one
	# more boot, said in the output; a second panic is reported as any failure.
	if ! grep -q 'TAP: ' "$console" && grep -q 'Kernel panic' "$console"; then
		diag "$label: the kernel panicked while booting, before the suite ran ($(grep -m1 -o 'RIP: .*' "$console")): booting it once more"
		t0=$(now_ms)
		boot "$KERNEL" "$console"
	fi
	t=$(($(now_ms) - t0))

	# Re-emit the guest's TAP lines, renumbered and labelled; count them against its plan.
	seen=0 plan=
	while IFS= read -r line; do
		case $line in
		'ok '* | 'not ok '*)
			seen=$((seen + 1))
			desc=${line#*ok }
			desc=${desc#* - }
			case $line in
			'ok '*) ok "$label: $desc" ;;
			*) not_ok "$label: $desc" ;;
			esac
			;;
		'#'*) echo "$line" ;;
		1..*) plan=$((${plan:-0} + ${line#1..})) ;; # one plan per guest suite
		esac
	done < <(sed -n 's/^.*TAP: //p' "$console")
	rc=$(sed -n 's/^.*GUEST_RC=\([0-9]*\).*/\1/p' "$console" | tail -n 1)
	name="$label: the guest ran the suite to its end (GUEST_RC=${rc:-<missing>}, $seen of ${plan:-?} tests reported) in ${t} ms"
	if [ "$rc" = 0 ] && [ -n "$plan" ] && [ "$seen" = "$plan" ]; then
		ok "$name"
	elif [ -n "$rc" ] && [ "$rc" != 0 ] && [ -n "$plan" ] && [ "$seen" = "$plan" ]; then
		# The failures are reported above; the console adds nothing.
		not_ok "$name"
	else
		not_ok "$name"
		diag "kernel $KERNEL; last lines of the console:"
		tail -n 40 "$console" | diag "$(cat)"
	fi
done
diag "vm suite: $(($(now_ms) - t_suite)) ms"
echo "1..$N"
[ "$FAILED" -eq 0 ]
