#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel decides as ddfctl replay does. A capture with duplicates
# (replay.pcap: ddf_pcapgen mixed, 96 IPv4 and IPv6 packets, UDP, TCP, ICMP
# and ICMPv6 echo, some copies one hop older) goes through a veth into a
# namespace with a ddf rule, and through ddfctl replay with the same words
# and seed; every packet's verdict must be the same.
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/netns/replay.sh
#
# ┌──────────────────────────────────────────────┐
# │ $rcv                                         │
# │  s0 (no address, IPv6 off) ─── r0 10.0.1.2   │
# │                                   fd00:1::2  │
# │  rule NAME iif r0 WORDS (prerouting)         │
# └──────────────────────────────────────────────┘
#
# How the kernel's per-packet decisions are observed: the packets are sent
# one at a time (ddfpkt replay -S sends the next record's IP packet out of s0
# for each line it reads), and the rule's counters are read after each
# (ddfctl stats): "packets" grows by one when the rule hashed the packet,
# "duplicates" when its filter called it a duplicate. So each packet gets the
# kernel's verdict duplicate, new, or none (not the rule's: another family
# or protocol), compared with replay's duplicate, new, or skipped. s0 has no
# address and IPv6 off, so nothing but the replayed packets enters r0 (no
# neighbour answers, router solicitations or MLD reports); what the
# receiver sends back leaves by r0 and enters s0, which the rule (iif r0)
# ignores. The softirq handles a veth's packet before the send returns; a
# packet replay says was hashed is still waited for, up to 2 s. The loop
# runs inside the namespace: one ddfctl per packet, no other process.

set -e

exec 3>&1
export LANG=C
rcv="ddf-$$-rcv"
here=$(cd "$(dirname "$0")" && pwd)
: "${DDF_MODULES:=$(cd "$here/../.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
cap=${DDF_REPLAY_PCAP:-$here/replay.pcap}
[[ -e $cap ]] || cap=$here/../../build/replay.pcap
seed=000102030405060708090a0b0c0d0e0f
tmp=$(mktemp -d)
blocks=0
total=0

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"

cleanup() {
	set +e
	exec 2>/dev/null
	ip netns del "$rcv"
	rm -rf "$tmp"
	loaded && rmmod nf_ddf
	exit
}
trap cleanup EXIT

[[ -e $cap ]] || fail "no capture to replay: $cap (make builds build/replay.pcap)"
if loaded; then pp rmmod nf_ddf; fi
pp ip netns add "$rcv"
ip -n "$rcv" link set up dev lo
ip -n "$rcv" link add s0 type veth peer name r0
ip netns exec "$rcv" sysctl -qw net.ipv6.conf.s0.disable_ipv6=1
ip -n "$rcv" addr add 10.0.1.2/24 dev r0
ip -n "$rcv" addr add fd00:1::2/64 dev r0 nodad
ip -n "$rcv" link set up dev s0
ip -n "$rcv" link set up dev r0
records=$(ddfctl replay "$cap" filter exact window 1 -l - 2>/dev/null | wc -l)
((records > 0)) || fail "ddfctl replay reads no record of $cap"

pp insmod "$module"

# kernel_verdicts NAME (in the namespace): "K duplicate|new|none" per record
# of $cap sent out of s0 one at a time, from the rule's counters; replay's
# own verdicts (on stdin) only say how long a packet may be waited for.
kernel_verdicts() {
	local name=$1 k v p d p0=0 d0=0 tries out sent to from pid
	coproc STEP { ddfpkt replay -S -i s0 -m "$r0mac" "$cap" 2>/dev/null; }
	# bash forgets STEP once the process ends
	to=${STEP[1]} from=${STEP[0]} pid=$STEP_PID
	while read -r k v; do
		echo >&"$to"
		read -r sent _ <&"$from" || { echo "ddfpkt stopped" >&2; return 1; }
		[[ $sent == "$k" ]] || { echo "ddfpkt sent $sent, not $k" >&2; return 1; }
		tries=0
		while :; do
			out=$(ddfctl stats "$name")
			[[ $out =~ \ packets\ ([0-9]+)\ .*\ duplicates\ ([0-9]+)\  ]] ||
				{ echo "no counters: $out" >&2; return 1; }
			p=${BASH_REMATCH[1]}
			d=${BASH_REMATCH[2]}
			# a packet replay hashed may still be on its way
			[[ $p == "$p0" && $v != none ]] || break
			((++tries < 40)) || break
			sleep 0.05
		done
		if ((d > d0)); then
			echo "$k duplicate"
		elif ((p > p0)); then
			echo "$k new"
		else
			echo "$k none"
		fi
		p0=$p
		d0=$d
	done
	eval "exec $to>&-"
	wait "$pid"
}
export -f kernel_verdicts
r0mac=$(ip netns exec "$rcv" cat /sys/class/net/r0/address)
export r0mac cap

# same_verdicts NAME WORDS...: the rule NAME (iif r0, WORDS) in the kernel,
# one packet at a time, against ddfctl replay with the same WORDS
same_verdicts() {
	local name=$1 t0=$SECONDS
	shift
	ddfctl replay "$cap" "$@" -l "$tmp/log" >"$tmp/sum"
	pretty replay "$(sed -n 2p "$tmp/sum")"
	awk '{ v = $2; if (v != "new" && v != "duplicate") v = "none"
	       print $1, v }' "$tmp/log" >"$tmp/offline"
	R ddfctl rule add "$name" iif r0 "$@"
	ip netns exec "$rcv" bash -c "kernel_verdicts $name" \
		<"$tmp/offline" >"$tmp/kernel" ||
		fail "rule $name: the packets could not be sent one by one"
	R ddfctl stats "$name"
	if ! cmp -s "$tmp/kernel" "$tmp/offline"; then
		echo "packet, kernel, ddfctl replay:" >&2
		awk 'NR == FNR { k[$1] = $2; next }
		     k[$1] != $2 { print $1, k[$1], $2 }' \
			"$tmp/kernel" "$tmp/offline" >&2
		fail "rule $name: the kernel and ddfctl replay disagree"
	fi
	R ddfctl rule del "$name"
	total=$((total + records))
	echo "$name: $(grep -c ' duplicate$' "$tmp/kernel") duplicates," \
		"$(grep -c ' new$' "$tmp/kernel") new," \
		"$(grep -c ' none$' "$tmp/kernel") not the rule's, of $records" \
		"packets ($((SECONDS - t0)) s)"
}

# Test that an exact window of 8 packets (key packet, default ignores:
# copies one hop older are copies) decides as replay does
same_verdicts ex filter exact window 8 seed $seed >&3
passed "exact window 8: the kernel's verdicts are replay's"

# Test that a field key on one family, in a probabilistic filter with a
# seed, decides as replay does, its false positives and longer memory
# included (apbf at a 10 % rate calls 30 of the 49 IPv6 packets duplicates,
# an exact window of 4 23), and that IPv4 packets never reach the rule
same_verdicts f6 family ip6 key saddr,daddr,proto,sport,dport,payload \
	payload 0:16 filter apbf window 4 fpr 0.1 seed $seed >&3
passed "ip6 field key, apbf window 4 fpr 0.1: the kernel's verdicts are replay's"

# Test that a protocol selector with ignore none (copies one hop older are
# new), qqhtd, SipHash-2-4 and action mark decide as replay does: packets
# other than UDP are not the rule's
same_verdicts u filter qqhtd window 6 fpr 1e-3 proto udp ignore none \
	hash siphash24 seed $seed action mark 0x1 >&3
passed "udp, ignore none, qqhtd, siphash24: the kernel's verdicts are replay's"

echo "replay: the kernel and ddfctl replay agree on every packet" \
	"($total packet verdicts, 3 rules)" >&3
