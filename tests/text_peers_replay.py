#!/usr/bin/env python3
"""text_peers_replay.py PCAPTOOL TESTS_DIR - validate and replay against
the implementations written from the protocol texts alone
(tests/<proto>/<proto>_text_peer.py, server role, good mode) for DNP, GNE,
EOUDP and OpenDrakan (OpenTTD's: text_peers_openttd.py):

1. a conversation recorded with the text peer (the --out pcapng of a
   `pcaptool conform` run over the cases that need no deliberately broken
   packet from pcaptool) is validated with the default profile: the peer's
   own PDUs carry no warning and no error (what the text allows is never
   one), and they are there to be judged;
2. that recording's first conversation of three PDUs or more (pcaptool as
   the client) is replayed against a fresh text peer: PASS, exit 0, and the
   peer's answers in replay's --out carry no warning or error;
3. a bundled capture whose server talks on its own application's initiative
   (DNP's denetwork example: the server links two states right after the
   connection) is replayed against the text server, which has no such
   application: the verdict is a divergence naming the missing link state,
   exit 1 (the peer owes the recording's application nothing; replay says
   where they part).

Every wait is on an event (a peer's listening line, a process's end) and
bounded by a timeout. Ports: GW_TEST_PORT (the block CTest gives this test),
else picked by the process id."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

from checks import await_line, check, finish

PCAPTOOL, TESTS = sys.argv[1], sys.argv[2]
CAPTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "captures")
port = int(os.environ.get("GW_TEST_PORT", 30000 + (os.getpid() + 13) % 20000))
work = tempfile.mkdtemp(prefix="text-peers-replay.")


def start_server(proto, mode="good"):
    """the text peer `proto` as server on `port`, once it says it listens
    (each writes "server listening on" on its standard error; GNE's only
    with TEXTPEER_DEBUG, its other lines drained below)"""
    env = dict(os.environ, TEXTPEER_DEBUG="1") if proto == "gne" else None
    p = subprocess.Popen([sys.executable, os.path.join(TESTS, proto, "%s_text_peer.py" % proto), "--listen", "127.0.0.1",
                          str(port), mode], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, env=env)
    check("%s: the text server says it listens" % proto, await_line(p, "server listening on"))
    return p


def stop(p):
    # its own process group, ended by its id (never by name)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()


def run(args, timeout=60):
    return subprocess.run([PCAPTOOL] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout)


def peer_findings(pcapng):
    """(the text peer's PDUs, its findings at warning or error) in the
    recording, decoded with the default profile; the peer is the side on
    `port`"""
    r = run(["decode", "--format", "json", pcapng])
    recs = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    ours = [x for x in recs if x.get("src", "").endswith(":%d" % port)]
    bad = [(x.get("frame"), f["code"], f["message"]) for x in ours for f in x.get("findings", [])
           if f["severity"] in ("warning", "error")]
    return ours, bad


# proto: the conform cases recorded (those in which pcaptool sends only what
# the text allows a client to send: no deliberately broken packet, whose
# answers the checks below would have to excuse), the least number of PDUs
# the peer must send in them
RECORDED = {
    # connect, reliable messages acknowledged and echoed, resends, a link
    "dnp": (["dnp/connect/accepted", "dnp/reliable/acked", "dnp/reliable/each-acked", "dnp/reliable/resent",
             "dnp/reliable/duplicate-acked", "dnp/link/state-answered", "dnp/connection/close-ends"], 10),
    # the handshake accepted (with and without a UDP link), a ping answered
    "gne": (["gne/handshake/accepted", "gne/handshake/udp-unasked", "gne/handshake/udp-asked", "gne/ping/reply"],
            4),
    # connect acknowledged and answered, an important event
    "eoudp": (["eoudp/connect/acknowledged", "eoudp/connect/answered", "eoudp/important/acknowledged",
               "eoudp/important/duplicate-acked"], 4),
    # the handshake, snapshots over UDP (with the draft's created, lifecycle,
    # animation and sound packets), acknowledged and not
    "opendrakan": (["opendrakan/handshake/db-table", "opendrakan/transport/reliable-over-tcp",
                    "opendrakan/snapshot/counts-add-up", "opendrakan/snapshot/ticks-one-based",
                    "opendrakan/snapshot/no-delta-unacked", "opendrakan/snapshot/delta-on-acked"], 20),
}

for proto, (cases, least) in RECORDED.items():
    out = os.path.join(work, "%s.pcapng" % proto)
    p = start_server(proto)
    case_args = [a for c in cases for a in ("--case", c)]
    r = run(["conform", "--proto", proto, "--target", "127.0.0.1:%d" % port, "--timeout", "0.5", "-q",
             "--format", "json", "--out", out] + case_args)
    stop(p)
    recs = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    verdicts = {x["case"]: x["verdict"] for x in recs if "case" in x}
    check("%s: the %d recorded cases ran, none failed" % (proto, len(cases)),
          len(verdicts) == len(cases) and "fail" not in verdicts.values() and r.returncode == 0,
          (r.returncode, verdicts, r.stderr[-500:]))

    # 1. validate: the peer's traffic as the text allows it
    ours, bad = peer_findings(out)
    check("%s: the recording holds at least %d PDUs of the text peer" % (proto, least), len(ours) >= least,
          len(ours))
    check("%s: validate finds no warning or error in the text peer's PDUs" % proto, not bad, bad[:10])
    v = run(["validate", out])
    check("%s: validate passes the recording (exit 0)" % proto, v.returncode == 0 and v.stdout.startswith("PASS"),
          (v.returncode, v.stdout[-800:]))

    # 2. replay the recording's first conversation in which the peer
    # answered (pcaptool the client; EOUDP's first is conform's probe of a
    # header the text peer does not read, rightly unanswered) against a
    # fresh text server
    st = run(["stats", out]).stdout.splitlines()
    convs = [int(x.split(": ")[1].split()[0]) for x in st if " <-> " in x and " PDU" in x]
    # (one replay can play: OpenDrakan's begin over TCP, but on a loaded
    # machine a case's late datagram may open a conversation of its own)
    n = next((i + 1 for i, k in enumerate(convs) if k >= 3 and "begins over UDP" not in
              run(["replay", "--dry-run", "-c", str(i + 1), out]).stderr), 0)
    check("%s: the recording has a conversation with answers" % proto, n > 0, st[:10])
    p = start_server(proto)
    rp = run(["replay", "-c", str(n), "--target", "127.0.0.1:%d" % port, "--no-wait", "--timeout", "2",
              "--format", "text", "--out", os.path.join(work, "%s-replay.pcap" % proto), out], timeout=60)
    stop(p)
    last = rp.stdout.strip().splitlines()[-1] if rp.stdout.strip() else ""
    check("%s: replay of the recording against the text server passes" % proto,
          rp.returncode == 0 and last.startswith("PASS:") and "received" in last,
          (rp.returncode, rp.stdout[-1500:], rp.stderr[-500:]))
    ours, bad = peer_findings(os.path.join(work, "%s-replay.pcap" % proto))
    check("%s: the replay's --out: the text peer answered, no warning or error" % proto, ours and not bad,
          (len(ours), bad[:10]))
    if proto == "opendrakan":
        # its server speaks first: the recording's TCP handshake (conform's
        # --out writes one) tells which side connected, and replay plays
        # that one, the client
        r = run(["decode", "--format", "json", os.path.join(work, "%s-replay.pcap" % proto)])
        recs = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
        downlink = ("GLOBAL_DB_TABLE_ENTRY", "LOAD_LEVEL", "OBJECT_STATES_CHANGED", "CONFIRM_SNAPSHOT")
        sent = [x["summary"] for x in recs if "summary" in x and not x.get("src", "").endswith(":%d" % port)]
        check("opendrakan: replay played the client (sent no server packet)",
              not [x for x in sent if x.split()[0] in downlink], sent[:5])

# 3. a recording whose server acts on its own application's initiative
p = start_server("dnp")
rp = run(["replay", "--target", "127.0.0.1:%d" % port, "--no-wait", "--timeout", "1",
          os.path.join(CAPTURES, "dnp-denetwork-example.pcap")], timeout=60)
stop(p)
check("dnp denetwork example against the text server: the connection is accepted as recorded",
      "DNP Connection ack: Accepted, DNP1" in rp.stdout, rp.stdout[-1500:])
check("dnp denetwork example against the text server: a divergence, the missing link state named, exit 1",
      rp.returncode == 1 and "DIVERGENCE (missing answer)" in rp.stdout and "Link state #0" in rp.stdout
      and "FAIL:" in rp.stdout, (rp.returncode, rp.stdout[-1500:]))
shutil.rmtree(work, ignore_errors=True)
finish()
