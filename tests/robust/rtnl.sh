#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RTNL, the host's networking lock, is not held while a rule's filter is
# built. Any user may make a user namespace with a network namespace and
# be root there; its rules may be as large as max_rule_bytes. There, as
# uid 65534 (ddfrtnl nobody), one loop adds and deletes a netdev rule on
# lo as large as max_rule_bytes and a third of the VM's free memory allow,
# and another adds and deletes a small one, the namespace's max_net_bytes
# lowered to admit either rule but not both. Meanwhile the initial
# namespace times RTM_NEWLINK requests on a dummy device (ddfrtnl time):
# one that changes nothing (its time beyond the round trip is the wait for
# RTNL), an MTU change, up/down. The large rule must have been built and
# published several times, every refusal must be the kernel's
# max_net_bytes sentence, and the small rule must never be there together
# with the large one. The requests' times are printed; the worst request
# that changes nothing must stay under DDF_RTNL_MAX_US (10000 by default)
# unless the CPU is emulated, where the script says it is not enforced.
#
# Then, by order: while the large rule is added and while its filter is
# reset in a user namespace, an MTU change (RTNL), a dump of MPTCP's
# endpoints (a generic netlink family without parallel ops: genl_mutex,
# which every such family shares in every namespace) and one of ddf's
# rules from the initial namespace, started once a tenth of the build's
# memory is taken, must end DDF_RTNL_MARGIN_MS (100) or more before the
# build does.
#
# Last, by order too: while a reset builds, the builder's own namespace
# deletes a rule and adds and deletes devices (the table changes under the
# build; device events take the table's lock under RTNL); MTU changes from
# the initial namespace must end DDF_RTNL_MARGIN_MS before the reset does.
#
# Measured in the debug lane (TCG, 2 vCPUs, 1 GiB; the large rule 207 MiB,
# the most a third of MemAvailable allows), the worst request that changes
# nothing, beside the loops for 15 s (alone: 4-8 ms, p50 0.7 ms):
#   rule add building under RTNL (before), 2 runs: 835 ms (29 of 304 over
#     10 ms, 7 large rules built), 208 ms (19 of 296); an MTU change in
#     another run: 760 ms;
#   building before RTNL (now), 6 runs: once 8.9 ms (none of 866 over
#     10 ms, 17 large rules built), else 148-244 ms (11-35 over), with
#     the timing process's own wake-ups late by up to 166 ms (sleep);
#   rules of family inet, which take no RTNL in nf_ddf: 216 ms.
# Under emulation on a shared host the whole guest stalls as long as the
# old code held RTNL, so the bound tells the two apart only where the CPU
# is not emulated; the order does everywhere. Run as root where nf_ddf.ko
# loads:
#
#   DDF_MODULES=<directory with nf_ddf.ko> [DDF_SOAK=1] [DDF_RTNL_MAX_US=N] \
#	tests/robust/rtnl.sh

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

ms=15000
((DDF_SOAK)) && ms=120000
max_rule=$((1 << 30)) # above the default (256 MiB): a longer build to probe beside
params=/sys/module/nf_ddf/parameters
dev=ddfrtnl0
tmp=$(mktemp -d)
chmod 777 "$tmp" # the loops run as uid 65534
loops=

cleanup() {
	set +e
	exec 2>/dev/null
	touch "$tmp/stop"
	[[ -n $loops ]] && wait "$loops"
	ip link del "$dev"
	loaded && ddfctl rule flush
	loaded && rmmod nf_ddf
	rm -rf "$tmp"
	exit
}
trap cleanup EXIT

# kB of a /proc/meminfo line
mem() { sed -n "s/^$1: *\([0-9]*\) kB$/\1/p" /proc/meminfo; }
# await_while FILE PID: until FILE exists; 1 when PID ends first
await_while() {
	while [[ ! -e $1 ]]; do
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.01
	done
}
# Until MemAvailable stops rising (filters of the last build are freed
# after a grace period, page by page), at most 30 s: a probe that waits
# for it to fall must not start while it still rises.
settle() {
	local a b i
	a=$(mem MemAvailable)
	for ((i = 0; i < 150; i++)); do
		sleep 0.2
		b=$(mem MemAvailable)
		((b - a < 4096)) && return 0
		a=$b
	done
}
# judge FILE T1: of ddfrtnl watch's MTU changes in FILE that started
# 4 * margin ms or more before T1, how many, how many ended less than
# margin ms before it, and the least time by which one ended before it
judge() {
	awk -v t1="$2" -v m=$((margin * 1000)) '
		$1 == "mtu" && $2 <= t1 - 4 * m {
			n++
			a = int((t1 - $3) / 1000)
			if (min == "" || a < min) min = a
			if ($3 > t1 - m) late++
		}
		END { print n + 0, late + 0, min == "" ? "-" : min }' "$1"
}
# field KIND NAME OUT: the number after NAME in ddfrtnl time's KIND line
field() { sed -n "s/^$1 \(.* \)\?$2 \([0-9]*\).*/\2/p" <<<"$3"; }

if loaded; then pp rmmod nf_ddf; fi
pp insmod "$module" max_rule_bytes=$max_rule
pp ip link add "$dev" type dummy
# no IPv6 address to configure at each up: the request alone is timed
echo 1 >"/proc/sys/net/ipv6/conf/$dev/disable_ipv6" 2>/dev/null || true

# What a request costs with nothing else running, for the record.
alone=$(ddfrtnl time "$dev" 3000)
pretty "" "RTM_NEWLINK requests on $dev alone: no change, MTU, up/down:"$'\n'"$alone"

# The large rule's shape, sized once by ddfctl (slow under emulation): the
# loops add it as saved. The small one is sized at once.
avail=$(mem MemAvailable)
big=$((avail * 1024 / 3))
((big < max_rule)) || big=$max_rule
ddfctl rule add probe family netdev hook ingress dev lo \
	filter apbbf window 100000000 memory $((big * 99 / 100)) action count
ddfctl rule add small family netdev hook ingress dev lo window 1000 action count
line=$(ddfctl save | grep '^rule add probe ')
words=${line#rule add probe }
size=$(ddfctl show probe | sed -n 's/.*memory \([0-9]*\) bytes.*/\1/p')
line=$(ddfctl save | grep '^rule add small ')
swords=${line#rule add small }
ssize=$(ddfctl show small | sed -n 's/.*memory \([0-9]*\) bytes.*/\1/p')
ddfctl rule flush
((size > 0 && size <= max_rule && ssize > 0)) ||
	fail "the rules have $size and $ssize bytes"
# either rule fits, both do not
echo $((size + ssize - 1)) >$params/max_net_bytes
pretty "" "the large rule: $size bytes ($((size >> 20)) MiB), the small one $ssize; max_net_bytes $(cat $params/max_net_bytes); MemAvailable $((avail >> 10)) MiB"

# Test that while a user namespace adds and deletes rules as large as the
# caps allow, the rules are built and the caps hold; time the requests
# that need RTNL meanwhile (bounded with DDF_RTNL_MAX_US).
sentence="the namespace's rules would exceed max_net_bytes"
export tmp words swords
# shellcheck disable=SC2016
ddfrtnl nobody bash -c '
	# one line per add: ok, or the error ddfctl printed
	add() {
		local out
		# shellcheck disable=SC2086
		if out=$(ddfctl rule add "$@" 2>&1); then
			echo ok
			return 0
		fi
		echo "refused: $out"
		return 1
	}
	while [[ ! -e $tmp/stop ]]; do
		if add large $words; then ddfctl rule del large; fi
	done >"$tmp/large" 2>&1 &
	while [[ ! -e $tmp/stop ]]; do
		if add small $swords; then
			# the large rule cannot be there beside it
			if ddfctl show large >/dev/null 2>&1; then echo both; fi
			ddfctl rule del small
		else
			sleep 0.2 # the large rule is there: leave the CPUs to it
		fi
	done >"$tmp/small" 2>&1 &
	wait
	echo done >"$tmp/loops"' &
loops=$!
sleep 0.5 # the loops under way
load=$(ddfrtnl time "$dev" "$ms")
touch "$tmp/stop"
wait "$loops" || fail "the namespace's loops failed"
loops=
[[ -e $tmp/loops ]] || fail "the namespace's loops did not run"
pretty "" "RTM_NEWLINK requests on $dev beside them ($((ms / 1000)) s):"$'\n'"$load"
large_ok=$(grep -c '^ok$' "$tmp/large" || true)
small_ok=$(grep -c '^ok$' "$tmp/small" || true)
large_no=$(grep -c '^refused: ' "$tmp/large" || true)
small_no=$(grep -c '^refused: ' "$tmp/small" || true)
pretty "" "large rule: $large_ok added, $large_no refused; small rule: $small_ok added, $small_no refused"
if grep -v -e '^ok$' -e "^refused: .*$sentence" "$tmp/large" "$tmp/small"; then
	fail "the loops met something else than their cap"
fi
expect_ge "$large_ok" 2 "large rules added"
expect_ge "$small_no" 1 "small rules refused for max_net_bytes"
expect_eq "$(ddfctl save)" "" "rules left"
max=$(field noop max_us "$load")
[[ -n $max ]] || fail "no timing: $load"
# The bound holds where the CPU is not emulated: under QEMU's TCG the whole
# guest stalls now and then (its timer too) for as long as the old code held
# RTNL, which only the order below tells apart.
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
bound=${DDF_RTNL_MAX_US-}
if [[ -z ${DDF_RTNL_MAX_US+set} ]]; then
	case $cpu in
	*"QEMU TCG"*) bound= ;;
	*) bound=10000 ;;
	esac
fi
if [[ -n $bound ]]; then
	((max < bound)) ||
		fail "an RTNL request took $max us beside the rules being built (bound $bound us)"
	passed "$large_ok rules of $((size >> 20)) MiB built beside RTNL requests of at most $max us (bound $bound us); the cap held"
else
	pretty "" "the bound on RTNL requests (DDF_RTNL_MAX_US=10000) is not enforced: the CPU is emulated ($cpu), so the guest stalls as a whole; the order below is judged instead"
	passed "$large_ok rules of $((size >> 20)) MiB built beside RTNL requests of at most $max us; the cap held"
fi

# Whether a request waits for a rule being built, by order rather than by
# time (the guest's stalls hit both sides alike). In a user namespace, as
# uid 65534, the large rule is added, then its filter reset (each a build
# of the whole filter), $rounds times. Once a tenth of a build's memory is
# taken, three requests start together from the initial namespace
# (ddfrtnl probe, forked ahead: starting a process under emulation takes
# longer than the build): an MTU change (RTNL), a dump of MPTCP's endpoints
# as `ip mptcp endpoint show` asks (a generic netlink family without
# parallel ops, so genl_mutex) and of ddf's rules (its family from another
# namespace). Each must end $margin ms or more before the build does.
rounds=2
margin=${DDF_RTNL_MARGIN_MS:-100}
rm -f "$tmp"/go-* "$tmp"/end-* "$tmp/why"
export rounds
# shellcheck disable=SC2016
ddfrtnl nobody bash -c '
	# await FILE: the initial namespace says go
	await() { while [[ ! -e $1 ]]; do sleep 0.01; done; }
	for ((r = 1; r <= rounds; r++)); do
		for op in add reset; do
			await "$tmp/go-$r-$op"
			a=${EPOCHREALTIME/./}
			if [[ $op == add ]]; then
				# shellcheck disable=SC2086
				ddfctl rule add large $words
			else
				ddfctl rule reset large filter
			fi 2>"$tmp/builderr" || echo "the $op failed: $(cat "$tmp/builderr")" >"$tmp/why"
			# whole when it appears: the other side reads it then
			echo "$a ${EPOCHREALTIME/./}" >"$tmp/end.tmp"
			mv "$tmp/end.tmp" "$tmp/end-$r-$op"
		done
		ddfctl rule del large 2>/dev/null || :
	done' &
builder=$!
worst=
n=0
for ((r = 1; r <= rounds; r++)); do
	for op in add reset; do
		settle # what the last build freed is free again
		rm -f "$tmp/ready"
		ddfrtnl probe "$dev" $((size / 10240)) "$tmp/ready" >"$tmp/probe" 2>&1 &
		probe=$!
		await_while "$tmp/ready" $probe ||
			fail "ddfrtnl probe did not start"
		touch "$tmp/go-$r-$op"
		wait $probe || fail "$op $r: ddfrtnl probe failed: $(cat "$tmp/probe")"
		await_while "$tmp/end-$r-$op" $builder || :
		[[ -e $tmp/end-$r-$op ]] || fail "$op $r: the builder went away"
		[[ ! -e $tmp/why ]] || fail "$op $r: $(cat "$tmp/why")"
		read -r t0 t1 <"$tmp/end-$r-$op"
		t2=$(sed -n 's/^start //p' "$tmp/probe")
		((t2 < t1)) ||
			fail "$op $r: the build had ended before a tenth of its memory was seen taken"
		line="$op $r: the build took $(((t1 - t0) / 1000)) ms; probes started $(((t2 - t0) / 1000)) ms in, took (ended ms before the build):"
		late=
		for p in mtu mptcp ddf; do
			t3=$(sed -n "s/^$p //p" "$tmp/probe")
			[[ -n $t3 ]] || fail "$op $r: no $p probe: $(cat "$tmp/probe")"
			ahead=$(((t1 - t3) / 1000))
			line+=" $p $(((t3 - t2) / 1000)) ms ($ahead)"
			((ahead >= margin)) || late+=" $p (${ahead} ms)"
			if [[ -z $worst ]] || ((ahead < worst)); then worst=$ahead; fi
		done
		pretty "" "$line"
		[[ -z $late ]] ||
			fail "$op $r: probes did not end $margin ms before the build:$late"
		n=$((n + 1))
	done
done
wait $builder || fail "the builder failed"
expect_eq "$(ddfctl save)" "" "rules left"
passed "$n builds in a user namespace ($rounds adds, $rounds resets of the filter): an MTU change, a dump of MPTCP's endpoints and of ddf's rules from the initial namespace each ended at least $worst ms before the build (required $margin)"

# Whether a reset builds under the table's lock when the table changes
# under it, by order. In a user namespace, as uid 65534, a rule of a fifth
# of MemAvailable (a reset holds the old filter and the new; the old code
# a third, below) and a small one; the large one's filter is reset
# 3 times. Once a tenth of a build's memory is taken (ddfrtnl
# watch), the small rule is deleted there (the table changes while the
# filter is built) and a dummy device is added and deleted in a loop in
# that namespace (device events: RTNL, then the table's lock; ddfrtnl
# churn, started ahead, as the reset is: ddfrtnl reset, which notes when
# the kernel acknowledged it), while the
# initial namespace changes an MTU, one request after the other. Every MTU
# change that started 4 * $margin ms or more before the reset ended must
# end $margin ms or more before it (a change alone took up to 131 ms
# beside the loops above; a reset may be too short for any: 216 ms to
# 5.5 s were seen). The old code threw the filter away
# when the table had changed and built another under the table's lock,
# where the device events waited with RTNL held. That build is short in
# the debug lane (160-220 ms of 357 MiB, after 1.3 s for the first): the
# order of MTU changes alone misses it, so the watch also notes when
# MemAvailable falls by a filter and a half, a second filter built while
# the first is held, which only the old code did, under the lock.
avail=$(mem MemAvailable)
mid=$((avail * 1024 / 5))
((mid < max_rule)) || mid=$max_rule
ddfctl rule add probe family netdev hook ingress dev lo \
	filter apbbf window 100000000 memory $((mid * 99 / 100)) action count
line=$(ddfctl save | grep '^rule add probe ')
mwords=${line#rule add probe }
msize=$(ddfctl show probe | sed -n 's/.*memory \([0-9]*\) bytes.*/\1/p')
ddfctl rule flush
echo $((max_rule * 4)) >$params/max_net_bytes
rm -f "$tmp"/go-* "$tmp"/end-* "$tmp"/churn* "$tmp"/stop-* "$tmp"/ready-* \
	"$tmp/why"
rounds=3
export mwords rounds
# shellcheck disable=SC2016
ddfrtnl nobody bash -c '
	await() { while [[ ! -e $1 ]]; do sleep 0.01; done; }
	# shellcheck disable=SC2086
	ddfctl rule add large $mwords || echo "the add failed" >"$tmp/why"
	for ((r = 1; r <= rounds; r++)); do
		# shellcheck disable=SC2086
		ddfctl rule add small $swords ||
			echo "the small rule was not added" >"$tmp/why"
		touch "$tmp/ready-$r"
		ddfrtnl churn small "$tmp/churn-$r" "$tmp/stop-$r" \
			>"$tmp/churned-$r" 2>&1 &
		ddfrtnl reset large "$tmp/go-$r" "$tmp/end-$r" 2>"$tmp/builderr" ||
			echo "the reset failed: $(cat "$tmp/builderr")" >"$tmp/why"
		await "$tmp/stop-$r"
		wait || echo "ddfrtnl churn: $(cat "$tmp/churned-$r")" >"$tmp/why"
		touch "$tmp/churn-done-$r"
	done
	ddfctl rule flush' &
builder=$!
worst=-
judged=0
for ((r = 1; r <= rounds; r++)); do
	await_while "$tmp/ready-$r" $builder ||
		fail "reset $r: the builder went away: $(cat "$tmp/why" 2>/dev/null)"
	settle
	rm -f "$tmp/ready"
	ddfrtnl watch "$dev" $((msize / 10240)) "$tmp/ready" "$tmp/churn-$r" \
		"$tmp/stop-$r" $((msize * 3 / 2048)) >"$tmp/watch" 2>&1 &
	watch=$!
	await_while "$tmp/ready" $watch ||
		fail "ddfrtnl watch did not start"
	touch "$tmp/go-$r"
	await_while "$tmp/end-$r" $builder || :
	touch "$tmp/stop-$r"
	wait $watch || fail "reset $r: ddfrtnl watch failed: $(cat "$tmp/watch")"
	[[ -e $tmp/end-$r ]] || fail "reset $r: the builder went away"
	[[ -e $tmp/why ]] && fail "reset $r: $(cat "$tmp/why")"
	read -r t0 t1 <"$tmp/end-$r"
	t2=$(sed -n 's/^start //p' "$tmp/watch")
	if [[ -z $t2 ]] || ((t2 >= t1)); then
		fail "reset $r: the build had ended before a tenth of its memory was seen taken"
	fi
	await_while "$tmp/churn-done-$r" $builder || :
	[[ -e $tmp/why ]] && fail "reset $r: $(cat "$tmp/why")"
	td=$(sed -n 's/^del //p' "$tmp/churned-$r")
	devs=$(sed -n 's/^devs //p' "$tmp/churned-$r")
	[[ -n $td && -n $devs ]] || fail "reset $r: ddfrtnl churn: $(cat "$tmp/churned-$r")"
	((td < t1)) || fail "reset $r: the small rule was deleted $(((td - t1) / 1000)) ms after the reset ended"
	((devs >= 1)) || fail "reset $r: no device was added while the reset built"
	# the MTU changes that started well before the reset's end
	read -r n late ahead <<<"$(judge "$tmp/watch" "$t1")"
	pretty "" "reset $r: the build took $(((t1 - t0) / 1000)) ms, the watch started $(((t2 - t0) / 1000)) ms in; the small rule deleted $(((td - t0) / 1000)) ms in; $devs dummy devices added and deleted; $n MTU changes started $((4 * margin)) ms or more before the end, the closest ended $ahead ms before it"
	t4=$(sed -n 's/^second //p' "$tmp/watch")
	if [[ -n $t4 ]] && ((t4 < t1)); then
		# the MTU changes sent after it, and when the last of them ended
		after=$(awk -v t4="$t4" '$1 == "mtu" && $2 >= t4 { n++; e = $3 }
			END { print n + 0, e + 0 }' "$tmp/watch")
		fail "reset $r: MemAvailable fell by a filter and a half $(((t4 - t0) / 1000)) ms in: a second filter was built while the first was held, under the table's lock (MTU changes sent after that, and when the last ended: ${after% *}, $(((${after#* } - t1) / 1000)) ms after the reset)"
	fi
	((late == 0)) ||
		fail "reset $r: $late MTU changes ended less than $margin ms before the reset (closest: $ahead ms): RTNL waited for a build"
	judged=$((judged + n))
	if ((n)) && { [[ $worst == - ]] || ((ahead < worst)); }; then worst=$ahead; fi
done
wait $builder || fail "the builder failed"
expect_eq "$(ddfctl save)" "" "rules left"
passed "$rounds resets of a $((msize >> 20)) MiB filter while its namespace deleted a rule and added and deleted devices: no second filter built; $judged MTU changes from the initial namespace judged, each ended at least $worst ms before the reset (required $margin)"

# Whether a GET of one rule holds the table's lock while it fills the
# filter's stats: for sbf (a2, cuckoo, sqf, qht, bdbf, bsbf and shf too)
# that scans the whole filter, and a GET needs no privilege. In a user
# namespace, as uid 65534, an sbf rule of 16 MiB is read by GET (ddfrtnl
# get, started ahead) while the small rule is deleted and a dummy device
# added and deleted there (ddfrtnl churn); MTU changes from the initial
# namespace meanwhile, judged as above. The old code filled the stats
# under the table's lock, where the device events waited with RTNL held;
# under RCU instead, a GET of 64 MiB took 119 s in the debug lane and an
# MTU change ended 207 ms after it (device unregistration waits for a
# grace period under RTNL). Read outside both: 39 s each, 387 devices
# added and deleted and 2356 MTU changes judged meanwhile, the closest
# ending 382 ms before the GET.
ddfctl rule add probe family netdev hook none dev lo filter sbf memory 16M \
	action count
line=$(ddfctl save | grep '^rule add probe ')
gwords=${line#rule add probe }
ddfctl rule flush
export gwords
# shellcheck disable=SC2016
ddfrtnl nobody bash -c '
	await() { while [[ ! -e $1 ]]; do sleep 0.01; done; }
	# shellcheck disable=SC2086
	ddfctl rule add big $gwords || echo "the sbf rule was not added" >"$tmp/why"
	for ((r = 1; r <= 2; r++)); do
		# shellcheck disable=SC2086
		ddfctl rule add small $swords ||
			echo "the small rule was not added" >"$tmp/why"
		ddfrtnl churn small "$tmp/gchurn-$r" "$tmp/gstop-$r" \
			>"$tmp/gchurned-$r" 2>&1 &
		touch "$tmp/gready-$r"
		ddfrtnl get big "$tmp/ggo-$r" "$tmp/gend-$r" 2>"$tmp/builderr" ||
			echo "the GET failed: $(cat "$tmp/builderr")" >"$tmp/why"
		await "$tmp/gstop-$r"
		wait || echo "ddfrtnl churn: $(cat "$tmp/gchurned-$r")" >"$tmp/why"
		touch "$tmp/gdone-$r"
	done
	ddfctl rule flush' &
builder=$!
worst=-
judged=0
for ((r = 1; r <= 2; r++)); do
	await_while "$tmp/gready-$r" $builder ||
		fail "GET $r: the builder went away: $(cat "$tmp/why" 2>/dev/null)"
	rm -f "$tmp/ready"
	ddfrtnl watch "$dev" 0 "$tmp/ready" "$tmp/gchurn-$r" "$tmp/gstop-$r" \
		$((1 << 40)) >"$tmp/watch" 2>&1 &
	watch=$!
	await_while "$tmp/ready" $watch ||
		fail "ddfrtnl watch did not start"
	touch "$tmp/ggo-$r"
	await_while "$tmp/gend-$r" $builder || :
	touch "$tmp/gstop-$r"
	wait $watch || fail "GET $r: ddfrtnl watch failed: $(cat "$tmp/watch")"
	await_while "$tmp/gdone-$r" $builder || :
	[[ -e $tmp/why ]] && fail "GET $r: $(cat "$tmp/why")"
	[[ -e $tmp/gend-$r ]] || fail "GET $r: the builder went away"
	read -r t0 t1 <"$tmp/gend-$r"
	devs=$(sed -n 's/^devs //p' "$tmp/gchurned-$r")
	[[ -n $devs ]] || fail "GET $r: ddfrtnl churn: $(cat "$tmp/gchurned-$r")"
	read -r n late ahead <<<"$(judge "$tmp/watch" "$t1")"
	pretty "" "GET $r: $(((t1 - t0) / 1000)) ms; $devs dummy devices added and deleted; $n MTU changes started $((4 * margin)) ms or more before its end, the closest ended $ahead ms before it"
	((late == 0)) ||
		fail "GET $r: $late MTU changes ended less than $margin ms before the GET (closest: $ahead ms): RTNL waited for the filter's stats"
	judged=$((judged + n))
	if ((n)) && { [[ $worst == - ]] || ((ahead < worst)); }; then worst=$ahead; fi
done
wait $builder || fail "the builder failed"
((judged)) || fail "no MTU change started $((4 * margin)) ms before a GET ended: the GETs were too short to judge"
expect_eq "$(ddfctl save)" "" "rules left"
passed "2 GETs of a 16 MiB sbf rule in a user namespace while it deleted a rule and added and deleted devices: $judged MTU changes from the initial namespace judged, each ended at least $worst ms before the GET (required $margin)"

echo "rtnl.sh: $blocks passed, 0 failed"
