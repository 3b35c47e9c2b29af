#!/usr/bin/env python3
"""fuzz_dnp_client.py PCAPTOOL DNP_PEER - pcaptool fuzz --side server: pcaptool
plays the DNP server and fuzzes tests/dnp/dnp_peer as a client, one client
process a connection (started by --exec; a client ends when its connection
does, so only a crash - a signal - or a sanitizer report is a failure of
its process), on seed 1:

- good: 300 iterations, no failure;
- crash-at-max: the client abort()s on a link state whose value count is
  65535 - found as "exit" (killed by signal 6) on the link state within 400
  iterations; the reproducer (the client's request awaited, then the
  connection ack, the mutated link state and the probe) kills a fresh
  crash-at-max client again (exit 1) and not a good one (exit 0);
- same port: 20 iterations of good clients that all send from one port (a
  new process may get the port of the one that ended: it is the next
  case's client, not the last one still talking), no failure.

Ports: GW_TEST_PORT and those above it (CTest's block for this test)."""
import os
import sys
import tempfile

from checks import check, finish
from fuzz_common import run_fuzz

PCAPTOOL, PEER = sys.argv[1], sys.argv[2]
port = int(os.environ.get("GW_TEST_PORT", 30000 + os.getpid() % 20000))
work = tempfile.mkdtemp(prefix="fuzz-dnp-client.")


def client(mode, at, *args, source=None):
    """fuzz --side server on at, each iteration's client started by --exec in mode
    (from port source, when given)"""
    exe = "%s %s127.0.0.1 %d %s 800" % (PEER, "--from %d " % source if source else "", at, mode)
    return run_fuzz(PCAPTOOL, "dnp", at, "--side", "server", "--exec", exe, *args)


rc, fails, summary, err = client("good", port, "--iterations", "300", "--seed", "1")
check("good client: 300 iterations, exit 0, no failure", rc == 0 and not fails and summary
      and summary["iterations"] == 300 and summary["failures"] == 0 and summary["role"] == "client",
      (rc, fails, summary, err))

rc, fails, summary, err = client("crash-at-max", port + 1, "--iterations", "400", "--seed", "1", "--out", work)
crash = [f for f in fails if f["failure"] == "exit" and f["pdu"] == "link state"]
check("crash-at-max client: found as exit (signal 6) on the link state, its value count 65535, exit 1",
      rc == 1 and crash and "signal 6" in crash[0]["outcome"] and "dnp.value_count" in crash[0]["mutation"]
      and "65535" in crash[0]["mutation"], (rc, fails, summary, err))
if crash and crash[0]["reproducer"]:
    for mode, at, want in (("crash-at-max", port + 2, 1), ("good", port + 3, 0)):
        rc, fails, _, err = client(mode, at, "--reproduce", crash[0]["reproducer"])
        check("crash-at-max client: the reproducer against a fresh %s client: exit %d" % (mode, want), rc == want,
              (rc, fails, err))
else:
    check("crash-at-max client: a reproducer was written", False, crash)

rc, fails, summary, err = client("good", port + 4, "--iterations", "20", "--seed", "1", source=port + 5)
check("same port: 20 iterations of clients from one port, exit 0, no failure", rc == 0 and not fails and summary
      and summary["iterations"] == 20 and summary["failures"] == 0, (rc, fails, summary, err))
finish()
