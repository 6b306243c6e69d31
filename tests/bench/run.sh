#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench-kernel: the kernel-path benchmark in one VM boot (run.sh bench,
# tests/bench/vm-bench.sh), the userspace instruction counts under callgrind
# (callgrind.sh, full runs only), then the report (report.py): JSON,
# Markdown and a gnuplot PNG in build/bench/ (bench-kernel.* for a full
# run, bench-smoke.* for a smoke run).
#
#   tests/bench/run.sh [full|smoke]
#
# DDF_BENCH_* settings (vm-bench.sh) reach the VM through run.sh.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-full}
out=${DDF_BUILD:-$root/build}/bench
mkdir -p "$out"
rc=0
DDF_BENCH=$mode "$root/tests/qemu/run.sh" bench || rc=1
if [ "$mode" = full ] && command -v valgrind >/dev/null; then
	"$root/tests/bench/callgrind.sh" "${DDF_BUILD:-$root/build}" \
		"$out/callgrind.jsonl" >/dev/null || rc=1
fi
python3 "$root/tests/bench/report.py" "$out" "$mode" >/dev/null || rc=1
if [ "$mode" = smoke ] && [ $rc = 0 ]; then
	# The smoke run checks the path, not a speed: the run finished, each
	# configuration has its rounds, and every rule cost something over
	# no rule (under -icount a rule's added instructions are exact).
	python3 - "$out/bench-$mode.json" <<-'EOF' || rc=1
		import json, sys
		d = json.load(open(sys.argv[1]))
		rows = {r["config"]: r for r in d["results"]}
		bad = [] if d["complete"] else ["the run did not finish"]
		for c in ("base", "nft", "apbbf-pkt", "nd-pkt"):
		    r = rows.get(c)
		    if not r or r["rounds"] != d["info"]["rounds"]:
		        bad.append("%s: missing or short of rounds" % c)
		    elif c != "base" and not r.get("added_ns", 0) > 0:
		        bad.append("%s: costs nothing over no rule" % c)
		for b in bad:
		    print("bench-smoke: " + b)
		print("bench-smoke: " + ", ".join("%s %.0f ns/pkt" % (
		    c, rows[c]["ns_per_packet"]) for c in rows))
		sys.exit(1 if bad else 0)
	EOF
fi
name=bench-$mode
[ "$mode" != full ] || name=bench-kernel
echo "bench-kernel: $out/$name.md ($out/$name.json)"
exit $rc
