#!/usr/bin/env python3
"""conform_eoudp.py PCAPTOOL EOUDP_PEER - pcaptool conform --proto eoudp against
tests/peers/eoudp_peer (written from eoudp.md and WIRE-NOTES 4, not from our
decoder) as server and as client (a fresh client per case), well-behaved and
in broken modes: each fails exactly the cases it breaks (the sets below are
reasoned from what each mode does) and passes the rest; the cases the text
leaves open are info. R-Type's own server does not build from Debian's
packages (../shared/peers/README.md), so this peer is the only implementation
CI can ask. The reports agree.

Ports: picked by the process id (CONFORM_PORT overrides)."""
import os
import sys
import tempfile

from checks import finish
from conform_common import check_modes

PCAPTOOL, PEER = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix="conform-eoudp.")
port = int(os.environ.get("CONFORM_PORT", 30000 + (os.getpid() + 5) % 20000))

ACKED = {"eoudp/important/acknowledged", "eoudp/important/duplicate-acked", "eoudp/commands/unknown-ignored",
         "eoudp/commands/size-mismatch-ignored", "eoudp/commands/truncated-ignored",
         "eoudp/commands/wrong-side-ignored"}
GEN = {"eoudp/header/generations": "info"}
SERVER_INFO = dict(GEN, **{"eoudp/connect/disconnect": "info"})
ALL_SERVER = ACKED | {"eoudp/connect/acknowledged", "eoudp/connect/answered", "eoudp/connect/disconnect",
                      "eoudp/important/unimportant-not-acked", "eoudp/header/generations"}
# role -> mode -> (the cases it fails, the other verdicts that are not pass)
EXPECTED = {
    "server": {
        "good": (set(), SERVER_INFO),
        "no-ack": (ACKED | {"eoudp/connect/acknowledged"}, SERVER_INFO),
        "wrong-ack-id": (ACKED | {"eoudp/connect/acknowledged"}, SERVER_INFO),
        "ack-once": ({"eoudp/important/duplicate-acked"}, SERVER_INFO),
        "ack-all": (set(), dict(SERVER_INFO, **{"eoudp/important/unimportant-not-acked": "info"})),
        # no accept: every case that needs a connection
        "no-accept": (ALL_SERVER - {"eoudp/connect/acknowledged"}, {}),
        "die-on-unknown": ({"eoudp/commands/unknown-ignored"}, SERVER_INFO),
        "f64-only": (set(), SERVER_INFO),
    },
    "client": {
        "good": (set(), GEN),
        "wrong-ack-id": (ACKED, GEN),
        "ack-once": ({"eoudp/important/duplicate-acked"}, GEN),
        "ack-all": (set(), dict(GEN, **{"eoudp/important/unimportant-not-acked": "info"})),
    },
}
N_CASES = {"server": 11, "client": 9}

check_modes(PCAPTOOL, "eoudp", PEER, port, work, EXPECTED, N_CASES, 800)
finish()
