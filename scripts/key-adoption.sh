#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The adoption test of a change to the key (make key-adoption): every
# capture the project has, replayed by two ddfctl builds, the base one
# (another revision's) and the candidate, under key packet with the whole
# packet in the key (max-bytes 65535) and a window longer than any
# capture, so that two records with one key anywhere in a file meet.
# Every record's decision (new, duplicate, unparsed, skipped, not-ip) is
# compared, under filter exact (none may differ) and then apbbf at 1e-6
# (a false positive of either may; the count is printed).
#
#   scripts/key-adoption.sh BASE_DDFCTL CANDIDATE_DDFCTL BUILD_DIR
#
# The captures: scripts/captures.bash's, made by BUILD_DIR's tools. Ethernet
# captures are replayed a second time with family netdev. Prints one line
# per capture and rule whose decisions differ, then the totals; exits 1
# when any decision of filter exact differs.
set -u
base=$1
cand=$2
b=$3
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the captures, as PATH (scripts/captures.bash)
. "$root/scripts/captures.bash"
captures_collect "$tmp" "$b"

# compare RULE WORDS...: every capture replayed by both under the rule;
# sets differ (decisions that differ) and prints the rule's totals
compare() {
	rule=$1
	shift
	caps=0 runs=0 unreadable=0 records=0 differ=0 fdiff=0
	nb=0 nc=0 # duplicates: base, candidate
	# shellcheck disable=SC2154 # files: set by captures_collect
	for f in "${files[@]}"; do
		caps=$((caps + 1))
		for fam in "" netdev; do
			fw=""
			[ -z "$fam" ] || fw="family $fam"
			# shellcheck disable=SC2086 # fw: none or two words
			if ! "$base" replay "$f" $fw "$@" -l "$tmp/a" >/dev/null 2>&1; then
				[ -n "$fam" ] || {
					unreadable=$((unreadable + 1))
					echo "unreadable: ${f##*/} (ddfctl replay refuses it)"
				}
				continue
			fi
			# shellcheck disable=SC2086
			"$cand" replay "$f" $fw "$@" -l "$tmp/b" >/dev/null 2>&1 ||
				{ echo "key-adoption: $f: the candidate fails where the base did not"; differ=$((differ + 1)); continue; }
			runs=$((runs + 1))
			n=$(wc -l <"$tmp/a")
			records=$((records + n))
			nb=$((nb + $(grep -c ' duplicate ' "$tmp/a")))
			nc=$((nc + $(grep -c ' duplicate ' "$tmp/b")))
			d=$(paste -d' ' "$tmp/a" "$tmp/b" |
				awk '$2 != $5 { n++ } END { print n + 0 }')
			if [ "$d" != 0 ]; then
				differ=$((differ + d))
				fdiff=$((fdiff + 1))
				echo "differ ($rule): ${f##*/}${fam:+ (family $fam)}: $d of $n records"
				paste -d' ' "$tmp/a" "$tmp/b" |
					awk '$2 != $5 { print "  record " $1 ": " $2 " -> " $5 " (" $3 " bytes)" }' |
					head -5
			fi
		done
	done
	echo "key-adoption ($rule): $caps captures ($unreadable unreadable), $runs replays, $records records; duplicates $nb (base) $nc (candidate); $differ decisions differ in $fdiff replays"
}

# The whole packet in the key; exact decides by the keys alone, so its
# decisions must not change; apbbf's may, by a false positive of either.
seed=00112233445566778899aabbccddeeff
compare "exact" max-bytes 65535 filter exact window 100000 seed "$seed"
exact=$differ
compare "apbbf 1e-6" max-bytes 65535 filter apbbf window 100000 fpr 1e-6 \
	seed "$seed"
[ "$exact" = 0 ]
