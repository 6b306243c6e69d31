#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check-fuzz, one target: its seeds and regression inputs each run
# once, then RUNS runs of fuzzing from them, mutated from SEED, into a
# scratch directory. One seed makes the same runs on any machine, so the
# check fails on every machine or on none (up to the little a target's
# code takes from the clock); a slow machine stops after SECS seconds,
# within the same runs.
#
# Usage: tests/fuzz/check.sh BINARY TARGET RUNS SECS SEED FUZZ_DIR
#                            [LIBFUZZER_ARG...]
set -eu

bin=$1
t=$2
runs=$3
secs=$4
seed=$5
dir=$6
shift 6
corpus=tests/fuzz/corpus/$t
regress=tests/fuzz/regress/$t
scratch=$dir/check/$t
log=$dir/check/$t.log
rm -rf "$scratch" && mkdir -p "$scratch"
start=$(date +%s)
regdir=
[ ! -d "$regress" ] || regdir=$regress

inputs=$(find "$corpus" "$regress" -type f 2>/dev/null | wc -l)
if [ "$inputs" = 0 ]; then
	echo "check-fuzz: $t: FAIL: no seed in $corpus"
	exit 1
fi
# plain runs: each file once, no fuzzing
if ! find "$corpus" "$regress" -type f 2>/dev/null | sort | \
	xargs "$bin" -close_fd_mask=3 "$@" >"$log" 2>&1; then
	echo "check-fuzz: $t: FAIL: an input of $corpus or $regress fails"
	grep -a 'ERROR\|invariant broken\|SUMMARY\|Running:' "$log" | tail -n 5
	exit 1
fi
if ! "$bin" -seed="$seed" -runs="$runs" -max_total_time="$secs" \
	-print_final_stats=1 -close_fd_mask=3 "$@" \
	-artifact_prefix="$scratch/" "$scratch" "$corpus" ${regdir:+"$regdir"} \
	>"$log" 2>&1; then
	echo "check-fuzz: $t: FAIL: fuzzing (seed $seed) found an input" \
		"that fails: $(sed -n 's/.*Test unit written to //p' "$log")"
	grep -a 'ERROR\|invariant broken\|SUMMARY' "$log" | head -n 5
	exit 1
fi
did=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
cov=$(grep -a '^#[0-9]' "$log" | tail -n 1 | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
late=
[ "$did" -ge "$runs" ] || late=" (stopped at $secs s)"
echo "check-fuzz: $t: $inputs inputs replayed, $did of $runs runs from" \
	"seed $seed$late (cov $cov): OK in $(( $(date +%s) - start )) s"
