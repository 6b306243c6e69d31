#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ddf-vm: virtio-net
#
# A capture box on a real NIC driver: virtio_net. The line above asks the
# QEMU harness (tests/qemu/run.sh) for a virtio-net port whose other end is
# the host's tests/qemu/feed.py; this script asks for a scenario by a line
# "ddf-feed: send SCENARIO N" on the second serial port, and the host
# writes that scenario's frames (the same ddf_spangen's, so the same bytes
# as the copy made here) into the port. As root on the host, the port is a
# multi-queue tap (run.sh's DDF_VM_VIRTIO_QUEUES queue pairs, 4), and tun
# on the host spreads the frames over the queues by flow, as a NIC's RSS
# does; here the port gets 2 or more of the queue pairs (ethtool -L), and
# XDP a TX queue of its own per CPU where that leaves enough. Otherwise it
# has one queue pair, and the checks of several queues are skipped,
# saying so. The port is the mirror port:
#
#   - with no rule, tcpdump on it gets every frame, byte for byte (the
#     host's frames are the generator's, and nothing else comes in), on
#     more than one RX queue (ethtool -S where the kernel counts each
#     queue's frames there, up to 6.9; else the queues' interrupts);
#   - ddf's XDP program in the driver (ddfctl xdp attach ... mode native)
#     leaves tcpdump on the port each packet once, the generator's kept
#     frames byte for byte, and the rule counts its numbers;
#   - a netdev ingress rule drops the same copies before nft's fwd hands
#     the rest to cap0, where tcpdump records them;
#   - at MTU 9000, frames of up to 8.6 KB (the jumbo scenario): the ingress
#     rule, and XDP where the driver and ddf's program can judge frames in
#     several buffers (virtio_net has multi-buffer XDP from 6.3 on; ddf's
#     program must be loaded as frags-aware), else a skip that says why.
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/netns/virtio.sh
#   (in a test VM of tests/qemu/; ddfctl, ddf_spangen and tcpdump in $PATH)
#
# ┌──────────────┐ tap (N      ┌────────────────────────────────────────┐
# │ host         │ queues) or  │ $rcv, the capture box                  │
# │ feed.py ─────┼─────────────┼─ eth0 (virtio_net) promiscuous:        │
# │ (ddf_spangen │ stream (1)  │    XDP: ddf's program, tcpdump -i eth0 │
# │  SCENARIO)   │             │    ingress: ddf rule, nft fwd to cap0  │
# └──────────────┘             │  cap0 (dummy) ── tcpdump -w            │
#                              └────────────────────────────────────────┘
#
# Every block begins with "# Test that ..." and asserts; a failed
# assertion stops the script and fails it.
#
# Across queues the frames of different flows reach tcpdump in another
# order than sent (a queue's frames keep theirs, and a packet's copies,
# one flow, share a queue), so with several queues a capture is compared
# with the generator's as a set of records, each byte for byte; the right
# copy kept shows that the copies came in order.

set -e

exec 3>&1
export LANG=C
snd="ddfvirtio-$$-none"
rcv="ddfvirtio-$$-rcv"
here=$(cd "$(dirname "$0")" && pwd)
: "${DDF_MODULES:=$(cd "$here/../.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
tmp=$(mktemp -d)
blocks=0
seed=00112233445566778899aabbccddeeff
rule="window 1000000 fpr 1e-6 seed $seed action drop"
declare -A cap_pid

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/netns/capture.bash
. "$(dirname "$0")/capture.bash"

# text FILE: as capture.bash's, but with absolute TCP sequence numbers: one
# capture holds several scenarios here, and tcpdump's relative numbers of
# a flow would depend on what came before it in the file
text() { tcpdump -Z root -r "$1" -n -t -S -xx 2>/dev/null; }

skip() {
	echo "virtio.sh: skipped: $*"
	exit 0
}

# The virtio-net port: its driver loaded (a module in Debian's kernels;
# on 6.1 virtio_pci is one too), then the device virtio_net drives.
port=
modprobe -q virtio_pci 2>/dev/null || true
modprobe -q virtio_net 2>/dev/null || true
for d in /sys/class/net/*; do
	drv=$(readlink "$d/device/driver" 2>/dev/null) || continue
	if [[ ${drv##*/} == virtio_net ]]; then
		port=${d##*/}
		break
	fi
done
if [[ -z $port ]]; then
	if grep -qs 0x1af4 /sys/bus/pci/devices/*/vendor; then
		skip "kernel $(uname -r) has a virtio-net device but no driver for it" \
			"(CONFIG_VIRTIO_PCI, CONFIG_VIRTIO_NET)"
	fi
	skip "no virtio-net device (tests/qemu/run.sh adds one for a script" \
		"with the line '# ddf-vm: virtio-net')"
fi
# The features the driver and QEMU agreed on (a string of bits, bit 0
# first): without a vnet header, QEMU's socket netdevs offer no receive
# offloads (GUEST_CSUM, GUEST_TSO4), which virtio_net would have to turn
# off for XDP; mergeable buffers carry the jumbo frames.
feat=$(cat "/sys/class/net/$port/device/features")
bit() { echo "$2 ${feat:$1:1}"; }
features="$(bit 1 GUEST_CSUM), $(bit 7 GUEST_TSO4), $(bit 15 MRG_RXBUF), $(bit 22 MQ)"
# the VM's report port, which the host reads (init.sh: ttyS1, or virtio's
# console where the machine has one serial port)
report=${DDF_REPORT:-/dev/ttyS1}
[[ -c $report ]] || fail "no report port ($report) to ask the host for frames"
for t in ddfctl ddf_spangen tcpdump; do
	command -v "$t" >/dev/null || fail "no $t in PATH"
done

trap capture_cleanup EXIT
if loaded; then pp rmmod nf_ddf; fi
pp ip netns add "$rcv"
ip netns exec "$rcv" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip netns exec "$rcv" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
ip -n "$rcv" link set up dev lo
# Into $rcv, where nothing sends from it (no address, no IPv6); the
# namespace's end gives it back to the first one.
pp ip link set "$port" netns "$rcv"
ip -n "$rcv" link set "$port" promisc on up
ip -n "$rcv" link add cap0 type dummy
ip -n "$rcv" link set up dev cap0
R nft add table netdev capture
R nft add chain netdev capture span \
	"{ type filter hook ingress device $port priority 0; }"
R nft add rule netdev capture span fwd to cap0
pp insmod "$module"

# channels WHICH: the port's combined channels (queue pairs), WHICH being
# "Pre-set maximums" or "Current hardware settings" of ethtool -l
channels() {
	ip netns exec "$rcv" ethtool -l "$port" | awk -v w="$1" '
		index($0, w) == 1 { m = 1 } m && /^Combined:/ { print $2; exit }'
}
# rxq KIND: a counter of each RX queue of the port ("N N ...", empty when
# the kernel has none of that kind). KIND packets: the frames it got
# (ethtool -S rx_queue_N_packets; from 6.10 on virtio_net counts them in
# the netdev netlink family's queue stats, which no tool here reads);
# xdp: the frames XDP judged on it (rx_queue_N_xdp_packets, from 6.10 on
# rxN_xdp_packets); irq: the interrupts of its vector (/proc/interrupts'
# virtioD-input.N), each at least one frame.
rxq() {
	if [[ $1 == irq ]]; then
		local dev
		dev=$(ip netns exec "$rcv" readlink "/sys/class/net/$port/device")
		awk -v d="${dev##*/}" '$NF ~ "^" d "-input[.][0-9]+$" {
			q = $NF; sub(/.*[.]/, "", q); c = 0
			for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) c += $i
			n[q] = c; if (q + 1 > m) m = q + 1 }
			END { for (i = 0; i < m; i++) printf "%s%d", i ? " " : "", n[i]
				print "" }' /proc/interrupts
		return
	fi
	ip netns exec "$rcv" ethtool -S "$port" | awk -v k="$1" '
		{ sub(/^[ \t]+/, "") }
		k == "packets" && $1 ~ /^rx(_queue_)?[0-9]+_packets:$/ ||
		k == "xdp" && $1 ~ /^rx(_queue_)?[0-9]+_xdp_packets:$/ {
			q = $1; sub(/_[a-z_]*:$/, "", q); gsub(/[^0-9]/, "", q)
			n[q] = $2; if (q + 1 > m) m = q + 1 }
		END { for (i = 0; i < m; i++) printf "%s%d", i ? " " : "", n[i]
			print "" }'
}
# virtio_net said: its kernel log lines since the line count in FILE
said() {
	dmesg | tail -n +"$(($(wc -l <"$1") + 1))" |
		sed -n "s/.*virtio_net [^ ]* $port: //p"
}

# The queue pairs: virtio_net takes min(queue pairs, CPUs) of them; with
# more, the host's flows reach more than one RX queue even on one vCPU.
# XDP asks for one TX queue per possible CPU besides the stack's (for
# XDP_TX, lock-free); past the maximum it shares the stack's in a locked
# mode (and warns once). So the stack gets maximum - CPUs, at least 2.
qmax=$(channels "Pre-set maximums")
cpus=$(($(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1))
mq=0
if ((qmax >= 2)); then
	mq=1
	qn=$((qmax - cpus >= 2 ? qmax - cpus : 2))
	R ethtool -L "$port" combined "$qn"
	expect_eq "$(channels "Current hardware settings")" "$qn" \
		"ethtool -L $port combined $qn: the queue pairs in use"
	ip netns exec "$rcv" ethtool -l "$port" | sed 's/^/    /' >&3
else
	echo "virtio.sh: several queues not checked: $port has one queue pair" \
		"(the host's harness gives a tap of several only as root, with" \
		"tun; see its log line 'virtio-net port')" >&3
fi
pretty rcv "$port: virtio_net, $(ip netns exec "$rcv" sh -c "ls -d /sys/class/net/$port/queues/rx-*" | wc -l) rx queue(s) of $qmax, $cpus CPU(s), carrier $(ip netns exec "$rcv" cat "/sys/class/net/$port/carrier"), features: $features"

# ttl: each packet 2 or 3 times, copies interleaved and a hop older;
# vxlan under the default key: 56 distinct frames (other outer headers),
# some with an outer VLAN tag, which virtio_net leaves in the frame
scenarios="ttl vxlan"
for s in $scenarios jumbo; do gen "$s"; done

# feed SCENARIO: the host writes the scenario's frames into the port
nfeed=0
feed() {
	nfeed=$((nfeed + 1))
	echo "ddf-feed: send $1 $nfeed" >"$report"
	pretty host "the scenario $1 into $port (request $nfeed)"
}

# same_frames GOT WANT WHAT: same_bytes, or with several queues the same
# records in any order (above)
same_frames() {
	if ((!mq)); then
		same_bytes "$@"
		return
	fi
	# one line a record: tcpdump's line, then its hex lines
	recs() {
		awk '/^[^ \t]/ { if (r != "") print r; r = $0; next }
			{ r = r "|" $0 } END { if (r != "") print r }' "$1" | sort
	}
	text "$1" >"$tmp/got.txt"
	[[ -s $2.txt ]] || text "$2" >"$2.txt"
	recs "$tmp/got.txt" >"$tmp/got.sorted"
	recs "$2.txt" >"$tmp/want.sorted"
	[[ -s $tmp/want.sorted ]] || fail "$3: tcpdump cannot read $2"
	if ! cmp -s "$tmp/got.sorted" "$tmp/want.sorted"; then
		diff "$tmp/want.sorted" "$tmp/got.sorted" | cut -c1-200 |
			head -n 40 >&2
		fail "$3: tcpdump shows other records than the generator's (diff: < wanted, > got)"
	fi
}

# rxq_since KIND COUNTS WHAT: each RX queue's counter KIND since rxq KIND
# said COUNTS; sets used (the queues that got any) and sum
rxq_since() {
	local a b i d per=""
	read -ra a <<<"$2"
	read -ra b <<<"$(rxq "$1")"
	used=0 sum=0
	for i in "${!b[@]}"; do
		d=$((b[i] - ${a[i]:-0}))
		per="$per${per:+, }rx$i $d"
		((d == 0)) || used=$((used + 1))
		sum=$((sum + d))
	done
	pretty rcv "$3: $port's RX queues, $1: $per (sum $sum)"
}

# xdp_queues: after an attach (the kernel log's length before it in
# $tmp/dmesg-xdp), what virtio_net said and the queue pairs in use: the
# stack's, and one per CPU for XDP_TX where the maximum leaves room
xdp_queues() {
	local cur what
	what=$(said "$tmp/dmesg-xdp" | tr '\n' ' ')
	cur=$(channels "Current hardware settings")
	pretty rcv "XDP on $port: $cur queue pairs in use; virtio_net said: ${what:-nothing}"
	((mq)) || return 0
	if ((qn + cpus <= qmax)); then
		expect_eq "$cur" "$((qn + cpus))" \
			"queue pairs of $port with XDP ($qn the stack's, $cpus for XDP_TX)"
		[[ $what != *"locked tx mode"* ]] ||
			fail "virtio_net shares the stack's TX queues with XDP: $what"
	fi
}

# wait_ctr RULE WORD N: until the rule's counter is N (or 30 s passed)
wait_ctr() {
	for _ in $(seq 150); do
		[[ $(rule_ctr "$rcv" "$1" "$2") == "$3" ]] && return
		sleep 0.2
	done
}

# Test that without a rule tcpdump on the port gets every frame the host
# sent, byte for byte, and nothing else.
n=0
kind=packets
[[ -n $(rxq packets) ]] || kind=irq
q0=$(rxq $kind)
cap_start "$rcv" "$port" none
for s in $scenarios; do
	n=$((n + $(want "$s" default records)))
	text "$tmp/$s/sent.pcap" >>"$tmp/sent-all.pcap.txt"
	feed "$s"
done
cap_stop none "$n"
expect_eq "${got[none]}" "$n" "$scenarios without a rule: frames on $port"
same_frames "$tmp/none.pcap" "$tmp/sent-all.pcap" "$scenarios without a rule"
pretty rcv "$scenarios: no rule, tcpdump -i $port got $n of $n frames, byte for byte"
rxq_since $kind "$q0" "$scenarios, no rule"
if ((mq)); then
	expect_ge "$used" 2 "RX queues of $port that got frames"
	[[ $kind != packets ]] ||
		expect_eq "$sum" "$n" "the frames of $port's RX queues"
fi
passed "no rule: tcpdump on $port gets every frame the host sent, on $used RX queue(s)"

# counts WHAT RULE N D: the rule's counters are the generator's numbers
counts() {
	wait_ctr "$2" packets "$3"
	rule_ctrs "$rcv" "$2"
	expect_eq "${ctr[packets]}" "$3" "$1: rule packets"
	expect_eq "${ctr[duplicates]}" "$4" "$1: rule duplicates"
	expect_eq "${ctr[dropped]}" "$4" "$1: rule dropped"
}

# xdp SCENARIO...: the scenarios one after the other through one rule of
# the default key judged by ddf's program in virtio_net (no key of one is
# a key of another); tcpdump on the port must get each one's kept frames,
# and the rule's counters add up the generator's numbers
xdp() {
	local s k n=0 d=0
	# shellcheck disable=SC2086
	R ddfctl rule add span family netdev hook none dev "$port" $rule
	dmesg >"$tmp/dmesg-xdp"
	R ddfctl xdp attach dev "$port" rule span mode native >/dev/null
	xdp_queues
	R ddfctl xdp show >"$tmp/show"
	grep -q "^$port: native rule span " "$tmp/show" ||
		fail "xdp show: $(cat "$tmp/show")"
	for s in "$@"; do
		k=$(want "$s" default kept)
		n=$((n + $(want "$s" default records)))
		d=$((d + $(want "$s" default duplicates)))
		cap_start "$rcv" "$port" "$s-xdp"
		q0=$(rxq xdp)
		feed "$s"
		cap_stop "$s-xdp" "$k"
		rxq_since xdp "$q0" "$s (XDP)"
		if ((mq)); then
			expect_ge "$used" 2 "$s (XDP): RX queues of $port whose XDP got frames"
			expect_eq "$sum" "$(want "$s" default records)" \
				"$s (XDP): the frames XDP judged on $port's RX queues"
		fi
		counts "$s (XDP)" span "$n" "$d"
		expect_eq "${got[$s-xdp]}" "$k" "$s (XDP): frames tcpdump got on $port"
		same_frames "$tmp/$s-xdp.pcap" "$tmp/$s/kept-default.pcap" "$s (XDP)"
		pretty rcv "$s (XDP): tcpdump -i $port got $k of $(want "$s" default records) frames, $(want "$s" default duplicates) dropped"
	done
	R ddfctl xdp detach dev "$port"
	R ddfctl rule del span
}

# xsk: ttl through a rule judged by ddf's program in virtio_net, an AF_XDP
# capture on the port behind it (ddfxsk: libxdp's xsk API, a socket on each
# queue pair in use, its program after ddf's in libxdp's dispatcher): the
# reader must get the kept frames, each once, byte for byte
xsk() {
	local k q line last=''
	k=$(want ttl default kept)
	# shellcheck disable=SC2086
	R ddfctl rule add span family netdev hook none dev "$port" $rule
	R ddfctl xdp attach dev "$port" rule span mode native >/dev/null
	q=$(channels "Current hardware settings")
	pretty rcv "ddfxsk $port xsk.pcap queues $q mode native count $k"
	nsenter --net="/run/netns/$rcv" ddfxsk "$port" "$tmp/xsk.pcap" \
		queues "$q" mode native count "$k" idle 2000 timeout 120000 \
		>"$tmp/xsk.out" 2>"$tmp/xsk.err" &
	local pid=$!
	for _ in $(seq 600); do
		line=
		read -r line <"$tmp/xsk.out" || true
		[[ $line == "ddfxsk: ready" ]] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	[[ $line == "ddfxsk: ready" ]] ||
		fail "ddfxsk: not ready: $(cat "$tmp/xsk.out" "$tmp/xsk.err")"
	feed ttl
	wait "$pid" || fail "ddfxsk: $(cat "$tmp/xsk.err")"
	while read -r line; do last=$line; done <"$tmp/xsk.out"
	pretty rcv "$last"
	[[ $last == "ddfxsk: $k frames, 0 dropped"* ]] ||
		fail "ttl (AF_XDP): the reader ended with '$last', not $k frames"
	same_frames "$tmp/xsk.pcap" "$tmp/ttl/kept-default.pcap" "ttl (AF_XDP)"
	R ddfctl xdp detach dev "$port"
	R ddfctl rule del span
}

# ingress SCENARIO VARIANT: the scenario through the variant's rule at the
# port's ingress; cap0 must get the kept frames, a tcpdump on the port all
ingress() {
	local s=$1 v=$2 n k d
	n=$(want "$s" "$v" records)
	k=$(want "$s" "$v" kept)
	d=$(want "$s" "$v" duplicates)
	# shellcheck disable=SC2046,SC2086
	R ddfctl rule add span family netdev hook ingress dev "$port" \
		priority -10 $rule $(words "$v")
	cap_start "$rcv" cap0 "$s-$v-in"
	cap_start "$rcv" "$port" "$s-$v-in-port"
	q0=$(rxq $kind)
	feed "$s"
	cap_stop "$s-$v-in" "$k" "$s-$v-in-port" "$n"
	rxq_since $kind "$q0" "$s $v (ingress)"
	if ((mq)); then
		expect_ge "$used" 2 "$s $v (ingress): RX queues of $port that got frames"
		[[ $kind != packets ]] ||
			expect_eq "$sum" "$n" "$s $v (ingress): the frames of $port's RX queues"
	fi
	counts "$s $v (ingress)" span "$n" "$d"
	expect_eq "${got[$s-$v-in]}" "$k" "$s $v (ingress): frames on cap0"
	expect_eq "${got[$s-$v-in-port]}" "$n" "$s $v (ingress): frames on $port"
	same_frames "$tmp/$s-$v-in.pcap" "$tmp/$s/kept-$v.pcap" "$s $v (ingress)"
	R ddfctl rule del span
	pretty rcv "$s $v (ingress): cap0 got $k of $n frames, the port $n; $d dropped"
}

# Test that ddf's XDP program in virtio_net (native mode, on every RX
# queue; with several queue pairs, XDP_TX has its own per CPU, else it
# shares the stack's in a locked mode, which ddf's program never uses)
# leaves tcpdump on the port each packet once: ttl's copies, interleaved
# and a hop older, dropped; vxlan's distinct frames, some tagged, kept.
if [[ -e /sys/kernel/btf/vmlinux ]]; then
	xdp ttl vxlan
	passed "native XDP in virtio_net: tcpdump -i $port sees each packet once"
	# Test that an AF_XDP capture on the port behind ddf's program gets
	# each packet once (Suricata's af-xdp capture opens its sockets so).
	if grep -q '^XDP ' /proc/net/protocols && command -v ddfxsk >/dev/null; then
		xsk
		passed "AF_XDP on $port behind ddf's program: each packet once"
	else
		echo "virtio.sh: AF_XDP skipped: kernel $(uname -r) has no AF_XDP" \
			"sockets (CONFIG_XDP_SOCKETS), or no ddfxsk in PATH" >&3
	fi
else
	echo "virtio.sh: XDP skipped: kernel $(uname -r) has no BTF" \
		"(CONFIG_DEBUG_INFO_BTF), so no XDP program can call nf_ddf" >&3
fi

# Test that a netdev ingress rule on the virtio-net port drops the same
# copies: cap0 gets each packet once, the port every frame (VLAN copies
# at ingress: span.sh, over veth; the receive path is the same).
ingress ttl default
passed "netdev ingress rule on $port: cap0 gets each packet once"

# Test that at MTU 9000 frames of up to 8.6 KB, which virtio_net takes in
# several buffers, reach the ingress rule whole: each packet once on cap0.
R ip link set dev "$port" mtu 9000
R ip link set dev cap0 mtu 9000
ingress jumbo default
passed "MTU 9000: the ingress rule drops the copies of 1.6 to 8.6 KB packets"

# Test the same through XDP, where the driver and ddf's program can take
# frames in several buffers; otherwise say why not.
if [[ ! -e /sys/kernel/btf/vmlinux ]]; then
	echo "virtio.sh: XDP at MTU 9000 skipped: no BTF" >&3
else
	# shellcheck disable=SC2086
	R ddfctl rule add span family netdev hook none dev "$port" $rule
	dmesg >"$tmp/dmesg0"
	if in_ns "$rcv" ddfctl xdp attach dev "$port" rule span \
		mode native >"$tmp/attach" 2>&1; then
		R ddfctl xdp detach dev "$port"
		R ddfctl rule del span
		xdp jumbo
		passed "native XDP at MTU 9000: each packet of up to 8.6 KB once"
	else
		R ddfctl rule del span
		# what virtio_net said, in the kernel log since the attach
		dmesg | tail -n +"$(($(wc -l <"$tmp/dmesg0") + 1))" |
			sed -n "s/.*virtio_net .*$port: //p" >"$tmp/said"
		if grep -q 'single-buffer XDP requires MTU' "$tmp/said"; then
			why="virtio_net takes only a program loaded as frags-aware (multi-buffer XDP) above that MTU, and ddf's is not"
		elif grep -q 'XDP requires MTU' "$tmp/said"; then
			why="this kernel's virtio_net has no multi-buffer XDP (it has from 6.3 on)"
		else
			why="see the kernel log"
		fi
		echo "virtio.sh: XDP at MTU 9000 skipped on $(uname -r):" \
			"$(cat "$tmp/attach"); virtio_net: $(tr '\n' ' ' <"$tmp/said")--" \
			"$why" >&3
	fi
fi

echo "virtio.sh: $blocks passed, 0 failed"
