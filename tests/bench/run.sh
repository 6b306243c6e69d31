#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench-kernel: the kernel-path benchmark in one VM boot (run.sh bench,
# tests/bench/vm-bench.sh), the userspace instruction counts under callgrind
# (callgrind.sh, full runs only), then the report (report.py): JSON,
# Markdown and a gnuplot PNG in build/bench/.
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
echo "bench-kernel: $out/bench-kernel.md ($out/bench-kernel.json)"
exit $rc
