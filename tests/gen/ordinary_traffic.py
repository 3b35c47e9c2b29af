#!/usr/bin/env python3
"""ordinary_traffic.py OUT.pcap [SEED] - a capture of ordinary network
traffic that is none of our five protocols, to prove the heuristics claim
none of it (issue 20).

Written by hand from the public layouts of each protocol (RFC 1035 DNS,
RFC 5905 NTP, SNMPv2c BER, RFC 2131 DHCP, RFC 3261 SIP, RFC 3550 RTP,
RFC 1350 TFTP, RFC 5424 syslog, RFC 5389 STUN, RFC 6762 mDNS, RFC 1002
NetBIOS name service, RFC 9000 QUIC long headers), plus random,
zero-filled, small-first-byte and little-endian-length-prefixed datagrams
and "NL"-prefixed garbage, and TCP streams (HTTP, a TLS ClientHello, SSH,
SMTP, random bytes, "NL"-prefixed garbage), over IPv4 and IPv6, on the
protocols' standard ports and on random high ports, never on the game
protocols' own (DNP 3413, OpenTTD 3979, EOUDP 8082, OpenDrakan 27046).
Ethernet, classic pcap, microseconds; deterministic for a seed.
"""
import random
import struct
import sys

GAME_PORTS = {3413, 3979, 3978, 8082, 27046}


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


class Writer:
    def __init__(self, path):
        self.f = open(path, "wb")
        self.f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        self.t = 1795000000 * 1000000

    def frame(self, l3, v6):
        eth = b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01" + (b"\x86\xdd" if v6 else b"\x08\x00")
        data = eth + l3
        self.t += 1000
        self.f.write(struct.pack("<IIII", self.t // 1000000, self.t % 1000000, len(data), len(data)))
        self.f.write(data)

    def ip(self, proto, src, dst, l4, v6):
        if v6:
            return struct.pack("!IHBB", 0x60000000, len(l4), proto, 64) + src + dst + l4
        h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 0, 0x4000, 64, proto, 0, src, dst)
        return h[:10] + struct.pack("!H", csum(h)) + h[12:] + l4

    def udp(self, src, dst, sport, dport, payload, v6=False):
        l4 = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
        self.frame(self.ip(17, src, dst, l4, v6), v6)

    def tcp(self, src, dst, sport, dport, seq, ack, flags, payload=b"", v6=False):
        l4 = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0) + payload
        self.frame(self.ip(6, src, dst, l4, v6), v6)

    def stream(self, src, dst, sport, dport, chunks, v6=False):
        """a whole TCP connection: handshake, the client's chunks, the
        server's answer chunks interleaved (odd ones), FIN"""
        cs, ss = 1000, 5000
        self.tcp(src, dst, sport, dport, cs, 0, 0x02, v6=v6)
        self.tcp(dst, src, dport, sport, ss, cs + 1, 0x12, v6=v6)
        cs += 1
        ss += 1
        self.tcp(src, dst, sport, dport, cs, ss, 0x10, v6=v6)
        for i, c in enumerate(chunks):
            if i % 2 == 0:
                self.tcp(src, dst, sport, dport, cs, ss, 0x18, c, v6=v6)
                cs += len(c)
            else:
                self.tcp(dst, src, dport, sport, ss, cs, 0x18, c, v6=v6)
                ss += len(c)
        self.tcp(src, dst, sport, dport, cs, ss, 0x11, v6=v6)
        self.tcp(dst, src, dport, sport, ss, cs + 1, 0x11, v6=v6)


def main():
    out = sys.argv[1]
    rnd = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    w = Writer(out)
    a4, b4 = bytes([192, 0, 2, 10]), bytes([198, 51, 100, 20])
    a6 = bytes.fromhex("20010db8000000000000000000000010")
    b6 = bytes.fromhex("20010db8000000000000000000000020")

    def high():
        while True:
            p = rnd.randint(1024, 65535)
            if p not in GAME_PORTS:
                return p

    def rb(n):
        return bytes(rnd.getrandbits(8) for _ in range(n))

    def name(labels):
        return b"".join(bytes([len(l)]) + l for l in labels) + b"\0"

    dns_q = lambda txid, qname, qtype: struct.pack("!HHHHHH", txid, 0x0100, 1, 0, 0, 0) + name(qname) + struct.pack("!HH", qtype, 1)
    udp_payloads = []  # (standard port, payload)
    for i in range(20):
        q = dns_q(rnd.getrandbits(16), [b"www", b"example", b"org"], rnd.choice([1, 28, 15, 16]))
        udp_payloads.append((53, q))
        ans = bytearray(q)
        ans[2:4] = b"\x81\x80"
        ans[6:8] = b"\x00\x01"
        ans += b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 300, 4) + bytes([93, 184, 216, 34])
        udp_payloads.append((53, bytes(ans)))
    for i in range(10):  # NTP client and server
        udp_payloads.append((123, bytes([0x23, 0, 6, 0xEC]) + bytes(36) + rb(8)))
        udp_payloads.append((123, bytes([0x24, 2, 6, 0xE9]) + rb(44)))
    snmp = bytes.fromhex("302602010104067075626c6963a0190204") + rb(4) + bytes.fromhex(
        "020100020100300b300906052b060102010500")
    udp_payloads += [(161, snmp)] * 3
    for i in range(5):  # DHCP discover
        d = struct.pack("!BBBBIHH4s4s4s4s16s", 1, 1, 6, 0, rnd.getrandbits(32), 0, 0x8000,
                        bytes(4), bytes(4), bytes(4), bytes(4), b"\x02\x00\x00\x00\x00\x01" + bytes(10))
        d += bytes(192) + bytes([99, 130, 83, 99]) + bytes([53, 1, 1, 255])
        udp_payloads.append((67, d))
    sip = (b"INVITE sip:bob@example.org SIP/2.0\r\nVia: SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK776asdhds\r\n"
           b"Max-Forwards: 70\r\nTo: Bob <sip:bob@example.org>\r\nFrom: Alice <sip:alice@example.org>;tag=1928301774\r\n"
           b"Call-ID: a84b4c76e66710\r\nCSeq: 314159 INVITE\r\nContent-Length: 0\r\n\r\n")
    udp_payloads += [(5060, sip), (5060, b"SIP/2.0 100 Trying\r\nCSeq: 314159 INVITE\r\nContent-Length: 0\r\n\r\n")]
    seq, ts, ssrc = rnd.getrandbits(16), rnd.getrandbits(32), rnd.getrandbits(32)
    for i in range(30):  # RTP, PCMU
        udp_payloads.append((0, struct.pack("!BBHII", 0x80, 0, (seq + i) & 0xFFFF, (ts + 160 * i) & 0xFFFFFFFF, ssrc) + rb(160)))
    udp_payloads += [(69, b"\x00\x01boot.img\x00octet\x00"), (69, b"\x00\x03\x00\x01" + rb(512)), (69, b"\x00\x04\x00\x01")]
    udp_payloads += [(514, b"<34>1 2026-11-23T10:00:00.000Z host app 1234 ID47 - message %d" % i) for i in range(5)]
    for i in range(5):  # STUN binding request and response
        udp_payloads.append((3478, struct.pack("!HHI", 0x0001, 0, 0x2112A442) + rb(12)))
        udp_payloads.append((3478, struct.pack("!HHI", 0x0101, 12, 0x2112A442) + rb(12) +
                             struct.pack("!HHBBH", 0x0020, 8, 0, 1, rnd.getrandbits(16)) + rb(4)))
    udp_payloads += [(5353, dns_q(0, [b"_services", b"_dns-sd", b"_udp", b"local"], 12))] * 3
    nb = struct.pack("!HHHHHH", rnd.getrandbits(16), 0x0110, 1, 0, 0, 0) + b"\x20" + b"CKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" + b"\0" + struct.pack("!HH", 0x20, 1)
    udp_payloads += [(137, nb)] * 3
    for i in range(10):  # QUIC long headers (Initial), random connection ids
        udp_payloads.append((443, bytes([0xC0 | rnd.getrandbits(2)]) + b"\x00\x00\x00\x01" + b"\x08" + rb(8) + b"\x08" + rb(8) + b"\x00" + b"\x44\xd0" + rb(1200)))
    for n in list(range(1, 65)) + [100, 200, 512, 1200, 1400]:
        udp_payloads.append((0, rb(n)))                       # random
        udp_payloads.append((0, bytes(n)))                    # zero-filled
        udp_payloads.append((0, bytes([rnd.randint(0, 15)]) + rb(n - 1)))        # small first byte
        if n >= 2:
            udp_payloads.append((0, struct.pack("<H", n - 2) + rb(n - 2)))       # LE length, then data
            udp_payloads.append((0, struct.pack("<H", n) + rb(n - 2)))           # LE length counting itself
        if n >= 3:
            udp_payloads.append((0, b"NL" + rb(n - 2)))                          # "NL" and garbage
    for i, (port, payload) in enumerate(udp_payloads):
        v6 = i % 3 == 0
        src, dst = (a6, b6) if v6 else (a4, b4)
        dport = port if port and i % 2 == 0 else high()
        w.udp(src, dst, high(), dport, payload, v6)
    # TCP
    http = [b"GET /index.html HTTP/1.1\r\nHost: www.example.org\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 20\r\n\r\n<html>hello</html>\r\n"]
    tls = [b"\x16\x03\x01\x00\xc8\x01\x00\x00\xc4\x03\x03" + rb(32) + b"\x20" + rb(32) + b"\x00\x08\x13\x01\x13\x02\x13\x03\x00\xff\x01\x00" + rb(120),
           b"\x16\x03\x03\x00\x7a\x02\x00\x00\x76\x03\x03" + rb(118), b"\x17\x03\x03\x00\x40" + rb(64)]
    ssh = [b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n", b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n",
           struct.pack("!IB", 500, 6) + b"\x14" + rb(498)]
    smtp = [b"EHLO client.example.org\r\n", b"220 mail.example.org ESMTP Postfix\r\n", b"MAIL FROM:<a@example.org>\r\n",
            b"250 2.1.0 Ok\r\n", b"QUIT\r\n", b"221 2.0.0 Bye\r\n"]
    streams = [(80, http), (443, tls), (22, ssh), (25, smtp)]
    for i in range(6):
        streams.append((0, [rb(rnd.randint(1, 1400)) for _ in range(4)]))
        streams.append((0, [b"NL" + rb(rnd.randint(2, 200)) for _ in range(3)]))
        streams.append((0, [b"NL\x00" + bytes([rnd.randint(0, 255)]) + rb(rnd.randint(0, 100))]))
        streams.append((0, [struct.pack("<H", n) + rb(n - 2) for n in (40, 200, 3)]))
    for i, (port, chunks) in enumerate(streams):
        for v6 in (False, True):
            src, dst = (a6, b6) if v6 else (a4, b4)
            w.stream(src, dst, high(), port if port and not v6 else high(), chunks, v6)
    w.f.close()


if __name__ == "__main__":
    main()
