#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Nothing lost, measured in the kernel: no copy inside the guaranteed
# window passes APBF, APBBF or the exact filter; on unique traffic the
# false-positive rate (with action drop: the real packets lost) stays
# within 1.2 times the rule's analytic rate; and the per-CPU counters add
# up when both CPUs feed one rule.
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/robust/nolost.sh
#   DDF_SOAK=1: 15 times the windows, 10^6 unique packets per filter for
#   the false positives (10^5 and 5 10^4 otherwise: see the last block)
#   DDF_NOLOST_FP=1: the false positives alone, at the soak's size
#   (tests/netns/fprate.sh runs that in the stock kernels, where pktgen
#   is fast enough for 10^6 packets per filter in make check)
#
# The traffic is pktgen's (in-kernel, fast enough under TCG with KASAN):
# "xmit_mode netif_receive" injects each UDP packet into the receive path
# of a dummy device d0, as if d0 had received it. The rule (family ip,
# prerouting, action count) sees it first; then the route lookup drops it
# as a martian (strict rp_filter, no route back to 10.0.0.0/8), so nothing
# else is done per packet. The namespace has IPv6 off and nothing else
# sends into d0: the rule sees pktgen's packets and no other.
#
# Which packets are distinct, and which are copies. The rules hash the
# 5-tuple (key saddr,daddr,proto,sport,dport): pktgen's IP ID and sequence
# number differ between runs, the 5-tuple does not. In sequential mode
# (no *_RND flag) pktgen steps every ranged field by one per packet,
# together, and wraps it: an address range [min, max] has max - min + 1
# values, a port range [min, max) max - min, and each run starts again
# from the same values. So one ranged field of P values gives a sequence
# of period P, the same in every run: a run of count P sends P distinct
# packets, and running it again sends the same P packets in the same
# order, each copy exactly P packets after its original. Two ranged
# fields of coprime sizes A and B give period A * B: every window of
# A * B consecutive packets is distinct.

set -e

exec 3>&1
export LANG=C
ns="ddf-$$-nl"
rcv=$ns
here=$(cd "$(dirname "$0")" && pwd)
: "${DDF_MODULES:=$(cd "$here/../.." && pwd)}"
: "${DDF_SOAK:=0}"
: "${DDF_NOLOST_FP:=0}"
module=$DDF_MODULES/nf_ddf.ko
tmp=$(mktemp -d)
blocks=0
key=(key "saddr,daddr,proto,sport,dport")

# lib.bash: beside this script in the VM (/ddf/tests), in tests/netns in
# the tree
lib=$here/../lib.bash
[[ -e $lib ]] || lib=$here/../netns/lib.bash
# shellcheck source=tests/netns/lib.bash
. "$lib"

N() { ip netns exec "$ns" "$@"; }

cleanup() {
	set +e
	exec 2>/dev/null
	ip netns del "$ns"
	rm -rf "$tmp"
	loaded && rmmod nf_ddf
	exit
}
trap cleanup EXIT

# ms: the time in milliseconds
ms() { echo $((${EPOCHREALTIME/./} / 1000)); }

# ip4 N: 10.0.0.0 + N, dotted
ip4() { echo "10.$(($1 >> 16 & 255)).$(($1 >> 8 & 255)).$(($1 & 255))"; }

# In the namespace, with bash builtins only (a process costs a lot
# under TCG with KASAN): pgset FILE COMMAND... writes pktgen commands to
# /proc/net/pktgen/FILE, each checked; pgsent FILE prints "sent N".
pgfns='
pgresult() {
	local l
	res=
	while IFS= read -r l; do
		[[ $l != Result:* ]] || { res=$l; return; }
	done <"/proc/net/pktgen/$1"
}
pgset() {
	local f=$1 c
	shift
	for c in "$@"; do
		echo "$c" >"/proc/net/pktgen/$f"
		pgresult "$f"
		[[ $res == "Result: OK"* ]] ||
			{ echo "pktgen $f: $c: $res" >&2; return 1; }
	done
}
pgsent() {
	pgresult "$1"
	[[ $res =~ ^Result:\ OK:\ [0-9]+.*usec,\ ([0-9]+)\  ]] &&
		echo "sent ${BASH_REMATCH[1]}"
}'

# pg FILE COMMAND...: pgset in the namespace
pg() {
	N bash -c "$pgfns"'
		pgset "$@"' _ "$@" || fail "pktgen refused a command"
}

# flow DEV SRC0 NSRC SPORT0 NSPORT DPORT COUNT: the pktgen commands, split
# by "|", that make DEV send COUNT packets from the NSRC addresses
# 10.0.0.0 + SRC0 + i and the NSPORT ports SPORT0 + j to port DPORT
flow() {
	echo "$1|src_min $(ip4 "$2")|src_max $(ip4 $(($2 + $3 - 1)))|udp_src_min $4|udp_src_max $(($4 + $5))|udp_dst_min $6|udp_dst_max $6|count $7"
}

# go RULE FLOW...: set up each FLOW's device (every command checked),
# start pktgen, which returns once every packet went through the stack,
# and read RULE's counters, all from one process in the namespace. Every
# device on a thread sends: give them all. Sets sent (the packets pktgen
# sent), took (ms), p and d (the rule's packets and duplicates).
go() {
	local rule=$1 t0 out w n
	shift
	t0=$(ms)
	out=$(N bash -c "$pgfns"'
		rule=$1
		shift
		for fl in "$@"; do
			IFS="|" read -r -a c <<<"$fl"
			pgset "${c[@]}" || exit 1
		done
		# start returns when every thread is done. A thread that
		# cannot allocate retries (its result says "No memory" from
		# the first failure on): stop it when it has also sent
		# nothing for 10 s
		echo start >/proc/net/pktgen/pgctrl &
		declare -A sofar stuck
		while kill -0 $! 2>/dev/null; do
			for fl in "$@"; do
				f=${fl%%|*} n=
				while IFS= read -r l; do
					[[ $l =~ pkts-sofar:\ ([0-9]+) ]] && n=${BASH_REMATCH[1]}
				done <"/proc/net/pktgen/$f"
				pgresult "$f"
				if [[ $res != *"No memory"* || $n != "${sofar[$f]}" ]]; then
					sofar[$f]=$n stuck[$f]=0
					continue
				fi
				((++stuck[$f] >= 50)) || continue
				echo stop >/proc/net/pktgen/pgctrl
				echo "pktgen $f: $res, no packet sent for 10 s" >&2
				while read -r k v _; do
					[[ $k != MemFree: ]] || echo "MemFree $v kB" >&2
				done </proc/meminfo
				exit 1
			done
			sleep 0.2
		done
		for fl in "$@"; do
			pgsent "${fl%%|*}"
		done
		ddfctl stats "$rule"' _ "$rule" "$@") || fail "pktgen failed"
	took=$(($(ms) - t0))
	sent=0
	while read -r w n _; do
		[[ $w != sent ]] || sent=$((sent + n))
	done <<<"$out"
	[[ $out =~ \ packets\ ([0-9]+)\ .*\ duplicates\ ([0-9]+)\  ]] ||
		fail "no counters: $out"
	p=${BASH_REMATCH[1]}
	d=${BASH_REMATCH[2]}
}

# shown RULE FIELD: a number of the rule's filter in ddfctl -j show
shown() {
	N ddfctl -j show "$1" |
		sed -n "s/.*\"filter\": {[^}]*\"$2\": \([0-9.e+-]*\).*/\1/p"
}

# rule NAME WORDS...: a counting rule on the 5-tuple of UDP over IPv4
rule() {
	local name=$1
	shift
	N ddfctl rule add "$name" family ip hook prerouting proto udp "${key[@]}" \
		"$@" action count >/dev/null
}

# ratio A B: A / B with 3 decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

# dev THREAD DEV: DEV, a pktgen device on d0, alone on pktgen's thread
# THREAD (bound to CPU THREAD)
dev() {
	pg "kpktgend_$1" rem_device_all "add_device $2"
	# 60 bytes on the wire (pkt_size counts the 4-byte CRC)
	pg "$2" "xmit_mode netif_receive" "pkt_size 64" "delay 0" "burst 1" \
		"dst 198.18.0.1" "dst_mac $mac" "flag NO_TIMESTAMP" "count 1"
}

if loaded; then pp rmmod nf_ddf; fi
[[ -d /proc/net/pktgen ]] || modprobe pktgen 2>/dev/null ||
	fail "no pktgen (CONFIG_NET_PKTGEN)"
modprobe dummy numdummies=0 2>/dev/null || true
pp ip netns add "$ns"
N sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
	net.ipv6.conf.default.disable_ipv6=1 \
	net.ipv4.conf.all.rp_filter=1 net.ipv4.conf.default.rp_filter=1
ip -n "$ns" link set lo up
ip -n "$ns" link add d0 type dummy
ip -n "$ns" addr add 198.18.0.1/32 dev d0
ip -n "$ns" link set d0 up
mac=$(mac "$ns" d0)
dev 0 d0
pp insmod "$module"
ncpu=$(nproc)
t_all=$(ms)

if [[ $DDF_SOAK == 1 || $DDF_NOLOST_FP == 1 ]]; then
	wa=30000 wb=100000 fpr=1e-3 nfp_apbbf=1000000 nfp_apbf=1000000 nc=50000
else
	wa=2000 wb=10000 fpr=1e-2 nfp_apbbf=100000 nfp_apbf=50000 nc=4000
fi

# Test that a copy inside the window is never lost: W' distinct packets
# (W' the window the rule got, at least the W asked for), then the same W'
# again, each copy W' packets after its original: the far edge of the
# window, where an APBF finds a key in its oldest k segments. Then copies
# interleaved with new packets: runs of 2D addresses sliding by D, so each
# run repeats the D newest addresses of the run before (D - 1 of them D
# packets later, one 3D later) and adds D new ones; D = W'/4 keeps every
# copy inside the window. One pktgen thread: the order is pktgen's.
# fpr 1e-9: a false positive among the new packets would hide a lost copy
# in the interleaved count; at 1e-9 the chance of one is below 10^-4 per
# run, even with the soak's windows.
nothing_lost() {
	local kind=$1 w fp D R=4 b t0
	shift
	t0=$(ms)
	rule nl filter "$kind" window "$wa" "$@"
	w=$(shown nl window)
	((w >= wa)) || fail "$kind: the rule got window '$w' for $wa"
	go nl "$(flow d0 0 "$w" 1000 1 9 "$w")"
	expect_eq "$p" "$w" "$kind: packets after $w distinct ones"
	fp=$d
	[[ $kind != exact ]] || expect_eq "$fp" 0 "exact: false positives"
	go nl "$(flow d0 0 "$w" 1000 1 9 "$w")"
	expect_eq "$p" $((2 * w)) "$kind: packets after the second pass"
	expect_eq $((d - fp)) "$w" "$kind: copies caught of $w, each $w packets after its original"
	echo "$kind window $w: $w distinct packets, then the same $w again:" \
		"$((d - fp)) of $w copies caught, 0 lost; $fp false positives" \
		"among the $w new" >&3

	N ddfctl rule reset nl filter
	D=$((w / 4))
	for ((b = 0; b < R; b++)); do
		go nl "$(flow d0 $((b * D)) $((2 * D)) 1000 1 9 $((2 * D)))"
	done
	expect_eq "$p" $((R * 2 * D)) "$kind: packets of the interleaved runs"
	expect_eq "$d" $(((R - 1) * D)) "$kind: copies caught, interleaved (D = $D)"
	echo "$kind window $w: $R runs of $((2 * D)) packets sliding by $D:" \
		"$d of $(((R - 1) * D)) copies caught (at $D and $((3 * D))" \
		"packets), 0 lost ($(($(ms) - t0)) ms)" >&3
	N ddfctl rule del nl
}

if [[ $DDF_NOLOST_FP != 1 ]]; then
	nothing_lost apbbf fpr 1e-9
	passed "apbbf: no copy lost at the window's edge or interleaved inside it"
	nothing_lost apbf fpr 1e-9
	passed "apbf: no copy lost at the window's edge or interleaved inside it"
	nothing_lost exact
	passed "exact: no copy lost, no false positive"
fi

# Test that the counters add up across CPUs: pktgen's threads 0 and 1
# (bound to CPUs 0 and 1) each send nc distinct packets (their own
# destination ports) into one rule at once, twice. packets must be what
# both sent, duplicates the second passes exactly, so packets - duplicates
# = the 2 nc distinct keys. The window (8 nc) covers a copy's distance
# (at most 4 nc packets of both threads).
across_cpus() {
	local kind=$1 s1 t0
	shift
	t0=$(ms)
	rule nc filter "$kind" window $((8 * nc)) "$@"
	go nc "$(flow d0 0 "$nc" 1000 1 9 "$nc")" "$(flow d0@1 0 "$nc" 1000 1 10 "$nc")"
	s1=$sent
	go nc "$(flow d0 0 "$nc" 1000 1 9 "$nc")" "$(flow d0@1 0 "$nc" 1000 1 10 "$nc")"
	expect_eq "$s1 $sent" "$((2 * nc)) $((2 * nc))" "$kind: pktgen's packets"
	expect_eq "$p" $((s1 + sent)) "$kind: packets counted of $((s1 + sent)) sent"
	expect_eq "$d" $((2 * nc)) "$kind: duplicates"
	echo "$kind, 2 CPUs: packets $p = $((p - d)) unique + $d duplicates;" \
		"pktgen sent $((s1 + sent)): $((2 * nc)) distinct, each twice" \
		"($(($(ms) - t0)) ms)" >&3
	N ddfctl rule del nc
}

if ((ncpu > 1)); then
	dev 1 d0@1
fi
if [[ $DDF_NOLOST_FP == 1 ]]; then
	:
elif ((ncpu > 1)); then
	across_cpus exact
	across_cpus apbbf fpr 1e-9
	passed "counters of both CPUs add up: packets = unique + duplicates"
else
	echo "counters across CPUs: skipped, one CPU here (the debug lane has 2)" >&3
fi

# Test that the false-positive rate on unique traffic is at most 1.2
# times the rule's analytic rate (ddfctl show: filter.fpr, the rate the
# target asked for became) and not absurdly below it (0.5: a filter that
# forgets would show far less; a stream of random keys in userspace
# measures 0.84-1.05 of it). The filter is filled with 2 W' distinct
# packets first (its steady state), then NFP distinct packets are
# counted, from both CPUs. The margin: the count is binomial, about
# Poisson. At fpr 1e-2 (make check: APBBF over 10^5 packets, APBF over
# 5 10^4) and at 1e-3 over 10^6 (soak) 390 to 990 are expected, so 1.2
# times that is 4 to 6 standard deviations above it: a correct filter
# fails about once in 10^4 runs or less.
# Every packet is distinct: per thread A addresses and A - 1 ports
# (coprime) give a period A (A - 1), at least its share; the fill uses
# other destination ports.
fp_rate() {
	local kind=$1 nfp=$2 w target A=2 per t0 r
	t0=$(ms)
	rule fp filter "$kind" window "$wb" fpr "$fpr"
	w=$(shown fp window)
	target=$(shown fp fpr)
	per=$((ncpu > 1 ? nfp / 2 : nfp))
	while ((A * (A - 1) < per || A * (A - 1) < 2 * w)); do A=$((A * 2)); done
	if ((ncpu > 1)); then
		go fp "$(flow d0 0 "$A" 1000 $((A - 1)) 11 "$w")" \
			"$(flow d0@1 0 "$A" 1000 $((A - 1)) 12 "$w")"
		N ddfctl rule reset fp
		go fp "$(flow d0 0 "$A" 1000 $((A - 1)) 9 "$per")" \
			"$(flow d0@1 0 "$A" 1000 $((A - 1)) 10 $((nfp - per)))"
	else
		go fp "$(flow d0 0 "$A" 1000 $((A - 1)) 11 $((2 * w)))"
		N ddfctl rule reset fp
		go fp "$(flow d0 0 "$A" 1000 $((A - 1)) 9 "$nfp")"
	fi
	expect_eq "$p" "$nfp" "$kind: unique packets counted"
	r=$(ratio "$d" "$(awk -v n="$nfp" -v f="$target" 'BEGIN { print n * f }')")
	echo "$kind window $w target $fpr: $d false positives in $p unique" \
		"packets: rate $(awk -v d="$d" -v p="$p" 'BEGIN { printf "%.3g", d / p }')," \
		"analytic $target, measured/analytic $r" \
		"($((nfp * 1000 / (took + 1))) packets/s, $(($(ms) - t0)) ms)" >&3
	# the analytic rate is the worst case, a generation's end; apbf's
	# rate over whole generations is about half of it (0.484 and 0.508
	# in two runs of 50000 packets), so the floor sits below that
	awk -v r="$r" 'BEGIN { exit !(r <= 1.2 && r >= 0.3) }' ||
		fail "$kind: false-positive rate $r times the analytic one (0.3 .. 1.2)"
	N ddfctl rule del fp
}

if ((nfp_apbbf < 1000000)); then
	echo "false positives: $nfp_apbbf (APBBF) and $nfp_apbf (APBF) unique" \
		"packets at fpr $fpr here, 10^6 each in the stock kernels" \
		"(tests/netns/fprate.sh) and under DDF_SOAK=1: pktgen makes" \
		"1,300 to 6,000 packets/s in this kernel under TCG, so 10^6" \
		"take 3 to 12 minutes, beyond a script's budget in make check" >&3
fi
fp_rate apbbf "$nfp_apbbf"
fp_rate apbf "$nfp_apbf"
passed "false positives on unique traffic within 1.2 times the analytic rate"

echo "nolost: $blocks blocks in $(($(ms) - t_all)) ms" >&3
