#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Seeds of fuzz_spec: a sizing request of every filter kind by rate and
by memory, count and time windows, and shapes (queues over a few kinds),
in the layout fuzz_spec.c reads:
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


def shape(kind, window, k=0, l=0, m=0, fp_bits=0, cell_bits=0,
          inner_kind=0, subfilters=0, cpus=0, block_bits=0, block_hashes=0):
    b = bytes([1, kind, 0]) + u64(window) + u64(0) + bytes([k])
    b += struct.pack('<H', l) + u64(m) + struct.pack('<H', block_bits)
    b += bytes([block_hashes, fp_bits, cell_bits]) + struct.pack('<I', 0)
    b += bytes([inner_kind]) + struct.pack('<HIHH', subfilters, 0, cpus, 3)
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
    # shapes as saved rules give them: the queue over a few kinds
    shapes = {
        'apbf': shape(1, 1000, k=4, l=3),
        'apbbf': shape(2, 1000, k=4, l=3, block_bits=512, block_hashes=8),
        'qht': shape(3, 0, k=4, m=64, fp_bits=8),
        'queue-exact': shape(18, 1000, inner_kind=17, subfilters=4),
        'queue-shf': shape(18, 1000, inner_kind=15, subfilters=8, m=4096),
        'queue-qht': shape(18, 1000, inner_kind=3, subfilters=2, k=4,
                           fp_bits=8),
        'queue-apbf': shape(18, 1000, inner_kind=1, subfilters=3, k=4, l=3),
    }
    for name, b in shapes.items():
        with open('%s/shape-%s' % (out, name), 'wb') as f:
            f.write(b)


main()
