#!/usr/bin/env python3
"""The resegmented captures (tiny, reordered and retransmitted TCP pieces of
the real OpenTTD join) are what tests/gen/resegment.py writes, and pcaptool
finds in them exactly the PDUs of the original, in the same order:
openttd-gen-resegmented.pcap never delays a PDU start,
openttd-gen-resegmented-any.pcap swaps pieces anywhere (a PDU start behind
the piece after it, the stream at a PDU boundary). Then every real TCP
capture (OpenTTD, GNE, OpenDrakan) resegmented anywhere with two more seeds
gives its original's PDUs. (plugin_vs_pcaptool checks that tshark, with
tcp.reassemble_out_of_order, finds the same as pcaptool in the committed
ones.)

Usage: resegment_check.py PCAPTOOL CAPTURES_DIR
"""
import filecmp
import json
import os
import re
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
pcaptool, captures = sys.argv[1], sys.argv[2]
original = os.path.join(captures, "openttd-13.0-join.pcap")
resegmented = os.path.join(captures, "openttd-gen-resegmented.pcap")

GEN = os.path.join(here, "gen", "resegment.py")
failed = False


# what resegmenting changes by design: frame numbers (a PDU completes in
# another frame) and times (each piece a microsecond after the one before)
FRAME_FIELDS = {"dnp.types_from", "dnp.resend_of", "dnp.ack.acked_in"}


def stable(fields):
    return {k: v for k, v in fields.items()
            if "frame" not in k and k not in FRAME_FIELDS and not any(isinstance(x, float) for x in v)}


def summary(text):
    """a GNE ping reply's summary carries its RTT: a time"""
    return re.sub(r" \(RTT [0-9.]+ ms\)", "", text)


def pdus(path, args=()):
    """the PDU records in order, and pcaptool's own transport records
    (tcp.*: where in the stream they land may differ) as a sorted list"""
    out = subprocess.run([pcaptool, "decode", "--format", "json", "--fail-on", "never", *args, path],
                         capture_output=True, text=True, check=True).stdout
    recs = [json.loads(l) for l in out.splitlines()]
    for r in recs:
        r["fields"] = stable(r["fields"])
    own = sorted(json.dumps([r["summary"], r["findings"]]) for r in recs if r["proto"] == "tcp")
    return [(o["proto"], summary(o["summary"]), o["fields"], o["findings"]) for o in recs if o["proto"] != "tcp"], own


def same(name, original, resegmented, args=()):
    global failed
    (a, a_own), (b, b_own) = pdus(original, args), pdus(resegmented, args)
    if a != b or a_own != b_own:
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                print("FAIL %s: PDU %d differs:\n  original    %s\n  resegmented %s" % (name, i, x[:2], y[:2]))
                break
        print("FAIL %s: %d PDUs in the original, %d resegmented; transport records %s / %s"
              % (name, len(a), len(b), a_own, b_own))
        failed = True
    else:
        print("ok %s: %d PDUs, the same as the original's" % (name, len(a)))


with tempfile.TemporaryDirectory() as tmp:
    for args, name in ((["1"], "openttd-gen-resegmented.pcap"), (["2", "any"], "openttd-gen-resegmented-any.pcap")):
        again = os.path.join(tmp, "again.pcap")
        subprocess.run([sys.executable, GEN, original, again] + args, check=True)
        if not filecmp.cmp(again, os.path.join(captures, name), shallow=False):
            print("FAIL: captures/%s is not what resegment.py writes now" % name)
            sys.exit(1)
        same(name, original, os.path.join(captures, name))
    # GNE has no port of its own: its heuristic needs the first segment to
    # hold a whole NL header, which 1-7-byte pieces do not; the ports tell
    for real, args in (("openttd-13.0-join.pcap", ()),
                       ("gne-exhello_unrel.pcap", ("--port", "gne=5001")),
                       ("gne-exping_ping.pcap", ("--port", "gne=5006")),
                       ("gne-expong_game.pcap", ("--port", "gne=5008")),
                       ("gne-refused_wronggame.pcap", ("--port", "gne=5004")),
                       ("opendrakan-reference-master.pcap", ())):
        for seed in ("3", "4"):
            cut = os.path.join(tmp, "%s-%s.pcap" % (real, seed))
            subprocess.run([sys.executable, GEN, os.path.join(captures, real), cut, seed, "any"], check=True)
            same("%s resegmented anywhere (seed %s)" % (real, seed), os.path.join(captures, real), cut, args)
sys.exit(1 if failed else 0)
