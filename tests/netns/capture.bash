# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What span.sh and xdp.sh share: ddf_spangen's frames sent into s0 of $snd
# as a mirror port delivers them, and tcpdump's captures of what a device
# of $rcv got. Sourced after lib.bash; the script sets $tmp and declares
# the array cap_pid first.

# capture_cleanup: the EXIT trap: captures, namespaces, $tmp, the module
capture_cleanup() {
	set +e
	exec 2>/dev/null
	for p in "${cap_pid[@]}"; do kill "$p"; done
	ip netns del "$snd"
	ip netns del "$rcv"
	rm -rf "$tmp"
	loaded && rmmod nf_ddf
	exit
}

# capture_setup: the tools checked, no nf_ddf loaded, $snd and $rcv with
# no IPv6, and the veth s0 ($snd) - m0 ($rcv), both down
capture_setup() {
	local t ns
	for t in ddfctl ddfpkt ddf_spangen tcpdump taskset; do
		command -v "$t" >/dev/null || fail "no $t in PATH"
	done
	if loaded; then pp rmmod nf_ddf; fi
	for ns in "$snd" "$rcv"; do
		pp ip netns add "$ns"
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
		ip -n "$ns" link set up dev lo
	done
	ip -n "$snd" link add s0 type veth peer name m0 netns "$rcv"
}

# gen SCENARIO: $tmp/SCENARIO/sent.pcap and kept-VARIANT.pcap, and the
# generator's numbers in $tmp/SCENARIO/counts
gen() {
	mkdir -p "$tmp/$1"
	ddf_spangen "$1" "$tmp/$1" >"$tmp/$1/counts" || fail "ddf_spangen $1"
}

# want SCENARIO VARIANT records|kept|duplicates: a number of the generator
want() {
	awk -v v="$2" -v w="$3" '$1 == v {
		for (i = 2; i < NF; i += 2) if ($i == w) print $(i + 1) }' \
		"$tmp/$1/counts"
}

# words VARIANT: the rule words a variant of ddf_spangen stands for
words() { [[ $1 == default ]] || echo "${1//-/ }"; }

# tcpdump drops root for user tcpdump unless told otherwise, even to read
# a file; the VMs have no such user.
# text FILE: tcpdump's view of a capture, every byte from the MAC header
text() { tcpdump -Z root -r "$1" -n -t -xx 2>/dev/null; }

# records FILE: the number of records in a capture (0 while it has none)
records() {
	local n
	n=$(tcpdump -Z root -r "$1" --count 2>/dev/null | sed -n 's/ packets$//p')
	echo "${n:-0}"
}

# cap_start NS DEV NAME: tcpdump on DEV in NS, writing $tmp/NAME.pcap,
# capturing when it returns
cap_start() {
	local out=$tmp/$3.pcap
	rm -f "$out" "$out.log"
	ip netns exec "$1" tcpdump -Z root -U -n -i "$2" -w "$out" \
		2>"$out.log" &
	cap_pid[$3]=$!
	for _ in $(seq 300); do
		grep -q 'listening on' "$out.log" 2>/dev/null && return
		sleep 0.1
	done
	fail "tcpdump on $2 did not start: $(cat "$out.log")"
}

# cap_stop NAME N [NAME N]...: once each $tmp/NAME.pcap holds its N
# records (or 30 s have passed), and a second more for any frame too many,
# stop the tcpdumps; then got[NAME]=the records each holds
declare -A got
cap_stop() {
	local a=("$@") i
	for ((i = 0; i < ${#a[@]}; i += 2)); do
		for _ in $(seq 100); do
			(($(records "$tmp/${a[i]}.pcap") >= a[i + 1])) && break
			sleep 0.2
		done
	done
	sleep 1
	for ((i = 0; i < ${#a[@]}; i += 2)); do
		kill -INT "${cap_pid[${a[i]}]}"
		wait "${cap_pid[${a[i]}]}" || true
		unset "cap_pid[${a[i]}]"
		got[${a[i]}]=$(records "$tmp/${a[i]}.pcap")
		grep -q '^0 packets dropped by kernel' "$tmp/${a[i]}.pcap.log" ||
			fail "tcpdump lost frames: $(cat "$tmp/${a[i]}.pcap.log")"
	done
}

# same_bytes GOT WANT WHAT: the two captures' records are the same bytes
# (files, not <(...): the VMs have no /dev/fd; WANT's text is kept)
same_bytes() {
	text "$1" >"$tmp/got.txt"
	[[ -s $2.txt ]] || text "$2" >"$2.txt"
	[[ -s $2.txt ]] || fail "$3: tcpdump cannot read $2"
	if ! cmp -s "$tmp/got.txt" "$2.txt"; then
		diff "$2.txt" "$tmp/got.txt" | head -n 40 >&2
		fail "$3: tcpdump shows other bytes than the generator's (diff: - wanted, + got)"
	fi
}

# rule_ctr NS RULE WORD: a counter of a ddf rule (ddfctl stats)
rule_ctr() {
	in_ns "$1" ddfctl stats "$2" | sed -n "s/.* $3 \([0-9]*\).*/\1/p"
}

# rule_ctrs NS RULE: ctr[WORD] for each counter of the rule's own line of
# ddfctl stats (packets bytes duplicates dropped marked unparsed), one read
declare -A ctr
rule_ctrs() {
	local out w i
	out=$(in_ns "$1" ddfctl stats "$2")
	# shellcheck disable=SC2206
	w=(${out%%$'\n'*})
	[[ ${w[0]} == "$2:" ]] || fail "ddfctl stats $2: $out"
	ctr=()
	for ((i = 1; i + 1 < ${#w[@]}; i += 2)); do ctr[${w[i]}]=${w[i + 1]}; done
}

# mirror SCENARIO [-D]: every frame of its sent.pcap out of s0, as it is;
# -D: a frame an egress rule drops is not sent again. sent="F D": the
# frames sent and those dropped on the way out. The sender stays on one
# CPU: the frames queue on that CPU's backlog, in order, and the first
# copy of a packet is the first to reach the rule.
mirror() {
	local out
	# shellcheck disable=SC2086
	out=$(S taskset -c 0 ddfpkt replay -E ${2:-} -i s0 -W 200 \
		"$tmp/$1/sent.pcap")
	sent=$(sed -n 's/^ddfpkt: sent \([0-9]*\) frames, \([0-9]*\) dropped.*/\1 \2/p' \
		<<<"$out")
	[[ -n $sent ]] || fail "ddfpkt replay -E: $out"
}

# replay_keeps SCENARIO VARIANT PCAP WORDS...: ddfctl replay of the
# scenario's frames under a rule of WORDS counts the generator's numbers
# for the variant and keeps the records of PCAP, byte for byte
replay_keeps() {
	local s=$1 v=$2 pcap=$3 n d
	shift 3
	n=$(want "$s" "$v" records)
	d=$(want "$s" "$v" duplicates)
	ddfctl replay "$tmp/$s/sent.pcap" -w "$tmp/$s-$v-replay.pcap" "$@" \
		>"$tmp/sum" || fail "ddfctl replay: $(cat "$tmp/sum")"
	pretty replay "$(sed -n 2p "$tmp/sum")"
	grep -q "^packets $n .* duplicates $d dropped $d " "$tmp/sum" ||
		fail "$s, $v: ddfctl replay counts other packets: $(cat "$tmp/sum")"
	same_bytes "$tmp/$s-$v-replay.pcap" "$pcap" "$s, $v, ddfctl replay"
}
