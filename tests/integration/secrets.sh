#!/bin/bash
# secrets: --secret, --secret-file, --env-file and the standard input ('-') hand values to the
# command, and to nothing else. In each mode one sandbox gets four secrets and proves it has them
# (their SHA-256 inside, the file's mode and owner) while, in the same run, no process it can
# see holds one in its command line and its pid 1 has none in its environment; on the host, no
# `ps` line, no /proc/PID/cmdline and no environment but the command's holds one, and nor do the
# JSON status, the ledger or the -v output. The test itself never puts a value in an argv: values
# travel in files (grep -f, sha256sum on stdin). Then: files corral refuses (missing, symlink, too
# large, a directory, empty, unreadable, a bad name), with messages that name no value; degraded
# mode (the environment works, --secret-file is refused); the "started" status a SIGKILLed corral
# leaves; a duration in the denial as it was typed. The scan's own control: the same values
# given with --setenv are found by it, on the host and in the sandbox's /proc/1/cmdline.
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

command -v jq >/dev/null || {
	not_ok "jq is installed (tools/setup.sh installs it)"
	exit 1
}

TAG=corral-secrets-test-$$
state_of() { if [ "$1" = user ] && [ "$(id -u)" -eq 0 ]; then echo "$CR_TMP/state-65534"; else echo "$XDG_STATE_HOME"; fi; }
sha() { sha256sum | cut -d' ' -f1; }
# jfile [JQ OPTIONS] EXPR FILE: FILE is not empty and EXPR is true of it (jq -e alone accepts an
# empty file).
jfile() { [ -s "${*: -1}" ] && jq -e "$@" >/dev/null; }

# The script the sandbox runs: KEY=VALUE lines for res(), then it waits for the host's "go".
cat >"$CR_TMP/inside.sh" <<'EOF'
pat=/tmp/pat
printf '%s\n' "$TOKEN" "$API_KEY" "$STDIN_TOKEN" >$pat
head -n 1 /run/secrets/key.pem >>$pat
echo "env_sha=$(printf '%s' "$TOKEN" | sha256sum | cut -d' ' -f1)"
echo "envfile_sha=$(printf '%s' "$API_KEY" | sha256sum | cut -d' ' -f1)"
echo "stdin_sha=$(printf '%s' "$STDIN_TOKEN" | sha256sum | cut -d' ' -f1)"
echo "file_sha=$(sha256sum </run/secrets/key.pem | cut -d' ' -f1)"
echo "file_mode=$(stat -c %a /run/secrets/key.pem)"
[ "$(stat -c %u /run/secrets/key.pem)" = "$(id -u)" ] && echo file_mine=1 || echo file_mine=0
if (: >/run/secrets/new) 2>/dev/null; then echo secrets_writable=1; else echo secrets_writable=0; fi
n=0
for d in /proc/[0-9]*; do
	grep -aqFf $pat "$d/cmdline" 2>/dev/null && n=$((n + 1))
done
echo "cmdline_leaks=$n"
if grep -aqFf $pat /proc/1/environ 2>/dev/null; then echo pid1_environ=leak; else echo pid1_environ=clean; fi
: >"$PWD/ready"
i=0
while [ ! -e "$PWD/go" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
echo done=1
EOF

# host_scan PATS CPID: what on the host holds a value of PATS while corral CPID runs: each
# "ps" line, each /proc/PID/cmdline, and each environment but that of the command's own
# processes (in the sandbox's pid namespace, not its pid 1). Prints one word per leak, and
# command:PID for each of the command's processes that holds one (as it should).
host_scan() {
	local pats=$1 cpid=$2 p ns1= pid1= c nspid
	ps -eo pid,args | grep -aFf "$pats" | awk '{print "ps:" $1}'
	for c in $(pgrep -P "$cpid"); do
		nspid=$(awk '/^NSpid:/ {print $NF}' "/proc/$c/status" 2>/dev/null)
		[ "$nspid" = 1 ] && pid1=$c && ns1=$(readlink "/proc/$c/ns/pid")
	done
	[ -n "$pid1" ] || echo "no-pid1-found"
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" = "$$" ] || [ "$p" = "$BASHPID" ] && continue
		grep -aqFf "$pats" "/proc/$p/cmdline" 2>/dev/null && echo "cmdline:$p"
		if grep -aqFf "$pats" "/proc/$p/environ" 2>/dev/null; then
			# The command and its children: in the sandbox's namespace, and not its pid 1.
			if [ "$p" != "$pid1" ] && [ -n "$ns1" ] && [ "$(readlink "/proc/$p/ns/pid")" = "$ns1" ]; then
				echo "command:$p"
				continue
			fi
			echo "environ:$p"
		fi
	done
}

for m in $MODES; do
	pre=()
	if [ "$m" = user ] && [ "$(id -u)" -eq 0 ]; then pre=("${AS_USER[@]}"); fi
	ws=$(mkws "$m")
	sec=$CR_TMP/sec-$m
	mkdir -m 0700 "$sec"
	cp "$CR_TMP/inside.sh" "$ws/inside.sh"
	v1=tok-$TAG-$m-$RANDOM$RANDOM v2=api-$TAG-$m-$RANDOM$RANDOM
	v3=stdin-$TAG-$m-$RANDOM$RANDOM v4=pem-$TAG-$m-$RANDOM$RANDOM
	printf '%s\n' "$v1" >"$sec/token"                 # one trailing newline: dropped
	printf '# CI env\n\nAPI_KEY=%s\n' "$v2" >"$sec/env"
	printf '%s' "$v3" >"$sec/stdin"
	printf '%s\n-----END-----\n' "$v4" >"$sec/key.pem" # a file: kept as it is
	printf '%s\n' "$v1" "$v2" "$v3" "$v4" >"$CR_TMP/pats-$m"
	chmod 0600 "$sec"/*
	give "$m" "$sec" "$ws/inside.sh"
	st=$sec/status-$m.json
	ledger=$(state_of "$m")/corral/audit.jsonl
	rm -f "$ws/ready" "$ws/go"

	(cd "$ws" && exec "${pre[@]}" "$CORRAL" run -v --workspace "$ws" --json-status "$st" \
		--secret TOKEN="$sec/token" --secret-file key.pem="$sec/key.pem" \
		--env-file "$sec/env" --secret STDIN_TOKEN=- -- sh inside.sh \
		<"$sec/stdin" >"$CR_TMP/out-$m" 2>"$CR_TMP/err-$m") &
	cpid=$!
	if wait_for test -e "$ws/ready"; then
		leaks=$(host_scan "$CR_TMP/pats-$m" "$cpid" | tr '\n' ' ')
		holders=$(grep -o 'command:[0-9]*' <<<"$leaks" | wc -l)
		leaks=$(sed 's/command:[0-9]* //g' <<<"$leaks")
		running=$(jq -r '.outcome + " " + (.pid|tostring)' "$st" 2>/dev/null)
	else
		leaks="(the sandbox never got ready)" running= holders=0
	fi
	: >"$ws/go"
	wait "$cpid"
	RC=$?
	OUT=$(<"$CR_TMP/out-$m")
	ERR=$(<"$CR_TMP/err-$m")
	res "$m: --secret, --env-file and --secret STDIN=- reach the command's environment, --secret-file /run/secrets/key.pem (0400, its own uid, read-only)" \
		RC=0 done=1 "env_sha=$(printf '%s' "$v1" | sha)" "envfile_sha=$(printf '%s' "$v2" | sha)" \
		"stdin_sha=$(printf '%s' "$v3" | sha)" "file_sha=$(sha <"$sec/key.pem")" \
		file_mode=400 file_mine=1 secrets_writable=0
	res "$m: inside the same sandbox, no process's /proc/PID/cmdline holds a value, nor pid 1's environment" \
		cmdline_leaks=0 pid1_environ=clean
	check "$m: on the host during the run, no ps line, no /proc/PID/cmdline and no environment but the command's holds a value${leaks:+ (found: $leaks)}" \
		test -z "$leaks"
	check "$m: ... the same scan found the values in the command's own environment ($holders processes)" \
		test "$holders" -gt 0
	check "$m: while it ran, the JSON status was the \"started\" record with corral's pid ($running)" \
		test "$running" = "started $cpid"
	check "$m: the final status replaced it: outcome exited, and enforced.secrets names the four, no value" \
		jfile '.outcome == "exited" and .enforced.secrets == ["TOKEN","STDIN_TOKEN","/run/secrets/key.pem","API_KEY"]' "$st"
	check "$m: no value in the JSON status" eval '! grep -aqFf "$CR_TMP/pats-$m" "$st"'
	check "$m: no value in the ledger (which has the run)" \
		eval '[ -s "$ledger" ] && ! grep -aqFf "$CR_TMP/pats-$m" "$ledger"'
	check "$m: no value in corral's -v output (which printed the setup)" \
		eval 'grep -q "sandbox setup" <<<"$ERR" && ! grep -aqFf "$CR_TMP/pats-$m" <<<"$ERR"'
	check "$m: no value in the command's own output" eval '! grep -aqFf "$CR_TMP/pats-$m" <<<"$OUT"'
	ls -A "$(dirname "$st")" | grep -q '^\.status-' && not_ok "$m: a temporary status file was left" ||
		ok "$m: no temporary status file was left beside the status"

	# --- the scan's own control: the same values passed the old way, --setenv ----------------
	# They are in corral's argv: ps, its /proc/PID/cmdline, and pid 1's inside (a copy of it).
	rm -f "$ws/ready" "$ws/go"
	(cd "$ws" && exec "${pre[@]}" "$CORRAL" run --workspace "$ws" --setenv TOKEN="$v1" \
		--setenv API_KEY="$v2" --setenv STDIN_TOKEN="$v3" -- sh inside.sh \
		>"$CR_TMP/out-$m" 2>"$CR_TMP/err-$m") &
	cpid=$!
	leaks=
	wait_for test -e "$ws/ready" && leaks=$(host_scan "$CR_TMP/pats-$m" "$cpid" | tr '\n' ' ')
	: >"$ws/go"
	wait "$cpid"
	OUT=$(<"$CR_TMP/out-$m")
	check "$m: control: values given with --setenv are seen on the host by the same scan ($leaks)" \
		eval '[[ $leaks == *ps:* && $leaks == *cmdline:* ]]'
	check "$m: control: ... and inside, in pid 1's /proc/1/cmdline" \
		eval 'grep -Eq "^cmdline_leaks=[1-9]" <<<"$OUT"'

	# --- files corral refuses, with a message that names the file and no value --------------
	big=$sec/big
	head -c 65537 /dev/zero | tr '\0' 'x' >"$big"
	: >"$sec/empty"
	mkdir -p "$sec/dir"
	ln -sf "$sec/token" "$sec/link"
	printf 'GOOD=1\nthis line holds %s\n' "$v2" >"$sec/badenv"
	give "$m" "$sec"
	err_case() { # NAME WANT OPTION...
		local name=$1 want=$2
		shift 2
		OUT=$(cd "$ws" && as "$m" "$CORRAL" run --workspace "$ws" --json-status "$st" "$@" -- \
			sh -c "echo ran" 2>"$CR_TMP/stderr" <"$sec/stdin")
		RC=$?
		ERR=$(<"$CR_TMP/stderr")
		if [ "$RC" = 125 ] && [ -z "$OUT" ] && grep -qF -- "$want" <<<"$ERR" &&
			! grep -aqFf "$CR_TMP/pats-$m" <<<"$ERR" && ! grep -aqFf "$CR_TMP/pats-$m" "$st" 2>/dev/null; then
			ok "$m: $name: 125, \"$want\", no value in the message or the status, nothing run"
		else
			not_ok "$m: $name"
			diag "rc=$RC out=$OUT" "stderr: $ERR"
		fi
	}
	err_case "a missing file" "--secret T: cannot open $sec/nope: No such file or directory" --secret T="$sec/nope"
	err_case "a symbolic link" "$sec/link is a symbolic link" --secret T="$sec/link"
	err_case "a file over 64 KiB" "$big is larger than 65536 bytes" --secret T="$big"
	err_case "a directory" "$sec/dir is not a regular file" --secret-file d="$sec/dir"
	err_case "an empty file" "$sec/empty is empty" --secret T="$sec/empty"
	err_case "a name that is not a variable name" "--secret: '9T' is not a variable name" --secret 9T="$sec/token"
	err_case "a file name with a slash" "--secret-file: '../x' is not a file name" --secret-file ../x="$sec/token"
	err_case "an --env-file line that is not NAME=VALUE (the line is not echoed)" \
		"--env-file $sec/badenv: line 2 is not NAME=VALUE" --env-file "$sec/badenv"
	err_case "the standard input twice" "the standard input ('-') can give only one" --secret A=- --secret B=-
	err_case "a name given both by --setenv and --secret" "TOKEN is given both as a secret and by --setenv" \
		--setenv TOKEN=x --secret TOKEN="$sec/token"
	if [ "$m" = user ] && [ "$(id -u)" -eq 0 ]; then
		cp "$sec/token" "$CR_TMP/root-secret" && chmod 0600 "$CR_TMP/root-secret"
		err_case "a file it cannot read" "cannot open $CR_TMP/root-secret: Permission denied" \
			--secret T="$CR_TMP/root-secret"
	fi

	# --- degraded mode (no user namespaces): the environment works, files are refused -------
	"$PEER" deny-userns -- true 2>/dev/null
	if [ $? -ne 0 ]; then
		skip "$m: secrets in degraded mode" "peer deny-userns does not work here"
	else
		OUT=$(cd "$ws" && as "$m" "$PEER" deny-userns -- "$CORRAL" run --grant once --allow-degraded \
			--workspace "$ws" --json-status "$st" --secret TOKEN="$sec/token" -- \
			sh -c 'printf %s "$TOKEN" | sha256sum' 2>"$CR_TMP/stderr")
		RC=$?
		ERR=$(<"$CR_TMP/stderr")
		check "$m: degraded mode: --secret reaches the command, its name in enforced.secrets, no value in the status or on stderr" \
			eval '[ "$RC" = 0 ] && [ "${OUT%% *}" = "$(printf %s "$v1" | sha)" ] &&
				jfile ".enforced.degraded and .enforced.secrets == [\"TOKEN\"]" "$st" &&
				! grep -aqFf "$CR_TMP/pats-$m" "$st" && ! grep -aqFf "$CR_TMP/pats-$m" <<<"$ERR"'
		OUT=$(cd "$ws" && as "$m" "$PEER" deny-userns -- "$CORRAL" run --grant once --allow-degraded \
			--workspace "$ws" --secret-file k="$sec/key.pem" -- sh -c 'echo ran' 2>"$CR_TMP/stderr")
		RC=$?
		ERR=$(<"$CR_TMP/stderr")
		check "$m: degraded mode: --secret-file is refused (125, \"needs a mount namespace\"), never dropped" \
			eval '[ "$RC" = 125 ] && [ -z "$OUT" ] && grep -q "secret-file needs a mount namespace" <<<"$ERR"'
	fi

	# --- a SIGKILLed corral leaves a parseable "started" status ------------------------------
	rm -f "$st" "$ws/ready"
	(cd "$ws" && exec "${pre[@]}" "$CORRAL" run --workspace "$ws" --json-status "$st" -- sh -c ': >ready; sleep 30; : '"$TAG") \
		2>/dev/null &
	cpid=$!
	wait_for test -e "$ws/ready"
	kill -KILL "$cpid"
	wait "$cpid" 2>/dev/null
	check "$m: corral killed with SIGKILL mid-run: the status is a whole \"started\" record (command, version, driver, corral's pid)" \
		jfile --argjson pid "$cpid" '.outcome == "started" and .pid == $pid and .command[0] == "sh" and .driver == "linux" and .version == 1 and (.corral_version | type == "string")' "$st"
	check "$m: ... and nothing else beside it" test "$(ls -A "$(dirname "$st")" | grep -c "status-$m")" = 1
	wait_for eval '! pgrep -f "$TAG" >/dev/null'

	# --- durations as typed --------------------------------------------------------------
	ERR=$(cd "$ws" && as "$m" "$CORRAL" run --workspace "$ws" --profile ci --timeout 7200 -- true 2>&1)
	RC=$?
	check "$m: a denied --timeout 7200 reads '--timeout 7200s' (not 7.2e+03s)" \
		eval '[ "$RC" = 126 ] && grep -qF -- "--timeout 7200s" <<<"$ERR" && ! grep -q "e+" <<<"$ERR"'
done
