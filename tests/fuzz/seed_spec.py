#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Seeds of fuzz_spec: a sizing request of every filter kind by rate and
by memory, count and time windows, in the layout fuzz_spec.c reads:
  tests/fuzz/seed_spec.py tests/fuzz/corpus/spec
"""
import struct
import sys

KINDS = 18


def u64(v, shift=0):
    return bytes([shift]) + struct.pack('<Q', v << shift)


def size_req(kind, window, fpr=None, mem=0, time_ns=0, tune=0):
    b = bytes([0, kind, 1 if time_ns else 0])
    b += u64(window) + u64(time_ns)
    if fpr is None:
        b += bytes([0])
    else:
        b += bytes([1]) + struct.pack('<I', int(fpr * 2**32))
    b += u64(mem)
    b += bytes([0]) + struct.pack('<HH', 0, 0) + bytes([0, 0])
    b += struct.pack('<H', 0) + bytes([tune])
    # hashes to run the filter over: repeats among them
    for i in range(24):
        b += struct.pack('<HHB', i % 7, i % 5, i % 3)
    return b


def main():
    out = sys.argv[1]
    for kind in range(1, KINDS + 1):
        seeds = {
            'fpr': size_req(kind, 1000, fpr=0.01),
            'mem': size_req(kind, 1000, mem=65536),
            'time': size_req(kind, 500, fpr=0.001, time_ns=10**9, tune=1),
        }
        for name, b in seeds.items():
            with open('%s/size-kind%d-%s' % (out, kind, name), 'wb') as f:
                f.write(b)


main()
