#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A capture box whose capture tool reads the mirror port through AF_XDP,
# as Suricata's af-xdp does: sockets opened through libxdp, whose own
# AF_XDP program joins libxdp's dispatcher at run priority 20. ddf's XDP
# program joins the same dispatcher ahead of it (ddfctl xdp attach's
# default priority), so it judges each frame first: the reader (ddfxsk)
# must get each packet of a duplicated stream once, byte for byte what
# ddf_spangen says the rule keeps, and nothing else; with ddf attached
# before the reader and after it, natively (veth) and in generic mode, on
# one RX queue and on four. Without ddf, and under a rule deleted while
# frames flow, it gets every frame. libxdp takes its program away when
# the reader's last socket goes, and leaves ddf's.
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/netns/xsk.sh
#   (ddfctl, ddfpkt, ddfxsk, ddf_spangen, tcpdump, xdp-loader in $PATH,
#   bpffs at /sys/fs/bpf)
#
# ┌──────────────────┐        ┌────────────────────────────────────────┐
# │ $snd             │  veth  │ $rcv, the capture box                  │
# │  s0 ─────────────┼────────┼─ m0 promiscuous: the mirror port,      │
# │  ddfpkt replay -E│ 1 or 4 │    libxdp's dispatcher: ddf, then      │
# │                  │ queues │    AF_XDP (20): ddfxsk, 1 socket/queue │
# └──────────────────┘        └────────────────────────────────────────┘
#
# Every block begins with "# Test that ..." and asserts; a failed
# assertion stops the script and fails it.

set -e

exec 3>&1
export LANG=C
snd="ddfxsk-$$-snd"
rcv="ddfxsk-$$-rcv"
here=$(cd "$(dirname "$0")" && pwd)
: "${DDF_MODULES:=$(cd "$here/../.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
tmp=$(mktemp -d)
blocks=0
seed=00112233445566778899aabbccddeeff
rule="window 1000000 fpr 1e-6 seed $seed"
declare -A cap_pid

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/netns/capture.bash
. "$(dirname "$0")/capture.bash"

# the reader goes first (SIGTERM: it closes its sockets, and libxdp takes
# its program away), then ddf's programs, which hold the module
cleanup() {
	set +e
	if [[ -n ${xsk_pid:-} ]]; then
		kill "$xsk_pid" 2>/dev/null
		wait "$xsk_pid" 2>/dev/null
	fi
	loaded && in_ns "$rcv" ddfctl xdp detach all >/dev/null 2>&1
	capture_cleanup
}
trap cleanup EXIT

if [[ ! -e /sys/kernel/btf/vmlinux ]]; then
	echo "xsk.sh: skipped: kernel $(uname -r) has no BTF" \
		"(CONFIG_DEBUG_INFO_BTF), so no XDP program can call nf_ddf" \
		"and libxdp's dispatcher cannot load its components"
	exit 0
fi
# AF_XDP registers its protocol "XDP" when the kernel has it
if ! grep -q '^XDP ' /proc/net/protocols; then
	echo "xsk.sh: skipped: kernel $(uname -r) has no AF_XDP sockets" \
		"(CONFIG_XDP_SOCKETS)"
	exit 0
fi
grep -q ' /sys/fs/bpf bpf ' /proc/mounts ||
	fail "no bpffs at /sys/fs/bpf, where libxdp keeps its dispatchers"
for t in ddfxsk xdp-loader nsenter; do
	command -v "$t" >/dev/null || fail "no $t in PATH"
done
capture_setup
ip -n "$snd" link set up dev s0
ip -n "$rcv" link set m0 promisc on up
pp insmod "$module"
gen ttl
n=$(want ttl default records)
k=$(want ttl default kept)
d=$(want ttl default duplicates)

# veth QUEUES: s0 - m0 again, with QUEUES TX and RX queues at both ends
# (veth hands a frame to the RX queue of the number of the TX queue it
# left by, which the sender's flow hash picks), up, m0 promiscuous
veth() {
	ip -n "$snd" link del s0 2>/dev/null || true
	pp ip -n "$snd" link add s0 numtxqueues "$1" numrxqueues "$1" type veth \
		peer name m0 netns "$rcv" numtxqueues "$1" numrxqueues "$1"
	ip -n "$snd" link set up dev s0
	ip -n "$rcv" link set m0 promisc on up
}

# xsk_start NAME WORDS...: ddfxsk on m0 writing $tmp/NAME.pcap, its
# sockets bound when it returns. It runs in $rcv's network namespace
# alone (nsenter): ip netns exec's own sysfs would hide bpffs from libxdp.
xsk_pid=
xsk_start() {
	local name=$1 line
	shift
	rm -f "$tmp/$name.pcap" "$tmp/$name.out" "$tmp/$name.err"
	pretty rcv "ddfxsk m0 $name.pcap $*"
	nsenter --net="/run/netns/$rcv" ddfxsk m0 "$tmp/$name.pcap" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" &
	xsk_pid=$!
	for _ in $(seq 300); do
		line=
		read -r line <"$tmp/$name.out" || true
		[[ $line == "ddfxsk: ready" ]] && return
		kill -0 "$xsk_pid" 2>/dev/null || break
		sleep 0.1
	done
	fail "ddfxsk $*: not ready: $(cat "$tmp/$name.out" "$tmp/$name.err")"
}

# xsk_end NAME [stop]: once the reader ends (stop: half a second after the
# traffic, by SIGTERM), xgot=its frames, xlost=those its sockets could not
# take, xused=the queues that got any; $tmp/NAME.lines, its file's
# records (lines), must be xgot.
xsk_end() {
	local line last='' q recs
	if [[ ${2:-} == stop ]]; then
		sleep 0.5
		kill -TERM "$xsk_pid"
	fi
	wait "$xsk_pid" || fail "ddfxsk $1: $(cat "$tmp/$1.err")"
	xsk_pid=
	while read -r line; do last=$line; done <"$tmp/$1.out"
	[[ $last =~ ^ddfxsk:\ ([0-9]+)\ frames,\ ([0-9]+)\ dropped\ \((.*)\)$ ]] ||
		fail "ddfxsk $1 ended with: $(cat "$tmp/$1.out" "$tmp/$1.err")"
	xgot=${BASH_REMATCH[1]}
	xlost=${BASH_REMATCH[2]}
	xused=0
	q=${BASH_REMATCH[3]}
	while [[ $q =~ ^queue\ [0-9]+:\ ([0-9]+)(,\ )?(.*)$ ]]; do
		((BASH_REMATCH[1] == 0)) || xused=$((xused + 1))
		q=${BASH_REMATCH[3]}
	done
	pretty rcv "$last"
	lines "$tmp/$1.pcap" >"$tmp/$1.lines"
	mapfile -t recs <"$tmp/$1.lines"
	expect_eq "${#recs[@]}" "$xgot" "$1: records in the reader's file"
}

# lines FILE...: the captures' records, one line each: tcpdump's text of
# every byte, joined (absolute TCP sequence numbers: tcpdump numbers a
# flow's relatively to its first segment in the file, and here files hold
# a stream more than once)
lines() {
	local f
	for f in "$@"; do
		tcpdump -Z root -r "$f" -n -t -S -xx 2>/dev/null
	done | awk '/^[^ \t]/ { if (r != "") print r; r = $0; next }
		{ r = r " " $0 } END { if (r != "") print r }'
}

# same_seq NAME WANT: the reader's records (xsk_end's NAME.lines) are
# WANT's, byte for byte, in that order
same_seq() {
	if ! cmp -s "$tmp/$1.lines" "$2"; then
		diff "$2" "$tmp/$1.lines" | cut -c 1-160 | head -n 20 >&2
		fail "$1: other records than the generator's (diff: - wanted, + got)"
	fi
}

# same_set NAME WANT: the same, whatever their order (frames read from
# several queues); WANT is sorted
same_set() {
	sort "$tmp/$1.lines" >"$tmp/$1.sorted"
	if ! cmp -s "$tmp/$1.sorted" "$2"; then
		diff "$2" "$tmp/$1.sorted" | cut -c 1-160 | head -n 20 >&2
		fail "$1: other records than the generator's, in any order (diff: - wanted, + got)"
	fi
}

# the generator's records as lines: what a reader must get
lines "$tmp/ttl/sent.pcap" >"$tmp/sent.lines"
lines "$tmp/ttl/kept-default.pcap" >"$tmp/kept.lines"
cat "$tmp/sent.lines" "$tmp/kept.lines" "$tmp/sent.lines" >"$tmp/sent-kept-sent.lines"
sort "$tmp/sent-kept-sent.lines" >"$tmp/sent-kept-sent.sorted"
sort "$tmp/kept.lines" >"$tmp/kept.sorted"

# programs: what xdp-loader says runs on m0 (libxdp's view): the program
# attached, then the dispatcher's components in their run order as
# NAME/PRIO; ddf's program as "ddf" (its name and default priority are
# ddfctl's to choose, the order not)
programs() {
	local a b c rest
	nsenter --net="/run/netns/$rcv" xdp-loader status m0 >"$tmp/status" 2>&1 ||
		fail "xdp-loader status m0: $(cat "$tmp/status")"
	while read -r a b c rest; do
		if [[ $a == m0 ]]; then
			echo -n "$b "
		elif [[ $a == "=>" && $c == ddf* ]]; then
			echo -n "ddf "
		elif [[ $a == "=>" ]]; then
			echo -n "$c/$b "
		fi
	done <"$tmp/status"
}

# no_xdp WHAT: m0 has no XDP program at all
no_xdp() {
	local link
	ip -n "$rcv" link show m0 >"$tmp/link"
	read -r -d '' link <"$tmp/link" || true
	if [[ $link == *prog/xdp* ]]; then
		fail "$1: m0 still has an XDP program: $(cat "$tmp/link")"
	fi
}

# span_add: the rule span of family netdev on m0, dropping copies
span_add() {
	# shellcheck disable=SC2086
	R ddfctl rule add span family netdev hook none dev m0 $rule action drop
}

# counted WHAT: the rule span counted the scenario's frames and copies
counted() {
	rule_ctrs "$rcv" span
	expect_eq "${ctr[packets]}" "$n" "$1: packets"
	expect_eq "${ctr[duplicates]}" "$d" "$1: duplicates"
	expect_eq "${ctr[dropped]}" "$d" "$1: dropped"
}

# reader_first MODE QUEUES: the reader alone on QUEUES queues of m0 in
# MODE gets every frame of the stream; ddf's program joins the dispatcher
# before it, and the reader gets what the rule keeps, the rule counts
# what it dropped; ddf's program detached, the reader gets every frame
# again. Its socket closed, libxdp takes its program and the dispatcher
# away.
reader_first() {
	local mode=$1 queues=$2 name="$1-reader-first-$2" want=$((2 * n + k))
	span_add
	xsk_start "$name" queues "$queues" mode "$mode" count "$want" \
		idle 500 timeout 40000
	mirror ttl
	expect_eq "$sent" "$n 0" "$name: frames sent, dropped"
	R ddfctl xdp attach dev m0 rule span mode "$mode" >/dev/null
	expect_eq "$(programs)" "xdp_dispatcher ddf xsk_def_prog/20 " \
		"$name: m0's dispatcher and its programs in their order"
	mirror ttl
	counted "$name"
	R ddfctl xdp detach dev m0
	mirror ttl
	xsk_end "$name"
	expect_eq "$xgot $xlost" "$want 0" "$name: frames the reader got, dropped"
	if ((queues > 1)); then
		expect_ge "$xused" 2 "$name: queues that got frames"
		same_set "$name" "$tmp/sent-kept-sent.sorted"
	else
		same_seq "$name" "$tmp/sent-kept-sent.lines"
	fi
	no_xdp "$name: the reader gone"
	R ddfctl rule del span
	pretty rcv "$name: the reader got $n frames, $k with ddf's program ($d dropped), $n again, on $xused of $queues queues"
}

# ddf_first MODE QUEUES: ddf's program on m0 in MODE, then the reader on
# QUEUES queues: it gets what the rule keeps, the rule counts what it
# dropped; the reader gone, ddf's program stays alone in the dispatcher.
ddf_first() {
	local mode=$1 queues=$2 name="$1-ddf-first-$2"
	span_add
	R ddfctl xdp attach dev m0 rule span mode "$mode" >/dev/null
	xsk_start "$name" queues "$queues" mode "$mode" count "$k" \
		idle 500 timeout 30000
	expect_eq "$(programs)" "xdp_dispatcher ddf xsk_def_prog/20 " \
		"$name: m0's dispatcher and its programs in their order"
	mirror ttl
	expect_eq "$sent" "$n 0" "$name: frames sent, dropped"
	counted "$name"
	xsk_end "$name"
	expect_eq "$xgot $xlost" "$k 0" "$name: frames the reader got, dropped"
	if ((queues > 1)); then
		expect_ge "$xused" 2 "$name: queues that got frames"
		same_set "$name" "$tmp/kept.sorted"
	else
		same_seq "$name" "$tmp/kept.lines"
	fi
	expect_eq "$(programs)" "xdp_dispatcher ddf " \
		"$name: m0's programs once the reader is gone"
	R ddfctl xdp detach dev m0
	no_xdp "$name: ddf's program gone"
	R ddfctl rule del span
	pretty rcv "$name: the reader got $k frames, $d dropped, on $xused of $queues queues"
}

# Test that the reader alone on m0 gets every frame of the stream, byte
# for byte and in order; that with ddf's program attached under it,
# which joins libxdp's dispatcher before libxdp's AF_XDP program, it gets
# each packet once, as the rule keeps it; and every frame again once
# ddf's program is detached; natively and in generic mode. libxdp removes
# its program and the dispatcher when the reader's socket goes.
for mode in native generic; do
	reader_first "$mode" 1
done
passed "the reader alone gets all $n frames; with ddf attached after it the $k the rule keeps; all once ddf is detached; native and generic"

# Test that with ddf's program attached before the reader, the reader
# gets the same, and that once it is gone ddf's program stays.
for mode in native generic; do
	ddf_first "$mode" 1
done
passed "ddf attached before the reader: the reader gets the $k frames the rule keeps, native and generic; ddf's program stays after it"

# Test that a reader with a socket on each of four RX queues gets the
# same: the flows spread over the queues (frames of one flow, copies
# included, take one queue, in order), every queue's frames into the one
# file.
veth 4
reader_first generic 4
ddf_first native 4
passed "four queues: the reader gets every frame alone, the $k the rule keeps beside ddf's program"

# Test that a rule deleted under traffic leaves the reader every frame:
# ddf's program, its rule gone, passes each frame on to the reader. The
# stream is sent $reps times over (every later round all copies) while the
# rule is deleted; the reader must get the frames the rule kept before it
# went, then every frame, duplicates included: each kept frame, and each
# copy behind the first copy it got. A deletion that misses the traffic
# (before its first copy or after its last) is tried again, up to 3 times.
veth 1
reps=6
for ((i = 0; i < reps; i++)); do
	if ((i == 0)); then cat "$tmp/ttl/sent.pcap"; else tail -c +25 "$tmp/ttl/sent.pcap"; fi
done >"$tmp/flood.pcap"
for try in 1 2 3; do
	span_add
	R ddfctl xdp attach dev m0 rule span mode native >/dev/null
	xsk_start "deleted-$try" mode native idle 5000 timeout 60000
	S taskset -c 0 ddfpkt replay -E -i s0 -W 1000 "$tmp/flood.pcap" \
		>"$tmp/flood.out" &
	flood_pid=$!
	# once the reader has a dozen frames or so: the copies among the
	# first have met the rule
	for _ in $(seq 100); do
		(($(stat -c %s "$tmp/deleted-$try.pcap") > 1500)) && break
		sleep 0.05
	done
	R ddfctl rule del span
	wait "$flood_pid" || fail "ddfpkt replay: $(cat "$tmp/flood.out")"
	xsk_end "deleted-$try" stop
	expect_eq "$xlost" 0 "rule deleted under traffic: frames the reader's socket dropped"
	# The reader must get the stream less the copies before one point
	# (the rule's last decision), which the number of frames it got
	# tells: out="DROPPED PASSED", the copies before it and after it.
	out=$(awk -v reps=$reps '
		FILENAME == ARGV[1] { kept[nk++] = $0; next }
		FILENAME == ARGV[2] { sent[ns++] = $0; next }
		{ got[ng++] = $0 }
		END {
			j = 0; n = 0
			for (r = 0; r < reps; r++) for (i = 0; i < ns; i++) {
				s[n] = sent[i]
				copy[n++] = !(r == 0 && j < nk && sent[i] == kept[j] && ++j)
			}
			if (j != nk) { print "the kept frames are not in the stream"; exit }
			# the point: the frames kept before it and all after it
			cut = -1; before = 0
			for (c = 0; c <= n; c++) {
				if (before + n - c == ng) { cut = c; break }
				if (c < n && !copy[c]) before++
			}
			if (cut < 0) { print "no point of the stream leaves the reader its " ng " frames"; exit }
			g = 0; dropped = 0; passed = 0
			for (i = 0; i < n; i++) {
				if (i < cut && copy[i]) { dropped++; continue }
				if (got[g] != s[i]) {
					print "record " g + 1 " of the reader is not frame " i + 1 " of the stream (its count puts the end of the rule at frame " cut + 1 ")"
					exit
				}
				g++
				if (copy[i]) passed++
			}
			print dropped, passed
		}' "$tmp/kept.lines" "$tmp/sent.lines" "$tmp/deleted-$try.lines")
	[[ $out =~ ^[0-9]+\ [0-9]+$ ]] || fail "rule deleted under traffic: $out"
	read -r dropped passed <<<"$out"
	expect_eq $((k + dropped + passed)) $((reps * n)) "rule deleted under traffic: frames accounted for"
	expect_eq "$xgot" $((k + passed)) "rule deleted under traffic: frames the reader got"
	pretty rcv "rule deleted under traffic (try $try): of $((reps * n)) frames, $dropped copies dropped before, the reader got the $k kept and $passed copies after"
	R ddfctl xdp detach dev m0
	((dropped > 0 && passed > 0)) && break
	((try < 3)) || fail "rule deleted under traffic: 3 deletions missed the traffic"
done
no_xdp "after the rule deleted under traffic"
passed "a rule deleted under traffic: the reader gets every frame from its last decision on"

# Test that a reader in another mode than ddf's program is refused in
# one sentence, and leaves ddf's program as it was.
span_add
R ddfctl xdp attach dev m0 rule span mode native >/dev/null
if nsenter --net="/run/netns/$rcv" ddfxsk m0 "$tmp/mixed.pcap" mode generic \
	timeout 1000 >"$tmp/mixed.out" 2>"$tmp/mixed.err"; then
	fail "a generic mode reader beside ddf's native program: accepted"
fi
pretty rcv "ddfxsk mode generic beside ddf native: $(cat "$tmp/mixed.err")"
expect_eq "$(wc -l <"$tmp/mixed.err")" 1 "the reader's refusal: lines"
grep -q "^ddfxsk: cannot bind an AF_XDP socket to queue 0 of m0 with libxdp's program in generic mode: " \
	"$tmp/mixed.err" || fail "the reader's refusal: $(cat "$tmp/mixed.err")"
expect_eq "$(programs)" "xdp_dispatcher ddf " "m0's programs after the refusal"
R ddfctl xdp detach dev m0
R ddfctl rule del span
passed "a reader in another mode than ddf's program: refused in words, ddf's program left as it was"

echo "xsk.sh: $blocks blocks passed" >&3
