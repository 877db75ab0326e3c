#!/bin/bash
# A logging stand-in for bwrap, put first on PATH (as a file named `bwrap`) to record what a
# client execs: one block per call in $BWRAP_LOG with argv (one argument a line, shell-quoted),
# the open descriptors and what they point to, and the environment variables' names. Then it
# execs $BWRAP_REAL (default /usr/bin/bwrap) with the same argv, so the client sees real bwrap.
log=${BWRAP_LOG:-/tmp/bwrap-log.$PPID}
real=${BWRAP_REAL:-/usr/bin/bwrap}
# The descriptors the client left open, listed before this script opens any of its own (255 is
# the script itself).
fds=()
for fd in "/proc/$$/fd/"*; do
	n=${fd##*/}
	[ "$n" -gt 2 ] && [ "$n" != 255 ] && fds+=("$n")
done
{
	echo "=== pid $$ ppid $PPID argv0 $0 uid $(id -u) cwd $PWD"
	printf 'argv:'
	printf ' %q' "$@"
	echo
	printf 'fds:'
	for n in "${fds[@]}"; do
		printf ' %s->%s' "$n" "$(readlink "/proc/$$/fd/$n")"
	done
	echo
	printf 'env:'
	env -0 | while IFS= read -r -d '' kv; do printf ' %s' "${kv%%=*}"; done
	echo
} >>"$log"
exec -a "$0" "$real" "$@"
