#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ddfctl -o prometheus against the kernel's own replies: after known
# traffic through a netdev rule over two ports (and through a second rule,
# whose name needs escaping, on one of them), every sample of
# `ddfctl -o prometheus stats` is the number `ddfctl -j stats` gives, each
# device has its own samples, and nothing else is printed.
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/netns/metrics.sh
#
# ┌──────────────┐         ┌──────────────────────────────────────┐
# │ $snd         │         │ $rcv                                 │
# │  s0 ─────────┼─────────┼─ m0 ┐ rule ports: dev m0,m1 ingress  │
# │  s1 ─────────┼─────────┼─ m1 ┘ rule q"x\y: dev m0 (count)     │
# └──────────────┘         │       rule t: inet, no packets       │
#                          └──────────────────────────────────────┘
# Frames go to a MAC address nobody has (a mirror port's traffic).

set -e

exec 3>&1
export LANG=C
snd="ddfprom-$$-snd"
rcv="ddfprom-$$-rcv"
: "${DDF_MODULES:=$(cd "$(dirname "$0")/../.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
tmp=$(mktemp -d)
blocks=0
foreign=02:00:5e:00:53:99
odd='q"x\y'

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"

cleanup() {
	set +e
	exec 2>/dev/null
	ip netns del "$snd"
	ip netns del "$rcv"
	rm -rf "$tmp"
	loaded && rmmod nf_ddf
	exit
}
trap cleanup EXIT

if loaded; then pp rmmod nf_ddf; fi
for ns in "$snd" "$rcv"; do
	pp ip netns add "$ns"
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	ip -n "$ns" link set up dev lo
done
for p in 0 1; do
	ip -n "$snd" link add "s$p" type veth peer name "m$p" netns "$rcv"
	ip -n "$snd" link set up dev "s$p"
	ip -n "$rcv" link set "m$p" promisc on up
done
pp insmod "$module"

R ddfctl rule add ports family netdev hook ingress dev m0,m1 \
	window 100000 fpr 1e-6 seed 00112233445566778899aabbccddeeff action drop
R ddfctl rule add "$odd" family netdev dev m0 priority -20 filter exact \
	window 2ms action count
R ddfctl rule add t family inet filter sbf memory 64K action count

# 40 datagrams twice, m0's copy first, 10 once on each port, 40 twice,
# m1's copy first: 180 frames, 80 of them copies
S taskset -c 0 ddfpkt send -i s0 -m "$foreign" -I s1 -M "$foreign" \
	-s 192.0.2.1 -d 198.51.100.2 -f 0 -n 40 -c 2 -w 1000 >/dev/null
S ddfpkt send -i s0 -m "$foreign" -s 192.0.2.7 -d 198.51.100.2 -f 100 -n 10 >/dev/null
S ddfpkt send -i s1 -m "$foreign" -s 192.0.2.7 -d 198.51.100.2 -f 200 -n 10 >/dev/null
S taskset -c 0 ddfpkt send -i s1 -m "$foreign" -I s0 -M "$foreign" \
	-s 192.0.2.1 -d 198.51.100.2 -f 300 -n 40 -c 2 -w 1000 >/dev/null
sleep 0.5

R ddfctl -o prometheus stats >"$tmp/prom"
R ddfctl -j stats >"$tmp/json"
pretty rcv "$(grep -c -v '^#' "$tmp/prom") samples"
grep -v '^# HELP' "$tmp/prom" | head -n 40 >&3

# The samples by NAME{LABELS}; sample NAME LABELS: a value ("" for none).
# Shell builtins only: a process costs much under TCG.
declare -A samples
while IFS= read -r line; do
	[[ $line == "#"* ]] || samples[${line% *}]=${line##* }
done <"$tmp/prom"
sample() {
	local k="$1{$2}"
	printf '%s' "${samples[$k]}"
}
# first KEY TEXT: the first number of "KEY": in TEXT; word KEY TEXT: its
# string ("" when there is none, no failure: set -e)
first() {
	local re="\"$1\": ([-0-9.e+]+)"
	if [[ $2 =~ $re ]]; then printf '%s' "${BASH_REMATCH[1]}"; fi
}
word() {
	local re="\"$1\": \"([^\"]*)\""
	if [[ $2 =~ $re ]]; then printf '%s' "${BASH_REMATCH[1]}"; fi
}
# rule_json NAME: ddfctl -j stats NAME's object
rule_json() { R ddfctl -j stats "$1"; }
# close A B SCALE: A x SCALE and B agree to JSON's 6 digits
close() {
	awk -v a="$1" -v b="$2" -v s="$3" \
		'BEGIN { d = a * s - b; if (d < 0) d = -d; m = b < 0 ? -b : b;
			 exit !(d <= 5e-6 * m + 0.5 * (s > 1)) }'
}

# Test that the traffic's numbers are the samples
expect_eq "$(sample ddf_packets_total 'rule="ports"')" 180 "ddf_packets_total of ports"
expect_eq "$(sample ddf_duplicates_total 'rule="ports"')" 80 "ddf_duplicates_total of ports"
expect_eq "$(sample ddf_dropped_total 'rule="ports"')" 80 "ddf_dropped_total of ports"
expect_eq "$(sample ddf_packets_total 'rule="t"')" 0 "ddf_packets_total of t"
m0=$(sample ddf_dev_packets_total 'rule="ports",dev="m0",port="1"')
m1=$(sample ddf_dev_packets_total 'rule="ports",dev="m1",port="2"')
expect_eq "$((m0 + m1))" 180 "ddf_dev_packets_total of ports, m0 $m0 and m1 $m1"
expect_eq "$(sample ddf_packets_total 'rule="q\"x\\y"')" "$m0" "ddf_packets_total of $odd, m0's frames"
passed "-o prometheus: the traffic's counts, per rule and per device"

# Test that every sample is the number of ddfctl -j stats, and that there
# is no other: per rule 6 counters, bytes, fill, fpr, window (when there
# is one), window_seconds (a time window), info, and 6 per device
want=0
for name in ports "$odd" t; do
	json=$(rule_json "$name")
	lbl=${name//\\/\\\\}
	lbl="rule=\"${lbl//\"/\\\"}\""
	# the rule's own counters: the last "stats" (the devices' come first)
	stats=${json##*\"stats\": \{}
	for c in packets bytes duplicates dropped marked unparsed; do
		expect_eq "$(sample "ddf_${c}_total" "$lbl")" "$(first "$c" "$stats")" \
			"$name: ddf_${c}_total against -j stats"
	done
	re='"filter": \{[^}]*\}'
	[[ $json =~ $re ]] || fail "$name: no filter in -j stats: $json"
	filter=${BASH_REMATCH[0]}
	expect_eq "$(sample ddf_filter_bytes "$lbl")" "$(first bytes "$filter")" \
		"$name: ddf_filter_bytes"
	v=$(sample ddf_filter_fill_ratio "$lbl")
	close "$v" "$(first fill_ppm "$stats")" 1e6 ||
		fail "$name: ddf_filter_fill_ratio $v, fill_ppm $(first fill_ppm "$stats")"
	fpr=$(first fpr "$filter")
	v=$(sample ddf_filter_fpr "$lbl")
	[[ -n $fpr ]] || fail "$name: no fpr in -j stats: $filter"
	close "$v" "$fpr" 1 || fail "$name: ddf_filter_fpr $v, -j stats $fpr"
	window=$(first window "$filter")
	expect_eq "$(sample ddf_filter_window "$lbl")" "${window#0}" "$name: ddf_filter_window"
	ns=$(first window_ns "$filter")
	v=$(sample ddf_filter_window_seconds "$lbl")
	if [[ -n $ns ]]; then
		close "$v" "$ns" 1e9 || fail "$name: window_seconds $v, window_ns $ns"
	else
		expect_eq "$v" "" "$name: ddf_filter_window_seconds without a time window"
	fi
	info="$lbl,family=\"$(word family_name "$json")\",hook=\"$(word hook_name "$json")\""
	info="$info,kind=\"$(word kind_name "$filter")\",action=\"$(word type_name "$json")\""
	expect_eq "$(sample ddf_rule_info "$info")" 1 "$name: ddf_rule_info{$info}"
	want=$((want + 6 + 4 + (window > 0) + (${#ns} > 0)))
	# the devices: each {"name": DEV, ...} entry of devs, port its place
	port=0
	for dev in $(grep -o '{"name": "[^"]*", "ifindex"' <<<"$json" | cut -d'"' -f4); do
		port=$((port + 1))
		re="\\{\"name\": \"$dev\", [^}]*\\}"
		[[ $json =~ $re ]] || fail "$name: no device $dev in -j stats"
		d=${BASH_REMATCH[0]}
		for c in packets bytes duplicates dropped marked unparsed; do
			expect_eq "$(sample "ddf_dev_${c}_total" "$lbl,dev=\"$dev\",port=\"$port\"")" \
				"$(first "$c" "$d")" "$name $dev: ddf_dev_${c}_total"
		done
		want=$((want + 6))
	done
done
expect_eq "$(grep -c -v '^#' "$tmp/prom")" "$want" "samples printed"
expect_eq "$(grep '^# TYPE' "$tmp/prom" | sort | uniq -d)" "" "a TYPE twice"
passed "-o prometheus: each of its $want samples is -j stats' number"

# Test that show prints the same, and that a missing rule is named
R ddfctl -o prometheus show >"$tmp/show"
cmp -s "$tmp/prom" "$tmp/show" || fail "-o prometheus show differs from stats: $(diff "$tmp/prom" "$tmp/show")"
if R ddfctl -o prometheus stats nosuch >"$tmp/out" 2>"$tmp/err"; then
	fail "-o prometheus stats nosuch succeeded"
fi
expect_eq "$(cat "$tmp/err")" "ddfctl: stats: no rule named 'nosuch'" "stats nosuch"
expect_eq "$(cat "$tmp/out")" "" "stats nosuch printed"
passed "-o prometheus: show prints the same; a missing rule is named"

echo "metrics.sh: $blocks blocks passed"
