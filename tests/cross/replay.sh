#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Replay decides the same on any CPU: every capture the project has
# (scripts/captures.bash) replayed with one seed by this machine's ddfctl
# and by another build of it (another architecture's, under qemu-user),
# under rules that take each key form, filter and window kind; the two
# must write the same log, record by record (its decision and length),
# and the same summary, counter by counter.
#
#   tests/cross/replay.sh NAME BUILD_DIR REF_DDFCTL OTHER_DDFCTL [ARGS...]
#
# NAME names the other build in the output; OTHER_DDFCTL [ARGS...] is how
# to run it (e.g. qemu-s390x-static -L SYSROOT ddfctl). BUILD_DIR holds
# the tools that write the generated captures. Each rule replays all the
# captures ddfctl reads as one merged stream (family netdev: the Ethernet
# ones), so one run covers them all. Exits 1 when anything differs.
set -u
name=$1 b=$2 ref=$3
shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$root/scripts/captures.bash"
captures_collect "$tmp" "$b"

# the captures ddfctl reads, and the Ethernet ones (family netdev)
ip=() eth=()
# shellcheck disable=SC2154 # files: set by captures_collect
for f in "${files[@]}"; do
	"$ref" replay "$f" window 10 -l /dev/null >/dev/null 2>&1 || continue
	ip+=("$f")
	if "$ref" replay "$f" family netdev window 10 -l /dev/null >/dev/null 2>&1; then
		eth+=("$f")
	fi
done
echo "replay ($name): ${#files[@]} captures, ${#ip[@]} readable, ${#eth[@]} Ethernet"

seed=00112233445566778899aabbccddeeff
pass=0 fail=0
# rule SET WORDS...: the captures of SET (ip or eth) replayed by both
rule() {
	local set=$1 what
	shift
	what="$*"
	if [ "$set" = eth ]; then set -- "${eth[@]}" "$@"; else set -- "${ip[@]}" "$@"; fi
	if ! "$ref" -j replay "$@" seed "$seed" -l "$tmp/a" >"$tmp/a.json" 2>"$tmp/a.err"; then
		echo "not ok: $what: this machine's ddfctl fails: $(head -n 1 "$tmp/a.err")"
		fail=$((fail + 1))
		return
	fi
	if ! "${other[@]}" -j replay "$@" seed "$seed" -l "$tmp/b" >"$tmp/b.json" 2>"$tmp/b.err"; then
		echo "not ok: $what: $name's ddfctl fails: $(head -n 1 "$tmp/b.err")"
		fail=$((fail + 1))
		return
	fi
	local n dup
	n=$(wc -l <"$tmp/a")
	dup=$(grep -c ' duplicate' "$tmp/a")
	if [ "$n" -gt 0 ] && cmp -s "$tmp/a" "$tmp/b" &&
		cmp -s "$tmp/a.json" "$tmp/b.json"; then
		echo "ok: $what: $n records, $dup duplicates, the same decisions"
		pass=$((pass + 1))
	else
		echo "not ok: $what: $n records ($dup duplicates here); the logs or the summaries differ:"
		diff "$tmp/a" "$tmp/b" | head -n 5
		diff "$tmp/a.json" "$tmp/b.json" | head -n 5
		fail=$((fail + 1))
	fi
}
other=("$@")

# The key's forms (the default packet key; the whole packet through NH;
# fields with a payload window; tunnels opened; netdev frames, whole and
# as packets) under apbbf and qqhtd, SipHash-2-4 once; then every filter
# under the default key; count and time windows.
rule ip filter apbbf window 100000 fpr 1e-3
rule ip key packet max-bytes 65535 ignore ttl,ipv4csum,dscp,ecn,ipid,flowlabel,l4csum filter apbbf window 100000 fpr 1e-6
rule ip key saddr,daddr,proto,sport,dport,payload payload 0:200 filter apbbf window 1000 fpr 1e-3
rule ip key saddr,daddr,ipid,tcpseq,tcpack,icmpid filter qqhtd window 1000 hash siphash24
rule ip decap vxlan,geneve,gre,erspan,gtpu filter apbbf window 10000 fpr 1e-4
rule ip proto tcp filter apbbf window 10000 tune memory
rule ip family ip6 filter apbbf window 10000
rule eth family netdev key frame ignore vlan,mac filter apbbf window 100000 fpr 1e-3
rule eth family netdev max-bytes 2048 filter qqhtd window 10000
for f in exact apbf qht qhtd qqhtd sqf a2 bdbf cuckoo shf cshf; do
	rule ip filter "$f" window 2000
done
for f in sbf rsbf bsbf bsbfsd rlbsbf; do
	rule ip filter "$f" memory 64K
done
# a rate on one of a2's shape boundaries: the last bit of the sizing
# chooses k (4 here; 5 where a multiply and add were fused)
rule ip filter a2 window 2000 fpr 0.0494152228576408
rule ip filter apbbf window 5ms fpr 1e-3
rule ip filter apbf window 1000/100ms
rule ip filter exact window 1s

echo "replay ($name): $pass rules decide the same, $fail differ"
[ "$fail" = 0 ]
