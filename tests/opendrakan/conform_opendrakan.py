#!/usr/bin/env python3
"""conform_opendrakan.py PCAPTOOL OD_PEER - pcaptool conform --proto opendrakan
against tests/opendrakan/od_peer (written from the OpenDrakan draft and wire-facts 5, not
from our decoder) as server and as client (a fresh client per case), well
behaved and in broken modes: each fails exactly the cases it breaks (the sets
below are reasoned from what each mode does), gives its non-strict, info or
skipped verdict where it only skips a recommendation, and passes the rest. The
reference (Zalasus/opendrakan) has no network transport at all, so this peer is
the only implementation there is to ask. The reports agree.

Ports: GW_TEST_PORT and those above it (the block CTest gives
this test), else picked by the process id."""
import os
import sys
import tempfile

from checks import finish
from conform_common import check_modes

PCAPTOOL, PEER = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix="conform-od.")
port = int(os.environ.get("GW_TEST_PORT", 30000 + (os.getpid() + 9) % 20000))
S, C = "opendrakan/snapshot/", "opendrakan/packets/"
# role -> mode -> (the cases it fails, the other verdicts that are not pass)
EXPECTED = {
    "server": {
        "good": (set(), {}),
        # its first snapshot never comes in full: pcaptool acknowledges none
        "count-wrong": ({S + "counts-add-up"}, {S + "delta-on-acked": "skipped"}),
        "tick-zero": (set(), {S + "ticks-one-based": "non-strict"}),
        "delta-unacked": ({S + "no-delta-unacked", S + "delta-on-acked"}, {}),
        "message-udp": ({"opendrakan/transport/reliable-over-tcp"}, {}),
        "close-on-unknown": (set(), {C + "unknown-to-server": "info"}),
    },
    "client": {
        "good": (set(), {}),
        "ack-confirm": ({S + "no-ack-incomplete"}, {}),
        "ack-changes": ({S + "no-ack-incomplete", S + "unconfirmed"}, {}),
        "changes-first": ({S + "order-independent"}, {}),
        "ack-tcp": (set(), {S + "ack-over-udp": "non-strict"}),
        # the framing and its types are the reference's (wire-facts 5.2), not
        # the text's: a client that dies on an unknown type is non-strict
        "die-on-unknown": (set(), {C + "unknown-tcp": "non-strict", C + "unknown-udp": "non-strict"}),
    },
}
N_CASES = {"server": 8, "client": 9}

check_modes(PCAPTOOL, "opendrakan", PEER, port, work, EXPECTED, N_CASES, 1500)
finish()
