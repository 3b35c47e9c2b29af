#!/usr/bin/env python3
"""fuzz_eoudp.py PCAPTOOL EOUDP_PEER - pcaptool fuzz --proto eoudp against
tests/eoudp/eoudp_peer (the implementation as server), on fixed seeds and
short runs:

- good: 300 iterations, no failure (a mutated size field the peer rightly
  ignores, a packet sent twice, an acknowledge of an id never sent: none is a
  failure while the probe, a connect, which "MUST get an acknowledge", is
  acknowledged);
- crash-size-max: abort() on a datagram whose size field says 2^64 - 1 -
  found as "dead" within 400 iterations of seed 1, the mutation naming
  eoudp.size and 18446744073709551615; the same seed finds it again the same
  way; its reproducer, sent again by fuzz --reproduce, kills a fresh
  crash-size-max peer (exit 1) and does nothing to a good one (exit 0).

Ports: GW_TEST_PORT and those above it (CTest's block for this test)."""
import os

from checks import check, finish
from fuzz_common import check_reproducer, setup

PCAPTOOL, PEER, work, port, with_peer = setup("eoudp")

rc, fails, summary, err = with_peer("good", port, "--iterations", "300", "--seed", "7")
check("good: 300 iterations, exit 0, no failure", rc == 0 and not fails and summary
      and summary["iterations"] == 300 and summary["failures"] == 0, (rc, fails, summary, err))

out = os.path.join(work, "crash")
rc, fails, summary, err = with_peer("crash-size-max", port + 1, "--iterations", "400", "--seed", "1", "--out", out)
dead = [f for f in fails if f["failure"] == "dead"]
check("crash-size-max: found as dead, exit 1", rc == 1 and dead, (rc, fails, summary, err))
check("crash-size-max: the mutation set eoudp.size to 2^64 - 1",
      dead and "eoudp.size" in dead[0]["mutation"] and "18446744073709551615" in dead[0]["mutation"], dead)
rc2, fails2, _, _ = with_peer("crash-size-max", port + 2, "--iterations", "400", "--seed", "1")
key = lambda fs: [(f["failure"], f["pdu"], f["mutation"], f["iteration"]) for f in fs]
check("crash-size-max: the same seed finds it again the same way", key(fails2) == key(fails),
      (key(fails), key(fails2)))
check_reproducer(with_peer, dead, "crash-size-max", port + 3)
finish()
