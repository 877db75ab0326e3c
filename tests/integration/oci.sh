#!/bin/bash
# oci: `corral oci`, the OCI runtime door, as far as it goes (docs/oci.md): --version, --help,
# `features` (the runtime-spec features JSON), the same entry under the name corral-oci, `state
# ID` over a state root, `create` reading the bundle's config.json (and then failing: running
# containers comes next), errors on stderr and as JSON lines in --log (where containerd and
# Docker read them), and the commands not there yet failing with a message. As root and as the
# unprivileged user. `state` is attacked the way a neighbour would: ids that climb out of the
# root, a root or container directory others can write or that is a symlink, a state.json that
# is a symlink or huge, a pid that now names another process; each beside a positive control
# that `state` reads in the same root.
# shellcheck disable=SC2016,SC2034 # the conditions of is are single-quoted, evaluated there
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

HOST_PIDS=()
VERSION=$("$CORRAL" --version | sed -n 's/^corral //p')
oci_cleanup() {
	local p
	for p in "${HOST_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
}
CR_CLEANUP_HOOK="${CR_CLEANUP_HOOK:+$CR_CLEANUP_HOOK; }oci_cleanup"

# oci MODE ARGS...: corral oci as MODE; stdout in $OUT, stderr in $ERR, the status in $RC.
oci() {
	local m=$1
	shift
	OUT=$(as "$m" "$CORRAL" oci "$@" 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
}

# json_get FILE-OR-TEXT PY-EXPR: the expression over the JSON document d, or "INVALID".
json_get() {
	python3 -c 'import json, sys
try:
    d = json.loads(sys.argv[1])
    print(eval(sys.argv[2]))
except Exception as e:
    print("INVALID", e)' "$1" "$2"
}

# start_time PID: field 22 of /proc/PID/stat.
start_time() {
	sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20
}

# own MODE PATH...: new 0700 directories of MODE's uid (made by the suite: CR_TMP is its own).
own() {
	local m=$1
	shift
	mkdir -m 0700 "$@" && chown "$(as "$m" id -u):$(as "$m" id -g)" "$@"
}

# put_state MODE ROOT ID STATUS PID [START]: write ROOT/ID/state.json as MODE, as `create` will.
put_state() {
	local m=$1 root=$2 id=$3 status=$4 pid=$5 start=${6:-0}
	as "$m" mkdir -p -m 0700 "$root/$id"
	printf '{"ociVersion":"1.2.0","id":"%s","status":"%s","pid":%s,"pid_start_time":%s,"bundle":"/srv/bundles/%s","annotations":{"io.example":"x"}}\n' \
		"$id" "$status" "$pid" "$start" "$id" | as "$m" tee "$root/$id/state.json" >/dev/null
}

for m in $MODES; do
	uid=$(as "$m" id -u)
	# --- --version, --help, features -------------------------------------------------------
	oci "$m" --version
	is "$m: corral oci --version names corral's version and the runtime-spec version" \
		'[ "$RC" = 0 ] && [ "$OUT" = "corral version $VERSION"$'"'\n'"'"spec: 1.2.0" ]'
	oci "$m" --help
	is "$m: corral oci --help lists features and state and the global options" \
		'[ "$RC" = 0 ] && [[ $OUT == *"features"* && $OUT == *"state ID"* && $OUT == *"--root DIR"* && $OUT == *"--log-format"* ]]'
	oci "$m" features
	is "$m: corral oci features: the runtime-spec features JSON (versions, no hooks yet, namespaces with user, 41 capabilities, seccomp on, AppArmor and SELinux off, corral's annotations)" \
		'[ "$RC" = 0 ] && [ "$(json_get "$OUT" "[d[\"ociVersionMin\"], d[\"ociVersionMax\"], d[\"hooks\"], \"user\" in d[\"linux\"][\"namespaces\"], len(d[\"linux\"][\"capabilities\"]), d[\"linux\"][\"seccomp\"][\"enabled\"], d[\"linux\"][\"apparmor\"][\"enabled\"], d[\"linux\"][\"selinux\"][\"enabled\"], sorted(k for k in d[\"annotations\"] if k.startswith(\"io.corral.\"))]")" = "['"'"'1.0.0'"'"', '"'"'1.2.0'"'"', [], True, 41, True, False, False, ['"'"'io.corral.landlock'"'"', '"'"'io.corral.tcp-connect'"'"', '"'"'io.corral.version'"'"']]" ]'
	ln -sf "$CORRAL" "$CR_TMP/bin/corral-oci"
	OUT=$(as "$m" "$CR_TMP/bin/corral-oci" features 2>&1)
	RC=$?
	is "$m: the same entry under the name corral-oci (for engines that take one binary path)" \
		'[ "$RC" = 0 ] && [ "$(json_get "$OUT" "d[\"ociVersionMax\"]")" = 1.2.0 ]'
	oci "$m" features extra
	is "$m: features with an argument: 125" '[ "$RC" = 125 ] && [[ $ERR == *"features takes no argument"* ]]'

	# --- global options and commands not there yet -------------------------------------------
	oci "$m" --systemd-cgroup state x
	is "$m: --systemd-cgroup is refused with the fix (125)" \
		'[ "$RC" = 125 ] && [[ $ERR == *"--systemd-cgroup: not supported by corral"*cgroupfs* ]]'
	oci "$m" --bogus state x
	is "$m: an unknown global option: 125" '[ "$RC" = 125 ] && [[ $ERR == *"unknown global option '"'"'--bogus'"'"'"* ]]'
	oci "$m" --root relative state x
	is "$m: a relative --root: 125" '[ "$RC" = 125 ] && [[ $ERR == *"--root: '"'"'relative'"'"' is not an absolute path"* ]]'
	oci "$m" --log-format xml state x
	is "$m: --log-format xml: 125" '[ "$RC" = 125 ] && [[ $ERR == *"is not text or json"* ]]'
	root=$CR_TMP/oci-root-$m
	log=$CR_TMP/oci-log-$m.json
	own "$m" "$root"
	touch "$log" && chown "$uid" "$log"
	oci "$m" --root "$root" --log "$log" --log-format json start c9
	is "$m: start is not there yet: it fails (exit 1) saying so, on stderr and as a JSON line in --log" \
		'[ "$RC" = 1 ] && [[ $ERR == "corral oci: start: not implemented yet"* ]] && [ "$(json_get "$(tail -n 1 "$log")" "[d[\"level\"], d[\"msg\"].startswith(\"start: not implemented yet\"), len(d[\"time\"])]")" = "['"'"'error'"'"', True, 20]" ]'

	# --- create: the options engines pass, and config.json read -------------------------------
	b=$CR_TMP/bundle-$m
	mkdir -p "$b/rootfs" "$b-rdt" "$b-link"
	cp "$CR_TESTS_DIR/unit/fixtures/oci/runc-spec.json" "$b/config.json"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["linux"]["intelRdt"] = {"closID": "x"}; json.dump(d, open(sys.argv[2], "w"))' \
		"$b/config.json" "$b-rdt/config.json"
	ln -s "$b/config.json" "$b-link/config.json"
	chmod -R a+rX "$b" "$b-rdt" "$b-link"
	oci "$m" --root "$root" --log "$log" --log-format json create --bundle "$b" --pid-file "$CR_TMP/pid" \
		--console-socket "$CR_TMP/sock" --preserve-fds 2 --no-pivot c9
	is "$m: create with runc spec's config.json and every option engines pass: read, then exit 1 saying running containers is not implemented yet (and logged)" \
		'[ "$RC" = 1 ] && [[ $ERR == *"config.json is one corral can read, but running containers is not implemented yet"* ]] && [ "$(json_get "$(tail -n 1 "$log")" "d[\"msg\"].startswith(\"create c9: \")")" = True ]'
	oci "$m" --root "$root" create --bundle "$b-rdt" c9
	is "$m: create with a field corral does not implement (linux.intelRdt): refused, the field named" \
		'[ "$RC" = 1 ] && [[ $ERR == *"config.json: linux.intelRdt: not supported by corral"* ]]'
	oci "$m" --root "$root" create --bundle "$b-link" c9
	is "$m: create with a config.json that is a symlink: refused" \
		'[ "$RC" = 1 ] && [[ $ERR == *"config.json: Too many levels of symbolic links"* ]]'
	oci "$m" --root "$root" create --bundle "$b" ../c9
	is "$m: create with an id that climbs out of the root: refused" '[ "$RC" = 1 ] && [[ $ERR == *"container id"* ]]'
	oci "$m" --root "$root" create --bundle "$b" --frob c9
	is "$m: create with an unknown option: 125" '[ "$RC" = 125 ] && [[ $ERR == *"create: unknown option '"'"'--frob'"'"'"* ]]'
	oci "$m" --root "$root" create --bundle "$b"
	is "$m: create without an id: 125" '[ "$RC" = 125 ] && [[ $ERR == *"usage: corral oci create"* ]]'
	oci "$m" frobnicate
	is "$m: an unknown command: 125" '[ "$RC" = 125 ] && [[ $ERR == *"unknown command '"'"'frobnicate'"'"'"* ]]'

	# --- state: positive controls -----------------------------------------------------------
	as_bg "$m" sleep 300
	spid=${HOST_PIDS[-1]}
	wait_for test -e "/proc/$spid/stat"
	put_state "$m" "$root" c1 created "$spid" "$(start_time "$spid")"
	oci "$m" --root "$root" state c1
	is "$m: state c1 (created, its init alive): the runtime-spec state JSON with its pid, bundle and annotations" \
		'[ "$RC" = 0 ] && [ "$(json_get "$OUT" "[list(d), d[\"status\"], d[\"pid\"] == $spid, d[\"bundle\"], d[\"annotations\"]]")" = "[['"'"'ociVersion'"'"', '"'"'id'"'"', '"'"'status'"'"', '"'"'pid'"'"', '"'"'bundle'"'"', '"'"'annotations'"'"'], '"'"'created'"'"', True, '"'"'/srv/bundles/c1'"'"', {'"'"'io.example'"'"': '"'"'x'"'"'}]" ]'
	put_state "$m" "$root" c2 running "$spid" "$(($(start_time "$spid") + 1))"
	oci "$m" --root "$root" state c2
	is "$m: a running container whose pid now names another process (start time differs) is stopped, without a pid" \
		'[ "$RC" = 0 ] && [ "$(json_get "$OUT" "[d[\"status\"], \"pid\" in d]")" = "['"'"'stopped'"'"', False]" ]'
	kill "$spid"
	wait "$spid" 2>/dev/null
	oci "$m" --root "$root" state c1
	is "$m: once its init is gone, c1 is stopped" \
		'[ "$RC" = 0 ] && [ "$(json_get "$OUT" "d[\"status\"]")" = stopped ]'
	if [ "$m" = user ] && [ "$(id -u)" -eq 0 ]; then
		xdg=$CR_TMP/xdg-$m
		own "$m" "$xdg"
		as "$m" mkdir -m 0700 "$xdg/corral-oci"
		put_state "$m" "$xdg/corral-oci" c3 stopped 0
		OUT=$(as "$m" env XDG_RUNTIME_DIR="$xdg" "$CORRAL" oci state c3 2>&1)
		RC=$?
		is "$m: without --root, a user's root is \$XDG_RUNTIME_DIR/corral-oci" \
			'[ "$RC" = 0 ] && [ "$(json_get "$OUT" "d[\"id\"]")" = c3 ]'
		OUT=$(as "$m" env -u XDG_RUNTIME_DIR "$CORRAL" oci state c3 2>&1)
		RC=$?
		is "$m: ...and without XDG_RUNTIME_DIR it says to set it or pass --root (exit 1)" \
			'[ "$RC" = 1 ] && [[ $OUT == *"XDG_RUNTIME_DIR is not set"*"--root DIR"* ]]'
	fi

	# --- state: attacks ---------------------------------------------------------------------
	oci "$m" --root "$root" --log "$log" --log-format json state nosuch
	is "$m: state of a container that does not exist: exit 1, named, and logged" \
		'[ "$RC" = 1 ] && [[ $ERR == *"container '"'"'nosuch'"'"' does not exist"* ]] && [ "$(json_get "$(tail -n 1 "$log")" "d[\"level\"]")" = error ]'
	mkdir -p "$CR_TMP/elsewhere-$m/c1"
	for id in ../c1 "../elsewhere-$m/c1" /etc/passwd . .. 'a b' ''; do
		oci "$m" --root "$root" state "$id"
		is "$m: state '$id': an id that is not a plain name is refused (exit 1)" \
			'[ "$RC" = 1 ] && [[ $ERR == *"container id"* ]] && [ -z "$OUT" ]'
	done
	put_state "$m" "$root" good stopped 0
	as "$m" ln -s "$root/good" "$root/link"
	oci "$m" --root "$root" state link
	is "$m: a container directory that is a symlink (to another container) is refused" \
		'[ "$RC" = 1 ] && [ -z "$OUT" ]'
	as "$m" mkdir -m 0700 "$root/lnk"
	as "$m" ln -s "$root/good/state.json" "$root/lnk/state.json"
	oci "$m" --root "$root" state lnk
	is "$m: a state.json that is a symlink is refused" '[ "$RC" = 1 ] && [ -z "$OUT" ] && [[ $ERR == *state.json* ]]'
	put_state "$m" "$root" other stopped 0
	as "$m" chmod 0777 "$root/other"
	oci "$m" --root "$root" state other
	is "$m: a container directory others can write (a neighbour could swap its state) is refused" \
		'[ "$RC" = 1 ] && [ -z "$OUT" ]'
	put_state "$m" "$root" big stopped 0
	as "$m" python3 -c 'import sys; open(sys.argv[1], "a").write(" " * (1 << 20))' "$root/big/state.json"
	oci "$m" --root "$root" state big
	is "$m: a state.json over 1 MiB is refused" '[ "$RC" = 1 ] && [[ $ERR == *"larger than"* ]]'
	put_state "$m" "$root" liar stopped 0
	sed 's/"id":"liar"/"id":"good"/' "$root/liar/state.json" | as "$m" tee "$root/liar/state.json.new" >/dev/null
	as "$m" mv "$root/liar/state.json.new" "$root/liar/state.json"
	oci "$m" --root "$root" state liar
	is "$m: a state.json that names another container is refused" \
		'[ "$RC" = 1 ] && [[ $ERR == *"names another container"* ]]'
	oci "$m" --root "$root" state good
	is "$m: ...positive control: 'good' in the same root is read" \
		'[ "$RC" = 0 ] && [ "$(json_get "$OUT" "[d[\"id\"], d[\"status\"]]")" = "['"'"'good'"'"', '"'"'stopped'"'"']" ]'
	wroot=$CR_TMP/oci-wroot-$m
	own "$m" "$wroot"
	put_state "$m" "$wroot" good stopped 0
	as "$m" chmod 0777 "$wroot"
	oci "$m" --root "$wroot" state good
	is "$m: a state root others can write is refused" '[ "$RC" = 1 ] && [ -z "$OUT" ]'
	if [ "$m" = user ] && [ "$(id -u)" -eq 0 ]; then
		froot=$CR_TMP/oci-foreign
		mkdir -m 0755 "$froot"
		put_state root "$froot" good stopped 0
		chmod 0755 "$froot/good" "$froot/good/state.json"
		oci "$m" --root "$froot" state good
		is "$m: a state root of another uid (root's) is refused" '[ "$RC" = 1 ] && [ -z "$OUT" ]'
	fi
	diag "$m: uid $uid"
done
