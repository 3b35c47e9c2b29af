#!/usr/bin/env python3
"""fuzz_gne.py PCAPTOOL GNE_PEER - pcaptool fuzz --proto gne over TCP against
tests/gne/gne_peer: the good peer gives no failure in 150 iterations (the
stream's own traps are no false alarm: a mutated length that swallows the
probe, a cut inside the NL header, a connection the peer ends on a bad
frame), and the planted crash-custom-max (abort() on a CustomPacket whose
length is 65535) is found as "dead" on the custom packet within 400
iterations of seed 1; its reproducer kills a fresh crash-custom-max peer and
not a good one.

Ports: GW_TEST_PORT and those above it (CTest's block for this test)."""
import os

from checks import check, finish
from fuzz_common import check_reproducer, setup

PCAPTOOL, PEER, work, port, with_peer = setup("gne")

rc, recs, summary, err = with_peer("good", port, "--iterations", "150", "--seed", "3")
check("good: 150 iterations, exit 0, no failure", rc == 0 and summary and summary["iterations"] == 150
      and summary["failures"] == 0, (rc, recs, err))

out = os.path.join(work, "crash")
rc, recs, summary, err = with_peer("crash-custom-max", port + 1, "--iterations", "400", "--seed", "1", "--out", out)
dead = [r for r in recs if r.get("failure") == "dead" and r.get("pdu") == "custom packet"]
check("crash-custom-max: found as dead on the custom packet, its length set to 65535, exit 1",
      rc == 1 and dead and "gne.custom.length" in dead[0]["mutation"] and "65535" in dead[0]["mutation"],
      (rc, recs, err))
check_reproducer(with_peer, dead, "crash-custom-max", port + 2)
finish()
