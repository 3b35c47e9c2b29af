#!/usr/bin/env python3
"""stats_tree_check.py BUILD CAPTURE...

The plugin's statistics trees (tshark -z PROTO,tree, as nobody, the plugin
checked loaded) count what pcaptool stats counts: PDUs by type and findings
by code (each shown by its code alone, a known one), the parts of PDUs made of parts by
type, summed over the conversations of each capture, and list under
"Rules reported" exactly the findings that are rules.
"""
import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_tshark  # noqa: E402  (the Tshark runner and its checks)

build = sys.argv[1]
captures = sys.argv[2:]
pcaptool = os.path.join(build, "pcaptool", "pcaptool")
PROTOS = compare_tshark.PROTOS
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


rules = {l.split("\t")[0] for l in subprocess.run([pcaptool, "validate", "--rules"], capture_output=True,
                                                  text=True).stdout.splitlines()}
summaries = {l.split("\t")[0]: l.split("\t")[2] for l in subprocess.run(
    [pcaptool, "findings"], capture_output=True, text=True).stdout.splitlines()}
LINE = re.compile(r"^( *)(\S.*?)\s{2,}(\d+)\s")


def trees(text):
    """{proto: {(top, child, grandchild): count}} from tshark -z output."""
    out, proto, path = {}, None, []
    for line in text.splitlines():
        m = re.match(r"^(\S+)/PDU types and findings:$", line)
        if m:
            proto = m.group(1).lower()
            out[proto] = {}
            continue
        m = LINE.match(line)
        if not proto or not m or m.group(2).startswith("Topic"):
            continue
        depth = len(m.group(1))
        path = path[:depth] + [m.group(2)]
        out[proto][tuple(path)] = int(m.group(3))
    return out


tsh = compare_tshark.Tshark(build)
tsh.check_loaded()  # exits, failing loudly, when the plugin did not load
for cap in captures:
    ws_opts, pt_opts = compare_tshark.options_of(cap)
    recs = [json.loads(l) for l in subprocess.run([pcaptool, "stats", "--format", "json", *pt_opts, cap],
                                                  capture_output=True, text=True).stdout.splitlines()]
    want = collections.defaultdict(collections.Counter)
    for r in recs:
        for name, n in r["types"].items():
            want[r["proto"]][("PDUs by type", name)] += n
        for name, n in r["parts"].items():
            want[r["proto"]][("Parts by type", name)] += n
        for code, n in r["findings"].items():
            want[r["proto"]][("finding", code)] += n
    args = ws_opts + ["-q", "-2", "-r", cap]
    for p in PROTOS:
        args += ["-z", p + ",tree"]
    r = tsh.run(args)
    got = trees(r.stdout)
    if r.returncode != 0 or set(got) != set(PROTOS):
        fail("%s: tshark exit %d, trees %s\n%s" % (cap, r.returncode, sorted(got), r.stderr))
        continue
    for p in PROTOS:
        g = got[p]
        have = collections.Counter()
        for path, n in g.items():
            if path[0] in ("PDUs by type", "Parts by type") and len(path) == 2:
                have[path] += n
            if path[0] == "Findings by severity" and len(path) == 3:
                code = path[2]
                if code not in summaries:
                    fail("%s %s: tree shows %r, not a finding's code" % (cap, p, code))
                have[("finding", code)] += n
        if have != want[p]:
            fail("%s %s: tree %s, pcaptool stats %s" % (os.path.basename(cap), p, dict(have), dict(want[p])))
            continue
        reported = {path[1]: n for path, n in g.items()
                    if path[0] == "Rules reported" and len(path) == 2}
        expected = {code: n for (kind, code), n in want[p].items() if kind == "finding" and code in rules}
        if reported != expected:
            fail("%s %s: rules reported %s, expected %s" % (os.path.basename(cap), p, reported, expected))
            continue
        if want[p]:
            print("ok %s %s: %d types, parts and findings agree" % (os.path.basename(cap), p, len(want[p])))
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
