#!/usr/bin/env python3
"""pcaptool decode -T fields against tshark -T fields with our plugin.

Usage: fields_tshark.py BUILD_DIR CAPTURE...

For each capture, one tshark run and one pcaptool run print every field of
our protocols that pcaptool can show (all but the links only Wireshark's
second pass makes), the protocols themselves, and the frame's fields
(frame.number, frame.time, frame.time_epoch, frame.time_relative,
frame.time_delta), with -E header=y and the default occurrence (all,
joined by ","). tshark prints a line per frame, pcaptool a line per PDU:
the lines of one frame's PDUs are joined (the values of a column, in PDU
order, by the aggregator: what tshark does with the occurrences of a field
in the frame's PDUs one after the other) and must equal tshark's line for
that frame, byte for byte; the frame's own fields must equal on each of
its PDUs' lines. tshark shows only the frames with one of our protocols
(-Y), so that the frames compared are the same.

The columns (_ws.col.*) are compared on frames of one PDU (Wireshark's Info
joins several PDUs' summaries with " | "), as is frame.time_delta_displayed
(tshark's delta from the frame displayed before: pcaptool's from the line
before, which is another PDU of the same frame when a frame has several);
tshark's Info may begin with TCP's analysis flags ("[TCP Out-Of-Order] "),
which pcaptool does not show.

Also -E options (quote, separator, occurrence, aggregator) on one capture;
strings with control bytes and invalid UTF-8 in -V and -T fields; -t's
formats against tshark's on a microsecond and a nanosecond capture; -c
counting PDUs on a TCP capture; JSON's "names" on every capture.
"""
import json
import os
import re
import tempfile
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_tshark import PROTOS, Tshark, fail, options_of, two_pass_fields  # noqa: E402

FRAME = ["frame.number", "frame.time", "frame.time_epoch", "frame.time_relative", "frame.time_delta"]
ONE_PDU = ["frame.time_delta_displayed", "_ws.col.Protocol", "_ws.col.Info", "_ws.col.Source",
           "_ws.col.Destination"]


def our_fields(pcaptool):
    out = subprocess.run([pcaptool, "fields"], capture_output=True, text=True, check=True).stdout
    two_pass = set(two_pass_fields(pcaptool))
    return [l.split("\t")[0] for l in out.splitlines() if l.split("\t")[0] not in two_pass]


def lines(text):
    return [l.split("\t") for l in text.split("\n")[:-1]]


def run_pcaptool(pcaptool, args):
    r = subprocess.run([pcaptool, "decode", "--fail-on", "never"] + args, capture_output=True)
    if r.returncode != 0:
        fail("pcaptool %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.decode()))
    return r.stdout.decode("utf-8", "surrogateescape")


def run_tshark(tsh, args):
    r = tsh.run(args)
    if r.returncode != 0:
        fail("tshark %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr))
    return r.stdout


def compare(build, tsh, pcaptool, capture, fields):
    ws_opts, pt_opts = options_of(capture)
    names = FRAME + ONE_PDU + list(PROTOS) + fields
    e = [x for n in names for x in ("-e", n)]
    ws = lines(run_tshark(tsh, ws_opts + ["-r", capture, "-Y", " || ".join(PROTOS), "-T", "fields",
                                          "-E", "header=y"] + e))
    pt = lines(run_pcaptool(pcaptool, pt_opts + ["-T", "fields", "-E", "header=y"] + e + [capture]))
    if ws[0] != names or pt[0] != names:
        fail("%s: the header lines are not the field names" % capture)
    by_frame = {}
    for row in pt[1:]:
        by_frame.setdefault(row[0], []).append(row)
    ws_rows = {row[0]: row for row in ws[1:]}
    if set(ws_rows) != set(by_frame):
        fail("%s: frames differ: only tshark %s, only pcaptool %s" % (
            capture, sorted(set(ws_rows) - set(by_frame), key=int)[:10],
            sorted(set(by_frame) - set(ws_rows), key=int)[:10]))
    values = 0
    for num, wrow in ws_rows.items():
        rows = by_frame[num]
        for i, name in enumerate(names):
            if name in ONE_PDU and len(rows) > 1:
                continue
            if name in FRAME or name in ONE_PDU:
                ours = {r[i] for r in rows}
                want = wrow[i]
                if name == "_ws.col.Info":  # TCP's analysis flags before the summary
                    want = re.sub(r"^(\[TCP [^]]*\] )+", "", want)
                if ours != {want}:
                    fail("%s frame %s %s: tshark %r, pcaptool %r" % (capture, num, name, wrow[i], ours))
            else:
                ours = ",".join(r[i] for r in rows if r[i])
                if ours != wrow[i]:
                    fail("%s frame %s %s: tshark %r, pcaptool %r" % (capture, num, name, wrow[i][:200], ours[:200]))
            values += bool(wrow[i])
    print("ok %s: %d frames, %d PDU lines, %d values agree" % (os.path.basename(capture), len(ws_rows),
                                                              len(pt) - 1, values))


def options(tsh, pcaptool, capture):
    """-E options: the same bytes as tshark's, on a capture with several
    values of a field in a frame (a frame of several PDUs)."""
    e = ["-e", "frame.number", "-e", "openttd.packet", "-e", "openttd.name", "-e", "openttd.frame"]
    for opts in (["-E", "quote=d"], ["-E", "quote=s", "-E", "separator=/s"], ["-E", "occurrence=f"],
                 ["-E", "occurrence=l", "-E", "separator=;"], ["-E", "aggregator=/s", "-E", "header=y"],
                 ["-E", "aggregator=|", "-E", "quote=n"]):
        ws = run_tshark(tsh, ["-r", capture, "-Y", "openttd", "-T", "fields"] + opts + e)
        pt = run_pcaptool(pcaptool, ["-T", "fields"] + opts + e + [capture])
        # pcaptool's lines of one frame: keep the frames of one PDU only
        # (the multi-PDU ones were compared above, value by value)
        nums = [l.split(opts[-1][-1] if "separator" in opts[-1] else None)[0] for l in pt.splitlines()]
        if len(nums) != len(set(nums)):
            fail("%s: a frame of several PDUs: pick another capture for the -E test" % capture)
        if ws != pt:
            fail("%s -E %s: tshark and pcaptool differ:\n%s\n%s" % (capture, opts, ws[:500], pt[:500]))
    print("ok -E options on %s" % os.path.basename(capture))


# CLIENT_JOIN's name in openttd-13.0-join.pcap ("CapClient", 9 bytes)
# replaced by bytes no text should hold: control characters, a backslash
# and a quote, DEL, invalid UTF-8 (a cut sequence, a lone byte, a
# surrogate), characters Wireshark does not print (U+0085, U+200B, U+FEFF)
# and ones it does (e, an emoji, NBSP)
NAMES = [b'C\x08\x1d\\"\t\x7f\xc3\xa9', b'\xe2\x82A\xff\x07\x0b\x0c\xc2\x85',
         b'\xe2\x80\x8b\xc2\x9b\xef\xbb\xbf\\', b'\xf0\x9f\x98\x80\xc2\xa0\xed\xa0\x80',
         b'\r\n\x1b\x0e x\x7fy\x01']


def strings(tsh, pcaptool, tmp):
    """A string with such bytes: decode -V shows the line Wireshark's tree
    shows (no quotes, its escapes), -T fields prints what tshark prints."""
    join = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "captures", "openttd-13.0-join.pcap")
    data = open(join, "rb").read()
    at = data.index(b"CapClient\0")
    for k, name in enumerate(NAMES):
        cap = os.path.join(tmp, "name%d.pcap" % k)
        with open(cap, "wb") as f:
            f.write(data[:at] + name + data[at + 9:])
        ws = tsh.run(["-r", cap, "-Y", "frame.number == 4", "-V", "-O", "openttd"])
        ws_line = [l for l in ws.stdout.split("\n") if l.startswith("    Name: ")]
        pt = run_pcaptool(pcaptool, ["-V", "-c", "1", cap])
        pt_line = [l for l in pt.split("\n") if l.startswith("    Name: ")]
        if len(ws_line) != 1 or ws_line != pt_line:
            fail("name %r: the tree shows %r, decode -V %r" % (name, ws_line, pt_line))
        ws = run_tshark(tsh, ["-r", cap, "-Y", "frame.number == 4", "-T", "fields", "-e", "openttd.name"])
        pt = run_pcaptool(pcaptool, ["-T", "fields", "-e", "openttd.name", "-c", "1", cap])
        if ws != pt:
            fail("name %r: tshark -T fields prints %r, pcaptool %r" % (name, ws, pt))
    print("ok %d names with control bytes and invalid UTF-8: -V and -T fields as tshark" % len(NAMES))


def json_names(pcaptool, capture, tables, display):
    """JSON's "names": beside each named integer field, the name of each of
    its values: its table's (pcaptool fields -v) where it has one, else
    the name -V shows for it ("Type: SERVER_JOIN (3)", a name that depends
    on the conversation, which compare_tshark.py checks against
    Wireshark's tree), null where neither names it."""
    ws_opts, pt_opts = options_of(capture)
    records = [json.loads(l) for l in run_pcaptool(pcaptool, pt_opts + ["-T", "json", capture]).splitlines()]
    text = run_pcaptool(pcaptool, pt_opts + ["-V", capture])
    one = re.search(r"(?<![0-9.])1 bytes", text)  # "1 byte" (DNP's "Message length: 1 byte")
    if one:
        fail("%s: decode -V says %r" % (capture, text[max(0, one.start() - 60):one.end()]))
    n = 0
    for r in records:
        for k, names in r.get("names", {}).items():
            if len(names) != len(r["fields"][k]):
                fail("%s frame %d: %s has %d names for %d values" % (capture, r["frame"], k, len(names),
                                                                     len(r["fields"][k])))
            for v, name in zip(r["fields"][k], names):
                table = [nm for lo, hi, nm in tables.get(k, []) if lo <= v <= hi]
                if name is None and not table and "%s: %s (" % (display[k], v) not in text:
                    continue
                if not (table and table[0] == name) and "%s: %s (%s" % (display[k], name, v) not in text:
                    fail("%s frame %d: %s %r named %r" % (capture, r["frame"], k, v, name))
                n += 1
        for k, vals in r["fields"].items():  # a value the table names is named
            if k in tables and k not in r.get("names", {}) and any(
                    lo <= v <= hi for v in vals if isinstance(v, int) for lo, hi, _ in tables[k]):
                fail("%s frame %d: %s has no names" % (capture, r["frame"], k))
    return n


def value_tables(pcaptool):
    out = subprocess.run([pcaptool, "fields", "-v"], capture_output=True, text=True, check=True).stdout
    tables = {}
    for line in out.splitlines():
        f, v, name = line.split("\t")
        lo, _, hi = v.partition("-")
        tables.setdefault(f, []).append((int(lo), int(hi or lo), name))
    out = subprocess.run([pcaptool, "fields"], capture_output=True, text=True, check=True).stdout
    return tables, {l.split("\t")[0]: l.split("\t")[1] for l in out.splitlines()}


def times(tsh, pcaptool, capture):
    """-t: each format's time of each frame of one PDU is tshark's first
    column (-t's formats, the capture's digits); TZ set, for a and ad."""
    for t in ("r", "a", "ad", "adoy", "d", "e", "u", "ud", "udoy"):
        ws = {}
        for l in run_tshark(tsh, ["-r", capture, "-t", t]).splitlines():
            num, rest = l.strip().split(None, 1)
            ws[num] = rest.split("  ")[0].strip() if t in ("ad", "ud", "adoy", "udoy") else rest.split()[0]
        rows = [l.split(" ") for l in run_pcaptool(pcaptool, ["-t", t, capture]).splitlines() if l[:1].isdigit()]
        got = {}
        for r in rows:
            got.setdefault(r[0], []).append(" ".join(r[1:3]) if t in ("ad", "ud", "adoy", "udoy") else r[1])
        for num, ours in got.items():
            if len(set(ours)) != 1 or ours[0] != ws[num]:
                fail("%s -t %s frame %s: tshark %r, pcaptool %r" % (capture, t, num, ws[num], ours))
    print("ok -t on %s" % os.path.basename(capture))


def count(pcaptool, capture):
    """-c N prints N PDUs, also when a frame brings several or none (TCP)."""
    every = run_pcaptool(pcaptool, ["-T", "json", capture]).splitlines()
    for n in (1, 2, 5, len(every)):
        got = run_pcaptool(pcaptool, ["-T", "json", "-c", str(n), capture]).splitlines()
        if got != every[:n]:
            fail("%s -c %d: %d records, not the first %d" % (capture, n, len(got), n))
    print("ok -c on %s" % os.path.basename(capture))


def main():
    build = sys.argv[1]
    pcaptool = os.path.join(build, "pcaptool", "pcaptool")
    tsh = Tshark(build)
    tsh.check_loaded()
    fields = our_fields(pcaptool)
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        strings(tsh, pcaptool, tmp)
    tables, display = value_tables(pcaptool)
    named = 0
    for capture in sys.argv[2:]:
        if os.path.basename(capture) == "openttd-13.0-password-chat-kick.pcapng":
            options(tsh, pcaptool, capture)
            times(tsh, pcaptool, capture)  # nanoseconds
        if os.path.basename(capture) == "dnp-denetwork-example.pcap":
            times(tsh, pcaptool, capture)  # microseconds
        if os.path.basename(capture) == "openttd-13.0-join.pcap":
            count(pcaptool, capture)
        compare(build, tsh, pcaptool, capture, fields)
        named += json_names(pcaptool, capture, tables, display)
    print("ok JSON names: %d values named as the tables and -V name them" % named)


if __name__ == "__main__":
    main()
