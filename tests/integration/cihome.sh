#!/bin/bash
# cihome: the homes and the system CI gives a job, through the real corral binary in each mode.
# HOME=/, another user's 0700 HOME, a read-only HOME and HOME=/nonexistent each run with a warning
# that names what was skipped, the ledger line lands in the per-uid fallback state directory and
# `corral doctor --json` names it; a fallback made by someone else (another uid, mode 0777, a
# symlink) is refused; an explicitly named profile corral cannot read is still an error; a sandbox
# whose workspace holds the fallback cannot change it. Under --profile ci, dpkg -l and apt-cache
# policy see the package databases, which cannot be written; nproc honours --cpu.
#
# As root the suite runs in a mount namespace of its own with a tmpfs on /var/tmp, so that the
# fallback directories it makes and breaks are its own.
# is takes its condition as a string for eval, in single quotes (so the variables it reads look
# unused):
# shellcheck disable=SC2016,SC2034
if [ "$(id -u)" -eq 0 ] && [ -z "${CR_CIHOME_NS:-}" ]; then
	exec env CR_CIHOME_NS=1 unshare -m --propagation private bash "$0" "$@"
fi
PRIVATE_VARTMP=
if [ -n "${CR_CIHOME_NS:-}" ]; then
	mount -t tmpfs -o mode=1777 cihome /var/tmp || exit 1
	PRIVATE_VARTMP=1
fi
# shellcheck source=tests/integration/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

command -v jq >/dev/null || {
	not_ok "jq is installed (tools/setup.sh installs it)"
	exit 1
}

OTHER=12345 # a uid that is neither root, the suite's user nor the sandbox's

# The uid corral itself runs as in MODE.
muid() {
	if [ "$1" = root ]; then echo 0; elif [ "$(id -u)" -eq 0 ]; then echo 65534; else id -u; fi
}

# crun MODE HOME WS [OPTS] -- CMD...: corral run as MODE in a CI-like environment: HOME as given,
# no XDG_* variables. Status in $RC, stdout in $OUT, stderr in $ERR.
crun() {
	local mode=$1 home=$2 ws=$3
	shift 3
	OUT=$(cd "$ws" && as "$mode" env -i PATH="$PATH" HOME="$home" "$CORRAL" run \
		--workspace "$ws" --ro "$BIN" --grant once "$@" 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
}

# doctor_state MODE HOME: the state_dir key of `corral doctor --json` ("null" if none).
doctor_state() {
	as "$1" env -i PATH="$PATH" HOME="$2" "$CORRAL" doctor --json 2>/dev/null |
		jq -r '.state_dir' 2>/dev/null
}

lines() { if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi; }

# A home of uid $2 with mode $3 (and a profile directory of its own).
mkhome() {
	local d
	d=$(mktemp -d "$CR_TMP/home.XXXXXX")
	mkdir -p "$d/.config/corral/profiles"
	chmod "$3" "$d"
	[ "$(id -u)" -ne 0 ] || chown -R "$2:$2" "$d"
	echo "$d"
}

# --- homes CI gives a job ---------------------------------------------------------------------

# home_case MODE NAME HOME WANT: a run with HOME succeeds, warns naming WANT (what was skipped) and
# the fallback, writes its ledger line there, and doctor names the fallback.
home_case() {
	local mode=$1 name=$2 home=$3 want=$4 u fb before ws stdir
	u=$(muid "$mode")
	fb=/var/tmp/corral-$u
	ws=$(mkws "$mode")
	stdir=$(mkws "$mode")
	before=$(lines "$fb/audit.jsonl")
	crun "$mode" "$home" "$ws" --json-status "$stdir/st.json" -- sh -c 'echo job-ran'
	is "$mode: $name: the run succeeds" '[ "$RC" = 0 ] && [ "$OUT" = job-ran ]'
	is "$mode: $name: the warning names $want and the fallback" \
		'grep -qF -- "$want" <<<"$ERR" && grep -qF "using $fb" <<<"$ERR"'
	is "$mode: $name: the JSON status reports the fallback and why" \
		'jq -e --arg fb "$fb" --arg w "$want" ".state_dir_fallback.path == \$fb and (.state_dir_fallback.skipped | contains(\$w))" "$stdir/st.json" >/dev/null'
	PROFILE_SKIPPED=$(jq -r '.profile_dir_skipped // ""' "$stdir/st.json" 2>/dev/null)
	is "$mode: $name: the ledger line lands in $fb" \
		'[ "$(lines "$fb/audit.jsonl")" = $((before + 1)) ] && tail -n1 "$fb/audit.jsonl" | jq -e ".argv0 == \"sh\"" >/dev/null'
	OUT=$(doctor_state "$mode" "$home")
	is "$mode: $name: corral doctor --json names $fb" '[ "$OUT" = "$fb" ]'
}

# The fallback as corral must have made it: a real directory of the uid, mode 0700.
fallback_sound() {
	[ ! -L "$1" ] && [ "$(stat -c %u:%a "$1")" = "$2:700" ]
}

for mode in $MODES; do
	u=$(muid "$mode")
	fb=/var/tmp/corral-$u
	home_case "$mode" "HOME=/" / "HOME is /"
	is "$mode: the fallback is a 0700 directory of uid $u" 'fallback_sound "$fb" "$u"'

	other=$(mkhome "$mode" "$OTHER" 0700)
	[ "$(id -u)" -eq 0 ] || other=/root # unprivileged: root's home is another user's
	home_case "$mode" "another user's HOME" "$other" "$other"
	is "$mode: another user's HOME: its profile directory is skipped, the built-in used (stderr and JSON)" \
		'grep -qF "skipped the profile directory $other/.config/corral/profiles" <<<"$ERR" && grep -qF "using profile '"'"'workspace'"'"' (builtin)" <<<"$ERR" && [[ $PROFILE_SKIPPED == "$other/.config/corral/profiles ("* ]]'

	ro=$(mkhome "$mode" "$u" 0755)
	if [ "$(id -u)" -eq 0 ]; then
		mount --bind "$ro" "$ro" && mount -o remount,bind,ro "$ro"
	else
		chmod 0555 "$ro"
	fi
	home_case "$mode" "a read-only HOME" "$ro" "$ro/.local/state/corral (from HOME) skipped"
	home_case "$mode" "HOME=/nonexistent" /nonexistent "HOME /nonexistent skipped"

	# An explicitly named profile corral cannot read stays an error (as the user: unreadable;
	# as root: someone else's, which corral refuses to read).
	own=$(mkhome "$mode" "$u" 0700)
	echo '[profile]' >"$own/.config/corral/profiles/mine.ini"
	chmod 0600 "$own/.config/corral/profiles/mine.ini"
	[ "$(id -u)" -ne 0 ] || chown "$OTHER:$OTHER" "$own/.config/corral/profiles/mine.ini"
	ws=$(mkws "$mode")
	crun "$mode" "$own" "$ws" --profile mine -- true
	is "$mode: --profile NAME that cannot be read is an error naming it" \
		'[ "$RC" = 125 ] && grep -qF "$own/.config/corral/profiles/mine.ini" <<<"$ERR"'
	crun "$mode" "$own" "$ws" --profile "$own/.config/corral/profiles/mine.ini" -- true
	is "$mode: --profile PATH that cannot be read is an error" '[ "$RC" = 125 ]'
	if [ "$mode" = user ]; then
		# Its own profile directory, unreadable: the default profile looks past it, a name not.
		chmod 0 "$own/.config/corral/profiles"
		crun "$mode" "$own" "$ws" -- sh -c 'echo job-ran'
		is "$mode: an unreadable profile directory is skipped for the default profile, with a warning" \
			'[ "$RC" = 0 ] && [ "$OUT" = job-ran ] && grep -qF "skipped the profile directory $own/.config/corral/profiles (Permission denied); using profile '"'"'workspace'"'"' (builtin)" <<<"$ERR"'
		crun "$mode" "$own" "$ws" --profile workspace -- true
		is "$mode: ... but --profile workspace named explicitly is an error" \
			'[ "$RC" = 125 ] && grep -qF "Permission denied" <<<"$ERR"'
	else
		skip "$mode: an unreadable profile directory is skipped for the default profile" "root reads every directory"
		skip "$mode: ... but --profile workspace named explicitly is an error" "root reads every directory"
	fi

	# Attacker: a sandbox whose workspace is the fallback's parent. Positive control first.
	ino=$(stat -c %i "$fb")
	before=$(lines "$fb/audit.jsonl")
	crun "$mode" / /var/tmp -- sh -c '
		echo control >/var/tmp/control-'"$u"' && echo wrote=1
		echo "{\"forged\":1}" >>/var/tmp/corral-'"$u"'/audit.jsonl
		mv /var/tmp/corral-'"$u"' /var/tmp/moved-'"$u"'
		rm -rf /var/tmp/corral-'"$u"'
		mkdir -p /var/tmp/corral-'"$u"'/sessions/planted
		chmod 0777 /var/tmp/corral-'"$u"'
		true'
	is "$mode: attacker: the sandbox can write the workspace /var/tmp (control)" \
		'[ "$RC" = 0 ] && grep -q wrote=1 <<<"$OUT" && [ -f "/var/tmp/control-$u" ]'
	is "$mode: attacker: the fallback is unchanged (same directory, owner, mode; no forged line)" \
		'fallback_sound "$fb" "$u" && [ "$(stat -c %i "$fb")" = "$ino" ] && [ ! -e "/var/tmp/moved-$u" ] && [ ! -e "$fb/sessions/planted" ] && ! grep -q forged "$fb/audit.jsonl" && [ "$(lines "$fb/audit.jsonl")" = $((before + 1)) ]'

	# A fallback someone else made is refused, never used: another uid, mode 0777, a symlink.
	ws=$(mkws "$mode")
	if [ -z "$PRIVATE_VARTMP" ]; then
		skip "$mode: a fallback made by another uid is refused" "needs root (a private /var/tmp)"
		continue
	fi
	for bad in other-uid mode-0777 symlink; do
		rm -rf "$fb"
		case $bad in
		other-uid) mkdir -m 0700 "$fb" && chown "$OTHER:$OTHER" "$fb" ;;
		mode-0777) mkdir "$fb" && chmod 0777 "$fb" && chown "$u:$u" "$fb" ;;
		symlink) mkdir -m 0700 "$CR_TMP/target-$u" && chown "$u:$u" "$CR_TMP/target-$u" &&
			ln -s "$CR_TMP/target-$u" "$fb" ;;
		esac
		crun "$mode" / "$ws" -- sh -c 'echo job-ran'
		is "$mode: a fallback state directory with $bad is refused with a clear error" \
			'[ "$RC" = 125 ] && [ -z "$OUT" ] && grep -qF "refusing the fallback state directory $fb" <<<"$ERR"'
		is "$mode: ... nothing was written into it" \
			'[ -z "$(ls -A "$fb/")" ] && [ -z "$(ls -A "$CR_TMP/target-$u" 2>/dev/null)" ]'
		OUT=$(doctor_state "$mode" /)
		is "$mode: ... corral doctor --json names no state directory" '[ "$OUT" = null ]'
	done
	rm -rf "$fb"
done

# --- the system state the ci profile shows ------------------------------------------------------

for mode in $MODES; do
	ws=$(mkws "$mode")
	if [ ! -f /var/lib/dpkg/status ]; then
		skip "$mode: ci: dpkg -l lists packages" "no dpkg on this host"
		continue
	fi
	sum=$(sha256sum </var/lib/dpkg/status)
	crun "$mode" "$CR_TMP" "$ws" --profile ci --no-audit -- sh -c '
		dpkg -l | grep -c "^ii " | sed "s/^/packages=/"
		apt-cache policy dpkg 2>/dev/null | grep -q "Installed:" && echo apt=1
		echo x >/var/lib/dpkg/planted 2>/dev/null && echo write=1
		echo x >>/var/lib/dpkg/status 2>/dev/null && echo append=1
		mv /var/lib/dpkg/status /var/lib/dpkg/gone 2>/dev/null && echo mv=1
		[ -e /var/log ] && echo log=1
		ls /var/lib | tr "\n" " " | sed "s/^/varlib=/"'
	is "$mode: ci: dpkg -l lists the host's packages (positive control)" \
		'[ "$RC" = 0 ] && n=$(sed -n "s/^packages=//p" <<<"$OUT") && [ "${n:-0}" -gt 10 ]'
	is "$mode: ci: apt-cache policy finds an installed package" 'grep -q "^apt=1" <<<"$OUT"'
	is "$mode: ci: /var/lib/dpkg cannot be written, appended to or renamed in" \
		'! grep -Eq "^(write|append|mv)=1" <<<"$OUT" && [ "$(sha256sum </var/lib/dpkg/status)" = "$sum" ] && [ ! -e /var/lib/dpkg/planted ]'
	is "$mode: ci: no /var/log, and /var/lib shows the package databases alone" \
		'! grep -q "^log=1" <<<"$OUT" && v=$(sed -n "s/^varlib=//p" <<<"$OUT") && [ -z "$(tr " " "\n" <<<"$v" | grep -Ev "^(apt|dpkg|rpm|)$")" ]'
done

# --- a CPU quota tools can read -----------------------------------------------------------------

host_cpus=$(nproc)
for mode in $MODES; do
	ws=$(mkws "$mode")
	if [ "$host_cpus" -lt 2 ]; then
		skip "$mode: nproc honours --cpu 1" "one CPU: nothing to narrow"
		continue
	fi
	stdir=$(mkws "$mode")
	crun "$mode" "$CR_TMP" "$ws" --no-audit --cpu 1 --json-status "$stdir/st.json" -- nproc
	is "$mode: nproc prints 1 with --cpu 1" '[ "$RC" = 0 ] && [ "$OUT" = 1 ]'
	is "$mode: the JSON status reports enforced.limits.cpu.affinity 1" \
		'[ "$(jq -r .enforced.limits.cpu.affinity "$stdir/st.json")" = 1 ]'
	crun "$mode" "$CR_TMP" "$ws" --no-audit --cpu 1.5 -- nproc
	is "$mode: nproc prints 2 with --cpu 1.5 (rounded up)" '[ "$RC" = 0 ] && [ "$OUT" = 2 ]'
	crun "$mode" "$CR_TMP" "$ws" --no-audit -- nproc
	is "$mode: nproc prints the host's $host_cpus without --cpu" \
		'[ "$RC" = 0 ] && [ "$OUT" = "$host_cpus" ]'
done
