#!/bin/bash
# oci-userns: root's container without a user namespace in config.json (docs/oci.md, "Root
# without a user namespace"). corral adds one by default (--userns auto, io.corral.userns):
# the process is uid 0 inside and 65534 on the host, the container's root idmapped so that the
# image's files (host root's) are its own. Attacked as an attacker in the container would: a host
# file of root's bound in read-write, a host file of root's mode 0600 read, both beside a write to
# the image (the positive control). Then --userns spec, the spec as written (host root: the same
# write gets through, as config.json asks), an annotation asking for spec refused, a bad mode
# refused. The unprivileged user's container (a user namespace in config.json) is unchanged.
# shellcheck disable=SC2016 # the conditions of is are single-quoted, evaluated there
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

# shellcheck source=tests/integration/oci-lib.sh
source "$CR_TESTS_DIR/integration/oci-lib.sh"

# The image: a busybox root owned by host root, as engines' are.
rootfs=$CR_TMP/rootfs
mkdir -p "$rootfs"/{bin,etc,proc,sys,dev,tmp,root,mnt}
cp /bin/busybox "$rootfs/bin/"
for a in sh echo cat ls id sleep touch test; do ln -sf busybox "$rootfs/bin/$a"; done
echo 'root:x:0:0:root:/root:/bin/sh' >"$rootfs/etc/passwd"
chmod -R a+rX "$rootfs"
chmod 0700 "$rootfs/root"
chmod 1777 "$rootfs/tmp"
# Host files of root's: one others may read, one only root may.
echo host-data >"$CR_TMP/host-file"
chmod 0644 "$CR_TMP/host-file"
echo host-secret >"$CR_TMP/host-secret"
chmod 0600 "$CR_TMP/host-secret"

# bundle MODE DIR SCRIPT [ANNOTATION]: runc spec's shape; a user namespace only in user mode.
bundle() {
	mkdir -p "$2"
	python3 - "$(as "$1" id -u)" "$(as "$1" id -g)" "$1" "$2" "$3" "${4:-}" "$rootfs" "$CR_TMP" <<'EOF'
import json, os, sys
uid, gid, mode, d, script, ann, rootfs, tmp = sys.argv[1:9]
ns = [{"type": t} for t in ("pid", "network", "ipc", "uts", "mount")]
c = {"ociVersion": "1.0.2", "root": {"path": rootfs},
     "process": {"user": {"uid": 0, "gid": 0}, "args": ["sh", "-c", script], "env": ["PATH=/bin"], "cwd": "/",
                 "capabilities": {k: ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_SETUID", "CAP_SETGID"] for k in ("bounding", "effective", "permitted")}},
     "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"},
                {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=755"]},
                {"destination": "/mnt/host-file", "type": "bind", "source": tmp + "/host-file", "options": ["rbind", "rw"]},
                {"destination": "/mnt/host-secret", "type": "bind", "source": tmp + "/host-secret", "options": ["rbind", "rw"]}],
     "linux": {"namespaces": ns}}
if ann:
    c["annotations"] = {"io.corral.userns": ann}
if mode == "user":
    ns.append({"type": "user"})
    for k, ids in (("uidMappings", uid), ("gidMappings", gid)):
        c["linux"][k] = [{"containerID": 0, "hostID": int(ids), "size": 1}]
json.dump(c, open(os.path.join(d, "config.json"), "w"))
EOF
	chmod -R a+rX "$2"
}

# box MODE ID BUNDLE [GLOBAL-OPTION...]: create ID as engines do (oci-reaper.py), record the
# process's host uid and uid_map as the host sees them, start it, wait; RES, OUT, HOSTUID, MAP.
box() {
	local m=$1 id=$2 b=$3 d=$CR_TMP/$1
	shift 3
	RES=$d/res-$id OUT=$d/out-$id
	(cd "$b" && as "$m" python3 "$CR_TESTS_DIR/integration/oci-reaper.py" "$d/pid-$id" "$RES" -- \
		"$CORRAL" oci --root "$d/root" "$@" create --bundle . --pid-file "$d/pid-$id" "$id" \
		>"$OUT" 2>&1 </dev/null) &
	HOST_PIDS+=($!)
	wait_for test -s "$d/pid-$id" -o -e "$RES"
	STATE=$(cat "$d/root/$id/state.json" 2>/dev/null)
	init=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["init_pid"])' "$STATE" 2>/dev/null)
	HOSTUID=$(awk '/^Uid:/ {print $3}' "/proc/$init/status" 2>/dev/null)
	MAP=$( (tr -s ' ' <"/proc/$init/uid_map" | sed 's/^ //') 2>/dev/null)
	as "$m" "$CORRAL" oci --root "$d/root" "$@" start "$id" 2>>"$OUT"
	wait_for test -e "$RES"
	RC=$(cat "$RES")
	as "$m" "$CORRAL" oci --root "$d/root" delete "$id" 2>/dev/null
}

ATTACK='id -u; echo pwn >>/mnt/host-file && echo WROTE-HOST; cat /mnt/host-secret 2>/dev/null && echo READ-SECRET; echo img >/root/f && echo image-ok; echo t >/tmp/t && echo tmp-ok; cat /proc/self/uid_map'

for m in $MODES; do
	d=$CR_TMP/$m
	mkdir -p "$d" && chown "$(as "$m" id -u)" "$d" && chmod 0700 "$d"
	BOX_ROOTS+=("$d/root")
	rm -f "$rootfs/root/f" "$rootfs/tmp/t"
	bundle "$m" "$d/b" "$ATTACK"
	box "$m" c1 "$d/b"
	echo "# host uid $HOSTUID, uid_map (from the host) $MAP, state userns $(python3 -c 'import json, sys; print(json.loads(sys.argv[1]).get("userns"))' "$STATE" 2>/dev/null)"
	sed 's/^/#   /' "$OUT"
	if [ "$m" = root ]; then
		is "root: a config.json without a user namespace gets one (the default): uid 0 inside, 65534 on the host (uid_map 0 65534 1 seen from the host; state.json says added)" \
			'[ "$(cat "$RES")" = "exited 0" ] && [ "$(head -n 1 "$OUT")" = 0 ] && [ "$HOSTUID" = 65534 ] && [ "$MAP" = "0 65534 1" ] && [[ $STATE == *"\"userns\":\"added\""* || $STATE == *"\"userns\": \"added\""* ]]'
	else
		is "user: the container's own user namespace as before: uid 0 inside, the user on the host" \
			'[ "$(cat "$RES")" = "exited 0" ] && [ "$(head -n 1 "$OUT")" = 0 ] && [ "$HOSTUID" = 65534 ]'
	fi
	is "$m: container root cannot write a host file of root's bound in read-write, nor read one of mode 0600, though it holds CAP_DAC_OVERRIDE" \
		'! grep -q WROTE-HOST "$OUT" && ! grep -q READ-SECRET "$OUT" && [ "$(cat "$CR_TMP/host-file")" = host-data ]'
	if [ "$m" = user ]; then
		is "user: positive control: it writes its image's /tmp (1777)" 'grep -q tmp-ok "$OUT"'
		continue
	fi
	is "root: positive control: it writes its image's root-owned /root (0700), the file root's on the host" \
		'grep -q image-ok "$OUT" && [ "$(stat -c %u "$rootfs/root/f")" = 0 ]'
	rm -f "$rootfs/root/f" "$rootfs/tmp/t"

	# --- the spec as written, when the runtime is told so ----------------------------------------
	box root c2 "$d/b" --userns spec
	sed 's/^/#   /' "$OUT"
	is "root: --userns spec: host root as config.json says (uid_map 0 0 4294967295), the bound host file written" \
		'[ "$(cat "$RES")" = "exited 0" ] && [ "$HOSTUID" = 0 ] && grep -q WROTE-HOST "$OUT"'
	echo host-data >"$CR_TMP/host-file"
	CORRAL_OCI_USERNS=spec box root c3 "$d/b"
	is "root: CORRAL_OCI_USERNS=spec does the same" '[ "$HOSTUID" = 0 ] && grep -q WROTE-HOST "$OUT"'
	echo host-data >"$CR_TMP/host-file"
	bundle root "$d/b-ann" "$ATTACK" auto
	box root c4 "$d/b-ann" --userns spec
	is "root: io.corral.userns=auto narrows --userns spec: 65534 on the host, the host file untouched" \
		'[ "$HOSTUID" = 65534 ] && ! grep -q WROTE-HOST "$OUT" && grep -q image-ok "$OUT"'
	rm -f "$rootfs/root/f"
	bundle root "$d/b-spec" "$ATTACK" spec
	box root c5 "$d/b-spec"
	is "root: io.corral.userns=spec without the runtime's --userns spec: refused, named (an annotation cannot ask for host root)" \
		'[ "$(cat "$RES")" = "create 1" ] && grep -q "io.corral.userns: spec (host root in the container) needs the runtime" "$OUT" && [ "$(cat "$CR_TMP/host-file")" = host-data ]'
	OUT=$("$CORRAL" oci --userns maybe state x 2>&1)
	RC=$?
	is "root: --userns with a bad value: 125, named" '[ "$RC" = 125 ] && [[ $OUT == *"--userns: '"'"'maybe'"'"' is not auto, required or spec"* ]]'
done
