# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What the scripts in tests/netns/ share: reporting, assertions, and the
# receiver and counters of the namespace $rcv. Sourced, not run: each
# script sets exec 3>&1, blocks=0, $snd/$rcv and $tmp first.

pretty() { echo "[+] ${1:+$1: }$2" >&3; }
pp() { pretty "" "$*"; "$@"; }
# in_ns NS CMD...: CMD in the network namespace NS. ddfctl reads no sysfs
# of its namespace, so entering the network namespace alone is enough,
# which under emulation starts in two thirds of the time of ip netns exec
# (that also mounts the namespace's sysfs, for everything else).
in_ns() {
	local ns=$1
	shift
	if [[ $1 == ddfctl ]]; then
		nsenter --net="/run/netns/$ns" "$@"
	else
		ip netns exec "$ns" "$@"
	fi
}
S() { pretty snd "$*"; in_ns "$snd" "$@"; }
R() { pretty rcv "$*"; in_ns "$rcv" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
passed() { blocks=$((blocks + 1)); echo "ok $blocks - $* ($SECONDS s)" >&3; }
expect_eq() { [[ $1 == "$2" ]] || fail "$3: got '$1', expected '$2'"; }
expect_ge() { (($1 >= $2)) || fail "$3: got $1, expected at least $2"; }
loaded() { grep -q '^nf_ddf ' /proc/modules; }
mac() { ip netns exec "$1" cat "/sys/class/net/$2/address"; }

# recv_start [-6]: a UDP receiver on port 5000 in $rcv, ready when it returns.
recv_start() {
	rm -f "$tmp/ready" "$tmp/recv"
	ip netns exec "$rcv" ddfpkt recv "$@" -p 5000 -t "${idle:-3000}" -r "$tmp/ready" \
		>"$tmp/recv" &
	recv_pid=$!
	for _ in $(seq 100); do
		[[ -e $tmp/ready ]] && return
		sleep 0.1
	done
	fail "ddfpkt recv did not start"
}

# recv_wait: got="RECEIVED DISTINCT" once the receiver has been idle $idle
# ms (not in a subshell: only this shell can wait for the receiver).
recv_wait() {
	wait "$recv_pid" || fail "ddfpkt recv failed"
	recv_pid=
	pretty rcv "$(cat "$tmp/recv")"
	got=$(sed -n 's/^received \([0-9]*\) distinct \([0-9]*\)$/\1 \2/p' "$tmp/recv")
}

# ctr RULE WORD: a counter of the ddf rule (packets bytes duplicates
# dropped marked unparsed), from the human stats line.
ctr() {
	in_ns "$rcv" ddfctl stats "$1" |
		sed -n "s/.* $2 \([0-9]*\).*/\1/p"
}

# send ARGS...: ddfpkt send from $snd.
send() { S ddfpkt send "$@" >/dev/null; }

# expect_sig_refused MODULE: with signatures enforced, insmod of the
# unsigned MODULE is refused and nothing loads; ddfctl's rule add and show
# then say in one line what happened and what to do (sigenforce.sh on
# Debian's kernels, sigkey.sh on the test key's).
expect_sig_refused() {
	local out cmd w

	if out=$(insmod "$1" 2>&1); then
		fail "insmod of the unsigned nf_ddf succeeded"
	fi
	pretty "" "insmod ${1##*/}: $out"
	[[ $out == *"Key was rejected by service"* ]] ||
		fail "insmod did not say EKEYREJECTED: $out"
	! loaded || fail "nf_ddf is loaded"
	passed "the unsigned nf_ddf is refused: Key was rejected by service"

	for cmd in "rule add r family ip hook prerouting window 1000" show; do
		# shellcheck disable=SC2086
		if out=$(ddfctl $cmd 2>&1); then
			fail "ddfctl $cmd succeeded"
		fi
		pretty "" "ddfctl $cmd: $out"
		expect_eq "$(printf '%s\n' "$out" | wc -l)" 1 "lines of ddfctl $cmd"
		for w in "Secure Boot" '"Key was rejected by service"' \
			"mokutil --import /var/lib/dkms/mok.pub" reboot "MOK manager"; do
			[[ $out == *"$w"* ]] ||
				fail "ddfctl $cmd does not say '$w': $out"
		done
		passed "ddfctl $cmd says what happened and what to do"
	done
}
