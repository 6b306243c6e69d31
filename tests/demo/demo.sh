#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo, inside the VM (tests/qemu/run.sh demo starts it through
# init.sh): one sender, one receiver, two links between them, 1000 UDP
# datagrams of which 400 arrive more than once; first with no rule, then
# with a ddf drop rule, and what each side counted. Runs wherever nf_ddf.ko
# can be loaded, with ddfctl and ddfpkt on the PATH:
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
	ip netns del "$snd"
	ip netns del "$rcv"
	rm -rf "$tmp"
	loaded && rmmod nf_ddf
}
trap cleanup EXIT

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
say
say "  sender namespace                      receiver namespace"
say "  s0 10.0.1.1 ───── link 0 ─────── r0 10.0.1.2"
say "  s1 ────────────── link 1 ─────── r1     (copies, TTL 63 as if one hop older)"
say
say "Traffic: $n UDP datagrams to 10.0.1.2:5000; $once sent once, $twice twice,"
say "$thrice three times: $packets packets, $extra of them copies. Copy 1 of a"
say "datagram takes link 0, copy 2 link 1 with TTL 63, copy 3 link 0 again."

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

title "1. No rule: the copies reach the receiver"
drops0=$(udp_drops)
traffic
read -r got_all got_distinct <<<"$got"
read -r plain_dgrams plain_packets <<<"$sent"
plain_dups=$((got_all - got_distinct))
say "    the receiver got $got_all datagrams for $got_distinct distinct ones: $plain_dups duplicates"

title "2. The same traffic through a ddf rule on the receiver"
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
	say "demo: ok: the rule dropped all $extra copies and nothing else; the receiver got each of the $n datagrams once (with no rule: $plain_dups duplicates)"
else
	for w in "${why[@]}"; do say "  - $w"; done
	say "demo: FAILED: ${why[0]}"
	exit 1
fi
