#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Split one capture over several, as several capture ports would have seen
its packets, and write what merging them back by time must give.

  pcap_split.py IN CLASSES MODE REF OUT:FORMAT [OUT:FORMAT ...]

IN is a nanosecond pcap file (ddf_pcapgen's), CLASSES the generator's
lines ("INDEX KEY FRAME"). Each record goes to one OUT, by MODE:

  alt      record i to OUT i mod n (interleaved)
  blocks   the first n-th of the records to the first OUT, and so on
  copies   the k-th record of a key class c to OUT (k + c) mod n: the
           copies of a packet on different OUTs, the first copy on either
  ties     as alt, every timestamp rounded down to 2 ms: two records
           (1 ms apart in IN) share each timestamp, on two OUTs

Each OUT is written in its FORMAT, joined by '+':
  pcap-us, pcap-ns   pcap, timestamps in micro- or nanoseconds
  be                 big-endian (default little-endian)
  ng6, ng9           pcapng, if_tsresol 10^-6 (no option) or 10^-9
  ngb20              pcapng, if_tsresol 2^-20 s
  sll                Linux cooked capture (SLL) instead of Ethernet

REF is the merge of the OUTs as `ddfctl replay OUT...` must read them: the
records by their timestamps as each OUT holds them (cut to its
resolution, then in nanoseconds as libpcap reads them), equal timestamps
in the order of the OUTs, each OUT's records in its order. REF is a pcap
file of IN's Ethernet frames, in microseconds when every OUT is a
microsecond pcap file of Ethernet frames, else in nanoseconds, with one line
per record in REF.map: the record's OUT (from 1) and its number in it.
REF@I,J,... merges them given in that order instead (I, J: the OUTs'
numbers from 1), as `ddfctl replay OUT_I OUT_J ...`; REF.map then numbers
them in that order.
Nothing here reads a file the way ddfctl does: it is the reference.
"""
import struct
import sys

NS = 1000000000


def read_pcap(path):
    d = open(path, 'rb').read()
    magic = struct.unpack_from('<I', d, 0)[0]
    if magic != 0xa1b23c4d:
        sys.exit('pcap_split: %s: not a little-endian nanosecond pcap' % path)
    o, recs = 24, []
    while o < len(d):
        sec, nsec, cap, length = struct.unpack_from('<IIII', d, o)
        recs.append([sec * NS + nsec, d[o + 16:o + 16 + cap], length])
        o += 16 + cap
    return recs


def sll(frame):
    """An Ethernet frame as a Linux cooked capture records it."""
    return (struct.pack('>HHH', 0, 1, 6) + frame[6:12] + b'\0\0' +
            frame[12:14] + frame[14:])


class Out:
    def __init__(self, spec):
        self.path, fmt = spec.rsplit(':', 1)
        self.f = set(fmt.split('+'))
        self.ng = self.f & {'ng6', 'ng9', 'ngb20'}
        self.usec = 'pcap-us' in self.f
        self.sll = 'sll' in self.f
        self.e = '>' if 'be' in self.f else '<'
        self.recs = []

    def stamp(self, ns):
        """The timestamp as written (units) and as libpcap reads it (ns)."""
        if 'ngb20' in self.f:
            u = ns * (1 << 20) // NS
            return u, (u >> 20) * NS + (u & 0xfffff) * NS // (1 << 20)
        if self.usec or 'ng6' in self.f:
            return ns // 1000, ns // 1000 * 1000
        return ns, ns

    def write(self):
        e, w = self.e, open(self.path, 'wb')
        dlt = 113 if self.sll else 1
        if not self.ng:
            magic = 0xa1b2c3d4 if self.usec else 0xa1b23c4d
            w.write(struct.pack(e + 'IHHiIII', magic, 2, 4, 0, 0, 65535, dlt))
        else:
            w.write(self.block(0x0a0d0d0a, struct.pack(
                e + 'IHHq', 0x1a2b3c4d, 1, 0, -1)))
            opt = b''
            if 'ng9' in self.f:
                opt = struct.pack(e + 'HHB3x', 9, 1, 9)
            elif 'ngb20' in self.f:
                opt = struct.pack(e + 'HHB3x', 9, 1, 0x80 | 20)
            if opt:
                opt += struct.pack(e + 'HH', 0, 0)
            w.write(self.block(1, struct.pack(e + 'HHI', dlt, 0, 65535) + opt))
        for units, _, frame, length in self.recs:
            if self.sll:
                frame, length = sll(frame), length + 2
            if not self.ng:
                div = 1000000 if self.usec else NS
                w.write(struct.pack(e + 'IIII', units // div, units % div,
                                    len(frame), length) + frame)
            else:
                w.write(self.block(6, struct.pack(
                    e + 'IIIII', 0, units >> 32, units & 0xffffffff,
                    len(frame), length) + frame))
        w.close()

    def block(self, t, body):
        body += b'\0' * (-len(body) % 4)
        n = 12 + len(body)
        return struct.pack(self.e + 'II', t, n) + body + struct.pack(
            self.e + 'I', n)


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    src, cls, mode, ref = sys.argv[1:5]
    outs = [Out(s) for s in sys.argv[5:]]
    n = len(outs)
    order = list(range(n))
    if '@' in ref:
        ref, o = ref.rsplit('@', 1)
        order = [int(i) - 1 for i in o.split(',')]
    recs = read_pcap(src)
    keys = [ln.split()[1] for ln in open(cls)]
    seen = {}
    for i, (ns, frame, length) in enumerate(recs):
        if mode == 'alt':
            o = i % n
        elif mode == 'blocks':
            o = i * n // len(recs)
        elif mode == 'copies':
            c = 0 if keys[i] == '-' else int(keys[i])
            k = seen.get(keys[i], 0)
            seen[keys[i]] = k + 1
            o = (k + c) % n
        elif mode == 'ties':
            ns -= ns % 2000000
            o = i % n
        else:
            sys.exit('pcap_split: no mode ' + mode)
        units, eff = outs[o].stamp(ns)
        outs[o].recs.append((units, eff, frame, length))
    for out in outs:
        out.write()
    # the reference merge, mergecap's: time, then the later OUT first,
    # then the record's order
    merged = sorted((eff, -o, j, frame, length)
                    for o, out in enumerate(outs[i] for i in order)
                    for j, (_, eff, frame, length) in enumerate(out.recs))
    usec = all(out.usec and not out.sll for out in outs)
    w = open(ref, 'wb')
    w.write(struct.pack('<IHHiIII', 0xa1b2c3d4 if usec else 0xa1b23c4d,
                        2, 4, 0, 0, 65535, 1))
    with open(ref + '.map', 'w') as m:
        for eff, neg, j, frame, length in merged:
            o = -neg
            frac = eff % NS // 1000 if usec else eff % NS
            w.write(struct.pack('<IIII', eff // NS, frac, len(frame),
                                length) + frame)
            m.write('%d %d\n' % (o + 1, j + 1))
    w.close()


main()
