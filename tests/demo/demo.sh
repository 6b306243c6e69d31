#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo, inside the VM (tests/qemu/run.sh demo starts it through
# init.sh). Two cases, each first with no rule, then with a ddf drop rule:
#
#  A. A capture box behind two SPAN ports: 1000 UDP datagrams to another
#     host's MAC address, 400 of them more than once, the first copy on the
#     promiscuous port eth1, the second (a hop older) on eth2, the third on
#     eth1 again: the recipes of the README. One rule over both ports, judged
#     by ddf's XDP program on each (skipped, with the reason, when the kernel
#     or the module has no BTF), leaves tcpdump on the ports each datagram
#     once; the same rule at the ports' netdev ingress leaves each once to
#     tcpdump on cap0, where an nft chain over both ports forwards them.
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
	((${#cap_pid[@]})) && kill "${cap_pid[@]}"
	ip netns del "$snd"
	ip netns del "$rcv"
	rm -rf "$tmp"
	loaded && rmmod nf_ddf
}
trap cleanup EXIT

foreign=02:00:5e:00:53:99
cap_pid=()

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

# span_stats: ddfctl stats span, shown and kept; then rctr WORD: a counter
# of the rule, and dctr DEV WORD: of one of its devices (the rule's line,
# then a line per device)
span_stats() {
	R ddfctl stats span >"$tmp/stats"
	sed 's/^/    /' "$tmp/stats" >&3
}
rctr() { sed -n "1s/.* $1 \([0-9]*\).*/\1/p" "$tmp/stats"; }
dctr() { sed -n "s/^    dev $1:.* $2 \([0-9]*\).*/\1/p" "$tmp/stats"; }

say "ddf demo on Linux $(uname -r): nf_ddf de-duplicates packets in the kernel"
if loaded; then rmmod nf_ddf; fi
for ns in "$snd" "$rcv"; do
	ip netns add "$ns"
	# only the demo's frames cross the links: no IPv6 neighbour or MLD
	# chatter (cap0's own would reach tcpdump)
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
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

# capture_start DEV...: tcpdump on each DEV in $rcv, writing $tmp/DEV.pcap,
# all capturing when it returns (each says so on stderr once it listens);
# -Z root: the VM has no user tcpdump to drop privileges to
capture_start() {
	local d
	caps=("$@")
	for d in "$@"; do
		rm -f "$tmp/$d.pcap" "$tmp/$d.err"
		ip netns exec "$rcv" tcpdump -Z root -U -i "$d" -n \
			-w "$tmp/$d.pcap" 2>"$tmp/$d.err" &
		cap_pid+=("$!")
	done
	for d in "$@"; do
		for _ in $(seq 100); do
			grep -q listening "$tmp/$d.err" 2>/dev/null && continue 2
			sleep 0.1
		done
		fail "tcpdump on $d did not start: $(cat "$tmp/$d.err")"
	done
}

# capture_stop: stop the captures; cap[DEV]: the frames tcpdump got on DEV
declare -A cap
capture_stop() {
	local d
	sleep 1
	kill -INT "${cap_pid[@]}"
	wait "${cap_pid[@]}" || true
	cap_pid=()
	for d in "${caps[@]}"; do
		cap[$d]=$(frames "$d")
	done
}

# frames DEV: the frames of its capture; distinct DEV...: the distinct
# datagrams among those of the captures (ddfpkt's payload begins "ddfpkt
# INDEX")
frames() {
	local n
	n=$(tcpdump -Z root -r "$tmp/$1.pcap" --count 2>/dev/null |
		sed -n 's/ packets$//p')
	echo "${n:-0}"
}
distinct() {
	local d
	for d in "$@"; do
		tcpdump -Z root -r "$tmp/$d.pcap" -n -A 2>/dev/null
	done | grep -o 'ddfpkt [0-9]*' | sort -u | grep -c . || true
}

# span_traffic DEV...: the datagrams to the foreign MAC, the first copy
# into eth1, the second into eth2, the third into eth1 again, while
# tcpdump captures on each DEV
span_traffic() {
	capture_start "$@"
	S ddfpkt send -i m1 -m "$foreign" -I m2 -M "$foreign" -T 63 \
		-s 192.0.2.1 -d 198.51.100.2 -n "$n" -c "$copies" -W 300 \
		>"$tmp/sent"
	say "    $(cat "$tmp/sent")"
	sent=$(sed -n 's/^ddfpkt: sent \([0-9]*\) datagrams, \([0-9]*\) packets$/\1 \2/p' "$tmp/sent")
	capture_stop
}

# got DEV...: what tcpdump got on the DEVs, said and in tools="FRAMES
# DISTINCT"
got() {
	local d f=0 line="tcpdump"
	for d in "$@"; do
		line+=" -i $d got ${cap[$d]},"
		f=$((f + cap[$d]))
	done
	tools="$f $(distinct "$@")"
	(($# == 1)) || line+=" together $f"
	say "    ${line%,} frames for ${tools#* } distinct datagrams"
}

title "A. A capture box behind two SPAN ports"
say "  Two mirror sessions copy the same traffic to the box: the ports eth1 and"
say "  eth2 receive frames for another host (MAC $foreign), each datagram 1 to 3"
say "  times ($packets frames for $n datagrams): the first copy on eth1, the second"
say "  on eth2 a hop older, the third on eth1 again. One rule covers both ports."
for i in 1 2; do
	ip -n "$snd" link add "m$i" type veth peer name "eth$i" netns "$rcv"
	ip -n "$snd" link set up dev "m$i"
	R ip link set "eth$i" promisc on up
done
# the fallback's capture device and chain, set up now so that the first
# round shows what tcpdump gets on the ports and on cap0 with no rule
R ip link add cap0 type dummy
R ip link set cap0 up
R nft add table netdev capture
R nft add chain netdev capture span \
	'{ type filter hook ingress devices = { eth1, eth2 } priority 0; }'
R nft add rule netdev capture span fwd to cap0

title "A1. No rule: every copy reaches the tools"
span_traffic eth1 eth2 cap0
read -r a_dgrams a_packets <<<"$sent"
got eth1 eth2
a_ports=$tools
got cap0
a_cap=$tools
pp insmod "$module"

# ddf's XDP program calls nf_ddf through a kfunc, which needs the kernel's
# BTF and the module's
xdp_skip=
if [[ ! -e /sys/kernel/btf/vmlinux ]]; then
	xdp_skip="kernel $(uname -r) has no BTF (CONFIG_DEBUG_INFO_BTF), so no XDP program can call nf_ddf"
elif [[ ! -e /sys/kernel/btf/nf_ddf ]]; then
	xdp_skip="nf_ddf.ko has no BTF (built without pahole or resolve_btfids)"
fi
title "A2. XDP: the rule in the ports' driver, tcpdump on the ports"
if [[ -n $xdp_skip ]]; then
	say "  skipped: $xdp_skip"
else
	say "  ddf's XDP program on eth1 and eth2 hands every frame to the rule, before"
	say "  the ports' taps: the tools capture on the ports themselves."
	R ddfctl rule add span family netdev hook none dev eth1,eth2 \
		window 1000000 fpr 1e-6 action drop
	R ddfctl xdp attach dev eth1 rule span mode native
	R ddfctl xdp attach dev eth2 rule span mode native
	R ddfctl show span | sed 's/^/    /' >&3
	span_traffic eth1 eth2
	read -r x_dgrams x_packets <<<"$sent"
	span_stats
	x_seen=$(rctr packets)
	x_dropped=$(rctr dropped)
	x_dev_dropped="$(dctr eth1 dropped) + $(dctr eth2 dropped)"
	got eth1 eth2
	x_tools=$tools
	R ddfctl xdp detach dev eth1
	R ddfctl xdp detach dev eth2
	R ddfctl rule del span
fi

title "A3. Without XDP: the rule at the ports' netdev ingress, tcpdump on cap0"
say "  The ports' taps run before netfilter: the tools read cap0, where the nft"
say "  chain over eth1 and eth2 hands what the rule left."
R ddfctl rule add span family netdev hook ingress dev eth1,eth2 priority -10 \
	window 1000000 fpr 1e-6 action drop
span_traffic cap0
read -r i_dgrams i_packets <<<"$sent"
span_stats
i_seen=$(rctr packets)
i_dropped=$(rctr dropped)
i_dev_dropped="$(dctr eth1 dropped) + $(dctr eth2 dropped)"
got cap0
i_tools=$tools
R ddfctl rule del span
R nft delete table netdev capture
pp rmmod nf_ddf
ip -n "$snd" link del m1
ip -n "$snd" link del m2

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
# span_rows DATAGRAMS PACKETS SEEN DROPPED ON-DEVS TOOLS NO-RULE-TOOLS: the
# rows of a case of A
span_rows() {
	row "" "no rule" "ddf rule"
	row "frames into the ports" "$a_packets" "$2"
	row "  distinct datagrams" "$a_dgrams" "$1"
	row "frames the rule saw" "-" "$3"
	row "  dropped as duplicates" "-" "$4"
	row "    on eth1 + eth2" "-" "$5"
	row "frames the tools got" "${7% *}" "${6% *}"
	row "  distinct" "${7#* }" "${6#* }"
}
say "  A2. two SPAN ports, one rule, XDP on both, tcpdump on eth1 and eth2"
if [[ -n $xdp_skip ]]; then
	say "    skipped: $xdp_skip"
else
	span_rows "$x_dgrams" "$x_packets" "$x_seen" "$x_dropped" \
		"$x_dev_dropped" "$x_tools" "$a_ports"
fi
say "  A3. two SPAN ports, one netdev ingress rule, tcpdump on cap0"
span_rows "$i_dgrams" "$i_packets" "$i_seen" "$i_dropped" "$i_dev_dropped" \
	"$i_tools" "$a_cap"
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
# span_why CASE PACKETS SEEN DROPPED TOOLS WHERE: what is wrong with a case of A
span_why() {
	[[ $2 == "$packets" ]] ||
		why+=("$1: the sender sent $2 frames, not $packets")
	[[ $3 == "$packets" && $4 == "$extra" ]] ||
		why+=("$1: the rule saw $3 frames and dropped $4, not $packets and $extra")
	[[ $5 == "$n $n" ]] ||
		why+=("$1: tcpdump on $6 got ${5% *} frames (${5#* } distinct), not each of the $n once")
}
[[ $a_packets == "$packets" ]] ||
	why+=("A1: the sender sent $a_packets frames, not $packets")
[[ $a_ports == "$packets $n" ]] ||
	why+=("A1: with no rule tcpdump on eth1 and eth2 got ${a_ports% *} frames (${a_ports#* } distinct), not $packets ($n)")
[[ $a_cap == "$packets $n" ]] ||
	why+=("A1: with no rule tcpdump on cap0 got ${a_cap% *} frames (${a_cap#* } distinct), not $packets ($n)")
[[ -n $xdp_skip ]] ||
	span_why A2 "$x_packets" "$x_seen" "$x_dropped" "$x_tools" "eth1 and eth2"
span_why A3 "$i_packets" "$i_seen" "$i_dropped" "$i_tools" cap0
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
	if [[ -n $xdp_skip ]]; then
		a="A: XDP skipped ($xdp_skip); one netdev ingress rule over both ports left tcpdump on cap0 each of the $n datagrams once (with no rule: ${a_cap% *} frames)"
	else
		a="A: one rule over both ports left each of the $n datagrams once to tcpdump on the ports with XDP and on cap0 at netdev ingress (with no rule: ${a_ports% *} frames)"
	fi
	say "demo: ok: $a; B: the prerouting rule dropped all $extra copies and nothing else, the receiver got each datagram once (with no rule: $plain_dups duplicates)"
else
	for w in "${why[@]}"; do say "  - $w"; done
	say "demo: FAILED: ${why[0]}"
	exit 1
fi
