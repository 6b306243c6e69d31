#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kfunc bpf_ddf_xdp() as a public interface (docs/ddf-xdp.7): the
# example program (examples/xdp/ddf_vxlan.bpf.c), loaded by xdp-loader
# through libxdp's dispatcher, is an extension program (freplace) that the
# verifier lets call the kfunc; beside ddf's own program on another port
# it asks its rule about VXLAN datagrams only: those sent twice reach
# tcpdump on its port once, other datagrams sent twice reach it twice, and
# the rule counts the VXLAN ones alone. The number of a deleted rule, of
# another namespace's and of a rule with a hook make it pass everything
# (-ENOENT, -EINVAL); the loaded example holds the module; unloading it
# leaves the other port's program judging.
#
#   DDF_MODULES=<directory with nf_ddf.ko> DDF_EXAMPLE=<ddf_vxlan.bpf.o> \
#       tests/netns/kfunc.sh
#   (ddfctl, ddfpkt, ddf_spangen, tcpdump, xdp-loader and bpftool in
#   $PATH, bpffs at /sys/fs/bpf)
#
# ┌──────────────────┐        ┌──────────────────────────────────────────┐
# │ $snd             │  veth  │ $rcv                                     │
# │  s0 ─────────────┼────────┼─ m0 (A): ddf's program, rule a           │
# │  s1 ─────────────┼────────┼─ m1 (B): ddf_vxlan by xdp-loader, rule b │
# │  ddfpkt send     │        │  tcpdump -i m0, tcpdump -i m1            │
# └──────────────────┘        └──────────────────────────────────────────┘
#
# Every block begins with "# Test that ..." and asserts; a failed
# assertion stops the script and fails it.

set -e

exec 3>&1
export LANG=C
snd="ddfkf-$$-snd"
rcv="ddfkf-$$-rcv"
here=$(cd "$(dirname "$0")" && pwd)
: "${DDF_MODULES:=$(cd "$here/../.." && pwd)}"
# where the VMs have it (tests/qemu/initramfs.sh)
: "${DDF_EXAMPLE:=/ddf/examples/ddf_vxlan.bpf.o}"
module=$DDF_MODULES/nf_ddf.ko
pin=/sys/fs/bpf/ddfkf-$$
tmp=$(mktemp -d)
blocks=0
# exact: no false positive can take a datagram away
small=(filter exact window 1000)
n=12 # datagrams of each kind, each sent twice
declare -A cap_pid

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/netns/capture.bash
. "$(dirname "$0")/capture.bash"

# xdp-loader in $rcv's network namespace alone: ip netns exec mounts the
# namespace's own sysfs over /sys, hiding bpffs, where libxdp keeps its
# dispatchers and the example's maps are pinned (bpftool, which names no
# device, runs where the script does)
L() { pretty rcv "$*"; nsenter --net="/run/netns/$rcv" "$@"; }

cleanup() {
	set +e
	exec 2>/dev/null
	nsenter --net="/run/netns/$rcv" xdp-loader unload m1 --all
	rm -rf "$pin"
	capture_cleanup
}
trap cleanup EXIT

if [[ ! -e /sys/kernel/btf/vmlinux ]]; then
	echo "kfunc.sh: skipped: kernel $(uname -r) has no BTF" \
		"(CONFIG_DEBUG_INFO_BTF), so no XDP program can call nf_ddf"
	exit 0
fi
for t in xdp-loader bpftool nsenter; do
	command -v "$t" >/dev/null || fail "no $t in PATH"
done
[[ -e $DDF_EXAMPLE ]] || fail "no example program $DDF_EXAMPLE (make all builds it)"
grep -q '^[^ ]* /sys/fs/bpf bpf ' /proc/mounts ||
	fail "no bpffs at /sys/fs/bpf (libxdp needs it)"
capture_setup
ip -n "$snd" link add s1 type veth peer name m1 netns "$rcv"
ip -n "$rcv" link set m0 address 02:00:00:00:00:a0
ip -n "$rcv" link set m1 address 02:00:00:00:00:b0
for d in s0 s1; do ip -n "$snd" link set "$d" up; done
for d in m0 m1; do ip -n "$rcv" link set "$d" up; done

pp insmod "$module"
[[ -e /sys/kernel/btf/nf_ddf ]] ||
	fail "nf_ddf.ko has no BTF (scripts/module-btf.sh did not write it)"

# rule_id NS RULE: the rule's number, as a program is told it
rule_id() {
	in_ns "$1" ddfctl -j show "$2" | sed -n 's/.*"id": \([0-9]*\).*/\1/p'
}
# tell ID: the example's rule number (4 bytes in the host's order)
tell() {
	local b
	b=$(printf '%d %d %d %d' $(($1 & 255)) $(($1 >> 8 & 255)) \
		$(($1 >> 16 & 255)) $(($1 >> 24 & 255)))
	# shellcheck disable=SC2086
	pp bpftool map update pinned "$pin/vxlan_rule" key 0 0 0 0 value $b
}
# last: what the kfunc last returned to the example (its map vxlan_last)
last() {
	bpftool map dump pinned "$pin/vxlan_last" |
		sed -n 's/.*"value": \(-\{0,1\}[0-9]*\).*/\1/p'
}
# ports NAME: dport[P]=the records of $tmp/NAME.pcap to UDP port P, from
# one tcpdump (-q: "IP SRC.PORT > DST.PORT: UDP, length N")
declare -A dport
ports() {
	local dst
	dport=()
	tcpdump -Z root -q -n -t -r "$tmp/$1.pcap" >"$tmp/ports" 2>/dev/null
	while read -r _ _ _ dst _; do
		dst=${dst%:}
		dport[${dst##*.}]=$((${dport[${dst##*.}]:-0} + 1))
	done <"$tmp/ports"
}
# until_records NAME N: have=the records of $tmp/NAME.pcap, once it holds
# N (20 s at most)
until_records() {
	for _ in $(seq 100); do
		have=$(records "$tmp/$1.pcap")
		((have >= $2)) && return
		sleep 0.2
	done
}
# udp PORT DPORT [6]: $n new datagrams to UDP port DPORT, each sent twice
# out of PORT (s0 reaches m0, s1 m1), over IPv4 or (6) IPv6. Only the
# network namespace is entered: a packet socket needs no sysfs.
first=0
udp() {
	local m=02:00:00:00:00:b0 a=(-s 10.9.0.1 -d 10.9.0.2)
	[[ $1 == s0 ]] && m=02:00:00:00:00:a0
	[[ ${3:-} == 6 ]] && a=(-s fd00::1 -d fd00::2)
	a=(-i "$1" -m "$m" "${a[@]}" -D "$2" -f "$first" -n "$n" -c 2)
	pretty snd "ddfpkt send ${a[*]}"
	nsenter --net="/run/netns/$snd" ddfpkt send "${a[@]}" >/dev/null
	first=$((first + n))
}

# Test that xdp-loader loads the example through libxdp's dispatcher, as
# an extension program (BPF_PROG_TYPE_EXT) whose target is the
# dispatcher, and that the verifier lets it call the kfunc; beside ddf's
# own program on m0.
R ddfctl rule add a family netdev hook none dev m0 "${small[@]}" action drop
R ddfctl rule add b family netdev hook none dev m1 "${small[@]}" action drop
R ddfctl xdp attach dev m0 rule a >/dev/null
if ! L xdp-loader load -p "$pin" -P 20 m1 "$DDF_EXAMPLE" >"$tmp/load" 2>&1; then
	cat "$tmp/load" >&2
	grep -q 'calling kernel function bpf_ddf_xdp is not allowed' "$tmp/load" &&
		fail "the verifier refuses the kfunc to an extension program on $(uname -r)"
	fail "xdp-loader load of the example failed"
fi
L xdp-loader status m1 | tee "$tmp/status" >&3
if ! grep -q 'xdp_dispatcher' "$tmp/status" || ! grep -q 'ddf_vxlan' "$tmp/status"; then
	fail "xdp-loader status shows no dispatcher with ddf_vxlan: $(cat "$tmp/status")"
fi
bpftool prog show name ddf_vxlan | tee "$tmp/prog" >&3
grep -qE '^[0-9]+: ext +name ddf_vxlan ' "$tmp/prog" ||
	fail "ddf_vxlan is not an extension program: $(cat "$tmp/prog")"
prog_id=$(sed -n 's/^\([0-9]*\): ext .*/\1/p' "$tmp/prog")
idb=$(rule_id "$rcv" b)
[[ $idb =~ ^[1-9][0-9]*$ ]] || fail "rule b's number: '$idb'"
tell "$idb"
passed "the example loaded by xdp-loader is an extension program (ext, id $prog_id) calling the kfunc"

# Test that on m1 the example asks rule b about VXLAN datagrams alone: of
# the VXLAN datagrams sent twice tcpdump gets each once, of the others
# each twice; b counts only the VXLAN frames. On m0 ddf's program judges
# every frame by rule a.
cap_start "$rcv" m0 a1
cap_start "$rcv" m1 b1
udp s1 4789
udp s1 4789 6
udp s1 5000
udp s0 5000
cap_stop a1 $n b1 $((2 * n + 2 * n))
ports b1
expect_eq "${dport[4789]:-0}" $((2 * n)) "m1: VXLAN datagrams (each once)"
expect_eq "${dport[5000]:-0}" $((2 * n)) "m1: other datagrams (each twice)"
expect_eq "${got[b1]}" $((4 * n)) "m1: frames"
rule_ctrs "$rcv" b
expect_eq "${ctr[packets]} ${ctr[duplicates]} ${ctr[dropped]}" \
	"$((4 * n)) $((2 * n)) $((2 * n))" "rule b: packets, duplicates, dropped"
expect_eq "$(last)" 2 "vxlan_last after a copy (DDF_XDP_DROP)"
expect_eq "${got[a1]}" $n "m0: frames (each once)"
rule_ctrs "$rcv" a
expect_eq "${ctr[packets]} ${ctr[dropped]}" "$((2 * n)) $n" "rule a: packets, dropped"
pretty rcv "m1: $((2 * n)) of $((4 * n)) VXLAN frames and all $((2 * n)) others; m0: $n of $((2 * n))"
passed "the example judges VXLAN by its rule, passes the rest; ddf's program beside it judges all"

# Test that the example passes every frame when its number names no rule
# it may use: another namespace's rule (-ENOENT), a rule with a netdev
# hook (-EINVAL), a deleted rule (-ENOENT); none of them counts a frame.
S ddfctl rule add far family netdev hook none dev s0 "${small[@]}" action drop
R ddfctl rule add hooked family netdev hook ingress dev m0 "${small[@]}" action drop
cap_start "$rcv" m1 b2
k=0
for r in far:-2 hooked:-22 b:-2; do
	name=${r%%:*}
	ns=$rcv
	[[ $name == far ]] && ns=$snd
	num=$(rule_id "$ns" "$name")
	[[ $num =~ ^[1-9][0-9]*$ ]] || fail "rule $name's number: '$num'"
	[[ $name == b ]] && R ddfctl rule del b
	tell "$num"
	udp s1 4789
	k=$((k + 2 * n))
	until_records b2 $k
	expect_eq "$have" $k "m1 with rule $name's number: frames"
	expect_eq "$(last)" "${r#*:}" "vxlan_last with rule $name's number"
done
cap_stop b2 $k
expect_eq "${got[b2]}" $k "m1: every VXLAN frame"
expect_eq "$(rule_ctr "$snd" far packets)" 0 "rule far: packets"
expect_eq "$(rule_ctr "$rcv" hooked packets)" 0 "rule hooked: packets"
R ddfctl rule del hooked
S ddfctl rule del far
passed "another namespace's rule, a hooked rule and a deleted one: every frame passes"

# Test that the loaded example holds nf_ddf, though no ddf program is
# attached anywhere.
R ddfctl xdp detach dev m0
if rmmod nf_ddf 2>"$tmp/rmmod"; then
	fail "rmmod nf_ddf succeeded while the example was loaded"
fi
pretty "" "rmmod nf_ddf with the example loaded: $(cat "$tmp/rmmod")"
R ddfctl xdp attach dev m0 rule a >/dev/null
passed "the example holds the module"

# Test that unloading the example (xdp-loader) leaves m1 with no program
# and m0 with ddf's, judging as before; then, with ddf's detached too,
# nothing holds the module.
L xdp-loader unload m1 --all
L xdp-loader status m1 | tee "$tmp/status" >&3
grep -q 'ddf_vxlan' "$tmp/status" && fail "ddf_vxlan is still on m1"
rm -rf "$pin"
cap_start "$rcv" m0 a3
cap_start "$rcv" m1 b3
udp s0 5000
udp s1 4789
cap_stop a3 $n b3 $((2 * n))
expect_eq "${got[a3]}" $n "m0 after the example's unload: frames (each once)"
expect_eq "${got[b3]}" $((2 * n)) "m1 after the example's unload: frames (all)"
expect_eq "$(rule_ctr "$rcv" a dropped)" $((2 * n)) "rule a: dropped"
R ddfctl xdp detach dev m0
R ddfctl rule flush
# the programs are freed after an RCU grace period: a few tries
for _ in $(seq 25); do
	rmmod nf_ddf 2>"$tmp/rmmod" && break
	sleep 0.2
done
loaded && fail "nf_ddf still held after the programs went: $(cat "$tmp/rmmod")"
passed "unloading the example leaves ddf's program judging, and frees the module"

echo "kfunc.sh: $blocks blocks passed" >&3
