#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel decides as ddfctl replay does. A capture with duplicates
# (replay.pcap: ddf_pcapgen mixed, 96 IPv4 and IPv6 packets, UDP, TCP, ICMP
# and ICMPv6 echo, some copies one hop older) goes through a veth into a
# namespace with a ddf rule, and through ddfctl replay with the same words
# and seed; every packet's verdict must be the same. Then the same records
# split over two ports (replay-port1.pcap, replay-port2.pcap) go through two
# veths into a rule that sees both, against ddfctl replay over the two
# captures merged by time: see "Two ports" below.
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
snd="ddf-$$-snd"
rcv2="ddf-$$-rcv2"
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
	ip netns del "$snd"
	ip netns del "$rcv2"
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

# --- Two ports ----------------------------------------------------------------
#
# The copies of a packet arrive on two ports, and ddfctl replay takes one
# capture per port, merged by time. replay-port1.pcap and replay-port2.pcap
# (ddf_pcapgen ports; port 2 in microseconds) hold the records of
# replay.pcap, the copies of a datagram on both ports, the first on either.
# Each record is sent, one at a time in the order replay merges them (the
# log's port and record columns), out of p1 or p2 into q1 or q2, and every
# verdict of a rule that sees both ports must be replay's over the two files.
#
# ┌──────────────────┐      ┌──────────────────────────────────────────┐
# │ $snd             │      │ $rcv2                                    │
# │  p1 (no address) ┼──────┼─ q1 10.0.1.2 fd00:1::2                   │
# │  p2 (no address) ┼──────┼─ q2 10.0.2.2 fd00:2::2                   │
# │  (IPv6 off)      │      │ rule NAME WORDS: prerouting, no iif;     │
# └──────────────────┘      │ or netdev ingress, dev q1,q2             │
#                           └──────────────────────────────────────────┘
#
# A rule of an IP family without iif sees the prerouting hook of every
# device, lo's too; a rule of family netdev names both devices, and counts
# per device what replay counts per file. The receiver's answers
# leave by q1 into $snd, where nothing has an address or IPv6, to a
# neighbour entry of p1's MAC: no address resolution fails, so no ICMP
# error comes back to the receiver by lo, and nothing but the records sent
# enters $rcv2.

ports=("$here/replay-port1.pcap" "$here/replay-port2.pcap")
[[ -e ${ports[0]} ]] ||
	ports=("$here/../../build/replay-port1.pcap" "$here/../../build/replay-port2.pcap")

# kernel_verdicts_ports NAME (in $rcv2): "K duplicate|new|none" per line
# "K V PORT R" of replay's merged log on stdin, record R of port PORT's
# file sent out of pPORT ($port_send "ip": its IP packet to qPORT's MAC;
# "frames": the whole frame, as a mirror port delivers it), from the rule's
# counters as in kernel_verdicts
kernel_verdicts_ports() {
	local name=$1 k v port r p d p0=0 d0=0 tries out sent i fd
	local -a to from args
	for i in 1 2; do
		rm -f "$tmp/step$i" "$tmp/sent$i"
		mkfifo "$tmp/step$i" "$tmp/sent$i"
		args=(-i "p$i" -m "$(cat "/sys/class/net/q$i/address")")
		[[ $port_send == frames ]] && args=(-E -i "p$i")
		args+=("$port1")
		[[ $i == 2 ]] && args[-1]=$port2
		ip netns exec "$snd" ddfpkt replay -S "${args[@]}" \
			<"$tmp/step$i" >"$tmp/sent$i" 2>/dev/null &
		exec {fd}>"$tmp/step$i"
		to[i]=$fd
		exec {fd}<"$tmp/sent$i"
		from[i]=$fd
	done
	while read -r k v port r; do
		echo >&"${to[port]}"
		read -r sent _ <&"${from[port]}" ||
			{ echo "ddfpkt (port $port) stopped" >&2; return 1; }
		[[ $sent == "$r" ]] ||
			{ echo "port $port: ddfpkt sent $sent, not $r" >&2; return 1; }
		tries=0
		while :; do
			# the rule's line, not its devices' lines below it
			out=$(ddfctl stats "$name")
			out=${out%%$'\n'*}
			[[ $out =~ \ packets\ ([0-9]+)\ .*\ duplicates\ ([0-9]+)\  ]] ||
				{ echo "no counters: $out" >&2; return 1; }
			p=${BASH_REMATCH[1]}
			d=${BASH_REMATCH[2]}
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
	for i in 1 2; do
		eval "exec ${to[i]}>&- ${from[i]}<&-"
	done
	wait
}

# same_verdicts_ports NAME ip|frames WORDS...: the rule NAME (WORDS) in
# $rcv2 against ddfctl replay over the two ports' files with the same
# WORDS, every packet's verdict, and the rule's totals against replay's
same_verdicts_ports() {
	local name=$1 t0=$SECONDS
	export port_send=$2
	shift 2
	ddfctl replay "${ports[@]}" "$@" -l "$tmp/plog" >"$tmp/psum"
	pretty replay "$(grep '^packets ' "$tmp/psum")"
	awk '{ v = $2; if (v != "new" && v != "duplicate") v = "none"
	       print $1, v, $4, $5 }' "$tmp/plog" >"$tmp/poffline"
	pretty rcv2 "ddfctl rule add $name $*"
	in_ns "$rcv2" ddfctl rule add "$name" "$@"
	ip netns exec "$rcv2" bash -c "kernel_verdicts_ports $name" \
		<"$tmp/poffline" >"$tmp/pkernel" ||
		fail "rule $name: the packets could not be sent one by one"
	in_ns "$rcv2" ddfctl stats "$name" | tee "$tmp/pstats" >&3
	cut -d' ' -f1,2 "$tmp/poffline" >"$tmp/pverdicts"
	if ! cmp -s "$tmp/pkernel" "$tmp/pverdicts"; then
		echo "packet, kernel, ddfctl replay:" >&2
		awk 'NR == FNR { k[$1] = $2; next }
		     k[$1] != $2 { print $1, k[$1], $2 }' \
			"$tmp/pkernel" "$tmp/poffline" >&2
		fail "rule $name: the kernel and ddfctl replay over two ports disagree"
	fi
	# the totals: replay's summary line is the rule's stats line
	[[ $(head -1 "$tmp/pstats") == "$name: $(grep '^packets ' "$tmp/psum")" ]] ||
		fail "rule $name: the counters are not replay's: $(head -1 "$tmp/pstats")"
	# a rule over both devices: each one's line is its port file's
	if [[ $port_send == frames ]]; then
		for i in 1 2; do
			want=$(grep -F "  ${ports[i - 1]}: " "$tmp/psum" |
				sed 's/.*: packets /packets /')
			got=$(sed -n "s/^    dev q$i: //p" "$tmp/pstats")
			[[ -n $want && $got == "$want" ]] ||
				fail "rule $name: q$i counted '$got', replay's file $i '$want'"
		done
	fi
	in_ns "$rcv2" ddfctl rule del "$name"
	total=$((total + $(wc -l <"$tmp/plog")))
	rules=$((rules + 1))
	echo "$name: two ports, $(grep -c ' duplicate$' "$tmp/pkernel") duplicates," \
		"$(grep -c ' new$' "$tmp/pkernel") new," \
		"$(grep -c ' none$' "$tmp/pkernel") not the rule's" \
		"($((SECONDS - t0)) s)"
}
export -f kernel_verdicts_ports
export snd tmp
export port1=${ports[0]} port2=${ports[1]}

rules=3
if [[ -e ${ports[0]} && -e ${ports[1]} ]]; then
	pp ip netns add "$snd"
	ip netns add "$rcv2"
	ip -n "$rcv2" link set up dev lo
	for i in 1 2; do
		ip -n "$snd" link add "p$i" type veth peer name "q$i" netns "$rcv2"
		ip netns exec "$snd" sysctl -qw "net.ipv6.conf.p$i.disable_ipv6=1"
		ip -n "$rcv2" addr add "10.0.$i.2/24" dev "q$i"
		ip -n "$rcv2" addr add "fd00:$i::2/64" dev "q$i" nodad
		ip -n "$snd" link set up dev "p$i"
		ip -n "$rcv2" link set up dev "q$i" promisc on
	done
	p1mac=$(mac "$snd" p1)
	ip -n "$rcv2" neigh add 10.0.1.1 lladdr "$p1mac" dev q1 nud permanent
	ip -n "$rcv2" neigh add fd00:1::1 lladdr "$p1mac" dev q1 nud permanent

	# Test that a rule over both ports (prerouting, no iif) decides as
	# replay over one capture per port, merged by time: the copies of a
	# datagram on either port, the ports' files in nano- and microseconds
	same_verdicts_ports two ip filter exact window 8 seed $seed >&3
	passed "two ports, exact window 8: the kernel's verdicts are replay's over the two captures"

	# Test that a rule of family netdev over both devices (the whole
	# frames, as mirror ports deliver them) decides as replay over the
	# two captures, and that each device's counters are its file's
	same_verdicts_ports span frames family netdev hook ingress \
		dev q1,q2 filter exact window 8 seed $seed action mark 0x1 >&3
	passed "two ports, family netdev dev q1,q2: the kernel's verdicts are replay's over the two captures, and each device's counters its file's"
else
	echo "two ports: skipped: no ${ports[0]} (make builds build/replay-port1.pcap)" >&3
fi

echo "replay: the kernel and ddfctl replay agree on every packet" \
	"($total packet verdicts, $rules rules)" >&3
