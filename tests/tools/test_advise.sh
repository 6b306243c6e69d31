#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ddfctl advise: on two ports' captures from ddf_advisegen, the copies,
# their delays (percentiles by nearest rank, computed here from the
# generator's list) and what differs (the generator's words) against the
# generator's known values; the recommended rule's words replayed over the
# same captures drop every copy; ddf_pcapgen's captures (Ethernet and raw
# IP) against its key classes; the sentences of bad input; and every
# capture of tcpdump's test suite: advise completes, and replaying its
# recommendation misses no copy that advise's exact comparison found.
# Usage: tests/tools/test_advise.sh [BUILD_DIR]
set -e

B=${1:-build}
CTL=$B/ddfctl
GEN=$B/ddf_advisegen
PGEN=$B/ddf_pcapgen
SEED="seed 00112233445566778899aabbccddeeff"
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# the rule's words: the last line after NAME, without the comment
rule_words() { tail -n 1 "$1" | sed 's/^ddfctl rule add NAME //; s/ *#.*//'; }

# records a replay log calls duplicate, and those an advise log calls copy
dups() { awk '$2 == "duplicate" { print $1 }' "$1"; }
copies() { awk '$2 == "copy" { print $1 }' "$1"; }
# the lines of file $2 that file $1 lacks, counted
lacks() { awk 'NR == FNR { h[$1] = 1; next } !($1 in h)' "$1" "$2" | wc -l; }

# Test that the report of two generated ports equals what the generator
# knows: copies, delays, differences, matches once each is ignored, the
# key and a window over the largest delay.
"$GEN" 3000 "$tmp/p1.pcap" "$tmp/p2.pcap" >"$tmp/truth"
"$CTL" advise "$tmp/p1.pcap" "$tmp/p2.pcap" -l "$tmp/adv.log" >"$tmp/adv.txt"
"$CTL" -j advise "$tmp/p1.pcap" "$tmp/p2.pcap" >"$tmp/adv.json"
if out=$(python3 - "$tmp/truth" "$tmp/adv.json" "$(rule_words "$tmp/adv.txt")" <<'EOF'
import json, math, sys
truth, adv, words = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
recs, cps = 0, []
for l in open(truth):
    f = l.split()
    if f[0] == "R":
        recs += 1
    else:
        d = set() if f[6] == "-" else set(f[6].split(","))
        cps.append((int(f[3]), int(f[4]), f[5] == "1", d, f[7] == "1"))
errs = []
def want(what, got, exp):
    if got != exp:
        errs.append(f"{what}: advise says {got}, the generator {exp}")
def rank(v, p):  # nearest rank
    v = sorted(v)
    return v[max(1, math.ceil(p * len(v) - 1e-9)) - 1]
want("records", adv["records"], recs)
want("packets", adv["packets"], recs)
want("copies", adv["copies"], len(cps))
want("share", round(adv["share"], 6), round(len(cps) / recs, 6))
for key, col in (("delay_packets", 0), ("delay_ns", 1)):
    v = [c[col] for c in cps]
    for name, p in (("p50", .5), ("p90", .9), ("p99", .99), ("p99.9", .999)):
        want(f"{key} {name}", adv[key][name], rank(v, p))
    want(f"{key} max", adv[key]["max"], max(v))
# a key of an IP packet has no MAC addresses
eff = [c[3] - {"mac"} if c[2] else c[3] for c in cps]
hidden = {"ttl": {"ttl", "ipv4csum"}, "ipid": {"ipid", "ipv4csum"},
          "dscp": {"dscp", "ipv4csum"}, "ecn": {"ecn", "ipv4csum"}}
for dim in ("ttl", "ipid", "dscp", "ecn", "flowlabel", "ipv4csum", "l4csum",
            "vlan", "mac", "tunnel"):
    want(f"differs {dim}", adv["differs"][dim],
         sum(dim in c[3] for c in cps))
    h = hidden.get(dim, {dim})
    # opening a tunnel hides what differs in its outer headers
    want(f"match once {dim} is ignored", adv["match_once_ignored"][dim],
         sum(e <= h or (dim == "tunnel" and c[4]) for e, c in zip(eff, cps)))
want("match with nothing ignored", adv["match_strict"], sum(not e for e in eff))
want("identical frames", adv["identical_frames"], sum(not c[3] for c in cps))
need = set().union(*eff)
r = adv["rule"]
want("ignore", set(r["ignore"].split(",")), need - {"tunnel"})
want("decap", r["decap"] != "none", "tunnel" in need)
want("words", r["words"], words)
ns = [c[1] for c in cps]
if r["window_ns"] < max(2 * rank(ns, .999), max(ns)):
    errs.append(f"window {r['window_ns']} ns misses delays up to {max(ns)}")
want("copies beyond the window", r["beyond_window"], 0)
want("loosest key", r["loosest"], False)
print("\n".join(errs))
sys.exit(1 if errs else 0)
EOF
); then ok; else bad "advise over generated ports: $out"; fi
# the -l log's copies are the generator's
awk '$1 == "C" { print $2 }' "$tmp/truth" >"$tmp/truth.idx"
copies "$tmp/adv.log" >"$tmp/adv.idx"
if cmp -s "$tmp/truth.idx" "$tmp/adv.idx"; then ok; else
	bad "advise -l: its copies are not the generator's"
fi
if tail -n 1 "$tmp/adv.txt" | grep -q '^ddfctl rule add NAME family netdev dev DEV .* window [0-9]*/[0-9]*[mun]*s fpr 1e-6 action drop  # apbbf, [0-9]* bytes$'; then
	ok
else
	bad "advise's last line is not the rule: $(tail -n 1 "$tmp/adv.txt")"
fi

# Test that a port's capture as pcapng (editcap) gives the same report.
if command -v editcap >/dev/null; then
	editcap -F pcapng "$tmp/p2.pcap" "$tmp/p2.pcapng"
	"$CTL" -j advise "$tmp/p1.pcap" "$tmp/p2.pcapng" >"$tmp/ng.json"
	if diff <(sed 's/"files": [^]]*\]//' "$tmp/adv.json") \
		<(sed 's/"files": [^]]*\]//' "$tmp/ng.json") >/dev/null; then
		ok
	else
		bad "advise over pcap and pcapng: another report than over two pcap files"
	fi
else
	echo "skipped: pcapng input (editcap missing: package wireshark-common)"
fi

# Test that replay, given the recommended words as they are, drops every
# copy the generator made (any seed), and with a seed nothing else.
words=$(rule_words "$tmp/adv.txt")
# shellcheck disable=SC2086 # the rule's words, one by one
if "$CTL" replay "$tmp/p1.pcap" "$tmp/p2.pcap" $words -l "$tmp/r.log" \
	>/dev/null; then
	missed=$(lacks <(dups "$tmp/r.log") "$tmp/truth.idx")
	if [ "$missed" = 0 ]; then ok; else
		bad "replay with advise's words missed $missed copies: $words"
	fi
else
	bad "replay refused advise's words: $words"
fi
# shellcheck disable=SC2086
"$CTL" replay "$tmp/p1.pcap" "$tmp/p2.pcap" $words $SEED -l "$tmp/r.log" \
	>/dev/null
if dups "$tmp/r.log" | cmp -s - "$tmp/truth.idx"; then ok; else
	bad "seeded replay with advise's words: dropped another set than the copies"
fi

# Test that tunnelled copies a hop older outside (outer TTL and header
# checksum differ, nothing inside) get ignore ttl,ipv4csum and no decap,
# and that replay with those words drops every copy and nothing else.
"$GEN" outer 300 "$tmp/o1.pcap" "$tmp/o2.pcap" >"$tmp/otruth"
"$CTL" advise "$tmp/o1.pcap" "$tmp/o2.pcap" >"$tmp/o.txt"
words=$(rule_words "$tmp/o.txt")
if [[ $words == "family netdev dev DEV ignore ttl,ipv4csum window "* ]] &&
	grep -q "^  ttl .* $(grep -c '^C.* ttl,ipv4csum 1$' "$tmp/otruth") " \
		"$tmp/o.txt"; then
	ok
else
	bad "advise over tunnelled copies: '$words'; $(grep '^  ttl' "$tmp/o.txt")"
fi
# shellcheck disable=SC2086
"$CTL" replay "$tmp/o1.pcap" "$tmp/o2.pcap" $words $SEED -l "$tmp/r.log" \
	>/dev/null
if dups "$tmp/r.log" | cmp -s - <(awk '$1 == "C" { print $2 }' "$tmp/otruth")
then ok; else
	bad "replay of tunnelled copies with '$words': not every copy dropped, or more"
fi

# Test that ddf_pcapgen's captures give the copies its key classes say:
# mixed (Ethernet: family netdev) and link:raw (raw IP: the IP families),
# whose copies differ in TTL only, and so the words ignore ttl,ipv4csum.
for sc in mixed link:raw link:sll; do
	"$PGEN" "$sc" "$tmp/g.pcap" >"$tmp/cls"
	awk '$2 != "-" { if (seen[$2]++) print NR, "copy"; else print NR, "new" }
		$2 == "-" { if (seenf[$3]++) print NR, "copy"; else print NR, "new" }' \
		"$tmp/cls" >"$tmp/want"
	if ! "$CTL" advise "$tmp/g.pcap" -l "$tmp/g.log" >"$tmp/g.txt"; then
		bad "advise $sc failed"
		continue
	fi
	if awk '$2 != "not-keyed"' "$tmp/g.log" | cmp -s - "$tmp/want"; then
		ok
	else
		bad "advise $sc: copies differ from the generator's key classes"
	fi
	words=$(rule_words "$tmp/g.txt")
	case $sc in
	mixed) fam="family netdev dev DEV " ;;
	*) fam="" ;;
	esac
	if [[ $words == "${fam}ignore ttl,ipv4csum window "* ]]; then ok; else
		bad "advise $sc: words '$words', not ignore ttl,ipv4csum"
	fi
	# shellcheck disable=SC2086
	"$CTL" replay "$tmp/g.pcap" $words $SEED -l "$tmp/r.log" >/dev/null
	if dups "$tmp/r.log" | cmp -s - <(copies "$tmp/g.log"); then ok; else
		bad "advise $sc: replay with its words drops other records than its copies"
	fi
done

# Test the sentences of bad input, and that nothing is printed on stdout.
head -c 24 "$tmp/p1.pcap" >"$tmp/empty.pcap"
head -c 5000 "$tmp/p1.pcap" >"$tmp/cut.pcap"
echo "not a capture" >"$tmp/text.pcap"
check_err() { # WANT ARGS...
	local want=$1
	shift
	if "$CTL" advise "$@" >"$tmp/o" 2>"$tmp/e"; then
		bad "advise $* succeeded"
	elif [ -s "$tmp/o" ]; then
		bad "advise $*: printed on stdout: $(cat "$tmp/o")"
	elif grep -q -- "$want" "$tmp/e"; then
		ok
	else
		bad "advise $*: '$(cat "$tmp/e")', not '$want'"
	fi
}
check_err "needs a capture FILE"
check_err "'$tmp/none.pcap': No such file" "$tmp/none.pcap"
check_err "'$tmp/text.pcap' is not a capture" "$tmp/text.pcap"
check_err "'$tmp/cut.pcap'.*record" "$tmp/cut.pcap"
check_err "'$tmp/cut.pcap'.*record" "$tmp/p2.pcap" "$tmp/cut.pcap"
check_err "'$tmp/empty.pcap' holds no records: nothing to advise on" \
	"$tmp/empty.pcap"
check_err "not standard input" -
check_err "'-x' is not an option" "$tmp/p1.pcap" -x
check_err "must be at least 1 record" "$tmp/p1.pcap" -c 0
check_err "-c needs a COUNT" "$tmp/p1.pcap" -c
"$PGEN" link:ppp "$tmp/ppp.pcap" >/dev/null
check_err "nothing to advise on" "$tmp/ppp.pcap"
if "$CTL" advise --help | grep -q "^usage: ddfctl \[-j\] advise FILE"; then
	ok
else
	bad "advise --help"
fi
if "$CTL" -j advise "$tmp/p1.pcap" "$tmp/p2.pcap" -c 100 |
	grep -q '"records": 100,'; then ok; else bad "advise -c 100"; fi
# a capture with no copy: said, and no rule
"$PGEN" link:ipv4 "$tmp/one.pcap" >/dev/null
"$CTL" advise "$tmp/one.pcap" -c 1 >"$tmp/o"
if grep -q "nothing for a rule to drop" "$tmp/o" &&
	! grep -q "rule add" "$tmp/o"; then ok; else
	bad "advise with no copy: $(cat "$tmp/o")"
fi

# Test, over every capture of tcpdump's test suite, that advise completes
# (or says there is nothing to advise on) and that replay with its words
# drops every copy it found, except those it says lie beyond the window.
if dir=$(scripts/fetch-tcpdump-tests.sh 2>/dev/null); then
	n=0
	advised=0
	with=0
	ncopies=0
	shopt -s nullglob
	for f in "$dir"/*.pcap "$dir"/*.pcapng; do
		n=$((n + 1))
		if ! "$CTL" -j advise "$f" -l "$tmp/c.log" >"$tmp/c.json" \
			2>"$tmp/c.err"; then
			if ! grep -q "nothing to advise on\|is not a capture\|record" \
				"$tmp/c.err"; then
				bad "advise $(basename "$f"): $(cat "$tmp/c.err")"
			fi
			continue
		fi
		advised=$((advised + 1))
		words=$(sed -n 's/.*"words": "\([^"]*\)".*/\1/p' "$tmp/c.json")
		[ -n "$words" ] || continue
		with=$((with + 1))
		beyond=$(sed -n 's/.*"beyond_window": \([0-9]*\).*/\1/p' \
			"$tmp/c.json")
		# shellcheck disable=SC2086
		if ! "$CTL" replay "$f" $words $SEED -l "$tmp/r.log" \
			>/dev/null 2>"$tmp/r.err"; then
			bad "replay $(basename "$f") $words: $(cat "$tmp/r.err")"
			continue
		fi
		missed=$(lacks <(dups "$tmp/r.log") <(copies "$tmp/c.log"))
		ncopies=$((ncopies + $(copies "$tmp/c.log" | wc -l)))
		if [ "$missed" -gt "${beyond:-0}" ]; then
			bad "$(basename "$f"): replay with '$words' missed $missed copies ($beyond beyond the window)"
		fi
	done
	echo "advise over tcpdump's captures: $n read, $advised advised," \
		"$with with copies ($ncopies copies), each replayed"
	if [ "$advised" -gt 0 ]; then ok; else bad "no tcpdump capture advised"; fi
else
	echo "skipped: tcpdump's test captures (scripts/fetch-tcpdump-tests.sh failed)"
fi

echo "test_advise: $pass passed, $fail failed"
[ "$fail" = 0 ]
