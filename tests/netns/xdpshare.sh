#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A capture port shared: ddf's XDP program (ddfctl xdp attach) and another
# tool's, xdp-filter from xdp-tools, through libxdp's dispatcher, in either
# order. ddf judges first (priority 5, xdp-filter's 10): its duplicates
# stop there, what it keeps goes on to xdp-filter, which drops UDP to port
# 443; tcpdump on the port gets exactly the frames neither drops, byte for
# byte. Unloading either leaves the other working. What cannot be shared is
# refused in one sentence, and nothing changes: a program attached without
# libxdp, programs in another mode, exclusive beside others, no BPF file
# system; where the kernel cannot share, ddf's program, attached alone by
# libxdp, is taken off again, and only it (another program put there just
# before stays). save, a module reload and restore put ddf's program back
# beside xdp-filter, first again.
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/netns/xdpshare.sh
#   (ddfctl, ddfpkt, ddf_spangen, tcpdump, xdp-filter and xdp-loader in
#   $PATH; bpffs at /sys/fs/bpf; DDF_XDPRACE: build/xdprace.so)
#
# ┌──────────────────┐        ┌──────────────────────────────────────────┐
# │ $snd             │  veth  │ $rcv, the capture box                    │
# │  s0 ─────────────┼────────┼─ m0: libxdp's dispatcher: ddf's program, │
# │  ddfpkt replay -E│        │    then xdp-filter; tcpdump -i m0        │
# └──────────────────┘        └──────────────────────────────────────────┘
#
# Every block begins with "# Test that ..." and asserts; a failed
# assertion stops the script and fails it.

set -e

exec 3>&1
export LANG=C
snd="ddfshr-$$-snd"
rcv="ddfshr-$$-rcv"
here=$(cd "$(dirname "$0")" && pwd)
: "${DDF_MODULES:=$(cd "$here/../.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
# where the VMs have it (tests/qemu/initramfs.sh)
: "${DDF_XDPRACE:=/usr/lib/ddf/xdprace.so}"
tmp=$(mktemp -d)
blocks=0
seed=00112233445566778899aabbccddeeff
rule="window 1000000 fpr 1e-6 seed $seed"
port=443
declare -A cap_pid

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/netns/capture.bash
. "$(dirname "$0")/capture.bash"

# X CMD...: CMD in $rcv's network namespace only, so that libxdp sees the
# BPF file system (ip netns exec mounts another /sys over it)
X() { pretty rcv "$*"; nsenter --net="/run/netns/$rcv" "$@"; }

# The debug lane runs the blocks that take frames through ddf's program in
# the dispatcher, or reload the module under it (what its detectors watch),
# and leaves to the stock lanes those that only ask ddfctl, libxdp and the
# verifier (unloads, refusals, action mark): under KASAN each of their
# loads costs seconds.
lane=
# shellcheck disable=SC1091
[[ ! -e /ddf/lane.conf ]] || lane=$(. /ddf/lane.conf && echo "${DDF_LANE:-}")
# stock_only WHAT: true, after saying so, where the lane leaves WHAT out
stock_only() {
	[[ $lane == debug ]] || return 1
	echo "xdpshare.sh: in the stock lanes only (this is the debug lane): $1" >&3
}

cleanup() {
	set +e
	nsenter --net="/run/netns/$rcv" xdp-filter unload m0 >/dev/null 2>&1
	capture_cleanup
}
trap cleanup EXIT

if [[ ! -e /sys/kernel/btf/vmlinux ]]; then
	echo "xdpshare.sh: skipped: kernel $(uname -r) has no BTF" \
		"(CONFIG_DEBUG_INFO_BTF), so no XDP program can call nf_ddf"
	exit 0
fi
for t in xdp-filter xdp-loader; do
	command -v "$t" >/dev/null || fail "no $t in PATH (xdp-tools)"
done
[[ -e $DDF_XDPRACE ]] || fail "no $DDF_XDPRACE (make all builds xdprace.so)"
[[ $(stat -f -c %t /sys/fs/bpf 2>/dev/null) == cafe4a11 ]] ||
	fail "no BPF file system at /sys/fs/bpf"
capture_setup
ip -n "$snd" link set up dev s0
ip -n "$rcv" link set m0 promisc on up
pp insmod "$module"
gen ttl
n=$(want ttl default records)
k=$(want ttl default kept)
d=$(want ttl default duplicates)
# what each arrangement leaves on m0, as tcpdump writes it from the
# generator's captures: the kept frames, all frames, either without UDP
# to $port
notport="not (udp and dst port $port)"
cp "$tmp/ttl/kept-default.pcap" "$tmp/want-ddf.pcap"
tcpdump -Z root -r "$tmp/ttl/kept-default.pcap" -w "$tmp/want-both.pcap" \
	"$notport" 2>/dev/null
tcpdump -Z root -r "$tmp/ttl/sent.pcap" -w "$tmp/want-filter.pcap" \
	"$notport" 2>/dev/null
kb=$(records "$tmp/want-both.pcap")
kf=$(records "$tmp/want-filter.pcap")
((kb < k && kf < n)) || fail "the scenario has no UDP to port $port"

# on NAME WANT: the scenario into s0; tcpdump on m0 must get WANT's frames
on() {
	local c=$1 w=$2 nw
	nw=$(records "$tmp/$w.pcap")
	cap_start "$rcv" m0 "$c"
	mirror ttl
	cap_stop "$c" "$nw"
	expect_eq "${got[$c]}" "$nw" "$c: frames tcpdump got on m0"
	same_bytes "$tmp/$c.pcap" "$tmp/$w.pcap" "$c"
}

# status: xdp-loader's list of m0's programs, one "NAME PRIORITY" a line
status() {
	X xdp-loader status m0 >"$tmp/status"
	awk '$1 == "=>" { print $3, $2 }' "$tmp/status"
}

# order: the programs of m0's dispatcher by run priority, names only
order() { status | sort -k2n | awk '{ print $1 }' | tr '\n' ' '; }

# Test that ddf's program joins libxdp's dispatcher and xdp-filter comes
# after it: both judge (duplicates dropped by ddf, UDP to $port by the
# filter), xdp-loader lists both with ddf first, and ddfctl xdp show lists
# xdp-filter beside ddf's line.
R ddfctl rule add span family netdev hook none dev m0 $rule action drop
R ddfctl xdp attach dev m0 rule span
X xdp-filter load m0 >/dev/null
X xdp-filter port -p udp "$port" >/dev/null
status >&3
expect_eq "$(order)" "ddf_xdp_judge xdpfilt_alw_all " "xdp-loader status: the order"
R ddfctl xdp show | tee "$tmp/show" >&3
grep -q "^m0: native rule span (id [0-9]*) priority 5$" "$tmp/show" &&
	grep -q "^  beside: xdpfilt_alw_all (id [0-9]*) priority 10$" "$tmp/show" ||
	fail "xdp show: $(cat "$tmp/show")"
on ddf-then-filter want-both
rule_ctrs "$rcv" span
expect_eq "${ctr[packets]} ${ctr[dropped]}" "$n $d" "span's packets, dropped"
pretty rcv "ddf, then xdp-filter: tcpdump -i m0 got $kb of $n frames, $d duplicates dropped by ddf"
passed "ddf then xdp-filter, one dispatcher: each judges, ddf first"

# Test that unloading either leaves the other working: xdp-filter gone,
# ddf alone; xdp-filter back and ddf detached, the filter alone.
unloads() {
	X xdp-filter unload m0
	expect_eq "$(order)" "ddf_xdp_judge " "after xdp-filter unload"
	R ddfctl rule reset span filter
	on ddf-alone want-ddf
	X xdp-filter load m0 >/dev/null
	X xdp-filter port -p udp "$port" >/dev/null
	R ddfctl xdp detach dev m0
	expect_eq "$(order)" "xdpfilt_alw_all " "after ddfctl xdp detach"
	on filter-alone want-filter
	passed "unloading either program leaves the other judging"
}
if stock_only "unloading either program"; then
	R ddfctl xdp detach dev m0
else
	unloads
fi

# Test that the opposite order gives the same: xdp-filter there first,
# ddf's program joins its dispatcher, before it.
R ddfctl rule reset span filter
R ddfctl xdp attach dev m0 rule span
expect_eq "$(order)" "ddf_xdp_judge xdpfilt_alw_all " "filter first: the order"
on filter-then-ddf want-both
passed "xdp-filter then ddf: the same frames"

# refused WANT ARGS...: ddfctl ARGS fails with exit status 1, one line that
# has WANT, and m0's XDP program is the one it was
refused() {
	local want=$1 before out rc=0
	shift
	before=$(ip -n "$rcv" -d link show m0 | grep -o 'prog/xdp id [0-9]*')
	out=$(in_ns "$rcv" ddfctl "$@" 2>&1) || rc=$?
	expect_eq "$rc" 1 "ddfctl $*: exit status ($out)"
	expect_eq "$(echo "$out" | wc -l)" 1 "ddfctl $*: lines said ($out)"
	[[ $out == *"$want"* ]] || fail "ddfctl $*: said '$out', not '$want'"
	expect_eq "$(ip -n "$rcv" -d link show m0 | grep -o 'prog/xdp id [0-9]*')" \
		"$before" "ddfctl $*: m0's program"
	pretty rcv "ddfctl $*: $out"
}

# Test that what cannot share the port is refused in one sentence and
# changes nothing: ddf twice; exclusive beside others; another mode than
# the dispatcher's; a program attached without libxdp; a kernel where
# libxdp cannot share; no BPF file system (ip netns exec mounts its own
# /sys).
refusals() {
	refused "m0 has ddf's XDP program already" xdp attach dev m0 rule span
	R ddfctl xdp detach dev m0
	refused "exclusive takes m0 alone, and it has the XDP program 'xdp_dispatcher'" \
		xdp attach dev m0 rule span exclusive
	refused "m0's programs run in native mode (libxdp's dispatcher), so ddf's can join them only in that mode" \
		xdp attach dev m0 rule span mode generic
	X xdp-filter unload m0
	X env LIBXDP_SKIP_DISPATCHER=1 xdp-filter load m0 >/dev/null
	refused "m0 has the XDP program 'xdpfilt_alw_all' (id" xdp attach dev m0 rule span
	refused "attached without libxdp's dispatcher, so nothing can run beside it" \
		xdp attach dev m0 rule span
	X xdp-filter unload m0
	# a kernel without freplace: libxdp then attaches the program alone, which
	# its LIBXDP_SKIP_DISPATCHER does on any kernel; ddfctl takes it off again
	out=$(nsenter --net="/run/netns/$rcv" env LIBXDP_SKIP_DISPATCHER=1 \
		ddfctl xdp attach dev m0 rule span 2>&1) &&
		fail "attach where libxdp cannot share succeeded"
	[[ $out == *"xdp attach: the kernel cannot run programs behind libxdp's dispatcher at m0 (no freplace), so it cannot be shared: attach with exclusive to have it alone"* ]] ||
		fail "attach where libxdp cannot share said: $out"
	expect_eq "$(ip -n "$rcv" -d link show m0 | grep -c 'prog/xdp')" 0 \
		"m0's programs after an attach libxdp could not share"
	pretty rcv "LIBXDP_SKIP_DISPATCHER=1 ddfctl xdp attach: $out"
	# the same, another program put on m0 in place of ddf's between
	# ddfctl's look and its detach (xdprace.so, just before the detach):
	# ddfctl takes off ddf's program only, so the other one stays
	out=$(nsenter --net="/run/netns/$rcv" env LIBXDP_SKIP_DISPATCHER=1 \
		LD_PRELOAD="$DDF_XDPRACE" ddfctl xdp attach dev m0 rule span 2>&1) &&
		fail "attach where libxdp cannot share, raced, succeeded"
	[[ $out == *"xdprace: xdprace_other attached to ifindex "*": ok"* ]] ||
		fail "the race was not made: $out"
	[[ $out == *"at m0 (no freplace), so it cannot be shared"* ]] ||
		fail "attach where libxdp cannot share, raced, said: $out"
	expect_eq "$(ip -n "$rcv" -d link show m0 | grep -o 'prog/xdp id [0-9]* name [a-z_]*' |
		awk '{ print $5 }')" xdprace_other "m0's program after the raced attach"
	pretty rcv "LD_PRELOAD=xdprace.so LIBXDP_SKIP_DISPATCHER=1 ddfctl xdp attach: $out"
	ip -n "$rcv" link set dev m0 xdp off
	out=$(ip netns exec "$rcv" ddfctl xdp attach dev m0 rule span 2>&1) &&
		fail "attach without /sys/fs/bpf succeeded"
	[[ $out == *"none is mounted at /sys/fs/bpf here (ip netns exec hides it"* ]] ||
		fail "attach under ip netns exec said: $out"
	expect_eq "$(ip -n "$rcv" -d link show m0 | grep -c 'prog/xdp')" 0 \
		"m0's programs after a refused attach"
	pretty rcv "ip netns exec ddfctl xdp attach: $out"
	passed "what cannot share the port is refused in one sentence; nothing changed"
}

# Test that a rule of action mark, whose program writes XDP metadata (a
# change of the frame's data), joins the dispatcher where the kernel lets
# an extension do so, and is refused in one sentence where it does not
# (6.12: "extension program changes packet data, while original does not",
# libxdp 1.3's dispatcher slots change none), nothing changed.
marks() {
	X xdp-filter load m0 >/dev/null
	X xdp-filter port -p udp "$port" >/dev/null
	R ddfctl rule add marked family netdev hook none dev m0 filter qqhtd \
		window 1000 action mark 7
	if out=$(in_ns "$rcv" ddfctl xdp attach dev m0 rule marked 2>&1); then
		expect_eq "$(order)" "ddf_xdp xdpfilt_alw_all " "mark: the order"
		pretty rcv "kernel $(uname -r): ddf's program of action mark joined the dispatcher"
		R ddfctl xdp detach dev m0
	else
		refused "rule 'marked' marks its duplicates in XDP metadata, and this kernel lets no program behind libxdp's dispatcher change a frame's data" \
			xdp attach dev m0 rule marked
		refused "attach with exclusive, or give the rule action drop or count" \
			xdp attach dev m0 rule marked
	fi
	expect_eq "$(order)" "xdpfilt_alw_all " "after mark's attach and detach"
	R ddfctl rule del marked
	passed "action mark: beside others where the kernel allows it, else refused in a sentence"
}
if stock_only "what is refused; action mark"; then
	R ddfctl xdp detach dev m0
else
	refusals
	marks
fi

# Test that save writes ddf's priority, and that after a module reload
# restore puts ddf's program back into the dispatcher beside xdp-filter,
# first again, and never removes xdp-filter; both judge as before.
R ddfctl rule reset span filter
R ddfctl xdp attach dev m0 rule span priority 8
R ddfctl save >"$tmp/saved"
sed 's/^/    /' "$tmp/saved" >&3
grep -qx "xdp attach dev m0 rule span mode native priority 8" "$tmp/saved" ||
	fail "save: $(cat "$tmp/saved")"
R ddfctl xdp detach all
R ddfctl rule flush
pp rmmod nf_ddf
pp insmod "$module"
R ddfctl restore "$tmp/saved"
expect_eq "$(status | sort | tr '\n' ' ')" "ddf_xdp_judge 8 xdpfilt_alw_all 10 " \
	"after restore: m0's programs and priorities"
R ddfctl save >"$tmp/resaved"
cmp -s "$tmp/saved" "$tmp/resaved" ||
	fail "save after restore differs: $(diff "$tmp/saved" "$tmp/resaved")"
on restored want-both
# where libxdp's pins cannot be read, detach says why and removes nothing
out=$(ip netns exec "$rcv" ddfctl xdp detach dev m0 2>&1) &&
	fail "detach without /sys/fs/bpf succeeded"
[[ $out == *"m0 has libxdp's dispatcher (id "*"), whose programs are pinned in the BPF file system, and none is mounted at /sys/fs/bpf here"* ]] ||
	fail "detach under ip netns exec said: $out"
expect_eq "$(status | sort | tr '\n' ' ')" "ddf_xdp_judge 8 xdpfilt_alw_all 10 " \
	"after a refused detach"
passed "save, module reload, restore: ddf back beside xdp-filter, first"

R ddfctl xdp detach all
X xdp-filter unload m0
R ddfctl rule flush
echo "xdpshare.sh: $blocks blocks passed" >&3
