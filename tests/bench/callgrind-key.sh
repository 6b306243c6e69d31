#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Instructions per frame of the key alone: ddf_key_hash_link() over
# Ethernet frames whole in memory (ddf_keypath, keypath.c) under
# callgrind, instrumenting only the measured frames.
#
#   callgrind-key.sh BUILD_DIR OUT.jsonl
#
# One JSON line per configuration (family, protocol, frame size from the
# MAC header, no CRC: 64, 512, 1500 bytes; 74 for IPv6/TCP, whose headers
# need that much; key packet or a 5-tuple with 16 payload bytes; and
# IPv4/UDP with a tag the link took out, key packet, for the general walk):
# the instructions of PACKETS frames less the same loop that only builds
# them, over PACKETS.
set -eu
b=$1
out=$2
: "${DDF_CG_PACKETS:=20000}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ir() { # FAMILY PROTO SIZE KEY [tagged]: total instructions
	f=$1 p=$2 s=$3 k=$4
	shift 4
	valgrind --tool=callgrind --instr-atstart=no \
		--callgrind-out-file="$tmp/cg.out" \
		"$b/ddf_keypath" "$f" "$p" "$s" "$k" "$DDF_CG_PACKETS" "$@" \
		>/dev/null 2>"$tmp/log" ||
		{ cat "$tmp/log" >&2; return 1; }
	sed -n 's/^totals: *//p' "$tmp/cg.out"
}

: >"$out"
for fam in 4 6; do
	for proto in udp tcp; do
		for size in 64 512 1500; do
			# IPv6/TCP needs 74 bytes: its smallest frame instead
			[ "$fam$proto$size" != 6tcp64 ] || size=74
			none=$(ir "$fam" "$proto" "$size" none)
			for key in pkt 5t; do
				t=$(ir "$fam" "$proto" "$size" "$key")
				printf '{"family":%d,"proto":"%s","size":%d,"key":"%s","packets":%d,"ir":%d,"ir_build":%d,"ir_per_frame":%s}\n' \
					"$fam" "$proto" "$size" "$key" \
					"$DDF_CG_PACKETS" "$t" "$none" \
					"$(echo "scale=1; ($t - $none) / $DDF_CG_PACKETS" | bc -l)" |
					tee -a "$out"
			done
		done
	done
done
# The general walk: IPv4/UDP with a VLAN tag the link took out, key packet
for size in 64 512 1500; do
	none=$(ir 4 udp "$size" none tagged)
	t=$(ir 4 udp "$size" pkt tagged)
	printf '{"family":4,"proto":"udp","size":%d,"key":"pkt","tagged":true,"packets":%d,"ir":%d,"ir_build":%d,"ir_per_frame":%s}\n' \
		"$size" "$DDF_CG_PACKETS" "$t" "$none" \
		"$(echo "scale=1; ($t - $none) / $DDF_CG_PACKETS" | bc -l)" |
		tee -a "$out"
done
