#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# The table of tests/bench/layout.sh from its JSON lines (a file): per
# budget, rate and variant the median and spread over the repetitions of
# ns/op, of its ratio to the qqhtd of the same repetition and of its
# ratio to the dependent read the same process measured.
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
key = lambda r: (r["budget"], r["fpr_target"])
print("| budget | fpr | variant | shape | bytes | window | bits/elem | ns/op median (min-max) | / qqhtd median (min-max) | / dependent read median (min-max) | dup rate |")
print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
for b, f in sorted({key(r) for r in rows}, key=lambda x: (x[0][-1], int(x[0][:-1]), x[1])):
	sel = [r for r in rows if key(r) == (b, f)]
	q = {r["rep"]: r["ns_per_op"] for r in sel if r["variant"] == "qqhtd"}
	for v in ("paper", "memory", "interleaved", "resized", "paper-ahead", "interleaved-ahead", "qqhtd"):
		vs = [r for r in sel if r["variant"] == v]
		if not vs:
			continue
		pp = vs[0]["params"]
		shape = f"k={pp['k']} l={pp['l']}" + (f" {pp['block_bits']}/{pp['block_hashes']}" if pp["block_bits"] else "")
		if v == "memory":
			v = "paper, tune memory"
		if v == "resized":
			v = f"interleaved sized for {vs[0]['sized_for']:g}"
		if v.endswith("-ahead"):
			v = f"{v[:-6]}, prefetch-ahead {vs[0]['prefetch_ahead']}"
		ns = [r["ns_per_op"] for r in vs]
		rat = [r["ns_per_op"] / q[r["rep"]] for r in vs if r["rep"] in q]
		dep = [r["ns_per_op"] / r["ns_per_dependent_read"] for r in vs]
		w = vs[0]["params"]["window"]
		print(f"| {b} | {f:g} | {v} | {shape} | {vs[0]['bytes']} | {w} | {vs[0]['bytes'] * 8 / w:.2f} | "
		      f"{statistics.median(ns):.1f} ({min(ns):.1f}-{max(ns):.1f}) | "
		      f"{statistics.median(rat):.2f} ({min(rat):.2f}-{max(rat):.2f}) | "
		      f"{statistics.median(dep):.2f} ({min(dep):.2f}-{max(dep):.2f}) | "
		      f"{statistics.median(r['dup_rate'] for r in vs):.3g} |")
