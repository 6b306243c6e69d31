#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The host's end of a test VM's virtio-net port (run.sh, DDF_VM_VIRTIO).

    feed.py SOCKET REQUESTS SPANGEN WORKDIR
    feed.py --tap IFNAME REQUESTS SPANGEN WORKDIR

The port is one of two kinds (run.sh chooses). With SOCKET, QEMU listens
on it (-netdev stream,server=on); this connects to it and writes each
frame as QEMU's stream protocol frames a packet: its length in 4 bytes,
big endian, then its bytes; a full socket holds this back. With --tap,
IFNAME is the host side of QEMU's tap (-netdev tap), in the namespace this
runs in; each frame goes out of it by a packet socket, and tun hands it
to one of the tap's queues by its flow hash, each queue a queue pair of
the guest's port. tun drops a frame that finds its queue full, so at most
WINDOW frames are under way: sent, but not yet read by QEMU (the tap's
tx_packets) or dropped (tx_dropped, logged).

Then it reads the lines the guest writes to REQUESTS (its second serial
port, the file init.sh reports to) as they come. For each line

    ddf-feed: send SCENARIO SEQ

it writes every frame of SPANGEN's SCENARIO (ddf_spangen SCENARIO DIR, the
same program and so the same frames as the guest's copy makes) into the
port, in order. For

    ddf-feed: flood COUNT SEQ

it writes COUNT distinct 60-byte UDP frames to the port's own MAC and
198.18.0.1 from random sources in 10.0.0.0/8 (as the benchmark's pktgen
sends them, tests/bench/vm-bench.sh), as fast as QEMU takes them. What
the guest sends back is read and discarded (the tap's namespace has no
address: its stack drops it). It ends on "ddf-result: done", when QEMU
closes the socket, or when killed.
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


class StreamPort:
    """QEMU's stream netdev: a connection to its listening socket."""

    def __init__(self, path, limit=60):
        t_end = time.monotonic() + limit
        while True:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > t_end:
                    raise
                time.sleep(0.2)
        log(f"connected to {path}")
        threading.Thread(target=self.drain, daemon=True).start()

    def drain(self):
        """Read what the guest transmits, so that its queue never stalls."""
        try:
            while self.sock.recv(65536):
                pass
        except OSError:
            pass

    def send(self, frames):
        """The frames written; how, for the log."""
        self.sock.sendall(b"".join(struct.pack(">I", len(fr)) + fr
                                   for fr in frames))
        return ""


class StallError(OSError):
    pass


class TapPort:
    """The host side of QEMU's tap, written by a packet socket."""

    WINDOW = 256        # under the tap's 1000 frames a queue
    STALL = 30          # seconds without a frame taken: give up

    def __init__(self, ifname):
        self.ifname = ifname
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        self.sock.bind((ifname, 0))
        self.sent = 0
        self.base_taken, self.base_dropped = self.counters()
        self.done = 0
        log(f"writing into the tap {ifname}")

    def queues(self):
        """The tap's queues QEMU has attached (those the guest uses)."""
        qs = os.listdir(f"/sys/class/net/{self.ifname}/queues")
        return len([q for q in qs if q.startswith("tx-")])

    def counters(self):
        """The tap's frames read by QEMU and dropped, since it was made."""
        d = f"/sys/class/net/{self.ifname}/statistics/"
        with open(d + "tx_packets") as f:
            taken = int(f.read())
        with open(d + "tx_dropped") as f:
            dropped = int(f.read())
        return taken, dropped

    def update(self):
        taken, dropped = self.counters()
        self.done = taken - self.base_taken + dropped - self.base_dropped
        return dropped - self.base_dropped

    def wait(self, room):
        """Until at most WINDOW - ROOM frames are under way."""
        t_end = time.monotonic() + self.STALL
        done = self.done
        while True:
            self.update()
            if self.sent - self.done <= self.WINDOW - room:
                return
            if self.done != done:
                done = self.done
                t_end = time.monotonic() + self.STALL
            elif time.monotonic() > t_end:
                raise StallError(f"QEMU took no frame from {self.ifname} "
                                 f"in {self.STALL} s")
            time.sleep(0.002)

    def send(self, frames):
        """The frames written (drops logged); how, for the log."""
        dropped0 = self.update()
        for fr in frames:
            if self.sent - self.done >= self.WINDOW:
                self.wait(self.WINDOW // 2)
            self.sock.send(fr)
            self.sent += 1
        self.wait(self.WINDOW)
        dropped = self.update() - dropped0
        if dropped:
            log(f"the tap dropped {dropped} frames")
        return f" over {self.queues()} queues"


def flood(port, count, seq):
    """COUNT distinct UDP frames, written in large chunks."""
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
        chunk.append(eth + ip + udp + struct.pack("!QQH", seq, i, 0))
        if len(chunk) == 4096:
            port.send(chunk)
            chunk = []
    return port.send(chunk)


def main():
    args = sys.argv[1:]
    if len(args) == 5 and args[0] == "--tap":
        port = TapPort(args[1])
        args = args[2:]
    elif len(args) == 4:
        port = StreamPort(args[0])
        args = args[1:]
    else:
        sys.exit("usage: feed.py SOCKET|--tap IFNAME REQUESTS SPANGEN WORKDIR")
    requests, spangen, work = args
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
                    how = flood(port, int(words[2]), int(words[3]))
                except StallError as e:
                    log(f"{' '.join(words[1:])}: {e}")
                    continue
                except OSError as e:
                    log(f"QEMU closed the port: {e}")
                    return
                log(f"{' '.join(words[1:])}: frames sent{how}")
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
                how = port.send(frames)
            except StallError as e:
                log(f"{' '.join(words[1:])}: {e}")
                continue
            except OSError as e:
                log(f"QEMU closed the port: {e}")
                return
            log(f"{' '.join(words[1:])}: {len(frames)} frames sent{how}")
        time.sleep(0.1)


if __name__ == "__main__":
    main()
