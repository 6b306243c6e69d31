#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# GRO at a capture port. GRO runs after XDP and before the packet taps and
# the netdev ingress hook: the TCP segments of a stream that a NIC's poll
# hands it together leave it as one packet, a train. The two copies of a
# stream come in other batches, so they are cut into other trains, and a
# rule at netdev ingress finds few copies or none; with GRO off it sees
# every segment, and every copy. ddfctl says so, on stderr, when a rule is
# added at or shown for a device with GRO on. A rule judged by ddf's XDP
# program, before GRO, finds every copy with GRO on (where there is BTF).
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/netns/gro.sh
#   (ddfctl, ddfpkt, ethtool and taskset in $PATH)
#
# ┌────────────────────┐        ┌──────────────────────────────────────┐
# │ $snd               │  veth  │ $rcv, the capture box                │
# │  s0 (no TSO, no    ├────────┤─ m0 promiscuous, GRO off, then on    │
# │  checksum offload) │        │    XDP: ddf rule x (count), then GRO │
# │  ddfpkt send -G N  │        │    ingress: ddf rule port (count)    │
# └────────────────────┘        └──────────────────────────────────────┘
#
# A veth hands its peer's frames to GRO only with GRO on (ethtool -K m0
# gro on) and no TSO at the peer. The bursts come from ddfpkt send -G N:
# one write of N segments that the kernel cuts at s0 and sends back to
# back, so m0's poll gets them together. The last segment of each write
# holds the sending socket, which GRO tells from the others' (none): a
# burst of N gives a train of N - 1 and one segment. The sender, and what
# reads the counters, stay on CPU 0, where m0's poll runs, and each burst
# waits for m0 to have received the one before: bursts never share a poll.
# Every block begins with "# Test that ..." and asserts; a failed
# assertion stops the script and fails it.

set -e

exec 3>&1
export LANG=C
snd="ddfgro-$$-snd"
rcv="ddfgro-$$-rcv"
: "${DDF_MODULES:=$(cd "$(dirname "$0")/../.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
tmp=$(mktemp -d)
blocks=0
foreign=02:00:5e:00:53:99
# one stream, twice, and the datagrams between (stream below)
segments=24
others=6
frames=$((2 * segments + others))
warning="ddfctl: warning: m0 has GRO on: the kernel merges TCP segments before the netdev ingress hook, so TCP copies do not match; turn it off (ethtool -K m0 gro off) or attach ddf by XDP, which runs before GRO"

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"

cleanup() {
	set +e
	exec 2>/dev/null
	ip netns del "$snd"
	ip netns del "$rcv"
	rm -rf "$tmp"
	loaded && rmmod nf_ddf
	exit
}
trap cleanup EXIT

# R0 ARGS...: a command in $rcv on CPU 0, quietly
R0() { ip netns exec "$rcv" taskset -c 0 "$@"; }

# rx [N]: the frames m0 received (its poll counts them before GRO's
# flush), once they are N or more (or 10 s have passed): one process,
# as processes start slowly under the debug kernel
rx() {
	# shellcheck disable=SC2016
	R0 bash -c 'f=/sys/class/net/m0/statistics/rx_packets
		for _ in {1..200}; do
			read -r n <$f
			((n >= ${1:-0})) && break
			sleep 0.05
		done
		echo "$n"' rx "${1:-0}"
}

# stats [RULE [N]]: ddfctl stats of RULE (port) on CPU 0, shown, once it
# has seen N packets (frames may wait on m0's backlog when GRO is off) or
# 10 s have passed; then count WORD gives a counter of it
stats() {
	for _ in $(seq 200); do
		st=$(R0 ddfctl stats "${1:-port}")
		[[ $(count packets) -ge ${2:-0} ]] && break
		sleep 0.05
	done
	pretty rcv "$st"
}
count() { sed -n "1s/.* $1 \([0-9]*\).*/\1/p" <<<"$st"; }

# burst N ARGS...: N frames by ddfpkt send from s0 on CPU 0; back once m0
# has received every frame sent so far, and so has GRO flushed them
burst() {
	local n=$1 want
	shift
	S taskset -c 0 ddfpkt send -i s0 -m "$foreign" -s 192.0.2.1 \
		-d 198.51.100.2 -l 100 -n "$n" "$@" >/dev/null
	sent=$((sent + n))
	want=$((rx0 + sent))
	expect_eq "$(rx "$want")" "$want" "frames m0 received"
}

# stream: segments 0 .. 23 of one TCP stream twice, with datagrams between:
# the first copy in one burst; 3 UDP datagrams; the second copy as a burst
# of 8, 3 datagrams, 8 segments one a write, and a burst of the last 8
stream() {
	rx0=$(rx)
	sent=0
	burst 24 -p tcp -G 24
	burst 3 -p udp -f 100
	burst 8 -p tcp -G 8
	burst 3 -p udp -f 103
	burst 8 -p tcp -f 8 -G 1
	burst 8 -p tcp -f 16 -G 8
	expect_eq "$sent" "$frames" "frames sent"
}

# add_port ERR: rule add of the rule port at m0's ingress, its stderr in ERR
add_port() {
	R ddfctl rule add port family netdev hook ingress dev m0 \
		window 100000 action count 2>"$1"
}

for t in ddfctl ddfpkt ethtool taskset; do
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
# s0 cuts the bursts itself, checksums included: what crosses the veth
# are plain frames, as a mirror port delivers them
S ethtool -K s0 tx off tso off >/dev/null
S ethtool -k s0 | grep -q '^tcp-segmentation-offload: off' ||
	fail "s0 still has TSO"
R ethtool -K m0 gro off
ip -n "$snd" link set up dev s0
ip -n "$rcv" link set m0 promisc on up
pp insmod "$module"

# Test that with GRO off, rule add, show and show -j print nothing on
# stderr, and that JSON says "gro": false in the object of m0.
add_port "$tmp/err"
expect_eq "$(cat "$tmp/err")" "" "rule add's stderr, GRO off"
R ddfctl show 2>"$tmp/err" >/dev/null
expect_eq "$(cat "$tmp/err")" "" "show's stderr, GRO off"
json=$(in_ns "$rcv" ddfctl -j show port 2>"$tmp/err")
expect_eq "$(cat "$tmp/err")" "" "show -j's stderr, GRO off"
[[ $json == *'"name": "m0", '*'"gro": false}]'* ]] || fail "show -j, GRO off: $json"
passed "GRO off: no warning, and JSON has \"gro\": false"

# Test that with GRO off every segment reaches the rule, so the second
# copy of each of the 24 is a copy whatever batches either came in: the
# rule sees the 54 frames, 24 of them copies.
stream
stats port "$frames"
expect_eq "$(count packets)" "$frames" "packets the rule saw, GRO off"
expect_eq "$(count duplicates)" "$segments" "copies, GRO off"
passed "GRO off: $frames frames, each of the $segments copies found"

# Test that with GRO on at m0 rule add and show (text, JSON, one rule or
# all) print the warning on stderr, once, while their stdout and save's
# stay as they were; and that a rule at m0's egress gets none.
R ddfctl rule del port
R ethtool -K m0 gro on
R ethtool -k m0 | grep -q '^generic-receive-offload: on' || fail "no GRO at m0"
add_port "$tmp/err"
pretty rcv "stderr: $(cat "$tmp/err")"
expect_eq "$(cat "$tmp/err")" "$warning" "rule add's stderr, GRO on"
for args in show "show port" "-j show" "-j show port"; do
	# shellcheck disable=SC2086
	out=$(in_ns "$rcv" ddfctl $args 2>"$tmp/err")
	expect_eq "$(cat "$tmp/err")" "$warning" "ddfctl $args's stderr, GRO on"
	[[ $out != *warning* ]] || fail "ddfctl $args's stdout has the warning"
done
[[ $out == *'"name": "m0", '*'"gro": true}]'* ]] || fail "show -j, GRO on: $out"
out=$(in_ns "$rcv" ddfctl save 2>"$tmp/err")
expect_eq "$(cat "$tmp/err")" "" "save's stderr"
[[ $out == "rule add port family netdev hook ingress dev m0 "* &&
	$out != *$'\n'* ]] || fail "save's stdout: $out"
R ddfctl rule add out family netdev hook egress dev m0 window 1000 \
	2>"$tmp/err"
expect_eq "$(cat "$tmp/err")" "" "egress rule add's stderr"
R ddfctl rule del out
passed "GRO on: rule add and show warn on stderr, save and egress do not"

# Test that with GRO on the rule sees trains, not segments: fewer packets
# than m0 received frames, and fewer copies than the 24 sent (the trains
# of the two copies differ).
stream
stats port
p=$(count packets)
d=$(count duplicates)
pretty rcv "GRO on: m0 received $frames frames, the rule saw $p packets, $d copies"
((p < frames)) || fail "GRO merged nothing: the rule saw $p packets of $frames frames"
((d < segments)) || fail "GRO on, and still $d copies of $segments found"
passed "GRO on: $frames frames reach the rule as $p packets, $d of $segments copies found"

# Test that XDP, which runs before GRO, is the other fix: with GRO still
# on, a rule judged by ddf's XDP program on m0 sees each of the 54 frames
# and finds the 24 copies, in the very stream where the ingress rule
# finds few or none; show says nothing of the XDP rule.
if [[ -e /sys/kernel/btf/vmlinux && -e /sys/kernel/btf/nf_ddf ]]; then
	R ddfctl rule reset port filter
	R ddfctl rule add x family netdev hook none dev m0 window 100000 \
		action count 2>"$tmp/err"
	expect_eq "$(cat "$tmp/err")" "" "the XDP rule's rule add stderr"
	R ddfctl xdp attach dev m0 rule x >/dev/null
	stream
	stats x
	expect_eq "$(count packets)" "$frames" "frames the XDP rule saw"
	expect_eq "$(count duplicates)" "$segments" "copies the XDP rule found"
	stats port
	p=$(count packets)
	d=$(count duplicates)
	pretty rcv "GRO on, XDP: $frames frames and $segments copies; at ingress $p packets, $d copies"
	((d < segments)) || fail "the ingress rule found $d copies of $segments"
	R ddfctl show x 2>"$tmp/err" >/dev/null
	expect_eq "$(cat "$tmp/err")" "" "the XDP rule's show stderr"
	R ddfctl xdp detach dev m0
	R ddfctl rule del x
	passed "GRO on, XDP: each of the $segments copies found before GRO, $d at ingress"
else
	echo "gro.sh: the XDP block is skipped: no BTF for vmlinux or nf_ddf here," \
		"so no XDP program can call nf_ddf (xdp.sh says more)" >&3
fi

# Test that turning GRO off again is the fix: show says nothing more, and
# every copy is found again.
R ethtool -K m0 gro off
R ddfctl rule reset port filter
R ddfctl show port 2>"$tmp/err" >/dev/null
expect_eq "$(cat "$tmp/err")" "" "show's stderr, GRO off again"
stream
stats port "$frames"
expect_eq "$(count packets)" "$frames" "packets the rule saw, GRO off again"
expect_eq "$(count duplicates)" "$segments" "copies, GRO off again"
passed "GRO off again: no warning, each of the $segments copies found"

echo "gro.sh: $blocks passed, 0 failed"
