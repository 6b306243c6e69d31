#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# apbbf's two block layouts side by side (docs/tuning.md, "The interleaved
# layout"): ddfbench speed of the paper's layout, the interleaved one and
# qqhtd at each budget and rate, the three back to back and the whole
# set repeated REPS times, so that a busy host slows each alike; one
# JSON line per timing, then per row the median and spread of ns/op and
# of the ratios to the qqhtd of the same repetition. RESIZE="1e-3=5e-4
# 1e-6=1e-9" adds a row per rate: the interleaved layout sized for the
# tighter rate, the shape whose measured rate meets the first (ddfbench
# accuracy). VARIANTS (default "paper interleaved resized qqhtd") may add
# paper-ahead and interleaved-ahead: ddfbench --prefetch-ahead AHEAD (8),
# and memory: the paper's layout in the least-memory shape (--tune memory).
# Not in check.
# Usage: [RESIZE=..] tests/bench/layout.sh [BUILD_DIR] [REPS] [BUDGETS] [RATES]
set -eu

B=${1:-build}
REPS=${2:-3}
BUDGETS=${3:-"1M 256M"}
RATES=${4:-"1e-3 1e-6"}
RESIZE=${RESIZE:-}
VARIANTS=${VARIANTS:-"paper interleaved resized qqhtd"}
AHEAD=${AHEAD:-8}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for r in $(seq "$REPS"); do
	for m in $BUDGETS; do
		for f in $RATES; do
			re=$(tr ' ' '\n' <<<"$RESIZE" | sed -n "s/^$f=//p")
			for v in $VARIANTS; do
				rate=$f
				case $v in
				qqhtd) args=(--filter qqhtd) ;;
				memory) args=(--filter apbbf --tune memory) ;;
				resized) [ -n "$re" ] || continue
					args=(--filter apbbf --layout interleaved)
					rate=$re ;;
				*-ahead) args=(--filter apbbf --layout "${v%-ahead}"
					--prefetch-ahead "$AHEAD") ;;
				*) args=(--filter apbbf --layout "$v") ;;
				esac
				"$B/ddfbench" speed "${args[@]}" --memory "$m" \
					--fpr "$rate" --json |
					sed "s/\"fpr_target\": [^,]*,/\"fpr_target\": $f, \"sized_for\": $rate,/" |
					tr -d '\n' |
					sed "s/^{/{\"rep\": $r, \"budget\": \"$m\", \"variant\": \"$v\", /"
				echo
			done
		done
	done
done | tee "$out"

python3 "$(dirname "$0")/layout_table.py" "$out"
