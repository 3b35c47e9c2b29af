#!/usr/bin/env python3
"""stats_check.py PCAPTOOL CAPTURES

pcaptool stats against values counted independently: PDUs and bytes per
conversation from tshark's UDP fields (no plugin needed), and measures
checked by hand from the decoded captures (the ack and ping times in the
comments are the capture's timestamps subtracted by hand).
"""
import json
import os
import subprocess
import sys

pcaptool, captures = sys.argv[1:3]
failures = []


def check(name, ok, detail=""):
    print(("ok " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def stats(*args):
    r = subprocess.run([pcaptool, "stats", "--format", "json"] + list(args), capture_output=True, text=True)
    return r.returncode, [json.loads(l) for l in r.stdout.splitlines()]


dnp = os.path.join(captures, "dnp-denetwork-example.pcap")
rc, recs = stats(dnp)
check("dnp-exit-0", rc == 0, str(rc))
check("dnp-two-conversations", len(recs) == 2, str(len(recs)))
# tshark's own count of the datagrams and UDP payload bytes of each conversation
out = subprocess.run(["tshark", "-r", dnp, "-T", "fields", "-e", "udp.srcport", "-e", "udp.dstport",
                      "-e", "udp.length", "-e", "frame.time_epoch"], capture_output=True, text=True).stdout
for rec in recs:
    port = int(rec["b" if rec["a"].endswith(":3413") else "a"].rsplit(":", 1)[1])
    rows = [l.split("\t") for l in out.splitlines() if port in (int(l.split("\t")[0]), int(l.split("\t")[1]))]
    check("dnp-%d-pdus" % port, rec["pdus"] == len(rows), "%d vs %d" % (rec["pdus"], len(rows)))
    payload = sum(int(r[2]) - 8 for r in rows)
    check("dnp-%d-bytes" % port, rec["bytes"] == payload, "%d vs %d" % (rec["bytes"], payload))
    span = float(rows[-1][3]) - float(rows[0][3])
    check("dnp-%d-duration" % port, abs(rec["duration"] - span) < 1e-6, "%f vs %f" % (rec["duration"], span))
first = next(r for r in recs if r["b"].endswith(":39833") or r["a"].endswith(":39833"))
# frames 5, 7, 17, 49 ack frames 3, 4, 15, 48: 102, 117, 122 and 1049 microseconds
ack = first["measures"]["dnp.ack.time"]
check("dnp-ack-times", ack["n"] == 4 and abs(ack["min"] - 0.000102) < 1e-9 and
      abs(ack["median"] - 0.0001195) < 1e-9 and abs(ack["max"] - 0.001049) < 1e-9, str(ack))
check("dnp-types", first["types"].get("Reliable ack") == 4 and first["types"].get("Link update") == 16 and
      sum(first["types"].values()) == first["pdus"], str(first["types"]))
check("dnp-divergence-counted", first["findings"] == {"dnp.divergence.update_layout": 1}, str(first["findings"]))

# GNE exping: five ping replies, RTTs 0.244, 0.226, 0.115, 0.116 and 0.128 ms
rc, recs = stats(os.path.join(captures, "gne-exping_ping.pcap"))
rtt = recs[0]["measures"]["gne.ping.rtt"] if recs else {}
check("gne-rtt", rc == 0 and rtt.get("n") == 5 and abs(rtt["min"] - 0.000115) < 1e-9 and
      abs(rtt["median"] - 0.000128) < 1e-9 and abs(rtt["max"] - 0.000244) < 1e-9, str(rtt))

# OpenTTD join: eight CLIENT_ACKs, each one frame behind the latest SERVER_FRAME
rc, recs = stats(os.path.join(captures, "openttd-13.0-join.pcap"))
lag = recs[0]["measures"]["openttd.ack_lag"] if recs else {}
check("openttd-lag", rc == 0 and lag == {"n": 8, "min": 1, "median": 1, "max": 1}, str(lag))

# EOUDP: one important packet resent (eoudp.resent) in the lost-acks capture
rc, recs = stats(os.path.join(captures, "eoudp-gen-lost-acks.pcap"))
check("eoudp-resends", rc == 0 and recs[0]["findings"].get("eoudp.resent") == 1, str(recs))

# text output and an unreadable file
r = subprocess.run([pcaptool, "stats", dnp, os.path.join(captures, "no-such.pcap")], capture_output=True, text=True)
check("text-and-unreadable", r.returncode == 2 and "2 conversations" in r.stdout and
      "dnp.ack.time (Ack time): 4, min 0.000102 s" in r.stdout and len(r.stderr.strip().splitlines()) == 1,
      r.stdout + r.stderr)

print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
