#!/bin/sh
# Install the Debian packages the build and the tests need, when missing.
# Idempotent; prints nothing when there is nothing to do.
set -e

pkgs="build-essential gcc make binutils"
[ -n "$DDF_EXTRA_PKGS" ] && pkgs="$pkgs $DDF_EXTRA_PKGS"
for f in scripts/packages-*.txt; do
	[ -e "$f" ] && pkgs="$pkgs $(grep -v '^#' "$f" | tr '\n' ' ')"
done

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
apt-get install -y -q --no-install-recommends $missing >/dev/null
echo "setup: done"
