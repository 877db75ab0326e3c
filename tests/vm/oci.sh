#!/bin/sh
# oci.sh: the OCI door's linux.resources on a pure cgroup v2 host, in the guest that
# tests/vm/run.sh boots, as root: `corral oci create` with a cgroupsPath, each field read back
# from the cgroup2 file it maps to (memory.low, cpu.max, cpuset.cpus, pids.max), the device
# rules held without a devices cgroup, and the fields cgroup2 has no file for refused by name,
# leaving no cgroup. Prints "TAP: " lines; the exit status is the number of failures.
set -u

N=0
FAILED=0
CG=/sys/fs/cgroup
T=$(mktemp -d /tmp/oci.XXXXXX)
. /usr/share/corral-vm/tap.sh

mkdir -p "$T/b/rootfs/bin" "$T/root"
cp /usr/bin/busybox "$T/b/rootfs/bin/busybox"
for c in sh sleep true cat; do ln -s busybox "$T/b/rootfs/bin/$c"; done

# config CGROUPS_PATH RESOURCES [USERNS]: the bundle's config.json, a sleeping busybox; with
# USERNS, in a user namespace mapping root to uid 1000 (tester).
config() {
	userns=''
	[ -n "${3:-}" ] && userns=', {"type": "user"}], "uidMappings": [{"containerID": 0, "hostID": 1000, "size": 1}], "gidMappings": [{"containerID": 0, "hostID": 1000, "size": 1}'
	cat >"$T/b/config.json" <<EOF
{"ociVersion": "1.0.2", "root": {"path": "rootfs"},
 "process": {"args": ["sleep", "30"], "cwd": "/", "env": ["PATH=/bin"], "user": {"uid": 0, "gid": 0}},
 "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"}],
 "linux": {"namespaces": [{"type": "pid"}, {"type": "mount"}$userns], "cgroupsPath": "$1", "resources": $2}}
EOF
	chmod -R a+rX "$T/b"
}

# create ID [user]: corral oci create (with user: as tester, from the leaf "shell" of the
# subtree delegated to it, beside the limits suite's shell); RC and ERR.
create() {
	if [ "${2:-}" = user ]; then
		(cd "$T/b" && timeout 60 sh -c 'echo $$ >/sys/fs/cgroup/delegated/shell/cgroup.procs &&
			exec su -s /bin/sh tester -c "exec corral oci --root $0 create --bundle . $1"' \
			"$T/uroot" "$1") >"$T/out" 2>"$T/err" </dev/null
	else
		(cd "$T/b" && timeout 60 corral oci --root "$T/root" create --bundle . "$1") \
			>"$T/out" 2>"$T/err" </dev/null
	fi
	RC=$?
	ERR=$(cat "$T/err")
}

# check NAME TEST...: ok when TEST succeeds, else not ok with what was seen.
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name" && diag "rc $RC: $ERR" "seen: $SEEN"; fi
}

cpus='' want_cpus=''
if grep -qw cpuset "$CG/cgroup.controllers"; then
	cpus=', "cpus": "0"' want_cpus=0
fi
config /ocitest/c1 '{"memory": {"limit": 67108864, "reservation": 33554432}, "pids": {"limit": 64},
 "cpu": {"quota": 50000, "period": 500000'"$cpus"'},
 "devices": [{"allow": false, "access": "rwm"}, {"allow": true, "type": "c", "major": 1, "minor": 3, "access": "rw"}]}'
create c1
d=$CG/ocitest/c1
SEEN="low=$(cat $d/memory.low 2>&1) max=$(cat $d/memory.max 2>&1) cpu.max=$(cat $d/cpu.max 2>&1) pids=$(cat $d/pids.max 2>&1) cpus=$(cat $d/cpuset.cpus 2>/dev/null)"
check "oci: memory.reservation, limit, pids, the exact cpu quota and period${cpus:+ and cpu.cpus} read back from cgroup2 ($d); the device rules held without a devices cgroup" \
	[ "$RC $SEEN" = "0 low=33554432 max=67108864 cpu.max=50000 500000 pids=64 cpus=$want_cpus" ]
corral oci --root "$T/root" delete --force c1 >/dev/null 2>&1
SEEN=$(ls -d $d 2>&1)
check "oci: delete removes the cgroupsPath" [ ! -e "$d" ]

# what cgroup2 has no file for: refused by name, and no cgroup left
for f in 'memory": {"swappiness": 10}|linux.resources.memory.swappiness: cannot be applied: cgroup2 has no per-cgroup swappiness' \
	'network": {"classID": 1048577}|linux.resources.network.classID: cannot be applied: cgroup2 has no net_cls' \
	'cpu": {"realtimeRuntime": 950000}|linux.resources.cpu.realtimeRuntime: cannot be applied: cgroup2 has no real-time'; do
	config /ocitest/c2 "{\"${f%%|*}}"
	create c2
	corral oci --root "$T/root" delete --force c2 >/dev/null 2>&1
	SEEN=$(ls -d "$CG/ocitest/c2" 2>&1)
	case $ERR in *"${f#*|}"*) seen=1 ;; *) seen=0 ;; esac
	check "oci: ${f#*|}... (create fails, naming it; no cgroup left)" [ "$RC $seen" = "1 1" -a ! -e "$CG/ocitest/c2" ]
done
rmdir "$CG/ocitest" 2>/dev/null

# a user in the subtree delegated to it: the same files, in its own cgroup; outside it, the
# field it cannot apply is named
mkdir -p "$T/uroot"
chown 1000:1000 "$T/uroot"
chmod 0700 "$T/uroot"
chmod 0755 "$T"
config /delegated/oci-c3 '{"memory": {"limit": 67108864, "reservation": 33554432}, "pids": {"limit": 64}, "cpu": {"quota": 50000, "period": 500000}}' userns
create c3 user
d=$CG/delegated/oci-c3
SEEN="low=$(cat $d/memory.low 2>&1) max=$(cat $d/memory.max 2>&1) cpu.max=$(cat $d/cpu.max 2>&1) pids=$(cat $d/pids.max 2>&1)"
check "oci (user): memory.reservation, limit, pids and the exact cpu quota and period read back from its delegated cgroup ($d)" \
	[ "$RC $SEEN" = "0 low=33554432 max=67108864 cpu.max=50000 500000 pids=64" ]
# (the container is ended by root here: a user's delete --force in this guest does not find
# the container's processes, which is the lifecycle's business, not the resources')
su -s /bin/sh tester -c "corral oci --root $T/uroot delete --force c3" >/dev/null 2>&1
for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
sleep 1
rmdir "$d" 2>/dev/null
config /ocitest/c4 '{"memory": {"reservation": 33554432}}' userns
create c4 user
su -s /bin/sh tester -c "corral oci --root $T/uroot delete --force c4" >/dev/null 2>&1
SEEN=$(ls -d "$CG/ocitest/c4" 2>&1)
case $ERR in *"linux.resources.memory.reservation: cannot be applied"*) seen=1 ;; *) seen=0 ;; esac
check "oci (user): memory.reservation in a cgroupsPath outside its delegated subtree fails, naming the field" \
	[ "$RC $seen" = "1 1" -a ! -e "$CG/ocitest/c4" ]
rm -rf "$T"
echo "TAP: 1..$N"
exit "$FAILED"
