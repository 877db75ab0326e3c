#!/bin/bash
# Records what srt and Codex exec as `bwrap`: runs each client once, the way a user would, with
# tests/clients/log-bwrap.sh first on PATH as `bwrap` (it logs, then execs BWRAP_REAL, default
# /usr/bin/bwrap), and prints the log. The source of tests/clients/recorded-argv.md.
#
# Usage: tests/clients/record.sh [root|user]   (user: uid 65534 via setpriv; needs root)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-root}
npm_dir=$("$here/install.sh")
bin=$npm_dir/node_modules/.bin

# Outside /tmp: Codex ignores a `bwrap` in a directory its policy makes writable, and refuses to
# make its helper links in a CODEX_HOME under the temporary directory.
top=$(mktemp -d "$(dirname "$npm_dir")/record.XXXXXX")
trap 'rm -rf "$top"' EXIT
chmod 0755 "$top"
mkdir -p "$top/fake" "$top/home/.ssh" "$top/ws" "$top/tmp" "$top/codex"
cp "$here/log-bwrap.sh" "$top/fake/bwrap"
echo canary >"$top/home/.ssh/id_canary"
printf '%s\n' '{"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]},' \
	'"network":{"allowedDomains":[],"deniedDomains":[]}}' >"$top/srt.json"
printf '%s\n' 'default_permissions = "ws"' '[permissions.ws.filesystem]' '":root" = "read"' \
	'":workspace_roots" = "write"' '"~/.ssh" = "none"' >"$top/codex/config.toml"
run=()
if [ "$mode" = user ]; then
	chown -R 65534:65534 "$top"
	run=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
fi
cmd='echo hi; echo x > inws; echo inws=$?; echo y > '"$top"'/outside; echo out=$?; cat ~/.ssh/id_canary; echo ssh=$?'
cd "$top/ws"
export HOME=$top/home TMPDIR=$top/tmp CODEX_HOME=$top/codex PATH=$top/fake:$PATH
echo "## srt ($mode)"
BWRAP_LOG=$top/srt.log "${run[@]}" "$bin/srt" --settings "$top/srt.json" -c "$cmd" || echo "srt exit $?"
echo "## codex ($mode)"
BWRAP_LOG=$top/codex.log "${run[@]}" "$bin/codex" sandbox -- bash -c "$cmd" || echo "codex exit $?"
for c in srt codex; do
	echo "## log of $c"
	sed "s|$top|TOP|g" "$top/$c.log" 2>/dev/null | grep -v '^env:' || echo "(no call: fell back to its own bwrap)"
done
