#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Test that `ddfctl replay FILE key frame filter exact window N-1` drops
# exactly the packets `editcap -D N` removes (the same packet numbers, not
# just as many), on every capture of tcpdump's test suite that both
# editcap (wiretap) and libpcap read as the same frames.
#
# editcap -D N compares a frame's length and MD5 with those of the previous
# N - 1 frames, duplicates included (each enters its ring); the exact filter
# with window N - 1 answers a key seen among the previous N - 1 insertions,
# and every packet is inserted. editcap -V numbers the frames it keeps
# ("Packet:") and removes ("Skipped:"); replay -l numbers the records and
# says duplicate.
#
# Before comparing, the frames must be the same: their lengths are checked
# record by record. libpcap cuts a record longer than the file's snap length
# (fuzzed captures have them) where wiretap reads it whole: then editcap is
# given -s SNAPLEN, which cuts the same records the same way before its
# duplicate test. A capture is skipped, with the reason printed, when
# editcap or replay cannot read it (libpcap refuses it, or a time is past
# what 64 bits of nanoseconds hold) or their frames still differ (wiretap
# moves some link types' pseudo-header out of the frame).
#
# Usage: tests/tools/test_replay_editcap.sh [BUILD_DIR]
# DDF_EDITCAP_N: the windows N (default "2 5 100").
set -e

B=${1:-build}
CTL=$B/ddfctl
NS=${DDF_EDITCAP_N:-2 5 100}

if ! command -v editcap >/dev/null; then
	echo "FAIL: editcap is missing (package wireshark-common: make setup)"
	exit 1
fi
if ! dir=$(scripts/fetch-tcpdump-tests.sh); then
	echo "FAIL: no tcpdump test captures (scripts/fetch-tcpdump-tests.sh)"
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

used=0
cut=0
fail=0
compared=0
declare -A dropped
skips=()

# editcap's frame numbers (by order, not its record counter) and lengths
editcap_run() { # N FILE [editcap options...]
	local n=$1 f=$2
	shift 2
	editcap "$@" -V -D "$n" "$f" /dev/null >"$tmp/e.out" 2>&1 || return 1
	: >"$tmp/e.len"
	awk -v lens="$tmp/e.len" '/^(Packet|Skipped):/ { n++; l = $4
		sub(",", "", l); print l >lens } /^Skipped:/ { print n }' \
		"$tmp/e.out" >"$tmp/e.idx"
}

replay_run() { # N FILE
	"$CTL" -j replay "$2" key frame filter exact window $(($1 - 1)) \
		-l "$tmp/r.log" >"$tmp/r.json" 2>"$tmp/r.err" || return 1
	: >"$tmp/r.len"
	awk -v lens="$tmp/r.len" '{ print $3 >lens }
		$2 == "duplicate" { print $1 }' "$tmp/r.log" >"$tmp/r.idx"
}

# why the frames of the two readers differ
frames_differ() {
	local ne nr
	ne=$(wc -l <"$tmp/e.len")
	nr=$(wc -l <"$tmp/r.len")
	if [ "$ne" != "$nr" ]; then
		echo "editcap reads $ne frames, libpcap $nr"
		return
	fi
	paste "$tmp/e.len" "$tmp/r.len" | awk '
		{ d = $2 - $1; if (NR == 1) { d1 = d } else if (d != d1) same = 1
		  if (!first && d) first = NR ": " $1 " vs " $2 " bytes" }
		END { if (!same && d1 > 0)
			print "wiretap moves a " d1 "-byte pseudo-header out of every frame; libpcap keeps it"
		      else print "frames differ in length (first at frame " first ")" }'
}

shopt -s nullglob
for f in "$dir"/*.pcap "$dir"/*.pcapng; do
	name=$(basename "$f")
	first=${NS%% *}
	if ! editcap_run "$first" "$f"; then
		why=$(grep -v '^File \|^Packet:\|^Skipped:' "$tmp/e.out" |
			sed "s|$f|FILE|g; s|^editcap: ||" | tr '\n' ' ')
		skips+=("$name: editcap cannot read it: ${why% }")
		continue
	fi
	if ! replay_run "$first" "$f"; then
		skips+=("$name: replay cannot read it: $(sed "s|$f|FILE|g" \
			"$tmp/r.err" | tr '\n' ' ')")
		continue
	fi
	opts=()
	if ! cmp -s "$tmp/e.len" "$tmp/r.len"; then
		snap=$(sed -n 's/.*"snaplen": \([0-9]*\).*/\1/p' "$tmp/r.json")
		if [ -n "$snap" ] && editcap_run "$first" "$f" -s "$snap" &&
			cmp -s "$tmp/e.len" "$tmp/r.len"; then
			opts=(-s "$snap")
			cut=$((cut + 1))
		else
			editcap_run "$first" "$f" || true
			skips+=("$name: $(frames_differ)")
			continue
		fi
	fi
	used=$((used + 1))
	for n in $NS; do
		if [ "$n" != "$first" ] && ! { editcap_run "$n" "$f" "${opts[@]}" &&
			replay_run "$n" "$f"; }; then
			fail=$((fail + 1))
			echo "FAIL: $name: -D $n: editcap or replay failed" \
				"$(cat "$tmp/e.out" "$tmp/r.err")"
			continue
		fi
		compared=$((compared + $(wc -l <"$tmp/r.len")))
		dropped[$n]=$((${dropped[$n]:-0} + $(wc -l <"$tmp/r.idx")))
		if ! cmp -s "$tmp/e.idx" "$tmp/r.idx"; then
			fail=$((fail + 1))
			echo "FAIL: $name: editcap ${opts[*]} -D $n removes" \
				"$(tr '\n' ' ' <"$tmp/e.idx")| replay window" \
				"$((n - 1)) drops $(tr '\n' ' ' <"$tmp/r.idx")"
		fi
	done
done

echo "editcap -D N equality (N = $NS): ${#skips[@]} captures skipped:"
for s in "${skips[@]}"; do
	echo "  skipped $s"
done
summary=""
for n in $NS; do
	summary="$summary, -D $n drops ${dropped[$n]:-0}"
done
echo "editcap -D N equality: $used captures used ($cut of them with" \
	"editcap -s, libpcap's snap length cut), ${#skips[@]} skipped;" \
	"$compared packet decisions compared$summary"
if [ "$used" = 0 ]; then
	echo "FAIL: no capture compared"
	exit 1
fi
echo "test_replay_editcap: $fail failed"
[ "$fail" = 0 ]
