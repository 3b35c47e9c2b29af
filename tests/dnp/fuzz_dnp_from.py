#!/usr/bin/env python3
"""fuzz_dnp_from.py PCAPTOOL DNP_PEER CAPTURE - pcaptool fuzz --proto dnp --from
CAPTURE (captures/dnp-denetwork-example.pcap: denetwork's client, its
connection, acks, link ups and link updates) against tests/dnp/dnp_peer:
each iteration replays the recording's client side (adapted as pcaptool
replay adapts it) up to a PDU the seed picks, mutates it, then probes.

- good: 120 iterations, no failure (a mutated connection request that the
  peer refuses leaves no connection: the probe's silence is its right);
- crash-update: abort() on a link update whose link count is above 1, a
  PDU only the recording has (the catalogue's own link update is sent only
  once a link of pcaptool's is up) - found as "dead" on a recorded link
  update within 400 iterations of seed 1, the same way again on the same
  seed; its reproducer kills a fresh crash-update peer and not a good one;
  under --exec it is an exit (signal 6), minimised to the connection, the
  link update shortened to 2 bytes, and the probe;
- a capture that cannot be read: exit 2, said once.

Ports: GW_TEST_PORT and those above it (CTest's block for this test)."""
import sys

from checks import check, finish
from fuzz_common import check_reproducer, run_fuzz, setup

pcaptool, peer, work, port, with_peer = setup("dnp")
capture = sys.argv[3]

rc, fails, summary, err = with_peer("good", port, "--from", capture, "--iterations", "120", "--seed", "1")
check("good: 120 iterations from the recording, exit 0, no failure", rc == 0 and not fails and summary
      and summary["iterations"] == 120 and summary["unreached"] == 0, (rc, fails, summary, err))

out = work + "/crash"
rc, fails, summary, err = with_peer("crash-update", port + 1, "--from", capture, "--iterations", "400", "--seed", "1",
                                    "--out", out)
dead = [f for f in fails if f["failure"] == "dead" and f["pdu"].startswith("recorded PDU ")
        and f["pdu"].endswith("(Link update)")]
check("crash-update: found as dead on a recorded link update, exit 1", rc == 1 and dead, (rc, fails, summary, err))
check("crash-update: by a mutation of its link count or of the byte holding it",
      dead and ("dnp.link_count" in dead[0]["mutation"] or "of byte 1 " in dead[0]["mutation"]), dead)
rc2, fails2, _, _ = with_peer("crash-update", port + 2, "--from", capture, "--iterations", "400", "--seed", "1")
key = lambda fs: [(f["failure"], f["pdu"], f["mutation"], f["iteration"]) for f in fs]
check("crash-update: the same seed finds it again the same way", key(fails2) == key(fails), (key(fails), key(fails2)))
check_reproducer(with_peer, dead, "crash-update", port + 3)

# the same peer started by --exec: its crash is an exit (signal 6), and
# the reproducer is minimised to the connection, the link update cut to its
# command and link count (2 bytes: all the crash needs) and the probe
exe = "%s --listen 127.0.0.1 %d crash-update 0" % (peer, port + 6)
rc, fails, summary, err = run_fuzz(pcaptool, "dnp", port + 6, "--from", capture, "--iterations", "5", "--seed", "1",
                                   "--exec", exe)
ex = [f for f in fails if f["failure"] == "exit" and f["pdu"].endswith("(Link update)")]
check("crash-update under --exec: found as exit by signal 6", rc == 1 and ex and "signal 6" in ex[0]["outcome"],
      (rc, fails, summary, err))
check("crash-update under --exec: minimised to 4 PDUs, the link update shortened to 2 bytes",
      ex and ex[0]["minimised"] and ex[0]["pdus"] == 4 and ex[0]["minimal_pdu_bytes"] == 2
      and ex[0]["pdu_bytes"] > 2, ex)

rc, fails, summary, err = with_peer("good", port + 5, "--from", work + "/no-such.pcap", "--iterations", "5")
check("a capture that cannot be read: exit 2, one line", rc == 2 and len(err.strip().splitlines()) <= 2
      and "no-such.pcap" in err, (rc, err))
finish()
