#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ddfctl built with ASan and UBSan (build/asan/), where it loads and
# attaches many XDP programs in one process:
#
# 1. ddfctl_xdp_tests: restore's XDP loads, one per attachment, libbpf's
#    load a stand-in and open_memstream() failing for some;
# 2. restore and apply (-n, no kernel) of many rules and XDP attachments.
#
# Usage: tests/tools/test_asan.sh [BUILD_DIR]
set -e

B=${1:-build}
CTL=$B/asan/ddfctl
N=64
half=$((N / 2))
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C
# any report fails the command; leaks too
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# 1.
"$B/asan/ddfctl_xdp_tests" && ok || bad "ddfctl_xdp_tests"

# 2. N netdev rules of hook none, each with its XDP line; the running
# state has every other one, so apply adds, deletes, attaches and detaches
for i in $(seq 1 $N); do
	echo "rule add r$i family netdev hook none dev xd$i window 1000"
done >"$tmp/all"
for i in $(seq 1 $N); do
	echo "xdp attach dev xd$i rule r$i mode generic"
done >>"$tmp/all"
grep -E ' (r|xd)[0-9]*[02468]( |$)' "$tmp/all" >"$tmp/half"

if "$CTL" -n restore "$tmp/all" >"$tmp/out" 2>"$tmp/err"; then
	[ "$(grep -c '^DDF_CMD_NEW' "$tmp/out")" = $N ] &&
		[ "$(grep -c '^xdp attach dev xd[0-9]* rule r[0-9]* mode generic priority 5: dry run' "$tmp/out")" = $N ] &&
		[ ! -s "$tmp/err" ] && ok ||
		bad "restore of $N rules and attachments: $(tail -3 "$tmp/out") $(cat "$tmp/err")"
else
	bad "restore of $N rules and attachments failed: $(head -20 "$tmp/err")"
fi

if "$CTL" -n apply "$tmp/all" --against "$tmp/half" >"$tmp/out" 2>"$tmp/err"; then
	grep -qx "apply (dry run): rules: $half kept, 0 changed, $half added, 0 deleted; xdp: $half kept, $half attached, 0 detached" \
		"$tmp/out" && [ ! -s "$tmp/err" ] && ok ||
		bad "apply of $N over $half: $(tail -3 "$tmp/out") $(cat "$tmp/err")"
else
	bad "apply of $N over $half failed: $(head -20 "$tmp/err")"
fi
if "$CTL" -n apply "$tmp/half" --against "$tmp/all" >"$tmp/out" 2>"$tmp/err"; then
	grep -qx "apply (dry run): rules: $half kept, 0 changed, 0 added, $half deleted; xdp: $half kept, 0 attached, $half detached" \
		"$tmp/out" && [ ! -s "$tmp/err" ] && ok ||
		bad "apply of $half over $N: $(tail -3 "$tmp/out") $(cat "$tmp/err")"
else
	bad "apply of $half over $N failed: $(head -20 "$tmp/err")"
fi

echo "test_asan: $pass passed, $fail failed"
[ "$fail" = 0 ]
