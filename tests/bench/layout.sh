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
# accuracy). Not in check.
# Usage: [RESIZE=..] tests/bench/layout.sh [BUILD_DIR] [REPS] [BUDGETS] [RATES]
set -eu

B=${1:-build}
REPS=${2:-3}
BUDGETS=${3:-"1M 256M"}
RATES=${4:-"1e-3 1e-6"}
RESIZE=${RESIZE:-}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for r in $(seq "$REPS"); do
	for m in $BUDGETS; do
		for f in $RATES; do
			re=$(tr ' ' '\n' <<<"$RESIZE" | sed -n "s/^$f=//p")
			for v in paper interleaved ${re:+resized} qqhtd; do
				rate=$f
				case $v in
				qqhtd) args=(--filter qqhtd) ;;
				resized) args=(--filter apbbf --layout interleaved)
					rate=$re ;;
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

python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
key = lambda r: (r["budget"], r["fpr_target"])
print("| budget | fpr | variant | shape | bytes | window | bits/elem | ns/op median (min-max) | / qqhtd median (min-max) | dup rate |")
print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|")
for b, f in sorted({key(r) for r in rows}, key=lambda x: (x[0][-1], int(x[0][:-1]), x[1])):
	sel = [r for r in rows if key(r) == (b, f)]
	q = {r["rep"]: r["ns_per_op"] for r in sel if r["variant"] == "qqhtd"}
	for v in ("paper", "interleaved", "resized", "qqhtd"):
		vs = [r for r in sel if r["variant"] == v]
		if not vs:
			continue
		pp = vs[0]["params"]
		shape = f"k={pp['k']} l={pp['l']}" + (f" {pp['block_bits']}/{pp['block_hashes']}" if pp["block_bits"] else "")
		if v == "resized":
			v = f"interleaved sized for {vs[0]['sized_for']:g}"
		ns = [r["ns_per_op"] for r in vs]
		rat = [r["ns_per_op"] / q[r["rep"]] for r in vs if r["rep"] in q]
		w = vs[0]["params"]["window"]
		print(f"| {b} | {f:g} | {v} | {shape} | {vs[0]['bytes']} | {w} | {vs[0]['bytes'] * 8 / w:.2f} | "
		      f"{statistics.median(ns):.1f} ({min(ns):.1f}-{max(ns):.1f}) | "
		      f"{statistics.median(rat):.2f} ({min(rat):.2f}-{max(rat):.2f}) | "
		      f"{statistics.median(r['dup_rate'] for r in vs):.3g} |")
PY
