#!/usr/bin/env python3
"""conform_eoudp.py PCAPTOOL EOUDP_PEER - pcaptool conform --proto eoudp against
tests/eoudp/eoudp_peer (written from the EOUDP text and wire-facts 4, not from our
decoder) as server and as client (a fresh client per case), well-behaved and
in broken modes: each fails exactly the cases it breaks (the sets below are
reasoned from what each mode does) and passes the rest; the cases the text
leaves open are info. R-Type's own server does not build from Debian's
packages (it needs vcpkg-only libraries and an ImGui branch from the network), so this peer is the only implementation
CI can ask. The reports agree.

Ports: GW_TEST_PORT and those above it (the block CTest gives
this test), else picked by the process id."""
import os
import sys
import tempfile

from checks import finish
from conform_common import check_modes

PCAPTOOL, PEER = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix="conform-eoudp.")
port = int(os.environ.get("GW_TEST_PORT", 30000 + (os.getpid() + 5) % 20000))

E = "eoudp/"
# the cases that end on a packet the text says MUST get an acknowledge (a
# connect to a server, an entity's component 0x0c to a client): a peer that
# does not acknowledge it fails them
IGNORED = {E + "commands/" + c for c in ("unknown-ignored", "size-mismatch-ignored", "truncated-ignored",
                                         "wrong-side-ignored")}
MUST_ACK_SERVER = IGNORED | {E + "connect/acknowledged", E + "important/duplicate-acked"}
MUST_ACK_CLIENT = IGNORED | {E + "important/acknowledged", E + "important/duplicate-acked",
                             E + "important/server-commands-acked"}
GEN = {E + "header/generations": "info"}
SERVER_INFO = dict(GEN, **{E + "connect/disconnect": "info"})
# the cases that need an accepted connection, the implementation as server
CONNECTED_SERVER = IGNORED | {E + "connect/disconnect", E + "important/acknowledged",
                              E + "important/unimportant-not-acked", E + "header/generations"}
ALL_SERVER = CONNECTED_SERVER | {E + "connect/acknowledged", E + "connect/answered", E + "important/duplicate-acked"}
ALL_CLIENT = MUST_ACK_CLIENT | {E + "connect/first", E + "important/unimportant-not-acked", E + "header/generations"}
# unimportant-not-acked is judged only once the packet after it is
# acknowledged with its id; otherwise its silence proves nothing: skipped
NO_SIGN = {E + "important/unimportant-not-acked": "skipped"}
# role -> mode -> (the cases it fails, the other verdicts that are not pass)
EXPECTED = {
    "server": {
        "good": (set(), SERVER_INFO),
        # "0x81 - Connect MUST get an acknowledge": every case that ends on a
        # connect; the acknowledgement of an important event is the
        # reference's habit only: non-strict
        "no-ack": (MUST_ACK_SERVER, dict(SERVER_INFO, **NO_SIGN, **{E + "important/acknowledged": "non-strict"})),
        # each acknowledge carries an id pcaptool had not sent (the connect's
        # id + 1, before pcaptool sent it): the audit fails every case that
        # gets one, which is every case (the one its own check cannot judge
        # included: what the audit saw decides it)
        "wrong-ack-id": (ALL_SERVER, {}),
        "ack-once": ({E + "important/duplicate-acked"}, SERVER_INFO),
        "ack-all": (set(), dict(SERVER_INFO, **{E + "important/unimportant-not-acked": "info"})),
        # no accept: the text has no MUST for one (connect/answered is
        # non-strict), so the cases that need a connection are skipped; the
        # connects are acknowledged, as the text requires
        "no-accept": (set(), dict({c: "skipped" for c in CONNECTED_SERVER}, **{E + "connect/answered": "non-strict"})),
        "die-on-unknown": ({E + "commands/unknown-ignored"}, SERVER_INFO),
        "f64-only": (set(), SERVER_INFO),
        # the text's header, size unchecked: it reads the 26-byte probe as a
        # connect and answers it in its own header, acknowledging an id read
        # from other bytes; the run learns the text's header from that
        # answer and fails nothing. Its header has no important byte, and
        # the text marks no client event "MUST get an acknowledge": the
        # reference's habit of acknowledging one, not followed, non-strict
        "rfc-lenient": (set(), dict(SERVER_INFO, **{E + "important/acknowledged": "non-strict"})),
        # the same with the 22-byte header with an important byte (learnt
        # third), sending important packets of its own, which pcaptool
        # acknowledges while it sends every header (header/generations)
        "imp-talker": (set(), SERVER_INFO),
    },
    "client": {
        "good": (set(), GEN),
        # as above: every case but connect/first (nothing of pcaptool's to
        # acknowledge there)
        "wrong-ack-id": (ALL_CLIENT - {E + "connect/first"}, {}),
        "ack-once": ({E + "important/duplicate-acked"}, GEN),
        "ack-all": (set(), dict(GEN, **{E + "important/unimportant-not-acked": "info"})),
    },
}
N_CASES = {"server": 11, "client": 10}

check_modes(PCAPTOOL, "eoudp", PEER, port, work, EXPECTED, N_CASES, 800)
finish()
