#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Instructions per packet of ddf's packet path in userspace: ddf_hotpath
# (hotpath.c) under callgrind, instrumenting only the measured packets.
#
#   callgrind.sh BUILD_DIR OUT.jsonl
#
# One JSON line per configuration: the instructions of PACKETS packets
# after FILL = min(window, DDF_CG_FILL_MAX) packets, over PACKETS, less the
# same loop with no filter (building the packets).
set -eu
b=$1
out=$2
: "${DDF_CG_PACKETS:=20000}"
: "${DDF_CG_FILL_MAX:=1000000}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ir() { # KIND WINDOW SIZE KEY FILL: total instructions
	valgrind --tool=callgrind --instr-atstart=no \
		--callgrind-out-file="$tmp/cg.out" \
		"$b/ddf_hotpath" "$@" "$DDF_CG_PACKETS" >/dev/null 2>"$tmp/log" ||
		{ cat "$tmp/log" >&2; return 1; }
	sed -n 's/^totals: *//p' "$tmp/cg.out"
}

: >"$out"
for size in 64 512 1500; do
	for key in pkt 5t; do
		none=$(ir none 0 "$size" "$key" 0)
		for kind in apbbf qqhtd exact; do
			for w in 10000 1000000; do
				[ "$size" = 64 ] || [ "$kind$key$w" = apbbfpkt1000000 ] ||
					continue
				fill=$w
				[ "$fill" -le "$DDF_CG_FILL_MAX" ] || fill=$DDF_CG_FILL_MAX
				t=$(ir "$kind" "$w" "$size" "$key" "$fill")
				printf '{"kind":"%s","key":"%s","size":%d,"window":%d,"fill":%d,"packets":%d,"ir":%d,"ir_build":%d,"ir_per_packet":%s}\n' \
					"$kind" "$key" "$size" "$w" "$fill" \
					"$DDF_CG_PACKETS" "$t" "$none" \
					"$(echo "($t - $none) / $DDF_CG_PACKETS" | bc -l)" |
					tee -a "$out"
			done
		done
	done
done
