#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A capture box on a SPAN port. A mirror port delivers every copy of a
# packet it was given (foreign MACs, VLAN tags, tunnels); a family netdev
# rule at the port's ingress drops the copies, and nft's fwd hands what is
# left to a dummy device, where tcpdump records it (a tool capturing on the
# port itself sees every frame: packet taps run before netfilter). The
# frames come from ddf_spangen, which also writes the captures a rule must
# leave (the first copy of each packet, byte for byte): tcpdump's view of
# what cap0 got must be its view of those, ddf's counters the generator's
# numbers, and ddfctl replay must keep the same records offline.
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/netns/span.sh
#   (ddfctl, ddfpkt, ddf_spangen and tcpdump in $PATH)
#
# ┌──────────────────┐        ┌────────────────────────────────────────┐
# │ $snd             │        │ $rcv, the capture box                  │
# │                  │  veth  │                                        │
# │  s0 ─────────────┼────────┼─ m0 promiscuous: the mirror port       │
# │  ddfpkt replay -E│        │    ingress: ddf rule span (prio -10),  │
# │  (frames as they │        │    then nft fwd to cap0 (prio 0)       │
# │  are in the file)│        │  cap0 (dummy) ── tcpdump -w            │
# └──────────────────┘        └────────────────────────────────────────┘
#
# Neither namespace has an address or IPv6, so nothing but the generated
# frames crosses the veth. Every block begins with "# Test that ..." and
# asserts; a failed assertion stops the script and fails it.

set -e

exec 3>&1
export LANG=C
snd="ddfspan-$$-snd"
rcv="ddfspan-$$-rcv"
here=$(cd "$(dirname "$0")" && pwd)
: "${DDF_MODULES:=$(cd "$here/../.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
tmp=$(mktemp -d)
blocks=0
seed=00112233445566778899aabbccddeeff
# The capture box's rule, as the README gives it, with a seed so that
# ddfctl replay decides as the kernel does.
rule="window 1000000 fpr 1e-6 seed $seed action drop"
declare -A cap_pid

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/netns/capture.bash
. "$(dirname "$0")/capture.bash"

trap capture_cleanup EXIT

capture_setup
ip -n "$rcv" link add cap0 type dummy
ip -n "$snd" link set up dev s0
ip -n "$rcv" link set m0 promisc on up
ip -n "$rcv" link set up dev cap0
R nft add table netdev capture
R nft add chain netdev capture span \
	"{ type filter hook ingress device m0 priority 0; }"
R nft add rule netdev capture span fwd to cap0

pp insmod "$module"
scenarios="ttl vlan vxlan encap"
for s in $scenarios; do gen "$s"; done

# Test that without a rule cap0 gets every frame the port got, unchanged:
# nft's fwd at ingress hands on the whole frame, MAC header included, and
# the outer VLAN tag, which the receive path took out of the frame before
# the hook, is back in it where tcpdump sees it (on cap0's transmit, or
# through libpcap's auxiliary data).
for s in $scenarios; do
	n=$(want "$s" default records)
	cap_start "$rcv" cap0 "$s-none"
	mirror "$s"
	expect_eq "$sent" "$n 0" "$s without a rule: frames sent, dropped"
	cap_stop "$s-none" "$n"
	expect_eq "${got[$s-none]}" "$n" "$s without a rule: frames on cap0"
	same_bytes "$tmp/$s-none.pcap" "$tmp/$s/sent.pcap" "$s without a rule"
	pretty rcv "$s: no rule, cap0 got $n of $n frames, byte for byte"
done
passed "no rule: cap0 gets every frame as it arrived"

# ingress SCENARIO VARIANT: the scenario through a rule of the variant at
# m0's ingress; cap0 must get the generator's kept records, a tcpdump on m0
# every frame, and ddfctl replay must keep what the kernel kept
ingress() {
	local s=$1 v=$2 n k d words
	n=$(want "$s" "$v" records)
	k=$(want "$s" "$v" kept)
	d=$(want "$s" "$v" duplicates)
	words=$(words "$v")
	# shellcheck disable=SC2086
	R ddfctl rule add span family netdev hook ingress dev m0 \
		priority -10 $rule $words
	cap_start "$rcv" cap0 "$s-$v"
	cap_start "$rcv" m0 "$s-$v-port"
	mirror "$s"
	expect_eq "$sent" "$n 0" "$s, $v: frames sent, dropped on the way out"
	cap_stop "$s-$v" "$k" "$s-$v-port" "$n"
	expect_eq "${got[$s-$v]}" "$k" "$s, $v: frames on cap0"
	expect_eq "${got[$s-$v-port]}" "$n" "$s, $v: frames a tcpdump on the port saw"
	same_bytes "$tmp/$s-$v.pcap" "$tmp/$s/kept-$v.pcap" "$s, $v"
	R ddfctl stats span
	rule_ctrs "$rcv" span
	expect_eq "${ctr[packets]}" "$n" "$s, $v: rule packets"
	expect_eq "${ctr[duplicates]}" "$d" "$s, $v: rule duplicates"
	expect_eq "${ctr[dropped]}" "$d" "$s, $v: rule dropped"
	R ddfctl rule del span
	# shellcheck disable=SC2086
	replay_keeps "$s" "$v" "$tmp/$s/kept-$v.pcap" \
		family netdev hook ingress dev m0 priority -10 $rule $words
	pretty rcv "$s, $v: cap0 got $k of $n frames, the port $n; $d dropped"
}

# Test that a rule at the port's ingress with the default key drops the
# copies a hop older (new TTL or hop limit, IPv4 checksum, MACs), so that
# tcpdump on cap0 records each of 40 packets once, as it first arrived,
# while one on the port still sees all 94 frames; and that ddfctl replay
# keeps the same records.
ingress ttl default
passed "ingress, TTL copies: each packet once on cap0, replay agrees"

# Test that under the default key a copy on another VLAN is another
# packet and one on the same VLAN with another priority is not, and that
# with ignore vlan every VLAN and no tag are the same packet.
ingress vlan default
ingress vlan ignore-ttl,ipv4csum,vlan
passed "ingress, VLAN copies: the VLAN ID counts unless ignored"

# Test that without decap no VXLAN frame is a copy of another (each outer
# packet differs), and that decap vxlan finds the copies of a packet sent
# by two or three VTEPs (other outer MACs, addresses over IPv4 and IPv6,
# source ports, an outer tag), inner frames tagged or a hop older.
ingress vxlan default
ingress vxlan decap-vxlan
passed "ingress, VXLAN copies: found with decap vxlan only"

# Test QinQ, MPLS, Geneve, GRE, GRETAP, ERSPAN II and III through the port
# and offline: the same packet plain, under labels, in another tunnel or
# with another outer header is one packet under decap; the inner frame's
# own tag counts, the outer tags and labels do not.
ingress encap default
ingress encap decap-vxlan,geneve,gre,erspan
passed "ingress, QinQ, MPLS and tunnels: the kernel, replay and the generator agree"

# Test that a rule at the sending veth's egress, where the tags are still
# in the frame (nothing took them out), decides as the one at ingress: a
# tcpdump on the mirror port sees only what the rule let out.
egress() {
	local s=$1 v=$2 n k d words
	n=$(want "$s" "$v" records)
	k=$(want "$s" "$v" kept)
	d=$(want "$s" "$v" duplicates)
	words=$(words "$v")
	# shellcheck disable=SC2086
	S ddfctl rule add out family netdev hook egress dev s0 $rule $words
	cap_start "$rcv" m0 "$s-$v-egress"
	mirror "$s" -D
	expect_eq "$sent" "$k $d" "$s, $v at egress: frames sent, dropped on the way out"
	cap_stop "$s-$v-egress" "$k"
	expect_eq "${got[$s-$v-egress]}" "$k" "$s, $v at egress: frames on the port"
	same_bytes "$tmp/$s-$v-egress.pcap" "$tmp/$s/kept-$v.pcap" \
		"$s, $v at egress"
	rule_ctrs "$snd" out
	expect_eq "${ctr[packets]}" "$n" "$s, $v at egress: rule packets"
	expect_eq "${ctr[dropped]}" "$d" "$s, $v at egress: rule dropped"
	S ddfctl rule del out
	pretty snd "$s, $v at egress: the port got $k of $n frames"
}
egress vlan default
egress vlan ignore-ttl,ipv4csum,vlan
egress encap decap-vxlan,geneve,gre,erspan
passed "egress: tags in the frame key as tags taken out at ingress"

echo "span.sh: $blocks passed, 0 failed"
