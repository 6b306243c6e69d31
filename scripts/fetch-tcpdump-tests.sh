#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fetch tcpdump's Debian source package for the capture files of its test
# suite (tests/*.pcap, tests/*.pcapng): real traffic, much of it deliberately
# malformed. Prints the tests directory on stdout; with --cached, only when
# the sources are already there (exit status 1 otherwise).
#
# The sources are unpacked once into a cache outside the tree
# (DDF_TCPDUMP_CACHE, default /var/cache/ddf/tcpdump-src) and rebuilt when
# missing. When the system's apt has no deb-src entry, a private one is
# configured beside the cache (its own sources, lists and archives, made
# from the system's deb entries), so /etc/apt is left as it is.
set -e

cache=${DDF_TCPDUMP_CACHE:-/var/cache/ddf/tcpdump-src}

found() {
	for d in "$cache"/tcpdump-*/tests; do
		if [ -d "$d" ] && ls "$d"/*.pcap >/dev/null 2>&1; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

found && exit 0
# --cached: only say where they are, never fetch
[ "${1:-}" = --cached ] && exit 1

for t in apt-get dpkg-source; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "fetch-tcpdump-tests: $t is missing (apt and dpkg-dev)" >&2
		exit 1
	fi
done

mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

apt_opts=""
if ! apt-get -qq source --print-uris tcpdump >/dev/null 2>&1; then
	# a deb-src twin of every deb entry, in a private apt configuration
	priv="$cache/.apt"
	mkdir -p "$priv/sources.list.d" "$priv/lists/partial" \
		"$priv/archives/partial"
	: >"$priv/sources.list"
	if [ -f /etc/apt/sources.list ]; then
		sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' \
			/etc/apt/sources.list >>"$priv/sources.list"
	fi
	for f in /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" \
			>>"$priv/sources.list"
	done
	rm -f "$priv"/sources.list.d/*.sources
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		grep -q '^Types:.*\bdeb\b' "$f" || continue
		sed 's/^Types:.*/Types: deb-src/' "$f" \
			>"$priv/sources.list.d/$(basename "$f")"
	done
	apt_opts="-o Dir::Etc::SourceList=$priv/sources.list
		-o Dir::Etc::SourceParts=$priv/sources.list.d
		-o Dir::State::Lists=$priv/lists -o Dir::Cache=$priv"
	echo "fetch-tcpdump-tests: a private deb-src configuration in $priv" >&2
	# shellcheck disable=SC2086
	if ! apt-get $apt_opts -qq update >"$tmp/update.log" 2>&1; then
		cat "$tmp/update.log" >&2
		echo "fetch-tcpdump-tests: apt-get update (deb-src) failed" >&2
		exit 1
	fi
fi

echo "fetch-tcpdump-tests: apt-get source tcpdump into $cache" >&2
# shellcheck disable=SC2086
if ! (cd "$tmp" && apt-get $apt_opts -o APT::Sandbox::User=root -q \
	source tcpdump >"$tmp/source.log" 2>&1); then
	cat "$tmp/source.log" >&2
	echo "fetch-tcpdump-tests: apt-get source tcpdump failed" >&2
	exit 1
fi
for d in "$tmp"/tcpdump-*/; do
	[ -d "$d/tests" ] || continue
	rm -rf "$cache/$(basename "$d")"
	mv "$d" "$cache/"
done
found || {
	echo "fetch-tcpdump-tests: no tests/*.pcap in the tcpdump sources" >&2
	exit 1
}
