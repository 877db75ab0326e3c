#!/bin/bash
# caches.sh: named caches (--cache NAME=PATH, [filesystem] cache = NAME:PATH) and the ci profile's
# HOME toolchains. A cache written in one run is read in the next; as root it is idmapped (the
# sandbox writes, the files stay root's on the host); another name does not see it. Attacks: bad
# names (slash, "..", "../../ledger", empty, control characters, too long) and paths, a symlink
# planted where the cache's directory goes, links and ".." from inside the cache toward the
# ledger and the sessions, a state directory shown read-only by a home workspace. The ci profile:
# its npm, go, pip and cargo caches writable in both modes; ~/.npmrc and cargo's credentials
# hidden; PATH keeps the toolchains ci shows and names each entry it leaves out (stderr, status);
# as root, `cargo test` in a fresh project and pyenv's python through the real toolchains.
# shellcheck disable=SC2016 # the sh -c scripts are single-quoted on purpose
# shellcheck source=SCRIPTDIR/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

# json FILE EXPR: a Python expression over the status `s`, printed.
json() {
	python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}

# A HOME of MODE's own (the user's: 65534's; root's: a fresh 0700 directory of root's).
new_home() {
	local h
	h=$(mktemp -d "$CR_TMP/home.XXXXXX")
	chmod 0700 "$h"
	[ "$1" = root ] || give "$1" "$h"
	echo "$h"
}

# hb MODE WS HOME [OPTS] -- CMD...: sb with HOME (and PATH=$HPATH if set) for corral.
hb() {
	local mode=$1 ws=$2 home=$3
	shift 3
	OUT=$(cd "$ws" && as "$mode" env HOME="$home" PATH="${HPATH:-$PATH}" \
		"$CORRAL" run --workspace "$ws" --ro "$BIN" --grant once "$@" 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
}

stdir=$CR_TMP/status
mkdir -m 1777 "$stdir"
for mode in $MODES; do
	state=$CR_TMP/state-$(as "$mode" id -u)/corral
	owner=$(as "$mode" id -u)
	ws=$(mkws "$mode")
	home=$(new_home "$mode")

	# --- run 1 writes, run 2 reads; the directory is corral's, in the state directory ---
	hb "$mode" "$ws" "$home" --cache t1='~/.cache/t1' --json-status "$stdir/s1-$mode.json" -- sh -c '
		echo hello > ~/.cache/t1/f; echo w=$?; mkdir -p ~/.cache/t1/d/e; echo mkdir=$?'
	OUT+=$'\n'"host=$(stat -c %u:%a "$state/caches/t1" "$state/caches/t1/f" "$state/caches/t1/d/e" 2>&1 | tr '\n' ' ')"
	OUT+=$'\n'"status=$(json "$stdir/s1-$mode.json" '[(c["name"], c["path"], c["dir"], c["idmapped"]) for c in s["enforced"]["caches"]]' 2>&1)"
	res "$mode: a cache written in run 1: its directory is STATE/caches/t1, 0700, and what the sandbox made there is the invoking user's ($owner) on the host; the status names it" \
		w=0 mkdir=0 "host=$owner:700 $owner:644 $owner:755 " \
		"status=[('t1', '$home/.cache/t1', '$state/caches/t1', $([ "$mode" = root ] && echo True || echo False))]" RC=0
	hb "$mode" "$ws" "$home" --cache t1='~/.cache/t1' -- sh -c 'echo read=$(cat ~/.cache/t1/f)'
	res "$mode: run 2 reads what run 1 wrote" read=hello RC=0
	hb "$mode" "$ws" "$home" --cache t2='~/.cache/t1' -- sh -c 'echo list=$(ls -A ~/.cache/t1 | wc -l)'
	res "$mode: another cache name at the same path sees none of it" list=0 RC=0
	hb "$mode" "$ws" "$home" -- sh -c 'test -e ~/.cache/t1/f; echo seen=$?'
	res "$mode: a run without the cache does not see it" seen=1 RC=0

	# --- bad names and paths: a clear error, exit 125, nothing made ---
	bad=0 made=0
	long=$(printf 'a%.0s' $(seq 65))
	for spec in '=/x' '..=/x' '.=/x' '../../ledger=/x' 'a/b=/x' '.hidden=/x' $'a\tb=/x' $'a\nb=/x' "$long=/x" 'noeq' \
		'ok=' 'ok=rel/x' 'ok=~/../x' 'ok=/a/./b' 'ok=/' 'ok=/proc/x' 'ok=/dev/shm/x' "ok=$(dirname "$ws")" "ok=$ws"; do
		hb "$mode" "$ws" "$home" --cache "$spec" -- true
		if [ "$RC" != 125 ] || ! grep -q -e 'cache' <<<"$ERR" || grep -q 'unknown option' <<<"$ERR"; then
			bad=$((bad + 1))
			diag "--cache '$spec': rc=$RC stderr: $ERR"
		fi
	done
	for d in "$state"/caches/* "$state"/caches/.*; do
		case ${d##*/} in t1 | t2 | . | .. | '*' | '.*') ;; *) made=1 diag "made: $d" ;; esac
	done
	OUT="bad=$bad"$'\n'"made=$made" ERR=
	res "$mode: bad cache names (empty, '.', '..', '../../ledger', a slash, a leading dot, a tab, a newline, 65 bytes, no '=') and paths (empty, relative, '..', '.', '/', /proc, /dev, the workspace or above it) are refused with exit 125 and a message naming --cache; no directory made" \
		bad=0 made=0

	# --- attacks on corral's state through a cache ---
	# From inside: '..' of the cache is the sandbox's own, not the state directory; a link to the
	# ledger leads nowhere; the ledger's lines stay whole and nothing reaches the sessions.
	hb "$mode" "$ws" "$home" --cache t1='~/.cache/t1' -- sh -c '
		echo up=$(ls -A ~/.cache/t1/.. | tr "\n" ,)
		ls "$1" >/dev/null 2>&1; echo state_seen=$?
		ln -s "$1/audit.jsonl" ~/.cache/t1/ledger; echo x >> ~/.cache/t1/ledger 2>/dev/null; echo via_link=$?
		mkdir -p ~/.cache/t1/../../sessions 2>/dev/null; echo x > ~/.cache/t1/../caches 2>/dev/null
		echo control=$(cat ~/.cache/t1/f)' sh "$state"
	OUT+=$'\n'"ledger_json=$(python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]; print("ok")' "$state/audit.jsonl" 2>&1)"
	OUT+=$'\n'"ledger_x=$(grep -c -x x "$state/audit.jsonl")"
	extra=
	for d in "$state"/*; do
		case ${d##*/} in audit.jsonl | caches | sessions) ;; *) extra+="${d##*/}," ;; esac
	done
	OUT+=$'\n'"state_entries=$extra"
	res "$mode: from inside a cache, '..' is the sandbox's own directory (only t1 in it), not the state directory; a symlink to the ledger written through leads nowhere; the ledger stays whole JSON lines; control: the cache reads" \
		up=t1, state_seen='!0' via_link='!0' ledger_json=ok ledger_x=0 state_entries= control=hello RC=0
	# The command owns its cache's directory and may chmod it: the next run sets it back to 0700
	# (and says so) rather than refuse it, or leave it open to others on the host.
	hb "$mode" "$ws" "$home" --cache t1='~/.cache/t1' -- chmod 0777 "$home/.cache/t1"
	hb "$mode" "$ws" "$home" --cache t1='~/.cache/t1' -- sh -c 'echo read=$(cat ~/.cache/t1/f)'
	OUT+=$'\n'"mode=$(stat -c %a "$state/caches/t1")"
	OUT+=$'\n'"said=$(grep -c 'cache t1: its directory was writable by group or others (mode 0777' <<<"$ERR")"
	res "$mode: a cache's directory the command made 0777 is set back to 0700 by the next run, which says so and reads it" \
		read=hello mode=700 said=1 RC=0
	# A symlink planted where a cache's directory goes (toward the state directory itself): refused.
	ln -s "$state" "$state/caches/evil"
	hb "$mode" "$ws" "$home" --cache evil='~/evil' -- sh -c 'ls -A ~/evil'
	OUT+=$'\n'"shown=$(grep -c audit.jsonl <<<"$OUT")"
	OUT+=$'\n'"said=$(grep -c -i 'symbolic link\|symlink\|too many levels' <<<"$ERR")"
	res "$mode: a symlink at STATE/caches/evil (to the state directory) is refused with exit 125, the state directory never shown" \
		RC=125 shown=0 said=1
	rm -f "$state/caches/evil"
	# The state directory inside a home workspace (shown read-only by the guard): a cache there
	# cannot be replaced by a link, nor the ledger linked into a cache (EXDEV), nor written.
	hws=$(new_home "$mode")
	hstate=$hws/.local/state
	mkdir -p "$hstate" && give "$mode" "$hws/.local"
	OUT=$(cd "$hws" && as "$mode" env HOME="$hws" XDG_STATE_HOME="$hstate" \
		"$CORRAL" run --workspace "$hws" --cache c1='~/c1' -- true 2>&1) # make the state and c1
	OUT=$(cd "$hws" && as "$mode" env HOME="$hws" XDG_STATE_HOME="$hstate" \
		"$CORRAL" run --workspace "$hws" --cache c1='~/c1' -- sh -c '
		s=$HOME/.local/state/corral
		rm -rf "$s/caches/c1" 2>/dev/null; mv "$s/caches" "$s/x" 2>/dev/null; echo moved=$?
		ln -sfn "$s" "$s/caches/c2" 2>/dev/null; echo planted=$?
		ln "$s/audit.jsonl" ~/c1/hard 2>/dev/null; echo hardlink=$?
		echo x >> "$s/audit.jsonl" 2>/dev/null; echo ledger=$?
		echo ok > ~/c1/f; echo control=$?' 2>"$CR_TMP/stderr")
	RC=$? ERR=$(<"$CR_TMP/stderr")
	OUT+=$'\n'"host_c1=$(cat "$hstate/corral/caches/c1/f" 2>&1)"
	OUT+=$'\n'"c2=$(test -e "$hstate/corral/caches/c2" && echo yes || echo no)"
	res "$mode: with the state directory inside the workspace, the sandbox cannot move STATE/caches, plant a link there or hard-link the ledger into a cache; control: the cache is written" \
		moved='!0' planted='!0' hardlink='!0' ledger='!0' control=0 host_c1=ok c2=no RC=0

	# --- corral serve: a session of the ci profile gets the same caches ---
	OUT=$(cd "$ws" && printf '%s\n' \
		'{"type":"open_session","id":1,"session":"c","workspace":"'"$ws"'","profile":"ci"}' \
		'{"type":"exec","id":2,"session":"c","argv":["sh","-c","echo served > ~/.npm/served && cat ~/.npm/made-by-serve-1 2>/dev/null; echo ok"]}' |
		as "$mode" env HOME="$home" timeout 30 "$CORRAL" serve --stdio --no-audit 2>"$CR_TMP/stderr")
	RC=$? ERR=$(<"$CR_TMP/stderr")
	OUT=$(python3 -c 'import json, sys
for l in sys.stdin:
    m = json.loads(l)
    if m["type"] == "exec_result": print("exit=%s" % m["exit_code"])
    if m["type"] == "open_session_result": print("caches=%d" % len(m["enforced"]["caches"]))' <<<"$OUT" 2>&1)
	OUT+=$'\n'"host=$(cat "$state/caches/npm/served" 2>&1)"
	res "$mode: corral serve: a ci session has its nine caches, and a command writes to the npm cache on the host's side" \
		caches=9 exit=0 host=served RC=0

	# --- degraded mode (no user namespaces): the command runs without its caches, told so ---
	OUT=$(cd "$ws" && as "$mode" env HOME="$home" timeout -k 5 30 "$PEER" deny-userns -- \
		"$CORRAL" run --grant once --allow-degraded --cache t1='~/.cache/t1' \
		--json-status "$stdir/deg-$mode.json" -- sh -c 'test -e ~/.cache/t1/f; echo seen=$?' 2>"$CR_TMP/stderr")
	RC=$? ERR=$(<"$CR_TMP/stderr")
	OUT+=$'\n'"warned=$(grep -c "degraded mode cannot show a cache.*without the caches at $home/.cache/t1" <<<"$ERR")"
	OUT+=$'\n'"listed=$(json "$stdir/deg-$mode.json" 's["enforced"]["caches"]')"
	res "$mode: degraded mode runs the command without its cache, says so on stderr, and lists none in the status" \
		seen=1 warned=1 "listed=[]" RC=0

	# --- the ci profile: its caches writable, kept, the toolchains in HOME read-only ---
	mkdir -p "$home/.cargo/bin" "$home/bin-hidden" "$home/.config/git"
	printf '#!/bin/sh\necho fake-cargo "$@"\n' >"$home/.cargo/bin/cargo"
	chmod 0755 "$home/.cargo/bin/cargo"
	echo 'token = "s3cret"' >"$home/.cargo/credentials.toml"
	printf '[registry]\ntoken = "s3cret"\n' >"$home/.cargo/config.toml"
	echo '//registry.npmjs.org/:_authToken=s3cret' >"$home/.npmrc"
	printf '[user]\n\tname = caches-suite\n' >"$home/.gitconfig"
	echo 'https://u:s3cret@example.org' >"$home/.config/git/credentials"
	[ "$mode" = root ] || give "$mode" "$home"
	HPATH="$home/.cargo/bin:$home/bin-hidden:/usr/bin:/bin" \
		hb "$mode" "$ws" "$home" --profile ci --json-status "$stdir/ci-$mode.json" -- sh -c '
		for d in ~/.npm ~/.cache/go-build ~/go/pkg/mod ~/.cache/pip ~/.cargo/registry ~/.cargo/git; do
			echo data > "$d/made-by-run-1" || echo "unwritable $d"
		done
		echo npm=$(cat ~/.npm/made-by-run-1)
		echo cargo=$(cargo build)
		echo path=$PATH
		echo creds=$(cat ~/.cargo/credentials.toml ~/.cargo/config.toml ~/.npmrc ~/.config/git/credentials 2>/dev/null | grep -c s3cret)
		echo git=$(git config --global user.name)
		touch ~/.cargo/bin/x 2>/dev/null; echo tools_rw=$?'
	OUT+=$'\n'"warned=$(grep -c "PATH inside the sandbox leaves out.*$home/bin-hidden" <<<"$ERR")"
	OUT+=$'\n'"hidden=$(json "$stdir/ci-$mode.json" 's["enforced"]["path_hidden"]')"
	OUT+=$'\n'"n_caches=$(json "$stdir/ci-$mode.json" 'len(s["enforced"]["caches"])')"
	OUT+=$'\n'"host_owner=$(stat -c %u "$state/caches/go-build/made-by-run-1" 2>&1)"
	res "$mode: ci: npm, go-build, go-mod, pip and cargo caches writable, owned by $owner on the host; ~/.cargo/bin's cargo runs, read-only; credentials.toml, config.toml (a registry token), ~/.npmrc and git's credentials hidden, ~/.gitconfig shown; PATH keeps ~/.cargo/bin and leaves out a hidden directory, named on stderr and in path_hidden" \
		npm=data "cargo=fake-cargo build" "path=$home/.cargo/bin:/usr/bin:/bin" creds=0 git=caches-suite \
		tools_rw='!0' warned=1 "hidden=['$home/bin-hidden']" n_caches=9 host_owner="$owner" RC=0
	! grep -q unwritable <<<"$OUT" || diag "$(grep unwritable <<<"$OUT")"
	hb "$mode" "$ws" "$home" --profile ci -- sh -c 'echo kept=$(cat ~/.cache/go-build/made-by-run-1 ~/.cargo/registry/made-by-run-1 | tr "\n" ,)'
	res "$mode: ci: the next run finds its caches" kept=data,data, RC=0
	hb "$mode" "$ws" "$home" -- sh -c 'echo path=$PATH'
	OUT+=$'\n'"warned=$(grep -c 'PATH inside' <<<"$ERR")"
	res "$mode: the default profile keeps the standard PATH, with no warning" \
		path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin warned=0 RC=0
done

# --- as root, a toolchain directory the sandbox's uid cannot read: said, not silent ---
if [[ " $MODES " == *" root "* ]]; then
	home=$(new_home root)
	ws=$(mkws root)
	mkdir -p "$home/.rustup/toolchains" "$home/.pyenv" && chmod 0700 "$home/.rustup" && chmod 0755 "$home/.pyenv"
	hb root "$ws" "$home" --profile ci --json-status "$stdir/unreadable.json" -- sh -c '
		ls ~/.rustup >/dev/null 2>&1; echo rustup=$?; ls ~/.pyenv >/dev/null; echo pyenv=$?'
	OUT+=$'\n'"warned=$(grep -c "cannot read $home/.rustup (mode 0700, owner 0:0)" <<<"$ERR")"
	OUT+=$'\n'"listed=$(json "$stdir/unreadable.json" 's["enforced"]["unreadable"]')"
	res "root: ci: a 0700 ~/.rustup of root's is named in a warning and in enforced.unreadable (unreadable to uid 65534 inside); control: a 0755 ~/.pyenv reads" \
		rustup='!0' pyenv=0 warned=1 "listed=['$home/.rustup']" RC=0
fi

# --- as root, the real toolchains of this host: cargo test in a fresh project, pyenv's python ---
if [[ " $MODES " == *" root "* ]] && [ -x /root/.cargo/bin/cargo ] && [ -d /root/.rustup ]; then
	proj=$(mktemp -d "$CR_TMP/rust.XXXXXX")
	(cd "$proj" && HOME=/root /root/.cargo/bin/cargo new -q --vcs none hello)
	OUT=$(cd "$proj/hello" && env HOME=/root PATH="/root/.cargo/bin:$PATH" \
		"$CORRAL" run --profile ci -- cargo test 2>&1)
	RC=$? ERR=
	OUT+=$'\n'"passed=$(grep -c 'test result: ok' <<<"$OUT")"
	OUT+=$'\n'"root_owned=$(find "$proj/hello" ! -user 0 | wc -l)"
	res "root: cargo test in a fresh cargo project under --profile ci (rustup's toolchain in /root/.rustup), its target root's on the host" \
		passed=1 root_owned=0 RC=0
else
	skip "root: cargo test under --profile ci" "no rustup toolchain in /root (or not root)"
fi
if [[ " $MODES " == *" root "* ]] && [ -x /root/.pyenv/shims/python3 ]; then
	want=$(HOME=/root /root/.pyenv/shims/python3 --version 2>&1)
	ws=$(mkws root)
	OUT=$(cd "$ws" && env HOME=/root PATH="/root/.pyenv/shims:$PATH" \
		"$CORRAL" run --profile ci -- python3 --version 2>&1)
	RC=$? ERR=
	is "root: python3 under --profile ci is pyenv's ($want), not the system's" '[ "$OUT" = "$want" ] && [ "$RC" = 0 ]'
else
	skip "root: pyenv's python under --profile ci" "no pyenv in /root (or not root)"
fi
