#!/usr/bin/env python3
"""The resegmented capture (tiny, reordered and retransmitted TCP pieces of
the real OpenTTD join) is what tests/gen/resegment.py writes, and pcaptool
finds in it exactly the PDUs of the original, in the same order.
(plugin_vs_pcaptool checks that tshark finds the same as pcaptool.)

Usage: resegment_check.py PCAPTOOL CAPTURES_DIR
"""
import filecmp
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
pcaptool, captures = sys.argv[1], sys.argv[2]
original = os.path.join(captures, "openttd-13.0-join.pcap")
resegmented = os.path.join(captures, "openttd-gen-resegmented.pcap")

with tempfile.TemporaryDirectory() as tmp:
    again = os.path.join(tmp, "again.pcap")
    subprocess.run([sys.executable, os.path.join(here, "gen", "resegment.py"), original, again, "1"],
                   check=True)
    if not filecmp.cmp(again, resegmented, shallow=False):
        print("FAIL: captures/openttd-gen-resegmented.pcap is not what resegment.py writes now")
        sys.exit(1)


def pdus(path):
    out = subprocess.run([pcaptool, "decode", "--format", "json", path], capture_output=True,
                         text=True, check=True).stdout
    return [(o["proto"], o["summary"], o["fields"], o["findings"])
            for o in map(json.loads, out.splitlines())]


a, b = pdus(original), pdus(resegmented)
if a != b:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            print("FAIL: PDU %d differs:\n  original    %s\n  resegmented %s" % (i, x[:2], y[:2]))
            break
    print("FAIL: %d PDUs in the original, %d in the resegmented capture" % (len(a), len(b)))
    sys.exit(1)
print("ok: %d PDUs, the same in the original and the resegmented capture" % len(a))
