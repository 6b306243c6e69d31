#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Rules of family netdev and their device's life cycle: a rule on a
# promiscuous port sees frames addressed to other hosts, follows its
# device through a rename, lets go of it when it is deleted (under
# traffic) or leaves the namespace, and takes a new device of the same
# name; bad devices are refused with nothing created. The debug lane's
# KASAN, lockdep and kmemleak watch the deletions.
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/netns/netdev.sh
#
# ┌──────────────┐         ┌──────────────────────────────┐
# │ $snd         │         │ $rcv                         │
# │  s0 ─────────┼─────────┼─ r0 (promiscuous, no address) │
# └──────────────┘         │  rule port: netdev ingress r0 │
#                          └──────────────────────────────┘
# Frames go to a MAC address nobody has (a mirror port's traffic).

set -e

exec 3>&1
export LANG=C
snd="ddf-$$-snd"
rcv="ddf-$$-rcv"
other="ddf-$$-other"
: "${DDF_MODULES:=$(cd "$(dirname "$0")/../.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
tmp=$(mktemp -d)
blocks=0
foreign=02:00:5e:00:53:99

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"
O() { pretty other "$*"; ip netns exec "$other" "$@"; }

cleanup() {
	set +e
	exec 2>/dev/null
	[[ -n $bg ]] && kill "$bg"
	ip netns del "$snd"
	ip netns del "$rcv"
	ip netns del "$other"
	rm -rf "$tmp"
	loaded && rmmod nf_ddf
	exit
}
trap cleanup EXIT

# port S R: a veth pair, S in $snd, R in $rcv, both up, R promiscuous
port() {
	ip -n "$snd" link add "$1" type veth peer name "$2" netns "$rcv"
	ip netns exec "$snd" sysctl -qw "net.ipv6.conf.$1.disable_ipv6=1"
	ip netns exec "$rcv" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1"
	ip -n "$snd" link set up dev "$1"
	ip -n "$rcv" link set "$2" promisc on up
}

# frames IFACE N: N UDP datagrams, each twice, to the foreign MAC
frames() {
	S ddfpkt send -i "$1" -m "$foreign" -s 192.0.2.1 -d 198.51.100.2 \
		-n "$2" -c 2 >/dev/null
}

# jshow RULE KEY: a number of ddfctl -j show RULE
jshow() {
	in_ns "$rcv" ddfctl -j show "$1" |
		sed -n "s/.*\"$2\": *\([0-9]*\).*/\1/p"
}

# dev_of RULE: the device name ddfctl -j show gives
dev_of() {
	in_ns "$rcv" ddfctl -j show "$1" |
		sed -n 's/.*"dev": *"\([^"]*\)".*/\1/p'
}

if loaded; then pp rmmod nf_ddf; fi
for ns in "$snd" "$rcv" "$other"; do
	pp ip netns add "$ns"
	ip -n "$ns" link set up dev lo
done
port s0 r0
pp insmod "$module"

# Test that a device the namespace lacks is refused in words, and that
# nothing is created.
for dev in nope s0; do
	if R ddfctl rule add bad family netdev dev "$dev" window 1000 \
		2>"$tmp/err"; then
		fail "a rule on device $dev of no namespace of its own was created"
	fi
	pretty rcv "$(cat "$tmp/err")"
	grep -q device "$tmp/err" || fail "the error does not say it is the device"
	expect_eq "$(in_ns "$rcv" ddfctl save | grep -c .)" 0 \
		"rules after a refused add"
done
passed "an unknown device, and one of another namespace, are refused"

# Test that a netdev ingress rule sees frames to a MAC nobody has, and
# drops their copies. Its window holds every frame this script sends it
# (under 500,000), so the copies of the end are copies whatever number of
# frames got through before the deletion below.
R ddfctl rule add port family netdev hook ingress dev r0 window 1000000 \
	fpr 1e-6 action drop
frames s0 50
R ddfctl stats port
expect_eq "$(ctr port packets)" 100 "frames the rule saw"
expect_eq "$(ctr port duplicates)" 50 "copies"
expect_eq "$(ctr port dropped)" 50 "copies dropped"
expect_eq "$(dev_of port)" r0 "the device show names"
ifindex=$(ip netns exec "$rcv" cat /sys/class/net/r0/ifindex)
expect_eq "$(jshow port ifindex)" "$ifindex" "the index show gives"
passed "a promiscuous port's foreign frames, copies dropped"

# Test that a renamed device keeps its rule, which takes its new name.
R ip link set r0 down
R ip link set r0 name mirror0
R ip link set mirror0 up
frames s0 10
expect_eq "$(ctr port packets)" 120 "frames after the rename"
expect_eq "$(dev_of port)" mirror0 "the name after the rename"
passed "the rule follows its device through a rename"

# Test that deleting the device under traffic detaches the rule cleanly:
# show says it is gone, and the counters stop.
S ddfpkt send -i s0 -m "$foreign" -s 192.0.2.1 -d 198.51.100.2 \
	-n 200000 -f 1000 -c 2 >/dev/null 2>&1 &
bg=$!
sleep 1
R ip link del mirror0
wait "$bg" || true
bg=
expect_eq "$(jshow port ifindex)" 0 "the index of a deleted device"
expect_eq "$(dev_of port)" mirror0 "the name a deleted device had"
n=$(ctr port packets)
expect_ge "$n" 121 "frames before the deletion"
R ddfctl show port
passed "a device deleted under traffic ($((n - 120)) frames seen first)"

# Test that a new device of that name takes the rule back, with its
# filter: copies of frames seen before the deletion are still copies.
port s0 mirror0
d=$(ctr port duplicates)
frames s0 10
expect_eq "$(ctr port packets)" $((n + 20)) "frames on the new device"
expect_eq "$(ctr port duplicates)" $((d + 20)) "copies of frames seen before"
expect_eq "$(jshow port ifindex)" \
	"$(ip netns exec "$rcv" cat /sys/class/net/mirror0/ifindex)" \
	"the new device's index"
passed "a new device of the same name takes the rule"

# Test that a device leaving the namespace detaches the rule, and coming
# back attaches it again.
R ip link set mirror0 netns "$other"
expect_eq "$(jshow port ifindex)" 0 "the index while the device is away"
O ip link set mirror0 netns "$rcv"
ip -n "$rcv" link set mirror0 promisc on up
frames s0 10
expect_eq "$(ctr port packets)" $((n + 40)) "frames after the return"
passed "a device that leaves the namespace and comes back"

# Test that an egress rule on the sending device counts what it sends,
# and that a rule can be deleted while its device carries traffic.
S ddfctl rule add out family netdev hook egress dev s0 window 100000 \
	action count
frames s0 25
S ddfctl stats out
out=$(in_ns "$snd" ddfctl stats out)
[[ $out =~ \ packets\ ([0-9]+)\ .*\ duplicates\ ([0-9]+)\  ]] ||
	fail "no counters: $out"
expect_eq "${BASH_REMATCH[1]}" 50 "frames out of s0"
expect_eq "${BASH_REMATCH[2]}" 25 "copies out of s0"
S ddfpkt send -i s0 -m "$foreign" -s 192.0.2.1 -d 198.51.100.2 \
	-n 100000 -c 2 >/dev/null 2>&1 &
bg=$!
sleep 1
S ddfctl rule del out
R ddfctl rule del port
kill "$bg" 2>/dev/null || true
wait "$bg" 2>/dev/null || true
bg=
passed "an egress rule, and rules deleted under traffic"

# Test that a device renamed to the name a detached rule waits for takes
# the rule.
R ddfctl rule add port family netdev dev mirror0 window 1000 action count
R ip link add spare type veth peer name spare1
R ip link del mirror0
expect_eq "$(jshow port ifindex)" 0 "the index once mirror0 is gone"
R ip link set spare name mirror0
expect_eq "$(jshow port ifindex)" \
	"$(ip netns exec "$rcv" cat /sys/class/net/mirror0/ifindex)" \
	"the index of the device renamed mirror0"
R ddfctl rule del port
passed "a device renamed to a detached rule's name takes it"

# Test that the module unloads with a netdev rule attached.
R ddfctl rule add port family netdev dev mirror0 window 1000
pp rmmod nf_ddf
pp insmod "$module"
passed "rmmod with a netdev rule attached"

echo "netdev: $blocks blocks passed"
