#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Seeds of the key's fuzz targets: frames of every kind the key walks
(tags, labels, tunnels, options, extension headers, fragments, long
packets) under specs of every form, each behind the header fuzz_key.c
reads (its layout is there). Writes the files into the directory given:
  tests/fuzz/seed_key.py tests/fuzz/corpus/key
"""
import hashlib
import struct
import sys


def le16(v):
    return struct.pack('<H', v & 0xffff)


def hdr(form=0, sip24=0, link=1, reader=0, fields=0, fam=0, match=0,
        mbsel=0, ignore=3, decap=0, vx=0, gn=0, pieces=0, poff=0, plen=0,
        maxb=0, port=0, tci=0, cuts=(0,) * 8, l4proto=0, mbshort=0, tpid=0):
    h = bytes([form | sip24 << 2 | link << 3 | reader << 5])
    h += le16(fields | fam << 11 | match << 13 | mbsel << 14)
    h += le16(ignore | decap << 10)
    h += bytes([vx | gn << 2 | pieces << 4])
    h += le16(poff) + le16(plen) + le16(maxb) + le16(port) + le16(tci)
    h += bytes(cuts) + bytes([l4proto, mbshort, tpid])
    assert len(h) == 27
    return h


def csum(b):
    if len(b) % 2:
        b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ip4(proto, pl, frag=0, ident=0x1234, opts=b'', ttl=64, tot=None):
    ihl = 5 + len(opts) // 4
    n = 4 * ihl + len(pl) if tot is None else tot
    h = struct.pack('!BBHHHBBH4s4s', 0x40 | ihl, 0x2e, n, ident, frag, ttl,
                    proto, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    h += opts
    h = h[:10] + struct.pack('!H', csum(h)) + h[12:]
    return h + pl


def ip6(nh, pl, plen=None):
    n = len(pl) if plen is None else plen
    return struct.pack('!IHBB', 0x6b012345, n, nh, 63) + \
        bytes(range(16)) + bytes(range(16, 32)) + pl


def ext(nh, n=8, kind=0):
    """An IPv6 extension header of n bytes (a multiple of 8)."""
    return bytes([nh, n // 8 - 1]) + bytes(n - 2)


def tcp(pl=b'', doff=5, sport=1234, dport=80):
    return struct.pack('!HHIIBBHHH', sport, dport, 1000, 2000, doff << 4,
                       0x18, 512, 0xbeef, 0) + bytes(4 * doff - 20) + pl


def udp(pl=b'', dport=53, sport=4321):
    return struct.pack('!HHHH', sport, dport, 8 + len(pl), 0xcafe) + pl


def eth(typ, pl, tags=()):
    h = bytes([2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2])
    for tp, vid in tags:
        h += struct.pack('!HH', tp, vid)
    return h + struct.pack('!H', typ) + pl


def payload(n):
    return bytes((i * 7 + 3) & 0xff for i in range(n))


def main():
    out = sys.argv[1]
    t4 = ip4(6, tcp(payload(40)))
    u4 = ip4(17, udp(payload(30)))
    t6 = ip6(6, tcp(payload(40)))
    u6 = ip6(17, udp(payload(30)))
    inner = eth(0x0800, t4)
    frames = {
        'tcp4': eth(0x0800, t4), 'udp4': eth(0x0800, u4),
        'tcp6': eth(0x86dd, t6), 'udp6': eth(0x86dd, u6),
        'icmp4': eth(0x0800, ip4(1, bytes([8, 0, 0, 0, 0, 7, 0, 1]) +
                                 payload(20))),
        'icmp6': eth(0x86dd, ip6(58, bytes([128, 0, 0, 0, 0, 7, 0, 1]))),
        'sctp4': eth(0x0800, ip4(132, payload(28))),
        'opts4': eth(0x0800, ip4(6, tcp(payload(8), doff=8),
                                 opts=bytes([1, 1, 1, 0]))),
        'frag4first': eth(0x0800, ip4(17, udp(payload(16)), frag=0x2000)),
        'frag4later': eth(0x0800, ip4(17, payload(16), frag=0x0003)),
        'ext6': eth(0x86dd, ip6(0, ext(43, 16) + ext(60) + ext(51, 16) +
                                tcp(payload(8)))),
        'frag6': eth(0x86dd, ip6(44, bytes([17, 0, 0, 9, 0, 0, 0, 5]) +
                                 udp(payload(8)))),
        'vlan': eth(0x0800, t4, tags=((0x8100, 5),)),
        'qinq': eth(0x86dd, u6, tags=((0x88a8, 10), (0x8100, 20))),
        'mpls': eth(0x8847, bytes([0, 1, 0x01, 64]) + t4),
        'vxlan': eth(0x0800, ip4(17, udp(bytes([8, 0, 0, 0, 0, 0, 1, 0]) +
                                         inner, dport=4789))),
        'geneve': eth(0x0800, ip4(17, udp(bytes([0, 0, 0x65, 0x58, 0, 0,
                                                 1, 0]) + inner,
                                          dport=6081))),
        'gtpu': eth(0x0800, ip4(17, udp(bytes([0x34, 0xff, 0, 60, 0, 0,
                                               0, 1, 0, 0, 0, 0x85, 1, 0,
                                               0, 0]) + t4, dport=2152))),
        'gre': eth(0x0800, ip4(47, bytes([0x20, 0, 8, 0, 0, 0, 0, 9]) +
                               u4)),
        'gre6': eth(0x0800, ip4(47, bytes([0x80, 0, 0x86, 0xdd, 0, 0, 0,
                                           0]) + t6)),
        'greteb': eth(0x86dd, ip6(47, bytes([0, 0, 0x65, 0x58]) + inner)),
        'geneve4': eth(0x0800, ip4(17, udp(bytes([1, 0, 8, 0, 0, 0, 1, 0,
                                                  0, 0, 0, 0]) + u4,
                                           dport=6081))),
        'geneve6': eth(0x86dd, ip6(17, udp(bytes([0, 0, 0x86, 0xdd, 0, 0,
                                                  1, 0]) + t6,
                                           dport=6081))),
        'icmpts': eth(0x0800, ip4(1, bytes([13, 0, 0, 0, 0, 9, 0, 2]) +
                                  payload(12))),
        'icmpreply': eth(0x0800, ip4(1, bytes([0, 0, 0, 0, 0, 9, 0, 2]))),
        'erspan2': eth(0x0800, ip4(47, bytes([0x10, 0, 0x88, 0xbe, 0, 0,
                                              0, 1, 0x10, 0, 0, 0, 0, 0,
                                              0, 0]) + inner)),
        'erspan3': eth(0x0800, ip4(47, bytes([0x10, 0, 0x22, 0xeb, 0, 0,
                                              0, 1]) + bytes([0x20]) +
                               bytes(11) + inner)),
        'long4': eth(0x0800, ip4(6, tcp(payload(1400)))),
        'long6': eth(0x86dd, ip6(17, udp(payload(2600)))),
        'arp': eth(0x0806, payload(28)),
        'trunc4': eth(0x0800, ip4(6, tcp(payload(10)), tot=200)),
        'jumbo6': eth(0x86dd, ip6(0, bytes([6, 0, 0xc2, 4, 0, 0, 0, 0]) +
                                  tcp(payload(30)), plen=0)),
    }
    specs = {
        'packet': hdr(),
        'packet_all_ignore': hdr(ignore=0x7f | 0x180, reader=3, pieces=3,
                                 cuts=(13, 1, 30) + (0,) * 5),
        'fields_all': hdr(form=1, fields=0x3ff, poff=0, plen=2000,
                          sip24=1, reader=1),
        'fields_short': hdr(form=1, fields=0x21f, poff=4, plen=20,
                            reader=2),
        'frame': hdr(form=2, ignore=0x180, reader=3, pieces=1,
                     cuts=(20,) + (0,) * 7),
        'decap': hdr(decap=0x1f, ignore=0x43),
        'decap_fields': hdr(decap=0x1f, form=1, fields=0x3ff, plen=100,
                            reader=1),
        'long': hdr(mbsel=3, reader=3, pieces=2, cuts=(100, 250) +
                    (0,) * 6),
        'match_tcp': hdr(match=1, l4proto=6, ignore=0x43),
        'icmpid': hdr(form=1, fields=0x107),
        'v6_tcp_only': hdr(fam=2, match=1, l4proto=6, mbsel=2, mbshort=40),
        'bare': hdr(link=0),
        'tagged': hdr(link=2, tci=0x0123, ignore=0x83),
    }
    # the branches a corpus missed (llvm-cov): frames for one spec each
    vx = frames['vxlan']
    extra = {
        'frame-ignore-dscp': (hdr(form=2, ignore=0x7), frames['tcp4']),
        'icmp6-echo-icmpid': (hdr(form=1, fields=0x100),
                              frames['icmp6']),
        'icmp6-reply-icmpid': (hdr(form=1, fields=0x100), eth(0x86dd, ip6(
            58, bytes([129, 0, 0, 0, 0, 7, 0, 1])))),
        'geneve-short': (hdr(decap=0x2), eth(0x0800, ip4(17, udp(
            bytes([0, 0, 0x65]), dport=6081)))),
        'erspan3-short': (hdr(decap=0x8), frames['erspan3'][:14 + 20 + 12]),
        'erspan3-v1': (hdr(decap=0x8), eth(0x0800, ip4(47, bytes(
            [0x10, 0, 0x22, 0xeb, 0, 0, 0, 1, 0x10]) + bytes(11) + inner))),
        'erspan3-oflag': (hdr(decap=0x8), eth(0x0800, ip4(47, bytes(
            [0x10, 0, 0x22, 0xeb, 0, 0, 0, 1, 0x20]) + bytes(10) +
            bytes([1]) + bytes(8) + inner))),
    }
    # a multi-buffer frame with one fragment unreadable (fuzz_xdp: reader
    # 3; the linear part, the bad fragment, the rest), where the key reads
    bad = {
        'bad-sport': (hdr(form=1, fields=0x8), frames['udp4'], 34),
        'bad-icmptype': (hdr(form=1, fields=0x100), frames['icmp4'], 34),
        'bad-payload': (hdr(form=1, fields=0x21f, poff=4, plen=20),
                        frames['tcp4'], 54),
        'bad-inner': (hdr(decap=0x1), vx, 60),
        'bad-dport': (hdr(decap=0x1), vx, 36),
        'bad-region': (hdr(), frames['tcp4'], 54),
        'bad-tag': (hdr(), frames['vlan'], 14),
        'bad-mpls': (hdr(), frames['mpls'], 18),
    }
    for name, (h, f, lin) in bad.items():
        h = bytearray(h)
        h[0] |= 3 << 5
        h[5] |= 2 << 4  # three pieces: linear, bad, rest
        h[16], h[17], h[23] = lin, 40, 0
        extra[name] = (bytes(h), f)
    for name, (h, f) in extra.items():
        with open('%s/%s' % (out, name), 'wb') as fd:
            fd.write(h + f)
    n = 0
    for fname, f in frames.items():
        for sname, s in specs.items():
            # every frame under the common specs, the others under a few
            if sname not in ('packet', 'fields_all', 'decap', 'long',
                             'match_tcp') and (n + len(sname)) % 3:
                n += 1
                continue
            if sname == 'bare':
                f = f[14:]
            b = s + f
            name = '%s-%s-%s' % (fname, sname,
                                 hashlib.sha1(b).hexdigest()[:8])
            with open('%s/%s' % (out, name), 'wb') as fd:
                fd.write(b)
            n += 1


main()
