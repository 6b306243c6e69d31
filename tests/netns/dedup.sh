#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# End-to-end de-duplication: a sender emits exact copies of packets
# (ddfpkt send, byte-identical at L3), ddf rules in the receiver drop, mark
# or count them, and the receiver's socket (ddfpkt recv) and nft counters
# show what got through. Run as root where nf_ddf.ko can be loaded:
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/netns/dedup.sh
#
# ┌──────────────┐  path 0   ┌──────────────────────────────┐
# │ $snd         │           │ $rcv                         │
# │  s0 ─────────┼───────────┼─ r0 10.0.1.2 fd00:1::2       │
# │  10.0.1.1    │           │                              │
# │  fd00:1::1   │  path 1   │                              │
# │  s1 ─────────┼─┐       ┌─┼─ r1 10.0.3.2 fd00:3::2       │
# └──────────────┘ │       │ └──────────────────────────────┘
#                  │ $rtr  │
#                t0 10.0.2.2 ── t1 10.0.3.1 (forwarding: TTL - 1)
#
# Copies sent on path 1 reach r1 through the router, one hop older, still
# addressed to r0's address. Every block begins with "# Test that ..." and
# asserts; a failed assertion stops the script and fails it.

set -e

exec 3>&1
export LANG=C
snd="ddf-$$-snd"
rtr="ddf-$$-rtr"
rcv="ddf-$$-rcv"
: "${DDF_MODULES:=$(cd "$(dirname "$0")/../.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
tmp=$(mktemp -d)
blocks=0

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"
T() { pretty rtr "$*"; ip netns exec "$rtr" "$@"; }

cleanup() {
	set +e
	exec 2>/dev/null
	[[ -n $recv_pid ]] && kill "$recv_pid"
	ip netns del "$snd"
	ip netns del "$rtr"
	ip netns del "$rcv"
	rm -rf "$tmp"
	loaded && rmmod nf_ddf
	exit
}
trap cleanup EXIT

if loaded; then pp rmmod nf_ddf; fi
for ns in "$snd" "$rtr" "$rcv"; do
	pp ip netns add "$ns"
	ip -n "$ns" link set up dev lo
done
ip -n "$snd" link add s0 type veth peer name r0 netns "$rcv"
ip -n "$snd" link add s1 type veth peer name t0 netns "$rtr"
ip -n "$rtr" link add t1 type veth peer name r1 netns "$rcv"
ip -n "$snd" addr add 10.0.1.1/24 dev s0
ip -n "$snd" addr add fd00:1::1/64 dev s0 nodad
ip -n "$snd" addr add 10.0.2.1/24 dev s1
ip -n "$snd" addr add fd00:2::1/64 dev s1 nodad
ip -n "$rtr" addr add 10.0.2.2/24 dev t0
ip -n "$rtr" addr add fd00:2::2/64 dev t0 nodad
ip -n "$rtr" addr add 10.0.3.1/24 dev t1
ip -n "$rtr" addr add fd00:3::1/64 dev t1 nodad
ip -n "$rcv" addr add 10.0.1.2/24 dev r0
ip -n "$rcv" addr add fd00:1::2/64 dev r0 nodad
ip -n "$rcv" addr add 10.0.3.2/24 dev r1
ip -n "$rcv" addr add fd00:3::2/64 dev r1 nodad
for l in "$snd s0" "$snd s1" "$rtr t0" "$rtr t1" "$rcv r0" "$rcv r1"; do
	set -- $l
	ip -n "$1" link set up dev "$2"
done
ip -n "$rtr" route add 10.0.1.0/24 via 10.0.3.2
ip -n "$rtr" route add fd00:1::/64 via fd00:3::2
ip netns exec "$rtr" sysctl -qw net.ipv4.ip_forward=1
ip netns exec "$rtr" sysctl -qw net.ipv6.conf.all.forwarding=1
# copies for r0's address arrive on r1 too: no reverse-path filter
for c in all default r0 r1; do
	ip netns exec "$rcv" sysctl -qw "net.ipv4.conf.$c.rp_filter=0"
done
# the router resolves r1 before the first forwarded copy
T ping -q -c 1 -W 5 10.0.3.2 >/dev/null
T ping -q -c 1 -W 5 fd00:3::2 >/dev/null

r0mac=$(mac "$rcv" r0)
t0mac=$(mac "$rtr" t0)
path0="-i s0 -m $r0mac"
path1="-I s1 -M $t0mac"
src4="-s 10.0.1.1 -d 10.0.1.2"
src6="-s fd00:1::1 -d fd00:1::2"

pp insmod "$module"


# Test that a drop rule on the receiver's prerouting removes exactly the
# copies: 40 datagrams sent 2, 2 and 3 times (93 packets), IPv4 and IPv6.
R ddfctl rule add d4 family ip hook prerouting proto udp window 10000 action drop
recv_start
send $path0 $src4 -n 40 -c 2,2,3
recv_wait
expect_eq "$got" "40 40" "IPv4 datagrams received, distinct"
expect_eq "$(ctr d4 packets)" 93 "d4 packets"
expect_eq "$(ctr d4 duplicates)" 53 "d4 duplicates"
expect_eq "$(ctr d4 dropped)" 53 "d4 dropped"
R ddfctl stats d4
R ddfctl -j stats d4
R ddfctl rule add d6 family ip6 hook prerouting proto udp window 10000 action drop
recv_start -6
send $path0 $src6 -n 40 -c 2,2,3
recv_wait
expect_eq "$got" "40 40" "IPv6 datagrams received, distinct"
expect_eq "$(ctr d6 dropped)" 53 "d6 dropped"
expect_eq "$(ctr d4 packets)" 93 "d4 packets after IPv6 traffic"
R ddfctl rule flush
passed "drop removes exactly the copies"

# Test that copies over two paths, one a hop older (TTL 63 against 64), are
# still caught by key packet with its default ignores (ttl, ipv4csum), and
# that with ignore none no copy is caught.
R ddfctl rule add two family inet proto udp window 10000
recv_start
send $path0 $path1 $src4 -n 30 -c 2
recv_wait
expect_eq "$got" "30 30" "two paths, default ignores"
expect_eq "$(ctr two dropped)" 30 "two dropped"
recv_start -6
send $path0 $path1 $src6 -n 20 -c 2 -f 100
recv_wait
expect_eq "$got" "20 20" "two paths, IPv6, default ignores"
R ddfctl rule del two
R ddfctl rule add none family inet proto udp ignore none window 10000
recv_start
send $path0 $path1 $src4 -n 30 -c 2
recv_wait
expect_eq "$got" "60 30" "two paths, ignore none"
expect_eq "$(ctr none duplicates)" 0 "ignore none duplicates"
R ddfctl rule del none
passed "copies over two paths with different TTLs"

# Test that action mark sets the bits an nft rule then matches, that the
# packets go on, and that action count only counts.
R nft -f - <<-EOF
	table inet ddfm {
		counter seen_marked { }
		counter seen_all { }
		chain pre {
			type filter hook prerouting priority 10; policy accept;
			udp dport 5000 counter name seen_all
			meta mark & 0x1 == 0x1 udp dport 5000 counter name seen_marked
		}
	}
EOF
nft_packets() {
	ip netns exec "$rcv" nft list counter inet ddfm "$1" |
		sed -n 's/.*packets \([0-9]*\).*/\1/p'
}
R ddfctl rule add m family ip proto udp priority 0 window 10000 action mark 0x1/0x1
recv_start
send $path0 $src4 -n 25 -c 3
recv_wait
expect_eq "$got" "75 25" "mark: every copy delivered"
expect_eq "$(nft_packets seen_all)" 75 "nft saw every packet"
expect_eq "$(nft_packets seen_marked)" 50 "nft matched the marked copies"
expect_eq "$(ctr m marked)" 50 "m marked"
expect_eq "$(ctr m dropped)" 0 "m dropped"
R ddfctl rule del m
R ddfctl rule add c family ip proto udp window 10000 action count
recv_start
send $path0 $src4 -n 25 -c 3
recv_wait
expect_eq "$got" "75 25" "count: every copy delivered"
expect_eq "$(ctr c duplicates)" 50 "c duplicates"
expect_eq "$(ctr c dropped)" 0 "c dropped"
expect_eq "$(ctr c marked)" 0 "c marked"
R ddfctl rule del c
R nft delete table inet ddfm
passed "mark and count"

# Test a time window: copies 20 ms apart are dropped, copies 2 s apart (far
# beyond the 300 ms window and its last generation) pass.
R ddfctl rule add tw family ip proto udp window 1000/300ms
recv_start
send $path0 $src4 -n 5 -c 2 -w 20000
recv_wait
expect_eq "$got" "5 5" "copies inside the window"
idle=4000 recv_start
send $path0 $src4 -n 3 -c 2 -w 2000000 -f 10
recv_wait
expect_eq "$got" "6 3" "copies after the window"
expect_eq "$(ctr tw dropped)" 5 "tw dropped"
R ddfctl rule del tw
passed "time window"

# Test IPv6 with an extension header, TCP, ICMP echo, and fragments (each
# fragment is its own key: copies of a fragment are dropped, fragments of
# one datagram never collide, so the receiver reassembles every datagram).
R ddfctl rule add x6 family ip6 proto udp window 10000
recv_start -6
send $path0 $src6 -n 20 -c 2 -e
recv_wait
expect_eq "$got" "20 20" "IPv6 with destination options"
expect_eq "$(ctr x6 dropped)" 20 "x6 dropped"
R ddfctl rule del x6
R nft -f - <<-EOF
	table inet ddfc {
		counter seen_tcp { }
		counter seen_echo4 { }
		counter seen_echo6 { }
		chain in {
			type filter hook input priority 0; policy accept;
			tcp dport 5000 counter name seen_tcp
			icmp type echo-request counter name seen_echo4
			icmpv6 type echo-request counter name seen_echo6
		}
	}
EOF
nft_c() {
	ip netns exec "$rcv" nft list counter inet ddfc "$1" |
		sed -n 's/.*packets \([0-9]*\).*/\1/p'
}
R ddfctl rule add tcp family inet proto tcp window 10000
send $path0 $src4 -p tcp -n 15 -c 2
send $path0 $src6 -p tcp -n 15 -c 3
expect_eq "$(nft_c seen_tcp)" 30 "TCP segments past the rule"
expect_eq "$(ctr tcp dropped)" 45 "tcp dropped"
R ddfctl rule add echo4 family ip proto icmp window 10000
R ddfctl rule add echo6 family ip6 proto icmpv6 window 10000
send $path0 $src4 -p icmp -n 12 -c 2
send $path0 $src6 -p icmp -n 12 -c 2
expect_eq "$(nft_c seen_echo4)" 12 "ICMP echo requests past the rule"
expect_eq "$(nft_c seen_echo6)" 12 "ICMPv6 echo requests past the rule"
expect_eq "$(ctr echo4 dropped)" 12 "echo4 dropped"
R ddfctl rule flush
R nft delete table inet ddfc
R ddfctl rule add fr family inet proto udp window 10000
recv_start
send $path0 $src4 -n 10 -c 2 -l 300 -F 64
recv_wait
expect_eq "$got" "10 10" "IPv4 fragments"
recv_start -6
send $path0 $src6 -n 10 -c 2 -l 300 -F 64
recv_wait
expect_eq "$got" "10 10" "IPv6 fragments"
# 300 bytes of payload, 64 a fragment: 5 fragments of each datagram
expect_eq "$(ctr fr dropped)" 100 "fr dropped (one copy of each fragment)"
R ddfctl rule del fr
passed "IPv6 extension headers, TCP, ICMP echo, fragments"

# Test that bad configuration is refused: each command below fails with a
# sentence naming what is wrong (the words after "|" must appear in it),
# and the rule set is the same after all of them (ddfctl save).
R ddfctl rule add keep family ip hook input proto udp window 1000 action mark 0x4
R ddfctl rule add keep2 window 500/1s
bad=(
	"needs a name|rule add"
	"window|rule add x"
	"3parsecs|rule add x window 3parsecs"
	"window|rule add x window 0"
	"ipx|rule add x family ipx window 10"
	"sideways|rule add x hook sideways window 10"
	"1e3|rule add x priority 1e3 window 10"
	"gre|rule add x proto gre window 10"
	"bogus|rule add x key saddr,bogus window 10"
	"payload|rule add x key packet payload 0:4 window 10"
	"ipv4csum|rule add x ignore ttl window 10"
	"bogus|rule add x filter bogus window 10"
	"fpr|rule add x window 10 fpr 2"
	"memory|rule add x window 10 fpr 1e-6 memory 1M"
	"max_rule_bytes|rule add x window 100000000 fpr 1e-9"
	"seed|rule add x window 10 seed 0011"
	"mask|rule add x window 10 action mark 0x3/0x1"
	"explode|rule add x window 10 action explode"
	"iif|rule add x hook output iif r0 window 10"
	"oif|rule add x hook prerouting oif r0 window 10"
	"exists|rule add keep window 1000"
	"31|rule add a_name_of_thirty_two_characters2 window 10"
	"10us|rule add x window 1000/1ns"
	"1h|rule add x window 1000/2h"
	"extra|rule add x window 10 extra"
	"max-bytes|rule add x max-bytes 0 window 10"
	"4096|rule add x key sport,payload payload 10:5000 window 10"
	"no rule|rule del nosuch"
	"no rule|rule reset nosuch"
	"sideways|rule reset keep sideways"
	"exact|rule add x filter exact window 10 cpus 2"
	"8192|rule add x window 10 cpus 8193"
)
before=$(in_ns "$rcv" ddfctl save)
expect_eq "$(grep -c '^rule add' <<<"$before")" 2 "rules saved before"
# apbf and apbbf rules are sized for the kernel's CPUs (batched tickets)
cpus=$(($(sed 's/.*[-,]//' /sys/devices/system/cpu/possible) + 1))
expect_eq "$(grep -c ",cpus=$cpus\b" <<<"$before")" 2 "rules sized for $cpus CPUs"
for row in "${bad[@]}"; do
	want=${row%%|*}
	cmd=${row#*|}
	# shellcheck disable=SC2086
	if out=$(in_ns "$rcv" ddfctl $cmd 2>&1); then
		fail "ddfctl $cmd succeeded"
	fi
	pretty rcv "ddfctl $cmd: $out"
	grep -qiF -- "$want" <<<"$out" || fail "ddfctl $cmd: '$out' does not say '$want'"
done
expect_eq "$(in_ns "$rcv" ddfctl save)" "$before" "rules after the bad commands"
R ddfctl rule flush
passed "${#bad[@]} bad commands refused, rules unchanged"

# Test that deleting rules, emptying filters and unloading the module while
# traffic flows is safe: the sender floods while rules come and go.
S ddfpkt send $path0 $path1 $src4 -n 5000 -c 2 >"$tmp/flood" 2>&1 &
flood=$!
for i in $(seq 6); do
	R ddfctl rule add f$i family ip window 10000
	R ddfctl rule add g$i family inet hook input window 1000/10ms action mark 0x2
	R ddfctl rule reset f$i filter
	R ddfctl rule del f$i
	if ((i % 3 == 0)); then
		pp rmmod nf_ddf
		pp insmod "$module"
	fi
done
R ddfctl rule add last family ip proto udp window 10000
wait "$flood" || fail "the flood failed: $(cat "$tmp/flood")"
send $path0 $src4 -n 5 -c 2 -f 30000
expect_ge "$(ctr last dropped)" 5 "last dropped"
pp rmmod nf_ddf
passed "rules deleted and module unloaded under traffic"

echo "dedup.sh: $blocks passed, 0 failed"
