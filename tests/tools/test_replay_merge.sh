#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ddfctl replay over several captures, one per port: the records of a
# crafted capture (ddf_pcapgen mixed: 96 records, copies at all distances)
# are split over two or three files (tests/tools/pcap_split.py: interleaved,
# in blocks, the copies of a packet on different files with the first copy
# on either, and timestamps shared across files), written as pcap and
# pcapng in micro- and nanoseconds, if_tsresol 10^-9 and 2^-20, either byte
# order, Ethernet and Linux cooked; replay over them must take every
# decision replay takes over one capture of the same records merged by time
# (written by pcap_split.py itself, which is the reference), and over the
# original capture. Also: mergecap's order, the per-file counters, -w and
# -W of the merged records, the memory a long merge takes, and the
# sentences of bad, cut and missing files.
# Usage: tests/tools/test_replay_merge.sh [BUILD_DIR]
set -e

B=${1:-build}
CTL=$(cd "$B" && pwd)/ddfctl
GEN=$B/ddf_pcapgen
SPLIT=$(dirname "$0")/pcap_split.py
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# split MODE REF[@ORDER] OUT:FORMAT...: the OUTs and the reference merge
split() { python3 "$SPLIT" "$tmp/in.pcap" "$tmp/cls" "$@"; }

# logs FILES... -- WORDS...: replay FILES (merged) and the reference
# $tmp/ref.pcap with WORDS; $tmp/m.log and $tmp/r.log
logs() {
	local files=()

	while [ "$1" != -- ]; do
		files+=("$1")
		shift
	done
	shift
	"$CTL" replay "${files[@]}" "$@" -l "$tmp/m.log" >/dev/null &&
		"$CTL" replay "$tmp/ref.pcap" "$@" -l "$tmp/r.log" >/dev/null
}

# same WHAT COLUMNS: the merged log's columns (e.g. 1-3) against the
# reference's, and its file and record columns against the reference's map
same() {
	if cmp -s <(cut -d' ' -f"$2" "$tmp/m.log") \
		<(cut -d' ' -f"$2" "$tmp/r.log") &&
		cmp -s <(cut -d' ' -f4,5 "$tmp/m.log") "$tmp/ref.pcap.map"; then
		ok
	else
		bad "$1"
		diff <(cut -d' ' -f"$2" "$tmp/m.log") \
			<(cut -d' ' -f"$2" "$tmp/r.log") | head -5
	fi
}

"$GEN" mixed "$tmp/in.pcap" >"$tmp/cls"
"$CTL" replay "$tmp/in.pcap" filter exact window 8 -l "$tmp/orig8.log" \
	>/dev/null
"$CTL" replay "$tmp/in.pcap" filter exact window 30 -l "$tmp/orig30.log" \
	>/dev/null

# Test that replay over two captures decides as over one capture of their
# records merged by time, for every split, in both orders of the files on
# the command line, with files of different formats and resolutions: an
# exact window of 8 and of 30 packets, a time window of 2 ms (on the
# timestamps as each file holds them), and key frame; for the splits whose
# timestamps are IN's, also as over IN itself
cases=0
for mode in alt blocks copies ties; do
	while read -r fa fb; do
		for order in 1,2 2,1; do
			split "$mode" "$tmp/ref.pcap@$order" "$tmp/a:$fa" "$tmp/b:$fb"
			files=("$tmp/a" "$tmp/b")
			[ $order = 1,2 ] || files=("$tmp/b" "$tmp/a")
			what="$mode, $fa then $fb, given $order"
			for w in 8 30; do
				logs "${files[@]}" -- filter exact window $w
				same "$what: exact window $w" 1-3
				[ $mode = ties ] && continue
				cmp -s <(cut -d' ' -f1-3 "$tmp/m.log") \
					"$tmp/orig$w.log" && ok ||
					bad "$what: exact window $w: not as over the original capture"
			done
			logs "${files[@]}" -- filter exact window 100/2ms
			same "$what: exact window 100/2ms" 1-3
			logs "${files[@]}" -- key frame filter exact window 8
			same "$what: key frame" 1-3
			cases=$((cases + 1))
		done
	done <<'LIST'
pcap-ns pcap-ns
pcap-us ng9
ngb20+be pcap-ns+be
ng6 pcap-us+be
LIST
done
echo "merge: $cases splits of two files, each decided as its merge"

# Test that the two ports the VMs replay (ddf_pcapgen ports: port 2 in
# microseconds) merge back into the mixed capture, every decision as over
# it, each record from the port and place the generator says, and that a
# copy on one port of a datagram first seen on the other is a duplicate
"$GEN" ports "$tmp/p1.pcap" "$tmp/p2.pcap" >"$tmp/pcls"
"$CTL" replay "$tmp/p1.pcap" "$tmp/p2.pcap" filter exact window 8 \
	-l "$tmp/m.log" >/dev/null
cmp -s <(cut -d' ' -f1-3 "$tmp/m.log") "$tmp/orig8.log" &&
	cmp -s <(cut -d' ' -f4,5 "$tmp/m.log") <(awk '{ print $4, $5 }' "$tmp/pcls") &&
	ok || bad "ddf_pcapgen ports: not the mixed capture's decisions"
cross=$(awk 'NR == FNR { port[$1] = $4; cls[$1] = $2; next }
	$2 == "duplicate" { for (j = $1 - 1; j >= 1 && j >= $1 - 8; j--)
		if (cls[j] == cls[$1]) { if (port[j] != port[$1]) n++; break } }
	END { print n + 0 }' "$tmp/pcls" "$tmp/m.log")
[ "$cross" -gt 10 ] && ok || bad "ddf_pcapgen ports: $cross copies across ports"

# Test that three files merge as their reference, timestamps shared by
# two files at a time, in two orders
for order in 1,2,3 3,1,2; do
	for mode in ties alt; do
		split $mode "$tmp/ref.pcap@$order" "$tmp/a:pcap-ns" "$tmp/b:ng9" \
			"$tmp/c:pcap-us"
		IFS=, read -r x y z <<<"$order"
		f=("" "$tmp/a" "$tmp/b" "$tmp/c")
		logs "${f[$x]}" "${f[$y]}" "${f[$z]}" -- filter exact window 8
		same "three files, $mode, given $order" 1-3
	done
done

# Test that equal timestamps go as mergecap takes them: with ties, the
# records 1 and 2 (one timestamp) come from the file given last, then the
# first, whichever they are, and the decisions follow: the first record
# is new, and in key frame so is each file's first record
split ties "$tmp/ref.pcap" "$tmp/a:pcap-ns" "$tmp/b:pcap-ns"
for order in "a b" "b a"; do
	"$CTL" replay "$tmp/${order% *}" "$tmp/${order#* }" filter exact \
		window 8 -l "$tmp/m.log" >/dev/null
	[ "$(head -2 "$tmp/m.log" | cut -d' ' -f4,5 | tr '\n' ' ')" = "2 1 1 1 " ] &&
		ok || bad "ties, given $order: $(head -2 "$tmp/m.log")"
done
# the first records of a and b are two packets: given b a, b's is first
"$CTL" replay "$tmp/a" "$tmp/b" filter exact window 8 -l "$tmp/ab.log" >/dev/null
"$CTL" replay "$tmp/b" "$tmp/a" filter exact window 8 -l "$tmp/ba.log" >/dev/null
[ "$(head -1 "$tmp/ab.log" | cut -d' ' -f3)" != \
	"$(head -1 "$tmp/ba.log" | cut -d' ' -f3)" ] && ok ||
	bad "ties: the order of the files does not change the first record"

# Test that mergecap's merge is replay's: replay over `mergecap -w m A B C`
# decides as replay over A B C, ties and all
if command -v mergecap >/dev/null; then
	for mode in ties copies; do
		split $mode "$tmp/ref.pcap" "$tmp/a:pcap-ns" "$tmp/b:ng9" \
			"$tmp/c:pcap-us"
		mergecap -F nsecpcap -w "$tmp/mc.pcap" "$tmp/a" "$tmp/b" "$tmp/c"
		for words in "filter exact window 8" "key frame filter exact window 8" \
			"filter exact window 100/2ms"; do
			# shellcheck disable=SC2086
			"$CTL" replay "$tmp/a" "$tmp/b" "$tmp/c" $words \
				-l "$tmp/m.log" >/dev/null
			# shellcheck disable=SC2086
			"$CTL" replay "$tmp/mc.pcap" $words -l "$tmp/r.log" \
				>/dev/null
			cmp -s <(cut -d' ' -f1-3 "$tmp/m.log") "$tmp/r.log" && ok ||
				bad "$mode: replay a b c and mergecap a b c differ ($words)"
		done
	done
else
	echo "merge: mergecap is missing (package wireshark-common: make setup): its order is not compared"
fi

# Test that each file is keyed in its own link type: an Ethernet file and a
# Linux cooked one decide, with the key packet, as the reference of
# Ethernet frames; family netdev refuses the cooked file, and -w a pcap
# file of two link types, before a record is read or a file written
split copies "$tmp/ref.pcap" "$tmp/a:pcap-ns" "$tmp/b:pcap-us+sll"
logs "$tmp/a" "$tmp/b" -- filter exact window 8
same "Ethernet and Linux cooked files: exact window 8" 1-2
"$CTL" replay "$tmp/a" "$tmp/b" filter exact window 8 >"$tmp/sum"
grep -qE "^  $tmp/b: [0-9]+ records, link type LINUX_SLL, snap length 65535: packets " \
	"$tmp/sum" && ok || bad "the cooked file's line: $(cat "$tmp/sum")"
while IFS='|' read -r args want; do
	rm -f "$tmp/o.pcap" "$tmp/o.log"
	# shellcheck disable=SC2086
	if "$CTL" replay $args -l "$tmp/o.log" >"$tmp/out" 2>"$tmp/err"; then
		bad "replay $args: accepted"
		continue
	fi
	grep -qxF "ddfctl: replay: $want" "$tmp/err" && [ ! -s "$tmp/out" ] &&
		[ ! -e "$tmp/o.pcap" ] && [ ! -e "$tmp/o.log" ] && ok ||
		bad "replay $args: '$(cat "$tmp/err")', not '$want'"
done <<EOF
$tmp/a $tmp/b family netdev window 8|family netdev keys Ethernet frames; '$tmp/b' has link type LINUX_SLL
$tmp/a $tmp/b window 8 -w $tmp/o.pcap|-w: '$tmp/b' has link type LINUX_SLL, '$tmp/a' EN10MB, and a pcap file holds one
$tmp/a $tmp/b window 8 -W $tmp/o.pcap|-W: '$tmp/b' has link type LINUX_SLL, '$tmp/a' EN10MB, and a pcap file holds one
EOF

# Test that -w and -W write the merged survivors and copies to one file
# each, byte for byte what replay writes from the reference: nanoseconds
# when a file is in nanoseconds, microseconds when all are
for f in "pcap-ns ng9" "pcap-us pcap-us+be" "ngb20 pcap-us"; do
	# shellcheck disable=SC2086
	split copies "$tmp/ref.pcap" "$tmp/a:${f% *}" "$tmp/b:${f#* }"
	"$CTL" replay "$tmp/a" "$tmp/b" filter exact window 8 \
		-w "$tmp/k1.pcap" -W "$tmp/d1.pcap" >/dev/null
	"$CTL" replay "$tmp/ref.pcap" filter exact window 8 \
		-w "$tmp/k2.pcap" -W "$tmp/d2.pcap" >/dev/null
	cmp -s "$tmp/k1.pcap" "$tmp/k2.pcap" && cmp -s "$tmp/d1.pcap" "$tmp/d2.pcap" &&
		[ "$(wc -c <"$tmp/k1.pcap")" -gt 1000 ] &&
		[ "$(wc -c <"$tmp/d1.pcap")" -gt 1000 ] && ok ||
		bad "-w and -W of $f: not the reference's files"
done
case $(od -An -tx1 -N4 "$tmp/k1.pcap" | tr -d ' ') in
4d3cb2a1) ok ;; # a nanosecond file, little-endian
*) bad "-w of a nanosecond and a microsecond file is not in nanoseconds" ;;
esac

# Test the counters per file, in the text and the JSON: each file's records,
# packets, duplicates and dropped are those of its records in the log,
# marked with action mark, its bytes add up to the total, and the totals
# are the reference's
split copies "$tmp/ref.pcap" "$tmp/a:pcap-ns" "$tmp/b:ng9"
"$CTL" replay "$tmp/a" "$tmp/b" filter exact window 8 -l "$tmp/m.log" \
	>"$tmp/sum"
"$CTL" -j replay "$tmp/a" "$tmp/b" filter exact window 8 >"$tmp/m.json"
"$CTL" -j replay "$tmp/ref.pcap" filter exact window 8 >"$tmp/r.json"
for i in 1 2; do
	read -r r p d < <(awk -v f=$i '$4 == f { r++ }
		$4 == f && ($2 == "new" || $2 == "duplicate") { p++ }
		$4 == f && $2 == "duplicate" { d++ }
		END { print r + 0, p + 0, d + 0 }' "$tmp/m.log")
	name=$tmp/a
	[ $i = 2 ] && name=$tmp/b
	grep -qE "^  $name: $r records, link type EN10MB, snap length 65535: packets $p bytes [1-9][0-9]* duplicates $d dropped $d marked 0 unparsed 0$" \
		"$tmp/sum" && ok || bad "file $i's line: $(cat "$tmp/sum")"
	python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["files"][int(sys.argv[2]) - 1]
want = dict(file=sys.argv[3], linktype=1, linktype_name="EN10MB",
            snaplen=65535, records=int(sys.argv[4]), packets=int(sys.argv[5]),
            bytes=f["bytes"], duplicates=int(sys.argv[6]),
            dropped=int(sys.argv[6]), marked=0, unparsed=0)
sys.exit(f != want or f["bytes"] < 40 * f["packets"])' \
		"$tmp/m.json" $i "$name" "$r" "$p" "$d" && ok ||
		bad "file $i in the JSON: $(cat "$tmp/m.json")"
	[ "$d" -gt 5 ] && ok || bad "file $i: $d duplicates, too few to tell"
done
grep -q "^2 captures merged by time: 96 records$" "$tmp/sum" && ok ||
	bad "the merged line: $(cat "$tmp/sum")"
python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
assert sum(f["bytes"] for f in m["files"]) == m["bytes"]' "$tmp/m.json" &&
	ok || bad "the files' bytes do not add up: $(cat "$tmp/m.json")"
"$CTL" -j replay "$tmp/a" "$tmp/b" filter exact window 8 action mark 0x1 |
	python3 -c '
import json, sys
m = json.load(sys.stdin)
assert m["marked"] > 10 and m["dropped"] == 0
for f in m["files"]:
    assert f["marked"] == f["duplicates"] > 0 and f["dropped"] == 0' &&
	ok || bad "action mark: the files marked are not their duplicates"
python3 -c '
import json, sys
m, r = (json.load(open(p)) for p in sys.argv[1:3])
for k in ("file", "linktype", "linktype_name", "snaplen"):
    assert k not in m, k
    r.pop(k)
rf, mf = r.pop("files"), m.pop("files")
assert len(rf) == 1 and len(mf) == 2
assert m == r, (m, r)' "$tmp/m.json" "$tmp/r.json" && ok ||
	bad "the JSON totals are not the reference's: $(cat "$tmp/m.json")"
# one file: as before, with its one entry in files
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
f = r["files"]
assert len(f) == 1 and f[0]["records"] == r["records"] == 96
assert f[0]["file"] == r["file"] and f[0]["duplicates"] == r["duplicates"]' \
	"$tmp/r.json" && ok || bad "one file's JSON: $(cat "$tmp/r.json")"

# Test that standard input is one of the files, and only one
split alt "$tmp/ref.pcap" "$tmp/a:pcap-ns" "$tmp/b:ng6"
"$CTL" replay "$tmp/a" "$tmp/b" filter exact window 8 -l "$tmp/ab.log" >/dev/null
"$CTL" replay "$tmp/a" - filter exact window 8 -l "$tmp/m.log" <"$tmp/b" \
	>/dev/null && cmp -s "$tmp/ab.log" "$tmp/m.log" && ok ||
	bad "a file and standard input do not merge as the two files"

# Test that a later FILE is told from the rule's words: each keyword of
# rule add begins the words (a file of that name is given as ./NAME), and a
# word that is neither a file nor a keyword is named as both
kws=$("$CTL" rule add --help | sed '/^  NAME/,$d' |
	grep -oE '(\[|\| )[a-z][a-z-]*' | sed 's/^[[| ]*//' | sort -u)
n=0
for k in $kws; do
	"$CTL" replay "$tmp/a" "$k" >/dev/null 2>"$tmp/err" || true
	grep -q "not a rule keyword either" "$tmp/err" &&
		bad "replay FILE $k: '$k' taken for a file" || ok
	n=$((n + 1))
done
[ "$n" -gt 15 ] && ok || bad "only $n keywords in rule add --help"
(cd "$tmp" && cp a window && "$CTL" replay a ./window filter exact window 8 \
	-l m.log >/dev/null) && [ "$(cut -d' ' -f4 "$tmp/m.log" | sort -u | tr '\n' ' ')" = "1 2 " ] &&
	ok || bad "a file named window, given as ./window"

# Test that a file that cannot be read is refused with a sentence naming
# it (and the record, when it is cut short), a non-zero status, nothing on
# stdout and no file left by -w, -W or -l: a second file cut inside a
# record, cut inside its first record, a pcapng file cut inside a block,
# no capture, missing; standard input twice; -w naming the second input
split alt "$tmp/ref.pcap" "$tmp/a:pcap-ns" "$tmp/b:pcap-us" "$tmp/c:ng9"
head -c 1000 "$tmp/b" >"$tmp/cut.pcap"
head -c 40 "$tmp/b" >"$tmp/cut1.pcap"
head -c 1000 "$tmp/c" >"$tmp/cut.pcapng"
echo "not a capture" >"$tmp/text"
# the records whole in cut.pcap: the error is at the next one
whole=$(python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read()
o = n = 0
o = 24
while o + 16 <= len(d) and o + 16 + struct.unpack_from("<I", d, o + 8)[0] <= len(d):
    o += 16 + struct.unpack_from("<I", d, o + 8)[0]
    n += 1
print(n)' "$tmp/cut.pcap")
while IFS='|' read -r args want; do
	rm -f "$tmp/o.pcap" "$tmp/o2.pcap" "$tmp/o.log"
	# shellcheck disable=SC2086
	if "$CTL" replay $args filter exact window 8 -w "$tmp/o.pcap" \
		-W "$tmp/o2.pcap" -l "$tmp/o.log" >"$tmp/out" 2>"$tmp/err"; then
		bad "replay $args: accepted"
		continue
	fi
	grep -qF -- "ddfctl: replay: $want" "$tmp/err" && [ ! -s "$tmp/out" ] &&
		[ ! -e "$tmp/o.pcap" ] && [ ! -e "$tmp/o2.pcap" ] &&
		[ ! -e "$tmp/o.log" ] && ok ||
		bad "replay $args: '$(cat "$tmp/err")' does not say '$want', or left a file"
done <<EOF
$tmp/a $tmp/cut.pcap|'$tmp/cut.pcap': record $((whole + 1)): truncated dump file
$tmp/cut.pcap $tmp/a|'$tmp/cut.pcap': record $((whole + 1)): truncated dump file
$tmp/a $tmp/cut1.pcap|'$tmp/cut1.pcap': record 1: truncated dump file
$tmp/a $tmp/b $tmp/cut.pcapng|'$tmp/cut.pcapng': record
$tmp/a $tmp/text|'$tmp/text' is not a capture libpcap reads
$tmp/a $tmp/none.pcap|'$tmp/none.pcap': No such file or directory, and not a rule keyword either
$tmp/a windw 8|'windw': No such file or directory, and not a rule keyword either
- -|standard input ('-') is given twice
EOF
for o in -w -W -l; do
	cp "$tmp/b" "$tmp/b.copy"
	if "$CTL" replay "$tmp/a" "$tmp/b" window 8 $o "$tmp/b" >"$tmp/out" \
		2>"$tmp/err"; then
		bad "$o naming the second input: accepted"
	else
		grep -qxF "ddfctl: replay: $o '$tmp/b' is an input file" "$tmp/err" &&
			cmp -s "$tmp/b" "$tmp/b.copy" && ok ||
			bad "$o naming the second input: $(cat "$tmp/err")"
	fi
done
[ "$whole" -gt 3 ] && ok || bad "the cut file holds $whole whole records"
# the log on stdout: the records before the cut, then the error, no summary
if "$CTL" replay "$tmp/a" "$tmp/cut.pcap" filter exact window 8 -l - \
	>"$tmp/out" 2>"$tmp/err"; then
	bad "a cut file with -l -: accepted"
else
	! grep -q '^packets ' "$tmp/out" "$tmp/err" &&
		[ "$(awk '$4 == 2' "$tmp/out" | wc -l)" = "$whole" ] && ok ||
		bad "a cut file with -l -: $(tail -2 "$tmp/out") $(cat "$tmp/err")"
fi

# Test that the files are streamed, not read whole: two captures of 100000
# records each (24 MB) take no more memory than two of 96 records, within
# 4 MB
python3 - "$tmp/in.pcap" "$tmp/big1.pcap" "$tmp/big2.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
recs, o = [], 24
while o < len(d):
    n = struct.unpack_from('<I', d, o + 8)[0]
    recs.append(d[o + 16:o + 16 + n])
    o += 16 + n
outs = [open(p, 'wb') for p in sys.argv[2:4]]
for w in outs:
    w.write(d[:24])
for i in range(200000):
    r = recs[i % len(recs)]
    t = i * 10000 + (i & 1) * 5000
    outs[i & 1].write(struct.pack('<IIII', t // 10**9, t % 10**9, len(r),
                                  len(r)) + r)
PY
rss() {
	python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
small=$(rss "$CTL" replay "$tmp/a" "$tmp/b" filter exact window 8)
big=$(rss "$CTL" replay "$tmp/big1.pcap" "$tmp/big2.pcap" filter exact window 8)
size=$(($(wc -c <"$tmp/big1.pcap") + $(wc -c <"$tmp/big2.pcap")))
echo "merge: 2 x 100000 records ($((size / 1024)) KiB): $big KiB at most in memory, $small KiB over 2 x 48"
[ "$size" -gt 20000000 ] && [ "$big" -lt $((small + 4096)) ] && ok ||
	bad "merging $size bytes took $big KiB, $small KiB for small files"
"$CTL" -j replay "$tmp/big1.pcap" "$tmp/big2.pcap" filter exact window 8 |
	grep -q '"records": 200000, ' && ok || bad "the long merge's records"

echo "test_replay_merge: $pass passed, $fail failed"
[ "$fail" = 0 ]
