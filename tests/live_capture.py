#!/usr/bin/env python3
"""live_capture.py PCAPTOOL CAPTURES - pcaptool on a live interface (issue 19):
capturing on the loopback interface with a BPF filter on ports this test
picks, while the test sends the datagrams of a real DNP capture (the
denetwork example, read here from its pcap bytes: Ethernet, IPv4, UDP: two
clients of one server) from a "server" socket and a socket per client, in
the recorded order.

- decode -i lo -f 'udp port P' -c 53 -w FILE stops after the 53 PDUs (datagrams),
  and its records are those of decoding the saved FILE (pcapng), and carry
  the recorded capture's PDUs (same summaries and commands);
- validate -i lo -a duration:1 stops by itself, with a verdict;
- SIGINT ends a live decode with what was captured printed, exit 130.
Needs root or CAP_NET_RAW: exits 77 (skipped) without."""
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time

from checks import check, finish

PCAPTOOL, CAPS = sys.argv[1], sys.argv[2]
if os.geteuid() != 0:
    print("SKIP: a live capture needs root")
    sys.exit(77)
CAPTURE = os.path.join(CAPS, "dnp-denetwork-example.pcap")
work = tempfile.mkdtemp(prefix="live.")


def datagrams(path):
    """(client port, from_server, payload) of each UDP datagram of a
    little-endian Ethernet pcap, the server being port 3413"""
    data = open(path, "rb").read()
    assert struct.unpack_from("<I", data)[0] == 0xa1b2c3d4 and struct.unpack_from("<I", data, 20)[0] == 1
    off, out = 24, []
    while off + 16 <= len(data):
        caplen = struct.unpack_from("<I", data, off + 8)[0]
        frame = data[off + 16:off + 16 + caplen]
        off += 16 + caplen
        ip = frame[14:]
        if struct.unpack_from(">H", frame, 12)[0] != 0x0800 or ip[9] != 17:
            continue
        ihl = (ip[0] & 15) * 4
        sport, dport, ulen = struct.unpack_from(">HHH", ip, ihl)
        out.append((dport if sport == 3413 else sport, sport == 3413, ip[ihl + 8:ihl + ulen]))
    return out


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    return s


def start(args):
    """pcaptool with args; returns once it says it captures"""
    proc = subprocess.Popen([PCAPTOOL, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = proc.stderr.readline().decode()
    if not line.startswith("Capturing on 'lo'"):
        proc.kill()
        raise SystemExit("FAIL: pcaptool did not start capturing: %s%s" % (line, proc.stderr.read().decode()))
    return proc


def send_all(server, grams):
    """the datagrams in order: the server's from server, each recorded
    client's from a socket of its own"""
    sport = server.getsockname()[1]
    clients = {}
    for cport, from_server, payload in grams:
        if cport not in clients:
            clients[cport] = free_port()
        client = clients[cport]
        if from_server:
            server.sendto(payload, client.getsockname())
        else:
            client.sendto(payload, ("127.0.0.1", sport))
    for c in clients.values():
        c.close()


def strip(recs, *keys):
    for r in recs:
        for k in keys:
            r.pop(k, None)
    return recs


grams = datagrams(CAPTURE)
recorded = [json.loads(l) for l in subprocess.run([PCAPTOOL, "decode", "--format", "json", CAPTURE],
                                                   capture_output=True, text=True).stdout.splitlines()]
check("the recorded capture has %d datagrams and as many PDUs" % len(grams), len(grams) == len(recorded) == 53)

# ---- decode -i lo -c N -w FILE ----------------------------------------------
server = free_port()
port = server.getsockname()[1]
saved = os.path.join(work, "saved.pcapng")
proc = start(["decode", "-i", "lo", "-f", "udp port %d" % port, "-c", str(len(grams)), "-w", saved,
              "--format", "json", "-l", "--port", "dnp=%d" % port])
send_all(server, grams)
try:
    out, err = proc.communicate(timeout=60)
except subprocess.TimeoutExpired:
    proc.kill()
    out, err = proc.communicate()
live = [json.loads(l) for l in out.decode().splitlines()]
check("decode -i lo -c 53 stops after 53 PDUs (53 packets), exit 0", proc.returncode == 0 and "53 packets captured" in err.decode(),
      (proc.returncode, err.decode()))
again = subprocess.run([PCAPTOOL, "decode", "--format", "json", "--port", "dnp=%d" % port, saved],
                       capture_output=True, text=True)
from_file = [json.loads(l) for l in again.stdout.splitlines()]
check("the -w file (pcapng) decodes to the same records as the live capture",
      again.returncode == 0 and strip(from_file, "file") == strip(live, "file") and len(live) == 53,
      (again.returncode, len(from_file), len(live), again.stderr))
info = subprocess.run(["capinfos", saved], capture_output=True, text=True).stdout
check("the -w file is a pcapng that Wireshark's capinfos reads", "pcapng" in info and "Number of packets:   53" in info
      or "Number of packets = 53" in info, info)


def pdu_view(recs):
    """what the payloads alone decide whatever the pace they were sent at
    (findings may depend on it: a resend's interval): summary, command"""
    return [(r["summary"], r["fields"].get("dnp.command")) for r in recs]


check("the live records carry the recording's PDUs", pdu_view(live) == pdu_view(recorded),
      [a for a, b in zip(pdu_view(live), pdu_view(recorded)) if a != b][:3])
server.close()

# ---- validate -i lo -a duration:1 ---------------------------------------------
server = free_port()
port = server.getsockname()[1]
t0 = time.monotonic()
proc = start(["validate", "-i", "lo", "-f", "udp port %d" % port, "-a", "duration:1", "--require-pdus"])
out, err = proc.communicate(timeout=30)
took = time.monotonic() - t0
check("validate -i lo -a duration:1: stops by itself within seconds, nothing seen fails --require-pdus",
      proc.returncode == 1 and took < 20 and "no PDUs of any protocol" in out.decode(), (proc.returncode, took, out, err))
server.close()

# ---- SIGINT ends a live decode with what was captured -----------------------
server = free_port()
port = server.getsockname()[1]
proc = start(["decode", "-i", "lo", "-f", "udp port %d" % port, "--format", "json", "-l", "--port", "dnp=%d" % port])
send_all(server, grams[:10])
got = []
deadline = time.monotonic() + 30
while len(got) < 10 and time.monotonic() < deadline:
    line = proc.stdout.readline()
    if not line:
        break
    got.append(json.loads(line))
proc.send_signal(2)
out, err = proc.communicate(timeout=30)
got += [json.loads(l) for l in out.decode().splitlines()]
check("decode -i lo stopped by SIGINT: exit 130, the 10 PDUs sent printed",
      proc.returncode == 130 and pdu_view(got[:10]) == pdu_view(recorded[:10]), (proc.returncode, len(got), err))
server.close()

finish()
