#!/bin/bash
# fs.sh: the sandbox's filesystem. A read-only tmpfs root with read-only system directories, the
# workspace writable at its own path, private /tmp and $HOME, a fresh /proc with its kernel knobs
# read-only, a minimal /dev, --ro/--rw/--hide, and nosuid/nodev on every bind. Each escape is
# tried together with a positive control in the same sandbox, in every mode.
# shellcheck disable=SC2016 # the sh -c scripts are single-quoted on purpose
# shellcheck source=SCRIPTDIR/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"


EROFS=30 EPERM=1 ENOENT=2

# opts PATH: the per-mount options of the topmost mount at PATH in $mountinfo, or "absent".
opts() { awk -v p="$1" '$5 == p { o = $6 } END { print (o == "" ? "absent" : o) }' <<<"$mountinfo"; }
# has OPTIONS OPT: OPTIONS (comma-separated) include OPT.
has() { [[ ,$1, == *,$2,* ]]; }
# no_pwned: no file named PWNED* was made by evaluating a hostile name.
no_pwned() { [ -z "$(find "$CR_TMP" -name 'PWNED*')" ] && [ ! -e /PWNED ] && [ ! -e "$PWD/PWNED" ]; }

# --- tests --------------------------------------------------------------------------------------

for mode in $MODES; do
	ws=$(mkws "$mode")

	sb "$mode" "$ws" -- sh -c '
		"$0" write /etc/corral-test; echo etc=$?
		"$0" write /usr/corral-test; echo usr=$?
		"$0" mkdir /opt/corral-test; echo opt=$?
		"$0" write /corral-test; echo root=$?
		"$0" mkdir /dev/corral-test; echo dev=$?
		"$0" write "$1/ok"; echo ctl=$?' "$PROBE" "$ws"
	fact host_ok test -s "$ws/ok"
	fact host_etc test -e /etc/corral-test
	res "$mode: /etc, /usr, /opt, / and /dev are read-only (EROFS) while the workspace is writable" \
		etc=$EROFS usr=$EROFS opt=$EROFS root=$EROFS dev=$EROFS ctl=0 host_ok=1 host_etc=0 RC=0

	sb "$mode" "$ws" -- sh -c '
		echo etc=$("$0" read /etc/os-release | cksum); echo usr=$("$0" read /usr/bin/true | cksum)
		/usr/bin/true; echo exec=$?' "$PROBE"
	res "$mode: /etc and /usr are readable, the same as on the host, and /usr is executable" \
		"etc=$(cksum </etc/os-release)" "usr=$(cksum </usr/bin/true)" exec=0 RC=0

	name=corral-fs-$$-$RANDOM-$mode
	hostmark=$(mktemp /tmp/corral-fs-host.XXXXXX)
	chmod 0644 "$hostmark"
	sb "$mode" "$ws" -- sh -c '
		echo modes=$(stat -c %a /tmp /dev/shm)
		"$0" write "/tmp/$1"; echo tmp=$?
		"$0" read "$2" >/dev/null; echo hostmark=$?
		"$0" write "$3/ok"; echo ctl=$?' "$PROBE" "$name" "$hostmark" "$ws"
	fact leak test -e "/tmp/$name"
	rm -f "$hostmark" "/tmp/$name"
	res "$mode: /tmp (mode 1777, like /dev/shm) is private: a file made there stays out of the host's /tmp, whose files are not seen" \
		"modes=1777 1777" tmp=0 hostmark=$ENOENT leak=0 ctl=0 RC=0

	for opt in "" --map-root; do
		sb "$mode" "$ws" $opt -- sh -c '
			"$0" remount-rw /; echo root=$?
			"$0" remount-rw /usr; echo usr=$?
			"$0" remount-rw "$2"; echo ro_bind=$?
			"$0" mount-tmpfs /etc; echo tmpfs=$?
			"$0" write /usr/corral-test; echo still_ro=$?
			"$0" read /etc/os-release >/dev/null; echo etc_intact=$?
			"$0" write "$1/ok"; echo ctl=$?' "$PROBE" "$ws" "$BIN"
		res "$mode${opt:+ $opt}: / /usr and a --ro bind cannot be remounted read-write, nor /etc covered (EPERM); /usr stays read-only" \
			root=$EPERM usr=$EPERM ro_bind=$EPERM tmpfs=$EPERM still_ro=$EROFS etc_intact=0 ctl=0 RC=0
	done

	# ns_last_pid is the one sysctl a namespace's root may open for writing without
	# capabilities: only the read-only mount stops it (EROFS). Without --map-root the
	# command is not that root, and the kernel refuses first.
	if [ -e /proc/sys/kernel/ns_last_pid ]; then
		for opt in "" --map-root; do
			sb "$mode" "$ws" $opt -- sh -c '
				v=$(cat /proc/sys/kernel/ns_last_pid); echo read=$?
				"$0" sysctl-write /proc/sys/kernel/ns_last_pid "$v"; echo sysctl=$?
				"$0" write /proc/self/comm; echo proc_self=$?
				"$0" write "$1/ok"; echo ctl=$?' "$PROBE" "$ws"
			if [ -n "$opt" ]; then want=$EROFS why="EROFS: the mount"; else want='!0' why="denied"; fi
			res "$mode${opt:+ $opt}: /proc/sys/kernel/ns_last_pid cannot be written ($why) while /proc/self/comm and the workspace can" \
				read=0 sysctl="$want" proc_self=0 ctl=0 RC=0
		done
	else
		skip "$mode: /proc/sys cannot be written" "kernel without CONFIG_CHECKPOINT_RESTORE (no /proc/sys/kernel/ns_last_pid)"
		skip "$mode --map-root: /proc/sys cannot be written" "kernel without CONFIG_CHECKPOINT_RESTORE (no /proc/sys/kernel/ns_last_pid)"
	fi

	# Mount options, as the kernel reports them inside the sandbox.
	rodir=$CR_TMP/ro-$mode rwdir=$CR_TMP/rw-$mode
	mkdir "$rodir" "$rwdir"
	give "$mode" "$rodir" "$rwdir"
	sb "$mode" "$ws" --ro "$rodir" --rw "$rwdir" -- cat /proc/self/mountinfo
	mountinfo=$OUT
	bad=
	for p in "$ws" "$rodir" "$rwdir" "$BIN" /usr /etc /tmp; do
		o=$(opts "$p")
		has "$o" nosuid && has "$o" nodev || bad+=" $p:$o"
	done
	if [ -z "$bad" ] && has "$(opts "$ws")" rw && has "$(opts "$rwdir")" rw && has "$(opts "$rodir")" ro; then
		ok "$mode: the workspace, --ro, --rw and system mounts are nosuid,nodev (workspace and --rw rw, --ro ro)"
	else
		not_ok "$mode: the workspace, --ro, --rw and system mounts are nosuid,nodev (workspace and --rw rw, --ro ro)"
		diag "wrong options:$bad" "$mountinfo"
	fi
	bad='' seen=''
	for p in /proc/sys /proc/irq /proc/bus; do
		[ -e "$p" ] || continue
		seen+=" $p"
		has "$(opts "$p")" ro || bad+=" $p:$(opts "$p")"
	done
	for o in rw nosuid nodev noexec; do
		has "$(opts /proc)" $o || bad+=" /proc:$(opts /proc)"
	done
	if [ -z "$bad" ] && [ -n "$seen" ]; then
		ok "$mode: fresh /proc is rw,nosuid,nodev,noexec but$seen are read-only mounts"
	else
		not_ok "$mode: fresh /proc is rw,nosuid,nodev,noexec but /proc/sys /proc/irq /proc/bus are read-only mounts"
		diag "wrong options:$bad (/proc: $(opts /proc))"
	fi
	if [ -e /proc/sysrq-trigger ]; then
		if has "$(opts /proc/sysrq-trigger)" ro && [ "$RC" = 0 ]; then
			ok "$mode: /proc/sysrq-trigger is a read-only mount"
		else
			not_ok "$mode: /proc/sysrq-trigger is a read-only mount"
			diag "corral exited $RC: $ERR" "/proc/sysrq-trigger: $(opts /proc/sysrq-trigger)"
		fi
	else
		skip "$mode: /proc/sysrq-trigger is a read-only mount" "kernel without CONFIG_MAGIC_SYSRQ (no /proc/sysrq-trigger)"
	fi

	sb "$mode" "$ws" -- sh -c '
		echo dev=$(ls -A /dev | sort | tr "\n" " ")
		"$0" write /dev/null; echo null=$?
		echo zero=$(head -c 4 /dev/zero | od -An -tx1 | tr -d " ")
		"$0" write /dev/shm/corral-test; echo shm=$?' "$PROBE"
	devs=(fd ptmx pts shm stderr stdin stdout)
	for n in null zero full random urandom tty; do [ ! -e "/dev/$n" ] || devs+=("$n"); done
	res "$mode: /dev holds only null zero full random urandom tty, pts, shm and the std links; /dev/null and /dev/shm work" \
		"dev=$(printf '%s\n' "${devs[@]}" | sort | paste -sd' ')" \
		null=0 zero=00000000 shm=0 RC=0

	links=
	for d in /bin /sbin /lib /lib32 /lib64 /libx32; do
		[ -L "$d" ] && links+=" $d"
	done
	if [ -n "$links" ]; then
		# shellcheck disable=SC2086 # one argument per link
		sb "$mode" "$ws" -- sh -c 'for d; do echo "link${d#/}=$(readlink "$d")"; done; ls /bin/sh >/dev/null; echo binsh=$?' \
			sh $links
		link_want=()
		for d in $links; do link_want+=("link${d#/}=$(readlink "$d")"); done
		res "$mode: merged-/usr symlinks ($links ) are recreated as on the host" "${link_want[@]}" binsh=0 RC=0
	else
		skip "$mode: merged-/usr symlinks are recreated" "the host is not merged-/usr"
	fi

	# $HOME: the host's is not shown, even when the workspace is inside it; the sandbox gets
	# an empty private one at the same path.
	home=$CR_TMP/home-$mode
	mkdir -p "$home/proj"
	echo secret >"$home/secret"
	chmod 0755 "$home"
	chmod 0644 "$home/secret"
	give "$mode" "$home/proj"
	HOME=$home sb "$mode" "$home/proj" -- sh -c '
		echo home=$HOME
		echo home_mode=$(stat -c %a:%u "$HOME")
		"$0" read "$HOME/secret"; echo secret=$?
		echo entries=$(ls -A "$HOME" | tr "\n" " ")
		"$0" write "$HOME/made-inside"; echo home_write=$?
		"$0" write "$HOME/proj/ok"; echo ctl=$?' "$PROBE"
	fact host_made test -e "$home/made-inside"
	fact host_ok test -s "$home/proj/ok"
	res "$mode: the host \$HOME is hidden (marker unseen, private writes stay inside) while the workspace inside it is shown" \
		"home=$home" "home_mode=700:$(host_uid "$mode")" secret=$ENOENT entries=proj home_write=0 ctl=0 host_made=0 host_ok=1 RC=0

	# --ro: shown, readable, not writable; also inside the workspace, over the writable bind.
	echo ro-data >"$rodir/data"
	mkdir "$ws/sub"
	give "$mode" "$rodir" "$ws/sub"
	sb "$mode" "$ws" --ro "$rodir" --ro "$ws/sub" -- sh -c '
		echo data=$("$0" read "$1/data")
		"$0" write "$1/data"; echo overwrite=$?
		"$0" write "$1/new"; echo create=$?
		"$0" write "$2/sub/x"; echo ws_sub=$?
		"$0" write "$2/ok"; echo ctl=$?' "$PROBE" "$rodir" "$ws"
	fact unchanged grep -qx ro-data "$rodir/data"
	res "$mode: --ro DIR is readable but not writable (EROFS), also a --ro subdirectory of the workspace" \
		data=ro-data overwrite=$EROFS create=$EROFS ws_sub=$EROFS ctl=0 unchanged=1 RC=0

	# Deeper rules win inside shallower ones: --rw inside --ro, --hide inside --ro.
	tree=$CR_TMP/tree-$mode
	mkdir -p "$tree/out" "$tree/private"
	echo key >"$tree/private/key"
	give "$mode" "$tree"
	sb "$mode" "$ws" --ro "$tree" --rw "$tree/out" --hide "$tree/private" -- sh -c '
		"$0" write "$1/top"; echo top=$?
		"$0" write "$1/out/made"; echo out=$?
		echo private=$(ls -A "$1/private" | wc -l)' "$PROBE" "$tree"
	fact host_out test -s "$tree/out/made"
	fact host_key grep -qx key "$tree/private/key"
	res "$mode: inside a --ro DIR, a --rw subdirectory is writable and a --hide one empty" \
		top=$EROFS out=0 private=0 host_out=1 host_key=1 RC=0

	# A path is shown at its canonical place: --ro LINK shows the link's target there.
	mkdir "$CR_TMP/target-$mode"
	echo target >"$CR_TMP/target-$mode/data"
	ln -s "target-$mode" "$CR_TMP/link-$mode"
	sb "$mode" "$ws" --ro "$CR_TMP/link-$mode" -- sh -c '
		echo target=$("$0" read "$1/target-$2/data")
		[ -e "$1/link-$2" ] || [ -L "$1/link-$2" ]; echo link=$?' "$PROBE" "$CR_TMP" "$mode"
	res "$mode: --ro of a symbolic link shows its target at the target's path, not the link" \
		target=target link=1 RC=0

	# Nothing but what is listed: no /sys /var /home /run /srv /mnt /media /boot; a named
	# path brings its parents, empty and read-only.
	sb "$mode" "$ws" --ro /var/lib -- sh -c '
		for d in /sys /home /run /srv /mnt /media /boot; do [ -e "$d" ] && echo "present=$d"; done
		echo var=$(ls -A /var | tr "\n" " ")
		"$0" write /var/corral-test; echo var_write=$?
		ls /var/lib >/dev/null; echo var_lib=$?' "$PROBE"
	res "$mode: /sys /home /run /srv /mnt /media /boot are absent; --ro /var/lib brings a read-only /var holding only lib" \
		present= var=lib var_write=$EROFS var_lib=0 RC=0

	# --rw: writable and the writes reach the host; a sibling not named stays unseen.
	rwfile=$CR_TMP/rwfile-$mode sibling=$CR_TMP/sibling-$mode
	: >"$rwfile"
	mkdir "$sibling"
	echo sibling >"$sibling/data"
	give "$mode" "$rwfile"
	sb "$mode" "$ws" --rw "$rwdir" --rw "$rwfile" -- sh -c '
		"$0" write "$1/made"; echo dir=$?
		"$0" write "$2"; echo file=$?
		"$0" read "$3/data"; echo sibling=$?' "$PROBE" "$rwdir" "$rwfile" "$sibling"
	fact host_dir grep -qx x "$rwdir/made"
	fact host_file grep -qx x "$rwfile"
	res "$mode: --rw DIR and --rw FILE are writable and the writes are visible on the host; an unnamed sibling is not shown" \
		dir=0 file=0 sibling=$ENOENT host_dir=1 host_file=1 RC=0

	# --hide: an empty directory over a directory, an empty file over a file; siblings stay.
	mkdir "$ws/private"
	echo key >"$ws/private/key"
	echo secret >"$ws/secret.txt"
	echo public >"$ws/public.txt"
	give "$mode" "$ws/private" "$ws/secret.txt" "$ws/public.txt"
	sb "$mode" "$ws" --hide "$ws/private" --hide "$ws/secret.txt" -- sh -c '
		[ -d "$1/private" ]; echo isdir=$?
		echo dir_entries=$(ls -A "$1/private" | wc -l)
		[ -f "$1/secret.txt" ] || [ -c "$1/secret.txt" ]; echo exists=$?
		echo file_bytes=$("$0" read "$1/secret.txt" | wc -c)
		"$0" write "$1/private/x"; echo dir_write=$?
		"$0" write "$1/secret.txt"; echo file_write=$?
		echo public=$("$0" read "$1/public.txt")
		"$0" write "$1/ok"; echo ctl=$?' "$PROBE" "$ws"
	fact host_secret grep -qx secret "$ws/secret.txt"
	fact host_key grep -qx key "$ws/private/key"
	fact host_dir_clean test ! -e "$ws/private/x"
	res "$mode: --hide DIR shows an empty read-only dir and --hide FILE an empty file; the sibling and the host files are intact" \
		isdir=0 dir_entries=0 exists=0 file_bytes=0 dir_write=$EROFS public=public ctl=0 \
		host_secret=1 host_key=1 host_dir_clean=1 RC=0

	# Files the sandbox's user may not open for writing can be hidden or shown read-only all
	# the same: a 0400 key of its own, and /etc/passwd (root's, inside read-only /etc).
	echo key >"$ws/key.pem"
	echo public >"$ws/public2.txt"
	give "$mode" "$ws/key.pem" "$ws/public2.txt"
	chmod 0400 "$ws/key.pem"
	sb "$mode" "$ws" --hide "$ws/key.pem" -- sh -c '
		echo key_bytes=$("$0" read "$1/key.pem" | wc -c)
		echo public=$("$0" read "$1/public2.txt")' "$PROBE" "$ws"
	res "$mode: --hide of a 0400 file in the workspace: it reads empty, the sibling stays" \
		key_bytes=0 public=public RC=0
	sb "$mode" "$ws" --hide /etc/passwd -- sh -c '
		echo passwd_bytes=$("$0" read /etc/passwd | wc -c)
		echo group=$("$0" read /etc/group | cksum)' "$PROBE"
	res "$mode: --hide of a root-owned file (/etc/passwd): it reads empty, the sibling /etc/group stays" \
		passwd_bytes=0 "group=$(cksum </etc/group)" RC=0
	sb "$mode" "$ws" --ro /etc/passwd -- sh -c '
		echo passwd=$("$0" read /etc/passwd | cksum)
		"$0" write /etc/passwd; echo write=$?' "$PROBE"
	res "$mode: --ro of a root-owned file (/etc/passwd): readable, not writable (EROFS)" \
		"passwd=$(cksum </etc/passwd)" write=$EROFS RC=0

	# --hide of a FIFO must neither open it (which would block) nor fail. Output goes to a
	# file, not a pipe: a sandbox left behind must not keep the suite waiting.
	mkfifo "$ws/fifo"
	give "$mode" "$ws/fifo"
	start=$SECONDS
	(cd "$ws" && as "$mode" timeout -k 1 2 "$CORRAL" run --workspace "$ws" --ro "$BIN" --grant once \
		--hide "$ws/fifo" -- "$PROBE" read "$ws/fifo" >"$CR_TMP/stdout" 2>"$CR_TMP/stderr")
	RC=$?
	# Whatever still waits to open the FIFO for writing gets it now, and goes on.
	: <>"$ws/fifo"
	OUT="bytes=$(wc -c <"$CR_TMP/stdout")"
	ERR=$(<"$CR_TMP/stderr")
	res "$mode: --hide of a FIFO in the workspace shows an empty file (took $((SECONDS - start))s)" bytes=0 RC=0

	# A hostile workspace name is used literally: nothing in it is evaluated by a shell.
	hostile="$CR_TMP/ws 'q' \"dq\" \$(touch PWNED) \`touch PWNED\` ;&|*?[x] \\ -$mode"
	mkdir "$hostile" "$hostile-ro"
	echo data >"$hostile-ro/data"
	give "$mode" "$hostile"
	sb "$mode" "$hostile" --ro "$hostile-ro" -- sh -c '
		[ "$(pwd -P)" = "$1" ]; echo cwd=$?
		"$0" write "$1/made"; echo write=$?
		echo ro=$("$0" read "$1-ro/data")' "$PROBE" "$hostile"
	fact host_made test -s "$hostile/made"
	fact pwned no_pwned
	res "$mode: a workspace and --ro path with quotes, spaces, \$(...) and globs work literally" \
		cwd=0 write=0 ro=data host_made=1 pwned=1 RC=0

	# Ownership on the host of what the sandbox creates in the workspace.
	sb "$mode" "$ws" -- sh -c '"$0" write "$1/owned"; echo file=$?; "$0" mkdir "$1/owned-dir"; echo dir=$?' \
		"$PROBE" "$ws"
	want="$(host_uid "$mode"):$(host_gid "$mode")"
	OUT+=$'\n'"file_owner=$(stat -c %u:%g "$ws/owned" 2>&1)"$'\n'"dir_owner=$(stat -c %u:%g "$ws/owned-dir" 2>&1)"
	res "$mode: files and directories made in the workspace belong to host $want" \
		file=0 dir=0 "file_owner=$want" "dir_owner=$want" RC=0
done
