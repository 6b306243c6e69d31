#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory caps: filters beyond max_rule_bytes or beyond what is left of a
# namespace's max_net_bytes are refused with the kernel's sentence, and
# many namespaces each filled to its cap stay inside the memory the caps
# promise. With the caps lowered (max_rule_bytes 2 MiB, max_net_bytes
# 8 MiB), 20 namespaces (50 in a soak) each get rules until one is refused
# for max_net_bytes; /proc/meminfo's MemAvailable must drop by about what
# the rules hold and no more than the caps allow, stay above a floor, and
# come back once the namespaces are gone (Slab and VmallocUsed too). A
# request far above the caps (a 10^12 window, a 1 TiB filter) is refused
# at once, without trying to allocate. Run as root where nf_ddf.ko loads:
#
#   DDF_MODULES=<directory with nf_ddf.ko> [DDF_SOAK=1] tests/robust/caps.sh

set -e

exec 3>&1
export LANG=C
: "${DDF_MODULES:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${DDF_SOAK:=0}"
module=$DDF_MODULES/nf_ddf.ko
blocks=0
# In the VMs lib.bash sits one directory up; in the tree, in tests/netns/.
lib=$(dirname "$0")/../lib.bash
[[ -e $lib ]] || lib=$(dirname "$0")/../netns/lib.bash
# shellcheck source=tests/netns/lib.bash
. "$lib"

nss=20
((DDF_SOAK)) && nss=50
max_rule=$((2 << 20))
max_net=$((8 << 20))
params=/sys/module/nf_ddf/parameters
pfx="ddf-$$-c"

cleanup() {
	set +e
	exec 2>/dev/null
	for ns in $(ip netns list | sed -n "s/^\(${pfx}[0-9]*\).*/\1/p"); do
		ip netns del "$ns"
	done
	loaded && ddfctl rule flush
	loaded && rmmod nf_ddf
	exit
}
trap cleanup EXIT

# kB of a /proc/meminfo line
mem() { sed -n "s/^$1: *\([0-9]*\) kB$/\1/p" /proc/meminfo; }
mib() { echo "$((($1 + 512) / 1024)) MiB"; }
snap() { avail=$(mem MemAvailable) slab=$(mem Slab) vmalloc=$(mem VmallocUsed); }

if loaded; then pp rmmod nf_ddf; fi
pp insmod "$module" max_rule_bytes=$max_rule max_net_bytes=$max_net
expect_eq "$(cat $params/max_rule_bytes)" $max_rule "max_rule_bytes"
expect_eq "$(cat $params/max_net_bytes)" $max_net "max_net_bytes"

# One filter just under max_rule_bytes, sized once by ddfctl (slow under
# emulation); the namespaces get its resolved shape.
ddfctl rule add probe filter apbbf window 200000 memory 1900K action count
line=$(ddfctl save | grep '^rule add probe ')
words=${line#rule add probe }
size=$(ddfctl show probe | sed -n 's/.*memory \([0-9]*\) bytes.*/\1/p')
ddfctl rule del probe
((size > 0 && size <= max_rule)) || fail "the filter has $size bytes"
fit=$((max_net / size))
pretty "" "a filter of $size bytes: $fit fit under max_net_bytes $max_net"

# Test that a filter above max_rule_bytes is refused with the kernel's
# sentence naming the cap, and so is one that fits max_rule_bytes but not
# what is left of max_net_bytes; the rules that fit are all there.
if out=$(ddfctl rule add over filter exact window 100000 2>&1); then
	fail "a filter above max_rule_bytes was accepted"
fi
pretty "" "$out"
grep -q "the filter is larger than max_rule_bytes" <<<"$out" || fail "no max_rule_bytes sentence: $out"
for i in $(seq "$fit"); do
	# shellcheck disable=SC2086
	ddfctl rule add "r$i" $words
done
# shellcheck disable=SC2086
if out=$(ddfctl rule add more $words 2>&1); then
	fail "a filter beyond max_net_bytes was accepted"
fi
pretty "" "$out"
grep -q "the namespace's rules would exceed max_net_bytes" <<<"$out" ||
	fail "no max_net_bytes sentence: $out"
expect_eq "$(ddfctl save | grep -c '^rule add r')" "$fit" "rules under the cap"
ddfctl rule flush
passed "over max_rule_bytes and over max_net_bytes: refused, with the cap named"

# Test that requests far above the caps are refused at once, by the size
# check and not by a failed allocation: no allocation failure in the
# kernel log, MemAvailable where it was. ddfctl itself refuses what the
# core cannot size (a 10^12 window at a target rate, more than 64 GiB);
# given shapes of 22 GB and 8 GiB reach the kernel.
snap
a0=$avail
lines=$(dmesg | wc -l)
t0=${EPOCHREALTIME/./}
for req in "kernel|filter apbbf window 1000000000000 shape k=10,l=10,m=16777216,block_bits=512,block_hashes=8" \
	"kernel|filter qqhtd window 1000000000000 shape k=4,m=1073741824,fp_bits=16" \
	"ddfctl|filter apbbf window 1000000000000 fpr 1e-6" \
	"ddfctl|filter exact window 1000000000000" \
	"ddfctl|window 1000000 memory 1024G"; do
	who=${req%%|*} req=${req#*|}
	# shellcheck disable=SC2086
	if out=$(ddfctl rule add huge $req 2>&1); then
		ddfctl show huge
		fail "$req was accepted"
	fi
	pretty "" "$req: $out"
	if [[ $who == kernel ]]; then
		grep -q "the kernel refused: the filter is larger than max_rule_bytes" <<<"$out" ||
			fail "$req: not the kernel's max_rule_bytes refusal: $out"
	else
		! grep -q "the kernel refused" <<<"$out" ||
			fail "$req: ddfctl sent it: $out"
	fi
done
ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
pretty "" "five requests far above the caps refused in $ms ms"
((ms < 10000)) || fail "the refusals took $ms ms"
if dmesg | tail -n +$((lines + 1)) | grep -E 'allocation failure|vmalloc error'; then
	fail "a request far above the caps reached an allocation"
fi
snap
expect_ge $((avail + 4096)) "$a0" "MemAvailable (kB) after the refusals"
passed "requests far above the caps refused in $ms ms, nothing allocated"

# Test that $nss namespaces, each filled until the kernel refuses a rule
# for max_net_bytes, hold what their rules hold and no more than the caps
# allow, leave the VM a floor of memory, and give it all back when they go.
sync
echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
snap
a0=$avail s0=$slab v0=$vmalloc
total=$(mem MemTotal)
pretty "" "before: MemAvailable $(mib "$a0") of $(mib "$total"), Slab $(mib "$s0"), VmallocUsed $(mib "$v0")"
t0=$SECONDS
held=0
for i in $(seq "$nss"); do
	ns=$pfx$i
	ip netns add "$ns"
	# shellcheck disable=SC2016,SC2086
	out=$(ip netns exec "$ns" bash -c '
		n=0
		while ddfctl rule add "f$n" '"$words"' 2>/tmp/caps.err.$$; do
			n=$((n + 1))
		done
		echo "$n $(cat /tmp/caps.err.$$)"
		rm -f /tmp/caps.err.$$')
	n=${out%% *}
	expect_eq "$n" "$fit" "rules accepted in $ns"
	grep -q "the namespace's rules would exceed max_net_bytes" <<<"$out" ||
		fail "$ns: the rule after $n was refused for another reason: ${out#* }"
	held=$((held + n * size))
done
snap
used=$((a0 - avail))
pretty "" "$nss namespaces at their cap in $((SECONDS - t0)) s: rules hold $(mib $((held / 1024))), MemAvailable $(mib "$avail") (down $(mib "$used")), Slab $(mib "$slab"), VmallocUsed $(mib "$vmalloc")"
# what the rules hold is really there (less a tenth for measurement) ...
expect_ge "$used" $((held * 9 / 10240)) "MemAvailable drop (kB) against the rules' bytes"
# ... and no more than the caps allow: the filters, KASAN's shadow of
# vmalloc'ed ones (1/8) and 1 MiB per namespace of everything else
expect_ge $((nss * max_net * 9 / 8192 + nss * 1024)) "$used" "MemAvailable drop (kB) within the caps"
floor=$((total / 4))
expect_ge "$avail" "$floor" "MemAvailable (kB) above a quarter of MemTotal"
passed "$nss namespaces at their cap: $(mib "$used") used for $(mib $((held / 1024))) of filters, $(mib "$avail") left"

t0=$SECONDS
for i in $(seq "$nss"); do ip netns del "$pfx$i"; done
# namespaces go in a kernel worker, filters a grace period later
for _ in $(seq 60); do
	snap
	((avail + 16384 >= a0)) && break
	sleep 1
done
sync
echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
snap
pretty "" "after: MemAvailable $(mib "$avail"), Slab $(mib "$slab"), VmallocUsed $(mib "$vmalloc") ($((SECONDS - t0)) s)"
expect_ge $((avail + 16384)) "$a0" "MemAvailable (kB) back within 16 MiB"
expect_ge $((v0 + 4096)) "$vmalloc" "VmallocUsed (kB) back within 4 MiB"
expect_ge $((s0 + 16384)) "$slab" "Slab (kB) back within 16 MiB"
passed "the namespaces gone: MemAvailable, Slab and VmallocUsed back"

echo "caps.sh: $blocks passed, 0 failed"
