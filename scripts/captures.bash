# SPDX-License-Identifier: GPL-2.0
# Every capture the project has, for the scripts that replay them all
# (scripts/key-adoption.sh, tests/cross/replay.sh); sourced by bash.
#
#   captures_collect TMP BUILD_DIR
#
# fills the array files with: tcpdump's test captures
# (scripts/fetch-tcpdump-tests.sh --cached; left out, saying so, when they
# are not there), every scenario of ddf_pcapgen (the replay tests'
# captures), ddf_spangen's sent.pcap of every scenario (the mirror-port
# tests') and ddf_craft's capture (the adversarial test's), the generated
# ones written under TMP by BUILD_DIR's tools.
captures_collect() {
	local tmp=$1 b=$2 root tcpd f s
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	files=()
	tcpd=$("$root/scripts/fetch-tcpdump-tests.sh" --cached) ||
		echo "${0##*/}: tcpdump's test captures are not there (make tcpdump-tests): left out"
	if [ -n "$tcpd" ]; then
		for f in "$tcpd"/*.pcap "$tcpd"/*.pcapng; do
			[ -f "$f" ] && files+=("$f")
		done
	fi
	mkdir -p "$tmp/gen"
	for s in mixed vlan nonip time netdev tunnel late link:en10mb link:raw \
		link:ipv4 link:ipv6 link:sll link:sll2 link:null link:nullbe \
		link:loop link:ppp ifaces:same ifaces:type ifaces:snap; do
		f="$tmp/gen/pcapgen-${s/:/-}.pcap"
		[ "${s%%:*}" != ifaces ] || f=${f%.pcap}.pcapng
		"$b/ddf_pcapgen" "$s" "$f" >/dev/null && files+=("$f")
	done
	"$b/ddf_pcapgen" ports "$tmp/gen/pcapgen-port1.pcap" \
		"$tmp/gen/pcapgen-port2.pcap" >/dev/null &&
		files+=("$tmp/gen/pcapgen-port1.pcap" "$tmp/gen/pcapgen-port2.pcap")
	for s in ttl vlan vxlan encap jumbo; do
		mkdir -p "$tmp/gen/span-$s"
		"$b/ddf_spangen" "$s" "$tmp/gen/span-$s" >/dev/null &&
			cp "$tmp/gen/span-$s/sent.pcap" "$tmp/gen/spangen-$s.pcap" &&
			files+=("$tmp/gen/spangen-$s.pcap")
	done
	if [ -x "$b/robust/ddf_craft" ]; then
		"$b/robust/ddf_craft" -s 00112233445566778899aabbccddeeff \
			-w 5000 -f 1e-2 -n 20000 "$tmp/gen/craft.pcap" \
			>/dev/null && files+=("$tmp/gen/craft.pcap")
	fi
	return 0
}
