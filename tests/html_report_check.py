#!/usr/bin/env python3
"""html_report_check.py PCAPTOOL DNP_PEER - pcaptool conform's --html page in a
real browser: Debian's headless Chromium loads it from a file (no server, no
network) with no console message at all, and its screenshot is not blank.

The checks are checked first: a page whose script throws must show console
messages, and an empty page must be judged blank, or the test fails - a check
that cannot fail proves nothing. The report comes from a run against
tests/dnp/dnp_peer in its up-first mode, so it has a non-strict verdict and
findings to draw beside the passes."""
import os
import time
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

from checks import check, finish
from conform_common import start_server_peer

PCAPTOOL, PEER = sys.argv[1], sys.argv[2]
CHROMIUM = shutil.which("chromium")
work = tempfile.mkdtemp(prefix="html.")
port = int(os.environ.get("GW_TEST_PORT", 30000 + (os.getpid() + 7) % 20000))


def browse(page, png):
    """load page in headless Chromium, screenshot it to png: its console lines"""
    env = dict(os.environ, HOME=work)
    p = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--user-data-dir=" + os.path.join(work, "profile"), "--enable-logging=stderr", "--v=0",
                        "--window-size=1100,1400", "--screenshot=" + png, "file://" + page],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120, env=env)
    return [l for l in p.stderr.splitlines() if ":CONSOLE" in l]


def colours(png):
    """how many distinct pixels the PNG (8-bit RGB or RGBA, as Chromium writes)
    has in its first 400 rows, after undoing the scanline filters"""
    data = open(png, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            bpp = {2: 3, 6: 4}[ctype]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    seen = set()
    for y in range(min(h, 400)):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        seen.update(bytes(line[i:i + bpp]) for i in range(0, stride, bpp * 7))
        prev = line
    return len(seen)


if not check("chromium is installed (Debian package chromium)", CHROMIUM is not None):
    finish()

# the checks, checked
bad = os.path.join(work, "bad.html")
open(bad, "w").write("<!DOCTYPE html><html><body><script>console.error('boom'); nowhere();</script>x</body></html>")
check("a page whose script throws shows console messages", len(browse(bad, os.path.join(work, "bad.png"))) >= 2)
empty = os.path.join(work, "empty.html")
open(empty, "w").write("<!DOCTYPE html><html><body></body></html>")
browse(empty, os.path.join(work, "empty.png"))
check("an empty page is judged blank", colours(os.path.join(work, "empty.png")) <= 2)

# the report
peer = start_server_peer(PEER, port, "up-first")
page = os.path.join(work, "report.html")
junit = os.path.join(work, "report.xml")
before = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
r = subprocess.run([PCAPTOOL, "conform", "--proto", "dnp", "--target", "127.0.0.1:%d" % port, "--timeout", "1",
                    "-q", "--html", page, "--junit", junit], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                   text=True, timeout=120)
if peer:
    peer.kill()
    peer.wait()
check("conform wrote the page (exit 0: non-strict only)", r.returncode == 0 and os.path.exists(page), r.stderr)
# the run itself, as Autobahn's reports say it: when, which pcaptool, what command
version = subprocess.run([PCAPTOOL, "--version"], stdout=subprocess.PIPE, text=True).stdout.split()[1]
html = open(page).read() if os.path.exists(page) else ""
stamp = re.search(r"started (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)", html)
check("the page says which pcaptool (%s), when (not before the run began) and the command" % version,
      "pcaptool %s" % version in html and stamp and stamp.group(1)[:19] >= before
      and "pcaptool conform --proto dnp --target 127.0.0.1:%d --timeout 1 -q --html " % port in html,
      (stamp and stamp.group(1), before, html[:600]))
xml = open(junit).read() if os.path.exists(junit) else ""
check("the JUnit report has the start as its timestamp and the version and command as properties",
      stamp and 'timestamp="%s"' % stamp.group(1)[:19] in xml
      and '<property name="pcaptool.version" value="%s"/>' % version in xml
      and '<property name="command" value="pcaptool conform --proto dnp' in xml, xml[:500])
console = browse(page, os.path.join(work, "report.png"))
check("the report loads with no console message", console == [], console)
n = colours(os.path.join(work, "report.png"))
check("the report's screenshot is not blank (%d colours)" % n, n > 8, n)
shutil.copy(os.path.join(work, "report.png"), os.environ.get("HTML_SHOT", os.path.join(work, "kept.png")))
shutil.rmtree(work, ignore_errors=True)
finish()
