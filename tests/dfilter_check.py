#!/usr/bin/env python3
"""pcaptool -Y against tshark -Y: the same display filter on the same
capture selects the same frames in pcaptool decode (a frame is selected when
at least one of its records matches) as in tshark with our plugin.

Usage: dfilter_check.py BUILD_DIR CAPTURES_DIR [--rules]

Every capture at the top of CAPTURES_DIR runs the filters of its protocol
(its name's prefix; other-* counts as DNP), and the real captures of every
protocol also run the filters across protocols. Wireshark's selection
comes from sharkd (Wireshark's engine behind a JSON-RPC pipe, with the
plugin): one sharkd for the captures of each set of tshark options (-o, -d:
sharkd reads them from its profile) loads each capture once and runs its
filters over the dissected frames, as the GUI refilters and as tshark -2 -Y
selects; one tshark start-up a run of 255 filters made this test spend
most of its time starting tshark. Compared over the frames where
pcaptool finds a PDU (tshark also selects frames of none, e.g. a TCP
handshake for "not dnp"). tshark tests a filter on a frame's whole tree,
pcaptool on each PDU: the same thing where a frame holds one record, and
for a filter that is only comparisons joined by "or" (any occurrence in any
PDU); a filter with and, not, != or === is compared on frames of one record
only (the test says how many frames that leaves out).

Each filter must select something and leave something out somewhere: a
filter that selects all or nothing could not tell a broken evaluator.

With --rules (CAPTURES_DIR: captures/rules/, one capture a finding, named
after it): each capture runs one filter, its finding's code (a finding is
a field to tshark too), and the frames selected must be the same; over all
of them some frames must be selected and some left out.
"""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_tshark  # noqa: E402  (Tshark, the per-capture OPTIONS)

# (protocol of the captures it runs on, or "*": the real captures of all;
#  filter). Together: every operator, each protocol, value names (any case),
# presence of fields, protocols and finding codes, contains, matches (and
# (?i)), numbers (decimal, hex, negative, floating point, times), booleans,
# strings with escapes, and/or/not in both spellings, parentheses.
FILTERS = [
    ("dnp", 'dnp.command == "Link up" || dnp.command eq "reliable ACK"'),
    ("dnp", 'dnp.seq >= 2 && dnp.seq < 0x5 and not dnp.ack_code == 0'),
    ("dnp", 'dnp.value.string matches "^Sat Nov 21 06:14:4[5-7]" or dnp.message contains 68:69 '
            'or dnp.value.type != 11'),
    ("dnp", 'dnp.flags.read_only == 1 or dnp.value.float < -2 or dnp.ack.time > 0.001 '
            'or dnp.value.uint ge 3000000000'),
    ("openttd", 'openttd.packet == "CLIENT_JOIN" or openttd.packet == "server_welcome" '
                'or openttd.chat.message contains "hello"'),
    ("openttd", 'openttd.name matches "(?i)^(cap|rec)client$" || openttd.revision ~ "^1[34]\\\\.[0-9]"'),
    ("openttd", 'openttd.size gt 20 and !(openttd.packet == "SERVER_FRAME") and openttd.company le 1'),
    ("gne", 'gne.game_name == "GNE Pong" or gne.udp_port == -1 or gne.ping.rtt >= 0.04'),
    ("gne", '(gne.ping.reply == true and gne.ping.req_id ne 0) || gne.custom.data contains "Alice"'),
    ("gne", 'gne.unreliable && !gne.trailing && gne.message != "Message of packets"'),
    # absolute times against dates, in each form Wireshark 4.0 reads
    ("gne", 'gne.time.utc >= "Nov 21, 2026 06:22:13.5 UTC" or gne.time.utc < "2026-11-21 06:22:13.3"'),
    ("eoudp", 'eoudp.command == "Acknowledge" or eoudp.component matches "Comp\\x6fnent$"'),
    ("eoudp", 'eoudp.entity != 5 and eoudp.important == 0'),
    ("eoudp", 'eoudp.timestamp > 1795000000705 && eoudp.id <= 4 || eoudp.id.duplicate'),
    ("eoudp", 'eoudp.timestamp.utc > "2026-11-21T06:31:17.5Z" or eoudp.connect.timestamp.utc'),
    ("opendrakan", 'opendrakan.type == "OBJECT_STATES_CHANGED" && opendrakan.position.x >= 2.5'),
    ("opendrakan", 'opendrakan.db_path contains "Dragon" || opendrakan.tick < 0 || opendrakan.jump === 1'),
    ("opendrakan", 'opendrakan.type !== 2 and opendrakan.tick ge 40 and opendrakan.realtime lt 3.5'),
    ("*", 'dnp or gne or eoudp.trailing'),
    ("*", 'not (openttd || opendrakan) and not dnp.seq == 0'),
    ("*", 'dnp.divergence.update_layout or opendrakan.ack.incomplete or eoudp.id.duplicate '
          'or gne.divergence.custom_length'),
    ("*", 'openttd.client_id > 1 or gne.ping.req_id == 3 or eoudp.player == 1 or dnp.link_id == 2 '
          'or opendrakan.object_id == 5001'),
]

REAL = ("dnp-denetwork-example.pcap", "openttd-13.0-password-chat-kick.pcapng", "gne-expong_game.pcap",
        "eoudp-gen3-r-type-head-session.pcap", "opendrakan-reference-master.pcap")

PROTOS = compare_tshark.PROTOS


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def per_frame_safe(f):
    """Is "some PDU of the frame matches" the frame's answer? For
    comparisons (any occurrence) and presence joined by "or"."""
    s = re.sub(r'"(\\.|[^"\\])*"', '""', f)  # strings' contents aside
    return not re.search(r'\b(and|not)\b|&&|!|===|\bne\b|\ball_ne\b|\ball_eq\b', s)


def records(pcaptool, capture, pt_args, flt=None):
    cmd = [pcaptool, "decode", "-T", "json"] + pt_args + ([] if flt is None else ["-Y", flt]) + [capture]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        fail("%s: %s: exit %d: %s" % (capture, " ".join(cmd[2:]), r.returncode, r.stderr))
    return [json.loads(l) for l in r.stdout.splitlines()]


def frames_of(pcaptool, capture):
    """the frames with a PDU, and the count of records on each frame"""
    ws_args, pt_args = compare_tshark.options_of(capture)
    every = records(pcaptool, capture, pt_args)
    pdu_frames = {r["frame"] for r in every if r["proto"] in PROTOS and not r.get("end_of_conversation")}
    per_frame = {}
    for r in every:
        per_frame[r["frame"]] = per_frame.get(r["frame"], 0) + 1
    return pdu_frames, per_frame


def home_for(tsh_dir, ws_args, n):
    """a home for sharkd whose default profile holds tshark's options
    ws_args (-o as preferences, -d as Decode As entries): sharkd has no
    options of its own for them"""
    home = os.path.join(tsh_dir, "home-%d" % n)
    conf = os.path.join(home, ".config", "wireshark")
    os.makedirs(conf)
    prefs, decode_as = [], []
    for opt, val in zip(ws_args[::2], ws_args[1::2]):
        m = re.fullmatch(r"(\w+\.port)==(\d+),(\w+)", val)
        if opt == "-o":
            prefs.append("%s: %s\n" % tuple(val.split(":", 1)))
        elif opt == "-d" and m:
            decode_as.append("decode_as_entry: %s,%s,(none),%s\n" % (m[1], m[2], m[3].upper()))
        else:
            fail("dfilter_check: tshark option %s %s has no sharkd form here" % (opt, val))
    with open(os.path.join(conf, "preferences"), "w") as f:
        f.writelines(prefs)
    with open(os.path.join(conf, "decode_as_entries"), "w") as f:
        f.writelines(decode_as)
    return home


def sharkd(build, tsh_dir, home, jobs):
    """tshark's selection of each job's filter on its capture, {(capture,
    filter): frames}: one sharkd (with the plugin, as nobody) loads each
    capture once and runs all its filters, as Wireshark's display filter
    does after the first pass (tshark -2 -Y)"""
    requests, asked = [], {}
    for loads, (capture, filters) in enumerate(jobs):
        name = os.path.basename(capture)
        requests.append({"method": "load", "params": {"file": os.path.join(tsh_dir, name)}})
        asked[len(requests)] = (name, None)
        for flt in filters:
            # sharkd keeps each filter's selection by the filter's text for
            # the session, and a new load does not forget it: spaces after
            # it, as many as captures loaded before, make its text new
            requests.append({"method": "frames", "params": {"filter": flt + " " * loads}})
            asked[len(requests)] = (capture, flt)
    lines = "".join(json.dumps(dict(q, jsonrpc="2.0", id=i + 1)) + "\n" for i, q in enumerate(requests))
    env = dict(os.environ, GW_TSHARK_DIR=tsh_dir, GW_TSHARK_PROGRAM="sharkd", GW_TSHARK_HOME=home)
    r = subprocess.run(["bash", compare_tshark.RUN_TSHARK, build, "-"], input=lines, capture_output=True,
                       text=True, env=env, timeout=1200)
    noise = [l for l in r.stderr.splitlines() if l != "Hello in child." and not l.startswith("load: filename=")]
    if r.returncode != 0 or noise:
        fail("sharkd: exit %d: %s" % (r.returncode, "\n".join(noise)))
    answers = {}
    for line in r.stdout.splitlines():
        a = json.loads(line)
        answers[a.get("id")] = a
    selected = {}
    for i, (what, flt) in asked.items():
        a = answers.get(i)
        if a is None or "error" in a:
            fail("sharkd: no answer to %s %s: %s" % (what, flt or "(load)", a and a["error"]))
        if flt is None:
            if a["result"].get("status") != "OK":
                fail("sharkd could not load %s: %s" % (what, a["result"]))
        else:
            selected[(what, flt)] = {f["num"] for f in a["result"]}
    return selected


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--rules"):
        print(__doc__)
        return 2
    build, captures = sys.argv[1], sys.argv[2]
    rules = len(sys.argv) == 4
    pcaptool = os.path.join(build, "pcaptool", "pcaptool")
    caps = sorted(os.path.join(captures, c) for c in os.listdir(captures)
                  if c.endswith((".pcap", ".pcapng")))
    tsh_dir = tempfile.mkdtemp(prefix="gw-dfilter.")
    try:
        os.chmod(tsh_dir, 0o755)
        for c in caps:  # copied once, before the runs (tshark-plugin.sh reuses them)
            shutil.copy(c, tsh_dir)
        os.environ["GW_TSHARK_DIR"] = tsh_dir
        compare_tshark.Tshark(build).check_loaded()  # also copies the plugin there
        frames = {c: frames_of(pcaptool, c) for c in caps}
        jobs = []
        for c in caps if rules else []:  # the capture's own finding
            jobs.append((c, os.path.basename(c).rsplit(".", 1)[0]))
        for c in caps if not rules else []:
            proto = os.path.basename(c).split("-")[0].split(".")[0]
            proto = "dnp" if proto == "other" else proto
            for p, f in FILTERS:
                if p == proto or (p == "*" and os.path.basename(c) in REAL):
                    jobs.append((c, f))
        # a sharkd for the captures of each set of tshark options, both cores busy
        groups = {}
        for c, f in jobs:
            ws_args = tuple(compare_tshark.options_of(c)[0])
            groups.setdefault(ws_args, {}).setdefault(c, []).append(f)
        halves = []
        for n, (ws_args, by_capture) in enumerate(sorted(groups.items())):
            home = home_for(tsh_dir, list(ws_args), n)
            items = sorted(by_capture.items())
            halves += [(home, items[:len(items) // 2]), (home, items[len(items) // 2:])]
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            theirs = {}
            for part in ex.map(lambda h: sharkd(build, tsh_dir, h[0], h[1]), [h for h in halves if h[1]]):
                theirs.update(part)
        results = []
        for c, flt in jobs:
            pdu_frames, per_frame = frames[c]
            ours = {r["frame"] for r in records(pcaptool, c, compare_tshark.options_of(c)[1], flt)}
            compared = pdu_frames if per_frame_safe(flt) else {f for f in pdu_frames if per_frame[f] == 1}
            results.append((os.path.basename(c), flt, len(compared), len(pdu_frames - compared),
                            theirs[(c, flt)] & compared, ours & compared))
    finally:
        shutil.rmtree(tsh_dir, ignore_errors=True)
    selected, total, left_out = {}, {}, 0
    for name, flt, n, out, theirs, ours in results:
        if theirs != ours:
            fail("%s: -Y '%s': tshark selects %s, pcaptool %s (only tshark %s, only pcaptool %s)" %
                 (name, flt, sorted(theirs)[:20], sorted(ours)[:20], sorted(theirs - ours)[:10],
                  sorted(ours - theirs)[:10]))
        selected[flt] = selected.get(flt, 0) + len(ours)
        total[flt] = total.get(flt, 0) + n
        left_out += out
    if rules and not 0 < sum(selected.values()) < sum(total.values()):
        fail("the findings' filters select %d of %d frames: they tell nothing" % (sum(selected.values()),
                                                                                  sum(total.values())))
    for _, f in FILTERS if not rules else []:
        if not 0 < selected[f] < total[f]:
            fail("-Y '%s' selects %d of %d frames: it tells nothing" % (f, selected[f], total[f]))
    print("%d filters, %d filter runs in sharkd: the same frames (%d frames compared, %d selected, %d frames of "
          "several records left out where the filter is not per-frame safe)" %
          (len(selected), len(jobs), sum(total.values()), sum(selected.values()), left_out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
