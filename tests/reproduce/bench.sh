#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench: the papers' tables as ddfbench reproduces them, every filter's
# speed beside the memory system's limits, every filter's error rate
# against its memory, and the rule filters shared by threads, into
# build/bench/ (report.py: Markdown, JSON and
# gnuplot PNGs; bench-filters.md is the summary).
#
#   tests/reproduce/bench.sh [full|quick]
#
# quick: the reproductions' --quick sizes, speed at 1 MiB only.
# The runs are niced: the machine may be shared.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${DDF_BUILD:-$root/build}
out=$B/bench
mode=${1:-full}
mkdir -p "$out"
bench="nice -n 10 $B/ddfbench"
rc=0

if [ "$mode" = quick ]; then
	rq=--quick
	sm="--memory 1M"
else
	rq=
	sm=
fi

# the machine's load when the run starts: the speed table depends on it
cut -d' ' -f1-3 /proc/loadavg >"$out/loadavg" 2>/dev/null || :
t0=$(date +%s)
# shellcheck disable=SC2086
$bench reproduce all $rq --json-out "$out/reproduce.json" \
	>"$out/reproduce.md" || rc=1
t1=$(date +%s)
# shellcheck disable=SC2086
$bench speed --all $sm --json >"$out/speed.json" || rc=1
t2=$(date +%s)
$bench accuracy --all --json >"$out/accuracy.json" || rc=1
t3=$(date +%s)
# One filter shared by threads, up to twice the CPUs (the rule filters at
# 1e-3, their shape as ddfctl sizes it), of 16 MiB (the last-level cache can
# hold it) and of 256 MiB (memory)
nt=$((2 * $(nproc)))
: >"$out/threads.jsonl"
for m in 16777216 268435456; do
	for f in apbbf apbf qqhtd exact; do
		$bench speed --filter $f --memory $m --fpr 1e-3 \
			--threads $nt --json >>"$out/threads.jsonl" || rc=1
	done
done
t4=$(date +%s)

python3 "$root/tests/reproduce/report.py" "$out" "$mode" \
	"$((t1 - t0))" "$((t2 - t1))" "$((t3 - t2))" "$((t4 - t3))" || rc=1
grep '^verdict ' "$out/reproduce.md"
echo "bench: $out/bench-filters.md (reproduce $((t1 - t0)) s, speed $((t2 - t1)) s, accuracy $((t3 - t2)) s, threads $((t4 - t3)) s)"
[ $rc = 0 ] || echo "bench: a reproduction failed or a step did not finish" >&2
exit $rc
