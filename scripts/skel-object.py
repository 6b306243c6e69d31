#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A libbpf skeleton with another BPF object in it.

    skel-object.py SKEL.h OBJECT.o > OUT.h

bpftool (7.1) writes skeletons of objects in this machine's byte order
only. An object of the other order (-target bpfeb, for a big-endian CPU)
has the same maps, programs and sections, so its skeleton is the
little-endian object's with the ELF bytes and their size replaced.
"""
import re
import sys


def c_bytes(data):
    out, line = [], ""
    for b in data:
        line += "\\0" if b == 0 else "\\x%02x" % b
        if len(line) >= 72:
            out.append(line + "\\")
            line = ""
    out.append(line)
    return "\n".join(out)


def main():
    skel = open(sys.argv[1]).read()
    obj = open(sys.argv[2], "rb").read()
    pat = re.compile(r'(\*sz = )\d+(;\n\treturn \(const void \*\)"\\\n)'
                     r'[^"]*(";)')
    new, n = pat.subn(lambda m: m.group(1) + str(len(obj)) + m.group(2)
                      + c_bytes(obj) + m.group(3), skel)
    if n != 1:
        sys.exit("skel-object.py: %s: no ELF bytes found" % sys.argv[1])
    sys.stdout.write(new)


main()
