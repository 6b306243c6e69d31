#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ddfctl replay on crafted captures (ddf_pcapgen): every record's verdict
# against the classes the generator prints, for count and time windows,
# VLAN tags, link types, non-IP records, rules of family netdev, tunnels,
# records stamped out of order, pcapng interfaces, -w/-W, the summary, and
# the sentences of bad files and bad words.
# Usage: tests/tools/test_replay.sh [BUILD_DIR]
set -e

B=${1:-build}
CTL=$B/ddfctl
GEN=$B/ddf_pcapgen
SEED="seed 00112233445566778899aabbccddeeff"
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect COLUMN W [FAMILY]: the verdicts of filter exact window W from the
# generator's classes (column 2: key packet, 3: key frame); records of
# another FAMILY (4: classes 0-5, 6: classes 6-11) are skipped and never
# enter the window
expect() {
	awk -v c="$1" -v w="$2" -v fam="${3:-0}" '
		{ k = $c
		  if (k == "-") { print NR, "not-ip"; next }
		  if (fam && ((fam == 4) != (k + 0 < 6))) { print NR, "skipped"; next }
		  v = "new"
		  for (j = n - w + 1; j <= n; j++) if (j >= 1 && h[j] == k) v = "duplicate"
		  h[++n] = k; print NR, v }' "$tmp/cls"
}

# verdicts of a replay log, without the lengths
verdicts() { awk '{ print $1, $2 }' "$tmp/log"; }

# Test that every record's verdict is the exact window's, key packet and key
# frame, for windows 1, 4 and 30 over every scenario and link type
for s in mixed vlan nonip link:en10mb link:raw link:ipv4 link:ipv6 link:sll \
	link:sll2 link:null link:nullbe link:loop link:ppp; do
	"$GEN" "$s" "$tmp/in.pcap" >"$tmp/cls"
	for w in 1 4 30; do
		"$CTL" replay "$tmp/in.pcap" filter exact window "$w" -l "$tmp/log" \
			>/dev/null
		if [ "$(verdicts)" = "$(expect 2 "$w")" ]; then ok; else
			bad "$s: key packet, exact window $w"
		fi
		"$CTL" replay "$tmp/in.pcap" key frame filter exact window "$w" \
			-l "$tmp/log" >/dev/null
		if [ "$(verdicts)" = "$(expect 3 "$w")" ]; then ok; else
			bad "$s: key frame, exact window $w"
		fi
	done
done

# Test that VLAN-tagged frames (802.1Q, QinQ, 0x9100) key as the untagged
# one under key packet, and differ under key frame
"$GEN" vlan "$tmp/in.pcap" >"$tmp/cls"
"$CTL" replay "$tmp/in.pcap" filter exact window 10 -l "$tmp/log" >/dev/null
[ "$(awk '$2 == "duplicate" { printf "%s ", $1 }' "$tmp/log")" = "2 3 4 6 7 " ] &&
	ok || bad "vlan: tagged copies are duplicates of the untagged frame"
"$CTL" replay "$tmp/in.pcap" key frame filter exact window 10 -l "$tmp/log" \
	>/dev/null
[ "$(awk '$2 == "duplicate" { printf "%s ", $1 }' "$tmp/log")" = "7 " ] &&
	ok || bad "vlan: key frame sees the tags"

# Test that family ip and ip6 skip the other family, which never enters the
# window, as the kernel's hook of one family never sees the other
"$GEN" mixed "$tmp/in.pcap" >"$tmp/cls"
for f in 4 6; do
	fam=ip
	[ $f = 6 ] && fam=ip6
	"$CTL" replay "$tmp/in.pcap" family $fam filter exact window 5 \
		-l "$tmp/log" >/dev/null
	if [ "$(verdicts)" = "$(expect 2 5 $f)" ]; then ok; else
		bad "family $fam: the other family skipped"
	fi
done

# Test that the link layer names the hook's family (a Linux cooked
# capture's protocol): with every record's protocol swapped between IPv4
# and IPv6, a rule of one family skips the records its hook would never
# see and counts the others unparsed (a packet of the other version at
# its hook), as the module does; a rule of both families counts all
# unparsed
"$GEN" link:sll "$tmp/in.pcap" >"$tmp/cls"
python3 - "$tmp/in.pcap" "$tmp/swap.pcap" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
o = 24
while o < len(d):
    n = struct.unpack_from('<I', d, o + 8)[0]
    t = o + 16 + 14
    v4 = d[t:t + 2] == b'\x08\x00'
    d[t:t + 2] = b'\x86\xdd' if v4 else b'\x08\x00'
    o += 16 + n
open(sys.argv[2], 'wb').write(d)
EOF
for fam in ip ip6 inet; do
	"$CTL" replay "$tmp/swap.pcap" family $fam filter exact window 5 \
		-l "$tmp/log" >/dev/null
	got=$(awk '{ printf "%s ", $2 }' "$tmp/log")
	# records 1-3, 6 and 8 are IPv4 (classes 0-5), 4, 5 and 7 IPv6
	case $fam in
	ip) want="skipped skipped skipped unparsed unparsed skipped unparsed skipped " ;;
	ip6) want="unparsed unparsed unparsed skipped skipped unparsed skipped unparsed " ;;
	*) want="unparsed unparsed unparsed unparsed unparsed unparsed unparsed unparsed " ;;
	esac
	[ "$got" = "$want" ] && ok ||
		bad "family $fam, link layer and packet of other versions: got '$got'"
done

# Test that a time window runs on the capture's timestamps, its bound
# (2 ms apart) included
"$GEN" time "$tmp/in.pcap" >"$tmp/cls"
"$CTL" replay "$tmp/in.pcap" filter exact window 100/2ms -l "$tmp/log" \
	>/dev/null
got=$(awk '{ printf "%s ", $2 }' "$tmp/log")
want="new duplicate duplicate new duplicate new new duplicate new "
[ "$got" = "$want" ] && ok || bad "time window 2ms: got '$got'"
"$CTL" replay "$tmp/in.pcap" filter exact window 100/5ms -l "$tmp/log" \
	>/dev/null
got=$(awk '{ printf "%s ", $2 }' "$tmp/log")
want="new duplicate duplicate new duplicate new new duplicate duplicate "
[ "$got" = "$want" ] && ok || bad "time window 5ms: got '$got'"
# a time-based apbbf: copies 1 ms apart are duplicates, 20 ms apart not
"$CTL" replay "$tmp/in.pcap" filter apbbf window 1000/2ms $SEED \
	-l "$tmp/log" >/dev/null
got=$(awk '{ printf "%s ", $2 }' "$tmp/log")
case $got in
"new duplicate "*" new "*) ok ;;
*) bad "apbbf window 1000/2ms: got '$got'" ;;
esac

# Test that -w gets the kept records and -W the dropped ones, in order,
# and that the summary counts them
"$GEN" mixed "$tmp/in.pcap" >"$tmp/cls"
"$CTL" -j replay "$tmp/in.pcap" filter exact window 8 -w "$tmp/kept.pcap" \
	-W "$tmp/drop.pcap" -l "$tmp/log" >"$tmp/sum"
ndup=$(grep -c ' duplicate ' "$tmp/log")
"$CTL" replay "$tmp/kept.pcap" key frame filter exact window 1 \
	-l "$tmp/klog" >/dev/null
"$CTL" replay "$tmp/drop.pcap" key frame filter exact window 1 \
	-l "$tmp/dlog" >/dev/null
[ "$(awk '$2 != "duplicate" { print $3 }' "$tmp/log")" = \
	"$(awk '{ print $3 }' "$tmp/klog")" ] && ok ||
	bad "-w holds the records that are not duplicates"
[ "$(awk '$2 == "duplicate" { print $3 }' "$tmp/log")" = \
	"$(awk '{ print $3 }' "$tmp/dlog")" ] && [ "$ndup" -gt 10 ] && ok ||
	bad "-W holds the duplicates"
grep -q "\"records\": 96, \"packets\": 96, .*\"duplicates\": $ndup, \"dropped\": $ndup, \"marked\": 0, " "$tmp/sum" &&
	grep -q "\"kept\": $((96 - ndup)), \"late\": 0, \"filter\": {\"kind\": [0-9]*, \"kind_name\": \"exact\", \"window\": 8, \"bytes\": [1-9]" "$tmp/sum" &&
	ok || bad "the JSON summary: $(cat "$tmp/sum")"

# Test that with nothing dropped -w writes the input again byte for byte,
# nanosecond and microsecond timestamps alike
for u in "" usec; do
	# shellcheck disable=SC2086
	"$GEN" time "$tmp/in.pcap" $u >/dev/null
	"$CTL" replay "$tmp/in.pcap" filter exact window 8 action count \
		-w "$tmp/kept.pcap" >/dev/null
	cmp -s "$tmp/in.pcap" "$tmp/kept.pcap" && ok ||
		bad "-w of a ${u:-nsec} capture, nothing dropped: not the input"
done
"$GEN" mixed "$tmp/in.pcap" >"$tmp/cls"

# Test that action mark and count drop nothing: -W is empty, all are kept
for a in "mark 0x10" count; do
	# shellcheck disable=SC2086
	"$CTL" replay "$tmp/in.pcap" filter exact window 8 action $a \
		-w "$tmp/kept.pcap" -W "$tmp/drop.pcap" >"$tmp/sum"
	m=0
	[ "$a" = count ] || m=$ndup
	grep -q "duplicates $ndup dropped 0 marked $m " "$tmp/sum" &&
		grep -q " kept 96$" "$tmp/sum" && ok ||
		bad "action $a: $(cat "$tmp/sum")"
	"$CTL" replay "$tmp/drop.pcap" key frame filter exact window 1 \
		-l "$tmp/dlog" >/dev/null
	[ ! -s "$tmp/dlog" ] && ok || bad "action $a: -W is empty"
done

# Test that non-IP records are kept and counted, and that a link type
# replay does not read passes every record as not IP, with a note
"$GEN" nonip "$tmp/in.pcap" >"$tmp/cls"
"$CTL" replay "$tmp/in.pcap" filter exact window 8 -w "$tmp/kept.pcap" \
	>"$tmp/sum"
grep -q "packets 3 .*duplicates 1 dropped 1 " "$tmp/sum" &&
	grep -q "not-ip 4 truncated 0 kept 6$" "$tmp/sum" && ok ||
	bad "non-IP records kept: $(cat "$tmp/sum")"
"$GEN" link:ppp "$tmp/in.pcap" >"$tmp/cls"
"$CTL" replay "$tmp/in.pcap" window 8 >"$tmp/sum"
grep -q "^note: replay finds no IP packets in link type PPP" "$tmp/sum" &&
	grep -q "not-ip 8 truncated 0 kept 8$" "$tmp/sum" && ok ||
	bad "an unknown link type: $(cat "$tmp/sum")"

# Test that the same seed gives the same decisions with a probabilistic
# filter, and that they are a superset of the exact filter's (no false
# negatives in the window)
"$GEN" mixed "$tmp/in.pcap" >"$tmp/cls"
"$CTL" replay "$tmp/in.pcap" filter apbbf window 8 fpr 0.2 $SEED \
	-l "$tmp/log1" >/dev/null
"$CTL" replay "$tmp/in.pcap" filter apbbf window 8 fpr 0.2 $SEED \
	-l "$tmp/log2" >/dev/null
cmp -s "$tmp/log1" "$tmp/log2" && ok || bad "apbbf: the same seed, other decisions"
"$CTL" replay "$tmp/in.pcap" filter exact window 8 -l "$tmp/log" >/dev/null
[ -z "$(join <(awk '$2 == "duplicate" { print $1 }' "$tmp/log" | sort) \
	<(awk '$2 != "duplicate" { print $1 }' "$tmp/log1" | sort))" ] && ok ||
	bad "apbbf window 8 misses a duplicate of the exact window 8"

# Test that -l - writes the log on stdout and the summary on stderr
"$CTL" replay "$tmp/in.pcap" filter exact window 8 -l - >"$tmp/out" \
	2>"$tmp/err"
[ "$(wc -l <"$tmp/out")" = 96 ] && grep -q '^packets 96 ' "$tmp/err" && ok ||
	bad "-l -: log on stdout, summary on stderr"

# Test that a capture cut inside a record is an error naming the record
head -c 500 "$tmp/in.pcap" >"$tmp/cut.pcap"
if "$CTL" replay "$tmp/cut.pcap" window 8 >/dev/null 2>"$tmp/err"; then
	bad "a cut capture is accepted"
else
	grep -q "replay: '$tmp/cut.pcap': record [0-9]*: " "$tmp/err" && ok ||
		bad "a cut capture: $(cat "$tmp/err")"
fi

# Test that bad files, options and words are refused with a sentence naming
# them, a non-zero status and no output file
echo "not a capture" >"$tmp/text"
while IFS='|' read -r args want; do
	rm -f "$tmp/o.pcap"
	# shellcheck disable=SC2086
	if "$CTL" replay $args >/dev/null 2>"$tmp/err"; then
		bad "replay $args: accepted"
		continue
	fi
	grep -qF -- "$want" "$tmp/err" && [ ! -e "$tmp/o.pcap" ] && ok ||
		bad "replay $args: '$(cat "$tmp/err")' does not say '$want'"
done <<EOF
$tmp/none.pcap window 8 -w $tmp/o.pcap|replay: '$tmp/none.pcap': No such file or directory
$tmp/text window 8 -w $tmp/o.pcap|replay: '$tmp/text' is not a capture libpcap reads
|replay: needs a capture FILE
$tmp/in.pcap|replay: needs a window
$tmp/in.pcap window 8 bogus 1 -w $tmp/o.pcap|replay: 'bogus' is not a keyword (ddfctl replay --help)
$tmp/in.pcap window 8x -w $tmp/o.pcap|window: '8x' is not a count or a duration
$tmp/in.pcap window 8 filter nosuch -w $tmp/o.pcap|filter: 'nosuch' is not a filter kind
$tmp/in.pcap window 8 key frame ignore ttl -w $tmp/o.pcap|ignore: 'ttl' masks bytes of 'key packet'
$tmp/in.pcap window 8 key frame ignore mac -w $tmp/o.pcap|ignore: 'mac' needs family netdev: 'key frame' of family inet hashes every captured byte as it is
$tmp/in.pcap window 8 ignore ttl,vlan -w $tmp/o.pcap|ignore: 'vlan' needs family netdev: IP hooks never see the link layer
$tmp/in.pcap window 8 key frame decap gre -w $tmp/o.pcap|decap: 'gre' opens tunnels of parsed packets
$tmp/in.pcap window 8 decap vxlan:99999 -w $tmp/o.pcap|decap: '99999' in 'vxlan:99999' is not a UDP port
$tmp/in.pcap window 8 family netdev hook input -w $tmp/o.pcap|hook: 'input' is a hook of the IP families
$tmp/in.pcap window 8 family netdev iif eth0 -w $tmp/o.pcap|iif: 'eth0' is refused with family netdev
$tmp/in.pcap window 8 key frame family ip -w $tmp/o.pcap|family: 'ip' selects IP packets by their header
$tmp/in.pcap window 8 key frame proto udp -w $tmp/o.pcap|proto: 'udp' selects packets by their IP header
$tmp/in.pcap window 8 key frame max-bytes 64 -w $tmp/o.pcap|max-bytes: '64' caps the bytes
$tmp/in.pcap window 8 key nosuch -w $tmp/o.pcap|key: 'nosuch' is not a field
$tmp/in.pcap window 8 -x|replay: '-x' is not an option
$tmp/in.pcap window 8 -w|replay: -w needs a FILE
$tmp/in.pcap window 8 -w $tmp/in.pcap|replay: -w '$tmp/in.pcap' is the input file
$tmp/in.pcap window 8 -w $tmp/o.pcap -W $tmp/o.pcap|replay: -w and -W name the same file
$tmp/in.pcap window 8 -w - -l -|replay: only one of -w, -W and -l can write to stdout
$tmp/in.pcap window 8 -w $tmp/nodir/o.pcap|replay: -w '$tmp/nodir/o.pcap': 
EOF

# Test that rule add takes key frame with family netdev only: the IP
# families' hooks never see frames
if "$CTL" -n rule add r key frame window 8 >/dev/null 2>"$tmp/err"; then
	bad "rule add takes key frame with family inet"
else
	grep -qxF "ddfctl: key: 'frame' needs family netdev: IP hooks see packets from their IP header on" \
		"$tmp/err" && ok || bad "rule add key frame: $(cat "$tmp/err")"
fi
"$CTL" -n rule add r family netdev dev eth1 key frame window 8 >"$tmp/out" &&
	grep -qxF '    DDF_KEY_A_FORM 2 (frame)' "$tmp/out" && ok ||
	bad "rule add family netdev key frame: $(cat "$tmp/out")"

# short WORDS...: the verdicts of replay WORDS filter exact window 30, one
# letter for new and duplicate
short() {
	"$CTL" replay "$@" filter exact window 30 -l "$tmp/log" >/dev/null &&
		awk '{ printf "%s ", $2 }' "$tmp/log" |
		sed 's/duplicate/d/g; s/new/n/g; s/ $//'
}

# Test that a rule of family netdev keys each Ethernet record as the frame
# a netdev hook sees, with its VLAN IDs and, for frames that carry no IP,
# its MAC addresses; the IP families skip the tags and pass ARP. The
# records (pcapgen netdev): 1, 2 a datagram untagged; 3 in VLAN 10; 4 in
# VLAN 10 from other MACs; 5, 6 an ARP request; 7 the datagram in VLAN 20;
# 8 another datagram (IPv6, TCP); 9 the ARP request from other MACs
"$GEN" netdev "$tmp/in.pcap" >"$tmp/cls"
while IFS='|' read -r words want; do
	# shellcheck disable=SC2086
	got=$(short "$tmp/in.pcap" $words)
	[ "$got" = "$want" ] && ok ||
		bad "netdev capture, replay $words: '$got', not '$want'"
done <<'LIST'
family netdev|n d n d n d n n n
family netdev ignore ttl,ipv4csum,vlan|n d d d n d d n n
family netdev ignore ttl,ipv4csum,vlan,mac|n d d d n d d n d
family netdev key saddr,daddr,proto|n d n d n d n n n
family netdev key saddr,daddr,proto ignore vlan|n d d d n d d n n
family netdev key frame|n d n n n d n n n
family netdev key frame ignore mac|n d n d n d n n d
family netdev key frame ignore vlan|n d d n n d d n n
family netdev key frame ignore vlan,mac|n d d d n d d n d
family netdev hook egress dev eth0 priority -5|n d n d n d n n n
family netdev proto udp|n d n d skipped skipped n skipped skipped
family inet|n d d d not-ip not-ip d n not-ip
LIST

# Test that decap keys the packet inside the tunnels asked for, in the IP
# families and in family netdev alike. The records (pcapgen tunnel): 1 a
# datagram; 2, 3 in VXLAN on port 4789 from two outer sources; 4 in VXLAN
# on port 8472; 5 in GRE; 6 in Geneve; 7 in GTP-U
"$GEN" tunnel "$tmp/in.pcap" >"$tmp/cls"
while IFS='|' read -r words want; do
	for fam in inet netdev; do
		# shellcheck disable=SC2086
		got=$(short "$tmp/in.pcap" family $fam $words)
		[ "$got" = "$want" ] && ok ||
			bad "tunnels, replay family $fam $words: '$got', not '$want'"
	done
done <<'LIST'
decap none|n n n n n n n
decap vxlan|n d d n n n n
decap vxlan:4789|n d d n n n n
decap vxlan:8472|n n n d n n n
decap gre|n n n n d n n
decap geneve|n n n n n d n
decap gtpu|n n n n n n d
decap vxlan,gre,geneve,gtpu|n d d n d d d
LIST

# Test that a record stamped earlier than the one before it is taken at
# the latest time seen, as the kernel's clock never goes back: the first
# datagram again at 1 ms, after a record at 10 ms, is 10 ms after its first
# sighting (new), and its copy at 10.5 ms is 0.5 ms after that (duplicate)
"$GEN" late "$tmp/in.pcap" >"$tmp/cls"
"$CTL" replay "$tmp/in.pcap" filter exact window 100/2ms -l "$tmp/log" \
	>"$tmp/sum"
got=$(awk '{ printf "%s ", $2 }' "$tmp/log")
[ "$got" = "new new new duplicate " ] && ok || bad "a late record: got '$got'"
grep -qxF "note: 1 record was stamped earlier than a record before it: it was taken at the latest time seen, as the kernel's clock never goes back" \
	"$tmp/sum" && ok || bad "a late record's note: $(cat "$tmp/sum")"
"$CTL" -j replay "$tmp/in.pcap" filter exact window 100/2ms |
	grep -q '"kept": 3, "late": 1, ' && ok || bad "late in the JSON summary"

# Test that family netdev refuses a capture that is not Ethernet before it
# reads a record or writes a file
"$GEN" link:sll "$tmp/in.pcap" >"$tmp/cls"
rm -f "$tmp/o.pcap" "$tmp/log"
if "$CTL" replay "$tmp/in.pcap" family netdev window 8 -w "$tmp/o.pcap" \
	-l "$tmp/log" >"$tmp/out" 2>"$tmp/err"; then
	bad "family netdev replays a Linux cooked capture"
else
	grep -qxF "ddfctl: replay: family netdev keys Ethernet frames; '$tmp/in.pcap' has link type LINUX_SLL" \
		"$tmp/err" && [ ! -e "$tmp/o.pcap" ] && [ ! -e "$tmp/log" ] &&
		ok || bad "family netdev, Linux cooked capture: $(cat "$tmp/err")"
fi

# Test that a pcapng file whose interfaces share a link type and snap
# length is read whole, and that one whose interfaces differ is refused
# before a record is read, naming the interface and what differs; from
# standard input, where the file cannot be walked first, libpcap's error
# is explained and placed after the records read
"$GEN" ifaces:same "$tmp/ng.pcapng" >"$tmp/cls"
"$CTL" replay "$tmp/ng.pcapng" family netdev filter exact window 8 \
	-l "$tmp/log" >/dev/null && [ "$(verdicts)" = "$(expect 2 8)" ] && ok ||
	bad "a pcapng file of two like interfaces"
while IFS='|' read -r kind what; do
	"$GEN" "ifaces:$kind" "$tmp/ng.pcapng" >"$tmp/cls"
	rm -f "$tmp/o.pcap"
	if "$CTL" replay "$tmp/ng.pcapng" window 8 -w "$tmp/o.pcap" \
		>/dev/null 2>"$tmp/err"; then
		bad "pcapng interfaces of another $kind: accepted"
		continue
	fi
	grep -qF "ddfctl: replay: '$tmp/ng.pcapng': interface 1 has $what: libpcap reads a pcapng file only when all its interfaces have one link type and one snap length" \
		"$tmp/err" && [ ! -e "$tmp/o.pcap" ] && ok ||
		bad "pcapng interfaces of another $kind: $(cat "$tmp/err")"
	if "$CTL" replay - window 8 <"$tmp/ng.pcapng" >/dev/null 2>"$tmp/err"; then
		bad "pcapng interfaces of another $kind on stdin: accepted"
	else
		grep -qF "ddfctl: replay: '-': after record 2: an interface has a" \
			"$tmp/err" &&
			grep -qF "libpcap reads a pcapng file only when" "$tmp/err" &&
			! grep -q 'record 1' "$tmp/err" && ok ||
			bad "pcapng interfaces of another $kind on stdin: $(cat "$tmp/err")"
	fi
done <<'LIST'
type|link type LINUX_SLL, interface 0 EN10MB
snap|snap length 128, interface 0 65535
LIST

# Test that a pcap file's times are unsigned 32-bit seconds, as the format
# defines them, in either byte order: one datagram stamped at 2^31 - 2 s
# and each second after (the odd seconds at .5), across 2038, then at 2^32 - 2 s (2106) and 1 s
# later, in a file of this machine's byte order (where libpcap sign-
# extends the seconds) and one of the other order (where it does not),
# decides new dup dup dup new dup under window 10/3s, none late,
# record for record the same in both files.
"$GEN" time "$tmp/t0.pcap" usec >/dev/null
python3 - "$tmp/t0.pcap" "$tmp/y2038" <<'PY'
import struct, sys
src = open(sys.argv[1], "rb").read()
frame = src[24 + 16:24 + 16 + struct.unpack("<I", src[24 + 8:24 + 12])[0]]
for order, name in (("<", "le"), (">", "be")):
    out = struct.pack(order + "IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    for sec in (0x7FFFFFFE, 0x7FFFFFFF, 0x80000000, 0x80000001,
                0xFFFFFFFE, 0xFFFFFFFF):
        out += struct.pack(order + "IIII", sec, 500000 if sec & 1 else 0,
                           len(frame), len(frame)) + frame
    open(sys.argv[2] + "-" + name + ".pcap", "wb").write(out)
PY
for o in le be; do
	"$CTL" -j replay "$tmp/y2038-$o.pcap" filter exact window 10/3s \
		$SEED -l "$tmp/y2038-$o.log" >"$tmp/y2038-$o.json"
done
if [ "$(awk '{ printf "%s ", $2 }' "$tmp/y2038-le.log")" = \
	"new duplicate duplicate duplicate new duplicate " ] &&
	cmp -s "$tmp/y2038-le.log" "$tmp/y2038-be.log" &&
	grep -q '"late": 0' "$tmp/y2038-le.json" &&
	grep -q '"late": 0' "$tmp/y2038-be.json"; then
	ok
else
	bad "times past 2038 in either byte order: $(awk '{ printf "%s ", $2 }' "$tmp/y2038-le.log")/ $(awk '{ printf "%s ", $2 }' "$tmp/y2038-be.log")"
fi

# Test that replay is in --help, answers replay --help, and is in the man page
"$CTL" --help | grep -q '^  replay  *FILE\.\.\. ' && ok || bad "--help lists replay"
"$CTL" replay --help >"$tmp/out"
grep -q '^usage: ddfctl \[-j\] replay FILE' "$tmp/out" &&
	grep -q 'editcap -D N' "$tmp/out" && ok || bad "replay --help"
grep -q '^\.BI replay " FILE"' tools/ddfctl/ddfctl.8 &&
	grep -q '^\.B key frame' tools/ddfctl/ddfctl.8 && ok ||
	bad "ddfctl.8 documents replay and key frame"

echo "test_replay: $pass passed, $fail failed"
[ "$fail" = 0 ]
