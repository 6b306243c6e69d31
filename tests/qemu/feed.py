#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The host's end of a test VM's virtio-net port (run.sh, DDF_VM_VIRTIO).

    feed.py SOCKET REQUESTS SPANGEN WORKDIR

QEMU listens on SOCKET (-netdev stream,server=on); this connects to it,
then reads the lines the guest writes to REQUESTS (its second serial port,
the file init.sh reports to) as they come. For each line

    ddf-feed: send SCENARIO SEQ

it writes every frame of SPANGEN's SCENARIO (ddf_spangen SCENARIO DIR, the
same program and so the same frames as the guest's copy makes) into the
port, in order, each as QEMU's stream protocol frames a packet: its length
in 4 bytes, big endian, then its bytes. For

    ddf-feed: flood COUNT SEQ

it writes COUNT distinct 60-byte UDP frames to the port's own MAC and
198.18.0.1 from random sources in 10.0.0.0/8 (as the benchmark's pktgen
sends them, tests/bench/vm-bench.sh), as fast as QEMU takes them. What the guest sends back is read
and discarded. It ends on "ddf-result: done", when QEMU closes the socket,
or when killed.
"""
import os
import random
import socket
import struct
import subprocess
import sys
import threading
import time


def log(msg):
    print(f"feed: {msg}", flush=True)


def pcap_frames(path):
    """The records of a classic pcap file, in order."""
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    else:
        raise ValueError(f"{path}: not a pcap file")
    off = 24
    frames = []
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + "IIII", data[off:off + 16])
        off += 16
        frames.append(data[off:off + incl])
        off += incl
    return frames


PORT_MAC = bytes.fromhex("525400ddf001")  # run.sh gives the port this MAC


def ip_csum(h):
    s = sum(struct.unpack("!10H", h))
    s = (s & 0xffff) + (s >> 16)
    s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def flood(sock, count, seq):
    """COUNT distinct UDP frames, framed, written in large chunks."""
    rnd = random.Random(seq)
    eth = PORT_MAC + bytes.fromhex("025a50000001") + b"\x08\x00"
    chunk = []
    for i in range(count):
        src = (10 << 24) | rnd.randrange(1, 1 << 24)
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 46, i & 0xffff, 0x4000,
                         64, 17, 0, struct.pack("!I", src),
                         bytes((198, 18, 0, 1)))
        ip = ip[:10] + struct.pack("!H", ip_csum(ip)) + ip[12:]
        udp = struct.pack("!HHHH", rnd.randrange(1, 65536), 9, 26, 0)
        fr = eth + ip + udp + struct.pack("!QQH", seq, i, 0)
        chunk.append(struct.pack(">I", len(fr)) + fr)
        if len(chunk) == 4096:
            sock.sendall(b"".join(chunk))
            chunk = []
    sock.sendall(b"".join(chunk))


def connect(path, limit):
    """A connection to QEMU's listening socket, which appears at its start."""
    t_end = time.monotonic() + limit
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.monotonic() > t_end:
                raise
            time.sleep(0.2)


def drain(sock):
    """Read what the guest transmits, so that its queue never stalls."""
    try:
        while sock.recv(65536):
            pass
    except OSError:
        pass


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: feed.py SOCKET REQUESTS SPANGEN WORKDIR")
    sock_path, requests, spangen, work = sys.argv[1:]
    sock = connect(sock_path, 60)
    log(f"connected to {sock_path}")
    threading.Thread(target=drain, args=(sock,), daemon=True).start()
    scenarios = {}
    pos = 0
    partial = b""
    while True:
        try:
            with open(requests, "rb") as f:
                f.seek(pos)
                chunk = f.read()
        except FileNotFoundError:
            chunk = b""
        pos += len(chunk)
        partial += chunk
        *lines, partial = partial.split(b"\n")
        for raw in lines:
            line = raw.decode("utf-8", "replace").strip("\r")
            if line.startswith("ddf-result: done"):
                log("the guest is done")
                return
            words = line.split()
            if line.startswith("ddf-feed: flood "):
                try:
                    flood(sock, int(words[2]), int(words[3]))
                except OSError as e:
                    log(f"QEMU closed the port: {e}")
                    return
                log(f"{' '.join(words[1:])}: frames sent")
                continue
            if not line.startswith("ddf-feed: send "):
                continue
            scen = words[2]
            if scen not in scenarios:
                d = os.path.join(work, scen)
                os.makedirs(d, exist_ok=True)
                subprocess.run([spangen, scen, d], check=True,
                               stdout=subprocess.DEVNULL)
                scenarios[scen] = pcap_frames(os.path.join(d, "sent.pcap"))
            frames = scenarios[scen]
            try:
                for fr in frames:
                    sock.sendall(struct.pack(">I", len(fr)) + fr)
            except OSError as e:
                log(f"QEMU closed the port: {e}")
                return
            log(f"{' '.join(words[1:])}: {len(frames)} frames sent")
        time.sleep(0.1)


if __name__ == "__main__":
    main()
