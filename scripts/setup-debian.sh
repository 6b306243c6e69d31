#!/bin/sh
# Install the Debian packages the build and the tests need, when missing.
# Idempotent; prints nothing when there is nothing to do.
#
#   setup-debian.sh          install what is missing (root)
#   setup-debian.sh --list   print this release's package names, one a line
#
# The lists (scripts/packages-*.txt) hold a package name a line, for every
# release; a line "RELEASE: NAME" names a package of that release only,
# where the releases' names differ. The release is VERSION_CODENAME of
# /etc/os-release ($DDF_OS_RELEASE); one not known here is refused rather
# than half installed with names that may not exist in it. $DDF_PKG_LISTS:
# the lists' directory (scripts).
set -e

releases="bookworm trixie"
os_release=${DDF_OS_RELEASE:-/etc/os-release}
lists=${DDF_PKG_LISTS:-scripts}
case ${1-} in
'' | --list) ;;
*)
	echo "usage: setup-debian.sh [--list]" >&2
	exit 2
	;;
esac

# shellcheck disable=SC1090
rel=$( { . "$os_release"; } 2>/dev/null && echo "${ID-}/${VERSION_CODENAME-}") || rel=""
case $rel in
debian/*) rel=${rel#debian/} ;;
*) rel="not Debian: ${rel:-no $os_release}" ;;
esac
case " $releases " in
*" $rel "*) ;;
*)
	echo "setup: not a Debian release whose package names the lists" \
		"know (${rel:-no VERSION_CODENAME};" \
		"known: $releases): install the packages of" \
		"$lists/packages-*.txt by hand" >&2
	exit 1
	;;
esac

pkgs="build-essential gcc make binutils"
[ -n "$DDF_EXTRA_PKGS" ] && pkgs="$pkgs $DDF_EXTRA_PKGS"
for f in "$lists"/packages-*.txt; do
	[ -e "$f" ] || continue
	names=$(awk -v rel="$rel" -v f="$f" '
		/^[ \t]*(#|$)/ { next }
		$1 ~ /:$/ {
			r = substr($1, 1, length($1) - 1)
			if (index(" '"$releases"' ", " " r " ") == 0) {
				print "setup: " f ":" NR ": no release " r \
					" (known: '"$releases"')" >"/dev/stderr"
				exit 1
			}
			if (r == rel) print $2
			next
		}
		{ print $1 }' "$f") || exit 1
	pkgs="$pkgs $names"
done
# shellcheck disable=SC2086,SC2116 # one line, one space between names
pkgs=$(echo $pkgs)

if [ "${1-}" = --list ]; then
	echo "$pkgs" | tr ' ' '\n'
	exit 0
fi

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "setup: installing$missing"
if [ "$(id -u)" != 0 ]; then
	echo "setup: need root to install:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null 2>&1 || true
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
echo "setup: done"
