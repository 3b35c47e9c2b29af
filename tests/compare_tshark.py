#!/usr/bin/env python3
"""Plugin versus pcaptool: both front ends must show the same PDUs with the
same fields, values and findings, frame by frame (every PDU and finding on
the frame Wireshark shows it on, also after TCP gaps; a pcaptool tcp.gap on
a frame where Wireshark says "previous segment not captured"), pcaptool's
outputs (JSON Lines, -V text, validate's JSON Lines) must list them in
frame order, and Wireshark must never call a frame malformed.

Usage: compare_tshark.py BUILD_DIR CAPTURE...

tshark runs through scripts/tshark-plugin.sh (as nobody when root, from a
fresh world-readable copy); this first checks that the plugin really loaded.
"""
import datetime
import decimal
import functools
import json
import math
import xml.etree.ElementTree as ET
import os
import re
import subprocess
import sys

PROTOS = ("dnp", "openttd", "gne", "eoudp", "opendrakan")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


HERE = os.path.dirname(os.path.abspath(__file__))
RUN_TSHARK = os.path.join(HERE, "..", "scripts", "tshark-plugin.sh")


class Tshark:
    """tshark with the built plugin, via scripts/tshark-plugin.sh (which
    drops root and copies the plugin and captures where nobody can read)."""

    def __init__(self, build):
        self.build = build

    def run(self, args):
        return subprocess.run(["bash", RUN_TSHARK, self.build] + args,
                              capture_output=True, text=True)

    def check_loaded(self):
        # one tshark for both: -G fields lists the protocols too ("P", name,
        # filter name), as -G protocols does (name, short name, filter name)
        r = self.run(["-G", "fields"])
        names = {line.split("\t")[2] for line in r.stdout.splitlines()
                 if line.startswith("P\t") and line.count("\t") >= 2}
        for p in PROTOS:
            if p not in names:
                fail("the plugin did not load: tshark -G fields has no protocol '%s'\n%s" % (p, r.stderr))
        noise = [l for l in r.stderr.splitlines() if "plugin" in l.lower() or "warn" in l.lower()]
        if noise:
            fail("loading the plugin printed warnings:\n" + "\n".join(noise))
        self.types = {}
        for line in r.stdout.splitlines():
            cols = line.split("\t")
            if cols[0] == "F" and cols[2].split(".")[0] in PROTOS:
                self.types[cols[2]] = cols[3]


# the finding table's groups (pcaptool findings, 4th column) as Wireshark's
# constants (epan/proto.h)
GROUPS = {"sequence": 0x02000000, "response_code": 0x03000000, "undecoded": 0x05000000,
          "malformed": 0x07000000, "protocol": 0x09000000, "comment": 0x0b000000}


@functools.lru_cache(maxsize=None)
def finding_groups(pcaptool):
    out = subprocess.run([pcaptool, "findings"], capture_output=True, text=True, check=True).stdout
    return {l.split("\t")[0]: l.split("\t")[3] for l in out.splitlines()}


def walk(node, fields, findings, state):
    """Collect a PDML element's fields of our protocols (their "show", in
    document order) and its expert codes."""
    for f in node.findall("field"):
        name = f.get("name", "")
        if name == "_ws.expert":
            group = next((int(g.get("show"), 0) for g in f.findall("field")
                          if g.get("name") == "_ws.expert.group"), None)
            for k in (c.get("name", "") for c in f.findall("field")):
                if not k.startswith("_ws."):
                    findings.append(k)
                    # the expert group Wireshark shows is the table's
                    want = state.get("groups", {}).get(k)
                    if want and group is not None and group != GROUPS[want]:
                        fail("%s: expert group %#x, the table says %s" % (k, group, want))
            continue
        if name in state["two_pass"]:  # links pcaptool, in one pass, cannot show
            continue
        if name.split(".")[0] in PROTOS and name in state["types"] and state["types"][name] != "FT_NONE":
            fields.setdefault(name, []).append(f.get("show"))
        walk(f, fields, findings, state)  # a subtree, under a valued item or not


def norm_ws(ftype, v):
    """tshark's text of a value (PDML's "show") -> comparable Python value."""
    if ftype in ("FT_UINT8", "FT_UINT16", "FT_UINT32", "FT_UINT64", "FT_INT8", "FT_INT16",
                 "FT_INT32", "FT_INT64", "FT_FRAMENUM"):
        return int(v, 0)
    if ftype == "FT_BOOLEAN":  # "1" / "0"; from Wireshark 4.4 on "True" / "False"
        return v == "True" if v in ("True", "False") else int(v, 0) != 0
    if ftype in ("FT_DOUBLE", "FT_FLOAT", "FT_RELATIVE_TIME"):
        return float(v)
    if ftype == "FT_BYTES":
        return v.replace(":", "")
    if ftype == "FT_ABSOLUTE_TIME":
        return abs_time(v)
    return v


MONTHS = {m: i + 1 for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
                                          "Nov", "Dec"))}


def abs_time(v):
    """tshark's text of an absolute time in UTC ("Nov 21, 2026 06:22:13.279216000 UTC",
    or ISO 8601 "2026-11-21T06:22:13.279216000Z") -> (seconds since the epoch, ns)"""
    m = re.match(r"^(\w{3}) +(\d+), (\d+) (\d+):(\d+):(\d+)\.(\d{9}) UTC$", v)
    if m:
        y, mo, d = int(m.group(3)), MONTHS[m.group(1)], int(m.group(2))
        hms, frac = m.group(4, 5, 6), m.group(7)
    else:
        m = re.match(r"^(\d+)-(\d+)-(\d+)[T ](\d+):(\d+):(\d+)\.(\d{9})Z?( UTC)?$", v)
        if not m:
            return v
        y, mo, d = (int(x) for x in m.group(1, 2, 3))
        hms, frac = m.group(4, 5, 6), m.group(7)
    days = (datetime.date(y, mo, d) - datetime.date(1970, 1, 1)).days
    return (days * 86400 + int(hms[0]) * 3600 + int(hms[1]) * 60 + int(hms[2]), int(frac))


def norm_pt(ftype, v):
    if ftype == "FT_ABSOLUTE_TIME":  # pcaptool's JSON: seconds since the epoch, 9 digits
        whole, _, frac = str(v).partition(".")
        return (int(whole), int((frac + "000000000")[:9]))
    if isinstance(v, decimal.Decimal) or ftype in ("FT_DOUBLE", "FT_FLOAT", "FT_RELATIVE_TIME"):
        return float(v)
    return v


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) and math.isnan(b):
            return True
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return a == b


# epan/proto.h ITEM_LABEL_LENGTH: the longest tree item text, NUL included
LABEL_MAX = 240


# per-capture options: (tshark's, pcaptool's)
OPTIONS = {
    "openttd-gen-resegmented.pcap": (["-o", "tcp.reassemble_out_of_order:TRUE"], []),
    "openttd-gen-resegmented-any.pcap": (["-o", "tcp.reassemble_out_of_order:TRUE"], []),
    "gne-gen-midstream.pcap": (["-d", "tcp.port==5105,gne"], ["--port", "gne=5105"]),
    # a malformed connection request: no heuristic claims what its decoder
    # calls malformed, so the port says it is GNE
    "gne-gen-malformed.pcap": (["-d", "tcp.port==5104,gne"], ["--port", "gne=5104"]),
    "eoudp-gen-text-numbering.pcap": (["-o", "eoudp.numbering:text"], ["--option", "eoudp.numbering=text"]),
    "opendrakan-gen-draft.pcap": (["-o", "opendrakan.variant:draft"], ["--option", "opendrakan.variant=draft"]),
    "opendrakan.bundle.bools_unpacked.pcap": (["-o", "opendrakan.profile:spec"], ["--profile", "spec"]),
    "dnp.link_update.type_mismatch.pcap": (["-o", "dnp.profile:spec"], ["--profile", "spec"]),
    "dnp.link_update.reference_layout.pcap": (["-o", "dnp.profile:spec"], ["--profile", "spec"]),
    "dnp.command.not_in_text.pcap": (["-o", "dnp.profile:spec"], ["--profile", "spec"]),
    "dnp.link_update.spec_layout.pcap": (["-o", "dnp.profile:reference"], ["--profile", "reference"]),
    "dnp.seq.reserved_65535.pcap": (["-o", "dnp.profile:reference"], ["--profile", "reference"]),
    "eoudp.header.not_text.pcap": (["-o", "eoudp.profile:spec"], ["--profile", "spec"]),
    "eoudp.timestamp.milliseconds.pcap": (["-o", "eoudp.profile:spec"], ["--profile", "spec"]),
    "eoudp.string.not_nul_terminated.pcap": (["-o", "eoudp.profile:spec"], ["--profile", "spec"]),
}


def options_of(capture):
    """(tshark's options, pcaptool's options) for a capture (OPTIONS, by its name)"""
    return OPTIONS.get(os.path.basename(capture), ([], []))


# Wireshark releases whose own TCP reassembly delivers other PDUs than 4.0
# and 4.4 on a capture: (first release, capture) -> the first frame where it
# parts ways (docs/wireshark.md says how). Frames before it are compared as
# everywhere; from it on, the release must still differ (fewer PDUs), so that
# the exception goes when the difference does.
RELEASE_CUTS = {((4, 6), "openttd-gen-resegmented-any.pcap"): 4371, ((4, 6), "openttd-gen-resegmented.pcap"): 4094}


def release_cut(tsh, capture):
    """the frame from which this release's tshark is not compared, or None"""
    if not hasattr(tsh, "release"):
        m = re.search(r"(\d+)\.(\d+)\.\d+", tsh.run(["--version"]).stdout)
        tsh.release = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    return next((cut for (since, name), cut in RELEASE_CUTS.items()
                 if tsh.release >= since and os.path.basename(capture) == name), None)


def in_frame_order(capture, what, frames):
    """frames (of records other than end-of-conversation findings, which
    come when their conversation ends) must never go back"""
    back = next(((a, b) for a, b in zip(frames, frames[1:]) if b < a), None)
    if back:
        fail("%s: %s out of frame order: frame %d, then frame %d" % (capture, what, back[0], back[1]))


def compare(tsh, pcaptool, capture):
    ws_args, pt_args = options_of(capture)
    # one PDML pass (two passes: findings about a frame known only at the
    # end of its conversation show from the second pass on) with only the
    # trees read here: the frame's, TCP's (its analysis), Wireshark's
    # "Malformed" and ours (a resegmented capture's whole PDML is 100 MB,
    # slow to parse). Its fields' "show" is what tshark -T json gives as
    # their values (the same 123 captures compared both ways, Wireshark 4.0)
    r = tsh.run(ws_args + ["-2", "-r", capture, "-T", "pdml", "-J",
                           " ".join(("frame", "tcp", "_ws.malformed") + PROTOS)])
    if r.returncode != 0:
        fail("%s: tshark -T pdml failed: %s" % (capture, r.stderr))
    if "dissector bug" in r.stderr.lower():
        fail("%s: dissector bug: %s" % (capture, r.stderr))
    ws = {}
    lost = set()  # frames Wireshark says follow bytes not captured
    state = {"types": tsh.types, "two_pass": two_pass_fields(pcaptool), "groups": finding_groups(pcaptool)}
    # what each PDU's tree item says ("OpenTTD game protocol, SUMMARY"):
    # the summary, with value names that may depend on the conversation
    ws_summaries = {}
    ws_labels = {}
    for pkt in ET.fromstring(r.stdout).iter("packet"):
        protos = pkt.findall("proto")
        num = next(int(f.get("show")) for f in pkt.iter("field") if f.get("name") == "frame.number")
        if any(f.get("name") == "tcp.analysis.lost_segment" for p in protos if p.get("name") == "tcp"
               for f in p.iter("field")):
            lost.add(num)
        ours = [p for p in protos if p.get("name") in PROTOS]
        pdus = []
        findings = []
        for p in ours:
            f, fi = {}, []
            walk(p, f, fi, state)
            pdus.append((f, fi))
            findings += fi
        # an exception in a dissector shows as a top-level "[Malformed Packet]"
        # with an expert info that is not one of ours; our own error findings
        # (group Malformed) sit inside our tree and are compared below
        malformed = [p for p in protos if p.get("name") == "_ws.malformed"]
        findings_extra = []
        for p in malformed:
            walk(p, {}, findings_extra, state)
        foreign = [f for f in findings + findings_extra if f.split(".")[0] not in PROTOS]
        # (a frame none of ours is in is another dissector's business: 4.6's
        # RTCP heuristic throws on random datagrams of the heuristic capture)
        if ours and (malformed or foreign):
            fail("%s: frame %d is Malformed in Wireshark: %s" % (capture, num, foreign))
        if pdus:
            ws[num] = pdus
            ws_summaries[num] = [p.get("showname", "") for p in ours]
            ws_labels[num] = [tree_labels(p, p.get("name"), 0) for p in ours]

    out = subprocess.run([pcaptool, "decode", "--format", "json", "--fail-on", "never"] + pt_args +
                         [capture], capture_output=True, text=True)
    if out.returncode != 0:
        fail("%s: pcaptool failed: %s" % (capture, out.stderr))
    pt = {}
    pt_summaries = {}
    late = []
    # numbers as decimals: an absolute time's nanoseconds are past a float's digits
    records = [json.loads(line, parse_float=decimal.Decimal) for line in out.stdout.splitlines()]
    in_frame_order(capture, "decode --format json", [o["frame"] for o in records if not o.get("end_of_conversation")])
    for o in records:
        if o["proto"] == "tcp":  # transport findings: Wireshark's TCP dissector has its own
            gaps = [f for f in o["findings"] if f["code"] == "tcp.gap"]
            if gaps and o["frame"] not in lost:
                fail("%s: tcp.gap on frame %d, where Wireshark sees no segment missing before it (it does on %s)"
                     % (capture, o["frame"], sorted(lost)[:10]))
            continue
        if o.get("end_of_conversation"):
            late.append(o)
            continue
        pt.setdefault(o["frame"], []).append((o["fields"], [f["code"] for f in o["findings"]]))
        pt_summaries.setdefault(o["frame"], []).append(o["summary"])
    # the plugin shows an end-of-conversation finding in the first PDU of
    # the frame it concerns
    for o in late:
        if o["frame"] not in pt:
            fail("%s: end-of-conversation finding for frame %d, which has no PDU" % (capture, o["frame"]))
        pt[o["frame"]][0][1].extend(f["code"] for f in o["findings"])

    # the tree, item by item: the same names, values and units
    text = subprocess.run([pcaptool, "decode", "-V", "--fail-on", "never"] + pt_args + [capture],
                          capture_output=True, text=True)
    pt_labels = text_labels(text.stdout)
    in_frame_order(capture, "decode -V", [int(l.split(" ", 1)[0]) for l in text.stdout.splitlines()
                                          if l[:1].isdigit() and " End of conversation" not in l])
    v = subprocess.run([pcaptool, "validate", "--format", "json", "--fail-on", "never"] + pt_args + [capture],
                       capture_output=True, text=True)
    in_frame_order(capture, "validate --format json",
                   [o["frame"] for o in map(json.loads, v.stdout.splitlines())
                    if o.get("record") == "finding" and not o.get("end_of_conversation")])
    cut = release_cut(tsh, capture)
    if cut:
        later = sum(len(v) for n, v in ws.items() if n >= cut), sum(len(v) for n, v in pt.items() if n >= cut)
        if later[0] >= later[1]:
            fail("%s: tshark %d.%d now delivers %d PDUs from frame %d on (pcaptool %d): drop its RELEASE_CUTS entry"
                 % (capture, tsh.release[0], tsh.release[1], later[0], cut, later[1]))
        print("note %s: tshark %d.%d compared up to frame %d only; from there it delivers %d PDUs, pcaptool %d "
              "(docs/wireshark.md)" % (os.path.basename(capture), tsh.release[0], tsh.release[1], cut - 1, later[0],
                                       later[1]))
        for d in (ws, pt, ws_labels, pt_labels, ws_summaries, pt_summaries):
            for n in [n for n in d if n >= cut]:
                del d[n]
    two_pass_names = set(two_pass_fields(pcaptool).values())
    nlabels = 0
    for num, pdus in ws_labels.items():
        ours = pt_labels.get(num, [])
        if len(ours) != len(pdus):
            continue  # the PDU counts are compared below
        for ws_pdu, pt_pdu in zip(pdus, ours):
            pt_pdu = [(d, l) for d, l in pt_pdu]
            # Wireshark shows a two-pass back link pcaptool cannot show
            ws_pdu = [(d, l) for d, l in ws_pdu if not any(l.startswith(n + ": ") for n in two_pass_names)]
            if len(ws_pdu) != len(pt_pdu) or not all(
                    wd == pd and same_label(wl, pl) for (wd, wl), (pd, pl) in zip(ws_pdu, pt_pdu)):
                diff = next(((a, b) for a, b in zip(ws_pdu, pt_pdu) if a[0] != b[0] or not same_label(a[1], b[1])),
                            (ws_pdu[len(pt_pdu):][:1], pt_pdu[len(ws_pdu):][:1]))
                fail("%s frame %d: the tree and pcaptool -V differ (tshark, pcaptool): %.300s" %
                     (capture, num, diff))
            nlabels += len(ws_pdu)

    for num, texts in ws_summaries.items():
        ours = pt_summaries.get(num, [])
        for i, text in enumerate(texts):
            head, _, summary = text.partition(", ")
            # Wireshark cuts an item's label at ITEM_LABEL_LENGTH (240) bytes
            if (len(text.encode()) >= LABEL_MAX - 1 and i < len(ours)
                    and ours[i].startswith(summary)):
                summary = ours[i]
            texts[i] = summary
    if ws_summaries != pt_summaries:
        diff = [(n, ws_summaries.get(n), pt_summaries.get(n))
                for n in sorted(set(ws_summaries) | set(pt_summaries))
                if ws_summaries.get(n) != pt_summaries.get(n)]
        fail("%s: summaries differ (frame, tshark, pcaptool): %s" % (capture, diff[:5]))
    if set(ws) != set(pt):
        fail("%s: frames differ: only tshark %s, only pcaptool %s" %
             (capture, sorted(set(ws) - set(pt))[:20], sorted(set(pt) - set(ws))[:20]))
    nvalues = npdus = nfindings = 0
    for num in sorted(ws):
        if len(ws[num]) != len(pt[num]):
            fail("%s frame %d: tshark has %d PDUs, pcaptool %d" % (capture, num, len(ws[num]), len(pt[num])))
        for (wf, wfind), (pf, pfind) in zip(ws[num], pt[num]):
            npdus += 1
            nfindings += len(wfind)
            nvalues += compare_pdu(capture, num, tsh, wf, wfind, pf, pfind)
    print("ok %s: %d PDUs, %d summaries, %d tree labels, %d values, %d findings agree" %
          (os.path.basename(capture), npdus, sum(map(len, pt_summaries.values())), nlabels, nvalues, nfindings))
    return npdus


def tree_labels(node, proto, depth):
    """The visible items of a PDML proto element as (depth, label), in
    order: what Wireshark's tree shows (hidden items and expert infos left
    out, a bit field's pattern "..1. .... = " taken off)."""
    out = []
    for f in node.findall("field"):
        name = f.get("name", "")
        if name.split(".")[0] != proto or f.get("hide") == "yes":
            continue
        label = re.sub(r"^[.01 ]+ = ", "", f.get("showname", ""))
        out.append((depth, label))
        out.extend(tree_labels(f, proto, depth + 1))
    return out


FINDING_LINE = re.compile(r"^    (error|warning|note) \S+ @\d+: ")


def text_labels(text):
    """pcaptool decode -V: {frame: [[(depth, label)...] per PDU]}, brackets of
    generated items taken off, findings left out."""
    out = {}
    cur = None
    for line in text.splitlines():
        if not line.startswith(" "):
            head = line.split(" ", 1)[0]
            cur = None
            if head.isdigit() and " End of conversation" not in line and " TCP " not in line:
                cur = []
                out.setdefault(int(head), []).append(cur)
            continue
        if cur is None or FINDING_LINE.match(line):
            continue
        stripped = line.lstrip(" ")
        depth = (len(line) - len(stripped)) // 4 - 1
        if stripped.startswith("[") and stripped.endswith("]"):
            stripped = stripped[1:-1]
        cur.append((depth, stripped))
    return out


FLOAT = re.compile(r"^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$|^-?(inf|nan)$")


def same_label(ws, ours):
    """One label in Wireshark's words and in pcaptool's: the same (strings
    too: -V shows them as the tree does) but for the length of a byte
    string shown in hex (Wireshark shows 36 bytes, pcaptool 64) and
    Wireshark's cut at 240 bytes."""
    if ws == ours:
        return True
    wn, _, wv = ws.partition(": ")
    on, _, ov = ours.partition(": ")
    # Wireshark cuts a label at 240 bytes and marks the name: " [truncated]"
    # up to 4.2, " […]" from 4.4 on
    mark = next((m for m in (" [truncated]", " […]") if wn.endswith(m)), None)
    cut = mark is not None
    if cut:
        wn = wn[:-len(mark)]
    if wn != on:
        return False
    m = re.match(r"^([0-9a-f]+)(…|\.\.\. \(\d+ bytes\))?$", ov)
    w = re.match(r"^([0-9a-f]+)(…)?$", wv)
    if m and w and (m.group(1).startswith(w.group(1)) or w.group(1).startswith(m.group(1))):
        return True  # hex (cut or not): the shorter a prefix of the longer
    if FLOAT.match(wv) and FLOAT.match(ov):  # 4.6 writes 1e+10 where we write 10000000000
        return same(float(wv), float(ov))
    return cut and ov.startswith(wv)


@functools.lru_cache(maxsize=None)
def two_pass_fields(pcaptool):
    """Fields only Wireshark's second pass shows (marked by pcaptool
    fields): {filter name: display name}."""
    out = subprocess.run([pcaptool, "fields"], capture_output=True, text=True, check=True).stdout
    return {l.split("\t")[0]: l.split("\t")[1] for l in out.splitlines() if l.endswith("\twireshark-two-pass")}


def compare_pdu(capture, num, tsh, wf, wfind, pf, pfind):
    nvalues = 0
    if True:
        if set(wf) != set(pf):
            fail("%s frame %d: field sets differ: only tshark %s, only pcaptool %s" %
                 (capture, num, sorted(set(wf) - set(pf)), sorted(set(pf) - set(wf))))
        for k in wf:
            t = tsh.types[k]
            a = [norm_ws(t, v) for v in wf[k]]
            b = [norm_pt(t, v) for v in pf[k]]
            if len(a) != len(b) or not all(same(x, y) for x, y in zip(a, b)):
                fail("%s frame %d field %s: tshark %r, pcaptool %r" % (capture, num, k, a[:8], b[:8]))
            nvalues += len(a)
        if sorted(wfind) != sorted(pfind):
            fail("%s frame %d findings: tshark %s, pcaptool %s" % (capture, num, wfind, pfind))
    return nvalues


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    build = sys.argv[1]
    pcaptool = os.path.join(build, "pcaptool", "pcaptool")
    tsh = Tshark(build)
    tsh.check_loaded()
    for cap in sys.argv[2:]:
        compare(tsh, pcaptool, cap)
    return 0


if __name__ == "__main__":
    sys.exit(main())
