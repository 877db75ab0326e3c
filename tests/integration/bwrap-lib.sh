# shellcheck shell=bash
# Shared by the bwrap-clients and bwrap-escape suites (after lib.sh): the `bwrap` doors under test
# and how to see, from the host, what a sandboxed command really runs under.
#
# Environment:
#   CR_BWRAP_UNDER_TEST  a bwrap to test instead of corral's personality, e.g. /usr/bin/bwrap to
#                        check the suites themselves: the hardening checks then expect what that
#                        bwrap does (it lets them through) instead of what corral must do.
#   CR_BWRAP             the executable installed as `bwrap` that starts corral's personality;
#                        without it, a copy of corral named `bwrap` (corral run as `bwrap`). With
#                        it, also a symlink `bwrap` to it under another name (Codex resolves it).

# DOORS: the names of the doors; door_dir NAME: a directory holding `bwrap`, to put first on PATH.
# THROUGH: the host paths (/proc/PID/exe) of which one must be an ancestor of a command that ran
# through the door. HARD=1 when corral is tested (hardened expectations), 0 for a given bwrap.
# shellcheck disable=SC2034 # DOORS, HARD and THROUGH are the suites'
bwrap_doors_setup() {
	local d
	if [ -n "${CR_BWRAP_UNDER_TEST:-}" ]; then
		DOORS=given HARD=0
		mkdir -p "$CR_TMP/door-given"
		ln -s "$CR_BWRAP_UNDER_TEST" "$CR_TMP/door-given/bwrap"
		THROUGH=("$(readlink -f "$CR_BWRAP_UNDER_TEST")")
	else
		# exe: what a user puts first on PATH; sub: `corral bwrap ARGS`, through a shell stub.
		DOORS="exe sub" HARD=1
		mkdir -p "$CR_TMP/door-exe" "$CR_TMP/door-sub"
		cp "${CR_BWRAP:-$CORRAL}" "$CR_TMP/door-exe/bwrap"
		[ -z "${CR_BWRAP:-}" ] || cp "$CORRAL" "$CR_TMP/door-exe/corral"
		printf '#!/bin/sh\nexec %q bwrap "$@"\n' "$CORRAL" >"$CR_TMP/door-sub/bwrap"
		chmod 0755 "$CR_TMP/door-sub/bwrap"
		THROUGH=("$(readlink -f "$CORRAL")")
		# link: a symlink named `bwrap` to the executable under another name, which Codex resolves
		# and runs by its real path (only with CR_BWRAP: corral itself answers as `bwrap` only by
		# that name).
		if [ -n "${CR_BWRAP:-}" ]; then
			DOORS+=" link"
			mkdir -p "$CR_TMP/door-link" "$CR_TMP/door-link-target"
			cp "$CR_BWRAP" "$CR_TMP/door-link-target/corral-bwrap"
			ln -s ../door-link-target/corral-bwrap "$CR_TMP/door-link/bwrap"
		fi
		for d in "$CR_TMP/door-exe/bwrap" "$CR_TMP/door-exe/corral" "$CR_TMP/door-link-target/corral-bwrap"; do
			[ -e "$d" ] && THROUGH+=("$(readlink -f "$d")")
		done
	fi
	chmod -R a+rX "$CR_TMP"/door-*
}

door_dir() {
	echo "$CR_TMP/door-$1"
}

# A token for `sleep TOKEN` (a number of seconds with a unique fraction) that find_token finds.
new_token() {
	printf '%s.%05d%05d' "${1:-3}" "$RANDOM" "$RANDOM"
}

# find_token TOKEN [PID]: the host pid of the process running `sleep TOKEN`, waiting while PID
# (the client) lives, for up to 60 s (a loaded host can take seconds to start a client).
find_token() {
	local i p
	for ((i = 0; i < 1200; i++)); do
		p=$(pgrep -x -f "sleep $1" | head -n 1)
		[ -z "$p" ] || {
			echo "$p"
			return 0
		}
		[ -z "${2:-}" ] || kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# exe_chain PID: /proc/P/exe of PID and of each of its ancestors, one a line, up to pid 1.
exe_chain() {
	local p=$1 i
	for ((i = 0; i < 40 && p > 1; i++)); do
		readlink "/proc/$p/exe" 2>/dev/null || echo "?"
		p=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
		[ -n "$p" ] || break
	done
}

# through_verdict CHAIN: "through" when a THROUGH binary is in CHAIN (exe_chain's output) and no
# other sandbox launcher is; else what was found instead, e.g. codex's own bwrap.
through_verdict() {
	local chain=$1 t line found=
	while IFS= read -r line; do
		for t in "${THROUGH[@]}"; do
			[ "$line" != "$t" ] || found=1
		done
		case $line in
		*/codex-resources/bwrap)
			echo "other:$line"
			return
			;;
		/usr/bin/bwrap | /usr/local/bin/bwrap)
			[ "$HARD" = 0 ] || {
				echo "other:$line"
				return
			}
			;;
		esac
	done <<<"$chain"
	if [ -n "$found" ]; then echo through; else echo "missing"; fi
}

# cgroup_of PID CONTROLLER: the v1 cgroup path of PID for CONTROLLER (e.g. memory, pids).
cgroup_of() {
	awk -F: -v c="$2" '$2 == c { print $3 }' "/proc/$1/cgroup"
}
