#!/usr/bin/env python3
"""fuzz_dnp.py PCAPTOOL DNP_PEER DNP_PEER_ASAN - pcaptool fuzz --proto dnp against
tests/dnp/dnp_peer with bugs planted in it (each mode is described in
dnp_peer.c), on fixed seeds and short runs:

- good: 300 iterations, no failure (no false alarm: a mutation the peer
  rightly ignores, or that made the PDU a close, is no failure);
- crash-at-max: abort() on a link state whose value count is 65535 - found
  as "dead" (nothing answers any more) on the link state, within 400
  iterations; its reproducer, sent again by fuzz --reproduce, kills a fresh
  crash-at-max peer and does nothing to a good one;
- hang-reorder: a connection whose first reliable number is not 0 is never
  answered again - found as "hang" within 100 iterations; the reproducer is minimal (the
  connection, the mutated PDU, the probe; the mutated PDU shortened to its
  command and number, 3 bytes) and reproduces on a fresh
  hang-reorder peer only;
- oob-read under AddressSanitizer, the peer started by fuzz --exec: found as
  "sanitizer" with ASan's report; reproduced through --exec too.
The same seed gives the same failures, mutation for mutation.

Ports: GW_TEST_PORT and those above it (CTest's block for this test)."""
import json
import os
import subprocess
import sys
import tempfile

from checks import check, finish
from conform_common import start_server_peer

PCAPTOOL, PEER, PEER_ASAN = sys.argv[1], sys.argv[2], sys.argv[3]
work = tempfile.mkdtemp(prefix="fuzz.")
port = int(os.environ.get("GW_TEST_PORT", 30000 + os.getpid() % 20000))
ENV = dict(os.environ, ASAN_OPTIONS="symbolize=0:detect_leaks=0")
# --timeout 1: an answer on loopback takes microseconds; a second is what a
# loaded machine may add before silence is taken for a hang


def fuzz(at, *args):
    """pcaptool fuzz --proto dnp against 127.0.0.1:at: (exit code, failures, summary, stderr)"""
    p = subprocess.run([PCAPTOOL, "fuzz", "--proto", "dnp", "--target", "127.0.0.1:%d" % at, "--timeout", "1",
                        "--format", "json", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=300, env=ENV)
    recs = [json.loads(line) for line in p.stdout.splitlines()]
    return p.returncode, [r for r in recs if "failure" in r], next((r["summary"] for r in recs if "summary" in r),
                                                                   None), p.stderr


def with_peer(mode, at, *args):
    peer = start_server_peer(PEER, at, mode)
    if not peer:
        return 2, [], None, "the peer did not start"
    try:
        return fuzz(at, *args)
    finally:
        peer.kill()
        peer.wait()


def reproduce(mode, at, path):
    """fuzz --reproduce path against a fresh peer in mode: (exit code, the failure found or None)"""
    rc, recs, _, err = with_peer(mode, at, "--reproduce", path)
    return rc, (recs[0]["failure"] if recs else err)


# the good peer: no failure at all
rc, fails, summary, err = with_peer("good", port, "--iterations", "300", "--seed", "7")
check("good: 300 iterations, exit 0, no failure", rc == 0 and not fails and summary
      and summary["iterations"] == 300 and summary["failures"] == 0, (rc, fails, summary, err))

# crash-at-max: the crash, as "dead", on the link state's value count
out = os.path.join(work, "crash")
rc, fails, summary, err = with_peer("crash-at-max", port + 1, "--iterations", "400", "--seed", "1", "--out", out)
dead = [f for f in fails if f["failure"] == "dead" and f["pdu"] == "link state"]
check("crash-at-max: found as dead on the link state, exit 1", rc == 1 and dead, (rc, fails, summary, err))
check("crash-at-max: the mutation that did it set the value count to its maximum",
      dead and "dnp.value_count" in dead[0]["mutation"] and "65535" in dead[0]["mutation"], dead)
# the same seed: the same failure, at the same iteration, by the same mutation
rc2, fails2, _, _ = with_peer("crash-at-max", port + 7, "--iterations", "400", "--seed", "1")
key = lambda fs: [(f["failure"], f["pdu"], f["mutation"], f["iteration"]) for f in fs]
check("crash-at-max: the same seed finds it again the same way", key(fails2) == key(fails), (key(fails), key(fails2)))
if dead and dead[0]["reproducer"]:
    path = dead[0]["reproducer"]
    rc, err = reproduce("crash-at-max", port + 2, path)
    check("crash-at-max: its reproducer kills a fresh peer again (exit 1)", rc == 1 and err == "dead", (rc, err))
    rc, err = reproduce("good", port + 3, path)
    check("crash-at-max: and does nothing to a good peer (exit 0)", rc == 0 and err is None, (rc, err))
else:
    check("crash-at-max: a reproducer was written", False, dead)

# hang-reorder: the hang, minimal, reproducible
out = os.path.join(work, "hang")
rc, fails, summary, err = with_peer("hang-reorder", port + 4, "--iterations", "100", "--seed", "1", "--out", out)
hangs = [f for f in fails if f["failure"] == "hang"]
check("hang-reorder: found as hang, exit 1", rc == 1 and hangs, (rc, fails, summary, err))
check("hang-reorder: every hang is on a reliable number (the seq of a reliable message or link state)",
      hangs and all("dnp.seq" in f["mutation"] for f in hangs), hangs)
if hangs:
    h = hangs[0]
    check("hang-reorder: minimised to the connection, the mutated PDU and the probe",
          h["minimised"] and h["pdus"] == 4, h)
    dec = subprocess.run([PCAPTOOL, "decode", "--format", "json", h["reproducer"]], stdout=subprocess.PIPE, text=True)
    types = [r["fields"].get("dnp.command", [None])[0] for r in map(json.loads, dec.stdout.splitlines())]
    check("hang-reorder: the reproducer decodes as request, ack, the mutated reliable command, the probe",
          types[:2] == [0, 1] and types[2] in (4, 5) and types[3] == 4 and len(types) == 4, types)
    # the mutated command shortened while it still hangs: the peer needs
    # its number only, so its text (and any value) goes, down to the
    # command and its number (3 bytes)
    lens = [len(bytes.fromhex(r["data"])) if "data" in r else None for r in map(json.loads, dec.stdout.splitlines())]
    check("hang-reorder: the mutated command shortened (pdu_bytes > minimal_pdu_bytes = 3)",
          h["minimal_pdu_bytes"] == 3 and h["pdu_bytes"] > 3, (h, lens))
    rc, err = reproduce("hang-reorder", port + 5, h["reproducer"])
    check("hang-reorder: the reproducer hangs a fresh peer again (exit 1)", rc == 1 and err == "hang", (rc, err))
    rc, err = reproduce("good", port + 6, h["reproducer"])
    check("hang-reorder: and not a good peer (exit 0)", rc == 0 and err is None, (rc, err))

# oob-read under ASan, the peer started (and restarted) by fuzz --exec
exe = "%s --listen 127.0.0.1 %d oob-read 0" % (PEER_ASAN, port + 8)
out = os.path.join(work, "asan")
rc, fails, summary, err = fuzz(port + 8, "--iterations", "300", "--seed", "1", "--exec", exe, "--out", out,
                               "--junit", os.path.join(work, "asan.xml"))
san = [f for f in fails if f["failure"] == "sanitizer"]
check("oob-read: found as sanitizer, with AddressSanitizer's report, exit 1",
      rc == 1 and san and "AddressSanitizer: heap-buffer-overflow" in san[0]["outcome"], (rc, fails, summary, err))
if san:
    p = subprocess.run([PCAPTOOL, "fuzz", "--proto", "dnp", "--target", "127.0.0.1:%d" % (port + 9), "--timeout",
                        "1", "--exec", "%s --listen 127.0.0.1 %d oob-read 0" % (PEER_ASAN, port + 9),
                        "--reproduce", san[0]["reproducer"]], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=120, env=ENV)
    check("oob-read: its reproducer, through --exec, is reported again", p.returncode == 1 and "sanitizer" in p.stdout,
          (p.returncode, p.stdout, p.stderr))
junit = open(os.path.join(work, "asan.xml")).read() if os.path.exists(os.path.join(work, "asan.xml")) else ""
check("oob-read: the JUnit report has the failure as a failed test case",
      "<failure" in junit and "fuzz/sanitizer/link state" in junit, junit[:400])

# nothing listening: a usage error, said once
p = subprocess.run([PCAPTOOL, "fuzz", "--proto", "dnp", "--target", "127.0.0.1:%d" % (port + 10), "--iterations", "5",
                    "--timeout", "0.2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
check("nothing listening: exit 2, one line saying so", p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1,
      (p.returncode, p.stderr))
finish()
