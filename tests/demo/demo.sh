#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo, inside the VM (tests/qemu/run.sh demo starts it through
# init.sh). Two cases, each first with no rule, then with a ddf drop rule:
#
#  A. A capture box behind a SPAN port: 1000 UDP datagrams to another
#     host's MAC address arrive on a promiscuous port, 400 of them more
#     than once (some copies a hop older); tcpdump reads the capture device
#     that an nft netdev chain forwards the port's frames to, the recipe of
#     the README. With a netdev ingress rule on the port it gets each once.
#  B. Redundant links into a host: the same datagrams to the receiver's
#     own address over two links, and a prerouting rule.
#
# Runs wherever nf_ddf.ko can be loaded, with ddfctl, ddfpkt, nft and
# tcpdump on the PATH:
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/demo/demo.sh
#
# The last line is the verdict, "demo: ok: ..." or "demo: FAILED: ...";
# the exit status says the same.

set -e

exec 3>&1
export LANG=C
snd="ddf-$$-snd"
rcv="ddf-$$-rcv"
: "${DDF_MODULES:=$(cd "$(dirname "$0")/../.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
tmp=$(mktemp -d)
verdict=0

# lib.bash is tests/netns/lib.bash in the tree and /ddf/tests/lib.bash in
# the VM (this script is /ddf/demo/demo.sh there).
for lib in "$(dirname "$0")/../netns/lib.bash" "$(dirname "$0")/../tests/lib.bash"; do
	[[ -e $lib ]] && break
done
# shellcheck source=tests/netns/lib.bash
. "$lib"

# The traffic: datagram i is sent copies[i % 10] times, copy j by link j % 2.
n=1000
copies=1,2,1,2,1,2,1,3,1,1
once=$((n * 6 / 10)) twice=$((n * 3 / 10)) thrice=$((n / 10))
packets=$((once + 2 * twice + 3 * thrice))
extra=$((packets - n))
rule=(window 100000 fpr 1e-6 action drop)

say() { echo "$*" >&3; }
title() { say; say "== $*"; }

cleanup() {
	rc=$?
	set +e
	# a step that failed (lib.bash's fail, set -e) still ends with a verdict
	((verdict)) || say "demo: FAILED: the script stopped early (exit status $rc)"
	exec 2>/dev/null
	[[ -n $recv_pid ]] && kill "$recv_pid"
	[[ -n $cap_pid ]] && kill "$cap_pid"
	ip netns del "$snd"
	ip netns del "$rcv"
	rm -rf "$tmp"
	loaded && rmmod nf_ddf
}
trap cleanup EXIT

foreign=02:00:5e:00:53:99

# udp_drops: datagrams the receiver's kernel dropped for a full socket buffer.
udp_drops() {
	ip netns exec "$rcv" awk '/^Udp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 } else print $c["RcvbufErrors"] }' /proc/net/snmp
}

# traffic: the 1000 datagrams, sent while the receiver counts; sets got
# ("RECEIVED DISTINCT") and sent ("DATAGRAMS PACKETS").
traffic() {
	recv_start
	S ddfpkt send -i s0 -m "$r0mac" -I s1 -M "$r1mac" -T 63 \
		-s 10.0.1.1 -d 10.0.1.2 -n "$n" -c "$copies" -W 300 >"$tmp/sent"
	say "    $(cat "$tmp/sent")"
	sent=$(sed -n 's/^ddfpkt: sent \([0-9]*\) datagrams, \([0-9]*\) packets$/\1 \2/p' "$tmp/sent")
	recv_wait
}

say "ddf demo on Linux $(uname -r): nf_ddf de-duplicates packets in the kernel"
if loaded; then rmmod nf_ddf; fi
for ns in "$snd" "$rcv"; do
	ip netns add "$ns"
	ip -n "$ns" link set up dev lo
done
ip -n "$snd" link add s0 type veth peer name r0 netns "$rcv"
ip -n "$snd" link add s1 type veth peer name r1 netns "$rcv"
ip -n "$snd" addr add 10.0.1.1/24 dev s0
ip -n "$rcv" addr add 10.0.1.2/24 dev r0
ip -n "$snd" link set up dev s0
ip -n "$snd" link set up dev s1
ip -n "$rcv" link set up dev r0
ip -n "$rcv" link set up dev r1
# copies for r0's address arrive on r1 too: no reverse-path filter
for c in all default r0 r1; do
	ip netns exec "$rcv" sysctl -qw "net.ipv4.conf.$c.rp_filter=0"
done
r0mac=$(mac "$rcv" r0)
r1mac=$(mac "$rcv" r1)

# capture_start: tcpdump on cap0 in $rcv, writing $tmp/cap.pcap, ready
# when it returns (it says so on stderr once it listens); -Z root: the VM
# has no user tcpdump to drop privileges to
capture_start() {
	rm -f "$tmp/cap.pcap" "$tmp/cap.err"
	ip netns exec "$rcv" tcpdump -Z root -U -i cap0 -n -w "$tmp/cap.pcap" \
		2>"$tmp/cap.err" &
	cap_pid=$!
	for _ in $(seq 100); do
		grep -q listening "$tmp/cap.err" 2>/dev/null && return
		sleep 0.1
	done
	fail "tcpdump did not start: $(cat "$tmp/cap.err")"
}

# capture_stop: cap="FRAMES DISTINCT" of what tcpdump got
capture_stop() {
	sleep 1
	kill -INT "$cap_pid"
	wait "$cap_pid" || true
	cap_pid=
	cap="$(tcpdump -Z root -r "$tmp/cap.pcap" -n 2>/dev/null | grep -c .) $(tcpdump -Z root -r "$tmp/cap.pcap" -n -A 2>/dev/null | grep -o 'ddfpkt [0-9]*' | sort -u | grep -c .)"
}

# span_traffic: the datagrams to the foreign MAC, every copy into the port
span_traffic() {
	capture_start
	S ddfpkt send -i m0 -m "$foreign" -I m0 -M "$foreign" -T 63 \
		-s 192.0.2.1 -d 198.51.100.2 -n "$n" -c "$copies" -W 300 \
		>"$tmp/sent"
	say "    $(cat "$tmp/sent")"
	sent=$(sed -n 's/^ddfpkt: sent \([0-9]*\) datagrams, \([0-9]*\) packets$/\1 \2/p' "$tmp/sent")
	capture_stop
}

title "A. A capture box behind a SPAN port"
say "  The port eth1 receives frames for another host (MAC $foreign),"
say "  each datagram 1 to 3 times ($packets frames for $n datagrams, the second"
say "  copy a hop older); tcpdump reads cap0, where an nft netdev chain hands"
say "  the port's frames."
ip -n "$snd" link add m0 type veth peer name eth1 netns "$rcv"
# only the demo's frames cross the port: no IPv6 neighbour or MLD chatter
ip netns exec "$snd" sysctl -qw net.ipv6.conf.m0.disable_ipv6=1
ip netns exec "$rcv" sysctl -qw net.ipv6.conf.eth1.disable_ipv6=1
ip -n "$snd" link set up dev m0
R ip link add cap0 type dummy
R ip link set cap0 up
R ip link set eth1 promisc on up
R nft add table netdev capture
R nft add chain netdev capture span '{ type filter hook ingress device eth1 priority 0; }'
R nft add rule netdev capture span fwd to cap0
say "  no rule:"
span_traffic
read -r a_all a_distinct <<<"$cap"
read -r a_dgrams a_packets <<<"$sent"
say "    tcpdump -i cap0 got $a_all frames for $a_distinct distinct datagrams"
pp insmod "$module"
R ddfctl rule add span family netdev hook ingress dev eth1 priority -10 \
	window 1000000 fpr 1e-6 action drop
say "  with the rule:"
span_traffic
read -r b_all b_distinct <<<"$cap"
read -r b_dgrams b_packets <<<"$sent"
R ddfctl stats span | sed 's/^/    /' >&3
span_packets=$(ctr span packets)
span_dropped=$(ctr span dropped)
say "    tcpdump -i cap0 got $b_all frames for $b_distinct distinct datagrams"
R ddfctl rule del span
R nft delete table netdev capture
pp rmmod nf_ddf
ip -n "$snd" link del m0

title "B. Redundant links into a host"
say "  sender namespace                      receiver namespace"
say "  s0 10.0.1.1 ───── link 0 ─────── r0 10.0.1.2"
say "  s1 ────────────── link 1 ─────── r1     (copies, TTL 63 as if one hop older)"
say
say "Traffic: $n UDP datagrams to 10.0.1.2:5000; $once sent once, $twice twice,"
say "$thrice three times: $packets packets, $extra of them copies. Copy 1 of a"
say "datagram takes link 0, copy 2 link 1 with TTL 63, copy 3 link 0 again."

title "B1. No rule: the copies reach the receiver"
drops0=$(udp_drops)
traffic
read -r got_all got_distinct <<<"$got"
read -r plain_dgrams plain_packets <<<"$sent"
plain_dups=$((got_all - got_distinct))
say "    the receiver got $got_all datagrams for $got_distinct distinct ones: $plain_dups duplicates"

title "B2. The same traffic through a ddf rule on the receiver"
pp insmod "$module"
R ddfctl rule add dedup family inet hook prerouting proto udp "${rule[@]}"
R ddfctl show dedup | sed 's/^/    /' >&3
say "  before:"
R ddfctl stats dedup | sed 's/^/    /' >&3
traffic
read -r ddf_all ddf_distinct <<<"$got"
read -r ddf_dgrams ddf_packets <<<"$sent"
say "  after:"
R ddfctl stats dedup | sed 's/^/    /' >&3
rule_packets=$(ctr dedup packets)
rule_dups=$(ctr dedup duplicates)
rule_dropped=$(ctr dedup dropped)
drops=$(($(udp_drops) - drops0))

title "Summary"
row() { say "$(printf '  %-32s %12s %12s' "$@")"; }
say "  A. SPAN port, netdev ingress rule, tcpdump on cap0"
row "" "no rule" "ddf rule"
row "frames into the port" "$a_packets" "$b_packets"
row "  distinct datagrams" "$a_dgrams" "$b_dgrams"
row "frames the rule saw" "-" "$span_packets"
row "  dropped as duplicates" "-" "$span_dropped"
row "frames tcpdump got" "$a_all" "$b_all"
row "  distinct" "$a_distinct" "$b_distinct"
say "  B. redundant links, prerouting rule, a UDP receiver"
row "" "no rule" "ddf rule"
row "packets sent" "$plain_packets" "$ddf_packets"
row "  distinct datagrams" "$plain_dgrams" "$ddf_dgrams"
row "  copies" "$((plain_packets - plain_dgrams))" "$((ddf_packets - ddf_dgrams))"
row "packets the rule saw" "-" "$rule_packets"
row "  dropped as duplicates" "-" "$rule_dropped"
row "datagrams the receiver got" "$got_all" "$ddf_all"
row "  distinct" "$got_distinct" "$ddf_distinct"
row "  duplicates" "$plain_dups" "$((ddf_all - ddf_distinct))"
((drops == 0)) || say "  (the receiver's socket buffer overflowed $drops times)"

why=()
[[ $a_packets == "$packets" && $b_packets == "$packets" ]] ||
	why+=("A: the sender sent $a_packets and $b_packets frames, not $packets")
[[ $a_all == "$packets" && $a_distinct == "$n" ]] ||
	why+=("A: with no rule tcpdump got $a_all frames ($a_distinct distinct), not $packets ($n)")
[[ $span_packets == "$packets" && $span_dropped == "$extra" ]] ||
	why+=("A: the rule saw $span_packets frames and dropped $span_dropped, not $packets and $extra")
[[ $b_all == "$n" && $b_distinct == "$n" ]] ||
	why+=("A: with the rule tcpdump got $b_all frames ($b_distinct distinct), not each of the $n once")
[[ $plain_packets == "$packets" && $ddf_packets == "$packets" ]] ||
	why+=("the sender sent $plain_packets and $ddf_packets packets, not $packets")
[[ $got_all == "$packets" && $got_distinct == "$n" ]] ||
	why+=("with no rule the receiver got $got_all datagrams ($got_distinct distinct), not $packets ($n)")
[[ $rule_packets == "$packets" ]] ||
	why+=("the rule saw $rule_packets packets, not $packets")
[[ $rule_dups == "$extra" && $rule_dropped == "$extra" ]] ||
	why+=("the rule found $rule_dups duplicates and dropped $rule_dropped, not $extra")
[[ $ddf_all == "$n" && $ddf_distinct == "$n" ]] ||
	why+=("with the rule the receiver got $ddf_all datagrams ($ddf_distinct distinct), not each of the $n once")
((drops == 0)) || why+=("the receiver's socket dropped $drops datagrams")

say
verdict=1
if ((${#why[@]} == 0)); then
	say "demo: ok: A: tcpdump on the capture device got each of the $n datagrams once (with no rule: $a_all frames); B: the prerouting rule dropped all $extra copies and nothing else, the receiver got each datagram once (with no rule: $plain_dups duplicates)"
else
	for w in "${why[@]}"; do say "  - $w"; done
	say "demo: FAILED: ${why[0]}"
	exit 1
fi
