#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The packages lane's guest side (tests/qemu/packages.sh), run by
# ddf-boot-test.service in a Debian 12 or 13 VM where ddf-dkms and
# ddf-tools were installed with apt (DKMS built nf_ddf for this kernel
# then).
#
# First boot: the kernel finds DKMS's nf_ddf (the host checked dkms status
# in the image: under emulation it takes a minute); a netdev rule
# on the port p1 with ddf's XDP program in native mode; ddfctl save into
# /etc/ddf/ddf.rules, as an operator does; systemctl enable ddf; a real
# systemctl reboot.
# Second boot: ddf.service (nothing else) has restored the file, waiting for
# p1, which comes up late: the rule,
# the program on p1 in native mode, ddfctl save as before; copies sent into
# p1 reach tcpdump on p1 once each and the rule counts them dropped. Then
# power off.
#
# Lines on the second serial port, which the host reads:
#   ddf-result: boot N RELEASE
#   ddf-result: ok|fail WHAT
#   ddf-result: done
# A stage that fails reports why and powers off (no reboot).

# the checks are functions that check() calls by name
# shellcheck disable=SC2317
export LANG=C PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
state=/var/lib/ddf-boot-test
report=/dev/ttyS1
[[ -c $report ]] || report=/dev/null
rule_words="family netdev hook none dev p1 window 100000 fpr 1e-6 action drop"
tmp=$(mktemp -d)

result() {
	echo "ddf-result: $*" >"$report"
	echo "ddf-result: $*"
}
# check WHAT COMMAND...: a result line per check; a failure ends the stage.
check() {
	local what=$1 out
	shift
	if out=$("$@" 2>&1); then
		# what it saw, on the console, for the log
		[[ -z $out ]] || sed 's/^/    /' <<<"$out"
		result "ok $what"
	else
		result "fail $what: $(tr '\n' ' ' <<<"$out" | cut -c1-400)"
		finish
	fi
}
finish() {
	result "done"
	sync
	systemctl poweroff
	exit 0
}
# wait_for SECONDS COMMAND...: until COMMAND succeeds
wait_for() {
	local n=$(($1 * 5))
	shift
	while ((n-- > 0)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	"$@"
}

mkdir -p "$state"
boot=$(($(cat "$state/boots" 2>/dev/null || echo 0) + 1))
echo "$boot" >"$state/boots"
sync
result "boot $boot $(uname -r)"

has_port() { ip link show p1 >/dev/null 2>&1; }
module_path() {
	local f
	f=$(modinfo -n nf_ddf) || return 1
	echo "$f"
	case $f in */updates/dkms/*) ;; *) return 1 ;; esac
}
saved_as_expected() {
	ddfctl save >"$tmp/saved" || return 1
	cat "$tmp/saved"
	# save writes the rule whole: every word, defaults and sizing included
	grep -qx "rule add span family netdev hook none dev p1 .* action drop" \
		"$tmp/saved" &&
		grep -qx 'xdp attach dev p1 rule span mode native priority 5' "$tmp/saved" &&
		[[ $(wc -l <"$tmp/saved") == 2 ]]
}

if [[ $boot == 1 ]]; then
	check "the kernel finds nf_ddf in DKMS's directory" module_path
	check "modprobe nf_ddf" modprobe nf_ddf
	check "the port p1 is there" wait_for 60 has_port
	# shellcheck disable=SC2086
	check "ddfctl rule add span $rule_words" ddfctl rule add span $rule_words
	check "ddfctl xdp attach dev p1 rule span mode native" \
		ddfctl xdp attach dev p1 rule span mode native
	check "ddfctl save: the rule and its attachment" saved_as_expected
	check "ddfctl save >/etc/ddf/ddf.rules" cp "$tmp/saved" /etc/ddf/ddf.rules
	check "systemctl enable ddf" systemctl enable ddf.service
	result "ok reboot"
	sync
	systemctl reboot
	exit 0
fi

if [[ $boot != 2 ]]; then
	result "fail boot $boot: the VM booted again after the check"
	finish
fi

# ddf.service is a oneshot this unit is ordered after: it is done.
service_ok() {
	local st
	st=$(systemctl show -p ActiveState -p Result -p ExecMainStatus ddf.service)
	echo "$st"
	systemctl status --no-pager -l ddf.service || true
	grep -qx ActiveState=active <<<"$st" && grep -qx Result=success <<<"$st" &&
		grep -qx ExecMainStatus=0 <<<"$st"
}
xdp_native() {
	ddfctl xdp show | tee /dev/stderr | grep -q '^p1: native rule span (id [0-9]*) priority 5$'
}
same_file() {
	ddfctl save >"$tmp/resaved" || return 1
	diff /etc/ddf/ddf.rules "$tmp/resaved"
}
check "ddf.service active, exit status 0 (no rule left out)" service_ok
check "nf_ddf loaded" grep -q '^nf_ddf ' /proc/modules
# ddf-test-ports.service makes p1 once ddf.service's restore says it waits
# for it: the restore waited, said so, and still restored everything (exit
# status 0)
waited() {
	journalctl -b -u ddf.service --no-pager | tee /dev/stderr |
		grep -q 'restore: waiting up to [0-9]* s for dev p1'
}
check "ddf.service's restore waited for the late port p1" waited
up() { ip link show p1 | grep -q 'state UP'; }
check "p1 is up" wait_for 30 up
check "ddfctl xdp show: p1 has ddf's program in native mode" xdp_native
check "ddfctl save writes /etc/ddf/ddf.rules again" same_file

# n datagrams, each sent twice, from p0 into p1: tcpdump on p1 (packet taps
# come after XDP) must get each once, and the rule count the copies dropped.
n=50
# the rule's line (the first; its devices' lines follow)
ctr() { ddfctl stats span | sed -n "1s/.* $1 \([0-9]*\).*/\1/p"; }
tcpdump -i p1 -n -U -w "$tmp/p1.pcap" udp 2>"$tmp/tcpdump.err" &
cap=$!
wait_for 30 grep -q 'listening on' "$tmp/tcpdump.err"
mac=$(cat /sys/class/net/p1/address)
# what the rule counted before (nothing else sends on p0: no IPv6 there)
c0=$(ctr packets) d0=$(ctr duplicates) x0=$(ctr dropped)
check "ddfpkt: $n datagrams twice each into p1" \
	ddfpkt send -i p0 -m "$mac" -s 10.77.0.1 -d 10.77.0.2 -n $n -c 2 -W 1000
counted() { (($(ctr packets) - c0 >= 2 * n)); }
wait_for 20 counted
sleep 1
kill -INT "$cap"
wait "$cap"
got=$(tcpdump -r "$tmp/p1.pcap" -n 2>/dev/null | wc -l)
eq() { [[ $1 == "$2" ]] || { echo "got $1, expected $2"; return 1; }; }
check "tcpdump on p1 got each datagram once ($got of $((2 * n)))" eq "$got" "$n"
check "the rule counted $((2 * n)) packets" eq $(($(ctr packets) - c0)) $((2 * n))
check "the rule counted $n duplicates" eq $(($(ctr duplicates) - d0)) "$n"
check "the rule dropped $n" eq $(($(ctr dropped) - x0)) "$n"
finish
