#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# save and restore of a rule whose ports are in every state: present,
# renamed, renamed onto the name another port of the rule waits for,
# deleted, moved to another namespace, and named with a comma, a
# backslash and bytes outside ASCII; beside it a rule of one such device
# and one whose iif and oif are such names. save writes what restore
# reads (the ports of a name twice by their given names, the renamed port
# in no clash by its name now), restore --wait 0
# leaves out the rule whose devices are not all here, and once they are,
# the file restores every rule and saves the same again.
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/netns/saved.sh
#
# ┌──────────────────────────────────────────┐   ┌──────────────────┐
# │ $ns: veth pairs aN - zN (both ends here) │   │ $other           │
# │ rule multi: dev a0,a1,a2,a3,p\,4,b\\s     │──▶│ a3, moved there  │
# └──────────────────────────────────────────┘   └──────────────────┘

set -e

exec 3>&1
export LANG=C
ns="ddfsaved-$$"
other="ddfsaved-$$-other"
: "${DDF_MODULES:=$(cd "$(dirname "$0")/../.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
tmp=$(mktemp -d)
blocks=0

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"
N() { pretty "$ns" "$*"; ip netns exec "$ns" "$@"; }

cleanup() {
	set +e
	exec 2>/dev/null
	ip netns del "$ns"
	ip netns del "$other"
	rm -rf "$tmp"
	loaded && rmmod nf_ddf
	exit
}
trap cleanup EXIT

skip() {
	echo "saved.sh: skipped: $*"
	exit 0
}

# port NAME PEER: a veth pair in $ns, both ends up
port() {
	ip -n "$ns" link add "$1" type veth peer name "$2" || return
	ip -n "$ns" link set up dev "$1"
	ip -n "$ns" link set up dev "$2"
}

# rule=(...): the words of the rules, but their names and devices
rule=(window 1000 filter exact action count)
comma='p,4'
bslash='b\s'
odd=$'e\x01\xc3\xa9'

if loaded; then pp rmmod nf_ddf; fi
pp ip netns add "$ns"
pp ip netns add "$other"
ip -n "$ns" link set up dev lo
for i in 0 1 2 3; do port "a$i" "z$i"; done
port "$comma" z4 || skip "ip link refuses the device name '$comma'"
port "$bslash" z5
port "$odd" z6 || skip "ip link refuses a device name with bytes outside ASCII"
pp insmod "$module"

N ddfctl rule add multi family netdev dev "a0,a1,a2,a3,p\\,4,b\\\\s" "${rule[@]}"
N ddfctl rule add odd family netdev hook egress dev 'e\x01\xc3\xa9' "${rule[@]}"
N ddfctl rule add sel family ip hook forward iif 'i\,f' oif 'o\\x' "${rule[@]}"

# Test that save writes a device by the escapes that restore reads.
N ddfctl save >"$tmp/fresh"
cat "$tmp/fresh" >&3
grep -qxF 'rule add odd family netdev hook egress dev e\x01\xc3\xa9 priority 0 key packet ignore ttl,ipv4csum filter exact window 1000 action count' \
	"$tmp/fresh" || fail "the saved line of rule odd"
grep -q '^rule add sel family ip hook forward priority 0 iif i\\,f oif o\\\\x ' \
	"$tmp/fresh" || fail "the saved line of rule sel"
passed "save escapes a comma, a backslash and bytes outside ASCII"

# rename OLD NEW: down first, as 6.1 renames no device that is up
rename() {
	N ip link set down dev "$1"
	N ip link set "$1" name "$2"
	N ip link set up dev "$2"
}

# The states: a2 deleted (its port waits for a2), a1 renamed a2 (the name
# that port waits for: two ports named a2), a3 moved to $other, b\s
# renamed.
N ip link del a2
rename a1 a2
N ip link set a3 netns "$other"
rename "$bslash" 'r#"x'
N ddfctl show multi
N ddfctl -j show multi >"$tmp/json"
expect_eq "$(grep -o '"state": "[a-z]*"' "$tmp/json" | tr '\n' ' ')" \
	'"state": "present" "state": "renamed" "state": "gone" "state": "gone" "state": "present" "state": "renamed" ' \
	"the ports' states"
expect_eq "$(grep -o '"name": "a2"' "$tmp/json" | wc -l)" 2 \
	"ports named a2"

# Test that save writes a line restore takes: the two ports named a2 by
# the names they were given, b\s (renamed, but in no clash) by its name
# now, and the other rules as they were.
N ddfctl save >"$tmp/saved"
cat "$tmp/saved" >&3
grep -q '^rule add multi family netdev hook ingress dev a0,a1,a2,a3,p\\,4,r#"x priority 0 ' \
	"$tmp/saved" || fail "the saved line of rule multi"
grep -v '^rule add multi ' "$tmp/fresh" >"$tmp/a"
grep -v '^rule add multi ' "$tmp/saved" >"$tmp/b"
diff -u "$tmp/a" "$tmp/b" >&2 || fail "the other rules saved otherwise"
N ddfctl -n restore "$tmp/saved" >"$tmp/dry" ||
	fail "restore -n refuses what save wrote"
expect_eq "$(grep -c '^DDF_CMD_NEW' "$tmp/dry")" 3 "rules restore -n sends"
passed "save of a rule with a name twice writes what restore reads"

# Test that restore --wait 0 leaves out the rule whose devices are not
# all here (a1, a3) and adds the others.
N ddfctl rule flush
st=0
N ddfctl restore --wait 0 "$tmp/saved" 2>"$tmp/err" || st=$?
cat "$tmp/err" >&3
expect_eq "$st" 75 "restore's exit status with a rule left out"
grep -q "rule 'multi' left out: dev a1 is not here" "$tmp/err" ||
	fail "restore does not name the rule it left out"
N ddfctl save >"$tmp/partial"
diff -u "$tmp/a" "$tmp/partial" >&2 || fail "the rules restored"
passed "restore --wait 0 leaves the rule with absent devices out"

# Test that once devices of those names are here, the file restores all
# its rules, each port present, and saves the same.
N ddfctl rule flush
ip -n "$other" link set a3 netns "$ns"
N ip link set up dev a3
port a1 z7
N ddfctl restore "$tmp/saved"
N ddfctl -j show multi >"$tmp/json"
expect_eq "$(grep -o '"state": "[a-z]*"' "$tmp/json" | sort | uniq -c | tr -s ' ')" \
	' 6 "state": "present"' "the ports' states once restored"
N ddfctl save >"$tmp/again"
diff -u "$tmp/saved" "$tmp/again" >&2 || fail "saved again, the file differs"
passed "restored with its devices here, the rules save the same file"

echo "saved: $blocks blocks passed"
