#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The bash completion of ddfctl (tools/ddfctl/ddfctl.bash): its word lists
# against the words ddfctl accepts, and COMPREPLY for command lines typed
# so far, the function called as bash calls it (COMP_WORDS, COMP_CWORD).
# Usage: tests/tools/test_completion.sh [BUILD_DIR]
set -e

B=${1:-build}
CTL=$(cd "$(dirname "$B/ddfctl")" && pwd)/ddfctl
COMPLETION=$PWD/tools/ddfctl/ddfctl.bash
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# shellcheck source=tools/ddfctl/ddfctl.bash
. "$COMPLETION"
complete -p ddfctl | grep -q -- '-F _ddfctl ddfctl$' && ok ||
	bad "the file does not register _ddfctl for ddfctl"

# --- the lists against ddfctl --------------------------------------------
sorted() { tr ' ' '\n' | grep -v '^$' | sort | tr '\n' ' ' | sed 's/ $//'; }
sentence_list() {
	sed -n "s/.* is not \(.*\)\$/\1/p" | sed 's/,//g; s/ or / /g'
}
same() {
	local what=$1 ours theirs

	ours=$(echo "$2" | sorted)
	theirs=$(echo "$3" | sorted)
	if [ -n "$theirs" ] && [ "$ours" = "$theirs" ]; then
		ok
		echo "completion: $what: $(echo "$ours" | wc -w), as ddfctl"
	else
		bad "$what: the completion has '$ours', ddfctl '$theirs'"
	fi
}
same "filter kinds" "$_ddfctl_kinds" \
	"$("$CTL" size filter '?' 2>&1 | sed -n 2p)"
same hooks "$_ddfctl_hooks" \
	"$("$CTL" -n rule add x hook '?' 2>&1 | sentence_list)"
same families "$_ddfctl_families" \
	"$("$CTL" -n rule add x family '?' 2>&1 | sentence_list)"
same protocols "$_ddfctl_protos" \
	"$("$CTL" -n rule add x proto '?' 2>&1 | sentence_list)"
same actions "$_ddfctl_actions" \
	"$("$CTL" -n rule add x action '?' 2>&1 | sentence_list)"
same hashes "$_ddfctl_hashes" \
	"$("$CTL" -n rule add x hash '?' 2>&1 | sentence_list)"
same "key fields" "$_ddfctl_key_fields" \
	"$("$CTL" -n rule add x key '?' 2>&1 | sed -n 2p)"
same "ignore fields" "$_ddfctl_ignores" \
	"$("$CTL" -n rule add x ignore '?' 2>&1 | sed -n 2p)"
same tunnels "$_ddfctl_decaps" \
	"$("$CTL" -n rule add x decap '?' 2>&1 | sed -n 2p)"
# the hooks of each family: each taken in it, together all the hooks
same "hooks of the IP families and of netdev" \
	"$_ddfctl_inet_hooks $_ddfctl_netdev_hooks" "$_ddfctl_hooks none"
for h in $_ddfctl_inet_hooks; do
	"$CTL" -n rule add x family ip window 1 hook "$h" >/dev/null 2>&1 &&
		ok || bad "family ip refuses hook $h"
done
for h in $_ddfctl_netdev_hooks; do
	"$CTL" -n rule add x family netdev dev e window 1 hook "$h" \
		>/dev/null 2>&1 && ok || bad "family netdev refuses hook $h"
done
same commands "$_ddfctl_commands" \
	"$("$CTL" --help | sed -n '/^commands:/,/^[^ ]/p' |
		sed -n 's/^  \([a-z]*\) .*/\1/p' | sort -u)"
same "rule commands" "$_ddfctl_rule_commands" \
	"$("$CTL" --help | sed -n 's/^  rule \([a-z]*\) .*/\1/p')"
# the keywords of rule add: its usage lines, "[word ..." or "| word ..."
same "rule add keywords" "$_ddfctl_rule_words" \
	"$("$CTL" rule add --help | sed '/^  NAME/,$d' |
		grep -oE '(\[|\| )[a-z][a-z-]*' | sed 's/^[[| ]*//' | sort -u)"
same "size keywords" "$_ddfctl_size_words" \
	"$("$CTL" size bogus 1 2>&1 | sed -n 's/.*not a keyword (\(.*\))$/\1/p' |
		sed 's/,//g')"
# every word refused? then the list is wrong: each one must parse
n=0
for k in $_ddfctl_kinds; do
	out=$("$CTL" size filter "$k" 2>&1 || true)
	case $out in *"is not a filter kind"*) bad "ddfctl refuses filter $k" ;; *) ok ;; esac
	n=$((n + 1))
done
echo "completion: $n filter kinds each taken by ddfctl size"

# --- COMPREPLY -----------------------------------------------------------
# complete LINE: the words of LINE, the last one being completed (a line
# ending in a space completes an empty word); prints COMPREPLY sorted.
complete_line() {
	local line=$1

	read -ra COMP_WORDS <<<"$line"
	[ "${line: -1}" = " " ] && COMP_WORDS+=("")
	COMP_WORDS[0]=${DDFCTL:-$CTL}
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	_ddfctl 2>"$tmp/stderr"
	printf '%s\n' "${COMPREPLY[@]}" | grep -v '^$' | sort | tr '\n' ' ' |
		sed 's/ $//'
}
cases=0
expect() {
	local line=$1 want got

	want=$(echo "$2" | sorted)
	got=$(complete_line "$line")
	cases=$((cases + 1))
	if [ "$got" = "$want" ] && [ ! -s "$tmp/stderr" ]; then
		ok
		echo "completion: '$line<TAB>' -> ${got:-nothing}"
	else
		bad "'$line<TAB>': got '$got', want '$want'" \
			"$(cat "$tmp/stderr")"
	fi
}

expect "ddfctl " "$_ddfctl_commands"
expect "ddfctl s" "show stats save size"
expect "ddfctl -" "-j --json -o --output -n --dry-run -h --help"
expect "ddfctl -j -n st" "stats"
expect "ddfctl -o " "text json prometheus"
expect "ddfctl --output p" "prometheus"
expect "ddfctl -o prometheus st" "stats"
expect "ddfctl -n --output json -n s" "show stats save size"
expect "ddfctl rule " "add del reset flush"
expect "ddfctl xdp " "attach detach show --help"
expect "ddfctl xdp attach " "dev exclusive mode priority rule"
expect "ddfctl xdp attach dev lo rule x " "exclusive mode priority"
expect "ddfctl xdp attach dev lo exclusive rule x " "mode"
expect "ddfctl xdp attach dev lo priority 7 " "mode rule"
expect "ddfctl xdp attach dev lo priority " "5 10 20 50"
expect "ddfctl xdp attach dev lo mode " "native generic"
expect "ddfctl xdp detach " "dev all"
expect "ddfctl restore -" "--wait"
expect "ddfctl apply --" "--wait --against"
expect "ddfctl apply --wait " ""
# a netdev rule's devices: a list, those given left out (lo exists here)
expect "ddfctl rule add x family netdev dev l" "lo"
expect "ddfctl rule add x family netdev dev lo," \
	"$(ls /sys/class/net | grep -vx lo | sed 's/^/lo,/')"
expect "ddfctl rule add x filter a" "apbf apbbf a2"
expect "ddfctl rule add x filter " "$_ddfctl_kinds"
expect "ddfctl rule add x hook " "prerouting input forward output postrouting ingress egress none"
expect "ddfctl rule add x family netdev hook " "ingress egress none"
expect "ddfctl rule add x family ip6 window 10 hook " "prerouting input forward output postrouting none"
expect "ddfctl rule add x family i" "ip ip6 inet"
expect "ddfctl rule add x family " "ip ip6 inet netdev"
expect "ddfctl rule add x proto icmp" "icmp icmpv6"
expect "ddfctl rule add x hash " "siphash13 siphash24"
expect "ddfctl rule add x action " "drop count mark"
expect "ddfctl rule add x ignore " "$_ddfctl_ignores none"
expect "ddfctl rule add x ignore ttl,ipv4csum,d" "ttl,ipv4csum,dscp"
expect "ddfctl rule add x ignore ttl," \
	"ttl,ipv4csum ttl,dscp ttl,ecn ttl,ipid ttl,flowlabel ttl,l4csum ttl,vlan ttl,mac"
expect "ddfctl rule add x ignore v" "vlan"
expect "ddfctl rule add x decap " "$_ddfctl_decaps none"
expect "ddfctl rule add x decap g" "geneve gre gtpu"
expect "ddfctl rule add x decap vxlan,g" "vxlan,geneve vxlan,gre vxlan,gtpu"
expect "ddfctl rule add x key saddr,d" "saddr,daddr saddr,dport"
expect "ddfctl rule add x key p" "packet payload proto"
expect "ddfctl replay in.pcap key f" "frame"
expect "ddfctl rule add x key f" "frame"
expect "ddfctl rule add x window 1000 " \
	"family hook priority dev iif oif proto key payload ignore max-bytes decap filter fpr memory cpus tune shape seed hash action"
expect "ddfctl rule add x action mark 0x1/0x1 fi" "filter"
expect "ddfctl rule add x action mark 0x1/0x1 a" ""
expect "ddfctl rule add x action mark " ""
expect "ddfctl rule add x window " ""
expect "ddfctl size " "filter window fpr memory cpus tune"
expect "ddfctl size window 1M tune " "speed memory"
expect "ddfctl rule add x window 1M tune s" "speed"
expect "ddfctl size window 1M f" "filter fpr"
expect "ddfctl size filter q" "qht qhtd qqhtd queue"
expect "ddfctl -j size filter apbbf window 1M " "fpr memory cpus tune"

# files: replay's capture, -w -W -l, and redirections
mkdir "$tmp/files"
touch "$tmp/files/in.pcap" "$tmp/files/in.pcapng" "$tmp/files/rules.ddf"
cd "$tmp/files"
expect "ddfctl replay " "in.pcap in.pcapng rules.ddf"
expect "ddfctl replay in" "in.pcap in.pcapng"
expect "ddfctl replay in.pcap -w " "in.pcap in.pcapng rules.ddf"
expect "ddfctl replay in.pcap window 100 -W r" "rules.ddf"
expect "ddfctl replay in.pcap -" "-w -W -l --help"
# more captures, one per port, until the first keyword of the rule
expect "ddfctl replay in.pcap i" "ignore iif in.pcap in.pcapng"
expect "ddfctl replay in.pcap -w o.pcap in.pcapng r" "rules.ddf"
expect "ddfctl replay in.pcap in.pcapng w" "window"
expect "ddfctl replay in.pcap window 100 i" "ignore iif"
expect "ddfctl replay in.pcap in.pcapng window 100 -l " \
	"in.pcap in.pcapng rules.ddf"
# advise: captures, -c COUNT, -l LOG
expect "ddfctl advise " "in.pcap in.pcapng rules.ddf"
expect "ddfctl advise in.pcap in" "in.pcap in.pcapng"
expect "ddfctl advise in.pcap -" "-c -l -j --help"
expect "ddfctl advise in.pcap -c " ""
expect "ddfctl advise in.pcap -l r" "rules.ddf"
expect "ddfctl restore < r" "rules.ddf"
expect "ddfctl save > in" "in.pcap in.pcapng"
cd - >/dev/null

# rule names: from `ddfctl save`, here a stand-in that prints save lines;
# with the real ddfctl and no module, nothing and no message
cat >"$tmp/ddfctl" <<'EOF'
#!/bin/sh
[ "$1" = save ] || exit 1
echo "rule add web family inet hook prerouting window 1000"
echo "rule add wan hook input window 10/1s filter exact"
echo "rule add dns proto udp window 100k"
EOF
chmod +x "$tmp/ddfctl"
DDFCTL=$tmp/ddfctl expect "ddfctl show " "web wan dns"
DDFCTL=$tmp/ddfctl expect "ddfctl -j stats w" "web wan"
DDFCTL=$tmp/ddfctl expect "ddfctl rule del d" "dns"
DDFCTL=$tmp/ddfctl expect "ddfctl rule reset web " "filter"
DDFCTL=$tmp/ddfctl expect "ddfctl rule add " ""
if ! "$CTL" save >/dev/null 2>&1; then
	expect "ddfctl show " ""
	expect "ddfctl rule del " ""
else
	echo "completion: a ddf module answers here: the no-module case is skipped"
fi

echo "completion: $cases command lines completed"
echo "test_completion: $pass passed, $fail failed"
[ "$fail" = 0 ]
