# Sourced by the scripts in tools/: install_missing WHO PACKAGE... installs those of the Debian
# packages that are not installed yet, as root or through sudo, and exits the script with a
# message (prefixed WHO) when it cannot.
install_missing() {
	local who=$1 sudo= p
	local missing=()
	shift
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || { echo "$who: not root and no sudo: install sudo or run as root" >&2; exit 1; }
		sudo=sudo
	fi
	echo "$who: installing ${missing[*]}"
	$sudo apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
