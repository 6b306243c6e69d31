#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's report: turns ddfbench's JSON (reproduce.json, speed.json,
accuracy.json, threads.jsonl in DIR) into speed.md, accuracy.md, the summary
bench-filters.md and, when gnuplot is there, bench-filters-speed.png,
bench-filters-accuracy.png and bench-filters-threads.png
(tests/reproduce/speed.gp, accuracy.gp, threads.gp).

    report.py DIR [MODE [REPRODUCE_S SPEED_S ACCURACY_S THREADS_S]]
"""
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print("report: %s: %s" % (path, e), file=sys.stderr)
        return None


def machine():
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d CPUs" % (model, os.cpu_count() or 0)


def commit():
    try:
        out = subprocess.run(["git", "-C", ROOT, "describe", "--always",
                              "--dirty"], capture_output=True, text=True)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def loadavg(d):
    try:
        with open(os.path.join(d, "loadavg")) as f:
            return f.read().strip() or "unknown"
    except OSError:
        return "unknown"


def mib(b):
    return "%d MiB" % (b >> 20) if b >= 1 << 20 else "%d KiB" % (b >> 10)


def num(x, fmt="%.3g"):
    return "-" if x is None else fmt % x


def shape(p):
    s = []
    for key, name in (("k", "k"), ("l", "l"), ("m", "m")):
        if p.get(key):
            s.append("%s=%d" % (name, p[key]))
    if p.get("block_bits"):
        s.append("B=%d b=%d" % (p["block_bits"], p["block_hashes"]))
    if p.get("fp_bits"):
        s.append("s=%d" % p["fp_bits"])
    return " ".join(s)


# ---- reproductions ----

def reproduce_summary(rep):
    lines = ["| table | source | verdict | ok | fail | paper | erratum | info | seconds |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    disputed = []
    for t in rep:
        lines.append("| %s | %s | %s | %d | %d | %d | %d | %d | %.1f |" % (
            t["table"], t["source"], t["verdict"], t["ok"], t["fail"],
            t.get("paper", 0), t["erratum"], t["info"], t["seconds"]))
        for r in t["rows"]:
            if r["verdict"] in ("paper", "erratum", "FAIL"):
                disputed.append((t["table"], r))
    out = lines + [""]
    if disputed:
        out += ["Rows where ddf and the paper differ beyond tolerance, "
                "each investigated (verdict *paper*: the paper's value is "
                "inconsistent, the reason beside it; *erratum*: a misprint; "
                "*FAIL*: not explained):", "",
                "| table | row | quantity | paper | ddf | verdict | why |",
                "| --- | --- | --- | ---: | ---: | --- | --- |"]
        for table, r in disputed:
            out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                table, r["row"], r["quantity"], num(r["paper"], "%.6g"),
                num(r["ddf"], "%.6g"), r["verdict"], r["tolerance"]))
        out.append("")
    return out


# ---- speed ----

def speed_tables(sp):
    sizes = [s["bytes"] for s in sp["sizes"]]
    out = ["Memory system, measured in the same run over buffers of each "
           "size (4 KiB pages%s):" % (", transparent huge pages"
                                      if sp.get("thp") else ""), "",
           "| size | one dependent read, ns | one random cache line (independent reads), ns |",
           "| ---: | ---: | ---: |"]
    for s in sp["sizes"]:
        out.append("| %s | %.1f | %.1f |" % (mib(s["bytes"]),
                                             s["ns_dependent_read"],
                                             s["ns_random_line"]))
    out += ["", "SipHash-1-3 of a 16/40/64-byte key, not included below: "
            "%.1f/%.1f/%.1f ns." % (sp["ns_siphash13_16"],
                                     sp["ns_siphash13_40"],
                                     sp["ns_siphash13_64"]), ""]
    head = "| filter | " + " | ".join(
        "%s: ns/op (dependent reads)" % mib(b) for b in sizes) + \
        " | shape at %s | window | analytic fpr |" % mib(sizes[-1] if len(sizes) < 3 else sizes[1])
    out += [head, "| --- | " + " | ".join("---:" for _ in sizes) +
            " | --- | ---: | ---: |"]
    names = []
    for f in sp["filters"]:
        if f["filter"] not in names:
            names.append(f["filter"])
    partial = []
    for n in names:
        rows = {f["budget"]: f for f in sp["filters"] if f["filter"] == n}
        cells = []
        for b in sizes:
            f = rows.get(b)
            if not f:
                cells.append("-")
                continue
            mark = "" if f["steady"] else " *"
            if not f["steady"]:
                partial.append("%s at %s" % (n, mib(b)))
            cells.append("%.1f (%.1f)%s" % (f["ns_per_op"],
                                            f["ns_per_op"] /
                                            f["ns_dependent_read"], mark))
        ref = rows.get(sizes[1] if len(sizes) > 1 else sizes[0])
        out.append("| %s | %s | %s | %s | %s |" % (
            n, " | ".join(cells), shape(ref["params"]) if ref else "-",
            ref["params"]["window"] or "-" if ref else "-",
            num(ref["fpr_analytic"]) if ref else "-"))
    out.append("")
    if partial:
        out += ["\\* warm-up stopped by its time limit before a full window "
                "(or one insertion per cell): %s." % ", ".join(partial), ""]
    return out, names


def speed_plot_data(d, sp, names):
    sizes = [s["bytes"] for s in sp["sizes"]]
    with open(os.path.join(d, "speed.dat"), "w") as f:
        for i, n in enumerate(names):
            vals = []
            for b in sizes:
                r = [x for x in sp["filters"] if x["filter"] == n and
                     x["budget"] == b]
                vals.append("%.2f" % r[0]["ns_per_op"] if r else "-")
            f.write("%d %s %s\n" % (i, n, " ".join(vals)))
    with open(os.path.join(d, "speed-limits.dat"), "w") as f:
        for s in sp["sizes"]:
            for x in (-0.6, len(names) - 0.4):
                f.write("%.1f %.2f %.2f\n" % (x, s["ns_dependent_read"],
                                               s["ns_random_line"]))
            f.write("\n\n")
    with open(os.path.join(d, "speed-vars.gp"), "w") as f:
        f.write("nfilt = %d\nnsize = %d\nslabels = '%s'\nmachine = '%s'\n" % (
            len(names), len(sizes),
            " ".join(mib(b).replace(" ", "") for b in sizes),
            machine().replace("'", "")))


# ---- accuracy ----

def accuracy_tables(acc):
    out = ["| filter | target fpr / budget | bits per window element | "
           "shape | analytic fpr | measured fpr | probes | window misses |",
           "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |"]
    for p in acc["points"]:
        out.append("| %s | %s | %.1f | %s | %s | %s | %d | %s |" % (
            p["filter"], num(p["target_fpr"], "%g") if p["target_fpr"]
            else "budget", p["bits_per_element"], shape(p["params"]),
            num(p["fpr_analytic"]), num(p["fpr_measured"]), p["probes"],
            num(p["fn_rate"])))
    return out + [""]


def accuracy_plot_data(d, acc):
    names = []
    for p in acc["points"]:
        if p["filter"] not in names:
            names.append(p["filter"])
    fpr, fn = [], []
    with open(os.path.join(d, "accuracy-fpr.dat"), "w") as f:
        for n in names:
            pts = sorted((p["bits_per_element"], p["fpr_measured"])
                         for p in acc["points"] if p["filter"] == n and
                         p["fpr_measured"] > 0)
            if not pts:
                continue
            fpr.append(n)
            for x, y in pts:
                f.write("%.3f %.6g\n" % (x, y))
            f.write("\n\n")
    with open(os.path.join(d, "accuracy-fn.dat"), "w") as f:
        for n in names:
            pts = sorted((p["bits_per_element"], p["fn_rate"])
                         for p in acc["points"] if p["filter"] == n and
                         p["fn_rate"] > 0)
            if not pts:
                continue
            fn.append(n)
            for x, y in pts:
                f.write("%.3f %.6g\n" % (x, y))
            f.write("\n\n")
    with open(os.path.join(d, "accuracy-vars.gp"), "w") as f:
        f.write("nfpr = %d\nfprnames = '%s'\nnfn = %d\nfnnames = '%s'\n"
                "window = %d\nmachine = '%s'\n" % (
                    len(fpr), " ".join(fpr), len(fn), " ".join(fn),
                    acc["window"], machine().replace("'", "")))
    return [n for n in names if n not in fpr], [n for n in names
                                                 if n not in fn]


# ---- threads ----

def load_lines(path):
    try:
        with open(path) as f:
            return [json.loads(x) for x in f if x.strip()]
    except (OSError, ValueError):
        return None


def budget(b):
    """The MiB a filter was sized in: it takes a little less."""
    return "%d MiB" % round(b / (1 << 20))


def rtt(r):
    """The cache line round trip between two CPUs measured with r."""
    v = r.get("line_round_trip_ns")
    return "%.0f ns" % v if v else "not measured"


def threads_section(d, th):
    md = ["| filter | window | bytes | shape | line round trip | threads | "
          "Mops/s | scaling over 1 |",
          "|---|---:|---:|---|---:|---:|---:|---:|"]
    for r in th:
        for i, t in enumerate(r["threads"]):
            md.append("| %s | %s | %s | %s | %s | %d | %.2f | %.2f |" % (
                r["filter"] if i == 0 else "",
                r["params"]["window"] if i == 0 else "",
                r["bytes"] if i == 0 else "",
                shape(r["params"]) if i == 0 else "",
                rtt(r) if i == 0 else "",
                t["threads"], t["mops"], t["scaling"]))
    md += ["", "Shared lines each test-and-insert writes besides the "
           "filter's own bits or slots, as the code stands:", ""]
    seen = set()
    for r in th:
        if r["filter"] in seen:
            continue
        seen.add(r["filter"])
        md.append("- %s: %s" % (r["filter"],
                                r["shared_lines_written_per_op"] or
                                "not stated"))
    md.append("")
    with open(os.path.join(d, "threads.dat"), "w") as f:
        for r in th:
            f.write("# %s %s\n" % (r["filter"], budget(r["bytes"])))
            for t in r["threads"]:
                f.write("%d %.4f %.4f\n" % (t["threads"], t["mops"],
                                             t["scaling"]))
            f.write("\n\n")
    with open(os.path.join(d, "threads-vars.gp"), "w") as f:
        f.write("machine = '%s'\nnames = '%s'\nnf = %d\n" % (
            machine().replace("'", ""), " ".join("%s,%s" % (r["filter"],
                                          budget(r["bytes"]).replace(" ", ""))
                                for r in th), len(th)))
    return md


def gnuplot(d, script):
    if not shutil.which("gnuplot"):
        print("report: no gnuplot: no %s plot" % script, file=sys.stderr)
        return False
    try:
        subprocess.run(["gnuplot", "-e", "dir='%s'" % d,
                        os.path.join(HERE, script)], check=True,
                       stderr=subprocess.PIPE)
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", b"") or b""
        print("report: gnuplot %s: %s %s" % (script, e,
                                              err.decode(errors="replace")),
              file=sys.stderr)
        return False
    return True


def targets_section(sp, th):
    """The hot path's targets, met or not, from this run's numbers."""
    md = ["## Targets", "", "| target | measured | met |", "| --- | --- | --- |"]

    def row(target, measured, met):
        md.append("| %s | %s | %s |" % (target, measured,
                                        "yes" if met else "**no**"))

    def cell(name, size):
        return next((f for f in (sp or {}).get("filters", [])
                     if f["filter"] == name and f["budget"] == size), None)

    big = cell("apbbf", 256 << 20)
    if big:
        q = big["ns_per_op"] / big["ns_dependent_read"]
        row("apbbf at 256 MiB (sized at 1e-3) <= 1.3x one dependent read",
            "%.2fx (%.1f ns against %.1f ns)" % (
                q, big["ns_per_op"], big["ns_dependent_read"]), q <= 1.3)
    a, q1 = cell("apbbf", 1 << 20), cell("qqhtd", 1 << 20)
    if a and q1 and q1["ns_per_op"] > 0:
        q = a["ns_per_op"] / q1["ns_per_op"]
        row("apbbf in cache (1 MiB) <= 6x qqhtd's ns per op",
            "%.1fx (%.1f ns against %.1f ns)" % (
                q, a["ns_per_op"], q1["ns_per_op"]), q <= 6)
    n = os.cpu_count() or 1
    for r in th or []:
        t = next((t for t in r["threads"] if t["threads"] == n), None)
        if t:
            row("%s in %s, %d threads: scaling >= 0.9 x %d" % (
                r["filter"], budget(r["bytes"]), n, n),
                "%.2f (line round trip %s)" % (t["scaling"], rtt(r)),
                t["scaling"] >= 0.9 * n)
    md.append("")
    return md


def main():
    d = sys.argv[1]
    mode = sys.argv[2] if len(sys.argv) > 2 else "full"
    secs = [int(x) for x in sys.argv[3:7]] if len(sys.argv) > 6 else None
    rep = load(os.path.join(d, "reproduce.json"))
    sp = load(os.path.join(d, "speed.json"))
    acc = load(os.path.join(d, "accuracy.json"))
    rc = 0
    md = ["# Filter benchmark: the papers' tables, speed and accuracy", "",
          "Generated by `make bench` (tests/reproduce/bench.sh, %s mode) on "
          "%s, %s, at commit %s, with the shared machine's other load "
          "present (the runs are niced; load average at the start: %s)." % (
              mode, datetime.datetime.now(datetime.timezone.utc)
              .strftime("%Y-%m-%d %H:%M UTC"), machine(), commit(),
              loadavg(d))]
    if secs:
        md.append("Run time: reproductions %d s, speed %d s, accuracy %d s, "
                  "threads %d s (%d s in all)." % (
                      secs[0], secs[1], secs[2], secs[3], sum(secs)))
    md += ["", "Refresh the committed copy with `cp build/bench/bench-filters.md "
           "build/bench/bench-filters-*.png build/bench/reproduce.md docs/` "
           "(docs/reproduce.md holds every table row by row).", ""]
    md += ["## The papers' tables (`ddfbench reproduce all`)", "",
           "Each published value beside ddf's, the difference, the "
           "tolerance and a verdict; the full tables are in "
           "[reproduce.md](reproduce.md), the investigations of every "
           "disagreement in tests/reproduce/FINDINGS.md.", ""]
    if rep:
        md += reproduce_summary(rep)
        if any(t["verdict"] != "PASS" for t in rep):
            rc = 1
    else:
        md += ["(no reproduce.json)", ""]
        rc = 1
    md += ["## Speed (`ddfbench speed --all`)", "",
           "![ns per operation of every filter](bench-filters-speed.png)", "",
           "Every filter kind sized as ddfctl sizes it for the memory "
           "budget at a false-positive rate of 1e-3 (windowed kinds: the "
           "largest window that fits; CSHF stops at its 65,536-element "
           "window), warmed up with distinct keys to its window, then ns per "
           "test-and-insert of new keys, the median of 3 rounds; in "
           "brackets, that time in dependent memory reads of the same "
           "size. Numbers move by tens of percent with the machine's "
           "other load: compare within a run.", ""]
    if sp:
        t, names = speed_tables(sp)
        md += t
        with open(os.path.join(d, "speed.md"), "w") as f:
            f.write("# ddfbench speed --all\n\n" + "\n".join(t) + "\n")
        speed_plot_data(d, sp, names)
        if not gnuplot(d, "speed.gp"):
            rc = 1
    else:
        md += ["(no speed.json)", ""]
        rc = 1
    md += ["## Error rate against memory (`ddfbench accuracy --all`)", "",
           "![error rates of every filter against memory]"
           "(bench-filters-accuracy.png)", ""]
    if acc:
        md += ["Every kind sized by ddf for a window of %d keys at target "
               "rates 1e-1 .. 1e-5 (SBF and the bsbf family, which size by "
               "a budget: 2 .. 32 bits per window element; the queue: 4 QHT "
               "subfilters at 1/2 .. 8 slots per key), then %d distinct "
               "keys: after each insertion past the first window the key "
               "inserted a window earlier is looked up (a miss is a false "
               "negative of the window) and never-inserted keys are probed "
               "(false positives). Windowed kinds (apbf, apbbf, a2, bdbf, "
               "exact, shf, cshf) never miss inside the window; exact never "
               "errs, so it has no point on the log scales." % (
                   acc["window"], 8 * acc["window"]), ""]
        no_fpr, no_fn = accuracy_plot_data(d, acc)
        t = accuracy_tables(acc)
        md += t
        with open(os.path.join(d, "accuracy.md"), "w") as f:
            f.write("# ddfbench accuracy --all\n\n" + "\n".join(t) + "\n")
        if not gnuplot(d, "accuracy.gp"):
            rc = 1
    else:
        md += ["(no accuracy.json)", ""]
        rc = 1
    th = load_lines(os.path.join(d, "threads.jsonl"))
    md += ["## One filter, several threads (`ddfbench speed --threads N`)",
           "", "![Mops/s of one shared filter against threads]"
           "(bench-filters-threads.png)", "",
           "The rule filters sized at 1e-3 (as ddfctl sizes them) in "
           "16 MiB (the last-level cache can hold them) and in 256 MiB "
           "(memory), warmed up, then 1, 2, 4 .. N threads (up to twice "
           "the CPUs) test-and-insert distinct keys into the one filter "
           "for a second each; Mops/s of all threads together and the "
           "scaling over one thread, in one run. Past the CPUs, threads "
           "share cores: no gain is expected there. A filter the caches "
           "hold loses to sharing: every insert writes a line the other "
           "CPU has just read or written, and that line then moves between "
           "the CPUs' caches; a filter in memory misses anyway, and there "
           "the threads add up. Beside each filter, the round trip of one "
           "cache line between two of the CPUs, measured just before its "
           "threads ran: an insert pays about half of it for a line the "
           "other CPU wrote last, so a filter whose test-and-insert costs "
           "less than that cannot scale while the caches hold it. On a "
           "virtual machine it moves with where the host runs the virtual "
           "CPUs, from run to run.", ""]
    if th:
        md += threads_section(d, th)
        if not gnuplot(d, "threads.gp"):
            rc = 1
    else:
        md += ["(no threads.jsonl)", ""]
        rc = 1
    md += targets_section(sp, th)
    with open(os.path.join(d, "bench-filters.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    return rc


if __name__ == "__main__":
    sys.exit(main())
