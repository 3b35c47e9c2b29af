#!/usr/bin/env python3
"""conform_gne.py PCAPTOOL GNE_PEER - pcaptool conform --proto gne against
tests/gne/gne_peer (written from the GNE text and wire-facts 3, not from our
decoder) as server and as client (a fresh client per case), little-endian and
big-endian, and its deliberately broken
variants (big-endian: the run must learn the server's byte order from its
refusal, or the requests it accepts would be refused): each fails exactly the cases it breaks (the sets below are reasoned
from what each mode does), gives its non-strict verdict where it only skips a
recommendation, and passes the rest. The cases the text leaves open
(a message without its 255, a reserved id, the server's choice to accept and
to offer a UDP link, what a refused client does) are info everywhere. The reports agree.

Ports: GW_TEST_PORT and those above it (the block CTest gives
this test), else picked by the process id."""
import os
import sys
import tempfile

from checks import check, finish
from conform_common import check_modes, run_against_peer

PCAPTOOL, PEER = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix="conform-gne.")
port = int(os.environ.get("GW_TEST_PORT", 30000 + (os.getpid() + 3) % 20000))
# what the text leaves to the implementation: recorded, whatever happens
INFO = {"gne/packets/unterminated": "info", "gne/packets/reserved-id": "info"}
# the server's choices the text leaves to it ("it can choose to accept or
# refuse"; the UDP link, asked for or not): recorded, the peer accepting and
# offering its UDP port either way
INFO_S = dict(INFO, **dict.fromkeys(["gne/handshake/accepted", "gne/handshake/udp-unasked",
                                     "gne/handshake/udp-asked"], "info"))
# what a refused client does with its connection: the text says nothing
INFO_C = dict(INFO, **{"gne/handshake/refused-ends": "info"})
REFUSALS = {"gne/handshake/wrong-game", "gne/handshake/wrong-version", "gne/handshake/wrong-user-version",
            "gne/handshake/wrong-sub-version", "gne/handshake/wrong-build"}
# gne_peer sends no ping request of its own: nothing to judge
INFO_S["gne/ping/request-times-zero"] = INFO_C["gne/ping/request-times-zero"] = "skipped"
# it answers no ping: whether a CustomPacket or a RateAdjustPacket before one
# was parsed cannot show
UNPARSED = dict.fromkeys(["gne/packets/custom-parsed", "gne/packets/rate-adjust-parsed"], "skipped")
# role -> mode -> (the cases it fails, the other verdicts that are not pass)
EXPECTED = {
    "server": {
        "good": (set(), INFO_S),
        "big": (set(), INFO_S),
        # every refusal has the wrong size (the run still learns from it; the
        # case after a refusal only asks whether it closes)
        "refusal-48": (REFUSALS, INFO_S),
        # a wrong user version accepted: the case that asks fails; the one
        # about closing after a refusal has no refusal to judge
        "accept-user": ({"gne/handshake/wrong-user-version"},
                        dict(INFO_S, **{"gne/handshake/closes-after-refusal": "skipped"})),
        "keep-open": (set(), dict(INFO_S, **{"gne/handshake/closes-after-refusal": "non-strict"})),
        "no-ping": (set(), dict(INFO_S, **{"gne/ping/reply": "non-strict"}, **UNPARSED)),
        # 0.1.0 or 0.0.8 accepted for 0.0.7: the sub-version and build cases fail
        "lax-versions": ({"gne/handshake/wrong-sub-version", "gne/handshake/wrong-build"}, INFO_S),
        "ping-order": ({"gne/ping/reply"}, INFO_S),
        # "required to be able to understand and parse all of these packets"
        "drop-custom": ({"gne/packets/custom-parsed"}, INFO_S),
        "close-rate": ({"gne/packets/rate-adjust-parsed"}, INFO_S),
        # a ping that follows the packets a case asks about must be the
        # connection's first: a later one may go unanswered (the peer's
        # rate, or its choice) and then shows nothing
        "one-ping": (set(), INFO_S),
        # each connection ended by the server right after its accept, as it
        # may ("a graceful disconnect"): nothing to judge after the handshake
        # (a ping alone first sees the end, or a fresh connection shows it
        # is the server's own)
        "exit-early": (set(), dict(INFO_S, **dict.fromkeys(["gne/ping/reply", "gne/packets/custom-parsed",
                                                             "gne/packets/rate-adjust-parsed", "gne/packets/exit",
                                                             "gne/packets/reserved-id", "gne/packets/unterminated",
                                                             "gne/framing/bad-magic", "gne/framing/oversized",
                                                             "gne/framing/oversized-coalesced"], "skipped"))),
        # a UDP port offered unasked: the text leaves it open (recorded)
        "udp-always": (set(), INFO_S),
        # HawkNL's framing limits, not the text's: Non-strict at most
        "no-resync": (set(), dict(INFO_S, **dict.fromkeys(["gne/framing/bad-magic", "gne/framing/oversized",
                                                          "gne/framing/oversized-coalesced"],
                                                        "non-strict"))),
    },
    "client": {
        "good": (set(), INFO_C),
        "big": (set(), INFO_C),
        "no-udp": (set(), dict(INFO_C, **{"gne/handshake/udp-port-sent": "skipped"})),
        "no-port": ({"gne/handshake/udp-port-sent"}, INFO_C),
        # "For UDP and IPX this shall be a gint32 from 0 to 65535, inclusive"
        "port-range": ({"gne/handshake/udp-port-sent"}, INFO_C),
        # a refused client that stays: the text leaves it open (recorded)
        "stay-refused": (set(), INFO_C),
        # it leaves right after answering the first message: the cases that
        # judge by an end see it follow the ping alone they send first
        "leave-first": (set(), dict(INFO_C, **dict.fromkeys(["gne/packets/reserved-id", "gne/packets/unterminated",
                                                              "gne/packets/exit", "gne/framing/bad-magic",
                                                              "gne/framing/oversized",
                                                              "gne/framing/oversized-coalesced"], "skipped"))),
        "no-ping": (set(), dict(INFO_C, **{"gne/ping/reply": "non-strict"}, **UNPARSED)),
        "ping-order": ({"gne/ping/reply"}, INFO_C),
        # HawkNL's framing limits, not the text's: Non-strict at most
        "no-resync": (set(), dict(INFO_C, **dict.fromkeys(["gne/framing/bad-magic", "gne/framing/oversized",
                                                          "gne/framing/oversized-coalesced"],
                                                        "non-strict"))),
    },
}
N_CASES = {"server": 20, "client": 14}

# a client lingers 1.5 s after the last packet: longer than any wait
check_modes(PCAPTOOL, "gne", PEER, port, work, EXPECTED, N_CASES, 1500)

# --strict: the Non-strict verdict (a ping not answered: "encouraged") fails
rc, recs, err = run_against_peer(PCAPTOOL, "gne", PEER, port, "server", "no-ping", ["--strict", "--case", "gne/ping/*"])
summary = [r["summary"] for r in recs if "summary" in r]
check("no-ping --strict: exit 1, one failed", rc == 1 and summary and summary[0]["failed"] == 1, (rc, summary, err))
finish()
