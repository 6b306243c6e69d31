#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pcapng times against replay's reader, every if_tsresol at its extremes.

  pcapng_times.py READER DIR

READER is ddfctl_pcap_times (tests/tools/pcap_times.c), DIR a scratch
directory. For each of the 256 if_tsresol codes (10^-n s and 2^-n s, n from
0 to 127) and an interface with none (10^-6 s), in both byte orders, it
writes pcapng files stamped at 0, one unit short of a second, the largest
stamp whose time 64 bits of nanoseconds hold, the smallest they do not hold
and 2^64 - 1; then if_tsoffset at its extremes, several sections and
interfaces with simple and obsolete packet blocks, and each of these
through reads of 1 to 13 bytes. The time of each record, in ns since 1970,
is computed here with Python's integers: timestamp * 10^9 // units per
second + if_tsoffset * 10^9; one before 1970 or past 2^64 - 1 ns stops the
file with the sentence built here. Then byte-flipped files, which must be
read or refused without a crash (READER runs under ASan and UBSan), every
record libpcap hands out with its time.
Prints what differs and a count; exits 1 when anything does.
"""
import datetime
import os
import random
import struct
import subprocess
import sys

NS = 10**9
MAX = 2**64 - 1
FRAME = bytes.fromhex(
    '020000000002020000000001080045000026000100004011f9c10a0001010a00'
    '0102d4310fa000120000' + '41' * 10)


def units(code):
    n = code & 0x7f
    return 2**n if code & 0x80 else 10**n


def unit_word(code):
    n = code & 0x7f
    if not n:
        return '1 s'
    return '%s^-%d s' % ('2' if code & 0x80 else '10', n)


class Ng:
    """A pcapng file of one byte order, block by block."""

    def __init__(self, e):
        self.e, self.out = e, b''
        self.shb()

    def block(self, t, body):
        body += b'\0' * (-len(body) % 4)
        n = 12 + len(body)
        self.out += struct.pack(self.e + 'II', t, n) + body + struct.pack(
            self.e + 'I', n)

    def shb(self):
        self.block(0x0a0d0d0a, struct.pack(self.e + 'IHHq', 0x1a2b3c4d, 1, 0,
                                           -1))

    def opt(self, code, value):
        return struct.pack(self.e + 'HH', code, len(value)) + value + \
            b'\0' * (-len(value) % 4)

    def idb(self, code=None, off=None, name=None):
        body = struct.pack(self.e + 'HHI', 1, 0, 65535)
        if name is not None:
            body += self.opt(2, name)
        if code is not None:
            body += self.opt(9, bytes([code]))
        if off is not None:
            body += self.opt(14, struct.pack(self.e + 'q', off))
        if code is not None or off is not None or name is not None:
            body += self.opt(0, b'')
        self.block(1, body)

    def epb(self, t, iface=0):
        self.block(6, struct.pack(self.e + 'IIIII', iface, t >> 32,
                                  t & 0xffffffff, len(FRAME), len(FRAME)) +
                   FRAME)

    def pb(self, t, iface=0):
        self.block(2, struct.pack(self.e + 'HHIIII', iface, 0, t >> 32,
                                  t & 0xffffffff, len(FRAME), len(FRAME)) +
                   FRAME)

    def spb(self):
        self.block(3, struct.pack(self.e + 'I', len(FRAME)) + FRAME)

    def skip(self):
        """A block libpcap and replay pass over (a custom block)."""
        self.block(0x00000BAD, b'\x01' * 7)


def after():
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(
        seconds=MAX // NS)
    return d.strftime('%Y-%m-%d %H:%M:%S UTC')


def sentence(path, rec, t, code, off, iface, section):
    v = t * NS // units(code) + off * NS
    what = 'units of ' + unit_word(code)
    if off:
        what += ', if_tsoffset %d s' % off
    what += ', interface %d' % iface
    if section > 1:
        what += ' of section %d' % section
    return ("ddfctl: replay: '%s': record %d: its timestamp %d (%s) is %s, "
            'the %s time 64 bits of nanoseconds since 1970 hold' %
            (path, rec, t, what,
             'before 1970' if v < 0 else 'after ' + after(),
             'first' if v < 0 else 'last'))


def expect(path, recs):
    """Lines for records (t, code, off, iface, section) up to a refusal."""
    lines = []
    for i, (t, code, off, iface, section) in enumerate(recs):
        v = t * NS // units(code) + off * NS
        if not 0 <= v <= MAX:
            lines.append(sentence(path, i + 1, t, code, off, iface, section))
            break
        lines.append('%d %d %d' % (v, v // NS, v % NS))
    return lines


def cases():
    """(name, bytes, records): every code's extremes, offsets, sections."""
    for e, order in (('<', 'le'), ('>', 'be')):
        for code in list(range(256)) + [None]:
            c = 6 if code is None else code
            u = units(c)
            fit = min(MAX, (2**64 * u - 1) // NS)
            stamps = sorted({0, min(u - 1, MAX), fit})
            if fit < MAX:
                stamps.append(fit + 1)
            ng = Ng(e)
            ng.idb(code)
            for t in stamps:
                ng.epb(t)
            yield ('%s-%s' % (order, 'none' if code is None else code),
                   ng.out, [(t, c, 0, 0, 1) for t in stamps])
            if fit + 1 < MAX:
                ng = Ng(e)
                ng.idb(code)
                ng.epb(MAX)
                yield ('%s-%s-max' % (order, code), ng.out,
                       [(MAX, c, 0, 0, 1)])
        for code in (0, 6, 9, 19, 20, 28, 29, 127, 0x80, 0x80 | 20,
                     0x80 | 34, 0x80 | 35, 0x80 | 63, 0x80 | 64, 0xff):
            u = units(code)
            for off in (-1, 1, MAX // NS, MAX // NS + 1, 2**63 - 1, -2**63):
                for t in sorted({0, 1, min(u, MAX), MAX, 2**63 + 5}):
                    ng = Ng(e)
                    ng.idb(code, off)
                    ng.epb(t)
                    yield ('%s-off-%d-%d-%d' % (order, code, off, t), ng.out,
                           [(t, code, off, 0, 1)])
        # two sections: interfaces of several resolutions and offsets, an
        # option before if_tsresol, custom blocks, simple and obsolete
        # packet blocks; a stamp too late on interface 0 of section 2
        b40 = 0x80 | 40
        ng = Ng(e)
        ng.skip()
        ng.idb(9, name=b'eth0x')
        ng.idb(b40, 7)
        ng.epb(5)
        ng.epb(2**40 - 1, 1)
        ng.skip()
        ng.pb(3 * 2**40 + 1, 1)
        ng.spb()
        ng.shb()
        ng.idb(0)
        ng.idb(0x80 | 127, 3)
        ng.epb(100)
        ng.epb(MAX, 1)
        ng.spb()
        ng.epb(MAX)
        ng.epb(1)
        recs = [(5, 9, 0, 0, 1), (2**40 - 1, b40, 7, 1, 1),
                (3 * 2**40 + 1, b40, 7, 1, 1), (0, 9, 0, 0, 1),
                (100, 0, 0, 0, 2), (MAX, 0x80 | 127, 3, 1, 2),
                (0, 0, 0, 0, 2), (MAX, 0, 0, 0, 2), (1, 0, 0, 0, 2)]
        yield '%s-sections' % order, ng.out, recs


def run(reader, args):
    return subprocess.run([reader] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, check=False,
                          env=dict(os.environ, LC_ALL='C')).stdout.decode()


def blocks(out):
    """The reader's output per file: {path: [lines]}."""
    got, cur = {}, None
    for line in out.splitlines():
        if line.startswith('== '):
            cur = got.setdefault(line[3:], [])
        elif cur is not None:
            cur.append(line)
    return got


def main():
    reader, d = sys.argv[1:3]
    want, bad, n = {}, 0, 0
    chunked = []
    split = {'%s-%s' % (o, c) for o in ('le', 'be')
             for c in ('0', '0-max', '9', '168', '255', 'none', 'sections',
                       'off-0--1-1', 'off-168--9223372036854775808-0')}
    for name, data, recs in cases():
        path = os.path.join(d, name + '.pcapng')
        open(path, 'wb').write(data)
        want[path] = recs
        if name in split:
            chunked.append(path)
    got = blocks(run(reader, sorted(want)))
    for path, recs in sorted(want.items()):
        n += 1
        if got.get(path) != expect(path, recs):
            bad += 1
            print('FAIL: %s: got %s, want %s' % (
                os.path.basename(path), got.get(path), expect(path, recs)))
    # the same files as standard input, split across reads everywhere
    for k in (1, 2, 3, 5, 7, 13):
        got = blocks(run(reader, ['-c', str(k)] + chunked))
        for path in chunked:
            n += 1
            if got.get(path) != expect('-', want[path]):
                bad += 1
                print('FAIL: %s in reads of %d bytes: got %s, want %s' % (
                    os.path.basename(path), k, got.get(path),
                    expect('-', want[path])))
    # byte-flipped files: read or refused, no crash
    rnd = random.Random(39)
    base = [open(p, 'rb').read() for p in chunked]
    flipped = []
    for i in range(400):
        b = bytearray(rnd.choice(base))
        for _ in range(rnd.randint(1, 4)):
            b[rnd.randrange(len(b))] = rnd.randrange(256)
        p = os.path.join(d, 'flip-%d.pcapng' % i)
        open(p, 'wb').write(b)
        flipped.append(p)
    r = subprocess.run([reader] + flipped, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, check=False)
    out = r.stdout.decode(errors='replace')
    n += 1
    if r.returncode:
        bad += 1
        print('FAIL: byte-flipped files: exit %d: %s' % (r.returncode,
                                                         out[-3000:]))
    # every record libpcap hands out has its time: the parse kept up
    lost = [ln for ln in out.splitlines()
            if 'was not found' in ln or 'no description block' in ln]
    n += 1
    if lost:
        bad += 1
        print('FAIL: byte-flipped files: a record without its time: %s' %
              lost[:3])
    print('pcapng_times: %d cases, %d failed' % (n, bad))
    sys.exit(1 if bad else 0)


main()
