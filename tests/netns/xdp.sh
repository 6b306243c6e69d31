#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A capture box whose tools capture on the mirror port itself. Packet taps
# run before netfilter, so only XDP can take a copy away before tcpdump on
# the port sees it: a rule of family netdev and hook none, judged by ddf's
# XDP program (ddfctl xdp attach), must leave on the port exactly what
# ddf_spangen says a rule keeps, byte for byte, in native mode (veth) and
# in generic mode, as ddfctl replay keeps them offline; decide as a netdev
# ingress rule does on the same frames; count what it dropped; take jumbo
# frames (MTU 9000, multi-buffer XDP) natively and key them whole; pass
# everything once detached or once its rule is gone; and hold the module
# while attached. save writes the attachments, restore brings them back
# after a module reload, and apply replaces only the rules whose lines
# changed.
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
	rule_ctrs "$rcv" span
	expect_eq "${ctr[packets]}" "$n" "$s $v ($mode): packets"
	expect_eq "${ctr[duplicates]}" "$d" "$s $v ($mode): duplicates"
	expect_eq "${ctr[dropped]}" "$d" "$s $v ($mode): dropped"
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
rule_ctrs "$rcv" viahook
declare -A hook
for w in "${!ctr[@]}"; do hook[$w]=${ctr[$w]}; done
rule_ctrs "$rcv" viaxdp
for w in packets bytes duplicates unparsed; do
	expect_eq "${hook[$w]}" "${ctr[$w]}" "$w: ingress hook vs XDP"
done
expect_ge "${ctr[duplicates]}" 1 "duplicates counted"
pretty rcv "XDP and ingress: ${ctr[packets]} packets, ${ctr[duplicates]} duplicates each"
R ddfctl xdp detach dev m0
R ddfctl rule del viaxdp
R ddfctl rule del viahook
passed "XDP and the netdev ingress hook: the same decisions"

# Test that jumbo frames take the program: with MTU 9000 at both ends of
# the veth (which then hands XDP multi-buffer frames, and refuses a program
# not declared for them), it attaches natively and keys each frame whole.
# UDP datagrams of 9000 bytes, IPv4 and IPv6, whose payloads differ only
# in their last bytes (behind the linear part), every other one sent twice:
# tcpdump on m0 gets each once, byte for byte what ddfctl replay keeps of
# what left s0; the rule counts every frame with its 9000 bytes and the
# copies; natively and in generic mode. Then a netdev ingress rule counts
# the same frames as XDP does, under the whole-packet and the frame key.
jumbo_words="max-bytes 65535 ignore ttl,ipv4csum,ipid,l4csum"
jn=40 # datagrams per family: even indices twice, odd ones once
jframes=$((2 * jn * 3 / 2))
jcopies=$((2 * jn / 2))
jumbo_send() {
	local m out4 out6
	m=$(mac "$rcv" m0)
	out4=$(S taskset -c 0 ddfpkt send -i s0 -m "$m" -s 10.9.0.1 \
		-d 10.9.0.2 -n $jn -l 8972 -c 2,1 -X -W 200)
	out6=$(S taskset -c 0 ddfpkt send -i s0 -m "$m" -s fd00::1 \
		-d fd00::2 -n $jn -l 8952 -c 2,1 -X -W 200)
	expect_eq "$out4 $out6" "ddfpkt: sent $jn datagrams, $((jn * 3 / 2)) packets ddfpkt: sent $jn datagrams, $((jn * 3 / 2)) packets" \
		"jumbo datagrams sent"
}
# jumbo_wait RULE: until RULE has counted every frame (or 10 s passed)
jumbo_wait() {
	for _ in $(seq 50); do
		(($(rule_ctr "$rcv" "$1" packets) >= jframes)) && return
		sleep 0.2
	done
}
R ip link set m0 mtu 9000
S ip link set s0 mtu 9000
for mode in native generic; do
	# shellcheck disable=SC2086
	R ddfctl rule add jumbo family netdev hook none dev m0 $rule \
		$jumbo_words action drop
	R ddfctl xdp attach dev m0 rule jumbo mode $mode
	R ddfctl xdp show | grep -q "^m0: $mode rule jumbo " ||
		fail "jumbo: not attached in $mode mode: $(in_ns "$rcv" ddfctl xdp show)"
	cap_start "$snd" s0 "jumbo-sent-$mode"
	cap_start "$rcv" m0 "jumbo-$mode"
	jumbo_send
	cap_stop "jumbo-sent-$mode" "$jframes" "jumbo-$mode" $((2 * jn))
	expect_eq "${got[jumbo-sent-$mode]}" "$jframes" "jumbo ($mode): frames out of s0"
	expect_eq "${got[jumbo-$mode]}" $((2 * jn)) "jumbo ($mode): frames tcpdump got on m0"
	rule_ctrs "$rcv" jumbo
	expect_eq "${ctr[packets]}" "$jframes" "jumbo ($mode): packets"
	expect_eq "${ctr[bytes]}" $((jframes * 9000)) "jumbo ($mode): bytes (9000 a packet)"
	expect_eq "${ctr[duplicates]}" "$jcopies" "jumbo ($mode): duplicates"
	expect_eq "${ctr[dropped]}" "$jcopies" "jumbo ($mode): dropped"
	expect_eq "${ctr[unparsed]}" 0 "jumbo ($mode): unparsed"
	R ddfctl xdp detach dev m0
	R ddfctl rule del jumbo
	# shellcheck disable=SC2086
	ddfctl replay "$tmp/jumbo-sent-$mode.pcap" -w "$tmp/jumbo-replay-$mode.pcap" \
		family netdev hook none dev m0 $rule $jumbo_words action drop \
		>"$tmp/sum" || fail "ddfctl replay: $(cat "$tmp/sum")"
	grep -q "^packets $jframes .* duplicates $jcopies dropped $jcopies " "$tmp/sum" ||
		fail "jumbo ($mode): ddfctl replay counts other packets: $(cat "$tmp/sum")"
	same_bytes "$tmp/jumbo-$mode.pcap" "$tmp/jumbo-replay-$mode.pcap" "jumbo ($mode)"
	pretty rcv "jumbo ($mode): tcpdump -i m0 got $((2 * jn)) of $jframes frames of 9014 bytes, $jcopies dropped"
done
for key in "$jumbo_words" "key frame"; do
	# shellcheck disable=SC2086
	R ddfctl rule add viaxdp family netdev hook none dev m0 $rule $key action count
	# shellcheck disable=SC2086
	R ddfctl rule add viahook family netdev hook ingress dev m0 $rule $key action count
	R ddfctl xdp attach dev m0 rule viaxdp mode native >/dev/null
	jumbo_send
	jumbo_wait viahook
	rule_ctrs "$rcv" viahook
	for w in "${!ctr[@]}"; do hook[$w]=${ctr[$w]}; done
	rule_ctrs "$rcv" viaxdp
	for w in packets bytes duplicates unparsed; do
		expect_eq "${hook[$w]}" "${ctr[$w]}" "jumbo, $key: $w: ingress hook vs XDP"
	done
	expect_eq "${ctr[packets]}" "$jframes" "jumbo, $key: packets"
	expect_eq "${ctr[duplicates]}" "$jcopies" "jumbo, $key: duplicates"
	pretty rcv "jumbo, $key: XDP and ingress: ${ctr[unparsed]} unparsed, ${ctr[packets]} packets, ${ctr[bytes]} bytes, ${ctr[duplicates]} duplicates each"
	R ddfctl xdp detach dev m0
	R ddfctl rule del viaxdp
	R ddfctl rule del viahook
done
R ip link set m0 mtu 1500
S ip link set s0 mtu 1500
passed "jumbo frames (MTU 9000): native XDP keys them whole, as netdev ingress does"

# Test that show lists the attachment, that wrong requests are refused in
# words, and that detach restores full delivery.
R ddfctl rule add span family netdev hook none dev m0 $rule action drop
R ddfctl rule add hooked family netdev hook ingress dev m0 $rule
R ddfctl xdp attach dev m0 rule span >/dev/null
R ddfctl xdp show | tee "$tmp/show" >&3
grep -q "^m0: native rule span (id [0-9]*) priority 5$" "$tmp/show" || fail "xdp show: $(cat "$tmp/show")"
R ddfctl show span | grep -q "xdp id [0-9]* on m0 (native, priority 5)" || fail "show span lists no attachment"
refused() {
	local want=$1 out
	shift
	if out=$(in_ns "$rcv" ddfctl "$@" 2>&1); then
		fail "ddfctl $*: accepted"
	fi
	[[ $out == *"$want"* ]] || fail "ddfctl $*: '$out' does not say '$want'"
	pretty rcv "ddfctl $*: $out"
}
refused "m0 has ddf's XDP program already" xdp attach dev m0 rule span
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
grep -q "^m0: native rule id [0-9]* priority 5 (gone" "$tmp/show" || fail "xdp show after delete: $(cat "$tmp/show")"
cap_start "$rcv" m0 gone
mirror ttl
cap_stop gone "$n"
expect_eq "${got[gone]}" "$n" "rule deleted under XDP: frames on m0"
R ddfctl xdp detach dev m0
pp rmmod nf_ddf
pp insmod "$module"
passed "the module is held while attached; a deleted rule passes everything"

# Test that save writes each port's XDP attachment after the rules, in the
# mode it has, and that after a module reload restore brings the rules and
# the attachments back: the port has ddf's program again, in that mode,
# tcpdump on it gets each packet once, and save writes the same file.
n=$(want ttl default records)
k=$(want ttl default kept)
d=$(want ttl default duplicates)
R ip link add d0 type dummy
R ip link set d0 up
R ddfctl rule add span family netdev hook none dev m0 $rule action drop
# (rules other than span of a kind sized at once: apbbf's sizing costs
# seconds under emulation)
small="filter qqhtd window 1000"
R ddfctl rule add dum family netdev hook none dev d0 $small action drop
R ddfctl rule add ip family inet hook prerouting filter exact window 1000 action count
R ddfctl xdp attach dev m0 rule span mode native >/dev/null
R ddfctl xdp attach dev d0 rule dum mode generic >/dev/null
R ddfctl save >"$tmp/saved"
sed 's/^/    /' "$tmp/saved" >&3
expect_eq "$(head -n 3 "$tmp/saved" | cut -d' ' -f1-3 | tr '\n' ' ')" \
	"rule add span rule add dum rule add ip " "save: the rule lines first"
expect_eq "$(tail -n +4 "$tmp/saved" | sort | tr '\n' '|')" \
	"xdp attach dev d0 rule dum mode generic priority 5|xdp attach dev m0 rule span mode native priority 5|" \
	"save: the xdp lines"
R ddfctl xdp detach dev m0
R ddfctl xdp detach dev d0
R ddfctl rule flush
pp rmmod nf_ddf
pp insmod "$module"
R ddfctl restore <"$tmp/saved"
R ddfctl xdp show | tee "$tmp/show" >&3
grep -q "^m0: native rule span (id [0-9]*) priority 5$" "$tmp/show" &&
	grep -q "^d0: generic rule dum (id [0-9]*) priority 5$" "$tmp/show" ||
	fail "xdp show after restore: $(cat "$tmp/show")"
R ddfctl save >"$tmp/resaved"
cmp -s "$tmp/saved" "$tmp/resaved" ||
	fail "save after restore differs: $(diff "$tmp/saved" "$tmp/resaved")"
cap_start "$rcv" m0 restored
mirror ttl
cap_stop restored "$k"
expect_eq "${got[restored]}" "$k" "after restore: frames tcpdump got on m0"
same_bytes "$tmp/restored.pcap" "$tmp/ttl/kept-default.pcap" "after restore"
expect_eq "$(rule_ctr "$rcv" span dropped)" "$d" "after restore: dropped"
pretty rcv "after rmmod, insmod and restore: tcpdump -i m0 got $k of $n frames, $d dropped"
passed "save and restore across a module reload: the rules, and their XDP programs in their modes"

# Test that a restore whose attachment fails undoes itself: m0 has span's
# program, so a file that attaches another rule there adds its rules,
# fails on the xdp line, and deletes them again; m0 keeps its program.
printf '%s\n' "rule add x1 family inet hook prerouting $small action count" \
	"rule add x2 family netdev hook none dev m0 $small" \
	"xdp attach dev m0 rule x2 mode native" >"$tmp/clash"
if in_ns "$rcv" ddfctl restore "$tmp/clash" 2>"$tmp/err"; then
	fail "restore of a second program for m0 succeeded"
fi
pretty rcv "ddfctl restore (clash): $(tr '\n' ' ' <"$tmp/err")"
grep -qF "restore: line 3 was refused; the 2 rules added before it were deleted again" "$tmp/err" ||
	fail "restore (clash) says: $(cat "$tmp/err")"
R ddfctl save >"$tmp/after"
cmp -s "$tmp/saved" "$tmp/after" ||
	fail "a failed restore left: $(diff "$tmp/saved" "$tmp/after")"
passed "restore all or nothing: an attachment refused deletes the rules it added"

# Test that apply changes only what differs from the file: dum's action
# changed, so dum is replaced and its program attached again; span's line
# did not, so it keeps its rule, its program, its counters and its filter
# (the same frames again are all duplicates). Applying the file once more
# changes nothing.
id_of() { sed -n "s/^$1: .* (id \([0-9]*\)) .*$/\1/p" "$2"; }
sed 's/^\(rule add dum .*\) action drop$/\1 action count/' "$tmp/saved" >"$tmp/changed"
grep -q '^rule add dum .* action count$' "$tmp/changed" || fail "no dum line to change"
R ddfctl apply "$tmp/changed" | tee "$tmp/out" >&3
expect_eq "$(cat "$tmp/out")" \
	"apply: rules: 2 kept, 1 changed, 0 added, 0 deleted; xdp: 1 kept, 1 attached, 1 detached" \
	"apply of a file with dum changed"
R ddfctl xdp show | tee "$tmp/show2" >&3
expect_eq "$(id_of m0 "$tmp/show2")" "$(id_of m0 "$tmp/show")" "span's rule number"
[[ $(id_of d0 "$tmp/show2") != "$(id_of d0 "$tmp/show")" ]] ||
	fail "dum was not replaced: $(cat "$tmp/show2")"
grep -q "^d0: generic rule dum " "$tmp/show2" || fail "d0: $(cat "$tmp/show2")"
R ddfctl show dum | grep -q "action count" || fail "dum's action is not count"
expect_eq "$(rule_ctr "$rcv" span packets)" "$n" "span's packets after apply"
mirror ttl
expect_eq "$(rule_ctr "$rcv" span packets)" "$((2 * n))" "span's packets, frames sent again"
expect_eq "$(rule_ctr "$rcv" span dropped)" "$((d + n))" "span's filter kept: every frame sent again dropped"
R ddfctl apply "$tmp/changed" | tee "$tmp/out" >&3
expect_eq "$(cat "$tmp/out")" \
	"apply: rules: 3 kept, 0 changed, 0 added, 0 deleted; xdp: 2 kept, 0 attached, 0 detached" \
	"apply of the same file again"
pretty rcv "apply: span kept its filter ($((d + n)) dropped of $((2 * n))), dum replaced"
passed "apply: the unchanged rule keeps its program, counters and filter; the changed one is replaced"

# Test that an apply the kernel refuses part of is undone: span changed
# and a rule on a device that is not there; span comes back with its old
# line and its program. With --wait 0 that rule is left out instead, the
# rest applied, and the status is 75.
{ sed 's/^\(rule add span .*\) action drop$/\1 action count/' "$tmp/changed"
  echo "rule add late family netdev dev nosuch0 $small"; } >"$tmp/bad"
if in_ns "$rcv" ddfctl apply "$tmp/bad" 2>"$tmp/err"; then
	fail "apply of a rule on a device that is not there succeeded"
fi
pretty rcv "ddfctl apply (refused): $(tr '\n' ' ' <"$tmp/err")"
grep -qF "was refused; the 1 rules added before it were deleted again; the 1 rules deleted were added again (their filters empty); the 1 XDP programs detached were attached again" "$tmp/err" ||
	fail "apply (refused) says: $(cat "$tmp/err")"
R ddfctl save >"$tmp/after"
expect_eq "$(sort "$tmp/after" | tr '\n' '|')" "$(sort "$tmp/changed" | tr '\n' '|')" \
	"the rules and programs after a refused apply"
rc=0
in_ns "$rcv" ddfctl apply --wait 0 "$tmp/bad" >"$tmp/out" 2>"$tmp/err" || rc=$?
expect_eq "$rc" 75 "apply --wait 0 with a device absent: status"
grep -qF "rule 'late' left out: dev nosuch0 is not here after 0 s" "$tmp/err" ||
	fail "apply --wait 0 says: $(cat "$tmp/err")"
expect_eq "$(cat "$tmp/out")" \
	"apply: rules: 2 kept, 1 changed, 0 added, 0 deleted, 1 left out; xdp: 1 kept, 1 attached, 1 detached" \
	"apply --wait 0"
passed "apply all or nothing, and --wait leaves out a rule whose device is not there"

# Test what ddf.service's stop does: every ddf program detached, every
# rule deleted, and the module free to go.
R ddfctl xdp detach all
R ddfctl rule flush
expect_eq "$(R ddfctl xdp show)" "" "xdp show after detach all"
expect_eq "$(R ddfctl save)" "" "save after flush"
R ip link del d0
pp rmmod nf_ddf
pp insmod "$module"
passed "xdp detach all and rule flush leave nothing to hold the module"

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
	in_ns "$rcv" ddfctl rule add churn family netdev hook none \
		dev m0 $rule action drop
	in_ns "$rcv" ddfctl xdp attach dev m0 rule churn mode $mode >/dev/null
	sleep 0.3
	if ((i % 3)); then
		in_ns "$rcv" ddfctl rule del churn # under its program
		sleep 0.2
		in_ns "$rcv" ddfctl xdp detach dev m0
	else
		in_ns "$rcv" ddfctl xdp detach dev m0
		in_ns "$rcv" ddfctl rule del churn
	fi
	rmmod nf_ddf 2>/dev/null || fail "rmmod nf_ddf under traffic, program detached"
	insmod "$module"
done
touch "$tmp/stop"
wait "$flood_pid"
pretty rcv "6 cycles of rule add, attach, delete, detach and module reload under traffic"
passed "churn under traffic: rule deletion, detach and unload"

echo "xdp.sh: $blocks blocks passed" >&3
