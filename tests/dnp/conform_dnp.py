#!/usr/bin/env python3
"""conform_dnp.py PCAPTOOL DNP_PEER ROLE - pcaptool conform --proto dnp against
tests/dnp/dnp_peer (written from the DNP text and denetwork's behaviour, not from
our decoder), the implementation as ROLE (server: pcaptool connects; client:
the peer connects once per case). A well-behaved peer passes every case; each
deliberately broken variant fails exactly the cases it breaks (the sets below
are reasoned from what each mode does, case by case) and passes the rest; a
recommendation not followed is Non-strict, and fails only under --strict.
The reports agree with each other: JSON Lines, JUnit, the pcapng of the
traffic (read back through pcaptool decode), the HTML page (well-formed).

Ports: GW_TEST_PORT and those above it (the block CTest gives
this test), else picked by the process id."""
import json
import os
import subprocess
import sys
import tempfile

from checks import check, finish
from conform_common import check_run, report_args, report_files, run_against_peer, run_all, start_server_peer

PCAPTOOL, PEER, ROLE = sys.argv[1], sys.argv[2], sys.argv[3]
work = tempfile.mkdtemp(prefix="conform.")
port = int(os.environ.get("GW_TEST_PORT", 30000 + os.getpid() % 20000))

ACK = ["dnp/reliable/acked", "dnp/reliable/each-acked", "dnp/reliable/resent", "dnp/reliable/duplicate-acked",
       "dnp/reliable/outside-window", "dnp/reliable/ahead-acked", "dnp/commands/unknown-ignored",
       "dnp/commands/truncated-ignored", "dnp/link/state-answered", "dnp/link/update-unknown-link"]
# needs #0 acknowledged on the connection after a rejection (the server only)
FORGOTTEN = "dnp/connect/rejected-forgotten"
# the implementation as client: whether it took an unknown result for a
# rejection shows only when it asks again; dnp_peer does not (info)
UNKNOWN_RESULT = "dnp/connect/unknown-result-rejected"
# mode -> the cases it must fail, for the implementation as server and as client
EXPECTED = {
    "good": set(),
    "reorder": set(),  # answers in another order: nothing the text forbids
    # every case that needs an ack of a number, unreliable-not-acked too (its
    # silence counts only once #0 after it is acknowledged); as server also
    # repeat-ignored, whose #0 must be acknowledged before the second request,
    # and accepted, whose connection must then acknowledge #0
    "wrong-ack": set(ACK) | {"dnp/message/unreliable-not-acked"}
    | ({"dnp/connect/repeat-ignored", "dnp/connect/accepted", FORGOTTEN} if ROLE == "server" else set()),
    "no-link-up": {"dnp/link/state-answered"},
    # it closes the connection after its first ack, as either side may when
    # it likes ("Send by server before disconnecting client"): every case
    # needing a second ack cannot be judged, skipped (see SKIPPED below)
    "close-early": set(),
    "no-window": {"dnp/reliable/outside-window"},
    "ack-unreliable": {"dnp/message/unreliable-not-acked"},
    "up-first": set(),  # Non-strict only; see below
}
if ROLE == "server":
    EXPECTED["accept-any"] = {"dnp/connect/no-common-protocol"}
    EXPECTED["reack"] = {"dnp/connect/repeat-ignored"}
    # a refused client kept as connected: its request offering DNP1 is then
    # ignored ("has to forget about the connect request")
    EXPECTED["remember-rejected"] = {FORGOTTEN}
    # a refused address refused again for no common protocol, DNP1 or not:
    # DNP1 from a fresh address is accepted
    EXPECTED["rerefuse"] = {FORGOTTEN}
    # it refuses 9 and DNP1 together for no common protocol and DNP1 alone
    # not: the unknown 9 was not passed over
    EXPECTED["unknown-refused"] = {"dnp/connect/unknown-protocol-ignored"}
    # a server of a later protocol only: DNP1 refused with result 2, which
    # no sentence forbids (the text requires no protocol of a server):
    # nothing fails (see OTHERS)
    EXPECTED["no-dnp1"] = set()
else:
    # an unknown result taken for an acceptance: #0 acknowledged
    EXPECTED["unknown-accepts"] = {UNKNOWN_RESULT}
N_CASES = 18 if ROLE == "server" else 15
# the client runs take a peer process per case: the modes that show what
# differs for a client (the server-only ones have no client form)
MODES = list(EXPECTED) if ROLE == "server" else ["good", "close-early", "no-window", "up-first", "unknown-accepts"]


def conform(mode, *extra, at=port):
    """run conform against the peer in `mode`: (exit code, records, stderr)"""
    return run_against_peer(PCAPTOOL, "dnp", PEER, at, ROLE, mode, extra)


# mode -> the verdicts other than pass and fail
OTHERS = {"up-first": {"dnp/link/state-answered": "info"},  # the text orders the ack and the answer not
          # it accepts the request offering only an unknown protocol: no
          # rejection to forget
          "accept-any": {FORGOTTEN: "skipped"},
          # acceptance is what the text leaves open (info); every case that
          # needs a connection, and the two that tell a refusal of DNP1
          # from a fault only by accepting it, have nothing to judge
          "no-dnp1": dict({"dnp/connect/accepted": "info"},
                          **dict.fromkeys(ACK + ["dnp/message/unreliable-not-acked", "dnp/connect/repeat-ignored",
                                                 "dnp/connection/close-ends", FORGOTTEN,
                                                 "dnp/connect/unknown-protocol-ignored"], "skipped")),
          "close-early": dict.fromkeys(["dnp/reliable/each-acked", "dnp/reliable/duplicate-acked",
                                        "dnp/reliable/ahead-acked"]
                                       + (["dnp/connect/repeat-ignored", "dnp/connect/accepted"]
                                          if ROLE == "server" else []), "skipped")}

results = run_all(port, [lambda p, m=m: conform(m, *report_args(report_files(work, m)), at=p) for m in MODES])
for mode, ((rc, recs, err), at) in zip(MODES, results):
    files = report_files(work, mode)
    # dnp_peer never sends a reliable command of its own: nothing to resend
    others = dict(OTHERS.get(mode, {}), **({} if "dnp/reliable/resent" in EXPECTED[mode]
                                           else {"dnp/reliable/resent": "skipped"}))
    if ROLE == "client" and UNKNOWN_RESULT not in EXPECTED[mode]:
        others[UNKNOWN_RESULT] = "info"
    check_run(PCAPTOOL, "dnp", at, mode, rc, recs, err, files, N_CASES, EXPECTED[mode], others)

# what decided is drawn: the link up that answered (good), the silence where
# none came (no-link-up): no PDU is marked then, and the report says so
by_mode = {mode: {r["case"]: r for r in recs if "case" in r} for mode, ((rc, recs, err), at) in zip(MODES, results)}
if "no-link-up" in by_mode:
    bad = by_mode["no-link-up"]["dnp/link/state-answered"]
    check("no-link-up: the silence decided, no PDU", bad.get("ended", {}).get("by") == "silence"
          and not any(q["decisive"] for q in bad["exchange"]), bad)
    with open(report_files(work, "no-link-up")["html"]) as f:
        check("no-link-up: the HTML draws the silence", 'class="silence"' in f.read())
good = by_mode["good"]["dnp/link/state-answered"]
decided = [q["summary"] for q in good["exchange"] if q["decisive"]]
check("good: the link up decided, nothing ended", "ended" not in good and len(decided) == 1
      and decided[0].startswith("Link up"), good)

# --strict fails Non-strict verdicts only: an Info (what the text leaves
# open) never fails a run (conform_gne checks a Non-strict under --strict)
rc, recs, err = conform("up-first", "--strict")
summary = [r["summary"] for r in recs if "summary" in r]
check("up-first --strict: exit 0, none failed", rc == 0 and summary and summary[0]["failed"] == 0, (rc, summary))

if ROLE == "server":
    # the text report's verdicts in colour: with --color always, and not
    # through a pipe (auto), as h2spec's
    peer_p = start_server_peer(PEER, port, "no-window")
    colour = {}
    for when in ("always", "auto"):
        colour[when] = subprocess.run([PCAPTOOL, "conform", "--proto", "dnp", "--target", "127.0.0.1:%d" % port,
                                       "--case", "dnp/reliable/acked", "--case", "dnp/reliable/outside-window",
                                       "--color", when], stdout=subprocess.PIPE, text=True, timeout=60).stdout
    peer_p.kill()
    peer_p.wait()
    check("--color always: pass in green, fail in bold red",
          "\x1b[32mPASS" in colour["always"] and "\x1b[1;31mFAIL" in colour["always"], colour["always"])
    check("--color auto through a pipe: no escape", "PASS" in colour["auto"] and "\x1b" not in colour["auto"],
          colour["auto"])

    # --case picks cases by glob
    rc, recs, err = conform("good", "--case", "dnp/reliable/*")
    ids = [r["case"] for r in recs if "case" in r]
    check("--case dnp/reliable/*: only those", ids and all(i.startswith("dnp/reliable/") for i in ids)
          and len(ids) == 6, ids)

    # nobody listens: a port unreachable is a target that cannot be reached
    p = subprocess.run([PCAPTOOL, "conform", "--proto", "dnp", "--target", "127.0.0.1:%d" % port],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    check("no server: exit 2 and one line saying so",
          p.returncode == 2 and "unreachable" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
          (p.returncode, p.stderr))
    # --dry-run contacts nobody and lists the catalogue
    p = subprocess.run([PCAPTOOL, "conform", "--proto", "dnp", "--dry-run", "--format", "json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    cat = [json.loads(x) for x in p.stdout.splitlines()]
    check("--dry-run: the %d server cases, each with its sentence" % N_CASES,
          p.returncode == 0 and len(cat) == N_CASES and all(c["text"] and c["expects"] for c in cat), p.stdout[:300])
finish()
