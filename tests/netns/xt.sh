#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The xtables match "ddf" (nf_ddf_xt.c, tools/xtables/libxt_ddf.c): ddf
# rules with hook none in the receiver, asked by iptables-legacy,
# iptables-nft (nft_compat) and ip6tables rules; what they drop, count,
# save and restore; bad options; a rule in use; module references; a
# namespace going away with matches in it. Run as root where nf_ddf.ko can
# be loaded and libxt_ddf.so is built:
#
#   DDF_MODULES=<directory with nf_ddf.ko> \
#   DDF_XTABLES=<directory with libxt_ddf.so> tests/netns/xt.sh
#
# ┌──────────────┐        ┌──────────────────────────────┐
# │ $snd         │        │ $rcv                         │
# │  s0 ─────────┼────────┼─ r0 10.0.1.2 fd00:1::2       │
# │  10.0.1.1    │        │  ddf rules (hook none),      │
# │  fd00:1::1   │        │  iptables -m ddf             │
# └──────────────┘        └──────────────────────────────┘
#
# Every block begins with "# Test that ..." and asserts; a failed assertion
# stops the script and fails it.

set -e

exec 3>&1
export LANG=C
snd="ddfxt-$$-snd"
rcv="ddfxt-$$-rcv"
here=$(cd "$(dirname "$0")" && pwd)
: "${DDF_MODULES:=$(cd "$here/../.." && pwd)}"
if [[ -z $DDF_XTABLES ]]; then
	if [[ -e /ddf/xtables/libxt_ddf.so ]]; then
		DDF_XTABLES=/ddf/xtables
	else
		DDF_XTABLES=$(cd "$here/../.." && pwd)/build
	fi
fi
module=$DDF_MODULES/nf_ddf.ko
tmp=$(mktemp -d)
blocks=0

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"

# The stock extensions after ours: XTABLES_LIBDIR replaces the default.
[[ -e $DDF_XTABLES/libxt_ddf.so ]] || fail "no libxt_ddf.so in $DDF_XTABLES (make)"
stock=
for d in /usr/lib/*/xtables /usr/lib/xtables /usr/lib64/xtables; do
	if [[ -e $d/libxt_udp.so ]]; then
		stock=$d
		break
	fi
done
[[ -n $stock ]] || fail "no stock xtables extension directory"
export XTABLES_LIBDIR=$DDF_XTABLES:$stock

cleanup() {
	set +e
	exec 2>/dev/null
	[[ -n $recv_pid ]] && kill "$recv_pid"
	ip netns del "$snd"
	ip netns del "$rcv"
	rm -rf "$tmp"
	for _ in $(seq 50); do
		loaded || break
		rmmod nf_ddf && break
		sleep 0.2
	done
	exit
}
trap cleanup EXIT

if loaded; then pp rmmod nf_ddf; fi
setup_netns() {
	for ns in "$snd" "$rcv"; do
		pp ip netns add "$ns"
		ip -n "$ns" link set up dev lo
	done
	ip -n "$snd" link add s0 type veth peer name r0 netns "$rcv"
	ip -n "$snd" addr add 10.0.1.1/24 dev s0
	ip -n "$snd" addr add fd00:1::1/64 dev s0 nodad
	ip -n "$rcv" addr add 10.0.1.2/24 dev r0
	ip -n "$rcv" addr add fd00:1::2/64 dev r0 nodad
	ip -n "$snd" link set up dev s0
	ip -n "$rcv" link set up dev r0
	path0="-i s0 -m $(mac "$rcv" r0)"
}
setup_netns
src4="-s 10.0.1.1 -d 10.0.1.2"
src6="-s fd00:1::1 -d fd00:1::2"

pp insmod "$module"

# xt_packets CMD CHAIN [TABLE]: the packet count of the chain's first rule.
xt_packets() {
	ip netns exec "$rcv" "$1" -w -t "${3:-filter}" -L "$2" -v -n -x |
		awk 'NR == 3 { print $1 }'
}

# ddfctl rule del NAME, or rule flush without NAME, retried for a while:
# nf_tables destroys the expressions of deleted rules (and so drops their
# references) from a worker, a moment after iptables-nft returns.
del_rule() {
	local cmd=(flush)
	[[ -n $1 ]] && cmd=(del "$1")
	pretty rcv "ddfctl rule ${cmd[*]}"
	for _ in $(seq 50); do
		if in_ns "$rcv" ddfctl rule "${cmd[@]}" 2>"$tmp/del"; then
			return
		fi
		grep -q "used by" "$tmp/del" || fail "ddfctl: $(cat "$tmp/del")"
		sleep 0.1
	done
	fail "ddfctl: $(cat "$tmp/del")"
}

# save FILE: iptables-save's rules of the filter table, without counters.
save() {
	ip netns exec "$rcv" "$ipt-save" -t filter |
		sed -e '/^#/d' -e 's/\[[0-9]*:[0-9]*\]$//' >"$1"
}


# Test that an iptables rule with -m ddf and -j DROP removes exactly the
# copies, through iptables-legacy and through iptables-nft (nft_compat),
# and that the match counts in the ddf rule without applying its action.
for flavour in legacy nft; do
	ipt=iptables-$flavour
	R ddfctl rule add r family ip hook none proto udp window 10000
	R "$ipt" -w -A INPUT -p udp --dport 5000 -m ddf --ddf-rule r -j DROP
	recv_start
	send $path0 $src4 -n 20 -c 2,3
	recv_wait
	expect_eq "$got" "20 20" "$ipt: datagrams received, distinct"
	expect_eq "$(ctr r packets)" 50 "$ipt: r packets"
	expect_eq "$(ctr r duplicates)" 30 "$ipt: r duplicates"
	expect_eq "$(ctr r dropped)" 0 "$ipt: r dropped (the action is iptables')"
	expect_eq "$(xt_packets "$ipt" INPUT)" 30 "$ipt: packets the iptables rule dropped"
	R "$ipt" -w -L INPUT -n | grep -q 'ddf rule r' ||
		fail "$ipt -L does not show the match"
	R "$ipt" -w -F INPUT
	del_rule r
done
passed "iptables-legacy and iptables-nft drop the copies"

# Test the same through ip6tables, both flavours, with a rule of family
# ip6; and that a family ip rule serves only iptables, ip6 only ip6tables.
R ddfctl rule add r6 family ip6 hook none proto udp window 10000
R ddfctl rule add r4 family ip hook none proto udp window 10000
for flavour in legacy nft; do
	ipt=ip6tables-$flavour
	R ddfctl rule reset r6 filter
	R "$ipt" -w -A INPUT -p udp --dport 5000 -m ddf --ddf-rule r6 -j DROP
	recv_start -6
	send $path0 $src6 -n 20 -c 2
	recv_wait
	expect_eq "$got" "20 20" "$ipt: datagrams received, distinct"
	expect_eq "$(ctr r6 duplicates)" 20 "$ipt: r6 duplicates"
	expect_eq "$(xt_packets "$ipt" INPUT)" 20 "$ipt: packets the ip6tables rule dropped"
	R "$ipt" -w -F INPUT
	if R "$ipt" -w -A INPUT -m ddf --ddf-rule r4 2>"$tmp/err"; then
		fail "$ipt took a family ip rule"
	fi
	if R "iptables-$flavour" -w -A INPUT -m ddf --ddf-rule r6 2>"$tmp/err"; then
		fail "iptables-$flavour took a family ip6 rule"
	fi
	R ddfctl rule reset r6
done
dmesg | grep -q 'xt_ddf: rule "r4" is for iptables (family ip) only' ||
	fail "no kernel log line about r4's family"
dmesg | grep -q 'xt_ddf: rule "r6" is for ip6tables (family ip6) only' ||
	fail "no kernel log line about r6's family"
del_rule
passed "ip6tables-legacy and ip6tables-nft drop the copies; families are kept apart"

# Test that --ddf-mode test only asks (nothing is inserted, so no copy is
# a duplicate), that it sees what a test-and-insert match inserted, and
# that "! --ddf-rule" matches what is not a duplicate.
for flavour in legacy nft; do
	ipt=iptables-$flavour
	R ddfctl rule add t family ip hook none proto udp window 10000
	R "$ipt" -w -A INPUT -p udp --dport 5000 -m ddf --ddf-rule t --ddf-mode test -j DROP
	recv_start
	send $path0 $src4 -n 20 -c 2
	recv_wait
	expect_eq "$got" "40 20" "$ipt: mode test, every copy delivered"
	expect_eq "$(ctr t packets)" 40 "$ipt: mode test packets"
	expect_eq "$(ctr t duplicates)" 0 "$ipt: mode test duplicates"
	# inserted in PREROUTING, found by the test in INPUT: all dropped
	R "$ipt" -w -t mangle -A PREROUTING -p udp --dport 5000 -m ddf ! --ddf-rule t
	recv_start
	send $path0 $src4 -n 10 -f 100 -c 3
	recv_wait
	expect_eq "$got" "0 0" "$ipt: test after test-and-insert"
	expect_eq "$(xt_packets "$ipt" PREROUTING mangle)" 10 "$ipt: ! --ddf-rule matched the first copies"
	expect_eq "$(xt_packets "$ipt" INPUT)" 30 "$ipt: mode test matched every copy"
	R "$ipt" -w -F INPUT
	R "$ipt" -w -t mangle -F PREROUTING
	del_rule t
done
passed "--ddf-mode test only asks; ! --ddf-rule inverts"

# Test that iptables-save output restores to the same rules, legacy and
# nft, IPv4 and IPv6, with modes and inversion; and that -D by
# specification finds a rule (iptables compares the bytes before the
# kernel's pointer).
R ddfctl rule add s family ip hook none window 1000
R ddfctl rule add s6 family ip6 hook none window 1000
for flavour in legacy nft; do
	for fam in ip ip6; do
		ipt=${fam}tables-$flavour
		name=s
		[[ $fam == ip6 ]] && name=s6
		cat >"$tmp/rules" <<-EOF
			*filter
			-A INPUT -p udp -m ddf --ddf-rule $name -j DROP
			-A INPUT -m ddf ! --ddf-rule $name --ddf-mode test
			-A INPUT -m ddf --ddf-rule $name --ddf-mode test-and-insert -j ACCEPT
			COMMIT
		EOF
		R "$ipt-restore" <"$tmp/rules"
		save "$tmp/save1"
		pretty rcv "$(grep ddf "$tmp/save1")"
		grep -qx -- "-A INPUT -p udp -m ddf --ddf-rule $name -j DROP" "$tmp/save1" ||
			fail "$ipt-save: no plain ddf line"
		grep -qx -- "-A INPUT -m ddf ! --ddf-rule $name --ddf-mode test" "$tmp/save1" ||
			fail "$ipt-save: no inverted test line"
		grep -qx -- "-A INPUT -m ddf --ddf-rule $name -j ACCEPT" "$tmp/save1" ||
			fail "$ipt-save: the default mode is saved"
		R "$ipt-restore" <"$tmp/save1"
		save "$tmp/save2"
		diff -u "$tmp/save1" "$tmp/save2" || fail "$ipt-save after restore differs"
		R "$ipt" -w -D INPUT -m ddf ! --ddf-rule "$name" --ddf-mode test
		expect_eq "$(ip netns exec "$rcv" "$ipt" -w -S INPUT | grep -c ddf)" 2 \
			"$ipt: rules after -D"
		R "$ipt" -w -F INPUT
	done
done
del_rule
passed "iptables-save | iptables-restore round trips"

# Test that bad options are refused: a missing --ddf-rule, an unknown
# mode, an overlong name (by the extension), an unknown rule (by the
# kernel, which says why in its log); and that nothing was added.
R ddfctl rule add ok family ip hook none window 1000
long=a_name_of_thirty_two_characters2
bad=(
	"ddf-rule|-m ddf"
	"ddf-rule|-m ddf --ddf-mode test"
	"unknown --ddf-mode|-m ddf --ddf-rule ok --ddf-mode sometimes"
	"length|-m ddf --ddf-rule $long"
	"|-m ddf --ddf-rule nosuch"
)
for flavour in legacy nft; do
	for row in "${bad[@]}"; do
		want=${row%%|*}
		args=${row#*|}
		# shellcheck disable=SC2086
		if out=$(ip netns exec "$rcv" "iptables-$flavour" -w -A INPUT $args -j DROP 2>&1); then
			fail "iptables-$flavour -A INPUT $args succeeded"
		fi
		pretty rcv "iptables-$flavour -A INPUT $args: $out"
		grep -qiF -- "$want" <<<"$out" ||
			fail "iptables-$flavour $args: '$out' does not say '$want'"
	done
	expect_eq "$(ip netns exec "$rcv" "iptables-$flavour" -w -S INPUT | grep -c ddf)" 0 \
		"iptables-$flavour: ddf rules after the bad commands"
done
dmesg | grep -q 'xt_ddf: no rule "nosuch" in this namespace' ||
	fail "no kernel log line about the unknown rule"
R ddfctl rule del ok
passed "${#bad[@]} bad option sets refused by both flavours"

# Test that a rule used by matches cannot be deleted or flushed (EBUSY,
# "used by ... iptables match"), keeps working, and goes once the matches
# are gone; and that the module cannot be unloaded while a match exists.
R ddfctl rule add u family ip hook none proto udp window 10000
R ddfctl rule add v family ip hook none window 10000
R iptables-legacy -w -A INPUT -p udp --dport 5000 -m ddf --ddf-rule u -j DROP
R iptables-nft -w -A INPUT -p udp --dport 5000 -m ddf --ddf-rule u --ddf-mode test
for cmd in "rule del u" "rule flush"; do
	# shellcheck disable=SC2086
	if out=$(in_ns "$rcv" ddfctl $cmd 2>&1); then
		fail "ddfctl $cmd succeeded while iptables uses u"
	fi
	pretty rcv "ddfctl $cmd: $out"
	grep -qF "used by" <<<"$out" || fail "ddfctl $cmd: '$out' does not say 'used by'"
	grep -qF "iptables match" <<<"$out" || fail "ddfctl $cmd: '$out' does not name iptables"
done
if grep -q "used by 2" <<<"$out"; then :; elif ! grep -q "used by iptables" <<<"$out"; then
	fail "ddfctl: '$out' does not count two matches"
fi
expect_eq "$(in_ns "$rcv" ddfctl save | grep -c '^rule add')" 2 "rules after the refusals"
recv_start
send $path0 $src4 -n 10 -c 2
recv_wait
expect_eq "$got" "10 10" "the rule in use still works"
if pp rmmod nf_ddf 2>"$tmp/err"; then
	fail "nf_ddf unloaded while iptables matches use it"
fi
loaded || fail "nf_ddf is gone"
R iptables-legacy -w -F INPUT
if in_ns "$rcv" ddfctl rule del u 2>"$tmp/err"; then
	fail "u deleted while iptables-nft still uses it"
fi
grep -qE "used by 1 iptables match([^e]|$)|used by iptables" "$tmp/err" ||
	fail "ddfctl: '$(cat "$tmp/err")' does not count one match"
R iptables-nft -w -F INPUT
del_rule u
R ddfctl rule flush
expect_eq "$(in_ns "$rcv" ddfctl save | grep -c '^rule add')" 0 "rules after del and flush"
# nf_tables destroys a deleted rule's expressions from a worker
for _ in $(seq 50); do
	pp rmmod nf_ddf 2>/dev/null && break
	sleep 0.2
done
loaded && fail "nf_ddf cannot be unloaded after iptables -F"
pp insmod "$module"
passed "a rule in use is not deleted; the module is held by matches"

# Test that a namespace going away with rules, matches of both flavours
# and traffic in flight frees everything (its rules go first, the matches
# after: references keep the rules alive until then), and that the module
# unloads after.
R ddfctl rule add g family ip hook none proto udp window 10000
R ddfctl rule add g2 family ip hook input proto udp window 10000/50ms action count
R ddfctl rule add g6 family ip6 hook none proto udp window 10000
R iptables-legacy -w -A INPUT -m ddf --ddf-rule g -j DROP
R iptables-nft -w -A INPUT -m ddf --ddf-rule g2 --ddf-mode test
R ip6tables-legacy -w -A INPUT -m ddf --ddf-rule g6 -j DROP
R ip6tables-nft -w -A INPUT -m ddf --ddf-rule g6 --ddf-mode test
S ddfpkt send $path0 $src4 -n 5000 -c 2 >/dev/null 2>&1 &
flood=$!
sleep 0.5
pp ip netns del "$rcv"
wait "$flood" || true
pp ip netns del "$snd"
for _ in $(seq 100); do
	pp rmmod nf_ddf 2>/dev/null && break
	sleep 0.2
done
loaded && fail "nf_ddf cannot be unloaded after its namespaces went away"
passed "a namespace with matches goes away cleanly"

echo "xt.sh: $blocks passed, 0 failed"
