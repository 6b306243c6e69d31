#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A capture box whose tools capture on the mirror port itself. Packet taps
# run before netfilter, so only XDP can take a copy away before tcpdump on
# the port sees it: a rule of family netdev and hook none, judged by ddf's
# XDP program (ddfctl xdp attach), must leave on the port exactly what
# ddf_spangen says a rule keeps, byte for byte, in native mode (veth) and
# in generic mode, as ddfctl replay keeps them offline; decide as a netdev
# ingress rule does on the same frames; count what it dropped; pass everything once detached or once its
# rule is gone; and hold the module while attached.
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/netns/xdp.sh
#   (ddfctl, ddfpkt, ddf_spangen and tcpdump in $PATH)
#
# ┌──────────────────┐        ┌────────────────────────────────────────┐
# │ $snd             │  veth  │ $rcv, the capture box                  │
# │  s0 ─────────────┼────────┼─ m0 promiscuous: the mirror port,      │
# │  ddfpkt replay -E│        │    ddf's XDP program, tcpdump -i m0    │
# └──────────────────┘        └────────────────────────────────────────┘
#
# Every block begins with "# Test that ..." and asserts; a failed
# assertion stops the script and fails it.

set -e

exec 3>&1
export LANG=C
snd="ddfxdp-$$-snd"
rcv="ddfxdp-$$-rcv"
here=$(cd "$(dirname "$0")" && pwd)
: "${DDF_MODULES:=$(cd "$here/../.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
tmp=$(mktemp -d)
blocks=0
seed=00112233445566778899aabbccddeeff
rule="window 1000000 fpr 1e-6 seed $seed"
declare -A cap_pid

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/netns/capture.bash
. "$(dirname "$0")/capture.bash"

trap capture_cleanup EXIT

if [[ ! -e /sys/kernel/btf/vmlinux ]]; then
	echo "xdp.sh: skipped: kernel $(uname -r) has no BTF" \
		"(CONFIG_DEBUG_INFO_BTF), so no XDP program can call nf_ddf"
	exit 0
fi
capture_setup
ip -n "$snd" link set up dev s0
ip -n "$rcv" link set m0 promisc on up

pp insmod "$module"
[[ -e /sys/kernel/btf/nf_ddf ]] ||
	fail "nf_ddf.ko has no BTF (scripts/module-btf.sh did not write it)"
scenarios="ttl vlan vxlan encap"
for s in $scenarios; do gen "$s"; done

# through S MODE SCENARIO VARIANT: the scenario's frames into the port with
# the variant's rule judged by XDP in MODE; the capture on m0 must be the
# generator's kept frames, and the counters its numbers.
through() {
	local mode=$1 s=$2 v=$3 n k d
	n=$(want "$s" "$v" records)
	k=$(want "$s" "$v" kept)
	d=$(want "$s" "$v" duplicates)
	# shellcheck disable=SC2046
	R ddfctl rule add span family netdev hook none dev m0 $rule \
		$(words "$v") action drop
	R ddfctl xdp attach dev m0 rule span mode "$mode" >/dev/null
	cap_start "$rcv" m0 "$s-$v-$mode"
	mirror "$s"
	expect_eq "$sent" "$n 0" "$s $v ($mode): frames sent, dropped"
	cap_stop "$s-$v-$mode" "$k"
	expect_eq "${got[$s-$v-$mode]}" "$k" "$s $v ($mode): frames tcpdump got on m0"
	same_bytes "$tmp/$s-$v-$mode.pcap" "$tmp/$s/kept-$v.pcap" \
		"$s $v ($mode)"
	expect_eq "$(rule_ctr "$rcv" span packets)" "$n" "$s $v ($mode): packets"
	expect_eq "$(rule_ctr "$rcv" span duplicates)" "$d" "$s $v ($mode): duplicates"
	expect_eq "$(rule_ctr "$rcv" span dropped)" "$d" "$s $v ($mode): dropped"
	R ddfctl xdp detach dev m0
	R ddfctl rule del span
	# replay decides as the program did: it keeps what tcpdump got
	# shellcheck disable=SC2046
	replay_keeps "$s" "$v" "$tmp/$s-$v-$mode.pcap" family netdev \
		hook none dev m0 $rule $(words "$v") action drop
	pretty rcv "$s $v ($mode): tcpdump -i m0 got $k of $n frames, $d dropped"
}

# Test that without ddf's program tcpdump on the port gets every frame.
for s in $scenarios; do
	n=$(want "$s" default records)
	cap_start "$rcv" m0 "$s-none"
	mirror "$s"
	cap_stop "$s-none" "$n"
	expect_eq "${got[$s-none]}" "$n" "$s without XDP: frames on m0"
	same_bytes "$tmp/$s-none.pcap" "$tmp/$s/sent.pcap" "$s without XDP"
done
passed "no program: tcpdump on m0 gets every frame"

# Test that the verifier takes the program and that, in the driver (veth's
# native XDP), tcpdump on the port itself gets each packet once, as the
# rule keeps it: plain copies a hop older, copies on two VLANs (default:
# distinct; ignore vlan: one), copies from other VXLAN endpoints (decap).
through native ttl default
through native vlan default
through native vlan ignore-ttl,ipv4csum,vlan
through native vxlan decap-vxlan
through native encap default
passed "native XDP: tcpdump -i m0 sees each packet once, byte for byte"

# Test that generic XDP (after the driver, any device) does the same.
through generic ttl default
through generic vxlan decap-vxlan
passed "generic XDP: the same frames"

# Test that XDP and a netdev ingress rule decide alike on the same frames:
# both count only, with the same seed and shape; every counter agrees.
R ddfctl rule add viaxdp family netdev hook none dev m0 $rule action count
R ddfctl rule add viahook family netdev hook ingress dev m0 $rule action count
R ddfctl xdp attach dev m0 rule viaxdp >/dev/null
for s in $scenarios; do mirror "$s"; done
for w in packets bytes duplicates unparsed; do
	x=$(rule_ctr "$rcv" viaxdp "$w")
	expect_eq "$(rule_ctr "$rcv" viahook "$w")" "$x" "$w: ingress hook vs XDP"
done
expect_ge "$(rule_ctr "$rcv" viaxdp duplicates)" 1 "duplicates counted"
pretty rcv "XDP and ingress: $(rule_ctr "$rcv" viaxdp packets) packets, $(rule_ctr "$rcv" viaxdp duplicates) duplicates each"
R ddfctl xdp detach dev m0
R ddfctl rule del viaxdp
R ddfctl rule del viahook
passed "XDP and the netdev ingress hook: the same decisions"

# Test that show lists the attachment, that wrong requests are refused in
# words, and that detach restores full delivery.
R ddfctl rule add span family netdev hook none dev m0 $rule action drop
R ddfctl rule add hooked family netdev hook ingress dev m0 $rule
R ddfctl xdp attach dev m0 rule span >/dev/null
R ddfctl xdp show | tee "$tmp/show" >&3
grep -q "^m0: native rule span (id [0-9]*)$" "$tmp/show" || fail "xdp show: $(cat "$tmp/show")"
R ddfctl show span | grep -q "xdp id [0-9]* on m0 (native)" || fail "show span lists no attachment"
refused() {
	local want=$1 out
	shift
	if out=$(ip netns exec "$rcv" ddfctl "$@" 2>&1); then
		fail "ddfctl $*: accepted"
	fi
	[[ $out == *"$want"* ]] || fail "ddfctl $*: '$out' does not say '$want'"
	pretty rcv "ddfctl $*: $out"
}
refused "has an XDP program already" xdp attach dev m0 rule span
refused "XDP takes a rule of family netdev hook none" xdp attach dev lo rule hooked
refused "is for dev m0, not lo" xdp attach dev lo rule span
refused "no rule named 'nosuch'" xdp attach dev m0 rule nosuch
refused "no device 'nosuch0' here" xdp attach dev nosuch0 rule span
refused "lo has no ddf XDP program" xdp detach dev lo
refused "mode 'fast' is not native or generic" xdp attach dev m0 rule span mode fast
R ip link add d0 type dummy
R ddfctl rule add dum family netdev hook none dev d0 $rule
refused "d0's driver has no native XDP (mode generic works on any device)" \
	xdp attach dev d0 rule dum mode native
R ddfctl xdp attach dev d0 rule dum | tee "$tmp/out" >&3
grep -q "^d0: no native XDP in its driver: attached in generic mode$" "$tmp/out" ||
	fail "attach without a mode on a dummy: $(cat "$tmp/out")"
R ddfctl xdp detach dev d0
R ddfctl rule del dum
R ip link del d0
R ddfctl rule del hooked
R ddfctl xdp detach dev m0
n=$(want ttl default records)
cap_start "$rcv" m0 detached
mirror ttl
cap_stop detached "$n"
expect_eq "${got[detached]}" "$n" "after detach: frames on m0"
passed "show lists the attachment; errors in words; detach restores delivery"

# Test that a module without BTF works, without the kfunc, and that
# attaching says why (the lanes build nf_ddf-nobtf.ko: .BTF removed).
if [[ -e $DDF_MODULES/nf_ddf-nobtf.ko ]]; then
	R ddfctl rule flush
	pp rmmod nf_ddf
	pp insmod "$DDF_MODULES/nf_ddf-nobtf.ko"
	R ddfctl rule add span family netdev hook none dev m0 $rule action drop
	refused "nf_ddf was built without BTF, so XDP programs cannot call it" \
		xdp attach dev m0 rule span
	dmesg | grep -q "nf_ddf: no XDP kfunc" || fail "no word of the kfunc in the kernel log"
	R ddfctl rule del span
	pp rmmod nf_ddf
	pp insmod "$module"
	R ddfctl rule add span family netdev hook none dev m0 $rule action drop
	passed "a module without BTF: rules work, XDP is refused in words"
else
	echo "xdp.sh: the module without BTF is not there: its block is skipped" >&3
fi

# Test that the module cannot go while a program holds it, and that a rule
# deleted under its program leaves the program passing every frame.
R ddfctl xdp attach dev m0 rule span >/dev/null
if rmmod nf_ddf 2>"$tmp/rmmod"; then
	fail "rmmod nf_ddf succeeded with an XDP program attached"
fi
pretty "" "rmmod nf_ddf while attached: $(cat "$tmp/rmmod")"
R ddfctl rule del span
R ddfctl xdp show | tee "$tmp/show" >&3
grep -q "^m0: native rule id [0-9]* (gone" "$tmp/show" || fail "xdp show after delete: $(cat "$tmp/show")"
cap_start "$rcv" m0 gone
mirror ttl
cap_stop gone "$n"
expect_eq "${got[gone]}" "$n" "rule deleted under XDP: frames on m0"
R ddfctl xdp detach dev m0
pp rmmod nf_ddf
pp insmod "$module"
passed "the module is held while attached; a deleted rule passes everything"

# Test that under traffic, rules deleted under their programs, programs
# attached and detached in both modes, and the module unloaded once they
# are gone leave the kernel running (its log, KASAN, lockdep and kmemleak
# in the debug lane, are the lane's to check).
flood() {
	while [[ ! -e $tmp/stop ]]; do
		ip netns exec "$snd" ddfpkt replay -E -i s0 -W 0 \
			"$tmp/encap/sent.pcap" >/dev/null 2>&1 || true
	done
}
rm -f "$tmp/stop"
flood &
flood_pid=$!
for i in 1 2 3 4 5 6; do
	mode=native
	((i % 2)) || mode=generic
	ip netns exec "$rcv" ddfctl rule add churn family netdev hook none \
		dev m0 $rule action drop
	ip netns exec "$rcv" ddfctl xdp attach dev m0 rule churn mode $mode >/dev/null
	sleep 0.3
	if ((i % 3)); then
		ip netns exec "$rcv" ddfctl rule del churn # under its program
		sleep 0.2
		ip netns exec "$rcv" ddfctl xdp detach dev m0
	else
		ip netns exec "$rcv" ddfctl xdp detach dev m0
		ip netns exec "$rcv" ddfctl rule del churn
	fi
	rmmod nf_ddf 2>/dev/null || fail "rmmod nf_ddf under traffic, program detached"
	insmod "$module"
done
touch "$tmp/stop"
wait "$flood_pid"
pretty rcv "6 cycles of rule add, attach, delete, detach and module reload under traffic"
passed "churn under traffic: rule deletion, detach and unload"

echo "xdp.sh: $blocks blocks passed" >&3
