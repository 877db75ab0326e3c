#!/bin/bash
# bwrap-escape: what a sandboxed command tries against corral's bwrap personality, under the two
# command lines the clients use: srt's (--new-session ... --unshare-user --cap-drop ALL) and
# Astrid's (--ro-bind / / --bind WS WS --tmpfs /tmp --dev /dev --proc /proc --unshare-all
# --share-net --die-with-parent --chdir WS). It must block what bwrap blocks (a write outside the
# workspace) and more, with the same argv: a /proc/sys write by a root caller (core_pattern,
# written with the value it already has), TIOCSTI without --new-session, a fork bomb (a pids
# limit) and a memory hog (a memory cgroup with a limit, seen from the host: a real hog would
# take the shared host's memory under bwrap). Each run has positive controls (a write in the
# workspace, a fork, a read of /proc/sys).
# CR_BWRAP_UNDER_TEST=/usr/bin/bwrap runs it against bubblewrap, expecting what bubblewrap does
# (it lets the hardening cases through): the check of the suite itself.
# shellcheck disable=SC2016 # the sandboxed commands are single-quoted on purpose
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"
# shellcheck source=tests/integration/bwrap-lib.sh
source "$CR_TESTS_DIR/integration/bwrap-lib.sh"

EPERM=1 EROFS=30 EAGAIN=11
BOMB=${CR_BWRAP_BOMB:-5000}
bwrap_doors_setup

# Astrid's argv hides /tmp under a tmpfs: the workspaces and the probe live outside it.
OUTER=$(mktemp -d /var/tmp/bwrap-escape.XXXXXX)
chmod 0755 "$OUTER"
cp "$PROBE" "$OUTER/probe"
chmod 0755 "$OUTER/probe"
# shellcheck disable=SC2034 # read by the cleanup hook and in eval
CORE_PATTERN=$(cat /proc/sys/kernel/core_pattern)
# The host's core_pattern is only ever written with its own value; restored if it changed anyway.
CR_CLEANUP_HOOK='rm -rf "$OUTER"; [ "$(cat /proc/sys/kernel/core_pattern)" = "$CORE_PATTERN" ] ||
	{ echo "$CORE_PATTERN" >/proc/sys/kernel/core_pattern; echo "# core_pattern restored"; }'
# shellcheck disable=SC2034 # read in eval
MEMTOTAL=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) * 1024))

# argv_for NAME MODE WS HOME: the bwrap options of the client NAME (srt, astrid), into ARGV.
argv_for() {
	case $1 in
	srt)
		ARGV=(--new-session --die-with-parent --unshare-net --ro-bind / / --bind "$3" "$3"
			--tmpfs "$4/.ssh" --dev /dev --unshare-pid --unshare-user --cap-drop ALL)
		[ "$2" != root ] || ARGV+=(--cap-add CAP_SETFCAP)
		ARGV+=(--proc /proc)
		;;
	astrid)
		ARGV=(--ro-bind / / --bind "$3" "$3" --tmpfs /tmp --dev /dev --proc /proc --unshare-all
			--share-net --die-with-parent --chdir "$3")
		;;
	esac
}

# The personality is also run in compat mode (CORRAL_BWRAP_MODE=compat: exactly bwrap's
# semantics), through its executable, where bwrap's answers are expected: the hardening is the
# mode's, not an accident of the harness.
LEVELS=${DOORS/ link/} # the link door matters to the clients only
[ "$HARD" = 0 ] || LEVELS+=" compat"

# level_env LEVEL: the door's directory, and the environment its runs get (LEVEL_DIR, LEVEL_ENV);
# H=1 where corral's hardening is expected.
level_env() {
	if [ "$1" = compat ]; then
		LEVEL_DIR=$(door_dir exe) LEVEL_ENV=(CORRAL_BWRAP_MODE=compat) H=0
	else
		LEVEL_DIR=$(door_dir "$1") LEVEL_ENV=() H=$HARD
	fi
}

# want HARDENED_VALUE BWRAP_VALUE: the expectation where corral hardens (H=1), or bwrap's.
want() {
	if [ "$H" = 1 ]; then echo "$1"; else echo "$2"; fi
}

for mode in $MODES; do
	for door in $LEVELS; do
		level_env "$door"
		bw=$LEVEL_DIR/bwrap
		for client in srt astrid; do
			ws=$(mktemp -d "$OUTER/ws.XXXXXX") home=$(mktemp -d "$OUTER/home.XXXXXX")
			mkdir "$home/.ssh"
			chmod 0755 "$ws" "$home"
			[ "$mode" = root ] || give "$mode" "$ws" "$home"
			argv_for "$client" "$mode" "$ws" "$home"
			tok=$(new_token 2)
			as "$mode" env "${LEVEL_ENV[@]}" HOME="$home" "$bw" "${ARGV[@]}" -- sh -c '
				cd "$1" || exit 99
				"$0" write "$1/ok"; echo ctl=$?
				"$0" fork; echo fork=$?
				"$0" write "$2"; echo outside=$?
				v=$(cat /proc/sys/kernel/core_pattern); echo sysread=$?
				"$0" sysctl-write /proc/sys/kernel/core_pattern "$v" 2>/dev/null; echo sysctl=$?
				made=$("$0" forks "$3" 2>/dev/null); r=$?; echo made=$made; echo bomb=$r
				sleep "$4"; echo end=$?' "$OUTER/probe" "$ws" "$OUTER/outside-$mode" "$BOMB" "$tok" \
				>"$CR_TMP/out" 2>"$CR_TMP/err" &
			bg=$!
			cgm='' cgp='' pmax='' mlim=''
			if pid=$(find_token "$tok" "$bg"); then
				OUT_CHAIN=$(exe_chain "$pid")
				cgm=$(cgroup_of "$pid" memory) cgp=$(cgroup_of "$pid" pids)
				mlim=$(cat "/sys/fs/cgroup/memory$cgm/memory.limit_in_bytes" 2>/dev/null)
				pmax=$(cat "/sys/fs/cgroup/pids$cgp/pids.max" 2>/dev/null)
			else
				OUT_CHAIN=
			fi
			wait "$bg"
			RC=$?
			OUT=$(<"$CR_TMP/out")
			ERR=$(<"$CR_TMP/err")$'\n'"cgroups: memory $cgm (limit $mlim), pids $cgp (max $pmax)"
			OUT+=$'\n'"via=$(through_verdict "$OUT_CHAIN")"
			fact outside_exists test -e "$OUTER/outside-$mode"
			# shellcheck disable=SC2034 # read in eval
			own_mem=$(cgroup_of $$ memory) own_pids=$(cgroup_of $$ pids)
			fact mem_limited eval '[ -n "$cgm" ] && [ "$cgm" != "$own_mem" ] && [ -n "$mlim" ] && [ "$mlim" -lt "$MEMTOTAL" ]'
			fact pids_limited eval '[ -n "$cgp" ] && [ "$cgp" != "$own_pids" ] && [[ $pmax =~ ^[0-9]+$ ]]'
			name="$mode $door $client-like argv"
			res "$name: a write in the workspace, a fork and a read of /proc/sys work; the command ran through ${THROUGH[0]##*/}" \
				ctl=0 fork=0 sysread=0 end=0 via=through RC=0
			res "$name: a write outside the workspace fails (read-only: EROFS), as under bwrap" \
				outside=$EROFS outside_exists=0
			if [ "$mode" = root ] && [ "$door" = compat ]; then
				# Not asserted: a compat mode safer than bwrap here breaks no client.
				diag "$name: root caller's core_pattern write: $(sed -n 's/^sysctl=//p' <<<"$OUT") (bwrap: 0; not asserted in compat mode)"
			elif [ "$mode" = root ]; then
				res "$name: root caller: writing /proc/sys/kernel/core_pattern (its own value) $(want fails 'succeeds under bwrap')" \
					sysctl="$(want '!0' 0)"
			else
				res "$name: uid 65534: writing /proc/sys/kernel/core_pattern fails, as under bwrap" sysctl='!0'
			fi
			res "$name: a fork bomb of $BOMB processes $(want "stops at a pids limit (EAGAIN)" 'runs to the end under bwrap')" \
				bomb="$(want $EAGAIN 0)"
			if [ "$mode" = root ]; then
				res "$name: $(want 'the command is in a memory cgroup of its own with a limit below the RAM, and a pids cgroup with a limit' 'under bwrap the command stays in the caller'"'"'s memory and pids cgroups')" \
					mem_limited="$(want 1 0)" pids_limited="$(want 1 0)" via=through
			else
				skip "$name: a memory cgroup" "cgroup v1 here: not delegated to uid 65534 (corral run reports no memory limit either)"
			fi
		done
	done
	# TIOCSTI under Astrid's argv (no --new-session): through a pseudo-terminal, as creds.sh does.
	name="$mode: TIOCSTI on the terminal from inside Astrid's argv (no --new-session)"
	if ! command -v script >/dev/null; then
		skip "$name" "util-linux script(1) is not installed (needed for a pty)"
		continue
	elif [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null)" = 0 ]; then
		skip "$name" "the host forbids TIOCSTI (dev.tty.legacy_tiocsti = 0)"
		continue
	fi
	pre=
	[ "$mode" = user ] && [ "$(id -u)" -eq 0 ] && pre="$(printf '%q ' "${AS_USER[@]}")"
	for door in $LEVELS; do
		level_env "$door"
		name="$mode: TIOCSTI on the terminal from inside Astrid's argv (no --new-session) $(want 'fails (EPERM)' 'succeeds under bwrap')"
		ws=$(mktemp -d "$OUTER/ws.XXXXXX")
		chmod 0755 "$ws"
		[ "$mode" = root ] || give "$mode" "$ws"
		argv_for astrid "$mode" "$ws" /nonexistent
		printf '%s\n' "cd $(printf %q "$ws")" \
			"$pre$(printf %q "$OUTER/probe") tiocsti 0; r=\$?; echo; echo host_tiocsti=\$r" \
			"$pre$(printf '%q ' env "${LEVEL_ENV[@]}" "$LEVEL_DIR/bwrap" "${ARGV[@]}" -- "$OUTER/probe" tiocsti 0); r=\$?; echo; echo tiocsti=\$r" \
			>"$CR_TMP/tty.sh"
		OUT=$(SHELL=/bin/sh timeout -k 1 20 script -qec "/bin/sh $CR_TMP/tty.sh" /dev/null </dev/null 2>&1 | tr -d '\r')
		RC=0 ERR=
		if [ "$(sed -n 's/^host_tiocsti=//p' <<<"$OUT")" != 0 ]; then
			skip "$mode $door: $name" "TIOCSTI fails on the host too, as the $mode user"
		else
			res "$mode $door: ${name#"$mode: "}" tiocsti="$(want $EPERM 0)"
		fi
	done
done
