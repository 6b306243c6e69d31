#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ddfctl -o prometheus without the kernel, and the units that write its
# output for node_exporter (systemd/):
#
# 1. ddfctl_prom_tests: the format's details over crafted GET replies, and
#    the same replies printed both ways, as -o prometheus and as -j stats;
# 2. promtool (Debian package prometheus) checks the exposition: parsed,
#    and clean of its lint (counters end in _total, HELP everywhere, ...);
# 3. each sample equals the number -j stats prints of the same message,
#    every family's HELP and TYPE come once before its samples, no two
#    samples of a family have the same labels whatever the names (ports
#    of one name or of every byte a device's may hold; every rule name of
#    one and two bytes the kernel takes), and nothing is left over either
#    way;
# 4. -o chooses the output, and refuses commands that have no metrics;
# 5. systemd-analyze verify (systemd) passes the units, and the service's
#    command writes the file whole or leaves the last one.
#
# Usage: tests/tools/test_prom.sh [BUILD_DIR]
set -e

B=${1:-build}
CTL=$B/ddfctl
PY=${DDF_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
die() { echo "FAIL: $*"; exit 1; }

command -v promtool >/dev/null ||
	die "promtool is missing: it is in the Debian package prometheus (make setup installs it)"
command -v systemd-analyze >/dev/null ||
	die "systemd-analyze is missing: it is in the Debian package systemd (make setup installs it)"

# 1.
"$B/ddfctl_prom_tests" "$tmp" && ok || bad "ddfctl_prom_tests"

# 2.
if promtool check metrics <"$tmp/metrics.prom" >"$tmp/promtool" 2>&1; then
	ok
else
	bad "promtool check metrics: $(cat "$tmp/promtool")"
fi
[ ! -s "$tmp/promtool" ] && ok || bad "promtool's lint: $(cat "$tmp/promtool")"

# 3.
if "$PY" - "$tmp/metrics.prom" "$tmp/stats.json" >"$tmp/cmp" 2>&1 <<'PY'; then
import json, re, sys

text = open(sys.argv[1], encoding="utf-8", newline="").read()
# A byte of a name that is not UTF-8 is \u00XX in JSON (a character of
# that number, which ddfctl writes as itself), U+FFFD in a label value.
raw = open(sys.argv[2], encoding="utf-8").read()
rules = json.loads(re.sub(r'(?<!\\)((?:\\\\)*)\\u00[89a-fA-F][0-9a-fA-F]',
                          r'\1\\ufffd', raw))
errors = []
helps, types, done, samples = set(), {}, set(), {}
sample_re = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
label_re = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)"(?:,|$)')
esc = {"n": "\n", "\\": "\\", '"': '"'}
last = None
# lines end at "\n" only: a label value holds any other control character
if not text.endswith("\n"):
    errors.append("the text does not end in a newline")
for line in text.split("\n")[:-1]:
    if line.startswith("# HELP ") or line.startswith("# TYPE "):
        name = line.split(" ")[2]
        seen = helps if line[2] == "H" else types
        if name in seen or name in done:
            errors.append("%s twice, or after its samples" % line[:6])
        if line[2] == "H":
            helps.add(name)
        else:
            types[name] = line.split(" ")[3]
        continue
    m = sample_re.match(line)
    if not m:
        errors.append("not a sample: %r" % line)
        continue
    name, body, value = m.groups()
    if name not in types or name not in helps:
        errors.append("%s: a sample before its HELP and TYPE" % name)
    if last != name:
        if name in done:
            errors.append("%s: its samples are not together" % name)
        if last:
            done.add(last)
        last = name
    labels, pos = {}, 0
    for lm in label_re.finditer(body or ""):
        if lm.start() != pos:
            break
        labels[lm.group(1)] = re.sub(r'\\(.)', lambda e: esc[e.group(1)],
                                     lm.group(2))
        pos = lm.end()
    if pos != len(body or ""):
        errors.append("labels not parsed: %r" % line)
    key = (name, tuple(sorted(labels.items())))
    if key in samples:
        errors.append("two samples %r" % (key,))
    samples[key] = value

want = {}
def expect(name, labels, v, how="int"):
    want[(name, tuple(sorted(labels.items())))] = (v, how)

counters = ["packets", "bytes", "duplicates", "dropped", "marked", "unparsed"]
for r in rules:
    rl = {"rule": r["name"]}
    for c in counters:
        expect("ddf_%s_total" % c, rl, r["stats"][c])
    for i, d in enumerate(r.get("devs", [])):
        for c in counters:
            expect("ddf_dev_%s_total" % c, dict(rl, dev=d["name"],
                                                port=str(i + 1)),
                   d["stats"][c])
    f = r["filter"]
    expect("ddf_filter_fill_ratio", rl, r["stats"]["fill_ppm"], "ppm")
    expect("ddf_filter_bytes", rl, f["bytes"])
    if "fpr" in f:
        expect("ddf_filter_fpr", rl, f["fpr"], "6g")
    if f.get("window"):
        expect("ddf_filter_window", rl, f["window"])
    if f.get("window_ns"):
        expect("ddf_filter_window_seconds", rl, f["window_ns"], "ns")
    expect("ddf_rule_info", dict(rl, family=r["family_name"],
                                 hook=r["hook_name"], kind=f["kind_name"],
                                 action=r["action"]["type_name"]), 1)

for key, (v, how) in want.items():
    if key not in samples:
        errors.append("missing: %r" % (key,))
        continue
    s = samples[key]
    if how == "int":
        good = s == str(v)
    elif how == "ppm":
        good = round(float(s) * 1e6) == v
    elif how == "ns":
        good = round(float(s) * 1e9) == v
    else:  # JSON's %.6g
        good = abs(float(s) - v) <= 5e-6 * abs(v)
    if not good:
        errors.append("%r: %s, -j stats: %s" % (key, s, v))
for key in samples:
    if key not in want:
        errors.append("not in -j stats: %r" % (key,))
# the point of separate device families: a sum counts each frame once
total = sum(int(samples[k]) for k in samples if k[0] == "ddf_packets_total")
if total != sum(r["stats"]["packets"] for r in rules):
    errors.append("sum(ddf_packets_total) is %d" % total)
print("\n".join(errors) or "%d samples equal -j stats" % len(samples))
sys.exit(1 if errors else 0)
PY
	ok
else
	bad "-o prometheus against -j stats:"
fi
cat "$tmp/cmp"

# 4.
if "$CTL" -o prometheus size window 1000 >"$tmp/out" 2>"$tmp/err"; then
	bad "-o prometheus size succeeded"
else
	grep -qx "ddfctl: -o prometheus: 'size' has no metrics; show and stats print them" \
		"$tmp/err" && [ ! -s "$tmp/out" ] && ok ||
		bad "-o prometheus size: $(cat "$tmp/err")"
fi
for cmd in "rule flush" "save" "replay x.pcap" "xdp show"; do
	# shellcheck disable=SC2086
	"$CTL" --output=prometheus $cmd 2>/dev/null && bad "-o prometheus $cmd" || ok
done
if "$CTL" -o yaml stats 2>"$tmp/err"; then
	bad "-o yaml succeeded"
else
	grep -qx "ddfctl: -o: 'yaml' is not a format: text, json or prometheus" \
		"$tmp/err" && ok || bad "-o yaml: $(cat "$tmp/err")"
fi
"$CTL" -o 2>"$tmp/err" && bad "-o alone succeeded" ||
	{ grep -q "needs a FORMAT" "$tmp/err" && ok || bad "-o alone: $(cat "$tmp/err")"; }
[ "$("$CTL" -o json size window 1000)" = "$("$CTL" -j size window 1000)" ] &&
	ok || bad "-o json is not -j"
[ "$("$CTL" -j -o text size window 1000)" = "$("$CTL" size window 1000)" ] &&
	ok || bad "-o text after -j is not text"
[ "$("$CTL" -o prometheus -j size window 1000)" = "$("$CTL" -j size window 1000)" ] &&
	ok || bad "-j after -o prometheus is not JSON"
[ "$("$CTL" -o prometheus -n stats web)" = "$("$CTL" -n stats web)" ] &&
	ok || bad "-o prometheus -n stats is not the request"
"$CTL" --help | grep -q '^  -o  text (default), json, or prometheus' && ok ||
	bad "--help has no -o"

# 5.
if systemd-analyze verify --man=no systemd/ddf-metrics.service \
	systemd/ddf-metrics.timer >"$tmp/verify" 2>&1 && [ ! -s "$tmp/verify" ]; then
	ok
else
	bad "systemd-analyze verify: $(cat "$tmp/verify")"
fi
# The service's command, its directory, ddfctl and the module's directory
# replaced by stand-ins: a ddfctl that prints one sample, or fails
# after printing half of one.
cmd=$(sed -n "s/^ExecStart=\/bin\/sh -c '\(.*\)'$/\1/p" systemd/ddf-metrics.service |
	sed -e 's/\$\$/$/g' -e "s|/var/lib/prometheus/node-exporter|$tmp/tf|g" \
		-e "s|/usr/sbin/ddfctl|$tmp/ddfctl|g" -e "s|/sys/module/nf_ddf|$tmp/mod|g")
[ -n "$cmd" ] && ok || bad "no ExecStart in ddf-metrics.service"
mkdir "$tmp/tf" "$tmp/mod"
printf '#!/bin/sh\n[ "$*" = "-o prometheus stats" ] || exit 2\necho "ddf_x 1"\n' >"$tmp/ddfctl"
chmod +x "$tmp/ddfctl"
sh -c "$cmd" && [ "$(cat "$tmp/tf/ddf.prom")" = "ddf_x 1" ] &&
	[ "$(stat -c %a "$tmp/tf/ddf.prom")" = 644 ] &&
	[ "$(ls -A "$tmp/tf")" = ddf.prom ] && ok ||
	bad "the service did not write ddf.prom: $(ls -lA "$tmp/tf")"
printf '#!/bin/sh\nprintf "ddf_x"\nexit 1\n' >"$tmp/ddfctl"
sh -c "$cmd" 2>/dev/null && bad "the service succeeded with ddfctl failing" ||
	{ [ "$(cat "$tmp/tf/ddf.prom")" = "ddf_x 1" ] && [ "$(ls -A "$tmp/tf")" = ddf.prom ] &&
		ok || bad "a failing ddfctl changed ddf.prom: $(ls -lA "$tmp/tf")"; }
rmdir "$tmp/mod"
sh -c "$cmd" && [ -f "$tmp/tf/ddf.prom" ] && [ ! -s "$tmp/tf/ddf.prom" ] &&
	[ "$(ls -A "$tmp/tf")" = ddf.prom ] && ok ||
	bad "without the module ddf.prom is not empty: $(ls -lA "$tmp/tf")"

echo "test_prom: $pass passed, $fail failed"
[ "$fail" = 0 ]
