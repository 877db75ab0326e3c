#!/bin/bash
# cli.sh: corral's command line. --help/--version, exit status propagation (the command's own,
# 128+N, 124, 125, 126, 127), bad input refused with 125 and one message before anything runs,
# the JSON status (file and fd:N) and corral doctor. Sandboxed checks run in every mode.
# shellcheck disable=SC2016 # the sh -c scripts are single-quoted on purpose
# shellcheck source=SCRIPTDIR/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"


# --- JSON: python3, else jq, else those tests are skipped ---------------------------------------
# json_check FILE SPEC...: FILE holds exactly one JSON object (and a newline) and each SPEC holds:
#   PATH=JSON        the value at PATH (keys and array indexes joined by '.') equals JSON
#   PATH:keys=A,B    the object at PATH has exactly the keys A, B (in any order)
#   PATH:has=JSON    the array at PATH contains JSON
#   PATH:type=T      the value at PATH is a T (object array string number boolean null)
#   PATH:keyorder=A,B  the object at PATH has exactly the keys A, B, in that order
# Prints what does not hold on stderr.
if command -v python3 >/dev/null && python3 -c 'import json' 2>/dev/null; then
	JSON_TOOL=python3
	cat >"$CR_TMP/json-check.py" <<'PY'
import json, re, sys

def get(doc, path):
    for part in path.split(".") if path else []:
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc

def type_name(v):
    return {dict: "object", list: "array", str: "string", bool: "boolean",
            type(None): "null"}.get(type(v), "number")

text = open(sys.argv[1]).read()
doc = json.loads(text)  # one JSON value and nothing else
bad = [] if isinstance(doc, dict) else ["not an object"]
for spec in sys.argv[2:]:
    m = re.match(r"^([^:=]*)(?::(keys|keyorder|has|type))?=(.*)$", spec, re.S)
    path, op, want = m.group(1), m.group(2), m.group(3)
    try:
        got = get(doc, path)
    except (KeyError, IndexError, TypeError, ValueError):
        bad.append("%s: missing" % path)
        continue
    if op == "keys":
        ok = isinstance(got, dict) and sorted(got) == sorted(want.split(",") if want else [])
    elif op == "keyorder":
        ok = isinstance(got, dict) and list(got) == (want.split(",") if want else [])
    elif op == "has":
        ok = isinstance(got, list) and json.loads(want) in got
    elif op == "type":
        ok = type_name(got) == want
    else:
        ok = got == json.loads(want) and type_name(got) == type_name(json.loads(want))
    if not ok:
        bad.append("%s%s: got %s, want %s" % (path, ":" + op if op else "", json.dumps(got), want))
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	json_check() { python3 "$CR_TMP/json-check.py" "$@"; }
elif command -v jq >/dev/null; then
	JSON_TOOL=jq
	json_check() {
		local file=$1 spec path op want p bad=0
		shift
		if ! jq -e 'type == "object"' "$file" >/dev/null 2>&1 || [ "$(jq -c . "$file" | wc -l)" != 1 ]; then
			echo "not one JSON object" >&2
			return 1
		fi
		for spec in "$@"; do
			path=${spec%%=*} want=${spec#*=} op=
			if [[ $path == *:* ]]; then op=${path#*:} path=${path%%:*}; fi
			p=$(jq -cn --arg p "$path" '$p | if . == "" then [] else split(".") | map(tonumber? // .) end')
			case $op in
			keys) jq -e --argjson p "$p" --arg w "$want" \
				'(getpath($p) | keys) == ($w | if . == "" then [] else split(",") end | sort)' "$file" ;;
			keyorder) jq -e --argjson p "$p" --arg w "$want" \
				'(getpath($p) | keys_unsorted) == ($w | if . == "" then [] else split(",") end)' "$file" ;;
			has) jq -e --argjson p "$p" --argjson w "$want" 'getpath($p) | index([$w]) != null' "$file" ;;
			type) jq -e --argjson p "$p" --arg w "$want" 'getpath($p) | type == $w' "$file" ;;
			*) jq -e --argjson p "$p" --argjson w "$want" 'getpath($p) == $w and (getpath($p) | type) == ($w | type)' "$file" ;;
			esac >/dev/null 2>&1 || {
				echo "$spec: got $(jq -c --argjson p "$p" 'getpath($p)' "$file" 2>&1)" >&2
				bad=1
			}
		done
		return $bad
	}
else
	JSON_TOOL=
fi

# jres NAME FILE SPEC...: a test that FILE is one JSON object matching each SPEC.
jres() {
	local name=$1 file=$2
	shift 2
	if [ -z "$JSON_TOOL" ]; then
		skip "$name" "neither python3 nor jq is installed to read the JSON"
	elif json_check "$file" "$@" 2>"$CR_TMP/json-err"; then
		ok "$name"
	else
		not_ok "$name"
		diag "$(cat "$CR_TMP/json-err")" "json: $(cat "$file" 2>&1)" "corral: $ERR"
	fi
}

# one_line_error SUBSTRING: corral's stderr ($ERR) is exactly one "corral: " line with SUBSTRING.
one_line_error() {
	[ "$(wc -l <<<"$ERR")" = 1 ] && [[ $ERR == "corral: "* ]] && [[ $ERR == *"$1"* ]]
}

VERSION=$("$CORRAL" --version | sed -n 's/^corral //p')
STATUS_KEYS=version,corral_version,driver,command,outcome,exit_code,signal,signal_name,timed_out,oom_killed,pids_limit_hit,duration_ms,degraded,enforced,error,profile,session,decision,grant,request,via
# The command's environment without --setenv/--keep-env, as JSON array items, in its order.
BASE_ENV='"PATH"'
[ -z "${TERM+x}" ] || BASE_ENV+=',"TERM"'
[ -z "${LANG+x}" ] || BASE_ENV+=',"LANG"'
BASE_ENV+=',"HOME"'
unset KEEPME
CR_CLEANUP_HOOK=
ENFORCED_KEYS=namespaces,uid_map,gid_map,network,loopback,root,read_only,writable,pinned,idmapped,caches,hidden,private,tmpfs,capabilities,no_new_privs,seccomp,new_session,environment,path_hidden,unreadable,secrets,kept_fds,hostname,init_pid,machine_id,limits,landlock,degraded,missing_layers

# --- help and version (no sandbox) --------------------------------------------------------------

OUT=$("$CORRAL" --help 2>"$CR_TMP/stderr")
RC=$?
h=$("$CORRAL" -h 2>/dev/null)
hh=$("$CORRAL" help 2>/dev/null)
if [ "$RC" = 0 ] && [[ $OUT == "Usage: corral COMMAND"* ]] && [[ $OUT == *"run [OPTIONS]"* ]] &&
	[[ $OUT == *"doctor [--json]"* ]] && [ "$h" = "$OUT" ] && [ "$hh" = "$OUT" ] && [ ! -s "$CR_TMP/stderr" ]; then
	ok "corral --help, -h and help exit 0 and print the usage (run, doctor) on stdout"
else
	not_ok "corral --help, -h and help exit 0 and print the usage (run, doctor) on stdout"
	diag "rc=$RC" "$OUT"
fi

OUT=$("$CORRAL" run --help 2>"$CR_TMP/stderr")
RC=$?
missing=
for o in --workspace --cwd --ro --rw --hide --net= --map-root --uid --gid --hostname --setenv \
	--keep-env --keep-fd --timeout --kill-after --json-status "Exit status" 124 125 126 127; do
	[[ $OUT == *"$o"* ]] || missing+=" $o"
done
if [ "$RC" = 0 ] && [[ $OUT == "Usage: corral run "* ]] && [ -z "$missing" ] &&
	[ "$("$CORRAL" help run)" = "$OUT" ] && [ ! -s "$CR_TMP/stderr" ]; then
	ok "corral run --help and corral help run exit 0 and list every option and the exit codes"
else
	not_ok "corral run --help and corral help run exit 0 and list every option and the exit codes"
	diag "rc=$RC missing:$missing" "$OUT"
fi

# Every long option a command's --help lists is in its man page (docs/corral.1.scd, the bwrap
# personality's in docs/corral-bwrap.1.scd), and every long option the getopt tables of run, serve
# and pool take is in that command's --help: an option cannot ship undocumented. The scdoc source
# is read, so this needs no scdoc.
DOCS=$CR_TESTS_DIR/../docs
SRC=$CR_TESTS_DIR/..
missing=
for cmd in "" run profile session check serve pool doctor oci bwrap; do
	page=$DOCS/corral.1.scd
	[ "$cmd" = bwrap ] && page=$DOCS/corral-bwrap.1.scd
	if [ -n "$cmd" ]; then text=$("$CORRAL" help "$cmd" 2>&1); else text=$("$CORRAL" --help 2>&1); fi
	while read -r o; do
		grep -qE -- "$o([^a-z0-9-]|\$)" "$page" || missing+=" ${cmd:-corral}:$o"
	done < <(grep -oE -- '--[a-z][a-z0-9-]*' <<<"$text" | sort -u)
done
n=0
for pair in run:launcher/policy/cli.c serve:launcher/serve/serve.c pool:launcher/pool/pool-cmd.c; do
	text=$("$CORRAL" help "${pair%%:*}" 2>&1)
	while read -r o; do
		n=$((n + 1))
		grep -qE -- "--$o([^a-z0-9-]|\$)" <<<"$text" || missing+=" ${pair%%:*}(parser):--$o"
	done < <(grep -oE '\{ ?"[a-z][a-z0-9-]*", (no|required|optional)_argument' "$SRC/${pair#*:}" |
		cut -d'"' -f2)
done
[ "$n" -ge 45 ] || missing+=" (only $n options found in the getopt tables: has their format changed?)"
check "every option of each command's --help is in its man page, and every option run, serve and pool parse is in their --help ($n parsed)" \
	eval '[ -z "$missing" ]'
[ -z "$missing" ] || diag "missing:$missing"

OUT=$("$CORRAL" --version)
RC=$?
# shellcheck disable=SC2034 # used in the eval below
v2=$("$CORRAL" -V)
check "corral --version and -V exit 0 and print 'corral X.Y.Z' ($OUT)" \
	eval '[ "$RC" = 0 ] && [[ $OUT =~ ^corral\ [0-9]+\.[0-9]+\.[0-9]+ ]] && [ "$v2" = "$OUT" ]'

for args in "" "frob" "help frob"; do
	# shellcheck disable=SC2086 # split on purpose
	OUT=$("$CORRAL" $args 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
	case $args in
	"") want="Usage: corral COMMAND" ;;
	frob) want="corral: unknown command 'frob'" ;;
	*) want="corral: help: unknown command 'frob'" ;;
	esac
	check "corral ${args:-(no arguments)} exits 125 with '$want' on stderr" \
		eval '[ "$RC" = 125 ] && [[ $ERR == "$want"* ]] && [ -z "$OUT" ]'
done

# --- sandboxed ----------------------------------------------------------------------------------

for mode in $MODES; do
	ws=$(mkws "$mode")
	uid=$(host_uid "$mode")

	# Exit status: the command's own, 128+N for a signal.
	for c in "exit 0:0" "exit 42:42" "exit 125:125" 'kill -TERM $$:143' 'kill -KILL $$:137'; do
		sb "$mode" "$ws" -- sh -c "${c%:*}"
		check "$mode: '${c%:*}' inside gives exit status ${c##*:}" eval '[ "$RC" = "${c##*:}" ] && [ -z "$ERR" ]'
	done

	# 127 and 126 name the command.
	sb "$mode" "$ws" -- corral-no-such-command arg
	check "$mode: a command not found gives 127 and one message naming it" \
		eval '[ "$RC" = 127 ] && one_line_error "corral-no-such-command"'
	sb "$mode" "$ws" -- "$ws/no/such/file"
	check "$mode: a missing absolute path gives 127 and one message naming it" \
		eval '[ "$RC" = 127 ] && one_line_error "$ws/no/such/file"'
	printf '#!/bin/sh\necho ran\n' >"$ws/not-executable.sh"
	chmod 0644 "$ws/not-executable.sh"
	sb "$mode" "$ws" -- "$ws/not-executable.sh"
	check "$mode: a file without execute permission gives 126 and one message naming it (it did not run)" \
		eval '[ "$RC" = 126 ] && one_line_error "not-executable.sh" && [ -z "$OUT" ]'
	sb "$mode" "$ws" -- "$ws"
	check "$mode: a directory as the command gives 126" eval '[ "$RC" = 126 ] && one_line_error "$ws"'

	# The command is looked up with the sandbox's PATH; an empty entry is the working directory.
	printf '#!/bin/sh\necho found-in-cwd\n' >"$ws/corral-local-tool"
	chmod 0755 "$ws/corral-local-tool"
	sb "$mode" "$ws" --setenv PATH=:/usr/bin:/bin -- corral-local-tool
	OUT="leading=$RC:$OUT"
	o=$OUT
	sb "$mode" "$ws" --setenv PATH=/usr/bin:/bin: -- corral-local-tool
	o+=" trailing=$RC:$OUT"
	sb "$mode" "$ws" --setenv PATH=/usr/bin:/bin -- corral-local-tool
	o+=" none=$RC"
	check "$mode: an empty PATH entry, leading or trailing, is the working directory; without one the tool is not found ($o)" \
		eval '[ "$o" = "leading=0:found-in-cwd trailing=0:found-in-cwd none=127" ]'

	# 124: timeout, whether the command obeys SIGTERM or not; a faster command keeps its own.
	start=$(date +%s%N)
	sb "$mode" "$ws" --timeout 0.5 -- sleep 30
	ms=$((($(date +%s%N) - start) / 1000000))
	check "$mode: --timeout 0.5 on sleep 30 gives 124 after ${ms}ms (0.5-2.5s) and says so" \
		eval '[ "$RC" = 124 ] && [ "$ms" -ge 450 ] && [ "$ms" -lt 2500 ] && one_line_error "timed out"'
	start=$(date +%s%N)
	sb "$mode" "$ws" --timeout 0.3 --kill-after 0.3 -- sh -c 'trap "" TERM; sleep 30; echo survived'
	ms=$((($(date +%s%N) - start) / 1000000))
	check "$mode: --timeout 0.3 --kill-after 0.3 on a command ignoring SIGTERM gives 124 after ${ms}ms (0.55-2.5s)" \
		eval '[ "$RC" = 124 ] && [ "$ms" -ge 550 ] && [ "$ms" -lt 2500 ] && [ -z "$OUT" ]'
	sb "$mode" "$ws" --timeout 10 -- sh -c 'exit 3'
	check "$mode: a command finishing before --timeout keeps its own status (3)" eval '[ "$RC" = 3 ]'

	# Working directory: the current one if inside the workspace, else the workspace; --cwd.
	mkdir "$ws/sub"
	o1=$(cd "$ws/sub" && as "$mode" "$CORRAL" run --workspace "$ws" -- pwd 2>&1)
	o2=$(cd / && as "$mode" "$CORRAL" run --workspace "$ws" -- pwd 2>&1)
	sb "$mode" "$ws" --cwd /tmp -- pwd
	check "$mode: the working directory is the current one inside the workspace ($o1), else the workspace ($o2), or --cwd ($OUT)" \
		eval '[ "$o1" = "$ws/sub" ] && [ "$o2" = "$ws" ] && [ "$OUT" = /tmp ]'

	# Option syntax: --opt=value, --opt value, unambiguous prefixes, the last --workspace.
	ws2=$(mkws "$mode")
	sb "$mode" "$ws" --net host --hostn=box --workspace="$ws2" -- sh -c 'uname -n; pwd -P'
	check "$mode: '--net host', an abbreviated '--hostn=box' and a second '--workspace=DIR' (the last counts) are understood" \
		eval '[ "$RC" = 0 ] && [ "$OUT" = "box"$'"'\\n'"'"$ws2" ]'

	# -v: the mount plan and stages on stderr, nothing else changes.
	sb "$mode" "$ws" -v -- sh -c 'exit 5'
	check "$mode: -v prints 'corral: debug:' lines (the mount plan) on stderr and keeps the exit status" \
		eval '[ "$RC" = 5 ] && [[ $ERR == *"corral: debug: mount plan"* ]] && ! grep -qv "^corral: " <<<"$ERR"'

	# Bad input: 125, one specific message, and the command never ran.
	bad() {
		local name=$1 want=$2
		shift 2
		rm -f "$ws/ran"
		sb "$mode" "$ws" "$@" -- "$PROBE" write "$ws/ran" 9>&-
		if [ "$RC" = 125 ] && one_line_error "$want" && [ ! -e "$ws/ran" ] && [ -z "$OUT" ]; then
			ok "$mode: $name: 125, \"$want\", nothing run"
		else
			not_ok "$mode: $name: 125, \"$want\", nothing run"
			diag "rc=$RC ran=$([ -e "$ws/ran" ] && echo yes || echo no)" "stdout: $OUT" "stderr: $ERR"
		fi
	}
	mkdir -p "$ws/dir"
	bad "nonexistent --workspace" "--workspace '$CR_TMP/does-not-exist': no such file or directory" \
		--workspace "$CR_TMP/does-not-exist"
	bad "a --workspace path with a newline" "--workspace: the path is empty, too long or contains a control character" \
		--workspace "$ws"$'\n'"x"
	bad "a --ro path with a newline" "--ro: the path is empty, too long or contains a control character" \
		--ro "$ws/dir"$'\n'
	bad "a relative --cwd" "--cwd 'relative/dir': must be an absolute path" --cwd relative/dir
	bad "--ro X --rw X" "--rw '$ws/dir' conflicts with --ro of the same path" --ro "$ws/dir" --rw "$ws/dir"
	bad "--rw X --hide X" "--hide '$ws/dir' conflicts with --rw of the same path" --rw "$ws/dir" --hide "$ws/dir"
	bad "--ro of the workspace" "--ro '$ws' conflicts with --workspace" --ro "$ws"
	bad "--hide of the workspace" "--hide '$ws' conflicts with --workspace" --hide "$ws"
	bad "a missing --ro path" "--ro '$ws/nope': no such file or directory" --ro "$ws/nope"
	bad "an unknown option" "unknown option '--bogus'" --bogus
	bad "an ambiguous abbreviation (--h)" "unknown option '--h'" --h x
	bad "--net=bogus" "--net: unknown mode 'bogus' (expected none or host;" --net=bogus
	bad "--keep-fd of a closed descriptor" "--keep-fd 9: descriptor 9 is not open" --keep-fd 9
	bad "--keep-fd that is not a number" "--keep-fd: 'x' is not a descriptor number" --keep-fd x
	bad "--keep-env with =" "--keep-env: 'A=B' is not a variable name" --keep-env A=B
	bad "--json-status into a missing directory" "--json-status '$CR_TMP/no-dir/status.json': No such file or directory" \
		--json-status "$CR_TMP/no-dir/status.json"
	bad "--json-status fd:9, closed" "--json-status fd:9: descriptor 9 is not open" --json-status fd:9
	exec 7>"$CR_TMP/fd7"
	bad "--json-status fd:7 also passed with --keep-fd 7" "--keep-fd 7: that descriptor receives the JSON status" \
		--json-status fd:7 --keep-fd 7
	exec 7>&-
	bad "--timeout 0" "--timeout: '0' is not a" --timeout 0
	bad "--timeout 1s" "--timeout: '1s' is not a" --timeout 1s
	bad "--kill-after -1" "--kill-after: '-1' is not a" --timeout 1 --kill-after -1
	bad "--hostname with a space" "--hostname 'a b': use 1-64 letters, digits, '-' and '.'" --hostname 'a b'
	bad "--hostname starting with -" "--hostname '-x': use 1-64 letters, digits, '-' and '.'" --hostname -x
	bad "--setenv without =" "--setenv: 'NOVALUE' is not of the form KEY=VALUE" --setenv NOVALUE
	bad "--workspace /" "--workspace cannot be /" --workspace /
	bad "--ro /" "--ro /: the root itself cannot be bound or hidden" --ro /
	bad "--ro under /proc" "paths under /proc are made by the sandbox itself" --ro /proc/self
	bad "--hide under /dev" "paths under /dev are made by the sandbox itself" --hide /dev/null
	if [ "$mode" = user ]; then
		bad "--uid as a normal user" "--uid/--gid choose the host ids of a sandbox started by root" --uid 1000
		bad "--gid as a normal user" "--uid/--gid choose the host ids of a sandbox started by root" --gid 1000
		if [ "$(id -u)" -eq 0 ]; then
			mkdir -p "$CR_TMP/root-only"
			chmod 0755 "$CR_TMP/root-only"
			bad "--json-status into a directory it may not write" \
				"--json-status '$CR_TMP/root-only/status.json': Permission denied" \
				--json-status "$CR_TMP/root-only/status.json"
		fi
	else
		bad "--uid 0" "--uid: '0' is not a usable non-zero id" --uid 0
		bad "--gid 65535" "--gid: '65535' is not a usable non-zero id" --gid 65535
	fi
	sb "$mode" "$ws"
	check "$mode: no command: 125 and 'no command given'" eval '[ "$RC" = 125 ] && one_line_error "no command given"'
	sb "$mode" "$ws" -- ''
	check "$mode: an empty command name: 125" eval '[ "$RC" = 125 ] && one_line_error "the command name is empty"'
	OUT=$(cd "$ws" && as "$mode" "$CORRAL" run -w 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
	check "$mode: an option without its argument: 125 and \"missing argument for '-w'\"" \
		eval '[ "$RC" = 125 ] && one_line_error "missing argument for '"'-w'"'"'

	# The JSON status, to a file (truncated first) and to fd:N.
	st=$ws/status.json
	head -c 20000 /dev/zero | tr '\0' x >"$st"
	give "$mode" "$st"
	sb "$mode" "$ws" --json-status "$st" -- sh -c 'exit 3'
	jres "$mode: --json-status FILE after 'exit 3': one object, the documented keys in order, the documented values" "$st" \
		":keyorder=$STATUS_KEYS" version=1 "corral_version=\"$VERSION\"" 'driver="linux"' \
		'command=["sh","-c","exit 3"]' 'outcome="exited"' exit_code=3 signal=null signal_name=null \
		timed_out=false duration_ms:type=number enforced:type=object error=null
	jres "$mode: its enforced object has exactly the documented keys and values" "$st" \
		enforced:keys=$ENFORCED_KEYS 'enforced.namespaces=["user","mount","pid","net","ipc","uts","cgroup"]' \
		"enforced.uid_map={\"inside\":$uid,\"outside\":$uid}" "enforced.gid_map={\"inside\":$(host_gid "$mode"),\"outside\":$(host_gid "$mode")}" \
		'enforced.network="none"' enforced.loopback=true 'enforced.root="tmpfs+pivot_root"' \
		'enforced.capabilities="none"' enforced.no_new_privs=true enforced.new_session=true \
		'enforced.seccomp.mode="default"' 'enforced.seccomp.profile="default"' \
		"enforced.seccomp.architectures=[\"$(uname -m)\"]" enforced.seccomp.spawn=true enforced.seccomp.setid=true \
		'enforced.seccomp.cache="none"' \
		"enforced.environment=[$BASE_ENV]" enforced.kept_fds=[] \
		'enforced.hostname="corral"' enforced.pinned=[] enforced.idmapped=[]
	OUT=$(stat -c %a "$st")
	check "$mode: the --json-status file was created/truncated, mode 0644 (umask $(umask))" \
		eval '[ "$OUT" = 644 ] || [ "$(umask)" != 0022 ]'

	# read_only/writable/hidden/private: what was mounted, in mount order: the host's system
	# directories (those that are not merged-/usr symlinks), then the workspace and the user's
	# paths parent-first, command-line order at equal depth (the workspace counts as first).
	deep=$ws/a/b/deep shallow=$CR_TMP/shallow-$mode rwsh=$(mktemp -d /tmp/corral-cli-rw.XXXXXX)
	CR_CLEANUP_HOOK+="rm -rf '$rwsh';"
	mkdir -p "$deep" "$shallow" "$ws/hid"
	give "$mode" "$rwsh"
	sb "$mode" "$ws" --json-status "$st" --rw "$rwsh" --ro "$deep" --ro "$shallow" --hide "$ws/hid" -- true
	sys_ro=
	for d in /usr /bin /sbin /lib /lib32 /lib64 /libx32 /etc /opt; do
		[ -e "$d" ] && [ ! -L "$d" ] && sys_ro+="\"$d\","
	done
	home=$(as "$mode" sh -c 'echo "$HOME"')
	# sandbox() passes --ro $BIN first. Depths: $rwsh 2; $ws, $BIN, $shallow 3; hid 4; deep 6.
	jres "$mode: enforced.read_only/writable/hidden/private list what was mounted, parents first" "$st" \
		"enforced.read_only=[$sys_ro\"$BIN\",\"$shallow\",\"$deep\"]" "enforced.writable=[\"$rwsh\",\"$ws\"]" \
		"enforced.hidden=[\"$ws/hid\"]" "enforced.private=[\"/tmp\",\"$home\"]" exit_code=0

	echo kept >"$CR_TMP/kept-$mode"
	sb "$mode" "$ws" --json-status fd:7 --net=host --map-root --hostname box --keep-fd 8 \
		--keep-env KEEPME --setenv FOO=1 -- "$PROBE" fds 7>"$st" 8<"$CR_TMP/kept-$mode"
	fds=$OUT
	jres "$mode: --json-status fd:7 with --net=host --map-root --hostname --keep-fd --setenv reports them" "$st" \
		'outcome="exited"' exit_code=0 \
		'enforced.namespaces=["user","mount","pid","ipc","uts","cgroup"]' 'enforced.network="host"' \
		enforced.loopback=false "enforced.uid_map={\"inside\":0,\"outside\":$uid}" \
		'enforced.hostname="box"' enforced.kept_fds=[8] \
		"enforced.environment=[$BASE_ENV,\"FOO\"]"
	check "$mode: the --json-status descriptor (7) is not passed to the command: it holds 0 1 2 8 ($fds)" \
		eval '[ "$fds" = "0 1 2 8" ]'

	sb "$mode" "$ws" --json-status "$st" -- sh -c 'kill -TERM $$'
	jres "$mode: JSON status of a command killed by SIGTERM" "$st" 'outcome="signaled"' exit_code=143 \
		signal=15 'signal_name="SIGTERM"' timed_out=false enforced:type=object error=null

	sb "$mode" "$ws" --json-status "$st" --timeout 0.2 -- sleep 30
	jres "$mode: JSON status of a timeout the command obeyed: SIGTERM" "$st" 'outcome="timed_out"' \
		exit_code=124 timed_out=true signal=15 'signal_name="SIGTERM"' enforced:type=object error=null

	sb "$mode" "$ws" --json-status "$st" --timeout 0.2 --kill-after 0 -- sh -c 'trap "" TERM; sleep 30'
	jres "$mode: JSON status of a timeout with --kill-after 0 and SIGTERM ignored: SIGKILL" "$st" \
		'outcome="timed_out"' exit_code=124 timed_out=true signal=9 'signal_name="SIGKILL"'

	sb "$mode" "$ws" --json-status "$st" -- corral-no-such-command
	jres "$mode: JSON status of a command not found" "$st" 'outcome="exec_failed"' exit_code=127 \
		'error.stage="exec"' error.errno=2 'error.errno_name="ENOENT"' error.message:type=string \
		enforced:type=object

	sb "$mode" "$ws" --json-status "$st" -- "$ws/not-executable.sh"
	jres "$mode: JSON status of a command that cannot be executed" "$st" 'outcome="exec_failed"' \
		exit_code=126 'error.stage="exec"' error.errno=13 'error.errno_name="EACCES"'

	sb "$mode" "$ws" --json-status "$st" --cwd /no/such/dir -- true
	jres "$mode: JSON status of a setup failure (--cwd missing inside)" "$st" 'outcome="setup_failed"' \
		exit_code=125 'error.stage="cwd"' error.errno=2 'error.errno_name="ENOENT"' enforced=null \
		signal=null

	sb "$mode" "$ws" --json-status "$st" --workspace "$CR_TMP/does-not-exist" -- true
	jres "$mode: JSON status of refused options (missing --workspace): stage options, duration 0" "$st" \
		'outcome="setup_failed"' exit_code=125 'error.stage="options"' error.errno=2 enforced=null \
		duration_ms=0 'command=["true"]'

	sb "$mode" "$ws" --json-status "$st" -- sh -c 'exit 125'
	jres "$mode: JSON status tells the command's own 125 from corral's" "$st" 'outcome="exited"' \
		exit_code=125 error=null enforced:type=object

	# corral doctor: human and JSON, the same verdict as the exit status.
	OUT=$(as "$mode" "$CORRAL" doctor 2>&1)
	RC=$?
	check "$mode: corral doctor exits 0, says ready and lists user_namespaces" \
		eval '[ "$RC" = 0 ] && [[ $OUT == *", driver linux: ready"* ]] && [[ $OUT == *user_namespaces* ]]'
	as "$mode" "$CORRAL" doctor --json >"$CR_TMP/doctor.json" 2>"$CR_TMP/stderr"
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
	jres "$mode: corral doctor --json: ready true (exit $RC), the documented checks (one per limit), user_namespaces ok, a trial run ok" \
		"$CR_TMP/doctor.json" ":keyorder=corral_version,driver,ready,state_dir,checks" ready=true \
		"corral_version=\"$VERSION\"" 'driver="linux"' checks.0:keys=name,state,required,value,detail,fix \
		'checks.0.name="backend"' 'checks.1.name="user_namespaces"' 'checks.1.state="ok"' \
		checks.1.required=true 'checks.2.name="mount_api"' 'checks.3.name="landlock"' \
		'checks.4.name="seccomp"' 'checks.5.name="cgroup"' checks.5.required=false \
		'checks.6.name="limit_memory"' 'checks.7.name="limit_memory_swap"' \
		'checks.8.name="limit_pids"' 'checks.9.name="limit_cpu"' 'checks.10.name="limit_cpu_time"' \
		'checks.11.name="limit_file_size"' 'checks.12.name="limit_open_files"' \
		checks.12.required=false 'checks.12.state="ok"' 'checks.12.value="rlimit"' \
		'checks.13.name="cgroup_delegation"' checks.13.required=false \
		'checks.14.name="state_dir"' 'checks.14.state="ok"' 'checks.14.value="XDG_STATE_HOME"' \
		checks.14.required=false state_dir:type=string \
		'checks.15.name="trial_run"' 'checks.15.state="ok"' checks.15.required=true
	check "$mode: corral doctor --json exits 0 with ready true" eval '[ "$RC" = 0 ]'
	OUT=$(as "$mode" "$CORRAL" doctor --bogus 2>&1)
	RC=$?
	check "$mode: corral doctor --bogus: 125" eval '[ "$RC" = 125 ] && [[ $OUT == "corral: doctor: unknown argument"* ]]'
done

# Started with stdin and stdout closed, corral must not hand its own pipes to the command as
# descriptors 0 and 1: they are /dev/null, and the status still arrives. Control: the same run
# with them open sees the caller's files.
for mode in $MODES; do
	ws=$(mkws "$mode")
	st=$ws/closed.json
	give "$mode" "$ws"
	(cd "$ws" && as "$mode" "$CORRAL" run --workspace "$ws" --json-status "$st" -- \
		sh -c 'x=$(readlink /proc/$$/fd/0 /proc/$$/fd/1); echo $x >"$PWD/fds"' 0<&- 1>&-)
	RC=$?
	OUT=$(tr '\n' ' ' <"$ws/fds" 2>/dev/null)
	check "$mode: with stdin and stdout closed, the command gets /dev/null on 0 and 1 (got: $OUT) and exits 0" \
		eval '[ "$RC" = 0 ] && [ "$OUT" = "/dev/null /dev/null " ] && grep -q "\"outcome\":\"exited\"" "$st"'
	(cd "$ws" && as "$mode" "$CORRAL" run --workspace "$ws" -- \
		sh -c 'x=$(readlink /proc/$$/fd/0); echo $x >"$PWD/fds"' <"$ws/closed.json")
	OUT=$(<"$ws/fds")
	check "$mode: positive control: an open stdin is passed through ($OUT)" eval '[ "$OUT" = "$ws/closed.json" ]'
done
