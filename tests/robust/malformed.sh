#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Malformed packets through ddf rules of every key form, both families and
# the hooks prerouting, input and forward: tcpdump's test captures (many of
# them deliberately malformed), then packets built for it by malpkt
# (tests/robust/malpkt.c): truncated and inconsistent headers, IPv6
# extension-header chains on both sides of the key's limit of 16 headers,
# fragments (overlapping, tiny, a first one without its L4 header),
# non-linear skbs (paged packets cut at chosen bytes, GRO frag_lists, and
# GSO/GRO TCP transfers), each kind a block of its own. Run in the debug
# lane (KASAN, UBSAN, lockdep, kmemleak): a kernel report fails it there.
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/robust/malformed.sh
#
# ┌────────────── $snd ──────┐  ┌──────────────── $rcv ─────────────────────┐
# │ s0 (no address, no IPv6) ├──┤ r0 ── prerouting ── input (local: 0/1, ::/0)│
# │ malpkt sends             │  │            └─────── forward ── f0 (dummy:  │
# └──────────────────────────┘  │              128/1, 2000::/4)             │
#                               └───────────────────────────────────────────┘
#
# How it checks, per block: the rules are created afresh (every one with a
# seed), and an nft table counts, per hook and family, the packets that
# enter from r0 and hands them to nflog (priority -1, before every rule),
# where "malpkt log" writes them to a pcap file. Then for every rule:
#  - its counters hold together: packets >= duplicates, dropped and marked
#    as its action says (drop: dropped = duplicates; mark: marked =
#    duplicates; count: neither);
#  - packets + unparsed equal the nft counter of the rule's hook and
#    family (for a rule with a protocol selector: with the packets the
#    selector passes over, which ddfctl replay counts as skipped, they
#    equal the hook's packets);
#  - packets, bytes, duplicates, dropped, marked and unparsed equal those
#    of `ddfctl replay` over what nflog saw at the rule's hook, with the
#    same words and seed: the kernel, reading skbs of every shape, parses
#    and hashes as userspace does over flat bytes;
# and nflog lost nothing. Blocks that know more check more (the extension
# chains the UDP rule takes, the duplicates that fragments, paged pairs
# and GRO trains must give).
#
# The captures: /ddf/tcpdump in the VM (tests/qemu/initramfs.sh copies
# them from scripts/fetch-tcpdump-tests.sh's cache), or $DDF_CAPTURES.
# Every capture whose link type malpkt converts is sent, each record's IP
# packet as it was captured and, where the IPv4 header checksum or the IP
# length disagree with the captured bytes, once more made consistent (so
# it passes ip_rcv() and the rules see its malformed insides). DDF_SOAK=1
# sends the captures three times and makes the built blocks longer.

set -e

exec 3>&1
export LANG=C
snd="ddf-$$-snd"
rcv="ddf-$$-rcv"
tsnd="ddf-$$-tsnd"
trcv="ddf-$$-trcv"
here=$(cd "$(dirname "$0")" && pwd)
: "${DDF_MODULES:=$(cd "$here/../.." && pwd)}"
: "${DDF_SOAK:=0}"
module=$DDF_MODULES/nf_ddf.ko
caps=${DDF_CAPTURES:-$here/../../tcpdump}
seed=00112233445566778899aabbccddeeff
tmp=$(mktemp -d)
blocks=0
t_start=$SECONDS

lib=$here/../lib.bash
[[ -e $lib ]] || lib=$here/../netns/lib.bash
# shellcheck source=tests/netns/lib.bash
. "$lib"

cleanup() {
	set +e
	exec 2>/dev/null
	jobs -p | xargs -r kill
	wait
	for n in "$snd" "$rcv" "$tsnd" "$trcv"; do ip netns del "$n"; done
	rm -rf "$tmp"
	loaded && rmmod nf_ddf
	exit
}
trap cleanup EXIT

if [[ $DDF_SOAK == 1 ]]; then
	rounds=3 trunc_n=3 ext_n=400 frag_n=4 big_n=4 gro_n=40 bulk=16000000
else
	rounds=1 trunc_n=1 ext_n=40 frag_n=1 big_n=1 gro_n=8 bulk=2000000
fi

shopt -s nullglob
capfiles=("$caps"/*.pcap "$caps"/*.pcapng)
shopt -u nullglob
((${#capfiles[@]})) || fail "no tcpdump test captures in $caps: the VM's" \
	"initramfs copies them from the cache scripts/fetch-tcpdump-tests.sh" \
	"fills (make check-tools runs it; run it once, then the lane again)"
command -v malpkt >/dev/null || fail "malpkt is missing (make builds build/robust/malpkt)"

# ---- the rules: NAME HOOK FAMILY ACTION PROTO | words of rule add ----
# Every key form (packet with ignore masks and max-bytes, field lists,
# payload ranges), tunnels opened (tcpdump's VXLAN, Geneve, GRE, ERSPAN and
# GTP captures among the rest), protocol selectors, families ip, ip6 and
# inet, hooks prerouting, input and forward, and filters of several kinds, all on
# packet-count windows, so that ddfctl replay decides as the kernel does.
rules=(
	"pre_pkt pre inet count - family inet key packet filter exact window 4096 action count"
	"pre_pkt4 pre ip mark - family ip key packet ignore ttl,ipv4csum,dscp,ecn,ipid,l4csum max-bytes 64 filter apbbf window 10000 fpr 1e-4 action mark 0x1/0x1"
	"pre_pkt6 pre ip6 count - family ip6 key packet ignore none max-bytes 65535 filter qqhtd window 10000 fpr 1e-4 action count"
	"pre_pkt6m pre ip6 count - family ip6 key packet ignore ttl,dscp,ecn,flowlabel,l4csum filter exact window 1000 action count"
	"pre_5t pre inet count - family inet key saddr,daddr,proto,sport,dport filter apbf window 1000 fpr 1e-3 action count"
	"pre_all pre inet count - family inet key saddr,daddr,proto,sport,dport,ipid,tcpseq,tcpack,icmpid,payload payload 0:4096 filter exact window 4096 action count"
	"pre_pay pre inet count - family inet key payload payload 1000:2000 filter exact window 4096 action count"
	"pre_tcp pre inet count tcp proto tcp key saddr,daddr,sport,dport,tcpseq,tcpack,payload payload 0:2000 filter exact window 4096 action count"
	"pre_udp pre inet count udp proto udp key saddr,daddr,sport,dport,payload payload 0:64 filter exact window 4096 action count"
	"pre_udpl pre inet count udplite proto udplite key sport,dport filter exact window 256 action count"
	"pre_sctp pre inet count sctp proto sctp key sport,dport,payload payload 0:16 filter qht window 1000 fpr 1e-3 action count"
	"pre_icmp pre ip count icmp family ip proto icmp key saddr,daddr,icmpid,payload payload 0:8 filter exact window 1024 action count"
	"pre_icmp6 pre ip6 count icmpv6 family ip6 proto icmpv6 key icmpid,payload payload 0:32 filter exact window 1024 action count"
	"pre_drop pre ip6 drop - family ip6 key packet max-bytes 65535 filter exact window 4096 priority 100 action drop"
	"pre_decap pre inet count - family inet key packet decap vxlan,geneve,gre,erspan,gtpu filter exact window 4096 action count"
	"pre_decap5 pre inet count - family inet key saddr,daddr,proto,sport,dport,payload payload 0:64 decap vxlan:8472,geneve,gre,erspan,gtpu filter exact window 4096 action count"
	"fw_decap fwd ip count udp family ip hook forward proto udp key packet decap vxlan,geneve,gtpu filter apbbf window 4096 fpr 1e-6 action count"
	"in_5t in inet count - family inet hook input key saddr,daddr,proto,sport,dport,payload payload 0:256 filter exact window 1024 action count"
	"in_pkt4 in ip count - family ip hook input key packet max-bytes 65535 ignore none filter exact window 4096 action count"
	"in_drop in inet drop - family inet hook input key packet filter exact window 4096 priority 100 action drop"
	"fw_pkt6 fwd ip6 count - family ip6 hook forward key packet ignore ttl,flowlabel filter exact window 4096 action count"
	"fw_udp fwd ip count udp family ip hook forward proto udp key sport,dport filter exact window 256 action count"
	"fw_drop fwd inet drop - family inet hook forward key saddr,daddr,ipid,payload payload 0:512 filter apbbf window 4096 fpr 1e-6 priority 100 action drop"
	"out_pkt out inet count - family inet hook output key packet ignore ttl,ipv4csum,l4csum filter exact window 4096 action count"
	"out_5t out ip count - family ip hook output key saddr,daddr,proto,sport,dport,payload payload 0:32 filter exact window 4096 action count"
	"out_pkt6 out ip6 count - family ip6 hook output key packet max-bytes 128 filter exact window 4096 action count"
	"out_udp out inet count udp family inet hook output proto udp key sport,dport filter exact window 256 action count"
	"out_drop out inet drop - family inet hook output key packet filter exact window 4096 priority 100 action drop"
)
declare -A group=([pre]=1 [in]=2 [fwd]=3 [out]=4)
# a rule's packets and duplicates in the last block checked
declare -A pk dup
declare -A nfthook=([pre]=prerouting [in]=input [fwd]=forward [out]=output)
hooks="pre in fwd out"

# setup_rules NS DEV: the ddf rules, and the nft table that counts what
# enters from DEV at each hook (leaves by f0 at output) and hands it to
# nflog.
setup_rules() {
	local ns=$1 dev=$2 r name hook words sel
	for r in "${rules[@]}"; do
		read -r name hook _ _ _ words <<<"$r"
		sel="iif $dev"
		[[ $hook != out ]] || sel="oif f0"
		echo "rule add $name $sel seed $seed $words"
	done >"$tmp/rules"
	in_ns "$ns" ddfctl restore <"$tmp/rules" ||
		fail "ddfctl restore refused the rules"
	{
		echo "table inet ddfm {"
		for h in $hooks; do
			sel="iifname \"$dev\""
			[[ $h != out ]] || sel="oifname \"f0\""
			echo "chain c_$h { type filter hook ${nfthook[$h]} priority -1;"
			echo "  $sel meta nfproto ipv4 counter"
			echo "  $sel meta nfproto ipv6 counter"
			echo "  $sel counter log group ${group[$h]}"
			echo "}"
		done
		echo "}"
	} >"$tmp/nft"
	ip netns exec "$ns" nft -f "$tmp/nft" || fail "nft refused the counters"
}

# log_start NS: an nflog listener per hook (until log_stop), ready when
# it returns; they write $tmp/NS-HOOK.pcap.
log_start() {
	local ns=$1 h
	log_pids=()
	for h in $hooks; do
		rm -f "$tmp/ready-$h"
		ip netns exec "$ns" malpkt log -g "${group[$h]}" -w "$tmp/$ns-$h.pcap" \
			-r "$tmp/ready-$h" >"$tmp/$ns-$h.log" &
		log_pids+=($!)
	done
	for h in $hooks; do
		for _ in $(seq 100); do
			[[ -e $tmp/ready-$h ]] && continue 2
			sleep 0.1
		done
		fail "malpkt log did not start"
	done
}

# log_stop NS: once the counters have settled (nothing in flight).
log_stop() {
	snapshot "$1"
	kill -TERM "${log_pids[@]}"
	wait "${log_pids[@]}" || fail "malpkt log failed"
}

# snapshot NS: S[RULE] = "packets bytes duplicates dropped marked
# unparsed" of every rule, N[HOOK.ipv4|ipv6|log] = nft's packets.
# Both are read twice, until a second reading equals the first: a packet
# still queued to a CPU's backlog when the block's sender returned, or
# one the stack sends of itself (an ICMP error, rate-limited by time), is
# then counted by both or by neither. Without that, a reading of the ddf
# counters and one of nft's a few milliseconds later could disagree.
declare -A S N
snapshot() {
	local line h='' try
	for try in $(seq 50); do
		if ! { in_ns "$1" ddfctl stats >"$tmp/stats" &&
			ip netns exec "$1" nft list table inet ddfm >"$tmp/nftc" &&
			in_ns "$1" ddfctl stats >"$tmp/stats2" &&
			ip netns exec "$1" nft list table inet ddfm >"$tmp/nftc2"; }; then
			fail "ddfctl stats or nft list failed"
		fi
		cmp -s "$tmp/stats" "$tmp/stats2" && cmp -s "$tmp/nftc" "$tmp/nftc2" &&
			break
		((try < 50)) || fail "the counters did not settle in 50 readings"
		sleep 0.2
	done
	S=() N=()
	while read -r line; do
		[[ $line =~ ^([a-z0-9_]+):\ packets\ ([0-9]+)\ bytes\ ([0-9]+)\ duplicates\ ([0-9]+)\ dropped\ ([0-9]+)\ marked\ ([0-9]+)\ unparsed\ ([0-9]+)$ ]] ||
			continue
		S[${BASH_REMATCH[1]}]="${BASH_REMATCH[*]:2}"
	done <"$tmp/stats"
	while read -r line; do
		[[ $line =~ ^chain\ c_([a-z]+) ]] && h=${BASH_REMATCH[1]}
		[[ $line =~ (ipv4|ipv6)\ counter\ packets\ ([0-9]+) ]] &&
			N[$h.${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
		[[ $line =~ counter\ packets\ ([0-9]+)\ bytes\ ([0-9]+)\ log ]] &&
			N[$h.log]=${BASH_REMATCH[1]} N[$h.logb]=${BASH_REMATCH[2]}
	done <"$tmp/nftc"
	return 0
}

# rule_check NAME FAMILY ACTION PROTO HOOK "P B D X M U" NFT4 NFT6 [SKIPPED]:
# a rule's counters (of a block or all) hold together; prints them.
rule_check() {
	local name=$1 fam=$2 act=$3 proto=$4 hook=$5 nf p d x m u
	read -r p _ d x m u <<<"$6"
	case $fam in
	ip) nf=$7 ;;
	ip6) nf=$8 ;;
	*) nf=$(($7 + $8)) ;;
	esac
	printf '  %-9s %-4s %-4s %-7s packets %6d dup %5d drop %5d mark %5d unparsed %d | nft %d\n' \
		"$name" "$hook" "$fam" "${proto/-/any}" "$p" "$d" "$x" "$m" "$u" "$nf" >&3
	((d <= p)) || fail "$name: more duplicates ($d) than packets ($p)"
	case $act in
	drop) expect_eq "$x $m" "$d 0" "$name (drop): dropped and marked" ;;
	mark) expect_eq "$x $m" "0 $d" "$name (mark): dropped and marked" ;;
	*) expect_eq "$x $m" "0 0" "$name (count): dropped and marked" ;;
	esac
	# a protocol selector passes over packets uncounted: at most
	if [[ $proto == - ]]; then
		expect_eq "$((p + u))" "$nf" \
			"$name: packets + unparsed, against nft's count of $fam at $hook"
	else
		((p + u <= nf)) ||
			fail "$name: packets + unparsed ($((p + u))) above nft's count of $fam at $hook ($nf)"
	fi
}

# block NAME NS COMMAND...: COMMAND, then what each rule counted in it.
# pk[RULE] and dup[RULE]: its packets and duplicates in the block.
declare -A pk dup
block() {
	local b=$1 ns=$2 t0=$SECONDS r name hook fam act proto h
	local -A S0 N0
	shift 2
	snapshot "$ns"
	for r in "${!S[@]}"; do S0[$r]=${S[$r]}; done
	for r in "${!N[@]}"; do N0[$r]=${N[$r]}; done
	"$@" >"$tmp/$b.out" || fail "$b: '$*' failed: $(cat "$tmp/$b.out")"
	grep -v '^capture ' "$tmp/$b.out" | sed "s/^/$b: /" >&3
	snapshot "$ns"
	for h in $hooks; do
		for r in ipv4 ipv6 log logb; do
			N[$h.$r]=$((N[$h.$r] - N0[$h.$r]))
		done
	done
	echo "$b: packets at the hooks (IPv4/IPv6): prerouting ${N[pre.ipv4]}/${N[pre.ipv6]}," \
		"input ${N[in.ipv4]}/${N[in.ipv6]}, forward ${N[fwd.ipv4]}/${N[fwd.ipv6]}," \
		"output ${N[out.ipv4]}/${N[out.ipv6]}" >&3
	for r in "${rules[@]}"; do
		read -r name hook fam act proto _ <<<"$r"
		[[ -n ${S[$name]} ]] || continue
		local -a a0 a1
		read -ra a0 <<<"${S0[$name]}"
		read -ra a1 <<<"${S[$name]}"
		local dl="" i
		for i in 0 1 2 3 4 5; do dl+="$((a1[i] - a0[i])) "; done
		pk[$name]=$((a1[0] - a0[0]))
		dup[$name]=$((a1[2] - a0[2]))
		((pk[$name] || ${DDF_VERBOSE:-0})) || continue
		rule_check "$name" "$fam" "$act" "$proto" "$hook" "$dl" \
			"${N[$hook.ipv4]}" "${N[$hook.ipv6]}"
	done
	echo "$b: $((SECONDS - t0)) s" >&3
}

# final NS: after the listeners stopped, every rule's totals against nft
# and against ddfctl replay over what nflog saw at its hook, with the same
# words and seed: the kernel, reading skbs of every shape, parses and
# hashes as userspace does over flat bytes.
final() {
	local ns=$1 t0=$SECONDS r name hook fam act proto words h line rp s ni p u
	local -A hookn
	for h in $hooks; do
		line=$(cat "$tmp/$ns-$h.log")
		[[ $line =~ packets\ ([0-9]+)\ bytes\ ([0-9]+)\ lost\ ([0-9]+)\ cut\ ([0-9]+) ]] ||
			fail "malpkt log $h said '$line'"
		hookn[$h]=${BASH_REMATCH[1]}
		expect_eq "${BASH_REMATCH[3]} ${BASH_REMATCH[4]}" "0 0" \
			"packets nflog lost and cut at $h"
	done
	snapshot "$ns"
	for h in $hooks; do
		expect_eq "${N[$h.log]}" "${hookn[$h]}" "packets logged at $h, against nft's count"
		expect_eq "$((N[$h.ipv4] + N[$h.ipv6]))" "${hookn[$h]}" "IPv4 + IPv6 packets at $h"
	done
	echo "all: packets at the hooks (IPv4/IPv6): prerouting ${N[pre.ipv4]}/${N[pre.ipv6]}," \
		"input ${N[in.ipv4]}/${N[in.ipv6]}, forward ${N[fwd.ipv4]}/${N[fwd.ipv6]}," \
		"output ${N[out.ipv4]}/${N[out.ipv6]}" >&3
	for r in "${rules[@]}"; do
		read -r name hook fam act proto words <<<"$r"
		[[ -n ${S[$name]} ]] || continue
		rule_check "$name" "$fam" "$act" "$proto" "$hook" "${S[$name]}" \
			"${N[$hook.ipv4]}" "${N[$hook.ipv6]}"
		# shellcheck disable=SC2086
		ddfctl replay "$tmp/$ns-$hook.pcap" seed $seed $words >"$tmp/replay" ||
			fail "ddfctl replay of $name failed"
		rp='' s='' ni=''
		while read -r line; do
			[[ $line =~ ^packets\ ([0-9]+)\ bytes\ ([0-9]+)\ duplicates\ ([0-9]+)\ dropped\ ([0-9]+)\ marked\ ([0-9]+)\ unparsed\ ([0-9]+)$ ]] &&
				rp="${BASH_REMATCH[*]:1}"
			[[ $line =~ ^skipped\ ([0-9]+)\ not-ip\ ([0-9]+) ]] &&
				s=${BASH_REMATCH[1]} ni=${BASH_REMATCH[2]}
		done <"$tmp/replay"
		# Bytes: the kernel counts skb->len, as nft's counters do;
		# replay, the IP length. The receive path trims an skb to its
		# IP length, but a raw socket's packet at the output hook keeps
		# the bytes after it (an IPv6 payload length shorter than the
		# buffer): there the kernel may count more, never less.
		local -a kc rc
		read -ra kc <<<"${S[$name]}"
		read -ra rc <<<"$rp"
		if [[ $hook == out ]] && ((${#rc[@]} == 6 && kc[1] >= rc[1])); then
			((kc[1] == rc[1])) ||
				echo "  $name: $((kc[1] - rc[1])) bytes after the IP length, counted by the kernel only" >&3
			kc[1]=${rc[1]}
		fi
		if [[ ${kc[*]} != "$rp" ]]; then
			echo "kernel: ${S[$name]}" >&2
			echo "replay: $rp" >&2
			fail "$name: the kernel's counters (packets bytes duplicates dropped marked unparsed) differ from ddfctl replay's over what reached $hook"
		fi
		read -r p _ _ _ _ u <<<"$rp"
		expect_eq "$((p + u + s + ni))" "${hookn[$hook]}" \
			"$name: packets + unparsed + passed over, against the packets at $hook"
	done
	echo "all: the counters of ${#rules[@]} rules equal ddfctl replay's over what nflog saw ($((SECONDS - t0)) s)" >&3
}

if loaded; then pp rmmod nf_ddf; fi
pp insmod "$module"
pp ip netns add "$snd"
pp ip netns add "$rcv"
ip -n "$snd" link set up dev lo
ip -n "$rcv" link set up dev lo
ip -n "$snd" link add s0 type veth peer name r0 netns "$rcv"
ip netns exec "$snd" sysctl -qw net.ipv6.conf.s0.disable_ipv6=1
# the largest packets a capture or malpkt sends
ip -n "$snd" link set dev s0 mtu 65535 up
ip -n "$rcv" link set dev r0 mtu 65535 up
ip -n "$rcv" link add f0 type dummy
# nothing of its own leaves by f0: the output rules see only malpkt's
ip netns exec "$rcv" sysctl -qw net.ipv6.conf.f0.router_solicitations=0
ip netns exec "$rcv" sysctl -qw net.ipv6.conf.f0.addr_gen_mode=1
ip -n "$rcv" link set dev f0 up
# Half of each address space is delivered here, half forwarded to f0 (a
# dummy: it drops what it sends). Sources may be "local" then: accepted.
R ip route add local 0.0.0.0/1 dev lo table local
R ip route add 128.0.0.0/1 dev f0
R ip -6 route add local ::/0 dev lo table local
R ip -6 route add 2000::/4 dev f0 table local
# Fragments that never complete are held for the whole run: a reassembly
# timeout would send an ICMP error by f0 at a moment no block chose (after
# the nflog listeners stopped, say).
for s in net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
	net.ipv4.ipfrag_time=3600 net.ipv6.ip6frag_time=3600 \
	net.ipv4.conf.all.accept_local=1 net.ipv4.conf.r0.accept_local=1 \
	net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.r0.rp_filter=0; do
	ip netns exec "$rcv" sysctl -qw "$s"
done
r0mac=$(mac "$rcv" r0)
sendto=(-i s0 -m "$r0mac")
setup_rules "$rcv" r0
log_start "$rcv"

# ---- tcpdump's captures ----
# Test that every capture of tcpdump's test suite whose link type converts
# goes through every rule with counters that hold together
capblock() {
	local i
	for ((i = 0; i < rounds; i++)); do
		ip netns exec "$snd" malpkt pcap -f "${sendto[@]}" "${capfiles[@]}"
	done
}
block captures "$rcv" capblock
{
	echo "captures: used, by link type:"
	awk '/^capture [^ ]*: link / { n[$4]++ } END { for (l in n) printf "  link type %s: %d\n", l, n[l] }' \
		"$tmp/captures.out" | sort -t: -k2 -rn
	echo "captures: skipped:"
	grep ': skipped: ' "$tmp/captures.out" | sort -u | sed 's/^capture /  /'
} >&3
used=$(($(grep -c '^capture [^ ]*: link ' "$tmp/captures.out") / rounds))
skipped=$(($(grep -c ': skipped: ' "$tmp/captures.out") / rounds))
((used > 0)) || fail "captures: none used"
passed "tcpdump's captures: $used used, $skipped skipped, counters consistent"

# ---- truncated and inconsistent headers ----
# Test that IP headers cut at every length, L4 headers cut at every byte,
# every IHL, lying lengths and TCP data offsets pass every rule with
# consistent counters
block trunc "$rcv" ip netns exec "$snd" malpkt gen trunc "${sendto[@]}" -n "$trunc_n" -c 2
passed "truncated and inconsistent headers: counters consistent"

# ---- IPv6 extension-header chains ----
# Test that chains of up to 16 extension headers lead the key to the UDP
# header (the UDP rule takes them) and longer ones stop at the limit (it
# does not)
block ext "$rcv" ip netns exec "$snd" malpkt gen ext "${sendto[@]}" -n "$ext_n" -c 2
want=$(sed -n 's/.*ending in UDP: \([0-9]*\) within 16 headers.*/\1/p' "$tmp/ext.out")
expect_eq "${pk[pre_udp]}" "$want" "ext: UDP packets the UDP rule took (chains of at most 16 headers)"
passed "IPv6 chains of 0..$ext_n headers: the UDP rule takes the $want within the limit of 16"

# ---- fragments ----
# Test that every copy of a fragment is a duplicate and no two distinct
# fragments are (key packet, exact), overlapping and tiny ones included
block frag "$rcv" ip netns exec "$snd" malpkt gen frag "${sendto[@]}" -n "$frag_n" -c 2
want=$(sed -n 's/.*, \([0-9]*\) distinct fragments.*/\1/p' "$tmp/frag.out")
expect_eq "${dup[pre_pkt]}" "$want" "frag: duplicates of key packet (one per fragment)"
passed "fragments: $want distinct, each copy a duplicate"

# ---- non-linear: paged packets cut at chosen bytes ----
# Test that a paged packet and a linear one with the same first payload
# bytes give the same payload keys, wherever the linear part ends
block big "$rcv" ip netns exec "$snd" malpkt gen big "${sendto[@]}" -n "$big_n"
read -r pairs tcp udp <<<"$(sed -n 's/.*, \([0-9]*\) pairs (\([0-9]*\) TCP, \([0-9]*\) UDP).*/\1 \2 \3/p' "$tmp/big.out")"
expect_eq "${dup[pre_udp]}" "$udp" "big: UDP pairs found duplicates (payload 0:64)"
expect_eq "${dup[pre_tcp]}" "$tcp" "big: TCP pairs found duplicates (payload 0:2000)"
expect_eq "${dup[pre_pay]}" "$pairs" "big: pairs found duplicates (payload 1000:2000)"
passed "paged against linear: $pairs pairs, each a duplicate under three payload keys"

# ---- non-linear: GRO frag_lists ----
# Test that a lone linear packet is a duplicate of the GRO-merged train it
# copies the start of (its key's payload 0:2000 crosses from the head into
# the frag_list), and of nothing without GRO. GRO flushes what it holds
# when a poll ends in a later jiffy than the packet came, so a train sent
# across a tick arrives in two (often under KASAN): a split right behind
# the first segment costs its lone packet's duplicate, and the packets
# that arrived beyond two per train count the splits.
gro() { # on|off BASE
	local t=0
	# GRO holds a train across the polls of its packets for up to 1 s
	[[ $1 == off ]] || t=1000000000
	ip netns exec "$snd" malpkt feature s0 tso off &&
		ip netns exec "$rcv" malpkt feature r0 gro "$1" &&
		ip netns exec "$rcv" sh -c "echo $t >/sys/class/net/r0/gro_flush_timeout" &&
		ip netns exec "$snd" malpkt gen gro "${sendto[@]}" -n "$gro_n" -s "$2"
}
block gro "$rcv" gro on 0
trains=$(sed -n 's/.*, \([0-9]*\) trains.*/\1/p' "$tmp/gro.out")
segs=$(sed -n 's/.*trains of 4 segments (\([0-9]*\)).*/\1/p' "$tmp/gro.out")
splits=$((pk[pre_tcp] - 2 * trains))
echo "gro: $((segs + trains)) packets sent arrived as ${pk[pre_tcp]} ($splits trains in two)," \
	"${dup[pre_tcp]} of $trains lone packets duplicates" >&3
((splits >= 0 && splits < trains)) ||
	fail "gro: the trains arrived as ${pk[pre_tcp]} packets: GRO did not merge them"
((dup[pre_tcp] > 0 && dup[pre_tcp] >= trains - splits && dup[pre_tcp] <= trains)) ||
	fail "gro: ${dup[pre_tcp]} lone packets found duplicates of their merged trains, expected $((trains - splits)) to $trains"
gdup=${dup[pre_tcp]}
block lin "$rcv" gro off 1000
expect_eq "${dup[pre_tcp]}" 0 "lin: lone packets found duplicates without GRO"
ip netns exec "$snd" malpkt feature s0 tso on >/dev/null
passed "GRO: $((trains - splits)) of $trains trains merged whole, $gdup lone copies duplicates; none without GRO"

# ---- the output hook: raw IP sockets ----
# Test that what IPPROTO_RAW sockets hand the output hooks, their headers
# unchecked (an IPv4 hook's packet may say version 6, an IPv6 hook's any
# version), passes every rule with consistent counters
outblock() {
	ip netns exec "$rcv" malpkt gen trunc -R -n "$trunc_n" -c 2 &&
		ip netns exec "$rcv" malpkt pcap -R -f -q "${capfiles[@]}"
}
block out "$rcv" outblock
passed "raw IP sockets at the output hook: counters consistent"

log_stop "$rcv"
final "$rcv"
passed "every rule's counters equal ddfctl replay's over what reached its hook"

# ---- non-linear: TCP through GSO and GRO ----
# Test that real TCP transfers (payload in page-cache fragments at an odd
# offset: sendfile) through veth pass the rules with consistent counters:
# as GSO packets (TSO on), GRO-merged fragments (TSO off, GRO on) and
# GRO-merged frag_lists (SG off, GRO on), IPv4 and IPv6
pp ip netns add "$tsnd"
pp ip netns add "$trcv"
ip -n "$tsnd" link set up dev lo
ip -n "$trcv" link set up dev lo
ip -n "$tsnd" link add t0 type veth peer name t1 netns "$trcv"
# Nothing but the transfers on the wire, so the counters stop with them:
# no router solicitations, no link-local addresses (DAD), fixed neighbours.
for d in "$tsnd t0" "$trcv t1"; do
	read -r n dev <<<"$d"
	ip netns exec "$n" sysctl -qw "net.ipv6.conf.$dev.router_solicitations=0"
	ip netns exec "$n" sysctl -qw "net.ipv6.conf.$dev.addr_gen_mode=1"
done
ip -n "$tsnd" addr add 10.0.2.1/24 dev t0
ip -n "$trcv" addr add 10.0.2.2/24 dev t1
ip -n "$tsnd" addr add fd00:2::1/64 dev t0 nodad
ip -n "$trcv" addr add fd00:2::2/64 dev t1 nodad
ip -n "$tsnd" link set dev t0 up
ip -n "$trcv" link set dev t1 up
t0mac=$(mac "$tsnd" t0)
t1mac=$(mac "$trcv" t1)
ip -n "$tsnd" neigh add 10.0.2.2 lladdr "$t1mac" dev t0 nud permanent
ip -n "$tsnd" neigh add fd00:2::2 lladdr "$t1mac" dev t0 nud permanent
ip -n "$trcv" neigh add 10.0.2.1 lladdr "$t0mac" dev t1 nud permanent
ip -n "$trcv" neigh add fd00:2::1 lladdr "$t0mac" dev t1 nud permanent
# only what the transfers need: forward rules would see nothing here
for i in "${!rules[@]}"; do
	[[ ${rules[i]} != fw_* && ${rules[i]} != out_* ]] || unset 'rules[i]'
done
setup_rules "$trcv" t1
log_start "$trcv"

transfer() { # ADDR [-6]
	rm -f "$tmp/sready"
	ip netns exec "$trcv" malpkt sink ${2:+"$2"} -p 5001 -t 5000 -r "$tmp/sready" >"$tmp/sink" &
	local pid=$! i
	for i in $(seq 100); do
		[[ -e $tmp/sready ]] && break
		sleep 0.1
	done
	ip netns exec "$tsnd" malpkt bulk -d "$1" -p 5001 -n "$bulk" -o 1 || return 1
	wait "$pid" || return 1
	cat "$tmp/sink"
	[[ $(cat "$tmp/sink") == "sink: received $bulk bytes" ]] || return 1
	# the last ACK of the close, before the counters are read
	sleep 0.5
}
tcpblock() {
	transfer 10.0.2.2 && transfer fd00:2::2 -6
}
for mode in gso frags fraglist; do
	case $mode in
	gso) ;;
	frags)
		ip netns exec "$tsnd" malpkt feature t0 tso off >/dev/null
		ip netns exec "$trcv" malpkt feature t1 gro on >/dev/null
		;;
	fraglist)
		# segments sent one by one: GRO holds them across polls
		ip netns exec "$tsnd" malpkt feature t0 sg off >/dev/null
		ip netns exec "$trcv" sh -c 'echo 10000000 >/sys/class/net/t1/gro_flush_timeout'
		;;
	esac
	block "tcp-$mode" "$trcv" tcpblock
	np=${N[pre.log]} nb=${N[pre.logb]}
	avg=$((nb / (np ? np : 1)))
	echo "tcp-$mode: $np packets at prerouting, $avg bytes each on average" >&3
	# most packets are data: GSO or GRO made them longer than the MTU
	((avg > 1500)) || fail "tcp-$mode: packets of $avg bytes on average: neither GSO nor GRO at work"
	passed "TCP $mode: 2 x $bulk bytes, counters consistent"
done
log_stop "$trcv"
final "$trcv"
passed "TCP: every rule's counters equal ddfctl replay's over what reached its hook"

echo "malformed: $blocks blocks passed in $((SECONDS - t_start)) s" >&3
