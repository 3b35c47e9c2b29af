#!/usr/bin/env python3
"""hostile_peer.py - peers that no conformance verdict may call conforming, for
pcaptool conform's and replay's tests (test tooling, not a product). None
speaks a protocol; each only misbehaves in one way that silence-, echo- or
volume-based checks could take for conforming behaviour.

  hostile_peer.py udp|tcp HOST PORT MODE [HEX ...]
  MODE  echo         send back every datagram (UDP) or every byte (TCP)
        once         UDP: answer the first datagram with HEX, then close the
                     port (every later datagram draws ICMP port unreachable)
        flood        UDP: to every address a datagram came from (the last 8),
                     send the HEX datagrams round and round (about 20,000 a
                     second in all, for at most 60 s), answering nothing
        never-read   TCP: accept, never read, never close
        reset        TCP: accept, then reset the connection at once
        udp-closed   TCP: accept and answer nothing, with no UDP socket on the
                     same port (a link's datagrams draw port unreachable)

PORT 0 takes a free port; the port taken is printed as a line on standard
output once the peer listens. It runs until killed, and exits by itself
after 120 s."""
import select
import socket
import struct
import sys
import time

END = time.monotonic() + 120


def udp(host, port, mode, canned):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((host, port))
    print(s.getsockname()[1], flush=True)
    targets = []
    sent = 0
    start = time.monotonic()
    while time.monotonic() < END:
        wait = 0 if mode == "flood" and targets else 0.5
        r, _, _ = select.select([s], [], [], wait)
        if r:
            try:
                d, a = s.recvfrom(65536)
            except OSError:
                continue
            if mode == "echo":
                s.sendto(d, a)
            elif mode == "once":
                s.sendto(canned[0], a)
                s.close()
                time.sleep(END - time.monotonic())
                return
            elif mode == "flood" and a not in targets:
                targets = (targets + [a])[-8:]
        if mode == "flood" and targets and time.monotonic() - start < 60:
            for _ in range(20):
                try:
                    s.sendto(canned[sent % len(canned)], targets[sent % len(targets)])
                except OSError:
                    pass
                sent += 1
            time.sleep(0.001)


def tcp(host, port, mode):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, port))
    s.listen(16)
    print(s.getsockname()[1], flush=True)
    held = []
    while time.monotonic() < END:
        r, _, _ = select.select([s] + (held if mode == "echo" else []), [], [], 0.5)
        for x in r:
            if x is s:
                c, _ = s.accept()
                if mode == "reset":
                    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    c.close()
                elif mode == "never-read":
                    c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                    held.append(c)
                else:
                    held.append(c)
            else:
                try:
                    d = x.recv(65536)
                except OSError:
                    d = b""
                if d:
                    x.sendall(d)
                else:
                    held.remove(x)
                    x.close()


def main():
    if len(sys.argv) < 5:
        sys.exit("usage: hostile_peer.py udp|tcp HOST PORT MODE [HEX ...]")
    kind, host, port, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    canned = [bytes.fromhex(h) for h in sys.argv[5:]]
    modes = {"udp": ("echo", "once", "flood"), "tcp": ("echo", "never-read", "reset", "udp-closed")}
    if mode not in modes.get(kind, ()) or (mode in ("once", "flood") and not canned):
        sys.exit("hostile_peer.py: no mode %s %s (or it needs HEX datagrams)" % (kind, mode))
    udp(host, port, mode, canned) if kind == "udp" else tcp(host, port, mode)


main()
