#!/bin/bash
# ci: real CI jobs under `corral run --profile ci`, as root in a root-owned checkout (how CI
# containers run) and as a normal user in a checkout of its own, with a HOME the job's owner owns
# and its ~/.gitconfig. Each job is its own sandbox, as a CI step is:
#   build   ./configure (which probes the compiler), make -j2, make check (tests/ci/project.sh)
#   cargo   cargo build and cargo test of a crate without dependencies, twice, its target directory
#           a named cache (--cache): after the checkout is cleaned (git clean -fdx), the second run
#           finds the cache the first left, compiles nothing, and is measurably faster; as root
#           with a rustup toolchain in its HOME (where it has one), cargo build with that one
#   asan    an AddressSanitizer program's LeakSanitizer report of a planted leak (exit 23) runs
#           at exit; a clean one passes
#   gdb     gdb -batch prints the backtrace of a crashing program
#   git     a clone of an upstream repository of another owner and commits in the checkout,
#           with user.name, user.email and safe.directory from ~/.gitconfig (as root with --uid
#           1000 too, where safe.directory decides: refused without the gitconfig)
#   secret  --secret and --secret-file reach the command, and appear in no host `ps` line or
#           /proc/PID/cmdline while it runs, in no /proc/PID/cmdline inside, in neither the JSON
#           status nor the ledger
# Afterwards, on the host: every file in the checkout belongs to its owner (root's stay root's),
# and `git status` as the owner (root, in root mode) works and is clean.
# The C project is written by the test (tests/ci/project.sh), not fetched: a Debian source package
# such as zlib needs deb-src entries this machine's apt sources lack and the network at test time,
# and the suite must run offline in a few seconds. The jobs are timed bare and under corral by
# tests/ci/timings.sh.
# shellcheck disable=SC2016 # the jobs' scripts are single-quoted on purpose
# shellcheck source=SCRIPTDIR/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"
# shellcheck source=SCRIPTDIR/../ci/project.sh
source "$CR_TESTS_DIR/ci/project.sh"

# The tools the jobs run; tools/setup.sh installs them. Missing is a failure, not a skip.
missing=
for t in gcc make git gdb cargo rustc jq; do
	command -v "$t" >/dev/null || missing+=" $t"
done
if [ -n "$missing" ]; then
	not_ok "the CI jobs' tools are installed (missing:$missing; tools/setup.sh installs them)"
	exit 1
fi
ok "the CI jobs' tools are installed (gcc, make, git, gdb, cargo, rustc, jq)"

UPSTREAM_UID=4321 # the owner of the upstream repository: neither root, the user nor the sandbox

# owner MODE: uid:gid of the checkout, the HOME and the secrets in MODE (root's in root mode).
owner() { if [ "$1" = root ]; then echo 0:0; else echo "$(host_uid user):$(host_gid user)"; fi; }
state_of() { if [ "$1" = user ] && [ "$(id -u)" -eq 0 ]; then echo "$CR_TMP/state-65534"; else echo "$XDG_STATE_HOME"; fi; }

# The upstream repository a job clones: another user's, outside the workspace.
upstream=$CR_TMP/upstream
git init -q "$upstream"
echo 'upstream' >"$upstream/README"
git -C "$upstream" add README
git -C "$upstream" -c user.name=up -c user.email=up@example.org commit -qm upstream
chmod -R a+rX "$upstream"
[ "$(id -u)" -ne 0 ] || chown -R "$UPSTREAM_UID:$UPSTREAM_UID" "$upstream"

# checkout MODE: a git checkout of the project, committed and owned by MODE's owner.
checkout() {
	local d
	d=$(mktemp -d "$CR_TMP/checkout-$1.XXXXXX")
	chmod 0755 "$d"
	ci_project "$d"
	git init -q "$d"
	git -C "$d" add -A
	git -C "$d" -c user.name=dev -c user.email=dev@example.org commit -qm 'the project'
	chmod -R a+rX "$d"
	[ "$(id -u)" -ne 0 ] || chown -R "$(owner "$1")" "$d"
	echo "$d"
}

# home MODE: the job's HOME, 0700, its owner's, with a ~/.gitconfig (0644, as git writes it).
home() {
	local h=$CR_TMP/home-$1
	mkdir -m 0700 "$h"
	printf '[user]\n\tname = CI Runner %s\n\temail = runner-%s@example.org\n[safe]\n\tdirectory = %s\n\tdirectory = %s/.git\n' \
		"$1" "$1" "$upstream" "$upstream" >"$h/.gitconfig"
	chmod 0644 "$h/.gitconfig"
	[ "$(id -u)" -ne 0 ] || chown -R "$(owner "$1")" "$h"
	echo "$h"
}

# job MODE NAME SCRIPT [CORRAL OPTIONS]: run SCRIPT with sh in the checkout $WS under --profile ci
# as MODE with HOME=$HOMEDIR (the profile shows its ~/.gitconfig); stdout in $OUT, stderr in $ERR,
# status in $RC, the wall time in milliseconds in $MS, the JSON status in $ST.
job() {
	local mode=$1 name=$2 script=$3 t0
	shift 3
	ST=$CR_TMP/out-$mode/status-$name.json
	t0=$(date +%s%N)
	OUT=$(cd "$WS" && as "$mode" env HOME="$HOMEDIR" "$CORRAL" run --profile ci --grant once \
		--workspace "$WS" --json-status "$ST" --setenv UPSTREAM="$upstream" "$@" -- sh -c "$script" 2>"$CR_TMP/stderr")
	RC=$?
	MS=$((($(date +%s%N) - t0) / 1000000))
	ERR=$(<"$CR_TMP/stderr")
}

for mode in $MODES; do
	WS=$(checkout "$mode")
	HOMEDIR=$(home "$mode")
	mkdir -m 0700 "$CR_TMP/out-$mode" # the JSON statuses
	[ "$(id -u)" -ne 0 ] || chown "$(owner "$mode")" "$CR_TMP/out-$mode"
	# cargo's target directory: the named cache cargo-target, which corral keeps on the host in
	# the mode's state directory.
	CARGO_CACHE=$(state_of "$mode")/corral/caches/cargo-target
	cargo_opts=(--cache cargo-target='~/.cache/cargo-target'
		--setenv CARGO_TARGET_DIR="$HOMEDIR/.cache/cargo-target")
	: >"$CR_TMP/stamp-$mode"
	owner=$(owner "$mode")
	if [ "$mode" = root ]; then who="root in root's checkout"; else who="user $(host_uid user) in its own checkout"; fi

	# --- build: configure, make -j2, make check ---------------------------------------------
	job "$mode" build "$CI_JOB_BUILD"
	res "$who: ./configure, make -j2 and make check succeed under --profile ci" \
		configure=0 make=0 check=0 RC=0
	memory_mode=$(jq -r '.enforced.limits.memory.mode' "$ST" 2>/dev/null)

	# --- cargo: a cold build, then a warm one from the cache the first left --------------------
	job "$mode" cargo1 "$CI_JOB_CARGO" "${cargo_opts[@]}"
	cold=$MS
	OUT+=$'\n'"cache=$(jq -c '[.enforced.caches[] | select(.name == "cargo-target") | [.path, .dir, .idmapped]]' "$ST" 2>&1)"
	res "$who: cargo build and cargo test of a crate without dependencies, offline, into the named cache cargo-target (cold: ${cold} ms)" \
		cargo_build=0 cargo_test=0 "ledger=a 1.25 b 2.00 " compiled=1 \
		"cache=[[\"$HOMEDIR/.cache/cargo-target\",\"$CARGO_CACHE\",$([ "$mode" = root ] && echo true || echo false)]]" RC=0
	# A fresh checkout for the next run, as a CI job starts from: only the cache persists.
	(cd "$WS" && as "$mode" git clean -fdxq)
	OUT="left=$(find "$WS" -name target -o -name '*.o' | wc -l)"
	OUT+=$'\n'"cached=$(find "$CARGO_CACHE" -name ledgerstat -type f | wc -l)"
	OUT+=$'\n'"cache_owner=$(stat -c %u:%g "$CARGO_CACHE")"
	OUT+=$'\n'"foreign=$(find "$CARGO_CACHE" \( ! -user "${owner%:*}" -o ! -group "${owner#*:}" \) | wc -l)"
	res "$who: after git clean -fdx nothing built is left in the checkout; the cache on the host holds the build and is all $owner's" \
		left=0 cached=1 "cache_owner=$owner" foreign=0 RC=0
	job "$mode" cargo2 "$CI_JOB_CARGO" "${cargo_opts[@]}"
	warm=$MS
	res "$who: the second cargo run, in a new sandbox and a cleaned checkout, finds the cache and compiles nothing" \
		cargo_build=0 cargo_test=0 "ledger=a 1.25 b 2.00 " compiled=0 RC=0
	check "$who: the warm cargo run is measurably faster: ${warm} ms against ${cold} ms (at most half)" \
		test $((warm * 2)) -le "$cold"

	# A toolchain in the HOME (rustup's ~/.cargo and ~/.rustup), as a CI image installs it for
	# root: the ci profile shows it read-only and keeps it in PATH. Only where root has one.
	rhome=$(getent passwd "$(id -un)" | cut -d: -f6)
	if [ "$mode" != root ]; then
		: # uid 65534's HOME here is the suite's, without a toolchain
	elif [ -x "$rhome/.cargo/bin/cargo" ] && [ -d "$rhome/.rustup" ]; then
		OUT=$(cd "$WS" && env HOME="$rhome" PATH="$rhome/.cargo/bin:$PATH" "$CORRAL" run --profile ci \
			--workspace "$WS" -- sh -c 'echo "cargo=$(command -v cargo)"
				cd rust && cargo build --offline -q && echo built=$?' 2>"$CR_TMP/stderr")
		RC=$? ERR=$(<"$CR_TMP/stderr")
		res "$who: root's own toolchain in $rhome/.cargo (rustup) builds the crate under --profile ci, found in PATH" \
			"cargo=$rhome/.cargo/bin/cargo" built=0 RC=0
	else
		skip "$who: a toolchain in root's HOME" "root has no rustup toolchain in $rhome/.cargo here"
	fi

	# --- asan: LeakSanitizer runs at exit ----------------------------------------------------
	# Where memory can only be RLIMIT_AS (a user without a delegated cgroup), AddressSanitizer
	# cannot reserve its shadow memory under it: corral says so, and --memory max lifts it.
	lift=()
	if [ "$memory_mode" = rlimit ]; then
		job "$mode" asan-rlimit 'true'
		OUT="warned=$(grep -c 'RLIMIT_AS.*AddressSanitizer' <<<"$ERR")"
		res "$who: memory as RLIMIT_AS: corral warns that AddressSanitizer cannot run under it" warned=1 RC=0
		lift=(--memory max)
	fi
	job "$mode" asan "$CI_JOB_ASAN" "${lift[@]}"
	res "$who${lift[*]:+, ${lift[*]}}: an ASan binary's LeakSanitizer report of a planted 4096-byte leak runs at exit (exit 23); a clean one passes" \
		asan_built=1 leak_rc=23 leak_report=1 leak_4096=1 under_ptrace=0 clean_rc=0 RC=0

	# --- gdb ---------------------------------------------------------------------------------
	job "$mode" gdb "$CI_JOB_GDB"
	res "$who: gdb -batch prints the backtrace of a crashing program" \
		gdb_rc=0 sigsegv=1 frame0=1 frame1=1 RC=0

	# --- git with the user's gitconfig -------------------------------------------------------
	job "$mode" git '
		echo "me=$(git config user.name) <$(git config user.email)>"
		git clone -q "$UPSTREAM" build/upstream && echo clone=$?
		git -C build/upstream log --format=%s -1 | sed "s/^/upstream_head=/"
		git commit -q --allow-empty -m "ci: built" && echo commit=$?
		git log -1 --format="author=%an <%ae>"' --ro "$upstream"
	res "$who: git clones another owner's repository and commits in the checkout as ~/.gitconfig's user" \
		"me=CI Runner $mode <runner-$mode@example.org>" clone=0 upstream_head=upstream commit=0 \
		"author=CI Runner $mode <runner-$mode@example.org>" RC=0
	if [ "$mode" = root ]; then
		# A runner uid (--uid 1000) is not the upstream's owner inside: git's ownership check
		# applies, and the gitconfig's safe.directory is what lets the clone through. The control
		# is the same run with a HOME that has no gitconfig.
		bare=$CR_TMP/home-bare
		mkdir -m 0700 "$bare"
		script='git clone -q "$0" build/up-$1 2>&1 | grep -c "dubious ownership" | sed s/^/dubious=/
			echo cloned=$(git -C build/up-$1 log --format=%s -1 2>/dev/null)'
		OUT=$(cd "$WS" && env HOME="$bare" "$CORRAL" run --profile ci --grant once --workspace "$WS" \
			--uid 1000 --gid 1000 --ro "$upstream" -- sh -c "$script" "$upstream" bare 2>"$CR_TMP/stderr")
		RC=$? ERR=$(<"$CR_TMP/stderr")
		res "$who, --uid 1000, a HOME without ~/.gitconfig: git refuses the upstream (dubious ownership)" \
			dubious=1 cloned= RC=0
		OUT=$(cd "$WS" && env HOME="$HOMEDIR" "$CORRAL" run --profile ci --grant once --workspace "$WS" \
			--uid 1000 --gid 1000 --ro "$upstream" -- sh -c "$script" \
			"$upstream" conf 2>"$CR_TMP/stderr")
		RC=$? ERR=$(<"$CR_TMP/stderr")
		res "$who, --uid 1000, the HOME with ~/.gitconfig (the ci profile shows it): its safe.directory lets the same clone through" \
			dubious=0 cloned=upstream RC=0
	fi

	# --- a secret: the command has it, nothing else does --------------------------------------
	# The values never enter an argv of the test's either: they travel in files (grep -f).
	sec=$CR_TMP/secrets-$mode
	mkdir -m 0700 "$sec"
	tok=deploy-$mode-$$-$RANDOM$RANDOM key=signing-$mode-$$-$RANDOM$RANDOM
	printf '%s\n' "$tok" >"$sec/token"
	printf '%s\n' "$key" >"$sec/signing.key"
	printf '%s\n' "$tok" "$key" >"$CR_TMP/pats-$mode"
	chmod 0600 "$sec"/*
	[ "$(id -u)" -ne 0 ] || chown -R "$(owner "$mode")" "$sec"
	rm -f "$WS/build/ready" "$WS/build/go"
	script='
		printf "%s\n" "$DEPLOY_TOKEN" >/tmp/pat && head -n 1 /run/secrets/signing.key >>/tmp/pat
		echo "token_sha=$(printf %s "$DEPLOY_TOKEN" | sha256sum | cut -c1-64)"
		echo "key_sha=$(sha256sum </run/secrets/signing.key | cut -c1-64)"
		n=0
		for d in /proc/[0-9]*; do grep -aqFf /tmp/pat "$d/cmdline" 2>/dev/null && n=$((n + 1)); done
		echo "cmdline_inside=$n"
		echo "environ_self=$(grep -aqFf /tmp/pat /proc/$$/environ && echo 1)"
		: >build/ready
		i=0; while [ ! -e build/go ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
		echo done=1'
	# In the background, while the host looks for the values: what it sets comes back in files.
	out=$CR_TMP/secret-$mode
	(
		job "$mode" secret "$script" --secret DEPLOY_TOKEN="$sec/token" \
			--secret-file signing.key="$sec/signing.key"
		printf '%s\n' "$OUT" >"$out.out"
		printf '%s' "$ERR" >"$out.err"
		exit "$RC"
	) &
	jpid=$!
	leaks="(the job never got ready)" holders=0
	# Up to 30 s (wait_for's 10 s is short for a sandbox on this loaded 2-CPU machine).
	for ((i = 0; i < 600; i++)); do
		[ -e "$WS/build/ready" ] && break
		sleep 0.05
	done
	if [ -e "$WS/build/ready" ]; then
		# The scan's control: the command's own environment holds the values.
		holders=$(grep -alFf "$CR_TMP/pats-$mode" /proc/[0-9]*/environ 2>/dev/null | wc -l)
		leaks=$(
			# shellcheck disable=SC2009 # what ps shows is the point
			ps -eo pid,args | grep -aFf "$CR_TMP/pats-$mode" | awk '{print "ps:" $1}'
			for p in /proc/[0-9]*; do
				grep -aqFf "$CR_TMP/pats-$mode" "$p/cmdline" 2>/dev/null && echo "cmdline:${p#/proc/}"
			done
		)
	fi
	as "$mode" touch "$WS/build/go"
	wait "$jpid"
	RC=$?
	OUT=$(<"$out.out") ERR=$(<"$out.err") ST=$CR_TMP/out-$mode/status-secret.json
	res "$who: --secret and --secret-file reach the command (their SHA-256 inside); no /proc/PID/cmdline inside holds one (the same scan finds them in its own environment)" \
		"token_sha=$(printf '%s' "$tok" | sha256sum | cut -c1-64)" \
		"key_sha=$(sha256sum <"$sec/signing.key" | cut -c1-64)" cmdline_inside=0 environ_self=1 done=1 RC=0
	leaks=$(tr '\n' ' ' <<<"$leaks")
	leaks=${leaks% }
	check "$who: while the job ran, no host ps line and no /proc/PID/cmdline held a secret${leaks:+ (found: $leaks)}" \
		test -z "$leaks"
	check "$who: ... while the same scan found them in the environment of the command's processes ($holders)" \
		test "$holders" -gt 0
	ledger=$(state_of "$mode")/corral/audit.jsonl
	check "$who: no secret in the JSON status, which names them: $(jq -c '.enforced.secrets' "$ST" 2>&1)" \
		eval 'jq -e ".enforced.secrets == [\"DEPLOY_TOKEN\",\"/run/secrets/signing.key\"]" "$ST" >/dev/null && ! grep -aqFf "$CR_TMP/pats-$mode" "$ST"'
	check "$who: no secret in the ledger ($(wc -l <"$ledger" 2>/dev/null) lines), nor in corral's messages" \
		eval '[ -s "$ledger" ] && ! grep -aqFf "$CR_TMP/pats-$mode" "$ledger" "$out.err"'

	# --- afterwards, on the host -------------------------------------------------------------
	made=$(find "$WS" -newer "$CR_TMP/stamp-$mode" | wc -l)
	foreign=$(find "$WS" \( ! -user "${owner%:*}" -o ! -group "${owner#*:}" \) -printf '%u:%g %p\n' | head -3)
	check "$who: afterwards every file in the checkout is $(owner "$mode")'s ($made new or changed)${foreign:+; not: $foreign}" \
		test -z "$foreign" -a "$made" -gt 20
	if [ "$mode" = root ]; then as_owner=(); else as_owner=("${AS_USER[@]}"); fi
	[ "$(id -u)" -eq 0 ] || as_owner=()
	gs=$(cd "$WS" && "${as_owner[@]}" git status --porcelain 2>&1)
	gsrc=$?
	check "$who: afterwards git status as $( [ "$mode" = root ] && echo root || echo the owner) succeeds and is clean (rc $gsrc${gs:+: $(tr '\n' ' ' <<<"$gs")})" \
		test "$gsrc" = 0 -a -z "$gs"
	author=$(cd "$WS" && "${as_owner[@]}" git log -1 --format='%an <%ae>' 2>&1)
	check "$who: the job's commit is in the checkout, by ~/.gitconfig's user ($author)" \
		test "$author" = "CI Runner $mode <runner-$mode@example.org>"
done
