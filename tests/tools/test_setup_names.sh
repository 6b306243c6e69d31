#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make setup's package names per Debian release (scripts/setup-debian.sh
# --list): a plain line for every release, "RELEASE: NAME" for that one
# only, a release the lists do not know refused with the reason, a list
# naming an unknown release refused; and the tree's own lists read for
# each known release.
# Usage: tests/tools/test_setup_names.sh   (make check-tools)
set -eu

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

osr() { # osr FILE ID CODENAME
	printf 'PRETTY_NAME="test"\nID=%s\nVERSION_CODENAME=%s\n' "$2" "$3" >"$1"
}
list() { # list OS_RELEASE LISTS: the names, on one line
	DDF_OS_RELEASE=$1 DDF_PKG_LISTS=$2 DDF_EXTRA_PKGS='' \
		scripts/setup-debian.sh --list >"$tmp/out" || return
	tr '\n' ' ' <"$tmp/out"
}

mkdir "$tmp/lists" "$tmp/bad"
cat >"$tmp/lists/packages-a.txt" <<'L'
# a comment
both-one

bookworm: only-12
trixie: only-13
both-two
L
for r in bookworm trixie; do
	osr "$tmp/$r" debian "$r"
done
osr "$tmp/forky" debian forky
osr "$tmp/ubuntu" ubuntu noble

base="build-essential gcc make binutils"
got=$(list "$tmp/bookworm" "$tmp/lists")
[ "$got" = "$base both-one only-12 both-two " ] ||
	fail "bookworm's names: $got"
got=$(list "$tmp/trixie" "$tmp/lists")
[ "$got" = "$base both-one only-13 both-two " ] ||
	fail "trixie's names: $got"

for r in forky ubuntu; do
	if out=$(list "$tmp/$r" "$tmp/lists" 2>&1); then
		fail "$r not refused: $out"
	else
		case $out in
		*"not a Debian release whose package names the lists know"*) ;;
		*) fail "$r refused without the reason: $out" ;;
		esac
	fi
done

echo "sid: x" >"$tmp/bad/packages-b.txt"
if out=$(list "$tmp/bookworm" "$tmp/bad" 2>&1); then
	fail "a list naming release sid not refused: $out"
else
	case $out in
	*"packages-b.txt:1: no release sid"*) ;;
	*) fail "release sid refused without the place: $out" ;;
	esac
fi

# the tree's lists, read for each release
for r in bookworm trixie; do
	if got=$(list "$tmp/$r" scripts 2>&1); then
		echo "the lists on $r: $(echo "$got" | wc -w) names"
	else
		fail "the tree's lists on $r: $got"
	fi
done

[ "$fails" = 0 ] || exit 1
echo "PASS: setup's package names per release"
