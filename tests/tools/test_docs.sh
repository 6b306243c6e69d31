#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The man pages: each renders without a warning (groff, and mandoc's lint
# when installed); every command, filter kind, hook and key field that
# ddfctl accepts is documented, the lists taken from ddfctl itself; and the
# numbers of ddf.7 are those ddfctl and ddfbench compute today.
# Usage: tests/tools/test_docs.sh [BUILD_DIR]
set -e

B=${1:-build}
CTL=$B/ddfctl
BENCH=$B/ddfbench
DDF7=docs/ddf.7
CTL8=tools/ddfctl/ddfctl.8
XDP7=docs/ddf-xdp.7
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# --- rendering ---------------------------------------------------------
# Every page of the tree; an iptables extension's .man is a section of
# iptables-extensions(8), so it is wrapped into a page of its own.
pages=()
while IFS= read -r f; do pages+=("$f"); done < <(
	find docs tools -name '*.[1-8]' | sort)
for f in $(find tools -name 'libxt_*.man' | sort); do
	w=$tmp/$(basename "$f" .man).8
	{
		printf '.TH %s 8 2026-11-21 ddf\n.SH NAME\n' \
			"$(basename "$f" .man | tr '[:lower:]' '[:upper:]')"
		printf '%s \\- an iptables extension\n' "$(basename "$f" .man)"
		printf '.SH DESCRIPTION\n.SS %s\n' "$(basename "$f" .man)"
		cat "$f"
	} >"$w"
	pages+=("$w")
done
for p in "$DDF7" "$CTL8" "$XDP7"; do
	[[ " ${pages[*]} " == *" $p "* ]] && ok || bad "$p was not found"
done
if command -v mandoc >/dev/null; then
	lint=mandoc
else
	lint=
	echo "docs: mandoc is not installed, its lint is skipped" \
		"(scripts/packages-tools.txt lists it)"
fi
for p in "${pages[@]}"; do
	# -t: tables; -Tutf8 as man(1) formats, so overfull lines warn too
	out=$(groff -t -man -Tutf8 -ww -z "$p" 2>&1) && [ -z "$out" ] && ok ||
		bad "groff warns on $p: $out"
	if [ -n "$lint" ]; then
		out=$(mandoc -Tlint -W warning "$p" 2>&1) && ok ||
			bad "mandoc warns on $p: $out"
	fi
done
echo "docs: ${#pages[@]} pages rendered by groff${lint:+ and linted by mandoc}"

# plain text, no hyphenation, so that every word can be found whole
text() { groff -t -man -Tutf8 -rHY=0 -P-cbou "$1" 2>/dev/null; }
text "$DDF7" >"$tmp/ddf7.txt"
text "$CTL8" >"$tmp/ctl8.txt"
# the tags (.TP heads) of a section: the lines indented by exactly 7
tags() {
	sed -n "/^$2\$/,/^[A-Z]/p" "$1" | grep -E '^ {7}[^ ]' || true
}

# --- the lists, from ddfctl ----------------------------------------------
# Each list into $tmp/NAME, one word a line. A refused word makes ddfctl
# list the known ones ("known kinds:", "known fields:" on the next line)
# or name them in its sentence ("WHAT: '?' is not a, b or c").
words() { tr ' ' '\n' | grep -v '^$' || true; }
sentence_list() {
	sed -n "s/.* is not \(.*\)\$/\1/p" | sed 's/,//g; s/ or / /g' | words
}
"$CTL" size filter '?' 2>&1 | sed -n 2p | words >"$tmp/kinds"
for w in hook family proto action; do
	"$CTL" -n rule add x "$w" '?' 2>&1 | sentence_list >"$tmp/$w"
done
"$CTL" -n rule add x key '?' 2>&1 | sed -n 2p | words >"$tmp/fields"
"$CTL" -n rule add x ignore '?' 2>&1 | sed -n 2p | words >"$tmp/ignores"
"$CTL" -n rule add x decap '?' 2>&1 | sed -n 2p | words >"$tmp/tunnels"
"$CTL" --help | sed -n '/^commands:/,/^[^ ]/p' |
	sed -n 's/^  \(rule [a-z]*\|[a-z]*\) .*/\1/p' >"$tmp/commands"
for l in kinds hook family proto action fields ignores tunnels commands; do
	n=$(wc -l <"$tmp/$l")
	if [ "$n" -ge 2 ]; then ok; else bad "no list of $l from ddfctl"; fi
	echo "docs: ddfctl's $l: $n ($(tr '\n' ' ' <"$tmp/$l" | sed 's/ $//'))"
done

# --- every one documented ------------------------------------------------
# the word, whole, in the rendered text
has_word() { grep -qw -- "$1" "$2"; }
n=0
for k in $(cat "$tmp/kinds"); do
	tags "$tmp/ddf7.txt" "FILTER KINDS" | grep -qE "^ {7}$k( |\$)" && ok ||
		bad "ddf.7 FILTER KINDS has no entry for filter $k"
	has_word "$k" "$tmp/ctl8.txt" && ok ||
		bad "ddfctl.8 does not name filter $k"
	n=$((n + 1))
done
echo "docs: $n filter kinds: each an entry of ddf.7 FILTER KINDS and named in ddfctl.8"
n=0
while read -r c; do
	tags "$tmp/ctl8.txt" COMMANDS | grep -qE "^ {7}(.*[ ,])?$c([ ,]|\$)" &&
		ok || bad "ddfctl.8 COMMANDS has no entry for '$c'"
	n=$((n + 1))
done <"$tmp/commands"
echo "docs: $n commands: each an entry of ddfctl.8 COMMANDS"
n=0
for w in $(cat "$tmp"/{hook,family,proto,action,fields,ignores} | sort -u); do
	for page in ddf7 ctl8; do
		has_word "$w" "$tmp/$page.txt" && ok ||
			bad "$page does not name '$w'"
	done
	n=$((n + 1))
done
echo "docs: $n words (hooks, families, protocols, actions, key and ignore fields): each named in ddf.7 and ddfctl.8"
n=0
for w in $(cat "$tmp/tunnels"); do
	tags "$tmp/ctl8.txt" "RULE KEYWORDS" | grep -q '^ \{7\}decap ' &&
		has_word "$w" "$tmp/ctl8.txt" && ok ||
		bad "ddfctl.8 does not document decap $w"
	n=$((n + 1))
done
echo "docs: $n tunnels of decap: each named in ddfctl.8, which has a decap entry"
# and each of the two pages refers to the other
grep -q '^\.BR ddfctl (8)' "$DDF7" && ok || bad "ddf.7 does not refer to ddfctl(8)"
grep -q '^\.BR ddf (7)' "$CTL8" && ok || bad "ddfctl.8 does not refer to ddf(7)"

# --- ddf-xdp.7, the kfunc's contract, against the headers and the module --
# Its synopsis is the declaration of <ddf/bpf_ddf.h>; each verdict of
# enum ddf_xdp_verdict, with its value, and each error the kfunc returns
# is an entry of RETURN VALUE; ddf.7 and it refer to each other.
text "$XDP7" >"$tmp/xdp7.txt"
decl=$(sed -n 's/^extern \(int bpf_ddf_xdp(.*)\) __ksym;$/\1/p' uapi/ddf/bpf_ddf.h)
[ -n "$decl" ] && grep -qF "       $decl;" "$tmp/xdp7.txt" && ok ||
	bad "ddf-xdp.7's synopsis is not <ddf/bpf_ddf.h>'s '$decl'"
i=0
for v in $(sed -n '/^enum ddf_xdp_verdict {/,/^};/s/^\t\(DDF_XDP_[A-Z]*\),.*/\1/p' \
	uapi/linux/ddf.h); do
	tags "$tmp/xdp7.txt" "RETURN VALUE" | grep -qx " \{7\}$v ($i)" && ok ||
		bad "ddf-xdp.7 RETURN VALUE has no entry '$v ($i)'"
	i=$((i + 1))
done
errs=$(grep -o 'ret = -E[A-Z]*;' nf_ddf/nf_ddf_xdp.c | sed 's/ret = \(.*\);/\1/' | sort -u)
for e in $errs; do
	tags "$tmp/xdp7.txt" "RETURN VALUE" | grep -qx " \{7\}$e" && ok ||
		bad "ddf-xdp.7 RETURN VALUE has no entry for $e (nf_ddf_xdp.c returns it)"
done
[ "$i" -ge 4 ] && [ -n "$errs" ] && ok ||
	bad "no verdicts in uapi/linux/ddf.h ($i) or errors in nf_ddf_xdp.c"
echo "docs: ddf-xdp.7: the kfunc's declaration, $i verdicts and the errors $(echo $errs) against the sources"
grep -q '^\.BR ddf\\-xdp (7)' "$DDF7" && ok || bad "ddf.7 does not refer to ddf-xdp(7)"
grep -q '^\.BR ddf (7)' "$XDP7" && ok || bad "ddf-xdp.7 does not refer to ddf(7)"

# --- the numbers of ddf.7 ------------------------------------------------
# The sizes table: what ddfctl size chooses, the query accesses ddfbench
# size computes for apbf and apbbf, and the structure's own lines else;
# for one CPU (the text says what more CPUs cost).
row() {
	local kind=$1 win=$2 fpr=$3 tune=$4 n j acc one=() bone=()

	n=${win/k/000}
	n=${n/M/000000}
	case $kind in apbf|apbbf)
		one=(cpus 1 tune "$tune") bone=(--tune "$tune") ;;
	esac
	j=$("$CTL" -j size filter "$kind" window "$win" fpr "$fpr" \
		"${one[@]}") || return 1
	acc=$("$BENCH" size --filter "$kind" --window "$n" --fpr "$fpr" \
		"${bone[@]}" | awk '$1 == "accesses" { print $2 }')
	echo "$j" | awk -v kind="$kind" -v win="$win" -v fpr="$fpr" -v n="$n" \
		-v acc="$acc" -v tune="$tune" '{
		match($0, /"bytes": [0-9]+/)
		bytes = substr($0, RSTART + 9, RLENGTH - 9)
		match($0, /"fpr_analytic": [0-9.e+-]+/)
		f = substr($0, RSTART + 16, RLENGTH - 16)
		match($0, /"k": [0-9]+/)
		k = substr($0, RSTART + 5, RLENGTH - 5)
		if (f + 0 == 0) {
			fs = "0"
		} else {
			fs = sprintf("%.1e", f)
			sub(/e-0/, "e-", fs)
		}
		if (kind == "qqhtd")
			lines = "1"
		else if (kind == "exact")
			lines = "2 + ring"
		else
			lines = acc " + " k
		r = sprintf("%s@%s@%s@%s@%d@%.2f@%s@%s", kind, tune, win, fpr,
			    bytes, bytes / n, fs, lines)
		gsub(/-/, "\\-", r)
		print r
	}'
}
sed -n '/^\.\\" BEGIN SIZES/,/^\.\\" END SIZES/p' "$DDF7" |
	grep -E '^[a-z0-9]+@([a-z]+|\\-)@[0-9]' >"$tmp/rows.doc" || true
for kind in apbbf apbf qqhtd exact; do
	tunes="speed memory"
	case $kind in qqhtd|exact) tunes=- ;; esac
	for tune in $tunes; do
		for win in 10k 1M 10M; do
			for fpr in 1e-3 1e-6; do
				row "$kind" "$win" "$fpr" "$tune"
			done
		done
	done
done >"$tmp/rows.now"
if [ "$(wc -l <"$tmp/rows.now")" = 36 ] &&
	cmp -s "$tmp/rows.doc" "$tmp/rows.now"; then
	ok
else
	bad "the sizes table of ddf.7 is not what ddfctl and ddfbench give now;" \
		"the rows today:"
	cat "$tmp/rows.now"
fi
echo "docs: ddf.7 sizes table: $(wc -l <"$tmp/rows.doc") rows against ddfctl size and ddfbench size"

# The numbers of its text: a command, a number of its output, and the
# words of ddf.7 that quote it (its source, lines joined).
tr '\n' ' ' <"$DDF7" >"$tmp/ddf7.flat"
claim() {
	local what=$1 value=$2 words=$3

	if [ -n "$value" ] && grep -qF -- "$words" "$tmp/ddf7.flat"; then
		ok
	else
		bad "ddf.7 should say '$words' ($what gives '$value')"
	fi
}
s=$("$BENCH" size --filter apbbf --window 1000000 --fpr 1e-6 --k 3 --l 5 \
	--block-bits 512 --block-hashes 8)
bytes=$(echo "$s" | awk '$1 == "memory" { print $2 }')
acc=$(echo "$s" | awk '$1 == "accesses" { print $2 }')
fpr=$(echo "$s" | awk '$1 == "fp" { printf "%.1e", $3 }' | sed 's/e-0/e\\-/')
claim "apbbf k=3 l=5 B=512 b=8 memory" "$bytes" "takes $bytes bytes"
claim "apbbf k=3 l=5 B=512 b=8 per packet" "$bytes" \
	"($(awk -v b="$bytes" 'BEGIN { printf "%.2f", b / 1e6 }') per packet)"
claim "apbbf k=3 l=5 B=512 b=8 rate" "$fpr" "rate of $fpr,"
claim "apbbf k=3 l=5 B=512 b=8 lines" "$acc" "with $acc + 3 lines"
for kind in qqhtd apbbf; do
	fn=$("$BENCH" accuracy --filter "$kind" --window 100000 --fpr 1e-3 \
		--inserts 1000000 --probes 1000000 |
		sed -n 's/^false negatives inside the window: \([0-9]*\) of 1000000 checks$/\1/p')
	case $kind in
	qqhtd) claim "ddfbench accuracy $kind" "$fn" "qqhtd forgets $fn of them" ;;
	apbbf) [ "$fn" = 0 ] && ok || bad "apbbf forgets $fn, ddf.7 says none" ;;
	esac
done
echo "docs: ddf.7 text: 6 numbers against ddfbench size and accuracy"

echo "test_docs: $pass passed, $fail failed"
[ "$fail" = 0 ]
