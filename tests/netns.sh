#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Integration tests of nf_ddf in network namespaces. Run as root on a kernel
# that can load the module (the QEMU lanes in tests/qemu/ do that):
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/netns.sh
#
# ┌─────────────────────┐              ┌─────────────────────┐
# │ $netns1             │              │ $netns2             │
# │                     │     veth     │                     │
# │  veth1 ─────────────┼──────────────┼───────────── veth2  │
# │  192.168.241.1/24   │              │   192.168.241.2/24  │
# │  fd00:241::1/64     │              │     fd00:241::2/64  │
# └─────────────────────┘              └─────────────────────┘
#
# nf_ddf is loaded in the init namespace and hooks every namespace, old and
# new. Every block below begins with "# Test that ..." and asserts on
# counters; a failed assertion stops the script (set -e) and fails it.

set -e

exec 3>&1
export LANG=C
netns1="ddf-$$-1"
netns2="ddf-$$-2"
: "${DDF_MODULES:=$(cd "$(dirname "$0")/.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
blocks=0

pretty() { echo "[+] ${1:+NS$1: }$2" >&3; }
pp() { pretty "" "$*"; "$@"; }
n1() { pretty 1 "$*"; ip netns exec "$netns1" "$@"; }
n2() { pretty 2 "$*"; ip netns exec "$netns2" "$@"; }
ip1() { pretty 1 "ip $*"; ip -n "$netns1" "$@"; }
ip2() { pretty 2 "ip $*"; ip -n "$netns2" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
passed() { blocks=$((blocks + 1)); echo "ok $blocks - $*" >&3; }
expect_eq() { [[ $1 == "$2" ]] || fail "$3: got '$1', expected '$2'"; }
expect_ge() { (($1 >= $2)) || fail "$3: got $1, expected at least $2"; }
loaded() { grep -q '^nf_ddf ' /proc/modules; }
rx_packets() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/rx_packets"; }
# The "packets N" of a named nft counter in netns2.
nft_packets() { n2 nft list counter inet ddf "$1" | sed -n 's/.*packets \([0-9]*\).*/\1/p'; }
# The packet count of rule 1 of an iptables chain in netns2.
xt_packets() { n2 "$1" -w -L "$2" 1 -v -x -n | awk '{ print $1 }'; }
waitiface() {
	local i
	for i in $(seq 100); do
		[[ $(ip netns exec "$1" cat "/sys/class/net/$2/operstate") == up ]] && return
		sleep 0.1
	done
	fail "$2 in $1 did not come up"
}

cleanup() {
	set +e
	exec 2>/dev/null
	ip netns del "$netns1"
	ip netns del "$netns2"
	loaded && rmmod nf_ddf
	exit
}
trap cleanup EXIT

if loaded; then pp rmmod nf_ddf; fi
pp ip netns add "$netns1"
pp ip netns add "$netns2"
ip1 link set up dev lo
ip2 link set up dev lo
ip1 link add veth1 type veth peer name veth2 netns "$netns2"
ip1 addr add 192.168.241.1/24 dev veth1
ip1 addr add fd00:241::1/64 dev veth1 nodad
ip2 addr add 192.168.241.2/24 dev veth2
ip2 addr add fd00:241::2/64 dev veth2 nodad
ip1 link set up dev veth1
ip2 link set up dev veth2
waitiface "$netns1" veth1
waitiface "$netns2" veth2

# Test that the module loads, is listed and logs its start.
pp insmod "$module"
loaded || fail "nf_ddf is not in /proc/modules after insmod"
dmesg | grep -q 'nf_ddf: loaded' || fail "no 'nf_ddf: loaded' in the kernel log"
passed "module loads"

# ddfctl's dumps (show, save and stats without a name) wait for an ack
# that a dump never sends, so these blocks ask for rules by name (a GET
# with an ack) and test absence by that request failing.
absent() { if "$1" ddfctl show "$2" >/dev/null 2>&1; then fail "$2 exists"; fi; }

# Test that a rule added over generic netlink reads back as it was given,
# the user's seed included, and that deleting and adding it again with the
# same request gives the same rule.
seed=00112233445566778899aabbccddeeff
add_r1() { n1 ddfctl rule add r1 family ip6 hook input priority -5 \
	iif veth1 proto udp window 1000 seed $seed action mark 0x10/0xf0; }
add_r1
n1 ddfctl show r1 | grep -q '^r1: family ip6 hook input priority -5' ||
	fail "show r1: $(n1 ddfctl show r1)"
json=$(n1 ddfctl -j show r1)
for want in '"name": "r1"' '"family": 10' '"hook": 1' '"priority": -5' \
	'"iif": "veth1"' '"proto": 17' "\"seed\": \"$seed\"" \
	'"type": 1' '"mark": 16' '"mask": 240' '"packets": 0'; do
	grep -qF "$want" <<<"$json" || fail "show -j r1 lacks $want: $json"
done
n1 ddfctl rule reset r1
n1 ddfctl rule del r1
absent n1 r1
add_r1
# the same rule but for its number: a new rule gets a new one
again=$(n1 ddfctl -j show r1)
expect_ge "$(sed -n 's/.*"id": \([0-9]*\),.*/\1/p' <<<"$again")" \
	$(($(sed -n 's/.*"id": \([0-9]*\),.*/\1/p' <<<"$json") + 1)) \
	"r1's number when added again"
expect_eq "$(sed 's/"id": [0-9]*, //' <<<"$again")" \
	"$(sed 's/"id": [0-9]*, //' <<<"$json")" "r1 added again"
n1 ddfctl rule add r2 window 1000
n1 ddfctl -j show r2 | grep -q seed && fail "a random seed is reported"
n1 ddfctl rule del r2
n1 ddfctl rule del r1
passed "rule add, show, reset, del round trip"

# Test that a second rule of the same name is refused, with a message.
n1 ddfctl rule add dup window 1000
if out=$(n1 ddfctl rule add dup window 1000 2>&1); then
	fail "a duplicate rule name was accepted"
fi
grep -q "exists" <<<"$out" || fail "no message for a duplicate name: $out"
n1 ddfctl rule del dup
passed "duplicate name refused"

# Test that deleting, showing or resetting a missing rule fails, and that
# filters above the per-rule and per-namespace caps are refused with the
# kernel's sentence.
for cmd in "rule del" "rule reset" show; do
	# shellcheck disable=SC2086
	if n1 ddfctl $cmd nosuch 2>/dev/null; then
		fail "ddfctl $cmd of a missing rule succeeded"
	fi
done
params=/sys/module/nf_ddf/parameters
max_rule=$(cat $params/max_rule_bytes)
echo 4096 >$params/max_rule_bytes
if out=$(n1 ddfctl rule add big window 100000 2>&1); then
	fail "a filter above max_rule_bytes was accepted"
fi
echo "$max_rule" >$params/max_rule_bytes
grep -q max_rule_bytes <<<"$out" || fail "no max_rule_bytes message: $out"
absent n1 big
max_net=$(cat $params/max_net_bytes)
n1 ddfctl rule add small window 1000
echo 4096 >$params/max_net_bytes
if out=$(n1 ddfctl rule add more window 100000 2>&1); then
	fail "filters above max_net_bytes were accepted"
fi
echo "$max_net" >$params/max_net_bytes
grep -q max_net_bytes <<<"$out" || fail "no max_net_bytes message: $out"
absent n1 more
n1 ddfctl rule del small
passed "missing rules and oversized filters refused"

# Test that flush empties the namespace's table, and that a dump (show and
# save without a name) lists every rule first.
for r in a b c; do n1 ddfctl rule add "$r" window 1000; done
to=
command -v timeout >/dev/null && to="timeout 20"
expect_eq "$(n1 $to ddfctl save | grep -c '^rule add ')" 3 "rules saved"
expect_eq "$(n1 $to ddfctl show | grep -c '^[abc]: ')" 3 "rules shown"
n1 ddfctl rule flush
for r in a b c; do absent n1 "$r"; done
n1 ddfctl rule add a window 1000
n1 ddfctl rule del a
passed "flush empties"

# Test that rules are per namespace: a rule of netns1 is not seen in
# netns2, and a rule of the same name can exist in both.
n1 ddfctl rule add only1 window 1000
absent n2 only1
n2 ddfctl rule add only1 window 2000
n2 ddfctl rule flush
n1 ddfctl show only1 >/dev/null
absent n2 only1
n1 ddfctl rule flush
passed "rules are per namespace"

# Test that changing rules needs CAP_NET_ADMIN over the namespace: in a new
# user namespace (root there, nobody over $netns1) every change is refused
# with EPERM and reading still works; the root of a new user and network
# namespace manages that namespace's rules and sees none of $netns1's.
n1 ddfctl rule add priv window 1000
for cmd in "rule add x window 10" "rule del priv" "rule reset priv" \
	"rule reset priv filter" "rule flush"; do
	# shellcheck disable=SC2086
	if out=$(ip netns exec "$netns1" unshare -r ddfctl $cmd 2>&1); then
		fail "ddfctl $cmd without CAP_NET_ADMIN succeeded"
	fi
	grep -q "not permitted" <<<"$out" || fail "ddfctl $cmd without CAP_NET_ADMIN: $out"
done
ip netns exec "$netns1" unshare -r ddfctl show priv >/dev/null
n1 ddfctl show priv >/dev/null
out=$(ip netns exec "$netns1" unshare -r -n sh -c \
	'ddfctl rule add mine window 10 && ddfctl save && ! ddfctl show priv 2>/dev/null')
expect_eq "$(grep -c '^rule add ' <<<"$out")" 1 "rules seen in a new user and network namespace"
grep -q '^rule add mine ' <<<"$out" || fail "the new namespace's rule: $out"
n1 ddfctl save | grep -q '^rule add mine ' && fail "a rule of another namespace is seen"
n1 ddfctl rule del priv
passed "changes need CAP_NET_ADMIN over the namespace"

# Test that every filter kind of the core builds in the kernel and
# de-duplicates: 50 datagrams sent twice through a counting rule of each
# kind. Kinds without false negatives inside the window must count exactly
# 50 copies; the others (their papers trade false negatives for memory) at
# least one and no more than they saw.
mac2=$(ip netns exec "$netns2" cat /sys/class/net/veth2/address)
kinds=(
	"exact|apbf|window 1000"
	"exact|apbbf|window 1000"
	"exact|exact|window 1000"
	"exact|shf|window 1000"
	"exact|apbbf|window 1000/1s"
	"exact|exact|window 1000/1s"
	"exact|queue|window 1000 shape inner_kind=exact,subfilters=4"
	"some|qht|window 1000"
	"some|qhtd|window 1000"
	"some|qqhtd|window 1000"
	"some|sqf|window 1000"
	"some|a2|window 1000"
	"some|bdbf|window 1000"
	"some|cuckoo|window 1000"
	"some|cshf|window 1000"
	"some|sbf|memory 64K"
	"some|rsbf|memory 64K"
	"some|bsbf|memory 64K"
	"some|bsbfsd|memory 64K"
	"some|rlbsbf|memory 64K"
)
first=0
for row in "${kinds[@]}"; do
	IFS='|' read -r want kind args <<<"$row"
	# shellcheck disable=SC2086
	n2 ddfctl rule add "k_$kind" family ip hook input proto udp filter "$kind" $args action count
	n1 ddfpkt send -i veth1 -m "$mac2" -s 192.168.241.1 -d 192.168.241.2 \
		-n 50 -c 2 -f $first >/dev/null
	first=$((first + 50))
	line=$(ip netns exec "$netns2" ddfctl stats "k_$kind")
	packets=$(sed -n 's/.* packets \([0-9]*\).*/\1/p' <<<"$line")
	dups=$(sed -n 's/.* duplicates \([0-9]*\).*/\1/p' <<<"$line")
	expect_eq "$packets" 100 "$kind packets"
	if [[ $want == exact ]]; then
		expect_eq "$dups" 50 "$kind duplicates"
	else
		expect_ge "$dups" 1 "$kind duplicates"
		expect_ge 100 "$dups" "$kind duplicates at most its packets"
	fi
	pretty 2 "$kind ($args): $dups of 50 copies"
	n2 ddfctl rule del "k_$kind"
done
passed "${#kinds[@]} filter configurations in the kernel"

# Test that IPv4 and IPv6 pings cross the veth pair with the module loaded.
before=$(rx_packets "$netns2" veth2)
n1 ping -q -c 5 -i 0.1 -W 5 192.168.241.2
n1 ping -q -c 5 -i 0.1 -W 5 fd00:241::2
expect_ge "$(rx_packets "$netns2" veth2)" $((before + 10)) "veth2 rx packets"
passed "IPv4 and IPv6 traffic over veth"

# Test that nft counts exactly the echo requests sent.
n2 nft -f - <<-EOF
	table inet ddf {
		counter echo4 { }
		counter echo6 { }
		chain input {
			type filter hook input priority 0; policy accept;
			icmp type echo-request counter name echo4
			icmpv6 type echo-request counter name echo6
		}
	}
EOF
n1 ping -q -c 7 -i 0.1 -W 5 192.168.241.2
n1 ping -q -c 4 -i 0.1 -W 5 fd00:241::2
expect_eq "$(nft_packets echo4)" 7 "nft IPv4 echo counter"
expect_eq "$(nft_packets echo6)" 4 "nft IPv6 echo counter"
n2 nft delete table inet ddf
passed "nft counts packets"

# Test that iptables, legacy and nft flavours, IPv4 and IPv6, count exactly.
for flavour in legacy nft; do
	n2 "iptables-$flavour" -w -A INPUT -p icmp --icmp-type echo-request -j ACCEPT
	n2 "ip6tables-$flavour" -w -A INPUT -p ipv6-icmp --icmpv6-type echo-request -j ACCEPT
	n1 ping -q -c 3 -i 0.1 -W 5 192.168.241.2
	n1 ping -q -c 2 -i 0.1 -W 5 fd00:241::2
	expect_eq "$(xt_packets "iptables-$flavour" INPUT)" 3 "iptables-$flavour counter"
	expect_eq "$(xt_packets "ip6tables-$flavour" INPUT)" 2 "ip6tables-$flavour counter"
	n2 "iptables-$flavour" -w -F INPUT
	n2 "ip6tables-$flavour" -w -F INPUT
done
passed "iptables-legacy and iptables-nft count packets"

# Test that a rule registers its own hook at its priority, that a rule with
# hook none registers none, and that deleting the rule removes its hook.
# Only kernels with nfnetlink_hook list hooks; there the probe table's
# chain makes the list non-empty.
n1 nft add table ip ddf_probe
n1 nft add chain ip ddf_probe input "{ type filter hook input priority 0; }"
if [[ -n $(n1 nft list hooks ip 2>/dev/null) ]]; then
	n1 ddfctl rule add hk family ip hook input priority -123 window 1000
	n1 ddfctl rule add hn family ip hook none window 1000
	hooks=$(n1 nft list hooks ip)
	grep -q -- '-0000000123 nf_ddf_hook' <<<"$hooks" ||
		fail "no nf_ddf hook at priority -123: $hooks"
	expect_eq "$(grep -c nf_ddf_hook <<<"$hooks")" 1 "nf_ddf hooks for two rules, one without a hook"
	n1 ddfctl rule add hk6 family inet hook forward window 1000
	n1 nft list hooks ip6 | grep -q nf_ddf_hook || fail "an inet rule has no ip6 hook"
	n1 ddfctl rule flush
	! n1 nft list hooks ip | grep -q nf_ddf_hook || fail "nf_ddf hook left after flush"
	lists_hooks=1
	passed "a hook per rule"
else
	echo "# skip: this kernel cannot list netfilter hooks"
	lists_hooks=0
fi
n1 nft delete table ip ddf_probe

# Test that the module unloads and reloads under traffic, while namespaces
# come and go, without losing a packet.
before=$(rx_packets "$netns2" veth2)
n1 ping -q -A -c 400 -W 5 192.168.241.2 >"/tmp/ddf-ping.$$" &
ping_pid=$!
for i in $(seq 10); do
	rmmod nf_ddf
	ip netns add "$netns1-$i"
	insmod "$module"
	ip netns del "$netns1-$i"
done
wait $ping_pid || fail "ping under module reloads: $(cat "/tmp/ddf-ping.$$")"
received=$(sed -n 's/.*, \([0-9]*\) \(packets \)\{0,1\}received.*/\1/p' "/tmp/ddf-ping.$$")
rm -f "/tmp/ddf-ping.$$"
expect_eq "$received" 400 "echo replies during reloads"
expect_ge "$(rx_packets "$netns2" veth2)" $((before + 400)) "veth2 rx packets"
passed "reload under traffic"

# Test that unloading removes the module and its hooks, with rules in two
# namespaces and one namespace gone with its rules (the debug lane's
# kmemleak scan then finds nothing left behind).
n1 ddfctl rule add u1 family ip hook input window 1000
n2 ddfctl rule add u2 window 1000/1s
pp ip netns add "$netns1-rules"
ip netns exec "$netns1-rules" ddfctl rule add gone window 1000
pp ip netns del "$netns1-rules"
pp rmmod nf_ddf
! loaded || fail "nf_ddf still in /proc/modules after rmmod"
if ((lists_hooks)); then
	! n1 nft list hooks ip | grep -q nf_ddf_hook || fail "nf_ddf hook left after rmmod"
fi
n1 ping -q -c 2 -i 0.1 -W 5 192.168.241.2
passed "module unloads"

echo "netns.sh: $blocks passed, 0 failed"
