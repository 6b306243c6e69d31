#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ddfctl without the kernel: sizing (against ddfbench, the same core), the
# error sentences of bad commands, and the dry-run (-n) netlink requests.
# Usage: tests/tools/test_ddfctl.sh [BUILD_DIR]
set -e

B=${1:-build}
CTL=$B/ddfctl
BENCH=$B/ddfbench
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# Test that ddfctl answers --help, both globally and for rule add
"$CTL" --help >"$tmp/out"
grep -q '^  rule add ' "$tmp/out" && grep -q '^  size ' "$tmp/out" && ok ||
	bad "--help lists the commands"
grep -q '^  rule reset  NAME \[filter\] ' "$tmp/out" && ok ||
	bad "--help shows reset's filter word"
grep -q '^  show .* analytic fpr$' "$tmp/out" && ok ||
	bad "--help says show gives the analytic fpr"
grep -q '^  restore .* all or none$' "$tmp/out" && ok ||
	bad "--help says restore is all or none"
"$CTL" rule add --help >"$tmp/out"
grep -q 'defaults: family inet hook prerouting priority 0' "$tmp/out" && ok ||
	bad "rule add --help states the defaults"

# Test that --help, rule add --help, size --help and the man page document
# the bare window DURATION (100 kpps) and the kinds without a window
for how in "--help" "rule add --help" "size --help"; do
	# shellcheck disable=SC2086
	"$CTL" $how >"$tmp/out"
	grep -q 'N = DURATION x 100 kpps' "$tmp/out" && ok ||
		bad "$how documents a bare window DURATION"
	grep -q 'sbf rsbf bsbf bsbfsd rlbsbf' "$tmp/out" && ok ||
		bad "$how names the kinds without a window"
done
grep -q '100 kpps' tools/ddfctl/ddfctl.8 &&
	grep -q 'sbf, rsbf, bsbf, bsbfsd' tools/ddfctl/ddfctl.8 && ok ||
	bad "ddfctl.8 documents bare durations and the kinds without a window"

# Test that size answers --help, and that the man page renders cleanly
"$CTL" size --help | grep -q '^usage: ddfctl \[-j\] size ' && ok ||
	bad "size --help"
if command -v groff >/dev/null; then
	[ -z "$(groff -t -man -Tutf8 -ww -z tools/ddfctl/ddfctl.8 2>&1)" ] && ok ||
		bad "ddfctl.8 has groff warnings"
fi

# Test that ddfctl size gives ddfbench's numbers for the same request
while read -r kind window how value cpus tune; do
	more=() bmore=()
	[ -n "$cpus" ] && more=(cpus "$cpus") bmore=(--cpus "$cpus")
	[ -n "$tune" ] && more+=(tune "$tune") bmore+=(--tune "$tune")
	"$CTL" -j size filter "$kind" window "$window" "$how" "$value" \
		"${more[@]}" >"$tmp/ctl"
	"$BENCH" size --json --filter "$kind" --window "$window" \
		"--$how" "$value" "${bmore[@]}" >"$tmp/bench"
	if cmp -s "$tmp/ctl" "$tmp/bench"; then
		ok
	else
		bad "size $kind $window $how $value $cpus:" \
			"$(cat "$tmp/ctl") vs $(cat "$tmp/bench")"
	fi
done <<'LIST'
apbbf 1000000 fpr 1e-6 1 speed
apbbf 1000000 fpr 1e-6 64 speed
apbbf 1000000 fpr 1e-6 1 memory
apbbf 10000 fpr 1e-9 2 memory
apbbf 10000 fpr 1e-9 2 speed
apbf 100000 fpr 1e-3 1 speed
apbf 100000 fpr 1e-3 4 memory
apbbf 100000 memory 1M 1
apbbf 100000 memory 1M 16
qqhtd 100000 fpr 1e-4
qhtd 1000000 fpr 1e-5
LIST

# Test that batched tickets keep the window asked for, cost the memory of
# their slack (at most 1/64 of the generation, the slots' lines, and room
# for 2 (C - 1) inserts under way a generation), and
# that the default is the possible CPUs the kernel would use
for c in 1 2 8 64 1024; do
	"$CTL" -j size window 1000000 cpus "$c" tune memory >"$tmp/c$c"
done
python3 - "$tmp" <<'PY' && ok || bad "cpus: window or memory off"
import json, sys
d = sys.argv[1]
one = json.load(open(d + "/c1"))
for c in (2, 8, 64, 1024):
    r = json.load(open(d + "/c%d" % c))
    w, b = r["params"]["window"], r["bytes"]
    assert r["params"]["cpus"] == c, r
    assert w >= 1000000, r
    under_way = 2.0 * (c - 1) * (r["params"]["l"] + 1) / 1000000
    assert b <= one["bytes"] * (1 + 1.0 / 64 + 1.0 / 1000 + under_way) + \
        64 * c, (c, b)
    assert b >= one["bytes"], (c, b)
PY
possible=$(sed 's/.*[-,]//' /sys/devices/system/cpu/possible)
want=$((possible + 1))
[ "$want" -gt 8192 ] && want=8192
"$CTL" -n rule add web window 100k | grep -qx "    DDF_FILTER_A_CPUS $want" &&
	ok || bad "rule add sends DDF_FILTER_A_CPUS $want by default"
"$CTL" -n rule add web window 100k filter exact | grep -q CPUS &&
	bad "an exact rule sends cpus" || ok

# Test that the kinds without a window are sized by memory alone, or with
# fpr as the target, as ddfbench sizes them with window 0
while read -r kind memory fpr; do
	more=() bmore=()
	[ -n "$fpr" ] && more=(fpr "$fpr") bmore=(--fpr "$fpr")
	"$CTL" -j size filter "$kind" memory "$memory" "${more[@]}" >"$tmp/ctl"
	"$BENCH" size --json --filter "$kind" --window 0 --memory "$memory" \
		"${bmore[@]}" >"$tmp/bench"
	if cmp -s "$tmp/ctl" "$tmp/bench"; then
		ok
	else
		bad "size $kind memory $memory $fpr:" \
			"$(cat "$tmp/ctl") vs $(cat "$tmp/bench")"
	fi
done <<'LIST'
sbf 1048576
sbf 262144 1e-3
rsbf 1048576 0.05
bsbf 65536
bsbfsd 1048576
rlbsbf 1048576 0.05
LIST
"$CTL" size filter sbf memory 1M >"$tmp/out"
for want in 'filter      sbf' 'shape       k=2 l=0 m=4193280 d=2 P=39' \
	'window      none: sbf forgets at random' 'memory      1048576 bytes' \
	'fp rate     0.0194 analytic'; do
	grep -qxF "$want" "$tmp/out" && ok || bad "size of sbf prints '$want'"
done

# Test that size without a kernel prints shape, memory, bits per element
# and the analytic rate, and defaults to fpr 1e-6
"$CTL" size filter apbbf window 1000000 cpus 1 tune memory >"$tmp/out"
for want in 'filter      apbbf' \
	'shape       k=6 l=18 m=3772 B=512 b=4 (tune memory)' \
	'window      1000044 packets' \
	'memory      6035712 bytes (48.28 bits per element)' \
	'fp rate     9.43e-07 analytic' \
	'new key     9 cache lines, 24 atomic words'; do
	grep -qxF "$want" "$tmp/out" && ok || bad "size prints '$want'"
done

# Test that size without tune prints both tunes side by side: tune speed
# (rule add's default) as size ... tune speed gives it, tune memory as
# size ... tune memory, each column's numbers from those runs
"$CTL" size window 1M cpus 1 >"$tmp/out"
"$CTL" -j size window 1M cpus 1 tune speed >"$tmp/s"
"$CTL" -j size window 1M cpus 1 tune memory >"$tmp/m"
python3 - "$tmp" <<'PY' && ok || bad "size side by side: $(cat "$tmp/out")"
import json, sys
d = sys.argv[1]
s, m = (json.load(open(d + f)) for f in ("/s", "/m"))
rows = {}
for line in open(d + "/out"):
    if len(line) > 23 and line[:23].strip():
        rows[line[:23].strip()] = line[23:].split()
assert rows[""] if "" in rows else True
def col(name, i):
    cells = rows[name]
    return cells[:len(cells) // 2] if i == 0 else cells[len(cells) // 2:]
for i, r in enumerate((s, m)):
    p = r["params"]
    assert col("shape", i) == ["k=%d" % p["k"], "l=%d" % p["l"], "m=%d" % p["m"]], (i, rows)
    assert col("block", i) == ["B=%d" % p["block_bits"], "b=%d" % p["block_hashes"]], (i, rows)
    assert col("memory, bytes", i)[0] == str(r["bytes"]), (i, rows)
    assert col("bits per element", i) == ["%.2f" % r["bits_per_element"]], (i, rows)
    assert col("cache lines, new key", i) == [str(r["lines_per_new_key"])], (i, rows)
    assert col("atomic words, new key", i) == [str(r["atomics_per_new_key"])], (i, rows)
    assert col("fp rate, analytic", i) == ["%.3g" % r["fpr_analytic"]], (i, rows)
assert s["bytes"] <= 2 * m["bytes"] and s["fpr_analytic"] <= 1e-6
PY
"$CTL" -j size window 1M cpus 1 >"$tmp/both"
python3 - "$tmp" <<'PY' && ok || bad "size -j without tune: $(cat "$tmp/both")"
import json, sys
d = sys.argv[1]
both, s, m = (json.load(open(d + f)) for f in ("/both", "/s", "/m"))
inner = both.pop("tune_memory")
assert both == s and inner == m, (both, s, inner, m)
PY

# Test that tune is refused where it chooses nothing, and names its words
while IFS='|' read -r want args; do
	# shellcheck disable=SC2086
	if "$CTL" $args >"$tmp/out" 2>"$tmp/err"; then
		bad "'$args' succeeded"
	else
		grep -qF -- "$want" "$tmp/err" && ok ||
			bad "'$args' does not say '$want': $(cat "$tmp/err")"
	fi
done <<'LIST'
tune: 'fast' is not speed or memory|size window 1000 tune fast
tune: 'speed' given, but qqhtd has one shape|size filter qqhtd window 1000 tune speed
tune: 'memory' given with memory|size window 1000 memory 1M tune memory
tune: 'speed' given with a shape|-n rule add r window 1000 shape k=2,l=3,m=100 tune speed
tune: needs an argument|size window 1000 tune
LIST

# Test that a time window is sized for its packets and reported in time
"$CTL" size window 100k/250ms tune memory >"$tmp/out"
grep -qxF 'window      100206 packets per 250ms' "$tmp/out" && ok ||
	bad "size of a time window: $(cat "$tmp/out")"

# Test that a bare DURATION is sized as N/DURATION at 100 kpps (N rounded
# up, at least 1), says so, and builds the same request as N/DURATION
"$CTL" size window 250ms tune memory >"$tmp/out"
grep -qxF 'window      25175 packets per 250ms (100 kpps assumed: give N/DURATION for another rate)' \
	"$tmp/out" && ok || bad "size of a bare duration: $(cat "$tmp/out")"
while read -r bare explicit; do
	"$CTL" -j size window "$bare" >"$tmp/a"
	"$CTL" -j size window "$explicit" >"$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" && ok ||
		bad "size window $bare is not $explicit: $(cat "$tmp/a") vs $(cat "$tmp/b")"
	"$CTL" -n rule add t filter exact window "$bare" action count >"$tmp/a"
	"$CTL" -n rule add t filter exact window "$explicit" action count >"$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" && ok ||
		bad "rule add window $bare is not $explicit: $(diff "$tmp/a" "$tmp/b")"
done <<'LIST'
2ms 200/2ms
500us 50/500us
30s 3M/30s
1.5ms 150/1.5ms
10us 1/10us
15us 2/15us
1m 6M/1m
LIST
"$CTL" -n rule add t window 2ms tune memory >"$tmp/out"
grep -qxF '    DDF_FILTER_A_WINDOW_NS 2000000 (2ms)' "$tmp/out" &&
	grep -qxF '    DDF_FILTER_A_WINDOW 210' "$tmp/out" && ok ||
	bad "window 2ms request: $(cat "$tmp/out")"

# Test that a word neither count nor duration keeps its sentence, bare or
# in size
for how in "-n rule add r" "size"; do
	# shellcheck disable=SC2086
	"$CTL" $how window 3parsecs >"$tmp/out" 2>"$tmp/err" &&
		bad "$how window 3parsecs succeeded" ||
		{ grep -qxF "ddfctl: window: '3parsecs' is not a count or a duration" "$tmp/err" &&
			ok || bad "$how window 3parsecs: $(cat "$tmp/err")"; }
done

# Test that the kinds without a window send WINDOW 0 and no WINDOW_NS,
# sized as ddfctl size says
for kind in sbf rsbf bsbf bsbfsd rlbsbf; do
	"$CTL" -n rule add s filter "$kind" memory 256K >"$tmp/out"
	"$CTL" -j size filter "$kind" memory 256K >"$tmp/size"
	m=$(sed -n 's/.*"m": \([0-9]*\).*/\1/p' "$tmp/size")
	grep -qxF '    DDF_FILTER_A_WINDOW 0' "$tmp/out" &&
		grep -qxF "    DDF_FILTER_A_M $m" "$tmp/out" &&
		! grep -q WINDOW_NS "$tmp/out" && ok ||
		bad "$kind request: $(cat "$tmp/out")"
done
"$CTL" -n rule add s filter sbf memory 1M fpr 1e-3 >"$tmp/out"
"$CTL" -n rule add s filter sbf memory 1M >"$tmp/b"
grep -q 'DDF_FILTER_A_DECREMENTS' "$tmp/out" && ! cmp -s "$tmp/out" "$tmp/b" &&
	ok || bad "fpr beside memory is sbf's target: $(cat "$tmp/out")"

# Test that each bad command exits non-zero with a sentence naming the bad
# word (table: the word the message must quote, then the arguments)
n=0
while IFS='|' read -r word args; do
	[ -z "$word" ] && continue
	n=$((n + 1))
	# shellcheck disable=SC2086
	if eval "\"\$CTL\" $args" >"$tmp/out" 2>"$tmp/err"; then
		bad "'$args' succeeded"
		continue
	fi
	if grep -qF -- "$word" "$tmp/err" && grep -q '^ddfctl: ' "$tmp/err"; then
		ok
	else
		bad "'$args' does not name '$word': $(cat "$tmp/err")"
	fi
	[ -s "$tmp/out" ] && bad "'$args' printed on stdout"
done <<'TABLE'
'3 parsecs'|-n rule add r window '3 parsecs'
'bogus'|xdp bogus
needs rule NAME|-n xdp attach dev eth0
needs dev DEV|-n xdp attach rule r
needs dev DEV|-n xdp detach
'fast'|-n xdp attach dev eth0 rule r mode fast
'rule'|-n xdp detach dev eth0 rule r
'mode'|-n xdp attach dev eth0 rule r mode
'eth0'|xdp show eth0
'eth0:1'|-n xdp attach dev eth0:1 rule r
'-r'|-n xdp attach dev eth0 rule -r
'3parsecs'|-n rule add r window 3parsecs
'5us'|-n rule add r window 5us
'2h'|-n rule add r window 2h
'1.5ns'|-n rule add r window 1.5ns
'2h'|-n rule add r window 10k/2h
'5us'|-n rule add r window 10k/5us
'0'|-n rule add r window 0
'0'|-n rule add r window 100 fpr 0
'1'|-n rule add r window 100 fpr 1
'2'|-n rule add r window 100 fpr 2
'often'|-n rule add r window 100 fpr often
'1M' given with fpr|-n rule add r window 100 fpr 1e-3 memory 1M
'1e-3' given with memory|-n rule add r window 100 memory 1M fpr 1e-3
'12Q'|-n rule add r window 100 memory 12Q
'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'|-n rule add aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa window 100
payload|-n rule add r window 100 payload 0:64
'0:x'|-n rule add r window 100 key payload payload 0:x
'4000:200'|-n rule add r window 100 key payload payload 4000:200
'saddr,payload'|-n rule add r window 100 key saddr,payload
'key saddr'|-n rule add r window 100 key saddr payload 0:8
'bogus'|-n rule add r window 100 key saddr,bogus
'foo'|-n rule add r window 100 ignore ttl,foo
'dscp'|-n rule add r window 100 ignore dscp
'ttl'|-n rule add r window 100 key saddr ignore ttl
'0xzz'|-n rule add r window 100 action mark 0x10/0xzz
'0x100'|-n rule add r window 100 action mark 0x100/0xff
'lots'|-n rule add r window 100 action mark lots
'explode'|-n rule add r window 100 action explode
'12ab'|-n rule add r window 100 seed 12ab
'0123456789abcdef0123456789abcdeg'|-n rule add r window 100 seed 0123456789abcdef0123456789abcdeg
'bloom'|-n rule add r window 100 filter bloom
'sha1'|-n rule add r window 100 hash sha1
'0'|-n rule add r window 100 max-bytes 0
'65536'|-n rule add r window 100 max-bytes 65536
'lots'|-n rule add r window 100 max-bytes lots
'-1'|-n rule add r window 100 max-bytes -1
max-bytes: '64'|-n rule add r window 100 key saddr,daddr max-bytes 64
max-bytes: '64'|-n rule add r window 100 max-bytes 64 key saddr
hash: needs an argument|-n rule add r window 100 hash
'none'|-n rule add r window 100 hook none
'sideways'|-n rule add r window 100 hook sideways
'ip7'|-n rule add r window 100 family ip7
'icmp'|-n rule add r window 100 family ip6 proto icmp
'icmpv6'|-n rule add r window 100 family ip proto icmpv6
'gre'|-n rule add r window 100 proto gre
'eth0'|-n rule add r window 100 hook output iif eth0
'eth1'|-n rule add r window 100 oif eth1
'averyveryverylongifname'|-n rule add r window 100 iif averyveryverylongifname
'1.5'|-n rule add r window 100 priority 1.5
'frobnicate'|-n rule add r window 100 frobnicate
'link'|-n rule add r window 100 family link
'sideways'|-n rule add r window 100 family netdev dev eth0 hook sideways
rule add: 'r' has family netdev: give dev DEV|-n rule add r window 100 family netdev
hook: 'prerouting' is a hook of the IP families; family netdev has ingress, egress and none|-n rule add r window 100 hook prerouting family netdev dev eth0
hook: 'ingress' is a hook of family netdev (a device's frames); family ip has|-n rule add r window 100 family ip hook ingress
hook: 'egress' is a hook of family netdev|-n rule add r window 100 hook egress
dev: 'eth0' binds a rule of family netdev to a device; family inet|-n rule add r window 100 dev eth0
dev: 'eth0' binds a rule of family netdev to a device; family ip6|-n rule add r window 100 family ip6 dev eth0
iif: 'eth1' is refused with family netdev|-n rule add r window 100 family netdev dev eth0 iif eth1
oif: 'eth1' is refused with family netdev|-n rule add r window 100 oif eth1 family netdev dev eth0
'averyveryverylongifname'|-n rule add r window 100 family netdev dev averyveryverylongifname
'eth0:1'|-n rule add r window 100 family netdev dev eth0:1
dev: needs an argument|-n rule add r window 100 family netdev dev
key: 'frame' needs family netdev: IP hooks see packets from their IP header on|-n rule add r window 100 key frame
key: 'frame' needs family netdev|-n rule add r window 100 family ip key frame
ignore: 'vlan' needs family netdev: IP hooks never see the link layer|-n rule add r window 100 ignore ttl,ipv4csum,vlan
ignore: 'mac' needs family netdev|-n rule add r window 100 family ip6 key saddr ignore mac
ignore: 'ttl' masks bytes of 'key packet'; 'key frame' hashes every byte of the frame (its ignore words are vlan and mac)|-n rule add r window 100 family netdev dev eth0 key frame ignore vlan,ttl
ignore: 'dscp' masks bytes of 'key packet'; with 'key saddr'|-n rule add r window 100 family netdev dev eth0 key saddr ignore vlan,dscp
max-bytes: '64'|-n rule add r window 100 family netdev dev eth0 key frame max-bytes 64
proto: 'udp' selects packets by their IP header|-n rule add r window 100 family netdev dev eth0 key frame proto udp
'ipip' is not a tunnel|-n rule add r window 100 decap ipip
decap: 'vxlan' is named twice in 'vxlan,gre,vxlan:8472'|-n rule add r window 100 decap vxlan,gre,vxlan:8472
decap: '0' in 'vxlan:0' is not a UDP port (1 to 65535)|-n rule add r window 100 decap vxlan:0
decap: '65536' in 'geneve:65536' is not a UDP port|-n rule add r window 100 decap geneve:65536
decap: 'x' in 'vxlan:x' is not a UDP port|-n rule add r window 100 decap vxlan:x
decap: 'gre:47': gre has no port to give|-n rule add r window 100 decap gre:47
decap: 'none' is listed with tunnels in 'none,gre'|-n rule add r window 100 decap none,gre
decap: vxlan and geneve are both on UDP port 6081|-n rule add r window 100 decap vxlan:6081,geneve
decap: vxlan and gtpu are both on UDP port 2152|-n rule add r window 100 decap gtpu,vxlan:2152
decap: ',' names no tunnel|-n rule add r window 100 decap ,
decap: needs an argument|-n rule add r window 100 decap
fpr: needs an argument|-n rule add r window 100 fpr
'r'|-n rule add r
10 bytes|-n rule add r window 1000 memory 10
'qqhtd'|-n rule add r window 100k/1s filter qqhtd
'zz'|-n rule add r window 100 shape k=6,zz=1
'six'|-n rule add r window 100 shape k=six
shape: given with fpr|-n rule add r window 100 shape k=6 fpr 1e-3
'frobnicate'|frobnicate
'-x'|-x show
'r2'|-n rule del r1 r2
'everything'|-n rule reset r1 everything
'now'|-n rule reset r1 filter now
rule reset: needs a NAME|-n rule reset
'extra'|-n show r extra
'bloom'|size filter bloom window 100
'3 parsecs'|size window '3 parsecs'
'1M' given with fpr|size window 100 fpr 1e-3 memory 1M
'1e-3' given with memory|-n rule add r memory 1M fpr 1e-3 window 100
'1M' given with fpr|-n rule add r filter exact fpr 1e-3 window 100 memory 1M
window: '100' given, but sbf has no window: it forgets at random; size it with memory SIZE|-n rule add r filter sbf window 100 memory 1M
window: '1k' given, but rsbf has no window|-n rule add r window 1k filter rsbf memory 1M
window: '0' given, but bsbf has no window|-n rule add r filter bsbf window 0 memory 64K
window: '2ms' given, but rlbsbf has no window|-n rule add r filter rlbsbf window 2ms memory 64K
rule add: 'r' has filter bsbfsd, which has no window (it forgets at random) and is sized by memory|-n rule add r filter bsbfsd
fpr: '1e-3' alone does not size rlbsbf|-n rule add r filter rlbsbf fpr 1e-3
shape: given with memory|-n rule add r filter sbf memory 1M shape k=2
fpr: '0.05' with memory 65536 bytes gives no bsbfsd filter|-n rule add r filter bsbfsd memory 64K fpr 0.05
rule add: 'r' needs a window|-n rule add r filter exact memory 1M
rule add: 'r' needs a window|-n rule add r filter cuckoo fpr 1e-3
size: filter sbf has no window|size filter sbf
window: '1000' given, but sbf has no window|size filter sbf window 1000 memory 1M
size: needs a window|size filter apbf memory 1M
TABLE
[ "$n" -ge 20 ] && ok || bad "the bad-input table has only $n rows"

# Test that a dry run of a default rule prints the resolved request: inet,
# prerouting, key packet ignoring ttl,ipv4csum, apbbf at 1e-6, drop (the
# least-memory shape here; the default tune's below)
"$CTL" -n rule add web window 100k cpus 1 tune memory >"$tmp/out"
cat >"$tmp/want" <<'WANT'
DDF_CMD_NEW
  DDF_A_NAME "web"
  DDF_A_FAMILY 1 (inet)
  DDF_A_HOOK 0 (prerouting)
  DDF_A_PRIORITY 0
  DDF_A_KEY
    DDF_KEY_A_FORM 0 (packet)
    DDF_KEY_A_IGNORE 3 (ttl,ipv4csum)
    DDF_KEY_A_MAX_BYTES 1500
  DDF_A_FILTER
    DDF_FILTER_A_KIND 2 (apbbf)
    DDF_FILTER_A_WINDOW 100206
    DDF_FILTER_A_K 6
    DDF_FILTER_A_L 18
    DDF_FILTER_A_M 378
    DDF_FILTER_A_BLOCK_BITS 512
    DDF_FILTER_A_BLOCK_HASHES 4
    DDF_FILTER_A_CPUS 1
  DDF_A_ACTION
    DDF_ACTION_A_TYPE 0 (drop)
WANT
diff -u "$tmp/want" "$tmp/out" && ok || bad "dry run of the default rule"

# Test that rule add takes tune speed by default and sends the shape size
# prints for it: at 1e-6, 64-bit blocks of 8 bits, k=4 l=7 (docs/tuning.md)
"$CTL" -n rule add web window 100k cpus 1 >"$tmp/out"
"$CTL" -j size window 100k cpus 1 tune speed >"$tmp/s"
python3 - "$tmp" <<'PY' && ok || bad "rule add's default tune: $(cat "$tmp/out")"
import json, sys
d = sys.argv[1]
p = json.load(open(d + "/s"))["params"]
assert (p["k"], p["l"], p["block_bits"], p["block_hashes"]) == (4, 7, 64, 8), p
sent = open(d + "/out").read()
for name, v in (("WINDOW", p["window"]), ("K", p["k"]), ("L", p["l"]),
                ("M", p["m"]), ("BLOCK_BITS", 64), ("BLOCK_HASHES", 8)):
    assert "    DDF_FILTER_A_%s %d\n" % (name, v) in sent, name
PY
"$CTL" -n rule add web window 100k cpus 1 tune speed | cmp -s - "$tmp/out" &&
	ok || bad "rule add ... tune speed differs from the default"

# Test that a field key, ports, interfaces, a time window, a seed and a
# mark all reach the request
"$CTL" -n rule add dns family ip hook forward priority -5 iif eth0 oif eth1 \
	proto udp key saddr,daddr,sport,dport,payload payload 0:12 \
	filter qqhtd window 50000 fpr 1e-4 \
	seed 000102030405060708090a0b0c0d0e0f action mark 0x10/0xf0 \
	>"$tmp/out"
for want in '  DDF_A_FAMILY 2 (ip)' '  DDF_A_HOOK 2 (forward)' \
	'  DDF_A_PRIORITY -5' '  DDF_A_IIFNAME "eth0"' \
	'  DDF_A_OIFNAME "eth1"' '  DDF_A_L4PROTO 17 (udp)' \
	'    DDF_KEY_A_FORM 1 (fields)' \
	'    DDF_KEY_A_FIELDS 539 (saddr,daddr,sport,dport,payload)' \
	'    DDF_KEY_A_PAYLOAD_OFF 0' '    DDF_KEY_A_PAYLOAD_LEN 12' \
	'    DDF_FILTER_A_KIND 5 (qqhtd)' \
	'    DDF_FILTER_A_SEED 000102030405060708090a0b0c0d0e0f' \
	'    DDF_ACTION_A_TYPE 1 (mark)' '    DDF_ACTION_A_MARK 16' \
	'    DDF_ACTION_A_MASK 240'; do
	grep -qxF -- "$want" "$tmp/out" && ok || bad "dns rule: '$want'"
done
grep -q 'DDF_KEY_A_IGNORE' "$tmp/out" && bad "a field key sends no ignore" ||
	ok

# Test that a rule of family netdev sends family 5, its hook in that
# family (ingress 0 by default, egress 1, none) and its device, and that
# the key's link-layer ignore words and tunnels reach the request
"$CTL" -n rule add cap family netdev dev eth1 window 1000 \
	ignore ttl,ipv4csum,vlan decap vxlan:8472,gre action count >"$tmp/out"
cat >"$tmp/want" <<'WANT'
DDF_CMD_NEW
  DDF_A_NAME "cap"
  DDF_A_FAMILY 5 (netdev)
  DDF_A_HOOK 0 (ingress)
  DDF_A_DEV "eth1"
  DDF_A_PRIORITY 0
  DDF_A_KEY
    DDF_KEY_A_FORM 0 (packet)
    DDF_KEY_A_IGNORE 131 (ttl,ipv4csum,vlan)
    DDF_KEY_A_MAX_BYTES 1500
    DDF_KEY_A_DECAP 5 (vxlan,gre)
    DDF_KEY_A_VXLAN_PORT 8472
WANT
sed -n '1,/VXLAN_PORT/p' "$tmp/out" | diff -u "$tmp/want" - && ok ||
	bad "dry run of a netdev rule"
while IFS='|' read -r words want1 want2; do
	# shellcheck disable=SC2086
	"$CTL" -n rule add n $words window 1000 >"$tmp/out" 2>&1
	for w in "$want1" "$want2"; do
		grep -qxF -- "$w" "$tmp/out" && ok ||
			bad "rule add n $words: no '$w' in $(cat "$tmp/out")"
	done
done <<'LIST'
family netdev dev eth1 hook egress|  DDF_A_HOOK 1 (egress)|  DDF_A_DEV "eth1"
family netdev dev eth1 hook none priority -7|  DDF_A_HOOK 255 (none)|  DDF_A_PRIORITY -7
family netdev dev eth1 key frame|    DDF_KEY_A_FORM 2 (frame)|    DDF_KEY_A_IGNORE 0 (none)
family netdev dev eth1 key frame ignore vlan,mac|    DDF_KEY_A_FORM 2 (frame)|    DDF_KEY_A_IGNORE 384 (vlan,mac)
family netdev dev eth1 key saddr,daddr ignore mac|    DDF_KEY_A_FIELDS 3 (saddr,daddr)|    DDF_KEY_A_IGNORE 256 (mac)
family ip decap geneve:6090,erspan,gtpu|    DDF_KEY_A_DECAP 26 (geneve,erspan,gtpu)|    DDF_KEY_A_GENEVE_PORT 6090
key saddr decap vxlan:4789|    DDF_KEY_A_FORM 1 (fields)|    DDF_KEY_A_DECAP 1 (vxlan)
LIST
# what is left out: max-bytes of key frame, the default port, decap none,
# every netdev attribute of an inet rule
while IFS='|' read -r words unwanted; do
	# shellcheck disable=SC2086
	"$CTL" -n rule add n $words window 1000 >"$tmp/out"
	grep -q -- "$unwanted" "$tmp/out" &&
		bad "rule add n $words sends $unwanted: $(cat "$tmp/out")" || ok
done <<'LIST'
family netdev dev e key frame|MAX_BYTES
key saddr decap vxlan:4789|VXLAN_PORT
decap geneve:6081|GENEVE_PORT
decap none|DECAP
family inet|DEV\|DECAP\|ingress
key saddr,daddr|IGNORE
LIST

# Test that restore of a netdev rule's save line sends the request of the
# rule add it came from (the lines as save writes them)
while IFS='|' read -r words saved; do
	# shellcheck disable=SC2086
	"$CTL" -n rule add n $words >"$tmp/a"
	echo "rule add n $saved" | "$CTL" -n restore >"$tmp/b" || true
	diff -u "$tmp/a" "$tmp/b" >/dev/null && ok ||
		bad "restore of '$saved' is not rule add $words: $(diff "$tmp/a" "$tmp/b")"
done <<'LIST'
family netdev dev eth1 window 100 shape k=3,l=10,m=7,block_bits=512,block_hashes=8|family netdev hook ingress dev eth1 priority 0 key packet ignore ttl,ipv4csum filter apbbf window 100 shape k=3,l=10,m=7,block_bits=512,block_hashes=8 action drop
family netdev hook egress dev eth1 key frame ignore mac filter exact window 100|family netdev hook egress dev eth1 priority 0 key frame ignore mac filter exact window 100 action drop
family netdev dev eth1 key saddr ignore vlan decap vxlan:8472,gtpu filter exact window 100|family netdev hook ingress dev eth1 priority 0 key saddr ignore vlan decap vxlan:8472,gtpu filter exact window 100 action drop
family netdev dev a\,b,c\\d,\x41\x2c filter exact window 100|family netdev hook ingress dev a\,b,c\\d,A\, priority 0 key packet ignore ttl,ipv4csum filter exact window 100 action drop
LIST

# Test that a device name takes the escapes save writes (\\ \, \xHH) in
# dev, iif, oif and xdp's dev, on the command line and in restore: Linux
# allows ',' and '\' in a name
"$CTL" -n rule add n family netdev dev 'a\,b,c\\d,\x41\x2c' window 100 \
	>"$tmp/out" 2>&1 || true
for w in '      DDF_DEV_A_NAME "a,b"' '      DDF_DEV_A_NAME "c\d"' \
	'      DDF_DEV_A_NAME "A,"'; do
	grep -qxF -- "$w" "$tmp/out" && ok ||
		bad "dev 'a\\,b,c\\\\d,\\x41\\x2c': no '$w' in $(cat "$tmp/out")"
done
[ "$(grep -c DDF_DEV_A_NAME "$tmp/out")" = 3 ] && ok ||
	bad "dev 'a\\,b,c\\\\d,\\x41\\x2c' is not 3 devices: $(cat "$tmp/out")"
"$CTL" -n rule add n family ip hook forward iif 'x\,y' oif 'p\x5c' \
	window 100 >"$tmp/out" 2>&1 || true
grep -qxF '  DDF_A_IIFNAME "x,y"' "$tmp/out" &&
	grep -qxF '  DDF_A_OIFNAME "p\"' "$tmp/out" && ok ||
	bad "iif 'x\\,y' oif 'p\\x5c': $(cat "$tmp/out")"
"$CTL" -n xdp attach dev 'e\,1' rule r >"$tmp/out" 2>&1 || true
grep -q '^xdp attach dev e,1 rule r ' "$tmp/out" && ok ||
	bad "xdp attach dev 'e\\,1': $(cat "$tmp/out")"
printf '%s\n' 'rule add n family netdev hook none dev a\,b,c\\d window 100' \
	'xdp attach dev a\x2cb rule n' | "$CTL" -n restore >"$tmp/out" 2>&1 ||
	true
grep -qxF '      DDF_DEV_A_NAME "a,b"' "$tmp/out" &&
	grep -q '^xdp attach dev a,b rule n ' "$tmp/out" && ok ||
	bad "restore of escaped devices: $(cat "$tmp/out")"
# what the kernel's dev_valid_name() refuses (its isspace() has \v \f \r
# and 0xa0), and escapes that are none
while IFS='|' read -r want dev; do
	if "$CTL" -n rule add n family netdev dev "$(printf "$dev")" window 100 \
		>"$tmp/out" 2>"$tmp/err"; then
		bad "dev '$dev' was taken: $(cat "$tmp/out")"
	else
		grep -qF -- "$want" "$tmp/err" && ok ||
			bad "dev '$dev' does not say '$want': $(cat "$tmp/err")"
	fi
done <<'LIST'
is not an interface name|a\vb
is not an interface name|a\fb
is not an interface name|a\rb
is not an interface name|a\240b
is not an interface name|a\\x20b
is not an interface name|a\\x2fb
is not an interface name|\\x2e
is not an interface name|a\\x41bcdefghijklmno
a backslash starts|a\\qb
a backslash starts|a\\x00
a backslash starts|a\\x4
a backslash starts|ab\\
names a\x2cb twice|a\\,b,a\\x2cb
LIST

# Test that hash siphash24 travels as DDF_FILTER_A_HASH, and that the
# default (SipHash-1-3) is left to the kernel
"$CTL" -n rule add h window 1000 hash siphash24 >"$tmp/out"
grep -qxF '    DDF_FILTER_A_HASH 1 (siphash24)' "$tmp/out" && ok ||
	bad "hash siphash24 request: $(cat "$tmp/out")"
"$CTL" -n rule add h window 1000 hash siphash13 >"$tmp/out"
grep -q DDF_FILTER_A_HASH "$tmp/out" && bad "the default hash is sent" || ok

# Test that max-bytes travels as DDF_KEY_A_MAX_BYTES of key packet
"$CTL" -n rule add mb window 1000 max-bytes 128 >"$tmp/out"
grep -qxF '    DDF_KEY_A_MAX_BYTES 128' "$tmp/out" && ok ||
	bad "max-bytes 128 request: $(cat "$tmp/out")"
"$CTL" -n rule add mb window 1000 key packet max-bytes 65535 >"$tmp/out"
grep -qxF '    DDF_KEY_A_MAX_BYTES 65535' "$tmp/out" && ok ||
	bad "max-bytes 65535 request: $(cat "$tmp/out")"

# Test that a time window travels as WINDOW_NS beside its packet count
"$CTL" -n rule add t window 100k/1s action count >"$tmp/out"
grep -qxF '    DDF_FILTER_A_WINDOW_NS 1000000000 (1s)' "$tmp/out" &&
	grep -qxF '    DDF_ACTION_A_TYPE 2 (count)' "$tmp/out" && ok ||
	bad "time window request: $(cat "$tmp/out")"

# Test that a memory budget sizes the filter within it
"$CTL" -n rule add m window 100000 memory 1M >"$tmp/out"
"$CTL" -j size window 100000 memory 1M >"$tmp/size"
m=$(sed -n 's/.*"m": \([0-9]*\).*/\1/p' "$tmp/size")
grep -qxF "    DDF_FILTER_A_M $m" "$tmp/out" && ok ||
	bad "memory rule is sized as ddfctl size says"

# Test that del, reset, flush, show and stats build their requests
"$CTL" -n rule del web | head -2 | tr '\n' ' ' | grep -qF 'DDF_CMD_DEL   DDF_A_NAME "web"' &&
	ok || bad "rule del request"
printf 'DDF_CMD_RESET\n  DDF_A_NAME "web"\n' >"$tmp/want"
"$CTL" -n rule reset web | diff -u "$tmp/want" - && ok ||
	bad "reset sends no flags: only the counters are zeroed"
printf '  DDF_A_RESET_FLAGS 1 (filter)\n' >>"$tmp/want"
"$CTL" -n rule reset web filter | diff -u "$tmp/want" - && ok ||
	bad "reset NAME filter empties the filter too"
[ "$("$CTL" -n rule flush)" = "DDF_CMD_FLUSH" ] && ok || bad "flush"
[ "$("$CTL" -n show)" = "DDF_CMD_GET dump" ] && ok || bad "show all"
"$CTL" -n -j stats web | head -1 | grep -qx 'DDF_CMD_GET' && ok ||
	bad "stats of one rule"

# Test that restore reads rule add lines and refuses anything else
printf '# saved\nrule add a window 1000\n\nrule add b window 2000 action count\n' |
	"$CTL" -n restore >"$tmp/out"
[ "$(grep -c '^DDF_CMD_NEW' "$tmp/out")" = 2 ] && ok || bad "restore of 2 rules"
grep -qxF '  DDF_A_NAME "b"' "$tmp/out" && ok || bad "restore sends rule b"

# Test that restore takes save's lines of the kinds without a window
printf 'rule add s filter sbf shape k=2,m=4193280,cell_bits=2,decrements=39\nrule add b filter rlbsbf shape k=3,m=4096\n' |
	"$CTL" -n restore >"$tmp/out"
[ "$(grep -c '^    DDF_FILTER_A_WINDOW 0$' "$tmp/out")" = 2 ] && ok ||
	bad "restore of sbf and rlbsbf lines: $(cat "$tmp/out")"

# Test that restore parses every line before it sends anything: a bad line
# anywhere is named with the parser's sentence, and no request goes out
# (table: what stderr must say, then the lines, \n-separated)
while IFS='|' read -r want lines; do
	[ -z "$want" ] && continue
	if printf "$lines" | "$CTL" -n restore >"$tmp/out" 2>"$tmp/err"; then
		bad "restore of '$lines' succeeded"
		continue
	fi
	grep -qF -- "$want" "$tmp/err" && grep -qF 'restore: no rule was added' "$tmp/err" &&
		ok || bad "restore of '$lines' does not say '$want': $(cat "$tmp/err")"
	[ -s "$tmp/out" ] && bad "restore of '$lines' sent: $(head -3 "$tmp/out")"
done <<'TABLE'
line 1: 'del' is not a 'rule add' or 'xdp attach' line|rule del a\n
line 3: 'show' is not a 'rule add' or 'xdp attach' line|rule add a window 1000\n# x\nshow\n
line 2: window: '3parsecs' is not a count or a duration|rule add a window 1000\nrule add b window 3parsecs\n
line 3: hash: 'md5' is not siphash13 or siphash24|rule add a window 1000\n\nrule add b window 10 hash md5\nrule add c window 10\n
line 2: max-bytes: '0' is not|rule add a window 1000\nrule add b window 10 max-bytes 0\n
line 2: rule add: needs a NAME|rule add a window 1000\nrule add\n
line 3: rule 'a' is on line 1 already|rule add a window 1000\nrule add b window 10\nrule add a window 10\n
line 2: window: '10' given, but sbf has no window|rule add a window 1000\nrule add b filter sbf window 10 memory 1M\n
line 1: rule add: 'b' needs a window|rule add b filter exact shape k=1\n
line 2: rule add: 'n' has family netdev: give dev DEV|rule add a window 1000\nrule add n family netdev hook ingress priority 0 window 1000\n
line 1: key: 'frame' needs family netdev|rule add n family inet hook prerouting priority 0 key frame window 10\n
line 2: xdp attach: rule 'n' is on no line before it|rule add a window 1000\nxdp attach dev eth1 rule n mode native\nrule add n family netdev hook none dev eth1 window 10\n
line 2: xdp attach: rule 'n' (line 1) is not of family netdev hook none|rule add n family netdev dev eth1 window 10\nxdp attach dev eth1 rule n\n
line 2: xdp attach: rule 'n' (line 1) is not for dev eth2|rule add n family netdev hook none dev eth1 window 10\nxdp attach dev eth2 rule n\n
line 3: dev eth1 has an xdp line already (line 2)|rule add n family netdev hook none dev eth1 window 10\nxdp attach dev eth1 rule n\nxdp attach dev eth1 rule n\n
line 2: 'xdp show' is not 'xdp attach'|rule add n family netdev hook none dev eth1 window 10\nxdp show\n
line 2: xdp attach: needs rule NAME|rule add n family netdev hook none dev eth1 window 10\nxdp attach dev eth1\n
TABLE

# Test that a line too long for restore, or with too many words, is refused
# rather than cut
{ echo "rule add a window 1000"; printf 'rule add b window 1000 %05000d\n' 0; } |
	"$CTL" -n restore >"$tmp/out" 2>"$tmp/err" && bad "a 5000-byte line restored" ||
	{ grep -qF 'line 2 is longer than 4094 bytes' "$tmp/err" && [ ! -s "$tmp/out" ] &&
		ok || bad "long line: $(cat "$tmp/err")"; }
{ printf 'rule add a window 1000'; for i in $(seq 70); do printf ' hook input'; done; echo; } |
	"$CTL" -n restore >"$tmp/out" 2>"$tmp/err" && bad "a 142-word line restored" ||
	{ grep -qF 'line 1 has more than 128 words' "$tmp/err" && [ ! -s "$tmp/out" ] &&
		ok || bad "many words: $(cat "$tmp/err")"; }

# Test that talking to a kernel without the module says what is missing
if [ -z "$(grep -w '^ddf' /proc/net/genetlink 2>/dev/null || true)" ] &&
	! lsmod 2>/dev/null | grep -q '^nf_ddf'; then
	if "$CTL" show 2>"$tmp/err"; then
		bad "show without the module succeeded"
	else
		grep -qF 'the nf_ddf module is not loaded' "$tmp/err" && ok ||
			bad "show without the module: $(cat "$tmp/err")"
	fi
fi

# Test that xdp answers --help and that a dry run names what it would do
"$CTL" xdp --help | grep -q '^usage: ddfctl xdp attach dev DEV rule NAME' &&
	ok || bad "xdp --help"
[ "$("$CTL" -n xdp attach dev eth1 rule span mode generic)" = \
	"xdp attach dev eth1 rule span mode generic priority 5: dry run, nothing loaded" ] &&
	ok || bad "xdp attach -n"
[ "$("$CTL" -n xdp attach dev eth1 rule span priority 60)" = \
	"xdp attach dev eth1 rule span mode native, else generic priority 60: dry run, nothing loaded" ] &&
	ok || bad "xdp attach -n priority 60"
[ "$("$CTL" -n xdp attach dev eth1 exclusive rule span)" = \
	"xdp attach dev eth1 rule span mode native, else generic exclusive: dry run, nothing loaded" ] &&
	ok || bad "xdp attach -n exclusive"

# Test that xdp attach refuses, in one sentence, a priority that is not
# one and a priority beside exclusive (which shares nothing)
for bad_prio in -1 x 1000001 "" 10x; do
	out=$("$CTL" -n xdp attach dev eth1 rule span priority "$bad_prio" 2>&1) &&
		rc=0 || rc=$?
	[ $rc = 1 ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
		echo "$out" | grep -q "priority '$bad_prio' is not a number from 0 to 1000000" &&
		ok || bad "xdp attach priority '$bad_prio': $out"
done
out=$("$CTL" -n xdp attach dev eth1 rule span priority 5 exclusive 2>&1) &&
	rc=0 || rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "give one or the other" && ok ||
	bad "xdp attach priority and exclusive: $out"

# Test that restore reads save's xdp lines: the rules are added first, then
# the programs attached, in file order; from stdin or a FILE alike
cat >"$tmp/saved" <<'EOF'
rule add n family netdev hook none priority 0 dev eth1,eth2 window 1000 action drop
xdp attach dev eth1 rule n mode native
xdp attach dev eth2 rule n mode generic
rule add a window 1000
EOF
"$CTL" -n restore <"$tmp/saved" >"$tmp/out"
grep -E '^(DDF_CMD_NEW|xdp )|^  DDF_A_NAME' "$tmp/out" >"$tmp/order"
cat >"$tmp/want" <<'EOF'
DDF_CMD_NEW
  DDF_A_NAME "n"
DDF_CMD_NEW
  DDF_A_NAME "a"
xdp attach dev eth1 rule n mode native priority 5: dry run, nothing loaded
xdp attach dev eth2 rule n mode generic priority 5: dry run, nothing loaded
EOF
cmp -s "$tmp/order" "$tmp/want" && ok ||
	bad "restore of rules and xdp lines: $(diff "$tmp/want" "$tmp/order")"
"$CTL" -n restore "$tmp/saved" >"$tmp/out2"
cmp -s "$tmp/out" "$tmp/out2" && ok || bad "restore FILE differs from stdin"
"$CTL" -n restore "$tmp/nosuch" 2>"$tmp/err" && bad "restore of a missing file" ||
	{ grep -qF "restore: $tmp/nosuch: No such file or directory" "$tmp/err" &&
		ok || bad "restore of a missing file: $(cat "$tmp/err")"; }
for words in "--wait" "--wait x" "--wait 3601" "--wait -1" "--fast" "a b"; do
	# shellcheck disable=SC2086
	if "$CTL" -n restore $words </dev/null >"$tmp/out" 2>"$tmp/err"; then
		bad "restore $words accepted"
	else
		grep -qE "needs a value|not a number of seconds from 0 to 3600|is not an option|is not expected after the FILE" \
			"$tmp/err" && ok || bad "restore $words: $(cat "$tmp/err")"
	fi
done

# Test that restore --wait restores the rules whose devices are all here,
# leaves out (and names) those with a device that is not, with their xdp
# lines, exits with 75, and waits the time given before it does
cat >"$tmp/boot" <<'EOF'
rule add here family netdev hook none dev lo window 1000
rule add away family netdev hook none dev lo,ddfnosuch0 window 1000
rule add ip window 1000
xdp attach dev lo rule here mode generic
xdp attach dev ddfnosuch0 rule away mode native
EOF
start=$(date +%s%N)
rc=0
"$CTL" -n restore --wait 1 "$tmp/boot" >"$tmp/out" 2>"$tmp/err" || rc=$?
took=$((($(date +%s%N) - start) / 1000000))
[ "$rc" = 75 ] && ok || bad "restore --wait with a device absent exited $rc"
[ "$(grep -c '^DDF_CMD_NEW' "$tmp/out")" = 2 ] &&
	grep -qxF '  DDF_A_NAME "here"' "$tmp/out" && grep -qxF '  DDF_A_NAME "ip"' "$tmp/out" &&
	! grep -q '"away"' "$tmp/out" && ok || bad "restore --wait sent: $(cat "$tmp/out")"
grep -qxF 'xdp attach dev lo rule here mode generic priority 5: dry run, nothing loaded' "$tmp/out" &&
	! grep -q 'ddfnosuch0' "$tmp/out" && ok || bad "restore --wait's xdp lines: $(cat "$tmp/out")"
grep -qxF "ddfctl: restore: waiting up to 1 s for dev ddfnosuch0" "$tmp/err" &&
	grep -qxF "ddfctl: restore: line 2: rule 'away' left out: dev ddfnosuch0 is not here after 1 s (ddfctl apply adds it once it is)" "$tmp/err" &&
	ok || bad "restore --wait says: $(cat "$tmp/err")"
[ "$took" -ge 1000 ] && [ "$took" -lt 5000 ] && ok || bad "restore --wait 1 took $took ms"
printf 'rule add here family netdev dev lo window 1000\n' |
	"$CTL" -n restore --wait 5 >/dev/null 2>"$tmp/err" && [ ! -s "$tmp/err" ] &&
	ok || bad "restore --wait with every device here: $(cat "$tmp/err")"

# Test that apply -n --against SAVED plans the changes from SAVED to the
# file: unchanged rules kept, changed ones deleted and added again, their
# programs detached and attached again; and that --against needs -n
cat >"$tmp/old" <<'EOF'
rule add a window 1000
rule add b window 2000
rule add n family netdev hook none dev eth1 window 1000
xdp attach dev eth1 rule n mode native
EOF
cat >"$tmp/new" <<'EOF'
rule add a window 1000
rule add b window 3000
rule add c window 10
rule add n family netdev hook none dev eth1 window 1000
xdp attach dev eth1 rule n mode generic
EOF
"$CTL" -n apply --against "$tmp/old" "$tmp/new" >"$tmp/out" 2>"$tmp/err" &&
	tail -n 1 "$tmp/out" | grep -qxF 'apply (dry run): rules: 2 kept, 1 changed, 1 added, 0 deleted; xdp: 0 kept, 1 attached, 1 detached' &&
	[ "$(grep -E '^(DDF_CMD_|xdp )' "$tmp/out" | tr '\n' '|')" = \
		'xdp detach dev eth1: dry run, nothing removed|DDF_CMD_DEL|DDF_CMD_NEW|DDF_CMD_NEW|xdp attach dev eth1 rule n mode generic priority 5: dry run, nothing loaded|' ] &&
	ok || bad "apply -n --against: $(cat "$tmp/out" "$tmp/err")"
"$CTL" -n apply --against "$tmp/old" "$tmp/old" >"$tmp/out" &&
	[ "$(cat "$tmp/out")" = 'apply (dry run): rules: 3 kept, 0 changed, 0 added, 0 deleted; xdp: 1 kept, 0 attached, 0 detached' ] &&
	ok || bad "apply of the same file: $(cat "$tmp/out")"
"$CTL" apply --against "$tmp/old" "$tmp/new" 2>"$tmp/err" && bad "apply --against without -n" ||
	{ grep -qF 'apply: --against needs -n' "$tmp/err" && ok || bad "apply --against without -n: $(cat "$tmp/err")"; }
printf 'rule add a window 1000\nrule add a window 10\n' |
	"$CTL" -n apply --against "$tmp/old" >"$tmp/out" 2>"$tmp/err" && bad "apply of a bad file" ||
	{ grep -qF "apply: line 2: rule 'a' is on line 1 already" "$tmp/err" && [ ! -s "$tmp/out" ] &&
		ok || bad "apply of a bad file: $(cat "$tmp/out" "$tmp/err")"; }

# Test that save -n still prints its dump request, and xdp detach all -n
"$CTL" -n save | grep -q '^DDF_CMD_GET' && ok || bad "save -n"
[ "$("$CTL" -n xdp detach all)" = "xdp detach all: dry run, nothing removed" ] &&
	ok || bad "xdp detach all -n"
"$CTL" --help | grep -q '^  apply .*unchanged ones are kept$' && ok || bad "--help lists apply"

echo "test_ddfctl: $pass passed, $fail failed"
[ "$fail" = 0 ]
