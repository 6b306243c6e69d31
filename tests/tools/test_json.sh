#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every -j output of ddfctl is JSON whatever the names in it, read by
# Python's json (strict: no raw control character, no NaN) from bytes that
# must be UTF-8, and each name in it is the one given, a byte that is not
# part of a UTF-8 character read as the character of its number (\u00XX):
#
# 1. ddfctl_json_tests: show, stats and xdp show of rules and devices whose
#    names hold every byte the kernel takes in them; the bench's reading
#    of a rule's filter memory from show -j (tests/bench/filter-bytes.sh);
# 2. replay, advise and size, the captures' file names holding '"', '\',
#    control characters, a newline and bytes that are not UTF-8.
#
# Usage: tests/tools/test_json.sh [BUILD_DIR]
set -e

B=${1:-build}
CTL=$B/ddfctl
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# json_check KIND FILE [NAME...]: FILE parses, and its names are those
# given (KIND says where they are; the NAMEs are raw bytes)
json_check() {
	python3 - "$@" <<'PY'
import codecs, json, os, sys

def as_ddfctl(b):
    """bytes as ddfctl's JSON gives them: a byte that is not UTF-8 as U+00XX"""
    return b.decode("utf-8", "bytechar")

codecs.register_error(
    "bytechar", lambda e: ("".join(map(chr, e.object[e.start:e.end])), e.end))

def no_constant(c):
    raise ValueError("not JSON: %s" % c)

kind, path = sys.argv[1], sys.argv[2]
args = [os.fsencode(a) for a in sys.argv[3:]]
data = json.loads(open(path, "rb").read().decode("utf-8"),
                  parse_constant=no_constant)
errors = []

def same(what, got, raw):
    if got != as_ddfctl(raw):
        errors.append("%s: %r, given %r" % (what, got, raw))

if kind in ("dump", "one", "xdp"):
    fed = open(os.path.join(os.path.dirname(path), "names"), "rb").read()
    rules = [r.split(b"\0") for r in fed.split(b"\0\0")[:-1]]
if kind == "dump":
    if len(data) != len(rules):
        errors.append("%d rules, %d given" % (len(data), len(rules)))
    for r, names in zip(data, rules):
        same("rule", r["name"], names[0])
        devs = r.get("devs", [])
        if len(devs) != len(names) - 1:
            errors.append("%r: %d devices" % (r["name"], len(devs)))
        for d, raw in zip(devs, names[1:]):
            same("dev", d["name"], raw)
        if "dev" in r:
            same("rule's dev", r["dev"], names[1])
elif kind == "one":
    same("rule", data["name"], rules[0][0])
elif kind == "xdp":
    want = [(d, names[0]) for names in rules for d in names[1:]]
    want.append((rules[0][1], None))
    if len(data) != len(want):
        errors.append("%d devices, %d given" % (len(data), len(want)))
    for i, (x, (dev, rule)) in enumerate(zip(data, want)):
        same("dev", x["dev"], dev)
        # alone (exclusive), or in a dispatcher beside the programs listed
        if x["exclusive"] != (x["priority"] is None) or \
                (x["exclusive"] and x["beside"]):
            errors.append("%r: exclusive %r, priority %r, beside %r" %
                          (dev, x["exclusive"], x["priority"], x["beside"]))
        if not x["exclusive"] and i < len(want) - 1:
            if x["priority"] != i or len(x["beside"]) != i % 10 or \
                    [b["name"] for b in x["beside"]] != \
                    ["p%d" % o for o in range(i % 10)]:
                errors.append("%r: priority %r, beside %r" %
                              (dev, x["priority"], x["beside"]))
        if rule is None:
            if x["rule"] is not None:
                errors.append("a gone rule is %r" % x["rule"])
        else:
            same("rule", x["rule"], rule)
elif kind == "none":
    if data != []:
        errors.append("not []: %r" % data)
elif kind == "replay":
    files = [f["file"] for f in data["files"]]
    if len(files) != len(args):
        errors.append("%d files" % len(files))
    for got, raw in zip(files, args):
        same("file", got, raw)
    if len(args) == 1:
        same("file", data["file"], args[0])
elif kind == "advise":
    if len(data["files"]) != len(args):
        errors.append("%d files" % len(data["files"]))
    for got, raw in zip(data["files"], args):
        same("file", got, raw)
print("\n".join(errors), end="")
sys.exit(1 if errors else 0)
PY
}

# 1.
"$B/ddfctl_json_tests" "$tmp" && ok || bad "ddfctl_json_tests"
for f in show stats; do
	out=$(json_check dump "$tmp/$f.json" 2>&1) && ok || bad "$f -j: $out"
done
out=$(json_check one "$tmp/one.json" 2>&1) && ok || bad "stats -j of one rule: $out"
out=$(json_check xdp "$tmp/xdp.json" 2>&1) && ok || bad "xdp show -j: $out"
# the benchmark's memory of a rule: its filter's, not a device's traffic
want=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))[0]["filter"]["bytes"])' "$tmp/show.json")
got=$(tests/bench/filter-bytes.sh <"$tmp/show.json")
[ "$got" = "$want" ] && ok ||
	bad "filter-bytes.sh of a rule with devices: '$got', not $want"
out=$(json_check none "$tmp/xdp-none.json" 2>&1) && ok ||
	bad "xdp show -j of no device: $out"

# 2.
odd=$tmp/$'q"\\\x01\x1f\x7f\xff\xc3\xa9\xe2\x82\nx'
"$B/ddf_pcapgen" mixed "$odd.pcap" >/dev/null
"$CTL" -j replay "$odd.pcap" filter exact window 8 >"$tmp/r.json" &&
	out=$(json_check replay "$tmp/r.json" "$odd.pcap" 2>&1) && ok ||
	bad "replay -j of one capture: $out"
cp "$odd.pcap" "$tmp/plain.pcap"
"$CTL" -j replay "$tmp/plain.pcap" "$odd.pcap" filter exact window 8 \
	>"$tmp/r2.json" &&
	out=$(json_check replay "$tmp/r2.json" "$tmp/plain.pcap" "$odd.pcap" 2>&1) &&
	ok || bad "replay -j of two captures: $out"
"$B/ddf_advisegen" 200 "$odd.1.pcap" "$odd.2.pcap" >/dev/null
"$CTL" -j advise "$odd.1.pcap" "$odd.2.pcap" >"$tmp/a.json" &&
	out=$(json_check advise "$tmp/a.json" "$odd.1.pcap" "$odd.2.pcap" 2>&1) &&
	ok || bad "advise -j: $out"
for words in "window 1000" "window 20k/100ms fpr 1e-3 tune speed" \
	"filter sbf memory 1M"; do
	# shellcheck disable=SC2086
	"$CTL" -j size $words >"$tmp/s.json" &&
		out=$(json_check size "$tmp/s.json" 2>&1) && ok ||
		bad "size -j $words: $out"
done

echo "test_json: $pass passed, $fail failed"
[ "$fail" = 0 ]
