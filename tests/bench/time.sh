#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The userspace packet path on the clock: ddf_hotpath (hotpath.c) with
# DDF_HOTPATH_TIME, key packet and an apbbf rule at a 10^6 window (1e-6,
# tune speed), filled with a window of packets first; nanoseconds per
# packet for pktgen's 64-, 512- and 1500-byte packets, the median of
# ROUNDS rounds each, and the larger ones against the 64-byte one. A
# speed of this machine, not a test: nothing fails on a number.
#
#   time.sh BUILD_DIR [ROUNDS [PACKETS]]
set -eu
b=$1
rounds=${2:-5}
n=${3:-1000000}
w=1000000
first=
for size in 64 512 1500; do
	line=$(DDF_HOTPATH_TIME=$rounds "$b/ddf_hotpath" apbbf $w "$size" pkt \
		$w "$n" | sed -n 's/^ns\/packet //p')
	med=${line##*median }
	[ -n "$first" ] || first=$med
	printf '%5d B: %s; %s x the 64-byte packet\n' "$size" "$line" \
		"$(echo "scale=2; $med / $first" | bc -l)"
done
