#!/bin/bash
# Installs the pinned bwrap clients the bwrap-clients suite runs (srt and the Codex CLI) from the
# npm registry into a cache directory, once; later calls reuse it. Never installs globally.
#
# Usage: tests/clients/install.sh [DIR]   (default: $CR_CLIENTS_DIR; else, as root,
# /var/cache/corral-test/npm, which uid 65534 can read (the suites run the clients as that user
# too); else $XDG_CACHE_HOME/corral-test/npm or ~/.cache/corral-test/npm). Prints DIR on success;
# exits 1 (with the reason on stderr) when npm is missing or the registry cannot be reached.
set -eu

SRT_VERSION=0.0.83
CODEX_VERSION=0.169.0

if [ "$(id -u)" -eq 0 ]; then
	default=/var/cache/corral-test/npm
else
	default=${XDG_CACHE_HOME:-$HOME/.cache}/corral-test/npm
fi
dir=${1:-${CR_CLIENTS_DIR:-$default}}
stamp="$dir/.installed-srt-$SRT_VERSION-codex-$CODEX_VERSION"

if [ -e "$stamp" ]; then
	echo "$dir"
	exit 0
fi
command -v npm >/dev/null || { echo "install.sh: npm not found" >&2; exit 1; }
mkdir -p "$dir"
# A package.json of our own so that npm installs here and not in a parent project.
[ -e "$dir/package.json" ] || echo '{"name":"corral-test-clients","private":true}' >"$dir/package.json"
# Codex's platform binary is an optional dependency (npm alias of @openai/codex@VER-linux-x64);
# --include=optional keeps it even when the npm config omits optional packages.
if ! (cd "$dir" && npm install --no-audit --no-fund --include=optional --save-exact \
	"@anthropic-ai/sandbox-runtime@$SRT_VERSION" "@openai/codex@$CODEX_VERSION" >&2); then
	echo "install.sh: npm install failed (registry unreachable?)" >&2
	exit 1
fi
chmod -R a+rX "$dir"
touch "$stamp"
echo "$dir"
