#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The same rule words size the same filter on any CPU. REQUESTS (written
# by this machine's `ddf_size_grid requests`: every kind over a grid of
# windows, rates and budgets that are not round, and both rates of each
# shape boundary it found by search) sized by this machine's
# ddf_size_grid and by another build's must print the same bytes: every
# parameter, and every rate to the bit. Then `ddfctl -j size` by both
# builds on the first boundary of every kind and on rates that once sized
# differently on arm64 and s390x (a fused multiply-add).
#
#   tests/cross/size.sh NAME REQUESTS HERE_DIR OTHER_DIR [RUNNER...]
#
# HERE_DIR and OTHER_DIR hold ddf_size_grid and ddfctl; RUNNER runs
# OTHER_DIR's (e.g. qemu-s390x-static -L SYSROOT). Exits 1 on a difference.
set -u
name=$1 requests=$2 here=$3 there=$4
shift 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
fail=0

n=$(wc -l <"$requests")
edges=$(grep -c '^edge ' "$requests")
if ! "$here/ddf_size_grid" size <"$requests" >"$tmp/a" 2>&1; then
	echo "not ok: this machine's ddf_size_grid fails: $(tail -n 1 "$tmp/a")"
	exit 1
fi
if ! "$@" "$there/ddf_size_grid" size <"$requests" >"$tmp/b" 2>&1; then
	echo "not ok: $name's ddf_size_grid fails: $(tail -n 1 "$tmp/b")"
	fail=$((fail + 1))
elif cmp -s "$tmp/a" "$tmp/b"; then
	echo "ok: ddf_size_grid: $n requests ($edges on shape boundaries), the same shapes and rates"
else
	# line by line: the same requests in the same order
	awk 'NR == FNR { a[FNR] = $0; next }
		a[FNR] != $0 { print "< " a[FNR]; print "> " $0 }' \
		"$tmp/a" "$tmp/b" >"$tmp/diff"
	echo "not ok: ddf_size_grid: $(($(wc -l <"$tmp/diff") / 2)) of $n requests size differently on $name (< here, > $name):"
	head -n 6 "$tmp/diff"
	fail=$((fail + 1))
fi

# ddfctl: the first boundary of each kind, and the rates of the report
awk '$1 == "edge" && seen[$3]++ < 2 { $1 = ""; print substr($0, 2) }' \
	"$requests" >"$tmp/words"
cat >>"$tmp/words" <<EOF
filter a2 window 65536 fpr 1e-6
filter a2 window 65536 fpr 9.975211425e-07
filter a2 window 2000 fpr 0.0494152228576408
EOF
same=0
while read -r words; do
	# shellcheck disable=SC2086 # the words are ddfctl's arguments
	"$here/ddfctl" -j size $words >"$tmp/c" 2>&1 </dev/null
	# shellcheck disable=SC2086
	"$@" "$there/ddfctl" -j size $words >"$tmp/d" 2>&1 </dev/null
	if cmp -s "$tmp/c" "$tmp/d"; then
		same=$((same + 1))
	else
		echo "not ok: ddfctl -j size $words:"
		diff "$tmp/c" "$tmp/d" | grep '^[<>]' | cut -c1-300
		fail=$((fail + 1))
	fi
done <"$tmp/words"
[ "$same" = "$(wc -l <"$tmp/words")" ] &&
	echo "ok: ddfctl -j size: $same requests, the same JSON"

echo "size ($name): $n requests and $same by ddfctl, $fail differing, in $(($(date +%s) - t0)) s"
[ "$fail" = 0 ]
