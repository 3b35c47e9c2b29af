#!/usr/bin/env python3
"""Plugin versus pcaptool: both front ends must show the same PDUs with the
same fields, values and findings, frame by frame, and Wireshark must never
call a frame malformed.

Usage: compare_tshark.py BUILD_DIR CAPTURE...

tshark ignores personal plugins when run as root, so as root this runs tshark
as nobody (setpriv), from a fresh world-readable folder holding copies of the
plugin and the captures, and first checks that the plugin really loaded.
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

PROTOS = ("dnp",)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


class Tshark:
    def __init__(self, build):
        self.tmp = tempfile.mkdtemp(prefix="gw-tshark-")
        os.chmod(self.tmp, 0o755)
        shutil.copytree(os.path.join(build, "plugins"), os.path.join(self.tmp, "plugins"))
        for root, dirs, files in os.walk(self.tmp):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
            for f in files:
                os.chmod(os.path.join(root, f), 0o644)
        self.env = dict(os.environ, HOME=self.tmp, WIRESHARK_PLUGIN_DIR=os.path.join(self.tmp, "plugins"))
        self.prefix = []
        if os.geteuid() == 0:
            self.prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                           "env", "HOME=" + self.tmp,
                           "WIRESHARK_PLUGIN_DIR=" + os.path.join(self.tmp, "plugins")]

    def run(self, args):
        return subprocess.run(self.prefix + ["tshark"] + args, env=self.env,
                              capture_output=True, text=True)

    def check_loaded(self):
        r = self.run(["-G", "protocols"])
        names = {line.split("\t")[2] for line in r.stdout.splitlines() if line.count("\t") >= 2}
        for p in PROTOS:
            if p not in names:
                fail("the plugin did not load: tshark -G protocols has no '%s'\n%s" % (p, r.stderr))
        noise = [l for l in r.stderr.splitlines() if "plugin" in l.lower() or "warn" in l.lower()]
        if noise:
            fail("loading the plugin printed warnings:\n" + "\n".join(noise))
        fields = self.run(["-G", "fields"]).stdout
        self.types = {}
        for line in fields.splitlines():
            cols = line.split("\t")
            if cols[0] == "F" and cols[2].split(".")[0] in PROTOS:
                self.types[cols[2]] = cols[3]

    def copy_in(self, path):
        dst = os.path.join(self.tmp, os.path.basename(path))
        shutil.copyfile(path, dst)
        os.chmod(dst, 0o644)
        return dst

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def walk(node, fields, findings, state):
    """Collect proto fields (in document order) and expert codes."""
    if isinstance(node, list):
        for n in node:
            walk(n, fields, findings, state)
        return
    if not isinstance(node, dict):
        return
    for key, val in node.items():
        if key == "_ws.expert":
            for e in (val if isinstance(val, list) else [val]):
                for k in e:
                    if not k.startswith("_ws."):
                        findings.append(k)
            continue
        if key.split(".")[0] in PROTOS and key in state["types"]:
            if isinstance(val, (dict, list)) and state["types"][key] == "FT_NONE":
                walk(val, fields, findings, state)
                continue
            if state["types"][key] == "FT_NONE":
                continue
            vals = val if isinstance(val, list) else [val]
            for v in vals:
                if isinstance(v, dict):  # a subtree under a valued item
                    walk(v, fields, findings, state)
                else:
                    fields.setdefault(key, []).append(v)
            continue
        if isinstance(val, (dict, list)):
            walk(val, fields, findings, state)


def norm_ws(ftype, v):
    """tshark's JSON text of a value -> comparable Python value."""
    if ftype in ("FT_UINT8", "FT_UINT16", "FT_UINT32", "FT_UINT64", "FT_INT8", "FT_INT16",
                 "FT_INT32", "FT_INT64", "FT_FRAMENUM"):
        return int(v, 0)
    if ftype == "FT_BOOLEAN":
        return int(v, 0) != 0
    if ftype in ("FT_DOUBLE", "FT_FLOAT", "FT_RELATIVE_TIME"):
        return float(v)
    if ftype == "FT_BYTES":
        return v.replace(":", "")
    return v


def norm_pt(ftype, v):
    if ftype in ("FT_DOUBLE", "FT_FLOAT", "FT_RELATIVE_TIME"):
        return float(v)
    return v


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) and math.isnan(b):
            return True
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return a == b


def compare(tsh, pcaptool, capture):
    copy = tsh.copy_in(capture)
    r = tsh.run(["-r", copy, "-T", "json", "--no-duplicate-keys"])
    if r.returncode != 0:
        fail("%s: tshark failed: %s" % (capture, r.stderr))
    if "dissector bug" in r.stderr.lower():
        fail("%s: dissector bug: %s" % (capture, r.stderr))
    ws = {}
    state = {"types": tsh.types}
    for pkt in json.loads(r.stdout):
        layers = pkt["_source"]["layers"]
        num = int(layers["frame"]["frame.number"])
        fields, findings = {}, []
        got = False
        for p in PROTOS:
            if p in layers:
                got = True
                walk(layers[p], fields, findings, state)
        # an exception in a dissector shows as a top-level "[Malformed Packet]"
        # with an expert info that is not one of ours; our own error findings
        # (group Malformed) sit inside our tree and are compared below
        walk(layers.get("_ws.malformed", {}), {}, findings_extra := [], state)
        foreign = [f for f in findings + findings_extra if f.split(".")[0] not in PROTOS]
        if "_ws.malformed" in layers or foreign:
            fail("%s: frame %d is Malformed in Wireshark: %s" % (capture, num, foreign))
        if got:
            ws[num] = (fields, findings)

    out = subprocess.run([pcaptool, "decode", "--format", "json", "--fail-on", "never", capture],
                         capture_output=True, text=True)
    if out.returncode != 0:
        fail("%s: pcaptool failed: %s" % (capture, out.stderr))
    pt = {}
    for line in out.stdout.splitlines():
        o = json.loads(line)
        pt[o["frame"]] = (o["fields"], [f["code"] for f in o["findings"]])

    if set(ws) != set(pt):
        fail("%s: frames differ: only tshark %s, only pcaptool %s" %
             (capture, sorted(set(ws) - set(pt))[:20], sorted(set(pt) - set(ws))[:20]))
    nvalues = 0
    for num in sorted(ws):
        wf, wfind = ws[num]
        pf, pfind = pt[num]
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
    print("ok %s: %d PDUs, %d values, %d findings agree" %
          (os.path.basename(capture), len(ws), nvalues, sum(len(v[1]) for v in ws.values())))
    return len(ws)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    build = sys.argv[1]
    pcaptool = os.path.join(build, "pcaptool", "pcaptool")
    tsh = Tshark(build)
    try:
        tsh.check_loaded()
        for cap in sys.argv[2:]:
            compare(tsh, pcaptool, cap)
    finally:
        tsh.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
