#!/bin/bash
# idmap.sh: root's sandbox in a checkout it does not own on the host. As root, the workspace and
# every --rw path another host user owns are idmapped mounts: the sandbox (uid 65534) writes there
# as the owner, and what it makes belongs to the owner on the host (root's checkout stays root's,
# uid 1234's stays 1234's). Attacks from inside: a third user's file, set-id bits (chmod, open's
# and mknod's modes), paths outside the workspace. A file system that cannot be idmapped is an
# error (125) with the fix; so is a mount below the path that cannot be (proc, sysfs), named with
# its type. As a user, the user's own workspace is unchanged (no idmap), submounts included.
# shellcheck disable=SC2016 # the sh -c scripts are single-quoted on purpose
# shellcheck source=SCRIPTDIR/lib.sh
source "$CR_TESTS_DIR/integration/lib.sh"

EPERM=1 EACCES=13 EROFS=30

# json FILE EXPR: a Python expression over the status `s`, printed.
json() {
	python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}

# A directory owned by root (as root made it), 0755, with a small C project in it.
project() {
	local d
	d=$(mktemp -d "$CR_TMP/job.XXXXXX")
	chmod 0755 "$d"
	printf 'int main(void) { return 0; }\n' >"$d/hello.c"
	printf 'hello: hello.c\n\tcc -o hello hello.c\ncheck: hello\n\t./hello\n' >"$d/Makefile"
	echo "$d"
}

for mode in $MODES; do
	if [ "$mode" = user ]; then
		# The user's own workspace: a plain bind, as before.
		ws=$(mkws user)
		sb user "$ws" --json-status "$CR_TMP/state-$(host_uid user)/user.json" -- sh -c '
			echo made > f; echo write=$?
			chmod u+s f; echo chmod_suid=$?'
		OUT+=$'\n'"host_owner=$(stat -c %u:%g "$ws/f" 2>&1)"
		OUT+=$'\n'"idmapped=$(json "$CR_TMP/state-$(host_uid user)/user.json" 's["enforced"]["idmapped"]')"
		OUT+=$'\n'"setid=$(json "$CR_TMP/state-$(host_uid user)/user.json" 's["enforced"]["seccomp"]["setid"]')"
		res "user: the user's own workspace is a plain bind (no idmap), its files the user's, set-id bits on them allowed" \
			write=0 chmod_suid=0 "host_owner=$(host_uid user):$(host_gid user)" \
			"idmapped=[]" setid=True RC=0
		# A proc mount in it (as root made it, in a mount namespace of the test's own): no idmap,
		# so nothing to refuse.
		if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
			ws=$(mkws user)
			mkdir "$ws/proc"
			ERR=$(unshare -m sh -c 'ws=$1 && shift && mount -t proc proc "$ws/proc" && cd "$ws" &&
				"$@" run -w "$ws" --grant once -- test -e proc/self' sh "$ws" "${AS_USER[@]}" "$CORRAL" 2>&1)
			RC=$? OUT=
			res "user: the user's own workspace with a proc mount in it runs (a plain bind)" RC=0
		fi
		continue
	fi

	# --- root in root's checkout: a C build and git, then git status as root on the host ---
	job=$(project)
	sb root "$job" --json-status "$CR_TMP/root.json" -- sh -c '
		make -s check && echo make=ok
		git init -q && git add -A &&
			git -c user.name=ci -c user.email=ci@example.org commit -qm build && echo git=ok
		echo ids=$(stat -c %u:%g hello)'
	OUT+=$'\n'"not_root=$(find "$job" ! -user 0 -o ! -group 0 | wc -l)"
	OUT+=$'\n'"made=$(find "$job" -newer "$job/Makefile" | wc -l)"
	OUT+=$'\n'"git_status=$(cd "$job" && git status --porcelain 2>&1 | tr '\n' ' ')rc$?"
	OUT+=$'\n'"idmapped=$(json "$CR_TMP/root.json" '[(m["path"], m["owner_uid"], m["owner_gid"]) for m in s["enforced"]["idmapped"]]')"
	OUT+=$'\n'"setid=$(json "$CR_TMP/root.json" 's["enforced"]["seccomp"]["setid"]')"
	OUT+=$'\n'"warned=$(grep -c 'cannot write' <<<"$ERR")"
	res "root: make and git commit in a root-owned checkout succeed, everything made there is root's on the host, git status as root works, no warning; the status lists it idmapped" \
		make=ok git=ok ids=65534:65534 not_root=0 git_status=rc0 \
		"idmapped=[('$job', 0, 0)]" setid=False warned=0 RC=0
	if [ "$(grep -c . <<<"$(find "$job" -newer "$job/Makefile")")" -lt 5 ]; then
		not_ok "root: the build made files (hello, .git)"
	else
		ok "root: the build made files (hello, .git)"
	fi

	# --- a directory another user owns: what the sandbox makes there is that user's ---
	other=$(mktemp -d "$CR_TMP/other.XXXXXX")
	chown 1234:1235 "$other"
	sb root "$other" -- sh -c 'echo made > f; echo write=$?; mkdir d; echo mkdir=$?'
	OUT+=$'\n'"host=$(stat -c %u:%g "$other/f" "$other/d" 2>&1 | tr '\n' ' ')"
	res "root: in a directory uid 1234 owns, the sandbox writes and its files are 1234:1235 on the host" \
		write=0 mkdir=0 "host=1234:1235 1234:1235 " RC=0

	# The same directory as a --rw path beside root's checkout: idmapped to its own owner.
	job=$(project)
	sb root "$job" --rw "$other" -- sh -c 'echo x > "$1/g"; echo rw=$?; echo y > h; echo ws=$?' sh "$other"
	OUT+=$'\n'"host=$(stat -c %u:%g "$other/g" "$job/h" 2>&1 | tr '\n' ' ')"
	res "root: a --rw path is idmapped to its own owner (1234), the workspace to root" \
		rw=0 ws=0 "host=1234:1235 0:0 " RC=0

	# --uid of the owner: no idmap needed, files are 1234's, as before.
	sb root "$other" --uid 1234 --gid 1235 --json-status "$CR_TMP/uid.json" -- sh -c 'echo z > u; echo write=$?'
	OUT+=$'\n'"host=$(stat -c %u:%g "$other/u" 2>&1)"
	OUT+=$'\n'"idmapped=$(json "$CR_TMP/uid.json" 's["enforced"]["idmapped"]')"
	res "root: --uid of the owner keeps working, as a plain bind" write=0 host=1234:1235 "idmapped=[]" RC=0

	# --- attacks from inside root's checkout ---
	job=$(project)
	printf 'third\n' >"$job/third" && chown 4321:4321 "$job/third" && chmod 0644 "$job/third"
	mkdir "$job/ro" && ro=$(mktemp -d "$CR_TMP/ro.XXXXXX") && chmod 0755 "$ro"
	sb root "$job" --ro "$ro" -- sh -c '
		echo third_owner=$(stat -c %u:%g third)
		echo x >> third 2>/dev/null; echo third_write=$?
		"$0" write third; echo third_probe=$?
		chown 65534 third 2>/dev/null; echo third_chown=$?
		chmod 0666 third 2>/dev/null; echo third_chmod=$?
		rm -f third 2>/dev/null; echo third_rm=$?
		mv third moved 2>/dev/null; echo third_mv=$?
		echo mine > mine; echo control=$?
		chmod u+s mine 2>/dev/null; echo chmod_suid=$?
		chmod g+s mine 2>/dev/null; echo chmod_sgid=$?
		chmod 0755 mine; echo chmod_plain=$?
		python3 -c "import os; os.open(\"created\", os.O_CREAT | os.O_WRONLY, 0o4755)" 2>/dev/null; echo open_suid=$?
		python3 -c "import os; os.mknod(\"node\", 0o104755)" 2>/dev/null; echo mknod_suid=$?
		cp /usr/bin/env ./env && chmod 4755 ./env 2>/dev/null; echo cp_suid=$?
		"$0" write "$1/x"; echo ro_write=$?
		"$0" write /etc/corral-idmap-test; echo etc_write=$?
		grep -c " $PWD .*nosuid.*nodev.*idmapped" /proc/self/mountinfo | sed "s/^/mount_opts=/"' "$PROBE" "$ro"
	OUT+=$'\n'"host_third=$(stat -c %u:%g:%a "$job/third")"
	OUT+=$'\n'"host_setid=$(find "$job" -perm /6000 | wc -l)"
	OUT+=$'\n'"host_mine=$(stat -c %u:%a "$job/mine" 2>&1)"
	res "root: a third user's file shows as the overflow id and cannot be written, chowned, chmodded, removed or renamed; set-id bits cannot be set (chmod, open, mknod): nothing set-id on the host; --ro and /etc stay read-only; the workspace is nosuid, nodev, idmapped; control: the command writes it" \
		third_owner=65534:65534 third_write='!0' third_probe=$EACCES third_chown='!0' \
		third_chmod='!0' third_rm='!0' third_mv='!0' control=0 chmod_suid='!0' chmod_sgid='!0' chmod_plain=0 \
		open_suid='!0' mknod_suid='!0' cp_suid='!0' ro_write=$EROFS etc_write=$EROFS \
		mount_opts=1 host_third=4321:4321:644 host_setid=0 host_mine=0:755 RC=0
	[ -e "$job/created" ] && not_ok "root: open with mode 04755 made no file" ||
		ok "root: open with mode 04755 made no file"

	# corral's own files inside root's idmapped checkout (HOME there): the sandbox acts as root's
	# files' owner, yet cannot plant a profile or move corral's directories; the next run is
	# unaffected. Control: it writes the checkout.
	job=$(project)
	henv=(env HOME="$job" XDG_CONFIG_HOME="$job/.config" XDG_STATE_HOME="$job/.local/state"
		XDG_CACHE_HOME="$job/.cache")
	(cd "$job" && "${henv[@]}" "$CORRAL" run -- true) 2>/dev/null
	OUT=$(cd "$job" && "${henv[@]}" "$CORRAL" run -- sh -c '
		mkdir -p .config/corral/profiles 2>/dev/null
		printf "[network]\nmode = all\n" >.config/corral/profiles/workspace.ini 2>/dev/null; echo plant=$?
		mv .config .config.x 2>/dev/null; echo mv=$?
		mv .config/corral .config/c.x 2>/dev/null; echo mvc=$?
		echo w >control; echo control=$?' 2>"$CR_TMP/stderr")
	RC=$?
	ERR=$(<"$CR_TMP/stderr")
	OUT+=$'\n'"planted=$(find "$job" -name workspace.ini | wc -l)"
	OUT+=$'\n'"net=$(cd "$job" && "${henv[@]}" "$CORRAL" run -- cat /proc/net/dev 2>&1 | grep -c ':')"
	res "root: corral's files in root's idmapped checkout: no profile planted, its directories not moved; the next run still has only lo; control: the checkout is written" \
		plant='!0' mv='!0' mvc='!0' control=0 planted=0 net=1 RC=0

	# A system directory given --rw is not idmapped: root's files there stay closed to the
	# sandbox (EACCES), as without the idmap. Control: the workspace is written.
	job=$(project)
	victim=/etc/corral-idmap-test-$$
	sb root "$job" --rw /etc --json-status "$CR_TMP/etc.json" -- sh -c '
		"$0" write "$1"; echo etc_write=$?
		echo w > control; echo control=$?' "$PROBE" "$victim"
	OUT+=$'\n'"created=$([ -e "$victim" ] && echo 1 || echo 0)"
	rm -f "$victim"
	OUT+=$'\n'"idmapped=$(json "$CR_TMP/etc.json" '[m["path"] for m in s["enforced"]["idmapped"]]')"
	res "root: --rw /etc is not idmapped (a system directory): root's files there stay closed (EACCES); control: the workspace is" \
		etc_write=$EACCES control=0 created=0 "idmapped=['$job']" RC=0

	# -v says what is idmapped.
	job=$(project)
	sb root "$job" -v -- true
	OUT=$(grep -c "idmapped $job: host uid 0 gid 0" <<<"$ERR" | sed 's/^/logged=/')
	res "root: -v logs the idmapped workspace and its owner" logged=1 RC=0

	# --- a file system that cannot be idmapped (ramfs): exit 125 with the fix, never a
	# silent read-only workspace. In a private mount namespace of the test's own.
	if command -v unshare >/dev/null; then
		ERR=$(unshare -m sh -c 'mkdir -p "$1" && mount -t ramfs ramfs "$1" &&
			cd "$1" && "$2" run -w "$1" --grant once -- true' sh "$CR_TMP/ramfs" "$CORRAL" 2>&1)
		RC=$?
		OUT="ramfs_named=$(grep -c "file system (ramfs) that cannot be idmapped" <<<"$ERR")"
		OUT+=$'\n'"fix=$(grep -c "fix: chown -R 65534:65534 $CR_TMP/ramfs" <<<"$ERR")"
		res "root: a workspace on ramfs (no idmapped mounts) fails with 125, naming the file system and the fix" \
			ramfs_named=1 fix=1 RC=125
	else
		skip "root: ramfs workspace" "no unshare(1)"
	fi

	# --- a mount below the path that cannot be idmapped (proc, sysfs, as an OCI runtime's
	# leftover bundle in /tmp would hold): the tree is idmapped whole or not at all, so 125,
	# naming that mount and its type (the path's own file system, ext4 or tmpfs, can be
	# idmapped), never a workspace with it dropped or left unidmapped. Hostile mount points: a
	# space as it is, a newline escaped. The same for a --rw path. The mounts live in a private
	# mount namespace of the test's own, gone with it even on failure (the cleanup hook unmounts
	# whatever would have leaked). Control: the same workspace without them runs.
	if command -v unshare >/dev/null; then
		sub=$(mktemp -d "$CR_TMP/sub.XXXXXX")
		chown 1234:1235 "$sub"
		nl=$'n\nl'
		mkdir -p "$sub/a dir/proc" "$sub/$nl"
		CR_CLEANUP_HOOK='umount -R -l "$sub/a dir/proc" "$sub/$nl" 2>/dev/null'
		job=$(project)
		OUT=$(unshare -m bash -c '
			sub=$1 nl=$2 job=$3 corral=$4 tmp=$5
			cd "$sub" || exit
			mount -t proc proc "$sub/a dir/proc" || exit
			"$corral" run -w "$sub" --grant once -- true 2>"$tmp/proc.err"; echo rc_proc=$?
			(cd "$job" && "$corral" run -w "$job" --rw "$sub" --grant once -- true) 2>"$tmp/rw.err"
			echo rc_rw=$?
			umount "$sub/a dir/proc" || exit
			mount -t sysfs sysfs "$sub/$nl" || exit
			"$corral" run -w "$sub" --grant once -- true 2>"$tmp/sys.err"; echo rc_sys=$?
			umount "$sub/$nl" || exit
			"$corral" run -w "$sub" --grant once -- sh -c "echo x > f" 2>"$tmp/ctl.err"
			echo rc_ctl=$?' sh "$sub" "$nl" "$job" "$CORRAL" "$CR_TMP")
		RC=$?
		ERR=$(cat "$CR_TMP"/{proc,rw,sys,ctl}.err 2>&1)
		named() { grep -cF "$1 cannot be idmapped, so neither can $2, which is idmapped whole or not at all" "$CR_TMP/$3.err"; }
		OUT+=$'\n'"proc_named=$(named "$sub/a dir/proc (a proc mount in $sub)" "$sub" proc)"
		OUT+=$'\n'"rw_named=$(named "$sub/a dir/proc (a proc mount in $sub)" "$sub" rw)"
		OUT+=$'\n'"sys_named=$(named "$sub/n\\012l (a sysfs mount in $sub)" "$sub" sys)"
		OUT+=$'\n'"fix=$(grep -c 'fix: umount it, or choose a workspace or --rw path that does not hold it' "$CR_TMP"/{proc,rw,sys}.err | grep -c ':1$')"
		OUT+=$'\n'"fs_blamed=$(cat "$CR_TMP"/{proc,rw,sys}.err | grep -c 'is on a file system')"
		OUT+=$'\n'"ctl_host=$(stat -c %u:%g "$sub/f" 2>&1)"
		res "root: a proc or sysfs mount in the workspace or a --rw path fails with 125, naming that mount (a space as it is, a newline escaped) and its type with the fix, not the path's file system; control: without it the run writes as the owner" \
			rc_proc=125 rc_rw=125 rc_sys=125 rc_ctl=0 proc_named=1 rw_named=1 sys_named=1 fix=3 \
			fs_blamed=0 ctl_host=1234:1235 RC=0
	else
		skip "root: a mount in the workspace that cannot be idmapped" "no unshare(1)"
	fi
done
