#!/bin/bash
# creds.sh: who the command is and what it holds. No capabilities and no_new_privs; the uid/gid
# inside and on the host for each mode, --uid/--gid and --map-root; a cleared environment; no
# inherited descriptors but the kept ones; no controlling terminal (TIOCSTI); no new user
# namespace; its own hostname. Each denial is tried next to a positive control in the same
# sandbox, in every mode.
# shellcheck disable=SC2016 # the sh -c scripts are single-quoted on purpose
# shellcheck source=SCRIPTDIR/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"


EPERM=1 EBADF=9 ENXIO=6 EACCES=13 EINVAL=22 ENOSPC=28
ZERO=0000000000000000
# The PATH every sandbox gets unless --keep-env PATH or --setenv PATH says otherwise.
STD_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# idmap FILE: a /proc/*/[ug]id_map as "inside outside count" lines joined by ';'.
idmap='awk '"'"'{ printf "%s%s %s %s", (NR > 1 ? ";" : ""), $1, $2, $3 }'"'"' '

# The command of MODE on the host: how we run a host-side control as the same user.
as_prefix() {
	if [ "$1" = user ] && [ "$(id -u)" -eq 0 ]; then
		printf '%s ' "${AS_USER[@]}"
	fi
}

legacy_tiocsti=$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null)
have_script=$(command -v script)

for mode in $MODES; do
	ws=$(mkws "$mode")
	uid=$(host_uid "$mode") gid=$(host_gid "$mode")

	for opt in "" --map-root; do
		sb "$mode" "$ws" $opt -- sh -c '
			for f in CapInh CapPrm CapEff CapBnd CapAmb NoNewPrivs Name; do
				echo "$f=$("$0" status-field $f)"
			done
			echo pid1=$(sed -n "s/^Cap\(Inh\|Prm\|Eff\|Bnd\|Amb\):[[:space:]]*//p" /proc/1/status | sort -u)' "$PROBE"
		fact host_capbnd test "$(as "$mode" "$PROBE" status-field CapBnd)" != $ZERO
		res "$mode${opt:+ $opt}: no capabilities (CapInh/Prm/Eff/Bnd/Amb all 0, also pid 1's) and NoNewPrivs 1, read from a readable /proc/self/status" \
			CapInh=$ZERO CapPrm=$ZERO CapEff=$ZERO CapBnd=$ZERO CapAmb=$ZERO NoNewPrivs=1 Name=probe \
			pid1=$ZERO host_capbnd=1 RC=0
	done

	# Uid/gid: one id mapped, the one the sandbox runs as on the host.
	sb "$mode" "$ws" -- sh -c '
		echo ids=$(id -u):$(id -g):$(id -G)
		echo uid_map=$('"$idmap"' /proc/self/uid_map)
		echo gid_map=$('"$idmap"' /proc/self/gid_map)
		echo setgroups=$(cat /proc/self/setgroups)
		"$0" setuid 0; echo setuid0=$?
		"$0" setuid "$(id -u)"; echo setuid_self=$?
		"$0" write "$1/ids"; echo ctl=$?' "$PROBE" "$ws"
	OUT+=$'\n'"host_owner=$(stat -c %u:%g "$ws/ids" 2>&1)"
	res "$mode: runs as $uid:$gid inside and on the host, one id mapped, uid 0 unmapped so setuid(0) fails (EINVAL), setuid(self) works" \
		"ids=$uid:$gid:$gid" "uid_map=$uid $uid 1" "gid_map=$gid $gid 1" setgroups=deny \
		setuid0=$EINVAL setuid_self=0 ctl=0 "host_owner=$uid:$gid" RC=0

	sb "$mode" "$ws" --map-root -- sh -c '
		echo ids=$(id -u):$(id -g)
		echo uid_map=$('"$idmap"' /proc/self/uid_map)
		"$0" write "$1/mapped-root"; echo ctl=$?' "$PROBE" "$ws"
	OUT+=$'\n'"host_owner=$(stat -c %u:%g "$ws/mapped-root" 2>&1)"
	res "$mode --map-root: uid/gid 0 inside, still $uid:$gid on the host" \
		ids=0:0 "uid_map=0 $uid 1" ctl=0 "host_owner=$uid:$gid" RC=0

	# Not host root, even as root inside: root's files stay closed (EACCES), privileged calls
	# fail (EPERM). Root's directory sits in the sandbox user's own workspace, a plain bind (a
	# --rw path of root's would be idmapped, root's sandbox acting there as root's files' owner:
	# idmap.sh tests that).
	if [ "$(id -u)" -eq 0 ]; then
		rootdir=$ws/rootonly-$mode
		mkdir "$rootdir"
		echo root >"$rootdir/file"
		chmod 0755 "$rootdir"
		chmod 0644 "$rootdir/file"
		for opt in "" --map-root; do
			sb "$mode" "$ws" $opt -- sh -c '
				"$0" write "$1/new"; echo create=$?
				"$0" write "$1/file"; echo overwrite=$?
				echo read=$("$0" read "$1/file")
				"$0" chroot /; echo chroot=$?
				"$0" mount-tmpfs /tmp; echo mount=$?
				"$0" write "$2/ok"; echo ctl=$?' "$PROBE" "$rootdir" "$ws"
			fact host_intact grep -qx root "$rootdir/file"
			fact host_no_new test ! -e "$rootdir/new"
			res "$mode${opt:+ $opt}: root's files in the workspace stay read-only (EACCES); chroot and mount fail (EPERM); the workspace is writable" \
				create=$EACCES overwrite=$EACCES read=root chroot=$EPERM mount=$EPERM ctl=0 \
				host_intact=1 host_no_new=1 RC=0
		done
	else
		skip "$mode: root's files in the workspace stay read-only" "the suite runs unprivileged: no root-owned directory to offer"
		skip "$mode --map-root: root's files in the workspace stay read-only" "the suite runs unprivileged: no root-owned directory to offer"
	fi

	# Environment: only PATH HOME TERM LANG, --setenv and --keep-env.
	SECRET=xyz KEEPME=kept TERM=xterm-corral LANG=C.UTF-8 sb "$mode" "$ws" \
		--setenv FOO=bar --setenv 'SPACED=a b=c' --keep-env KEEPME --keep-env CR_UNSET_VAR -- /usr/bin/env
	OUT+=$'\n'"keys=$(cut -d= -f1 <<<"$OUT" | paste -sd' ')"
	res "$mode: the environment is cleared (SECRET absent) to PATH TERM LANG HOME, --keep-env, --setenv, in that order" \
		"keys=PATH TERM LANG HOME KEEPME FOO SPACED" "PATH=$STD_PATH" "HOME=$HOME" TERM=xterm-corral \
		LANG=C.UTF-8 FOO=bar "SPACED=a b=c" KEEPME=kept SECRET= RC=0

	OVER=host sb "$mode" "$ws" --keep-env OVER --setenv OVER=set --setenv PATH=/usr/bin:/bin \
		--setenv HOME=/elsewhere --setenv EMPTY= --setenv TWICE=1 --setenv TWICE=2 -- /usr/bin/env
	OUT+=$'\n'"keys=$(cut -d= -f1 <<<"$OUT" | sort | paste -sd' ')"
	res "$mode: --setenv replaces PATH, HOME and a --keep-env value; an empty value is kept; the last one counts" \
		"keys=$(printf '%s\n' EMPTY HOME OVER PATH TWICE ${TERM+TERM} ${LANG+LANG} | sort | paste -sd' ')" \
		OVER=set PATH=/usr/bin:/bin HOME=/elsewhere EMPTY= TWICE=2 RC=0

	pw_home=$(getent passwd "$(as "$mode" id -u)" | cut -d: -f6)
	OUT=$(cd "$ws" && as "$mode" env -u PATH -u HOME -u TERM -u LANG SECRET=xyz "$CORRAL" run \
		--workspace "$ws" -- /usr/bin/env 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
	OUT+=$'\n'"keys=$(cut -d= -f1 <<<"$OUT" | sort | paste -sd' ')"
	res "$mode: with PATH, HOME, TERM and LANG unset on the host: the default PATH and the passwd home, no TERM/LANG" \
		"keys=HOME PATH" "PATH=$STD_PATH" \
		"HOME=$pw_home" RC=0

	# Descriptors: fd 5 (a host secret) is closed, --keep-fd 6 is passed, nothing else leaks.
	echo host-secret >"$CR_TMP/fd-secret"
	echo kept-data >"$CR_TMP/fd-kept"
	sb "$mode" "$ws" --keep-fd 6 -- sh -c '
		"$0" read-fd 5; echo fd5=$?
		echo fd6=$("$0" read-fd 6)
		printf fds=; exec "$0" fds' "$PROBE" \
		5<"$CR_TMP/fd-secret" 6<"$CR_TMP/fd-kept"
	case $OUT in *host-secret*) OUT+=$'\n'"leaked=1" ;; *) OUT+=$'\n'"leaked=0" ;; esac
	res "$mode: an inherited fd 5 is closed (EBADF) while --keep-fd 6 is readable; the command holds only 0 1 2 6" \
		fd5=$EBADF fd6=kept-data "fds=0 1 2 6" leaked=0 RC=0

	# TIOCSTI: the command has no controlling terminal, so it cannot push input into ours.
	name="$mode: TIOCSTI on the terminal fails (EPERM, no controlling tty: /dev/tty ENXIO) while the fd is a tty"
	if [ -z "$have_script" ]; then
		skip "$name" "util-linux script(1) is not installed (needed for a pty)"
	elif [ "$legacy_tiocsti" = 0 ]; then
		skip "$name" "the host forbids TIOCSTI (dev.tty.legacy_tiocsti = 0)"
	else
		pre=$(as_prefix "$mode")
		printf '%s\n' "cd $(printf %q "$ws")" \
			"$pre$(printf %q "$PROBE") tiocsti 0; r=\$?; echo; echo host_tiocsti=\$r" \
			"$pre$(printf '%q ' "$CORRAL" run --workspace "$ws" --ro "$BIN" --grant once -- sh -c \
				'"$0" tiocsti 0; echo tiocsti=$?; "$0" isatty 0; echo isatty=$?; "$0" read /dev/tty; echo devtty=$?' \
				"$PROBE")" \
			"echo rc=\$?" >"$CR_TMP/tty.sh"
		OUT=$(SHELL=/bin/sh timeout -k 1 20 script -qec "/bin/sh $CR_TMP/tty.sh" /dev/null </dev/null 2>&1 | tr -d '\r')
		RC=0
		ERR=
		if [ "$(sed -n 's/^host_tiocsti=//p' <<<"$OUT")" != 0 ]; then
			skip "$name" "TIOCSTI fails on the host too, as the $mode user: $(grep '^probe' <<<"$OUT" | head -n 1)"
		else
			res "$name" tiocsti=$EPERM isatty=0 devtty=$ENXIO rc=0
		fi
	fi

	# No new user namespace inside (it would give the command a full set of capabilities
	# over its own namespaces); fork works.
	for opt in "" --map-root; do
		sb "$mode" "$ws" $opt -- sh -c '
			"$0" unshare-user; echo userns=$?
			unshare -U true 2>/dev/null; echo unshare_tool=$?
			"$0" fork; echo fork=$?
			"$0" write "$1/ok"; echo ctl=$?' "$PROBE" "$ws"
		OUT+=$'\n'"host_userns=$(as "$mode" "$PROBE" unshare-user 2>&1; echo $?)"
		res "$mode${opt:+ $opt}: creating a user namespace inside fails (probe and unshare -U) while fork works" \
			userns='!0' unshare_tool='!0' fork=0 ctl=0 host_userns=0 RC=0
		[ "$(sed -n 's/^userns=//p' <<<"$OUT")" != 0 ] ||
			diag "corral does not stop a nested user namespace: no seccomp filter, and user.max_user_namespaces is not lowered inside"
	done

	# The limit alone, without the filter that also refuses unshare(CLONE_NEWUSER): the sandbox's
	# own user.max_user_namespaces is 0 (written by pid 1 through the sandbox's /proc), so the
	# kernel refuses a nested user namespace with ENOSPC, and nothing can raise it again.
	sb "$mode" "$ws" --seccomp=off -- sh -c '
		echo limit=$(cat /proc/sys/user/max_user_namespaces)
		"$0" unshare-user; echo userns=$?
		echo 5 >/proc/sys/user/max_user_namespaces 2>/dev/null; echo raise=$?
		echo after=$(cat /proc/sys/user/max_user_namespaces)
		"$0" fork; echo fork=$?
		"$0" write "$1/ok"; echo ctl=$?' "$PROBE" "$ws"
	res "$mode --seccomp=off: user.max_user_namespaces is 0 inside and cannot be raised: a nested user namespace fails with ENOSPC, while fork works" \
		limit=0 userns=$ENOSPC raise='!0' after=0 fork=0 ctl=0 RC=0

	# Hostname: corral by default, --hostname NAME, the host's untouched.
	host_before=$(uname -n)
	sb "$mode" "$ws" -- sh -c 'echo uname=$(uname -n); echo proc=$(cat /proc/sys/kernel/hostname)'
	sb2_out=$OUT sb2_rc=$RC
	sb "$mode" "$ws" --hostname box-1.example -- uname -n
	OUT="$sb2_out"$'\n'"custom=$OUT"$'\n'"custom_rc=$RC"$'\n'"host=$(uname -n)"
	RC=$sb2_rc
	res "$mode: the hostname is corral (and --hostname box-1.example) inside, the host's ($host_before) unchanged" \
		uname=corral proc=corral custom=box-1.example custom_rc=0 "host=$host_before" RC=0
done

# --uid/--gid: the host ids a root-launched sandbox runs as.
if [ "$(id -u)" -eq 0 ] && [[ " $MODES " == *" root "* ]]; then
	ws=$(new_workspace root)
	chown 1000:1001 "$ws"
	sb root "$ws" --uid 1000 --gid 1001 -- sh -c '
		echo ids=$(id -u):$(id -g)
		echo uid_map=$('"$idmap"' /proc/self/uid_map)
		"$0" write "$1/f"; echo write=$?' "$PROBE" "$ws"
	OUT+=$'\n'"host_owner=$(stat -c %u:%g "$ws/f" 2>&1)"
	res "root --uid 1000 --gid 1001: 1000:1001 inside and on the host for files written to a workspace owned by 1000" \
		ids=1000:1001 "uid_map=1000 1000 1" write=0 host_owner=1000:1001 RC=0

	sb root "$ws" --uid 1000 --gid 1001 --map-root -- sh -c '
		echo ids=$(id -u):$(id -g)
		"$0" write "$1/g"; echo write=$?' "$PROBE" "$ws"
	OUT+=$'\n'"host_owner=$(stat -c %u:%g "$ws/g" 2>&1)"
	res "root --uid 1000 --gid 1001 --map-root: 0:0 inside, 1000:1001 on the host" \
		ids=0:0 write=0 host_owner=1000:1001 RC=0
else
	skip "root --uid/--gid" "needs the suite to run as root"
	skip "root --uid/--gid --map-root" "needs the suite to run as root"
fi
