#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How ddfctl finds ddf's XDP program: by the owner mark it writes into the
# program's read-only data, not by its name, and through the kernel, not
# libxdp's pins in the BPF file system.
#
# A user's program named as ddf's own (the kfunc's example built as
# ddf_xdp_judge), alone on m1 and in m0's dispatcher before ddf's, is
# neither listed, saved, detached nor refused as ddf's. Where the BPF file
# system is not mounted (ip netns exec mounts its own /sys), save, xdp
# show and apply find ddf's program in the dispatcher as they do with it;
# what only libxdp can change (detach, an apply that detaches) is refused
# in one sentence before anything changes. Where the pins that held the
# dispatcher's programs were removed, whether ddf's was one cannot be
# told: save, detach, apply and show say so and fail.
#
#   DDF_MODULES=<directory with nf_ddf.ko> DDF_JUDGE=<ddf_xdp_judge.bpf.o> \
#       tests/netns/xdpfind.sh
#   (ddfctl, xdp-loader and bpftool in $PATH, bpffs at /sys/fs/bpf)
#
# ┌──────────────────────────────────────────────────────────────────┐
# │ $rcv                                                             │
# │  m0 ── z0   libxdp's dispatcher: the user's ddf_xdp_judge (1),   │
# │             ddf's (5, later 8)                                   │
# │  m1 ── z1   the user's ddf_xdp_judge alone                       │
# └──────────────────────────────────────────────────────────────────┘
#
# Every block begins with "# Test that ..." and asserts; a failed
# assertion stops the script and fails it.

set -e

exec 3>&1
export LANG=C
rcv="ddffind-$$"
here=$(cd "$(dirname "$0")" && pwd)
: "${DDF_MODULES:=$(cd "$here/../.." && pwd)}"
# where the VMs have it (tests/qemu/initramfs.sh)
: "${DDF_JUDGE:=/ddf/examples/ddf_xdp_judge.bpf.o}"
module=$DDF_MODULES/nf_ddf.ko
pin=/sys/fs/bpf/ddffind-$$
tmp=$(mktemp -d)
blocks=0
small=(filter exact window 1000 action drop)

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"

# L CMD...: CMD in $rcv's network namespace alone, where bpffs is seen
L() { pretty rcv "$*"; nsenter --net="/run/netns/$rcv" "$@"; }
# H CMD...: CMD under ip netns exec, whose own /sys hides bpffs
H() { pretty "rcv, no bpffs" "$*"; ip netns exec "$rcv" "$@"; }
# the same, said by refused()
in_rcv() { in_ns "$rcv" "$@"; }
in_hidden() { ip netns exec "$rcv" "$@"; }

cleanup() {
	set +e
	exec 2>/dev/null
	for d in m0 m1; do
		nsenter --net="/run/netns/$rcv" xdp-loader unload "$d" --all
		ip -n "$rcv" link set dev "$d" xdp off
	done
	ip netns del "$rcv"
	rm -rf "$pin" "$tmp"
	for _ in $(seq 25); do
		loaded || break
		rmmod nf_ddf && break
		sleep 0.2
	done
}
trap cleanup EXIT

if [[ ! -e /sys/kernel/btf/vmlinux ]]; then
	echo "xdpfind.sh: skipped: kernel $(uname -r) has no BTF" \
		"(CONFIG_DEBUG_INFO_BTF), so no XDP program can call nf_ddf"
	exit 0
fi
for t in ddfctl xdp-loader bpftool nsenter; do
	command -v "$t" >/dev/null || fail "no $t in PATH"
done
[[ -e $DDF_JUDGE ]] || fail "no program $DDF_JUDGE (make all builds it)"
[[ $(stat -f -c %t /sys/fs/bpf 2>/dev/null) == cafe4a11 ]] ||
	fail "no BPF file system at /sys/fs/bpf"
if loaded; then pp rmmod nf_ddf; fi
pp ip netns add "$rcv"
for i in 0 1; do
	ip -n "$rcv" link add "m$i" type veth peer name "z$i"
	ip -n "$rcv" link set up dev "m$i"
	ip -n "$rcv" link set up dev "z$i"
done
pp insmod "$module"

# status DEV: xdp-loader's list of DEV's dispatcher, "NAME PRIORITY ID" a line
status() {
	nsenter --net="/run/netns/$rcv" xdp-loader status "$1" >"$tmp/status" 2>/dev/null
	awk '$1 == "=>" { print $3, $2, $4 }' "$tmp/status"
}
# prog DEV: "ID NAME" of the program attached to DEV, as the kernel says
prog() {
	ip -n "$rcv" -d link show "$1" |
		sed -n 's/.*prog\/xdp id \([0-9]*\) name \([^ ]*\).*/\1 \2/p'
}
# refused RUN WANT ARGS...: RUN ddfctl ARGS fails with exit status 1,
# saying WANT in its first line; nothing on m0 and m1 changes
refused() {
	local run=$1 want=$2 before out rc=0
	shift 2
	before="$(prog m0) $(prog m1) $(status m0 | tr '\n' ' ')"
	out=$($run ddfctl "$@" 2>&1) || rc=$?
	expect_eq "$rc" 1 "ddfctl $*: exit status ($out)"
	[[ $(head -n 1 <<<"$out") == *"$want"* ]] ||
		fail "ddfctl $*: said '$out', not '$want'"
	expect_eq "$(prog m0) $(prog m1) $(status m0 | tr '\n' ' ')" "$before" \
		"ddfctl $*: the programs of m0 and m1"
	pretty "" "ddfctl $*: $out"
}

R ddfctl rule add span family netdev hook none dev m0 "${small[@]}"
R ddfctl rule add other family netdev hook none dev m1 "${small[@]}"
R ddfctl xdp attach dev m0 rule span
# (the example's maps are pinned there, by name)
mkdir -p "$pin/m0" "$pin/m1"
L xdp-loader load -p "$pin/m0" -P 1 m0 "$DDF_JUDGE"
L env LIBXDP_SKIP_DISPATCHER=1 xdp-loader load -p "$pin/m1" m1 "$DDF_JUDGE"
status m0 | tee "$tmp/m0" >&3
expect_eq "$(awk '{ print $1, $2 }' "$tmp/m0" | tr '\n' ' ')" \
	"ddf_xdp_judge 1 ddf_xdp_judge 5 " "m0's dispatcher: names, priorities"
user0=$(awk '$2 == 1 { print $3 }' "$tmp/m0")
read -r user1 name1 <<<"$(prog m1)"
expect_eq "$name1" ddf_xdp_judge "m1's program"

# Test that the user's programs named ddf_xdp_judge are not taken for
# ddf's: xdp show lists ddf's on m0 with the user's beside it and nothing
# on m1; save writes m0's line alone; attach on m1 meets another tool's
# program there; detach of m1 finds no ddf program; detach all takes
# ddf's program off m0 and leaves both of the user's.
R ddfctl xdp show | tee "$tmp/show" >&3
if ! grep -qx "m0: native rule span (id [0-9]*) priority 5" "$tmp/show" ||
	! grep -qx "  beside: ddf_xdp_judge (id $user0) priority 1" "$tmp/show" ||
	[[ $(wc -l <"$tmp/show") != 2 ]]; then
	fail "xdp show: $(cat "$tmp/show")"
fi
R ddfctl save >"$tmp/saved"
expect_eq "$(grep '^xdp' "$tmp/saved")" \
	"xdp attach dev m0 rule span mode native priority 5" "save: its xdp lines"
refused in_rcv "m1 has the XDP program 'ddf_xdp_judge' (id $user1), attached without libxdp's dispatcher" \
	xdp attach dev m1 rule other
refused in_rcv "xdp detach: m1 has no ddf XDP program" xdp detach dev m1
R ddfctl xdp detach all
expect_eq "$(status m0 | tr '\n' ' ')" "ddf_xdp_judge 1 $user0 " \
	"m0's dispatcher after detach all"
expect_eq "$(prog m1)" "$user1 ddf_xdp_judge" "m1's program after detach all"
passed "a user's program named ddf_xdp_judge is not ddf's: not listed, saved, refused or detached as ddf's"

# Test that without the BPF file system (ip netns exec) save, xdp show
# and apply find ddf's program in m0's dispatcher through the kernel: the
# same file, list and plan as with it; detach, detach all and an apply
# that would detach it and change a rule are refused in one sentence and
# change nothing.
R ddfctl xdp attach dev m0 rule span priority 8
R ddfctl save >"$tmp/saved"
grep -qx "xdp attach dev m0 rule span mode native priority 8" "$tmp/saved" ||
	fail "save: $(cat "$tmp/saved")"
H ddfctl save >"$tmp/hidden"
diff -u "$tmp/saved" "$tmp/hidden" >&2 || fail "save without bpffs differs"
R ddfctl xdp show >"$tmp/show"
H ddfctl xdp show >"$tmp/hidden"
cat "$tmp/hidden" >&3
diff -u "$tmp/show" "$tmp/hidden" >&2 || fail "xdp show without bpffs differs"
H ddfctl apply "$tmp/saved" | tee "$tmp/apply" >&3
expect_eq "$(cat "$tmp/apply")" \
	"apply: rules: 2 kept, 0 changed, 0 added, 0 deleted; xdp: 1 kept, 0 attached, 0 detached" \
	"apply of the saved file without bpffs"
hidden="m0 has libxdp's dispatcher (id $(prog m0 | cut -d' ' -f1)), whose programs are pinned in the BPF file system, and none is mounted at /sys/fs/bpf here"
refused in_hidden "xdp detach: $hidden" xdp detach dev m0
refused in_hidden "xdp detach: $hidden" xdp detach all
grep -v '^xdp' "$tmp/saved" | sed 's/^\(rule add other .*\) window 1000 /\1 window 2000 /' \
	>"$tmp/changed"
grep -q 'window 2000' "$tmp/changed" || fail "no rule changed in $tmp/changed"
refused in_hidden "apply: $hidden" apply "$tmp/changed"
R ddfctl save >"$tmp/after"
diff -u "$tmp/saved" "$tmp/after" >&2 || fail "the refused apply changed something"
passed "without bpffs: save, show and apply find ddf's program; detach and changes refused, nothing changed"

# Test that where the pins that held m0's dispatcher's programs were
# removed (their links go with them), save, detach, detach all, apply and
# xdp show say that whether ddf's program was one cannot be told, and
# fail; xdp-loader unload, as they advise, clears the port.
ddf=$(R ddfctl -j xdp show | sed -n 's/.*"prog_id": \([0-9]*\), "rule_id".*/\1/p')
[[ $ddf =~ ^[1-9][0-9]*$ ]] || fail "ddf's program id: '$ddf'"
disp=$(prog m0 | cut -d' ' -f1)
pp rm -r "/sys/fs/bpf/xdp/dispatch-$(ip -n "$rcv" -o link show m0 | cut -d: -f1)-$disp"
# the links go once the kernel has freed their last pin (a work item)
for _ in $(seq 50); do
	bpftool -j link show | grep -q "\"prog_id\":$ddf," || break
	sleep 0.1
done
empty="m0 has libxdp's dispatcher (id $disp) with 2 program slots and 0 programs in them"
out=$(in_ns "$rcv" ddfctl save 2>"$tmp/err") && fail "save succeeded: $out"
[[ -z $out && $(wc -l <"$tmp/err") == 1 && $(cat "$tmp/err") == *"save: $empty"* ]] ||
	fail "save said '$out' and '$(cat "$tmp/err")'"
pretty "" "ddfctl save: $(cat "$tmp/err")"
refused in_rcv "xdp detach: $empty" xdp detach dev m0
refused in_rcv "xdp detach all: $empty" xdp detach all
refused in_rcv "apply: $empty" apply "$tmp/saved"
refused in_rcv "xdp show: $empty" xdp show
L xdp-loader unload m0 --all
expect_eq "$(prog m0)" "" "m0's program after xdp-loader unload --all"
passed "the dispatcher's pins removed: whether ddf's program was in it cannot be told, said and failed"

echo "xdpfind.sh: $blocks blocks passed" >&3
