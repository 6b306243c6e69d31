#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ddfctl replay's times of pcapng records: every if_tsresol (10^-n and 2^-n
# s, n from 0 to 127) at the extremes of its timestamps, if_tsoffset,
# several sections, either byte order, standard input split across reads,
# against times computed by tests/tools/pcapng_times.py (ASan and UBSan);
# the decisions of a time window where a stamp in seconds passes what 64
# bits of nanoseconds hold; and -w of the seconds a pcap file holds.
# Usage: tests/tools/test_replay_times.sh [BUILD_DIR]
set -e

B=${1:-build}
CTL=$B/ddfctl
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# Test that replay's reader gives each record the time computed here, or
# stops at the first one before 1970 or past 2^64 - 1 ns with its sentence
mkdir "$tmp/ng"
if python3 "$(dirname "$0")/pcapng_times.py" "$B/asan/ddfctl_pcap_times" \
	"$tmp/ng" >"$tmp/out"; then
	ok
else
	bad "pcapng times: $(grep -c FAIL "$tmp/out") differ"
	head -20 "$tmp/out"
fi

# ngfile FILE SECONDS...: one datagram in a pcapng file stamped in units of
# 1 s (if_tsresol 0), at each of SECONDS
ngfile() {
	python3 - "$tmp/t0.pcap" "$@" <<'PY'
import struct, sys
src = open(sys.argv[1], "rb").read()
frame = src[24 + 16:24 + 16 + struct.unpack("<I", src[24 + 8:24 + 12])[0]]
def block(t, body):
    body += b"\0" * (-len(body) % 4)
    return struct.pack("<II", t, 12 + len(body)) + body + struct.pack(
        "<I", 12 + len(body))
out = block(0x0a0d0d0a, struct.pack("<IHHq", 0x1a2b3c4d, 1, 0, -1))
out += block(1, struct.pack("<HHIHHB3xHH", 1, 0, 65535, 9, 1, 0, 0, 0))
for t in map(int, sys.argv[3:]):
    out += block(6, struct.pack("<IIIII", 0, t >> 32, t & 0xffffffff,
                                len(frame), len(frame)) + frame)
open(sys.argv[2], "wb").write(out)
PY
}
"$B/ddf_pcapgen" time "$tmp/t0.pcap" >/dev/null

# Test that the same datagram 10 s apart under a 1 s window is new twice
# up to the last second 64 bits of ns hold (18446744073 s, in 2554), and
# that a stamp past it stops replay with its sentence, never a duplicate
# (it wrapped to a time 10^10 s earlier, counted late)
ngfile "$tmp/fit.pcapng" 18446744063 18446744073
"$CTL" -j replay "$tmp/fit.pcapng" filter exact window 100/1s \
	-l "$tmp/log" >"$tmp/sum"
[ "$(awk '{ printf "%s ", $2 }' "$tmp/log")" = "new new " ] &&
	grep -q '"late": 0' "$tmp/sum" && ok ||
	bad "10 s apart up to 2554: $(cat "$tmp/log")"
ngfile "$tmp/past.pcapng" 18446744070 18446744080
rm -f "$tmp/log"
if "$CTL" replay "$tmp/past.pcapng" filter exact window 100/1s \
	-l "$tmp/log" >"$tmp/sum" 2>"$tmp/err"; then
	bad "a stamp past 2554 accepted: $(cat "$tmp/log")"
else
	grep -qxF "ddfctl: replay: '$tmp/past.pcapng': record 2: its timestamp 18446744080 (units of 1 s, interface 0) is after 2554-07-21 23:34:33 UTC, the last time 64 bits of nanoseconds since 1970 hold" \
		"$tmp/err" && [ ! -e "$tmp/log" ] && [ ! -s "$tmp/sum" ] &&
		ok || bad "a stamp past 2554: $(cat "$tmp/err" "$tmp/sum")"
fi

# Test that -w writes a pcapng record's seconds as they are up to 2^32 - 1
# (2106), and that a record past them, which a pcap file's 32-bit seconds
# would take back to 1970, stops replay when it is to be written (read
# alone, it decides as any other)
ngfile "$tmp/y2106.pcapng" 4294967294 4294967295
"$CTL" replay "$tmp/y2106.pcapng" window 8 action count -w "$tmp/o.pcap" \
	>/dev/null
python3 - "$tmp/o.pcap" <<'PY' && ok || bad "-w of the seconds of 2106"
import struct, sys
d = open(sys.argv[1], "rb").read()
o, secs = 24, []
while o < len(d):
    sec, frac, cap = struct.unpack_from("<III", d, o)
    secs.append((sec, frac))
    o += 16 + cap
sys.exit(secs != [(0xFFFFFFFE, 0), (0xFFFFFFFF, 0)])
PY
ngfile "$tmp/y2106.pcapng" 4294967294 4294967295 4294967296
"$CTL" replay "$tmp/y2106.pcapng" window 8 -l "$tmp/log" >/dev/null &&
	[ "$(awk '{ printf "%s ", $2 }' "$tmp/log")" = "new duplicate duplicate " ] &&
	ok || bad "a pcapng record past 2106 without -w: $(cat "$tmp/log")"
rm -f "$tmp/o.pcap"
if "$CTL" replay "$tmp/y2106.pcapng" window 8 action count -w "$tmp/o.pcap" \
	>/dev/null 2>"$tmp/err"; then
	bad "-w of a pcapng record past 2106 accepted"
else
	grep -qxF "ddfctl: replay: '$tmp/y2106.pcapng': record 3: its time, 4294967296 s since 1970, is after 2106-02-07 06:28:15 UTC, the last time the 32-bit seconds of a pcap file (-w, -W) hold" \
		"$tmp/err" && [ ! -e "$tmp/o.pcap" ] && ok ||
		bad "-w of a pcapng record past 2106: $(cat "$tmp/err")"
fi

echo "test_replay_times: $pass passed, $fail failed"
[ "$fail" = 0 ]
