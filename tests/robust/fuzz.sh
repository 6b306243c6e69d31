#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The netlink fuzzer: ddffuzz (tests/robust/ddffuzz.c) sends random and
# mutated requests of the family "ddf" to nf_ddf in fresh namespaces, checks
# every answer, and compares the rules left with what the accepted requests
# describe. Then requests from an unprivileged user namespace must all get
# EPERM, and the namespaces and the module go with their rules (the debug
# lane's kmemleak scan comes after). Run as root where nf_ddf.ko loads:
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/robust/fuzz.sh
#
# DDF_FUZZ_MESSAGES (default 100,000; 1,000,000 with DDF_SOAK=1) is split:
# 60% by one process, 20% each by two processes at once in two other
# namespaces. DDF_FUZZ_SEED replays a run (each process prints its seed).

set -e

exec 3>&1
export LANG=C
: "${DDF_MODULES:=$(cd "$(dirname "$0")/../.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
tmp=$(mktemp -d)
blocks=0
ns=(ddf-$$-fz0 ddf-$$-fz1 ddf-$$-fz2)

# In the VM lib.bash sits one level up; in the tree, in tests/netns/.
lib=$(dirname "$0")/../lib.bash
[[ -e $lib ]] || lib=$(dirname "$0")/../netns/lib.bash
# shellcheck source=tests/netns/lib.bash
. "$lib"

if [[ $DDF_SOAK == 1 ]]; then total=${DDF_FUZZ_MESSAGES:-1000000}; else total=${DDF_FUZZ_MESSAGES:-100000}; fi
seed=${DDF_FUZZ_SEED:-$((RANDOM << 30 | RANDOM << 15 | RANDOM))}
one=$((total * 6 / 10))
share=$(((total - one) / 2))

cleanup() {
	set +e
	exec 2>/dev/null
	for n in "${ns[@]}"; do ip netns del "$n"; done
	rm -rf "$tmp"
	loaded && rmmod nf_ddf
	exit
}
trap cleanup EXIT

command -v ddffuzz >/dev/null || PATH=$PATH:$(cd "$(dirname "$0")/../.." && pwd)/build/robust
if loaded; then pp rmmod nf_ddf; fi
# Small caps: mutated sizes reach them, and the VM's memory stays free.
pp insmod "$module" max_rule_bytes=1048576 max_net_bytes=16777216
for n in "${ns[@]}"; do
	pp ip netns add "$n"
	ip -n "$n" link set up dev lo
done

# fuzz NS SEED COUNT: one ddffuzz in namespace NS.
fuzz() {
	ip netns exec "$1" ddffuzz -s "$2" -n "$3" 2>&1
}

# Test that one process's requests are answered cleanly and leave the
# rules the accepted ones describe.
start=$SECONDS
pretty fz0 "ddffuzz -s $seed -n $one"
# its progress shows as it goes (the pair below prints when done)
fuzz "${ns[0]}" "$seed" "$one" | tee "$tmp/fz0"
rc=${PIPESTATUS[0]}
((rc == 0)) || fail "ddffuzz in ${ns[0]} failed ($rc; seed $seed)"
grep -q '^ddffuzz: rule set: .*: equal$' "$tmp/fz0" || fail "no rule set comparison"
passed "$one messages from one process ($((SECONDS - start)) s)"

# Test the same with two processes at once, each in its namespace.
start=$SECONDS
pretty fz1 "ddffuzz -s $((seed + 1)) -n $share"
pretty fz2 "ddffuzz -s $((seed + 2)) -n $share"
fuzz "${ns[1]}" $((seed + 1)) "$share" >"$tmp/fz1" & p1=$!
fuzz "${ns[2]}" $((seed + 2)) "$share" >"$tmp/fz2" & p2=$!
rc1=0 rc2=0
wait "$p1" || rc1=$?
wait "$p2" || rc2=$?
for i in 1 2; do
	echo "--- ${ns[i]}"
	cat "$tmp/fz$i"
done
((rc1 == 0)) || fail "ddffuzz in ${ns[1]} failed ($rc1; seed $((seed + 1)))"
((rc2 == 0)) || fail "ddffuzz in ${ns[2]} failed ($rc2; seed $((seed + 2)))"
passed "2 x $share messages from two processes at once ($((SECONDS - start)) s)"

# Test that from a user namespace without CAP_NET_ADMIN over the network
# namespace every changing request (mutated or not) gets EPERM, and that
# the rules stay as they were.
pretty fz0 "unshare -r ddffuzz -u -s $seed -n 300"
out=$(ip netns exec "${ns[0]}" unshare -r ddffuzz -u -s "$seed" -n 300 2>&1) ||
	{ echo "$out"; fail "unprivileged requests were not all refused with EPERM"; }
echo "$out"
grep -q '^ddffuzz: unprivileged: [0-9]* changing requests, [0-9]* EPERM, 0 other' <<<"$out" ||
	fail "no unprivileged summary"
passed "unprivileged changes refused with EPERM"

# Test that namespaces holding fuzzed rules go away and the module unloads.
for n in "${ns[@]}"; do pp ip netns del "$n"; done
ns=()
pp rmmod nf_ddf
! loaded || fail "nf_ddf still loaded"
passed "namespaces and module gone"
