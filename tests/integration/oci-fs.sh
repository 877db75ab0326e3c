#!/bin/bash
# oci-fs: what `corral oci` makes of a bundle's filesystem beyond mounts[] (docs/oci.md, "Running
# a container"): maskedPaths and readonlyPaths of the image's own files, mount propagation
# options and linux.rootfsPropagation; and its id maps (ranges for a root caller, never host
# root). Attacked as a config writer would: secrets the image ships hidden by maskedPaths read
# anyway, a read-only path written, a shared propagation used to push the runtime's mounts out to
# a host directory that is shared on the host, host root or other users' ids mapped in; each
# beside a positive control in the same container. As root and as the unprivileged user.
# shellcheck disable=SC2016,SC2034 # the conditions of is are single-quoted, evaluated there
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

# shellcheck source=tests/integration/oci-lib.sh
source "$CR_TESTS_DIR/integration/oci-lib.sh"

# own MODE PATH...: new 0700 directories of MODE's uid.
own() {
	local m=$1
	shift
	mkdir -m 0700 "$@" && chown "$(as "$m" id -u):$(as "$m" id -g)" "$@"
}

# make_rootfs DIR: a busybox-static root (the applets as symlinks), readable by everyone.
make_rootfs() {
	local d=$1 a
	mkdir -p "$d"/{bin,etc,proc,sys,dev,tmp,root,mnt}
	cp /bin/busybox "$d/bin/"
	for a in sh echo cat ls sleep true touch grep head; do
		ln -sf busybox "$d/bin/$a"
	done
	chmod -R a+rX "$d"
}

# make_bundle MODE DIR ROOTFS SCRIPT [PY]: DIR/config.json running `sh -c SCRIPT` in ROOTFS (a
# writable root), shaped as oci.sh's (runc spec's mounts); in user mode in a user namespace
# mapped to MODE's uid. PY: a python statement changing the config c.
make_bundle() {
	mkdir -p "$2"
	python3 - "$(as "$1" id -u)" "$(as "$1" id -g)" "$@" <<'EOF'
import json, os, sys
uid, gid, mode, d, rootfs, script = sys.argv[1:7]
caps = ["CAP_KILL", "CAP_SYS_ADMIN", "CAP_DAC_OVERRIDE"]
ns = [{"type": t} for t in ("pid", "network", "ipc", "uts", "mount")]
c = {"ociVersion": "1.0.2", "root": {"path": rootfs, "readonly": False},
     "process": {"user": {"uid": 0, "gid": 0}, "args": ["sh", "-c", script], "env": ["PATH=/bin"],
                 "cwd": "/", "capabilities": {k: caps for k in ("bounding", "effective", "permitted")}},
     "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"},
                {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=755"]},
                {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["mode=1777"]}],
     "linux": {"namespaces": ns}}
if mode == "user":
    ns.append({"type": "user"})
    for k, ids in (("uidMappings", uid), ("gidMappings", gid)):
        c["linux"][k] = [{"containerID": 0, "hostID": int(ids), "size": 1}]
if len(sys.argv) > 7:
    exec(sys.argv[7])
json.dump(c, open(os.path.join(d, "config.json"), "w"), indent=1)
EOF
	chmod -R a+rX "$2"
}

# run_box MODE ROOT BUNDLE ID: create ID as an engine does (oci-reaper.py takes the exit status
# of the pid create writes); sets BOX_RES, BOX_OUT. ID's process waits until start_box.
run_box() {
	local m=$1 root=$2 b=$3 id=$4
	local d=$CR_TMP/box-$m
	[ -d "$d" ] || own "$m" "$d"
	BOX_RES=$d/res-$id BOX_OUT=$d/out-$id
	(cd "$b" && as "$m" python3 "$CR_TESTS_DIR/integration/oci-reaper.py" "$d/pid-$id" "$BOX_RES" -- \
		"$CORRAL" oci --root "$root" create --bundle . --pid-file "$d/pid-$id" "$id" \
		>"$BOX_OUT" 2>&1 </dev/null) &
	HOST_PIDS+=($!)
	wait_for test -s "$d/pid-$id" -o -e "$BOX_RES"
}

# box MODE ROOT BUNDLE ID: run ID to its end; OUT is what it printed, RC how it ended.
box() {
	run_box "$@"
	[ -e "$BOX_RES" ] || as "$1" "$CORRAL" oci --root "$2" start "$4"
	wait_for test -e "$BOX_RES"
	OUT=$(cat "$BOX_OUT") RC=$(cat "$BOX_RES" 2>/dev/null) ERR=
	as "$1" "$CORRAL" oci --root "$2" delete --force "$4" >/dev/null 2>&1
}

for m in $MODES; do
	uid=$(as "$m" id -u)
	broot=$CR_TMP/root-$m
	own "$m" "$broot"
	BOX_ROOTS+=("$broot")
	bb=$CR_TMP/bb-$m
	mkdir -p "$bb"

	# --- maskedPaths: the image's own secrets --------------------------------------------------
	# The image ships them; a path only the image has (none of it on the host) was skipped.
	rootfs=$CR_TMP/rootfs-mask-$m
	make_rootfs "$rootfs"
	mkdir -p "$rootfs/secret-dir/sub" "$rootfs/ro-dir" "$rootfs/rw-dir"
	echo SECRET-FILE >"$rootfs/secret-file"
	echo SECRET-IN-DIR >"$rootfs/secret-dir/f"
	echo SECRET-IN-SUB >"$rootfs/secret-dir/sub/f"
	echo PUBLIC >"$rootfs/public-file"
	chmod -R a+rX "$rootfs"
	chown "$uid" "$rootfs/ro-dir" "$rootfs/rw-dir"
	make_bundle "$m" "$bb/mask" "$rootfs" 'cat /secret-file /secret-dir/f /secret-dir/sub/f 2>/dev/null; ls /secret-dir 2>/dev/null; cat /public-file' \
		'c["linux"]["maskedPaths"] = ["/secret-dir", "/secret-file", "/secret-dir/sub", "/secret-dir/f", "/proc/kcore"]'
	box "$m" "$broot" "$bb/mask" mask
	is "$m: maskedPaths hide the image's own files and directories (and one under a masked one): nothing of them is read; the image's other file is (positive control)" \
		'[ "$RC" = "exited 0" ] && [[ $OUT != *SECRET* ]] && [ "$OUT" = PUBLIC ]'

	# --- readonlyPaths: the image's own directory ---------------------------------------------
	make_bundle "$m" "$bb/ro" "$rootfs" '{ echo x >/ro-dir/f; } 2>/dev/null && echo WROTE-RO; echo x >/rw-dir/f && echo wrote-rw' \
		'c["linux"]["readonlyPaths"] = ["/ro-dir"]'
	box "$m" "$broot" "$bb/ro" ro
	is "$m: a readonlyPaths directory of the image cannot be written; its writable sibling can (positive control)" \
		'[ "$RC" = "exited 0" ] && [ "$OUT" = wrote-rw ] && [ ! -e "$rootfs/ro-dir/f" ]'

	# --- propagation: the container's mounts never reach the host ------------------------------
	# A host directory that is shared on the host (its own peer group), bound rshared into a
	# container with a shared root and a tmpfs mounted under it by the runtime: were the bind
	# the host's peer, that tmpfs would show on the host.
	if [ "$(id -u)" -eq 0 ]; then
		hp=$CR_TMP/shared-$m
		mkdir -p "$hp/evil" "$rootfs/mnt/h"
		mount --bind "$hp" "$hp" && HOST_MOUNTS+=("$hp") && mount --make-shared "$hp"
		chmod 0755 "$hp"
		make_bundle "$m" "$bb/prop" "$rootfs" 'grep -E " / | /mnt/h | /mnt/h/evil " /proc/self/mountinfo; sleep 2' \
			'c["mounts"] += [{"destination": "/mnt/h", "source": "'"$hp"'", "options": ["rbind", "rshared"]}, {"destination": "/mnt/h/evil", "type": "tmpfs", "source": "tmpfs"}]; c["linux"]["rootfsPropagation"] = "shared"'
		run_box "$m" "$broot" "$bb/prop" prop
		as "$m" "$CORRAL" oci --root "$broot" start prop
		wait_for grep -q /mnt/h/evil "$BOX_OUT"
		host=$(grep -c "$hp/evil" /proc/self/mountinfo)
		wait_for test -e "$BOX_RES"
		OUT="host: $host; $(cat "$BOX_OUT")" RC=$(cat "$BOX_RES" 2>/dev/null)
		as "$m" "$CORRAL" oci --root "$broot" delete --force prop >/dev/null 2>&1
		is "$m: an rshared bind of a host directory shared on the host, in a shared root, with a tmpfs mounted under it: the tmpfs never shows on the host; in the container the root and the bind are shared (peer groups of its own) and the tmpfs is there (positive control)" \
			'[ "$RC" = "exited 0" ] && [ "$host" = 0 ] && grep -Eq "^[0-9]+ [0-9]+ [^ ]+ [^ ]+ / [^ ]+ shared:[0-9]+" "$BOX_OUT" && grep -Eq " /mnt/h [^ ]+ shared:[0-9]+" "$BOX_OUT" && grep -q " /mnt/h/evil " "$BOX_OUT" && [ "$(grep -o "shared:[0-9]*" "$BOX_OUT" | sort -u | grep -cxFf <(grep "$hp" /proc/self/mountinfo | grep -o "shared:[0-9]*"))" = 0 ]'
		umount "$hp" && HOST_MOUNTS=()
	fi
	for mode in slave unbindable rprivate; do
		make_bundle "$m" "$bb/rp" "$rootfs" 'grep -E "^[0-9]+ [0-9]+ [^ ]+ [^ ]+ / " /proc/self/mountinfo' \
			'c["linux"]["rootfsPropagation"] = "'$mode'"'
		box "$m" "$broot" "$bb/rp" "rp-$mode"
		is "$m: rootfsPropagation $mode is taken (the root slave of nothing: private; unbindable shown so)" \
			'[ "$RC" = "exited 0" ] && case '$mode' in unbindable) [[ $OUT == *" unbindable "* ]] ;; *) [[ $OUT != *shared:* && $OUT != *master:* ]] ;; esac'
	done
	make_bundle "$m" "$bb/bad" "$rootfs" true 'c["linux"]["rootfsPropagation"] = "rshare"'
	box "$m" "$broot" "$bb/bad" bad
	is "$m: an unknown rootfsPropagation is refused, named" \
		'[ "$RC" = "create 1" ] && [[ $OUT == *"linux.rootfsPropagation: '"'"'rshare'"'"' is not a propagation mode"* ]]'

	# --- linux.devices: usable only where resources.devices allows ------------------------------
	# The config names the host's disk as a device but its device rules deny it; the container
	# then also tries a node of its own (CAP_MKNOD) in that same /dev.
	disk=$(stat -c '%t %T' "$(findmnt -n -o SOURCE /)" 2>/dev/null | { read -r a b && echo $((16#$a)) $((16#$b)); })
	read -r dmaj dmin <<<"${disk:-8 0}"
	if [ "$m" = root ]; then
		make_bundle "$m" "$bb/dev" "$rootfs" 'head -c 1 /dev/disk0 >/dev/null 2>&1 && echo ESC-disk; mknod /dev/mine b '"$dmaj $dmin"' 2>/dev/null; head -c 1 /dev/mine >/dev/null 2>&1 && echo ESC-mknod; head -c 1 /dev/zz0 | wc -c; stat -c "%A %u %g" /dev/zz0 /dev/disk0' \
			'c["process"]["capabilities"] = {k: ["CAP_MKNOD", "CAP_DAC_OVERRIDE"] for k in ("bounding", "effective", "permitted")}; c["linux"]["devices"] = [{"path": "/dev/zz0", "type": "c", "major": 1, "minor": 5, "fileMode": 0o640, "uid": 7, "gid": 8}, {"path": "/dev/disk0", "type": "b", "major": '"$dmaj"', "minor": '"$dmin"'}]; c["linux"]["resources"] = {"devices": [{"allow": False, "access": "rwm"}, {"allow": True, "type": "c", "major": 1, "minor": 5, "access": "rw"}]}'
	else
		make_bundle "$m" "$bb/dev" "$rootfs" '{ echo x >/dev/full; } 2>/dev/null; echo full=$?; head -c 1 /dev/zero | wc -c' \
			'c["linux"]["devices"] = [{"path": "/dev/zero", "type": "c", "major": 1, "minor": 5}, {"path": "/dev/full", "type": "c", "major": 1, "minor": 7}]; c["linux"]["resources"] = {"devices": [{"allow": False, "access": "rwm"}, {"allow": True, "type": "c", "major": 1, "minor": 5, "access": "rw"}]}'
	fi
	box "$m" "$broot" "$bb/dev" dev
	if [ "$m" = root ]; then
		is "$m: linux.devices made as asked (mode 0640, 7:8): the allowed one reads (positive control); the host's disk, listed but denied by the device rules, cannot be read, nor a node the container makes itself" \
			'[ "$RC" = "exited 0" ] && [[ $OUT != *ESC* ]] && [ "$(head -n 1 <<<"$OUT")" = 1 ] && [[ $OUT == *"crw-r----- 7 8"* ]] && [[ $OUT == *"brw-rw-rw- 0 0"* ]]'
	else
		is "$m: in a user namespace linux.devices are the host's nodes bound: the allowed one reads (positive control), the denied one (/dev/full) cannot be opened" \
			'[ "$RC" = "exited 0" ] && [ "$OUT" = "full=1"$'"'\n'"'1 ]'
		make_bundle "$m" "$bb/dev2" "$rootfs" 'echo ESCAPED' 'c["linux"]["devices"] = [{"path": "/dev/zz0", "type": "c", "major": 1, "minor": 5}]'
		box "$m" "$broot" "$bb/dev2" dev2
		is "$m: a device the host has not at that path cannot be made in a user namespace: refused, named" \
			'[ "$RC" = "create 1" ] && [[ $OUT == *"linux.devices[0]: /dev/zz0: no node can be made in a user namespace"* ]]'
	fi
	if [ "$m" = root ]; then
		# a node in the image's own directory would stay on the host's disk after the container
		make_bundle "$m" "$bb/dev4" "$rootfs" 'echo ran' 'c["linux"]["devices"] = [{"path": "/w/disk0", "type": "b", "major": '"$dmaj"', "minor": '"$dmin"', "fileMode": 0o666}]'
		mkdir -p "$rootfs/w"
		box "$m" "$broot" "$bb/dev4" dev4
		is "$m: a linux.devices node in the image (not on mounts[]' tmpfs) is refused, named; no node is left in the image" \
			'[ "$RC" = "create 1" ] && [[ $OUT == *"linux.devices[0]: /w/disk0: a device node is made only on a tmpfs"* ]] && [ ! -e "$rootfs/w/disk0" ]'
	fi
	make_bundle "$m" "$bb/dev3" "$rootfs" 'echo ESCAPED' 'c["linux"]["devices"] = [{"path": "/dev/../etc/x", "type": "c", "major": 1, "minor": 5}]'
	box "$m" "$broot" "$bb/dev3" dev3
	is "$m: a linux.devices path that climbs ('..') is refused, named" \
		'[ "$RC" = "create 1" ] && [[ $OUT == *"linux.devices[0]: path: an absolute path without '"'"'..'"'"' is required"* ]]'

	# --- linux.mountLabel: said, never silently dropped ---------------------------------------
	make_bundle "$m" "$bb/lbl" "$rootfs" 'echo ran' 'c["linux"]["mountLabel"] = "system_u:object_r:svirt_sandbox_file_t:s0:c715,c811"'
	box "$m" "$broot" "$bb/lbl" lbl
	if [ -e /sys/fs/selinux/enforce ]; then
		is "$m: linux.mountLabel where SELinux is enabled: refused, named (corral applies no label)" \
			'[ "$RC" = "create 1" ] && [[ $OUT == *"linux.mountLabel: SELinux is enabled"* ]]'
	else
		is "$m: linux.mountLabel where SELinux is not enabled: the container runs, and create says the label is not applied" \
			'[ "$RC" = "exited 0" ] && [[ $OUT == *"warning: create lbl: linux.mountLabel: not applied: SELinux is not enabled on this host"* ]] && [[ $OUT == *ran ]]'
	fi

	# --- hostname with a uts namespace joined by path -----------------------------------------
	# Set in the namespace joined (a pod's), never in the caller's own: named by path, the
	# host's uts namespace would otherwise get the container's hostname.
	if [ "$m" = root ]; then
		hn=$(hostname)
		make_bundle "$m" "$bb/uts" "$rootfs" 'cat /proc/sys/kernel/hostname' \
			'c["hostname"] = "pwned-host"; c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"] if n["type"] != "uts"] + [{"type": "uts", "path": "/proc/'"$$"'/ns/uts"}]'
		box "$m" "$broot" "$bb/uts" uts
		is "$m: hostname with the host's uts namespace named by path: refused, named; the host's hostname unchanged" \
			'[ "$RC" = "create 1" ] && [[ $OUT == *"hostname: needs a uts namespace other than the caller'"'"'s"* ]] && [ "$(hostname)" = "$hn" ]'
		unshare --uts --fork sleep 30 &
		HOST_PIDS+=($!)
		wait_for pgrep -P $! sleep >/dev/null
		upid=$(pgrep -P $! sleep)
		make_bundle "$m" "$bb/uts2" "$rootfs" 'cat /proc/sys/kernel/hostname' \
			'c["hostname"] = "podhost"; c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"] if n["type"] != "uts"] + [{"type": "uts", "path": "/proc/'"$upid"'/ns/uts"}]'
		box "$m" "$broot" "$bb/uts2" uts2
		is "$m: ...positive control: a uts namespace of another's joined takes the hostname there; the host's is unchanged" \
			'[ "$RC" = "exited 0" ] && [ "$OUT" = podhost ] && [ "$(nsenter -t "$upid" -u hostname)" = podhost ] && [ "$(hostname)" = "$hn" ]'
	fi

	# --- uidMappings/gidMappings: ranges ------------------------------------------------------
	# Root may map ranges (podman --userns=auto, Kubernetes hostUsers: false), never host root;
	# a user may map only its own id (no set-id helper).
	mkdir -p "$rootfs/w"
	chmod 0777 "$rootfs/w"
	if [ "$m" = root ]; then
		make_bundle "$m" "$bb/ids" "$rootfs" 'touch /w/made-$(cat /proc/self/uid_map | wc -l); echo ran' \
			'c["linux"]["namespaces"].append({"type": "user"}); c["linux"]["uidMappings"] = [{"containerID": 0, "hostID": 200000, "size": 1000}, {"containerID": 1000, "hostID": 300000, "size": 10}]; c["linux"]["gidMappings"] = [{"containerID": 0, "hostID": 200000, "size": 1000}]'
		box "$m" "$broot" "$bb/ids" ids
		OUT="$OUT; $(ls -ln "$rootfs/w")"
		is "$m: uidMappings of ranges (root's caller): the container's root is host id 200000, not host root (its file there is 200000's)" \
			'[ "$RC" = "exited 0" ] && [[ $OUT == ran* ]] && [ "$(stat -c %u:%g "$rootfs"/w/made-*)" = 200000:200000 ]'
		rm -f "$rootfs"/w/made-*
		i=0
		for bad in '[{"containerID": 0, "hostID": 200000, "size": 10}, {"containerID": 10, "hostID": 0, "size": 1}]' \
			'[{"containerID": 0, "hostID": 0, "size": 65536}]'; do
			make_bundle "$m" "$bb/ids0" "$rootfs" 'touch /w/ESCAPED' \
				'c["linux"]["namespaces"].append({"type": "user"}); c["linux"]["uidMappings"] = '"$bad"'; c["linux"]["gidMappings"] = [{"containerID": 0, "hostID": 200000, "size": 1000}]'
			i=$((i + 1))
			box "$m" "$broot" "$bb/ids0" "ids0-$i"
			is "$m: uidMappings with a range over host root ($bad) are refused, named; nothing ran" \
				'[ "$RC" = "create 1" ] && [[ $OUT == *"linux.uidMappings["*"]: maps host id 0 (root)"* ]] && [ ! -e "$rootfs/w/ESCAPED" ]'
		done
	else
		make_bundle "$m" "$bb/ids" "$rootfs" 'touch /w/ESCAPED' \
			'c["linux"]["uidMappings"] = [{"containerID": 0, "hostID": '"$uid"', "size": 1}, {"containerID": 1, "hostID": 1000, "size": 100}]'
		box "$m" "$broot" "$bb/ids" ids
		is "$m: a user mapping other host ids (1000-1099) beside its own is refused, named; nothing ran" \
			'[ "$RC" = "create 1" ] && [[ $OUT == *"linux.uidMappings: a caller other than root maps one id"* ]] && [ ! -e "$rootfs/w/ESCAPED" ]'
		make_bundle "$m" "$bb/ids1" "$rootfs" 'touch /w/made; echo ran'
		box "$m" "$broot" "$bb/ids1" ids1
		is "$m: ...positive control: its own id mapped, the container runs and its file is the user's" \
			'[ "$RC" = "exited 0" ] && [ "$OUT" = ran ] && [ "$(stat -c %u "$rootfs/w/made")" = "$uid" ]'
		rm -f "$rootfs/w/made"
	fi
	# --- a user namespace of the container's own: no more beneath it ---------------------------
	# corral's floor forbids further user namespaces inside the container's, which its process
	# is in directly (its own uid_map and capabilities, as config.json says). Attacked from
	# there, as root of that namespace with CAP_SYS_ADMIN, CAP_SETUID and CAP_SETGID: unshare,
	# clone3 (whose flags no seccomp filter reads), the i386 entry, and the limit written back.
	rootfs=$CR_TMP/rootfs-userns-$m
	make_rootfs "$rootfs"
	mkdir -p "$rootfs/usr" "$rootfs/lib" "$rootfs/lib64"
	touch "$rootfs/probe"
	chmod -R a+rX "$rootfs"
	binds='for hd in ("/usr", "/lib", "/lib64"): c["mounts"].append({"destination": hd, "type": "bind", "source": hd, "options": ["rbind", "ro"]})
c["mounts"].append({"destination": "/probe", "type": "bind", "source": "'"$PROBE"'", "options": ["bind", "ro"]})
c["process"]["capabilities"] = {k: ["CAP_KILL", "CAP_SYS_ADMIN", "CAP_DAC_OVERRIDE", "CAP_SETUID", "CAP_SETGID"] for k in ("bounding", "effective", "permitted")}
'
	if [ "$m" = root ]; then
		binds+='c["linux"]["namespaces"].append({"type": "user"}); c["linux"]["uidMappings"] = [{"containerID": 0, "hostID": 200000, "size": 1000}, {"containerID": 1000, "hostID": 300000, "size": 10}]; c["linux"]["gidMappings"] = [{"containerID": 0, "hostID": 200000, "size": 1000}]'
		want_map="0 200000 1000 1000 300000 10"
	else
		want_map="0 $uid 1"
	fi
	make_bundle "$m" "$bb/userns" "$rootfs" 'echo map $(cat /proc/self/uid_map); /probe status-field CapEff; /probe status-field CapBnd
		/probe unshare-user 2>/dev/null && echo ESC-unshare; /probe clone3-user 2>/dev/null && echo ESC-clone3
		/probe int80 310 0x10000000 2>/dev/null && echo ESC-int80
		/probe sysctl-write /proc/sys/user/max_user_namespaces 15000 2>/dev/null && echo ESC-sysctl
		echo max=$(cat /proc/sys/user/max_user_namespaces); /probe fork && echo forked' "$binds"
	box "$m" "$broot" "$bb/userns" userns
	want=$(printf 'map %s\n00000000002000e2\n00000000002000e2\nmax=0\nforked' "$want_map")
	is "$m: in a user namespace of the container's own, its process sees config.json's uid_map and holds its capabilities (positive control: it forks); it makes no user namespace (unshare, clone3, int \$0x80) nor raises the limit (0) back" \
		'[ "$RC" = "exited 0" ] && [ "$OUT" = "$want" ]'
	# with CAP_SYS_RESOURCE it could raise the limit in its namespace: a nested one stays
	make_bundle "$m" "$bb/userns-res" "$rootfs" 'echo map $(cat /proc/self/uid_map); /probe unshare-user 2>/dev/null && echo ESC-unshare; /probe clone3-user 2>/dev/null && echo ESC-clone3; echo ran' \
		"$binds"'
c["process"]["capabilities"] = {k: ["CAP_SYS_RESOURCE", "CAP_SYS_ADMIN"] for k in ("bounding", "effective", "permitted")}'
	run_box "$m" "$broot" "$bb/userns-res" userns-res
	as "$m" "$CORRAL" oci --root "$broot" start userns-res
	wait_for test -e "$BOX_RES"
	OUT=$(cat "$BOX_OUT") RC=$(cat "$BOX_RES")
	ERR=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["oci_not_applied"])' "$broot/userns-res/status.json" 2>&1)
	as "$m" "$CORRAL" oci --root "$broot" delete --force userns-res >/dev/null 2>&1
	is "$m: ...with CAP_SYS_RESOURCE (which could write the limit back) the process is in a nested user namespace of one id, and still makes none; said at create and in status.json" \
		'[ "$RC" = "exited 0" ] && [[ $OUT == *"warning: create userns-res: process.capabilities: CAP_SYS_RESOURCE kept"*"nested user namespace of one id"* ]] && [[ $OUT == *"$(printf "map 0 0 1\nran")" ]] && [[ $OUT != *ESC* ]] && [[ $ERR == *"CAP_SYS_RESOURCE kept"* ]]'
	# exec into it: the process joins that namespace with its own capabilities on the same terms
	make_bundle "$m" "$bb/userns-ex" "$rootfs" 'echo up; exec sleep 300' "$binds"
	run_box "$m" "$broot" "$bb/userns-ex" userns-ex
	as "$m" "$CORRAL" oci --root "$broot" start userns-ex
	wait_for grep -q up "$BOX_OUT"
	proc=$CR_TMP/box-$m/userns-process.json
	for caps in '"CAP_KILL", "CAP_SYS_ADMIN", "CAP_DAC_OVERRIDE", "CAP_SETUID", "CAP_SETGID"' '"CAP_SYS_RESOURCE", "CAP_SYS_ADMIN"'; do
		printf '{"args":["sh","-c","echo map $(cat /proc/self/uid_map); /probe status-field CapEff; /probe unshare-user 2>/dev/null && echo ESC-unshare; /probe clone3-user 2>/dev/null && echo ESC-clone3; echo max=$(cat /proc/sys/user/max_user_namespaces)"],"env":["PATH=/bin"],"cwd":"/","user":{"uid":0,"gid":0},"capabilities":{"bounding":[%s],"effective":[%s],"permitted":[%s]}}\n' \
			"$caps" "$caps" "$caps" >"$proc"
		chmod a+r "$proc"
		OUT=$(as "$m" "$CORRAL" oci --root "$broot" exec --process "$proc" userns-ex 2>&1)
		RC=$?
		if [[ $caps == *SYS_RESOURCE* ]]; then
			is "$m: ...exec with CAP_SYS_RESOURCE into it holds no capability there, and makes no user namespace" \
				'[ "$RC" = 0 ] && [ "$OUT" = "$(printf "map %s\n0000000000000000\nmax=0" "$want_map")" ]'
		else
			is "$m: ...exec into it: the process sees the config's uid_map, holds its own capabilities (positive control), and makes no user namespace" \
				'[ "$RC" = 0 ] && [ "$OUT" = "$(printf "map %s\n00000000002000e2\nmax=0" "$want_map")" ]'
		fi
	done
	as "$m" "$CORRAL" oci --root "$broot" delete --force userns-ex >/dev/null 2>&1

	# --- a mount namespace joined by path ------------------------------------------------------
	# The container's process enters it with a root of its own (a detached clone of the one
	# corral built): the joined namespace's mounts and its processes' roots stay as they were,
	# and the namespace's root (the host's here) is out of reach, by the classic chroot escape
	# too. Root: a user namespace of the container's own has no power over the host's.
	echo CANARY >"$CR_TMP/canary-mnt"
	chmod a+r "$CR_TMP/canary-mnt"
	hostd=$CR_TMP/mntns-$m
	mkdir -p "$hostd"
	chmod a+rx "$hostd"
	own "$m" "$CR_TMP/upid-$m"
	if [ "$m" = root ]; then
		unshare --mount --propagation private --fork sh -c "mount -t tmpfs joined '$hostd' && echo \$\$ >'$CR_TMP/upid-$m/pid' && exec sleep 300" &
	else
		as "$m" unshare --user --map-root-user --mount --fork sh -c "mount -t tmpfs joined '$hostd' && echo \$\$ >'$CR_TMP/upid-$m/pid' && exec sleep 300" &
	fi
	HOST_PIDS+=($!)
	wait_for test -s "$CR_TMP/upid-$m/pid"
	upid=$(cat "$CR_TMP/upid-$m/pid")
	HOST_PIDS+=("$upid")
	before=$(nsenter -t "$upid" -m cat /proc/self/mountinfo | wc -l)
	mnt='
c["process"]["capabilities"] = {k: ["CAP_SYS_CHROOT", "CAP_SYS_ADMIN", "CAP_DAC_OVERRIDE"] for k in ("bounding", "effective", "permitted")}
c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"] if n["type"] != "mount"] + [{"type": "mount", "path": "/proc/'"$upid"'/ns/mnt"}]'
	make_bundle "$m" "$bb/mntns" "$rootfs" '/probe read /probe >/dev/null && echo own-root
		/probe chroot-escape /tmp/x '"$CR_TMP"'/canary-mnt 2>/dev/null && echo ESC-chroot
		/probe read /proc/1/root'"$CR_TMP"'/canary-mnt 2>/dev/null && echo ESC-proc1
		/probe read '"$CR_TMP"'/canary-mnt 2>/dev/null && echo ESC-host; echo up; exec sleep 300' \
		"${binds%%c\[\"linux\"\]\[\"namespaces\"\].append*}$mnt"
	run_box "$m" "$broot" "$bb/mntns" mntns
	as "$m" "$CORRAL" oci --root "$broot" start mntns >/dev/null 2>&1
	if [ "$m" = root ]; then
		wait_for grep -q up "$BOX_OUT"
		cpid=$(as "$m" "$CORRAL" oci --root "$broot" state mntns | python3 -c 'import json, sys; print(json.load(sys.stdin)["pid"])')
		OUT=$(cat "$BOX_OUT")
		is "$m: a mount namespace joined by path: the process is in it (its ns/mnt) with its own root (positive control); the joined namespace's root stays out of reach (chroot escape, /proc/1/root, the path itself); the namespace's mounts and its process's root unchanged" \
			'[ "$OUT" = "$(printf "own-root\nup")" ] && [ "$(readlink "/proc/$cpid/ns/mnt")" = "$(readlink "/proc/$upid/ns/mnt")" ] && [ "$(nsenter -t "$upid" -m cat /proc/self/mountinfo | wc -l)" = "$before" ] && [ "$(readlink "/proc/$upid/root")" = / ] && [ "$("$PROBE" chroot-escape "$CR_TMP/esc-x" "$CR_TMP/canary-mnt")" = CANARY ]'
	else
		wait_for test -e "$BOX_RES"
		OUT=$(cat "$BOX_OUT")
		is "$m: a mount namespace joined by path that the container's user namespace does not own: refused, named; nothing ran" \
			'[[ $OUT == *"cannot join the mount namespace given by path"* ]] && [[ $OUT != *up* ]]'
	fi
	as "$m" "$CORRAL" oci --root "$broot" delete --force mntns >/dev/null 2>&1
	diag "$m: uid $uid"
done
