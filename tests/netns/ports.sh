#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One rule over several capture ports (family netdev, dev m0,m1): the
# first copy of each datagram arrives on one port and the second on the
# other, interleaved, in either order, with other frames between. With the
# rule judged by ddf's XDP program on both ports, and then at both ports'
# netdev ingress with an nft chain over both devices forwarding to cap0,
# the captures together hold each datagram once, and the rule's counters
# are the sums of the per-device ones. A port deleted under traffic leaves
# the other working; a device of its name rejoins the rule. The debug
# lane's KASAN, lockdep and kmemleak watch the deletions.
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/netns/ports.sh
#
# ┌──────────────┐         ┌───────────────────────────────────────┐
# │ $snd         │         │ $rcv                                  │
# │  s0 ─────────┼─────────┼─ m0 ┐ rule ports: dev m0,m1           │
# │  s1 ─────────┼─────────┼─ m1 ┘ (XDP on both, or netdev ingress)│
# └──────────────┘         │       nft chain on m0, m1: fwd to cap0│
#                          └───────────────────────────────────────┘
# Frames go to a MAC address nobody has (a mirror port's traffic).

set -e

exec 3>&1
export LANG=C
snd="ddfports-$$-snd"
rcv="ddfports-$$-rcv"
here=$(cd "$(dirname "$0")" && pwd)
: "${DDF_MODULES:=$(cd "$here/../.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
tmp=$(mktemp -d)
blocks=0
foreign=02:00:5e:00:53:99
seed=00112233445566778899aabbccddeeff
rule=(window 100000 fpr 1e-6 seed "$seed" action drop)
declare -A cap_pid

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/netns/capture.bash
. "$(dirname "$0")/capture.bash"

trap capture_cleanup EXIT

# port N: the veth sN ($snd) - mN ($rcv), both up, mN promiscuous
port() {
	ip -n "$snd" link add "s$1" type veth peer name "m$1" netns "$rcv"
	ip -n "$snd" link set up dev "s$1"
	ip -n "$rcv" link set "m$1" promisc on up
}

# pairs FIRST N A B: N datagrams from index FIRST, copy 0 out of sA and
# copy 1 out of sB, 1 ms apart
pairs() {
	S taskset -c 0 ddfpkt send -i "s$3" -m "$foreign" -I "s$4" \
		-M "$foreign" -s 192.0.2.1 -d 198.51.100.2 -f "$1" -n "$2" \
		-c 2 -w 1000 >/dev/null
}

# singles FIRST N A: N datagrams from index FIRST, once, out of sA
singles() {
	S taskset -c 0 ddfpkt send -i "s$3" -m "$foreign" -s 192.0.2.7 \
		-d 198.51.100.2 -f "$1" -n "$2" >/dev/null
}

# rctr RULE WORD: the rule's counter; dctr RULE DEV WORD: a device's
rctr() {
	in_ns "$rcv" ddfctl stats "$1" |
		sed -n "1s/.* $2 \([0-9]*\).*/\1/p"
}
dctr() {
	in_ns "$rcv" ddfctl stats "$1" |
		sed -n "s/^    dev $2:.* $3 \([0-9]*\).*/\1/p"
}

# sums RULE: every counter of the rule is the sum of its devices'
sums() {
	local w a b
	for w in packets bytes duplicates dropped unparsed; do
		a=$(dctr "$1" m0 "$w")
		b=$(dctr "$1" m1 "$w")
		[[ -n $a && -n $b ]] || fail "$1: no per-device $w in ddfctl stats"
		expect_eq "$(rctr "$1" "$w")" "$((a + b))" "$1: $w, the devices' sum"
	done
}

# traffic: 40 pairs m0 first, 10 singles on each port, 40 pairs m1
# first; 100 distinct datagrams in 180 frames
traffic() {
	pairs 0 40 0 1
	singles 100 10 0
	singles 200 10 1
	pairs 300 40 1 0
}

capture_setup
port 1
ip -n "$snd" link set up dev s0
ip -n "$rcv" link set m0 promisc on up
ip -n "$rcv" link add cap0 type dummy
ip -n "$rcv" link set up dev cap0
pp insmod "$module"

# Test that bad device lists are refused with a sentence and nothing is
# created: a device named twice, more than 16, one that does not exist.
for bad in "m0,m0" "m0,,m1" "m0,nosuch" \
	"$(printf 'd%d,' $(seq 17) | sed 's/,$//')"; do
	if out=$(R ddfctl rule add bad family netdev dev "$bad" "${rule[@]}" 2>&1); then
		fail "dev $bad: accepted"
	fi
	grep -q "^ddfctl: " <<<"$out" || fail "dev $bad: no sentence: $out"
	pretty rcv "dev $bad: $out"
done
[[ -z $(R ddfctl show) ]] || fail "a refused rule was created: $(R ddfctl show)"
passed "bad device lists: refused with a sentence, nothing created"

if [[ -e /sys/kernel/btf/vmlinux && -e /sys/kernel/btf/nf_ddf ]]; then
	# Test that one rule judged by ddf's XDP program on both ports drops
	# the second copy of each datagram whichever port it arrives on, so
	# that tcpdump on m0 and m1 together record each datagram once, and
	# that the rule counts what its devices count.
	R ddfctl rule add ports family netdev hook none dev m0,m1 "${rule[@]}"
	R ddfctl xdp attach dev m0 rule ports mode native
	R ddfctl xdp attach dev m1 rule ports mode native
	R ddfctl show ports | grep -q "^    dev m1: present, xdp native" ||
		fail "show lists no XDP on m1: $(R ddfctl show ports)"
	cap_start "$rcv" m0 xdp-m0
	cap_start "$rcv" m1 xdp-m1
	traffic
	cap_stop xdp-m0 50 xdp-m1 50
	expect_eq "$((got[xdp-m0] + got[xdp-m1]))" 100 "XDP: datagrams on m0 and m1"
	R ddfctl stats ports
	expect_eq "$(rctr ports packets)" 180 "XDP: rule packets"
	expect_eq "$(rctr ports duplicates)" 80 "XDP: rule duplicates"
	expect_eq "$(rctr ports dropped)" 80 "XDP: rule dropped"
	sums ports
	(($(dctr ports m0 duplicates) > 0 && $(dctr ports m1 duplicates) > 0)) ||
		fail "XDP: copies dropped on one port only"
	R ddfctl xdp detach dev m0
	R ddfctl xdp detach dev m1
	R ddfctl rule del ports
	passed "XDP on both ports: each datagram once, counters add up"
else
	echo "ports.sh: XDP part skipped: kernel $(uname -r) or nf_ddf.ko has no BTF"
fi

# Test that a rule at both ports' netdev ingress, before an nft chain over
# both devices that forwards to cap0, leaves cap0 each datagram once while
# tcpdump on the ports sees every frame.
R nft add table netdev capture
R nft add chain netdev capture span \
	"{ type filter hook ingress devices = { m0, m1 } priority 0; }"
R nft add rule netdev capture span fwd to cap0
R ddfctl rule add ports family netdev hook ingress dev m0,m1 priority -10 "${rule[@]}"
cap_start "$rcv" cap0 in-cap
cap_start "$rcv" m0 in-m0
cap_start "$rcv" m1 in-m1
traffic
cap_stop in-cap 100 in-m0 90 in-m1 90
expect_eq "${got[in-cap]}" 100 "ingress: datagrams on cap0"
expect_eq "$((got[in-m0] + got[in-m1]))" 180 "ingress: frames on the ports"
expect_eq "$(rctr ports duplicates)" 80 "ingress: rule duplicates"
sums ports
R ddfctl -j stats ports | grep -q '"devs": \[{"name": "m0"' ||
	fail "-j stats has no device list: $(R ddfctl -j stats ports)"
passed "ingress on both ports: cap0 gets each datagram once, counters add up"

# Test that deleting m0 under traffic leaves m1 judged by the rule (copies
# on m1 alone still dropped), show says m0 is gone, and a new m0 rejoins.
R ddfctl rule reset ports filter
S taskset -c 0 ddfpkt send -i s0 -m "$foreign" -I s1 -M "$foreign" \
	-s 192.0.2.1 -d 198.51.100.2 -f 1000 -n 2000 -c 2 >/dev/null &
bg=$!
sleep 0.3
pp ip -n "$rcv" link del m0
wait "$bg" || true
bg=
R ddfctl show ports | grep -q "^    dev m0: gone" ||
	fail "show does not say m0 is gone: $(R ddfctl show ports)"
R ddfctl rule reset ports filter
before=$(dctr ports m1 duplicates)
S taskset -c 0 ddfpkt send -i s1 -m "$foreign" -s 192.0.2.9 \
	-d 198.51.100.2 -f 5000 -n 30 -c 2 >/dev/null
sleep 0.5
expect_eq "$(($(dctr ports m1 duplicates) - before))" 30 "m1 alone: duplicates"
passed "a port deleted under traffic: the other goes on"

# Test that a device renamed to the name a gone device of the rule waits
# for stays on its own entry (renamed) and the waiting entry stays gone:
# were it on both, each of its frames would be judged twice, a duplicate
# of itself.
R ip link set m1 down
R ip link set m1 name m0
R ip link set m0 promisc on up
R ddfctl show ports >"$tmp/show"
grep -q "^    dev m0: gone" "$tmp/show" || fail "rename: $(cat "$tmp/show")"
grep -q "^    dev m0: renamed (was m1)" "$tmp/show" || fail "rename: $(cat "$tmp/show")"
R ddfctl rule reset ports filter
S taskset -c 0 ddfpkt send -i s1 -m "$foreign" -s 192.0.2.11 \
	-d 198.51.100.2 -f 6000 -n 20 -c 2 >/dev/null
sleep 0.5
expect_eq "$(rctr ports packets) $(rctr ports duplicates)" "40 20" \
	"the renamed device: packets, duplicates"
# ddfctl -o prometheus: two entries of one name, told apart by their port
R ddfctl -o prometheus stats ports >"$tmp/prom"
expect_eq "$(grep '^ddf_dev_packets_total{' "$tmp/prom")" \
	"ddf_dev_packets_total{rule=\"ports\",dev=\"m0\",port=\"1\"} 0
ddf_dev_packets_total{rule=\"ports\",dev=\"m0\",port=\"2\"} 40" "-o prometheus, two devices named m0"
R ip link set m0 down
R ip link set m0 name m1
R ip link set m1 promisc on up
passed "a device renamed to a gone device's name: judged once, on its own entry"

# Test that a new device of the gone one's name rejoins the rule.
port 0
R ddfctl show ports | grep -q "^    dev m0: present" ||
	fail "a new m0 did not rejoin: $(R ddfctl show ports)"
R ddfctl show ports | grep -q "^    dev m1: present" ||
	fail "m1 back under its name: $(R ddfctl show ports)"
R ddfctl rule del ports
passed "a new device of a gone one's name rejoins the rule"

# Test that save prints the device list and restore brings the rule back
# with it.
R ddfctl rule add ports family netdev hook ingress dev m1,m0 "${rule[@]}"
R ddfctl save >"$tmp/saved"
grep -q " dev m1,m0 " "$tmp/saved" || fail "save: $(cat "$tmp/saved")"
R ddfctl rule flush
R ddfctl restore <"$tmp/saved"
R ddfctl show ports | grep -q "hook ingress dev m1,m0 " ||
	fail "restore: $(R ddfctl show ports)"
R ddfctl rule flush
passed "save and restore keep the device list"

echo "ports.sh: $blocks blocks passed"
