#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The kernel-path benchmark's report: from the VM's records (run.sh bench,
raw-MODE.jsonl) and the userspace instruction counts (callgrind.sh,
callgrind.jsonl) to bench-kernel.json, bench-kernel.md and, when gnuplot is
there, bench-kernel.png; a smoke run to bench-smoke.*, so that make check
leaves a full run's report alone.

    report.py DIR [MODE]

Per configuration and window: the median packet rate over the rounds, its
cost per packet (1/rate), the cost it adds to no rule (the baseline of the
same group, measured interleaved with it), and that added cost against the
nft counter's. Memory per tracked packet: ddf's filter bytes (the kernel's
report) over the window; the nft set's slab and vmalloc growth while it
filled, over the elements it held (the window by construction of the
timeout)."""
import json
import os
import shutil
import statistics
import subprocess
import sys

NAMES = {
    "base": "no rule",
    "nft": "nft counter",
    "apbbf-pkt": "ddf apbbf, key packet",
    "apbbf-mem": "ddf apbbf, key packet, tune memory",
    "apbbf-5t": "ddf apbbf, 5-tuple + payload 0:16",
    "qqhtd-5t": "ddf qqhtd, 5-tuple + payload 0:16",
    "exact-5t": "ddf exact, 5-tuple + payload 0:16",
    "nftset-5t": "nft set dedup, same fields",
    "ipt": "iptables-legacy, an empty rule (mangle)",
    "ipt-pkt": "iptables-legacy -m ddf, apbbf, key packet (mangle)",
    "nd-pkt": "ddf apbbf, key packet, netdev ingress",
    "nd-novlan": "ddf apbbf, key packet, ignore vlan, netdev ingress",
    "nd-vxlan": "ddf apbbf, decap vxlan, netdev ingress (UDP to 4789)",
    "veth-base": "veth: no rule",
    "veth-nd": "veth: ddf apbbf, key packet, netdev ingress",
    "veth-xdp0": "veth: ddf's XDP program, its rule deleted",
    "veth-xdp": "veth: ddf apbbf, key packet, native XDP",
    "veth-xdpd0": "veth: ddf's XDP program in libxdp's dispatcher, its rule deleted",
    "veth-xdpd": "veth: ddf apbbf, key packet, native XDP in libxdp's dispatcher",
    "virtio-base": "virtio-net: no rule",
    "virtio-nd": "virtio-net: ddf apbbf, key packet, netdev ingress",
    "virtio-xdp0": "virtio-net: ddf's XDP program, its rule deleted",
    "virtio-xdp": "virtio-net: ddf apbbf, key packet, native XDP",
}
ORDER = list(NAMES)
# the plot's x labels: short enough to stay inside the picture
SHORT = {
    "nft": "nft counter",
    "apbbf-pkt": "apbbf, packet",
    "apbbf-mem": "apbbf, tune memory",
    "apbbf-5t": "apbbf, 5-tuple",
    "qqhtd-5t": "qqhtd, 5-tuple",
    "exact-5t": "exact, 5-tuple",
    "nftset-5t": "nft set dedup",
    "ipt": "iptables, empty",
    "ipt-pkt": "iptables -m ddf",
    "nd-pkt": "netdev, packet",
    "nd-novlan": "netdev, no vlan",
    "nd-vxlan": "netdev, vxlan",
    "veth-nd": "veth, netdev",
    "veth-xdp0": "veth, XDP, no rule",
    "veth-xdp": "veth, XDP",
    "veth-xdpd0": "veth, dispatcher, no rule",
    "veth-xdpd": "veth, dispatcher",
    "virtio-nd": "virtio, netdev",
    "virtio-xdp0": "virtio, XDP, no rule",
    "virtio-xdp": "virtio, XDP",
}


def load(path):
    recs = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    try:
                        recs.append(json.loads(line))
                    except ValueError:
                        pass
    return recs


def fmt_w(w):
    for e in range(9, 2, -1):
        if w == 10 ** e:
            return "10^%d" % e
    return str(w)


def main():
    d = sys.argv[1]
    mode = sys.argv[2] if len(sys.argv) > 2 else "full"
    recs = load(os.path.join(d, "raw-%s.jsonl" % mode))
    cg = load(os.path.join(d, "callgrind.jsonl"))
    info = next((r for r in recs if r["type"] == "info"), {})
    virtio = next((r for r in recs if r["type"] == "virtio"), {})
    complete = any(r["type"] == "end" for r in recs)
    runs = {}
    mem = {}
    allocs = []
    for r in recs:
        k = (r.get("config"), r.get("window"), r.get("size"))
        if r["type"] == "run":
            runs.setdefault(k, []).append(r["pps"])
        elif r["type"] == "mem":
            mem[k] = r
        elif r["type"] == "alloc":
            allocs.append(r)

    rows = []
    for (cfg, w, size), pps in runs.items():
        # the veth rows' baseline is their own path's
        base = runs.get(("veth-base" if cfg.startswith("veth-") else
                         "virtio-base" if cfg.startswith("virtio-") else
                         "base", w, size))
        nft = runs.get(("nft", w, size))
        med = statistics.median(pps)
        row = {
            "config": cfg, "name": NAMES.get(cfg, cfg), "window": w,
            "size": size, "rounds": len(pps), "pps": pps, "pps_median": med,
            "ns_per_packet": 1e9 / med,
        }
        if base:
            b = statistics.median(base)
            row["ratio_to_base"] = med / b
            row["added_ns"] = 1e9 / med - 1e9 / b
        if nft:
            n = statistics.median(nft)
            row["ratio_to_nft"] = med / n
            if base:
                nadd = 1e9 / n - 1e9 / statistics.median(base)
                if nadd > 0:
                    row["added_vs_nft"] = row["added_ns"] / nadd
        m = mem.get((cfg, w, size))
        if m and m.get("bytes") is not None and m.get("tracked"):
            row["bytes"] = m["bytes"]
            row["tracked"] = m["tracked"]
            row["bytes_per_packet"] = m["bytes"] / m["tracked"]
            for f in ("filled", "timeout_ms", "slab_delta", "vmalloc_delta",
                      "used_delta"):
                if f in m:
                    row[f] = m[f]
        rows.append(row)
    rows.sort(key=lambda r: (r["size"], r["window"],
                             ORDER.index(r["config"]) if r["config"] in ORDER
                             else 99))

    def get(cfg, w, size=64):
        return next((r for r in rows if r["config"] == cfg and
                     r["window"] == w and r["size"] == size), None)

    # The targets set for the kernel path, as measured.
    targets = []
    w6 = 1000000
    a = [r for r in rows if r["config"] == "apbbf-pkt" and r["size"] == 64
         and "added_vs_nft" in r]
    if a:
        worst = max(r["added_vs_nft"] for r in a)
        targets.append({
            "target": "ddf apbbf rule <= 1.3x the nft counter rule's "
                      "per-packet cost (64-byte packets, added over no rule)",
            "measured": "%.2fx (worst window; %s); the whole packet's "
                        "path through the stack: %s" % (
                worst, ", ".join(
                    "%s: %.2fx" % (fmt_w(r["window"]), r["added_vs_nft"])
                    for r in a),
                ", ".join("%s: %.2fx" % (fmt_w(r["window"]),
                                          1 / r["ratio_to_nft"])
                          for r in a if r.get("ratio_to_nft"))),
            "met": worst <= 1.3})
    s = get("nftset-5t", w6)
    if s and "added_ns" in s:
        parts, ok = [], True
        for cfg in ("apbbf-5t", "qqhtd-5t", "exact-5t", "apbbf-pkt"):
            r = get(cfg, w6)
            if r and "added_ns" in r and s["added_ns"] > 0:
                q = r["added_ns"] / s["added_ns"]
                parts.append("%s %.2fx" % (cfg, q))
                if cfg == "apbbf-5t":
                    ok = q <= 0.5
        targets.append({
            "target": "ddf <= 0.5x the nft dynamic-set dedup's per-packet "
                      "cost at a 10^6-packet window",
            "measured": ", ".join(parts) + " (added cost over no rule)",
            "met": ok})
    # The hot path's targets of issue 14: guest instructions added per
    # 64-byte packet at a 10^6 window (ns under -icount), and the ratio
    # to the nft set dedup.
    s = get("nftset-5t", w6)
    for cfg, what, limit in (("apbbf-pkt", "apbbf, key packet", 1500),
                             ("apbbf-mem", "apbbf, key packet, tune memory",
                              1800),
                             ("qqhtd-5t", "qqhtd, 5-tuple + payload 0:16",
                              1000)):
        r = get(cfg, w6)
        if r and "added_ns" in r:
            targets.append({
                "target": "ddf %s adds <= %d instructions per 64-byte "
                          "packet at a 10^6 window" % (what, limit),
                "measured": "%.0f" % r["added_ns"],
                "met": r["added_ns"] <= limit})
    r = get("apbbf-pkt", w6)
    if r and "added_ns" in r and s and s.get("added_ns", 0) > 0:
        q = r["added_ns"] / s["added_ns"]
        targets.append({
            "target": "ddf apbbf, key packet <= 0.35x the nft set dedup's "
                      "added instructions at a 10^6 window",
            "measured": "%.2fx (%.0f against %.0f)" % (
                q, r["added_ns"], s["added_ns"]),
            "met": q <= 0.35})
    # the cost of the payload's bytes: apbbf, key packet, at a 10^6
    # window, the larger packets' added cost against the 64-byte one's
    r64 = get("apbbf-pkt", w6)
    if r64 and "added_ns" in r64:
        targets.append({
            "target": "ddf apbbf, key packet adds <= 1220 instructions per "
                      "64-byte packet at a 10^6 window",
            "measured": "%.0f" % r64["added_ns"],
            "met": r64["added_ns"] <= 1220})
        for size, limit in ((512, 1.3), (1500, 2.0)):
            r = get("apbbf-pkt", w6, size)
            if r and "added_ns" in r and r64["added_ns"] > 0:
                q = r["added_ns"] / r64["added_ns"]
                targets.append({
                    "target": "ddf apbbf, key packet: a %d-byte packet adds "
                              "<= %.1fx the 64-byte one's at a 10^6 window"
                              % (size, limit),
                    "measured": "%.2fx (%.0f against %.0f)" % (
                        q, r["added_ns"], r64["added_ns"]),
                    "met": q <= limit})
    # memory per packet: the least-memory shape (tune memory) has the
    # target; the default tune speed trades up to twice that for speed
    r = get("apbbf-mem", w6)
    if r and "bytes_per_packet" in r:
        s = get("nftset-5t", w6)
        sp = get("apbbf-pkt", w6)
        targets.append({
            "target": "<= 6.1 bytes per tracked packet at fp <= 1e-6 "
                      "(apbbf, tune memory)",
            "measured": "%.3f bytes/packet (%d bytes for %s)%s%s" % (
                r["bytes_per_packet"], r["bytes"], fmt_w(r["tracked"]),
                "; tune speed %.3f" % sp["bytes_per_packet"]
                if sp and "bytes_per_packet" in sp else "",
                "; nft set %.1f bytes/packet" % s["bytes_per_packet"]
                if s and "bytes_per_packet" in s else ""),
            "met": r["bytes_per_packet"] <= 6.1})
    ad = [x for x in allocs if x["config"] != "base"]
    bl = [x for x in allocs if x["config"] == "base"]
    if ad:
        parts, ok = [], True
        for x in ad + bl:
            parts.append("%s (window %s): %.3f allocations/packet, %d in "
                         "nf_ddf, slab objects %+d" % (
                             x["config"], fmt_w(x["window"]),
                             x["allocs"] / x["packets"], x["ddf_sites"],
                             x["slab_objs_after"] - x["slab_objs_before"]))
            if x["config"] != "base":
                ok = ok and x["ddf_sites"] == 0
        if bl:
            b = bl[0]["allocs"] / bl[0]["packets"]
            ok = ok and all(abs(x["allocs"] / x["packets"] - b) < 0.01
                            for x in ad)
        targets.append({
            "target": "no allocation in the packet path",
            "measured": "; ".join(parts),
            "met": ok})

    out = {"info": info, "complete": complete, "results": rows,
           "allocations": allocs, "callgrind": cg, "targets": targets}
    name = "bench-kernel" if mode == "full" else "bench-" + mode
    jpath = os.path.join(d, name + ".json")
    with open(jpath, "w") as f:
        json.dump(out, f, indent=1)

    md = []
    md.append("# Kernel-path benchmark: ddf against the alternatives\n")
    md.append("Generated by `make %s` (tests/bench/): kernel %s "
              "under QEMU TCG, %s vCPU, %s rounds of about %s s per "
              "configuration, interleaved in one boot.%s\n" % (
                  {"full": "bench-kernel", "xdp": "bench-kernel BENCH=xdp"}
                  .get(mode, name), info.get("kernel", "?"),
                  info.get("cpus", "?"),
                  info.get("rounds", "?"), info.get("seconds", "?"),
                  "" if complete else " **The run did not finish: partial "
                  "results.**"))
    md.append(
        "Traffic: pktgen `xmit_mode netif_receive` into a dummy device, "
        "IPv4/UDP, every packet distinct (random source address and port, "
        "pktgen's sequence number in the payload). Every ddf and nft rule "
        "sits at PREROUTING priority 0 (ddf `hook prerouting`, nft `type "
        "filter hook prerouting priority 0`; iptables below); after it "
        "the route lookup drops the packet (strict rp_filter), so nothing "
        "else differs between "
        "configurations. Each configuration has its own network namespace; "
        "the rate is pktgen's, the median over the rounds. Under TCG "
        "absolute rates mean little: compare within a group (same window "
        "and packet size), where no rule, the nft counter and the rest "
        "were measured in turn.\n")
    if any(r["config"].startswith("nd-") for r in rows):
        md.append(
            "The netdev rows (window 10^6): the same traffic, the rule at "
            "d0's netdev ingress hook (`family netdev hook ingress dev d0 "
            "priority 0`), keyed from the Ethernet header on. For the "
            "decap row the datagrams go to UDP port 4789, VXLAN's. pktgen "
            "cannot write a tunnel header: where VXLAN's 8 bytes would be "
            "is pktgen's own header (its first byte happens to carry the I "
            "flag), and behind it 10 bytes, which decap opens as an inner "
            "frame that is not IP and keys whole. The row is thus the cost "
            "of finding and opening a tunnel on every packet, with a short "
            "inner key where real VXLAN traffic has an inner IP packet's.\n")
    if any(r["config"].startswith("veth-") for r in rows):
        md.append(
            "The veth rows (window 10^6): the same packets sent by pktgen "
            "out of v0 and received on its peer v1, whose IP stack drops "
            "them as d0's does; their *added* is over veth's own no-rule "
            "row. The rule sits at v1's netdev ingress hook, or is of "
            "`hook none` and judged by ddf's XDP program on v1 in native "
            "mode, alone (`ddfctl xdp attach dev v1 rule b mode native "
            "exclusive`) or as the one program of libxdp's dispatcher "
            "(`... mode native`, the default; the *dispatcher* rows): the "
            "dispatcher's own cost is the dispatcher row minus the XDP "
            "row, or the two rows of a deleted rule apart. With "
            "an XDP program veth takes another receive path (a ring and "
            "NAPI); the row of the program whose rule was deleted (the "
            "kfunc finds no rule and the frame passes) is that path's "
            "cost, and XDP minus it is ddf's own. (Generic XDP cannot be "
            "measured this way: pktgen's shared socket buffers make it "
            "BUG.)\n")
    if any(r["config"].startswith("virtio-") for r in rows):
        if virtio.get("max", 1) > 1:
            qp, cpus = virtio["queue_pairs"], virtio.get("cpus", 1)
            port = ("a tap of %d queue pairs, %d of them the stack's, "
                    "the flows spread over them by their hash, %s" %
                    (virtio["max"], qp,
                     "one more per CPU for XDP_TX"
                     if qp + cpus <= virtio["max"] else
                     "XDP_TX sharing them"))
        else:
            port = "QEMU's stream netdev, one queue pair"
        md.append(
            "The virtio-net rows (window 10^6, 60-byte frames, pktgen's size 64): distinct "
            "UDP frames written by the host into the VM's virtio-net port "
            "(" + port + "; tests/qemu/feed.py), "
            "dropped by the IP stack as pktgen's are; their *added* is "
            "over virtio-net's own no-rule row. The host, not pktgen, "
            "sets the pace, so the guest idles when it falls behind: a "
            "rate is over the guest's busy time alone (/proc/stat's "
            "ticks, 10 ms each, about 1% of a run), not its clock. XDP "
            "minus the program whose rule was deleted is ddf's own cost "
            "in a real driver's XDP path.\n")
    if info.get("clock") == "icount":
        md.append(
            "Clock: QEMU `-icount shift=0`, the guest's clock advances one "
            "nanosecond per guest instruction, so *ns/pkt* below is **guest "
            "instructions per packet** (exact and repeatable, whatever the "
            "host's load). It counts work, not cache misses, locked-operation "
            "latency or memory bandwidth: TCG models none of them, so a "
            "large table's misses (the nft set's elements, a big filter) "
            "cost nothing here. Real hardware will separate the "
            "configurations further by memory behaviour.\n")
    md.append("Refresh the committed copy with `cp build/bench/%s.md "
              "build/bench/%s.png docs/`.\n" % (name, name))
    md.append("Columns: *ns/pkt* is 1/rate; *added* is that minus no "
              "rule's; *vs nft* is added over the nft counter's added "
              "cost; *B/pkt* is memory held over the packets tracked "
              "(the window).\n")
    md.append("| packet | window | configuration | pkt/s | ns/pkt | "
              "added ns | × no rule | × nft counter | added vs nft | memory "
              "| B/pkt |")
    md.append("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | "
              "---: | ---: |")
    for r in rows:
        def f(k, p="%.2f"):
            return p % r[k] if k in r else ""
        md.append("| %d B | %s | %s | %d | %.0f | %s | %s | %s | %s | %s | %s |"
                  % (r["size"], fmt_w(r["window"]), r["name"],
                     r["pps_median"], r["ns_per_packet"],
                     f("added_ns", "%.0f"), f("ratio_to_base"),
                     f("ratio_to_nft"), f("added_vs_nft", "%.1fx"),
                     "%.1f MB" % (r["bytes"] / 1e6) if "bytes" in r else "",
                     f("bytes_per_packet", "%.2f")))
    md.append("")
    fills = [r for r in rows if "filled" in r and r["filled"] < r["tracked"]]
    if fills:
        md.append("ddf filters were sent min(window, %d) packets before the "
                  "rounds: %s.\n" % (fills[0]["filled"], ", ".join(
                      "%s at %s" % (r["config"], fmt_w(r["window"]))
                      for r in fills)))
    sets = [r for r in rows if r["config"] == "nftset-5t"]
    if sets:
        md.append("The nft set: `flags dynamic,timeout`, `size` twice the "
                  "window, its timeout the window's packets at the rule's "
                  "own rate (%s), refilled with a window of packets before "
                  "each round; memory is the slab and vmalloc growth while "
                  "it filled from empty.\n" % ", ".join(
                      "%s: %d ms" % (fmt_w(r["window"]), r["timeout_ms"])
                      for r in sets if "timeout_ms" in r))
    ipt = [(r, get("ipt", r["window"])) for r in rows
           if r["config"] == "ipt-pkt"]
    if ipt:
        md.append("iptables-legacy: its rows sit in the mangle table's "
                  "PREROUTING chain (priority -150; iptables has no table "
                  "at 0 there), the empty rule alone to show what the "
                  "table itself costs, then `-m ddf --ddf-rule b` asking a "
                  "ddf rule of `hook none` (apbbf, key packet, the same "
                  "window and rate). The match's own cost, over the empty "
                  "rule: %s.\n" % ", ".join(
                      "%s: %.0f" % (fmt_w(r["window"]),
                                    r["ns_per_packet"] - e["ns_per_packet"])
                      for r, e in ipt if e))
    if cg:
        md.append("## Instructions per packet (userspace, callgrind)\n")
        md.append("The same hot path, `ddf_key_hash` + "
                  "`ddf_filter_test_and_insert`, on the same packets, in "
                  "userspace under `valgrind --tool=callgrind` "
                  "(tests/bench/hotpath.c, tests/bench/callgrind.sh): "
                  "instructions per packet after the filter took "
                  "min(window, fill) packets, packet building subtracted.\n")
        md.append("| filter | key | packet | window | instructions/packet |")
        md.append("| --- | --- | --- | --- | ---: |")
        for c in cg:
            if c.get("kind") == "none":
                continue
            md.append("| %s | %s | %d B | %s | %.0f |" % (
                c["kind"], c["key"], c["size"], fmt_w(c["window"]),
                c["ir_per_packet"]))
        md.append("")
    if targets:
        md.append("## Targets\n")
        md.append("| target | measured | met |")
        md.append("| --- | --- | --- |")
        for t in targets:
            md.append("| %s | %s | %s |" % (t["target"], t["measured"],
                                            "yes" if t["met"] else "**no**"))
        md.append("")
        md.append(
            "Where the cost goes. The nft counter adds one per-CPU increment "
            "to the packet's path. Every ddf rule first extracts its key and "
            "hashes it with keyed SipHash-1-3 (the random per-rule key is "
            "the defence against crafted collisions, see ddf(7)), which "
            "alone costs several times that increment before any filter is "
            "touched; the callgrind table above is that path in userspace. "
            "A larger packet's bytes beyond its first 31 reach SipHash as "
            "NH digests of 1 KiB chunks (ddf(7), How a key is hashed): "
            "about 0.56 instructions a byte where SipHash alone takes 2.2 "
            "(docs/key-bytes.md). "
            "APBBF then tests about l/k + 1 blocks and sets bits in k "
            "(tune speed at 1e-6: k = 4, l = 7, one 64-bit word a block; "
            "tune memory: k = 6, l = 18, 512-bit blocks), where QQHTD and "
            "the exact filter touch one bucket. APBBF's bytes per packet "
            "include its spare segment, one more than k + l (1/25 of the "
            "filter with tune memory at 1e-6): the inserts clear it a chunk "
            "at a time, so a new generation renames it instead of clearing "
            "a whole segment in one packet's path; without the spare tune "
            "memory's shape would hold 5.79 bytes per packet.\n")
    png = plot(d, name, rows, info.get("clock") == "icount")
    if png:
        md.append("![cost per packet](%s.png)\n" % name)
    with open(os.path.join(d, name + ".md"), "w") as f:
        f.write("\n".join(md))
    print("\n".join(md))


def plot(d, name, rows, icount):
    """Cost per packet added over no rule, per configuration and window;
    with icount the guest's nanoseconds are its instructions."""
    if not shutil.which("gnuplot"):
        return None
    cfgs = [c for c in ORDER[1:] if any(r["config"] == c and r["size"] == 64
                                        for r in rows)]
    ws = sorted({r["window"] for r in rows if r["size"] == 64})
    if not cfgs or not ws:
        return None
    dat = os.path.join(d, name + ".dat")
    with open(dat, "w") as f:
        f.write("config " + " ".join(fmt_w(w) for w in ws) + "\n")
        for c in cfgs:
            vals = []
            for w in ws:
                r = next((r for r in rows if r["config"] == c and
                          r["window"] == w and r["size"] == 64), None)
                vals.append("%.1f" % r["added_ns"] if r and "added_ns" in r
                            else "-")
            f.write('"%s" %s\n' % (SHORT.get(c, c), " ".join(vals)))
    png = os.path.join(d, name + ".png")
    gp = """set terminal pngcairo size 1000,560 noenhanced
set output '%s'
set title 'Cost per packet added over no rule (64-byte packets, QEMU TCG)'
set ylabel '%s'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top left
set xtics rotate by -25
set bmargin 6
set rmargin 6
set yrange [0:*]
set datafile missing '-'
plot for [i=2:%d] '%s' using i:xtic(1) title columnheader(i)
""" % (png, "guest instructions per packet (-icount shift=0)"
       if icount else "ns per packet (guest clock)", len(ws) + 1, dat)
    try:
        subprocess.run(["gnuplot"], input=gp.encode(), check=True,
                       stderr=subprocess.PIPE)
    except (OSError, subprocess.CalledProcessError) as e:
        print("gnuplot: %s" % e, file=sys.stderr)
        return None
    return png


if __name__ == "__main__":
    main()
