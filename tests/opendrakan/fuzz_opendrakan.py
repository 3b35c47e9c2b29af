#!/usr/bin/env python3
"""fuzz_opendrakan.py PCAPTOOL OD_PEER - pcaptool fuzz --proto opendrakan against
tests/opendrakan/od_peer as server (TCP, with the snapshots over UDP), 40
iterations of seed 2 each:

- good: no failure (mutated acknowledgements, actions and analog inputs,
  over both transports, while three more snapshots follow each);
- stall-ack-max: a client that acknowledges tick 2^64 - 1 gets no snapshot
  again while its connection stays open - found as "hang" on the
  acknowledgement, its tick set to 18446744073709551615; the reproducer
  (the acknowledgement alone, over UDP, after the server's level) hangs a
  fresh stall-ack-max peer (exit 1) and not a good one (exit 0).

Ports: GW_TEST_PORT and those above it (CTest's block for this test)."""
import os

from checks import check, finish
from fuzz_common import check_reproducer, setup

PCAPTOOL, PEER, work, port, with_peer = setup("opendrakan")

rc, fails, summary, err = with_peer("good", port, "--iterations", "40", "--seed", "2")
check("good: 40 iterations, exit 0, no failure", rc == 0 and not fails and summary
      and summary["iterations"] == 40 and summary["failures"] == 0 and summary["unreached"] == 0,
      (rc, fails, summary, err))

out = os.path.join(work, "stall")
rc, fails, summary, err = with_peer("stall-ack-max", port + 1, "--iterations", "40", "--seed", "2", "--out", out)
hangs = [f for f in fails if f["failure"] == "hang"]
check("stall-ack-max: found as hang on the acknowledgement, exit 1",
      rc == 1 and hangs and all(f["pdu"] == "acknowledge snapshot" for f in hangs), (rc, fails, summary, err))
check("stall-ack-max: the mutation set opendrakan.tick to 2^64 - 1",
      hangs and "opendrakan.tick" in hangs[0]["mutation"] and "18446744073709551615" in hangs[0]["mutation"], hangs)
check_reproducer(with_peer, hangs, "stall-ack-max", port + 2)
finish()
