#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ddfbench's command lines: an option a command does not read is refused
# with a sentence naming it (never ignored), bad values and stray words
# too, and the options a command does read are still taken. One case times
# a filter (speed --threads, a few seconds); the rest end before that.
# Usage: tests/ddfbench/options.sh [BUILD_DIR]
set -u

B=${1:-build}
BENCH=$B/ddfbench
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# refused "MESSAGE" ARGS...: exit status 2 and exactly MESSAGE on stderr
refused() {
	local want=$1 rc
	shift
	"$BENCH" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(cat "$tmp/err")" = "$want" ] &&
		[ ! -s "$tmp/out" ]; then
		ok
	else
		bad "ddfbench $*: status $rc, stderr '$(cat "$tmp/err")'," \
			"want 2 and '$want'"
	fi
}

# Test that --tune takes speed or memory, and that accuracy --all (the
# least memory) and reproduce (the papers' shapes) refuse it
refused "ddfbench: --tune: speed or memory, not 'fast'" \
	size --filter apbbf --window 1000 --fpr 1e-3 --tune fast
refused "ddfbench accuracy: --tune is not an option of accuracy --all" \
	accuracy --all --tune memory
"$BENCH" size --filter apbbf --window 100000 --fpr 1e-6 --tune memory >"$tmp/m" &&
	"$BENCH" size --filter apbbf --window 100000 --fpr 1e-6 >"$tmp/s" &&
	grep -qx 'new key     9 cache lines, 24 atomic words (tune memory)' "$tmp/m" &&
	grep -qx 'new key     5 cache lines, 4 atomic words (tune speed)' "$tmp/s" &&
	ok || bad "size --tune: $(cat "$tmp/m" "$tmp/s")"

# Test that --layout is apbbf's, of accuracy and speed only, paper or
# interleaved, and that accuracy says which layout it measured
refused "ddfbench: --layout: paper or interleaved, not 'packed'" \
	accuracy --filter apbbf --window 1000 --fpr 1e-3 --inserts 10 \
	--probes 10 --layout packed
refused "ddfbench accuracy: --layout interleaved is an apbbf layout" \
	accuracy --filter apbf --window 1000 --fpr 1e-3 --inserts 10 \
	--probes 10 --layout interleaved
refused "ddfbench size: --layout is not an option of size" \
	size --filter apbbf --window 1000 --fpr 1e-3 --layout interleaved
refused "ddfbench speed: --layout is not an option of speed --all" \
	speed --all --layout interleaved
refused "ddfbench speed: --prefetch-ahead is for apbbf without --threads" \
	speed --filter qqhtd --memory 1M --prefetch-ahead 8
refused "ddfbench: --prefetch-ahead: 1 to 64" \
	speed --filter apbbf --memory 1M --prefetch-ahead 65
refused "ddfbench accuracy: --prefetch-ahead is not an option of accuracy" \
	accuracy --filter apbbf --window 1000 --fpr 1e-3 --inserts 10 \
	--probes 10 --prefetch-ahead 8
"$BENCH" accuracy --filter apbbf --window 1000 --fpr 1e-3 --inserts 20000 \
	--probes 1000 --layout interleaved >"$tmp/il" &&
	grep -q '^filter apbbf (layout interleaved) k=' "$tmp/il" &&
	grep -qx 'false negatives inside the window: 0 of 20000 checks' "$tmp/il" &&
	ok || bad "accuracy --layout interleaved: $(cat "$tmp/il")"

# Test that each command names the option it does not read
refused "ddfbench speed: --inserts is not an option of speed" \
	speed --filter apbbf --memory 1M --inserts 10
refused "ddfbench speed: --seed is not an option of speed" \
	speed --filter apbbf --memory 1M --seed 3
refused "ddfbench speed: --filter is not an option of speed --all" \
	speed --all --filter apbbf
refused "ddfbench speed: --k is not an option of speed --all" \
	speed --all --k 3
refused "ddfbench size: --probes is not an option of size" \
	size --filter apbbf --window 1000 --fpr 1e-3 --probes 5
refused "ddfbench size: --thp is not an option of size" \
	size --filter apbbf --window 1000 --fpr 1e-3 --thp
refused "ddfbench size: --all is not an option of size" size --all
refused "ddfbench accuracy: --thp is not an option of accuracy" \
	accuracy --filter apbbf --window 1000 --fpr 1e-3 --inserts 10 \
	--probes 10 --thp
refused "ddfbench accuracy: --fpr is not an option of accuracy --all" \
	accuracy --all --fpr 1e-3
refused "ddfbench accuracy: --filter is not an option of accuracy --all" \
	accuracy --all --filter apbf
refused "ddfbench reproduce: --quick is not an option of reproduce list" \
	reproduce list --quick
refused "ddfbench reproduce: --seed is not an option of reproduce" \
	reproduce all --seed 3

# Test that bad values, stray words and unkept shapes are refused
refused "ddfbench: --fpr: not a rate in (0, 1): 2" \
	size --filter apbbf --window 1000 --fpr 2
refused "ddfbench: --fpr: not a rate in (0, 1): 1e-3x" \
	size --filter apbbf --window 1000 --fpr 1e-3x
refused "ddfbench size: unexpected argument 'apbbf'" \
	size --filter apbbf --window 1000 --fpr 1e-3 apbbf
refused "ddfbench reproduce: unexpected argument 'list'" \
	reproduce all list
refused "ddfbench reproduce: --json-out needs a file" reproduce all --json-out
refused "ddfbench speed: give --memory BYTES or --window W (or --all)" \
	speed --filter apbbf
refused "ddfbench speed: queue: --k 5 not kept (sized 4)" \
	speed --filter queue --memory 1M --k 5
refused "ddfbench: --threads: 1 to 1024" \
	speed --filter apbbf --memory 1M --threads 0
refused "ddfbench speed: --threads is not an option of speed --all" \
	speed --all --threads 2
refused "ddfbench size: --threads is not an option of size" \
	size --filter apbbf --window 1000 --fpr 1e-3 --threads 2

# Test that the options a command reads are taken: the shape size prints
# is the one asked for
"$BENCH" size --filter apbbf --window 100000 --fpr 1e-6 --k 3 --l 5 \
	--block-bits 512 --block-hashes 8 >"$tmp/out" 2>&1
grep -qx 'shape       k=3 l=5 m=[0-9]* B=512 b=8' "$tmp/out" && ok ||
	bad "size keeps --k 3 --l 5 --block-bits 512 --block-hashes 8:" \
		"$(cat "$tmp/out")"
"$BENCH" reproduce list >"$tmp/out" 2>&1 && grep -q '^apbf-table1 ' \
	"$tmp/out" && ok || bad "reproduce list: $(cat "$tmp/out")"

# Test that speed --threads runs 1, 2 and 3 threads on one filter: the
# exact filter never calls a key of these distinct streams a duplicate
# (a few seconds: the one case here that times a filter)
"$BENCH" speed --filter exact --window 100000 --threads 3 --json \
	>"$tmp/out" 2>&1
grep -q '"threads": \[{"threads": 1, "mops": [0-9.]*, "scaling": 1.000, "dups": 0}, {"threads": 2, [^}]*"dups": 0}, {"threads": 3, [^}]*"dups": 0}\]' \
	"$tmp/out" && ok || bad "speed --threads 3: $(cat "$tmp/out")"
# and that it measured a cache line's round trip between two CPUs, which
# a machine of one CPU cannot
if [ "$(nproc)" -ge 2 ]; then
	grep -q '"line_round_trip_ns": [0-9]*[1-9][0-9]*\.[0-9]}$' "$tmp/out" &&
		ok || bad "speed --threads 3: no line round trip: $(cat "$tmp/out")"
else
	grep -q '"line_round_trip_ns": null}$' "$tmp/out" && ok ||
		bad "speed --threads 3 on one CPU: $(cat "$tmp/out")"
fi

echo "ddfbench options: $pass passed, $fail failed"
[ "$fail" = 0 ]
