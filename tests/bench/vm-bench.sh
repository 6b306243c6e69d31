#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel-path benchmark, run inside the bench VM (tests/qemu/init.sh
# starts it when the lane sets DDF_BENCH): the packet rate of in-kernel
# generated traffic through no rule, an nft counter, ddf rules, an nft
# dynamic-set de-duplication and iptables-legacy (an empty rule, and the
# ddf match), measured interleaved in one boot.
#
# The path: pktgen in "xmit_mode netif_receive" injects each packet into
# the receive path of a dummy device d0, as if d0 had received it; the
# packet runs through the IPv4 stack from ip_rcv: PREROUTING (where every
# rule under test sits: ddf "hook prerouting priority 0", nft "type filter
# hook prerouting priority 0"), then the route lookup, which drops it as a
# martian source (strict rp_filter; the sources, 10.0.0.0/8, have no route
# back), so nothing after PREROUTING allocates or queues. Every packet is
# distinct: random source address (10.0.0.1-10.255.255.254), random UDP
# source port, and pktgen's sequence number in the first payload bytes.
#
# Each configuration lives in its own network namespace (rules and
# pktgen's devices are per namespace), so the configurations of one window
# are all installed at once and measured in turn, round after round
# (A B C ... A B C ...); their filters keep what they learned between
# rounds. Results go to $DDF_REPORT, one "ddf-bench: {json}" line each.
#
# The bench lane runs QEMU with -icount shift=0: the guest's clock advances
# one nanosecond per guest instruction, so pktgen's rates are instruction
# counts (packets per 10^9 instructions), exact and repeatable whatever the
# host's load; cache misses cost nothing there (TCG has no cache model).
#
#   DDF_BENCH           full | smoke (a few seconds, base + nft + apbbf + netdev apbbf)
#                       | xdp (the veth group alone: XDP alone, behind libxdp's dispatcher)
#   DDF_BENCH_ROUNDS    rounds per window (3; smoke 2)
#   DDF_BENCH_SECONDS   traffic per measurement, about (1), in guest time
#   DDF_BENCH_WINDOWS   packet windows ("10000 1000000 10000000")
#   DDF_BENCH_FILL_MAX  packets sent into a ddf filter before the rounds,
#                       at most (2000000): min(window, this)
#   DDF_BENCH_NFT_MAX   the largest window the nft set is run at (1000000)
#   DDF_BENCH_VIRTIO_PACKETS  frames per virtio-net measurement (100000)
set -eu
export LANG=C
[ ! -e /ddf/lane.conf ] || . /ddf/lane.conf
: "${DDF_BENCH:=full}"
: "${DDF_REPORT:=/dev/null}"
: "${DDF_MODULES:=/ddf/modules}"
if [ "$DDF_BENCH" = smoke ]; then
	: "${DDF_BENCH_ROUNDS:=2}" "${DDF_BENCH_SECONDS:=1}"
	: "${DDF_BENCH_WINDOWS:=10000}"
elif [ "$DDF_BENCH" = xdp ]; then
	: "${DDF_BENCH_ROUNDS:=3}" "${DDF_BENCH_SECONDS:=1}"
	: "${DDF_BENCH_WINDOWS:=1000000}"
else
	: "${DDF_BENCH_ROUNDS:=3}" "${DDF_BENCH_SECONDS:=1}"
	: "${DDF_BENCH_WINDOWS:=10000 1000000 10000000}"
fi
: "${DDF_BENCH_FILL_MAX:=2000000}"
: "${DDF_BENCH_NFT_MAX:=1000000}"
fpr=1e-6
# libxt_ddf.so (the initramfs's /ddf/xtables) before the stock extensions
for d in /usr/lib/*/xtables; do
	[ ! -e "$d/libxt_udp.so" ] || export XTABLES_LIBDIR=/ddf/xtables:$d
done
key5='key saddr,daddr,proto,sport,dport,payload payload 0:16'
# the same fields for nft: 16 payload bytes as four 32-bit words
nkey='ip saddr . ip daddr . meta l4proto . udp sport . udp dport . @th,64,32 . @th,96,32 . @th,128,32 . @th,160,32'

emit() {
	echo "ddf-bench: $*" >>"$DDF_REPORT"
	echo "ddf-bench: $*"
}
say() { echo "bench: $*" >&2; }
# (ddfctl by its network namespace alone: ip netns exec mounts a /sys of
# its own over the BPF file system, where libxdp pins its dispatchers)
NS() {
	local n=$1
	shift
	if [ "$1" = ddfctl ]; then
		nsenter --net="/run/netns/bench-$n" "$@"
	else
		ip netns exec "bench-$n" "$@"
	fi
}

# Memory in use, in bytes: every slab's objects plus vmalloc, and
# MemTotal - MemFree (coarser: page caches and per-CPU lists move it).
mem_slab() {
	awk 'NR > 2 { s += $3 * $4 } END { printf "%d", s }' /proc/slabinfo
}
mem_vmalloc() {
	awk '/^VmallocUsed:/ { printf "%d", $2 * 1024 }' /proc/meminfo
}
mem_used() {
	awk '/^MemTotal:/ { t = $2 } /^MemFree:/ { f = $2 }
		END { printf "%d", (t - f) * 1024 }' /proc/meminfo
}

# mkns NAME SIZE CONFIG: a namespace with d0 and pktgen on it, packets of
# SIZE bytes (pktgen's pkt_size: the frame and its 4-byte CRC).
mkns() {
	local ns=bench-$1 mac dport=9 rx=d0 tx=d0 mode=netif_receive
	[ "${3:-}" != nd-vxlan ] || dport=4789
	ip netns add "$ns"
	ip netns exec "$ns" sh -c '
		echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
		echo 1 >/proc/sys/net/ipv4/conf/all/rp_filter
		echo 1 >/proc/sys/net/ipv4/conf/default/rp_filter'
	ip -n "$ns" link set lo up
	case ${3:-} in
	veth-*)
		# pktgen sends out of v0; v1 receives, as a port would
		rx=v1 tx=v0 mode=start_xmit
		ip -n "$ns" link add v0 type veth peer name v1
		ip -n "$ns" link set v0 up
		;;
	*) ip -n "$ns" link add d0 type dummy ;;
	esac
	ip -n "$ns" addr add 198.18.0.1/32 dev $rx
	ip -n "$ns" link set $rx up
	mac=$(ip netns exec "$ns" cat /sys/class/net/$rx/address)
	ip netns exec "$ns" bash -c '
		set -e
		pg() {
			echo "$2" >"$1"
			grep -q "^Result: OK" "$1" ||
				{ echo "pktgen: $2: $(grep ^Result "$1")" >&2; exit 1; }
		}
		t=/proc/net/pktgen/kpktgend_0
		pg $t rem_device_all
		pg $t "add_device '"$tx"'"
		d=/proc/net/pktgen/'"$tx"'
		pg $d "xmit_mode '"$mode"'"
		pg $d "pkt_size '"$2"'"
		pg $d "delay 0"
		pg $d "burst 1"
		pg $d "dst 198.18.0.1"
		pg $d "dst_mac '"$mac"'"
		pg $d "src_min 10.0.0.1"
		pg $d "src_max 10.255.255.254"
		pg $d "flag IPSRC_RND"
		pg $d "udp_src_min 1"
		pg $d "udp_src_max 65535"
		pg $d "flag UDPSRC_RND"
		pg $d "udp_dst_min '"$dport"'"
		pg $d "udp_dst_max '"$dport"'"
		pg $d "flag NO_TIMESTAMP"'
}

# send NAME COUNT: COUNT packets; prints "usec packets"
send() {
	NS "$1" bash -c '
		d=/proc/net/pktgen/d0
		[ -e $d ] || d=/proc/net/pktgen/v0
		echo "count '"$2"'" >$d
		echo start >/proc/net/pktgen/pgctrl
		# start can return before the run has begun ("Result:
		# Starting"): wait for the run to end, 60 s at most
		for i in $(seq 600); do
			grep -q "^Result: Starting" $d || break
			sleep 0.1
		done
		sed -n "s/^Result: OK: \([0-9]*\)(.*usec, \([0-9]*\) (.*/\1 \2/p" $d'
}

# rule NAME CONFIG WINDOW [TIMEOUT_MS]: install the configuration's rule
rule() {
	local n=$1 c=$2 w=$3
	case $c in
	base) ;;
	nft) NS "$n" nft -f - <<-EOF ;;
		table inet b {
			chain pre {
				type filter hook prerouting priority 0; policy accept;
				counter
			}
		}
	EOF
	apbbf-pkt) NS "$n" ddfctl rule add b hook prerouting priority 0 \
		filter apbbf window "$w" fpr $fpr action count ;;
	# the least-memory shape, beside the default tune speed's
	apbbf-mem) NS "$n" ddfctl rule add b hook prerouting priority 0 \
		filter apbbf window "$w" fpr $fpr tune memory action count ;;
	# iptables-legacy has no table at priority 0 of PREROUTING: mangle's
	# (-150) it is, an empty rule alone, then the ddf match asking a
	# rule of no hook of its own
	ipt) NS "$n" iptables-legacy -w -t mangle -A PREROUTING ;;
	ipt-pkt) NS "$n" ddfctl rule add b family ip hook none \
		filter apbbf window "$w" fpr $fpr action count &&
		NS "$n" iptables-legacy -w -t mangle -A PREROUTING -m ddf --ddf-rule b ;;
	nd-pkt) NS "$n" ddfctl rule add b family netdev hook ingress dev d0 \
		priority 0 filter apbbf window "$w" fpr $fpr action count ;;
	nd-novlan) NS "$n" ddfctl rule add b family netdev hook ingress dev d0 \
		priority 0 filter apbbf window "$w" fpr $fpr action count \
		ignore ttl,ipv4csum,vlan ;;
	nd-vxlan) NS "$n" ddfctl rule add b family netdev hook ingress dev d0 \
		priority 0 filter apbbf window "$w" fpr $fpr action count \
		decap vxlan ;;
	# The veth group: pktgen out of v0, v1 receives (native XDP there;
	# generic XDP cannot take pktgen's shared socket buffers).
	veth-base) ;;
	veth-nd) NS "$n" ddfctl rule add b family netdev hook ingress dev v1 \
		priority 0 filter apbbf window "$w" fpr $fpr action count ;;
	# ddf's program alone on v1 (exclusive), or in libxdp's dispatcher
	veth-xdp | veth-xdp0) NS "$n" ddfctl rule add b family netdev \
		hook none dev v1 filter apbbf window "$w" fpr $fpr \
		action count &&
		NS "$n" ddfctl xdp attach dev v1 rule b mode native \
			exclusive >/dev/null ;;
	veth-xdpd | veth-xdpd0) NS "$n" ddfctl rule add b family netdev \
		hook none dev v1 filter apbbf window "$w" fpr $fpr \
		action count &&
		NS "$n" ddfctl xdp attach dev v1 rule b mode native >/dev/null ;;
	apbbf-5t) NS "$n" ddfctl rule add b hook prerouting priority 0 \
		filter apbbf window "$w" fpr $fpr action count $key5 ;;
	qqhtd-5t) NS "$n" ddfctl rule add b hook prerouting priority 0 \
		filter qqhtd window "$w" fpr $fpr action count $key5 ;;
	exact-5t) NS "$n" ddfctl rule add b hook prerouting priority 0 \
		filter exact window "$w" action count $key5 ;;
	nftset-5t) NS "$n" nft -f - <<-EOF ;;
		table inet b {
			set seen {
				typeof $nkey
				size $((2 * w))
				flags dynamic,timeout
				timeout ${4}ms
			}
			chain pre {
				type filter hook prerouting priority 0; policy accept;
				meta l4proto udp $nkey @seen counter accept
				meta l4proto udp add @seen { $nkey }
			}
		}
	EOF
	*) say "unknown configuration $c"; return 1 ;;
	esac
}

# unrule NAME CONFIG
unrule() {
	NS "$1" nft flush ruleset
	# The match holds its rule: it goes first. Only where it was: asking
	# for the table would set it up, and its hook, in the namespace.
	case $2 in
	ipt*) NS "$1" iptables-legacy -w -t mangle -F PREROUTING ;;
	veth-xdp*) NS "$1" ddfctl xdp detach dev v1 ;;
	esac
	NS "$1" ddfctl rule flush
}

# measure NAME CONFIG WINDOW SIZE ROUND COUNT
measure() {
	local r
	r=$(send "$1" "$6")
	set -- "$@" $r
	[ -n "${8:-}" ] && [ "$7" -gt 0 ] || {
		say "no pktgen result for $1: $(NS "$1" sh -c 'grep -h "Result" /proc/net/pktgen/d0 /proc/net/pktgen/v0 2>/dev/null')"
		return 1
	}
	emit "{\"type\":\"run\",\"config\":\"$2\",\"window\":$3,\"size\":$4," \
		"\"round\":$5,\"packets\":$8,\"usec\":$7," \
		"\"pps\":$(($8 * 1000000 / $7))}"
}

# ddf's memory: the filter's bytes as the kernel reports them (not a
# device's traffic, which a netdev rule's output has first)
ddf_bytes() {
	NS "$1" ddfctl -j show b | bash "$(dirname "$0")/filter-bytes.sh"
}

# allocs NAME CONFIG WINDOW SIZE COUNT: allocations while COUNT packets
# pass (kmalloc and kmem_cache_alloc events by call site, through hist
# triggers), the call sites in nf_ddf, and slab objects before and after.
allocs() {
	local t=/sys/kernel/tracing ev sites a0 a1 total ours
	[ -d $t/events ] || mount -t tracefs tracefs $t 2>/dev/null || return 0
	[ -e $t/events/kmem/kmalloc/trigger ] || return 0
	for ev in kmalloc kmem_cache_alloc; do
		echo 'hist:keys=call_site.sym:vals=hitcount:size=4096' \
			>$t/events/kmem/$ev/trigger
	done
	a0=$(awk 'NR > 2 { s += $2 } END { print s }' /proc/slabinfo)
	send "$1" "$5" >/dev/null
	a1=$(awk 'NR > 2 { s += $2 } END { print s }' /proc/slabinfo)
	sites=/tmp/allocs-$2-$3
	for ev in kmalloc kmem_cache_alloc; do
		grep -h '^{' $t/events/kmem/$ev/hist >>"$sites" || true
		echo '!hist:keys=call_site.sym:vals=hitcount:size=4096' \
			>$t/events/kmem/$ev/trigger
	done
	total=$(awk '{ for (i = 1; i < NF; i++) if ($i == "hitcount:") s += $(i + 1) }
		END { printf "%d", s }' "$sites")
	ours=$(grep -cE 'nf_ddf|ddf_' "$sites" || true)
	say "allocation sites during $2 ($5 packets):"
	sed 's/^/bench:   /' "$sites" >&2
	emit "{\"type\":\"alloc\",\"config\":\"$2\",\"window\":$3,\"size\":$4," \
		"\"packets\":$5,\"allocs\":$total,\"ddf_sites\":$ours," \
		"\"slab_objs_before\":$a0,\"slab_objs_after\":$a1}"
}

# A window's group: configurations (name:config:size), measured in turn
group() {
	local w=$1 cfgs="" c n cfg sz r cnt fill tmo rate e0 e1 s0 s1 v0 v1
	shift
	cfgs="$*"
	declare -A count timeout_ms

	for c in $cfgs; do
		IFS=: read -r n cfg sz <<<"$c"
		mkns "$n" "$sz" "$cfg"
	done
	# packets per measurement: DDF_BENCH_SECONDS at the rate without a rule
	r=$(send "${1%%:*}" 20000)
	rate=$((${r#* } * 1000000 / ${r% *}))
	cnt=$((rate * DDF_BENCH_SECONDS))
	emit "{\"type\":\"calibrate\",\"window\":$w,\"pps\":$rate,\"packets\":$cnt}"

	for c in $cfgs; do
		IFS=: read -r n cfg sz <<<"$c"
		case $cfg in
		nftset-*)
			# The set's timeout holds $w packets at this rule's rate:
			# measure the rate with the rule, then set the timeout.
			rule "$n" "$cfg" "$w" 1000
			r=$(send "$n" 20000)
			tmo=$((w * ${r% *} / ${r#* } / 1000))
			[ "$tmo" -ge 1 ] || tmo=1
			unrule "$n" "$cfg"
			timeout_ms[$n]=$tmo
			e0=$(mem_slab) v0=$(mem_vmalloc) s0=$(mem_used)
			rule "$n" "$cfg" "$w" "$tmo"
			# fill: $w packets (the timeout's worth), then the memory
			send "$n" "$w" >/dev/null
			e1=$(mem_slab) v1=$(mem_vmalloc) s1=$(mem_used)
			NS "$n" nft flush set inet b seen
			emit "{\"type\":\"mem\",\"config\":\"$cfg\",\"window\":$w," \
				"\"size\":$sz,\"timeout_ms\":$tmo,\"tracked\":$w," \
				"\"slab_delta\":$((e1 - e0)),\"vmalloc_delta\":$((v1 - v0))," \
				"\"used_delta\":$((s1 - s0))," \
				"\"bytes\":$((e1 - e0 + v1 - v0))}"
			;;
		*)
			rule "$n" "$cfg" "$w"
			case $cfg in
			base | nft | ipt | veth-base) ;;
			veth-xdp0 | veth-xdpd0)
				# the program's rule is gone: it passes all
				NS "$n" ddfctl rule del b ;;
			*)
				fill=$w
				[ "$fill" -le "$DDF_BENCH_FILL_MAX" ] || fill=$DDF_BENCH_FILL_MAX
				send "$n" "$fill" >/dev/null
				emit "{\"type\":\"mem\",\"config\":\"$cfg\",\"window\":$w," \
					"\"size\":$sz,\"filled\":$fill,\"tracked\":$w," \
					"\"bytes\":$(ddf_bytes "$n")}"
				;;
			esac
			;;
		esac
	done

	for r in $(seq 1 "$DDF_BENCH_ROUNDS"); do
		for c in $cfgs; do
			IFS=: read -r n cfg sz <<<"$c"
			case $cfg in
			nftset-*)
				# elements expired while the others ran: refill
				send "$n" "$w" >/dev/null ;;
			esac
			measure "$n" "$cfg" "$w" "$sz" "$r" "$cnt"
			case $cfg in
			nftset-*)
				# Its elements would expire while the others run,
				# and the set's garbage collector would run in
				# their time: empty it (refilled above).
				NS "$n" nft flush set inet b seen ;;
			esac
		done
	done

	for c in $cfgs; do
		IFS=: read -r n cfg sz <<<"$c"
		case $cfg in
		apbbf-5t) allocs "$n" "$cfg" "$w" "$sz" "$cnt" ;;
		esac
	done
	if [ "$w" = "${DDF_BENCH_WINDOWS%% *}" ]; then
		allocs "${1%%:*}" base "$w" 64 "$cnt"
	fi

	for c in $cfgs; do
		IFS=: read -r n cfg sz <<<"$c"
		unrule "$n" "$cfg" || true
		ip netns del "bench-$n"
	done
	sleep 1 # rules and namespaces go after a grace period
}

# The virtio-net group (full runs, when run.sh gave the VM the port): the
# frames come from the host (tests/qemu/feed.py, "ddf-feed: flood"), not
# pktgen, so the guest idles whenever the feeder falls behind, and with
# -icount sleep=off its clock jumps over the idle time. A rate is thus
# packets per second of *busy* guest time: /proc/stat's user, system, irq
# and softirq ticks (10 ms, 10^7 instructions) over the run, in which the
# guest does nothing else (it polls the port's counter with builtins).
# The port stays in the first namespace: each configuration is set up in
# turn, outside its measurement. Where the host gave it several queue
# pairs (a multi-queue tap, tests/qemu/run.sh), it takes all but one per
# CPU (ethtool -L), at least 2, so that the host's flows spread over
# several RX queues and XDP still has a TX queue per CPU of its own, as
# tests/netns/virtio.sh does; the "virtio" record says how many.
virtio_port=
virtio_find() {
	local d drv
	[ -c /dev/ttyS1 ] || return 1
	modprobe -q virtio_pci 2>/dev/null || true
	modprobe -q virtio_net 2>/dev/null || return 1
	for d in /sys/class/net/*; do
		drv=$(readlink "$d/device/driver" 2>/dev/null) || continue
		[ "${drv##*/}" != virtio_net ] || virtio_port=${d##*/}
	done
	[ -n "$virtio_port" ] || return 1
	ip addr add 198.18.0.1/32 dev "$virtio_port"
	echo 1 >/proc/sys/net/ipv4/conf/all/rp_filter
	echo 1 >"/proc/sys/net/ipv4/conf/$virtio_port/rp_filter"
	echo 1 >"/proc/sys/net/ipv6/conf/$virtio_port/disable_ipv6"
	local max cpus qn=1
	max=$(ethtool -l "$virtio_port" 2>/dev/null | awk '
		/^Pre-set maximums/ { m = 1 } m && /^Combined:/ { print $2; exit }')
	cpus=$(($(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1))
	if [ "${max:-1}" -ge 2 ]; then
		qn=$((max - cpus >= 2 ? max - cpus : 2))
		ethtool -L "$virtio_port" combined "$qn" || qn=1
	fi
	emit "{\"type\":\"virtio\",\"queue_pairs\":$qn,\"max\":${max:-1},\"cpus\":$cpus}"
	ip link set "$virtio_port" up
	mkfifo /tmp/virtio-wait
	exec 9<>/tmp/virtio-wait
}

# busy_ticks: "busy all" CPU ticks (USER_HZ) from /proc/stat
busy_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9,
		$2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat
}

virtio_seq=0
# virtio_measure CONFIG ROUND COUNT
virtio_measure() {
	local n n0 b0 b1 t0 t1 x
	virtio_seq=$((virtio_seq + 1))
	read -r n0 <"/sys/class/net/$virtio_port/statistics/rx_packets"
	read -r b0 t0 <<<"$(busy_ticks)"
	echo "ddf-feed: flood $3 $virtio_seq" >/dev/ttyS1
	while :; do
		read -r n <"/sys/class/net/$virtio_port/statistics/rx_packets"
		[ $((n - n0)) -lt "$3" ] || break
		read -r -t 0.5 -u 9 x || true
	done
	read -r b1 t1 <<<"$(busy_ticks)"
	[ "$b1" -gt "$b0" ] || { say "virtio $1: no busy time"; return 1; }
	emit "{\"type\":\"run\",\"config\":\"$1\",\"window\":1000000,\"size\":64," \
		"\"round\":$2,\"packets\":$3,\"usec\":$(((b1 - b0) * 10000))," \
		"\"idle_usec\":$(((t1 - t0 - b1 + b0) * 10000))," \
		"\"pps\":$(($3 * 100 / (b1 - b0)))}"
}

# virtio_rule CONFIG: install the configuration on the port
virtio_rule() {
	local r="filter apbbf window 1000000 fpr $fpr action count"
	case $1 in
	virtio-base) ;;
	virtio-nd) ddfctl rule add b family netdev hook ingress \
		dev "$virtio_port" priority 0 $r ;;
	virtio-xdp | virtio-xdp0)
		ddfctl rule add b family netdev hook none dev "$virtio_port" $r
		ddfctl xdp attach dev "$virtio_port" rule b mode native \
			exclusive >/dev/null
		[ "$1" = virtio-xdp ] || ddfctl rule del b
		;;
	esac
}

virtio_group() {
	local r c
	: "${DDF_BENCH_VIRTIO_PACKETS:=100000}"
	for r in $(seq 1 "$DDF_BENCH_ROUNDS"); do
		for c in virtio-base virtio-nd virtio-xdp0 virtio-xdp; do
			virtio_rule "$c"
			virtio_measure "$c" "$r" "$DDF_BENCH_VIRTIO_PACKETS"
			ddfctl xdp detach dev "$virtio_port" 2>/dev/null || true
			ddfctl rule flush
		done
	done
}

modprobe pktgen
modprobe dummy numdummies=0
# the exact filter at 10^7 packets needs more than the default cap
grep -q "^nf_ddf " /proc/modules ||
	insmod "$DDF_MODULES/nf_ddf.ko" max_rule_bytes=$((1 << 30))
emit "{\"type\":\"info\",\"kernel\":\"$(uname -r)\",\"mode\":\"$DDF_BENCH\",\"clock\":\"${DDF_BENCH_CLOCK:-wall}\"," \
	"\"cpus\":$(nproc),\"rounds\":$DDF_BENCH_ROUNDS," \
	"\"seconds\":$DDF_BENCH_SECONDS,\"fpr\":$fpr," \
	"\"mem_total\":$(awk '/^MemTotal:/ { print $2 * 1024 }' /proc/meminfo)}"

for w in $DDF_BENCH_WINDOWS; do
	say "window $w"
	if [ "$DDF_BENCH" = smoke ]; then
		group "$w" "base-$w:base:64" "nft-$w:nft:64" "pkt-$w:apbbf-pkt:64" \
			"nd-$w:nd-pkt:64"
		continue
	fi
	if [ "$DDF_BENCH" = xdp ]; then
		group "$w" "vb-$w:veth-base:64" "vx-$w:veth-xdp:64" \
			"v0-$w:veth-xdp0:64" "vd-$w:veth-xdpd:64" \
			"d0-$w:veth-xdpd0:64"
		continue
	fi
	set -- "base-$w:base:64" "nft-$w:nft:64" "pkt-$w:apbbf-pkt:64" \
		"t5-$w:apbbf-5t:64" "q-$w:qqhtd-5t:64" "x-$w:exact-5t:64" \
		"i-$w:ipt:64" "ip-$w:ipt-pkt:64"
	[ "$w" != 1000000 ] ||
		set -- "$@" "m-$w:apbbf-mem:64" "nd-$w:nd-pkt:64" \
			"nv-$w:nd-novlan:64" "nx-$w:nd-vxlan:64"
	[ "$w" -gt "$DDF_BENCH_NFT_MAX" ] || set -- "$@" "s-$w:nftset-5t:64"
	group "$w" "$@"
	# XDP, beside netdev ingress on the same veth: veth-xdp0 is the
	# program with its rule deleted (veth's XDP path and the call alone);
	# veth-xdpd and veth-xdpd0 the same behind libxdp's dispatcher
	[ "$w" != 1000000 ] ||
		group "$w" "vb-$w:veth-base:64" "vn-$w:veth-nd:64" \
			"vx-$w:veth-xdp:64" "v0-$w:veth-xdp0:64" \
			"vd-$w:veth-xdpd:64" "d0-$w:veth-xdpd0:64"
done
if [ "$DDF_BENCH" = full ] && virtio_find; then
	say "virtio-net $virtio_port: frames from the host"
	virtio_group
fi
if [ "$DDF_BENCH" = full ]; then
	# 512- and 1500-byte packets: key packet hashes the whole packet
	w=1000000
	say "512-byte packets, window $w"
	group $w "b5-$w:base:512" "n5-$w:nft:512" "p5-$w:apbbf-pkt:512"
	say "1500-byte packets, window $w"
	group $w "b15-$w:base:1500" "n15-$w:nft:1500" "p15-$w:apbbf-pkt:1500"
fi
emit '{"type":"end"}'
