#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make fuzz's summary: a line per target from its run's log (libFuzzer's
# -print_final_stats=1 and its last status line), then each finding.
#
# Usage: tests/fuzz/summary.sh FUZZ_DIR TARGET...
set -eu

dir=$1
shift
rc=0
printf '%-12s %6s %10s %7s %6s %7s %12s %8s\n' target cpu_s runs exec/s cov ft corpus findings
for t in "$@"; do
	log=$dir/run/$t.log
	if [ ! -f "$log" ]; then
		printf '%-12s no log: not run\n' "$t"
		rc=1
		continue
	fi
	# the last status line: "#N DONE cov: C ft: F corp: U/Sb ..."
	status=$(grep -a '^#[0-9]' "$log" | tail -n 1)
	stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -n 1; }
	field() { echo "$status" | sed -n "s/.* $1: \([^ ]*\).*/\1/p"; }
	n=$(grep -ac '^==[0-9]*==.*ERROR\|invariant broken\|^artifact_prefix' "$log" || true)
	found=$(sed -n "s/.*Test unit written to \(.*\)/\1/p" "$log")
	[ -z "$found" ] || rc=1
	cpu=$(awk '{ printf "%d", $1 + $2 }' "$dir/run/$t.cpu" 2>/dev/null || true)
	printf '%-12s %6s %10s %7s %6s %7s %12s %8s\n' "$t" "${cpu:--}" \
		"$(stat number_of_executed_units)" \
		"$(stat average_exec_per_sec)" "$(field cov)" "$(field ft)" \
		"$(field corp)" "$([ -n "$found" ] && echo 1 || echo 0)"
	[ "$n" = 0 ] || grep -a 'ERROR\|invariant broken\|SUMMARY' "$log" | head -n 3
	[ -z "$found" ] || echo "  $t: finding $found (log $log)"
done
exit $rc
