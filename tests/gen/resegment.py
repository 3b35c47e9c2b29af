#!/usr/bin/env python3
"""Re-cut the TCP data of an OpenTTD capture into tiny pieces, reorder some
and retransmit some, to test reassembly in both front ends.

Usage: resegment.py IN.pcap OUT.pcap [SEED [any]]

Reads a classic pcap of Ethernet/IPv4/TCP. Each data segment becomes pieces
of 1 to 7 bytes. Two neighbouring pieces are swapped now and then, but never
one that starts an OpenTTD packet (a PDU start arriving late is a loss to a
receiver that has no later PDU waiting: Wireshark and pcaptool then both
resume at the next segment). Some pieces are sent twice, some again merged
with the following piece (an overlapping retransmission). Segments without
data (handshake, acks, FIN) are kept as they are. Deterministic for a seed.

With "any", pieces are swapped wherever the dice say, PDU starts included
(a PDU start arriving after the piece behind it, the stream sitting at a
PDU boundary), and the stream may be of any TCP protocol: a receiver must
keep the early piece until the late one comes (Wireshark with
tcp.reassemble_out_of_order, pcaptool).
"""
import random
import struct
import sys


def read_pcap(path):
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    assert magic == 0xA1B2C3D4, "classic little-endian microsecond pcap expected"
    header = data[:24]
    off, packets = 24, []
    while off + 16 <= len(data):
        sec, usec, caplen, origlen = struct.unpack("<IIII", data[off:off + 16])
        packets.append((sec, usec, data[off + 16:off + 16 + caplen]))
        off += 16 + caplen
    return header, packets


def checksum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def rebuild(frame, seq, payload, fin=True):
    """the same Ethernet/IPv4/TCP frame with another sequence number and
    payload (and without FIN unless fin: only the last piece of a segment
    ends the stream)"""
    ihl = (frame[14] & 0x0F) * 4
    tcp_off = 14 + ihl
    thl = (frame[tcp_off + 12] >> 4) * 4
    ip = bytearray(frame[14:tcp_off])
    tcp = bytearray(frame[tcp_off:tcp_off + thl])
    struct.pack_into("!H", ip, 2, ihl + thl + len(payload))
    struct.pack_into("!H", ip, 10, 0)
    struct.pack_into("!H", ip, 10, checksum(bytes(ip)))
    struct.pack_into("!I", tcp, 4, seq)
    if not fin:
        tcp[13] &= ~0x01
    struct.pack_into("!H", tcp, 16, 0)  # TCP checksum left zero (not verified by default)
    return frame[:14] + bytes(ip) + bytes(tcp) + payload


def pdu_starts(payload, first):
    """offsets in this segment where OpenTTD packets start, the first known"""
    starts, off = set(), first
    while off is not None and off < len(payload):
        starts.add(off)
        if off + 2 > len(payload):
            break
        size = payload[off] | payload[off + 1] << 8
        if size < 3:
            break
        off += size
    return starts, (off - len(payload) if off is not None else None)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    anywhere = len(sys.argv) > 4 and sys.argv[4] == "any"
    header, packets = read_pcap(src)
    out = []
    carry = {}  # per direction: offset of the next PDU start in the next segment
    for sec, usec, frame in packets:
        t = sec * 1000000 + usec
        if frame[23] != 6:  # not TCP: as it is
            out.append((t, frame))
            continue
        ihl = (frame[14] & 0x0F) * 4
        tcp_off = 14 + ihl
        thl = (frame[tcp_off + 12] >> 4) * 4
        payload = frame[tcp_off + thl:]
        if not payload:
            out.append((t, frame))
            continue
        key = frame[26:30] + frame[tcp_off:tcp_off + 2]
        seq = struct.unpack("!I", frame[tcp_off + 4:tcp_off + 8])[0]
        if anywhere:
            starts = set()
        else:
            starts, nxt = pdu_starts(payload, carry.get(key, 0))
            carry[key] = nxt
        pieces, off = [], 0
        while off < len(payload):
            n = rnd.randint(1, 7)
            pieces.append((off, payload[off:off + n]))
            off += n
        # swap some neighbours, never moving a PDU start behind another piece
        # (unless anywhere)
        i = 0 if anywhere else 1
        while i + 1 < len(pieces):
            a, b = pieces[i], pieces[i + 1]
            if rnd.random() < 0.25 and a[0] not in starts and b[0] not in starts:
                pieces[i], pieces[i + 1] = b, a
                i += 2
            else:
                i += 1
        sent = []
        for j, (o, p) in enumerate(pieces):
            sent.append((o, p))
            r = rnd.random()
            if r < 0.1:
                sent.append((o, p))  # retransmission
            elif r < 0.15 and j + 1 < len(pieces) and pieces[j + 1][0] == o + len(p):
                sent.append((o, p + pieces[j + 1][1]))  # overlapping retransmission
        for k, (o, p) in enumerate(sent):
            out.append((t + k, rebuild(frame, (seq + o) & 0xFFFFFFFF, p, o + len(p) == len(payload))))
    with open(dst, "wb") as f:
        f.write(header)
        for t, frame in out:
            f.write(struct.pack("<IIII", t // 1000000, t % 1000000, len(frame), len(frame)))
            f.write(frame)


if __name__ == "__main__":
    main()
