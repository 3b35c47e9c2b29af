"""conform_common.py - what the conform tests share: run `pcaptool conform` with
every report, and check that a run gave exactly the verdicts expected and that
its reports (JSON Lines, JUnit, the --out pcapng read back, the HTML) agree."""
import concurrent.futures
import json
import os
import signal
import subprocess
import threading
import xml.etree.ElementTree as ET

from checks import await_line, check


ledger_lock = threading.Lock()
ledger_mode = ["w"]  # the first run of the test's process starts the file afresh


def ledger(records):
    """note the cases a run ran (its JSON Lines records) in the conform
    ledger, the file GW_CONFORM_LEDGER names (tests/table_check.py reads it:
    every case of the catalogue ran in some test)"""
    path = os.environ.get("GW_CONFORM_LEDGER")
    if path:
        with ledger_lock, open(path, ledger_mode[0]) as f:
            ledger_mode[0] = "a"
            for r in records:
                if "case" in r:
                    f.write(json.dumps({k: r[k] for k in ("protocol", "role", "case")}) + "\n")


def run_conform(pcaptool, proto, port, extra=(), timeout=300):
    """pcaptool conform against 127.0.0.1:port: (exit code, records, stderr)"""
    args = [pcaptool, "conform", "--proto", proto, "--target", "127.0.0.1:%d" % port, "--timeout", "1",
            "--format", "json", *extra]
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    records = [json.loads(line) for line in p.stdout.splitlines()]
    ledger(records)
    return p.returncode, records, p.stderr


def start_server_peer(peer, port, mode):
    """the test peer <peer> (tests/<proto>/) listening on 127.0.0.1:port in `mode`, once it says
    so (its \"listening\" line: no clock), or None (checked as failed)"""
    p = subprocess.Popen([peer, "--listen", "127.0.0.1", str(port), mode, "0"], stderr=subprocess.PIPE, text=True)
    if check("%s listens on %d" % (os.path.basename(peer), port), await_line(p, "listening", 30), mode):
        return p
    p.kill()
    p.wait()
    return None


def run_against_peer(pcaptool, proto, peer, port, role, mode, extra=(), silence_ms=800):
    """conform against the test peer <peer> (tests/<proto>/) in `mode`: the implementation as
    server (the peer listens) or as client (a fresh peer process connects
    for each case, and exits silence_ms after the case's last packet or when
    the case ends the connection in band)"""
    if role == "server":
        peer_p = start_server_peer(peer, port, mode)
        if not peer_p:
            return 2, [], "the peer did not start"
        result = run_conform(pcaptool, proto, port, extra)
        peer_p.kill()
        peer_p.wait()
        return result
    # the loop and its clients in a process group of their own, killed
    # together: a client forked just before the loop died (not yet named
    # as the peer) would else live on and reach the next run on this port
    loop = subprocess.Popen(["sh", "-c", 'while :; do "$0" 127.0.0.1 %d %s %d; done' % (port, mode, silence_ms), peer],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    result = run_conform(pcaptool, proto, port, list(extra) + ["--side", "server"])
    os.killpg(loop.pid, signal.SIGKILL)
    loop.wait()
    return result


def check_run(pcaptool, proto, port, name, rc, recs, err, files, n_cases, fails, others):
    """the run `name` (its files: xml, html, pcapng) ran n_cases cases, failed
    exactly `fails`, gave the verdicts `others` ({case: verdict}) to the cases
    that are neither failed nor passed, and its reports agree"""
    cases = [r for r in recs if "case" in r]
    summary = [r["summary"] for r in recs if "summary" in r]
    failing = {r["case"] for r in cases if r["verdict"] == "fail"}
    check("%s: all %d cases ran" % (name, n_cases),
          len(cases) == n_cases and summary and summary[0]["run"] == n_cases, (len(cases), summary, err))
    check("%s: fails exactly %s" % (name, sorted(fails) or "nothing"), failing == fails,
          {"unexpected": sorted(failing - fails), "missing": sorted(fails - failing),
           "outcomes": {r["case"]: r["outcome"] for r in cases if r["case"] in failing ^ fails}})
    check("%s: exit %d" % (name, 1 if fails else 0), rc == (1 if fails else 0), (rc, err))
    got = {r["case"]: r["verdict"] for r in cases if r["case"] not in failing and r["verdict"] != "pass"}
    check("%s: the other verdicts are %s" % (name, others or "pass"), got == others,
          {c: (v, [r["outcome"] for r in cases if r["case"] == c]) for c, v in got.items()})
    try:
        suite = ET.parse(files["xml"]).getroot().find("testsuite")
        junit_fail = {t.get("name") for t in suite.iter("testcase") if t.find("failure") is not None}
        check("%s: JUnit has %d cases and the same failures" % (name, n_cases),
              int(suite.get("tests")) == n_cases and junit_fail == failing, (suite.attrib, junit_fail))
    except (ET.ParseError, OSError, AttributeError) as e:
        check("%s: JUnit is readable" % name, False, str(e))
    n_pdus = sum(len(r["exchange"]) for r in cases)
    dec = subprocess.run([pcaptool, "decode", "--format", "json", "-p", "%s=%d" % (proto, port), files["pcapng"]],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    decoded = [json.loads(x) for x in dec.stdout.splitlines()]
    # PDUs only: a finding reported when a conversation ends is a record too
    ours = [x for x in decoded if x.get("proto") == proto and not x.get("end_of_conversation")]
    check("%s: --out holds every PDU of every case (%d)" % (name, n_pdus), len(ours) == n_pdus,
          (len(ours), n_pdus, dec.stderr[:500]))
    stray = stray_findings(cases, decoded)
    check("%s: what pcaptool sent decodes with no warning but each probe's own" % name, not stray, stray)
    html = open(files["html"], encoding="utf-8").read()
    check("%s: the HTML names every case and draws each exchange" % name,
          all(r["case"] in html for r in cases) and html.count("<svg class=\"seq\"") == n_cases
          and "<script" not in html and "http" not in html.replace("http-equiv", ""), len(html))


# The fault each probe carries on purpose, the one warning or error the
# decoders may give on what pcaptool sent in that case (checked by hand
# against each case's "sends"); anything else on our own bytes is a bug of
# ours (a probe that breaks two things, our own PDU misread).
DELIBERATE = {
    "dnp/commands/truncated-ignored": {"dnp.truncated"},
    "dnp/commands/unknown-ignored": {"dnp.command.unknown"},
    "dnp/connect/connect-first": {"dnp.connect.not_accepted"},
    # reliable #0 to a client refused with an unknown result code
    "dnp/connect/unknown-result-rejected": {"dnp.connect.not_accepted"},
    "dnp/connection/close-ends": {"dnp.close.not_last"},
    "dnp/link/update-unknown-link": {"dnp.link_update.unknown_link"},
    "dnp/reliable/ahead-acked": {"dnp.seq.first_not_zero"},
    "dnp/reliable/outside-window": {"dnp.seq.first_not_zero", "dnp.seq.outside_window"},
    "gne/framing/bad-magic": {"gne.nl.out_of_sync"},
    "gne/framing/oversized": {"gne.nl.too_long"},
    "gne/framing/oversized-coalesced": {"gne.nl.too_long"},
    "gne/packets/reserved-id": {"gne.packet.reserved"},
    "gne/packets/unterminated": {"gne.message.unterminated"},
    "eoudp/commands/size-mismatch-ignored": {"eoudp.size.mismatch"},
    "eoudp/commands/truncated-ignored": {"eoudp.truncated"},
    "eoudp/commands/unknown-ignored": {"eoudp.command.unknown"},
    "eoudp/commands/wrong-side-ignored": {"eoudp.command.wrong_side"},
    "opendrakan/packets/unknown-to-server": {"opendrakan.type.unknown"},
    # a CONFIRM_SNAPSHOT from the client, after the server's first datagram
    # showed which side sends the downlink
    "opendrakan/packets/downlink-from-client": {"opendrakan.direction.wrong"},
    "opendrakan/packets/unknown-tcp": {"opendrakan.type.unknown"},
    "opendrakan/packets/unknown-udp": {"opendrakan.type.unknown"},
    "opendrakan/packets/truncated-udp": {"opendrakan.truncated", "opendrakan.payload.short"},
}
# findings shown on our PDU that judge the implementation's answer to it
# (none came, or it came late), not our bytes
ABOUT_THE_ANSWER = {"dnp.ack.missing", "dnp.ack.late", "dnp.link.unanswered", "eoudp.ack.missing",
                    "eoudp.connect.unanswered", "eoudp.disconnect.unanswered", "opendrakan.snapshot.incomplete",
                    "opendrakan.snapshot.unconfirmed"}


def stray_findings(cases, decoded):
    """warnings and errors the decoders give, in the --out capture, on what
    pcaptool sent that are neither its case's deliberate fault nor about
    the implementation's answer: [(case, frame, code, message)]. The --out
    capture holds the cases' exchanges in order, so its PDUs are matched to
    them by position (a client's port may come again in a later case)."""
    exchange = [(r["case"], e) for r in cases for e in r["exchange"]]
    pdus = [x for x in decoded if x.get("proto") and not x.get("end_of_conversation")]
    stray = []
    for (case, e), x in zip(exchange, pdus):
        for f in x.get("findings", []) if e["from"] == "pcaptool" else ():
            if f["severity"] in ("warning", "error") and f["code"] not in DELIBERATE.get(case, set()) | ABOUT_THE_ANSWER:
                stray.append((case, x.get("frame"), f["code"], f["message"]))
    return stray


# Runs against peers go four at a time, each on a port of its own in the
# test's block (PORT_STRIDE apart); their checks are made in the order the
# runs were asked for.
RUNS_AT_ONCE = 4
PORT_STRIDE = 2


def run_all(port, runs):
    """each of runs, a function of a port, on a port of its own (port,
    port + PORT_STRIDE, ...: no two runs at once share one), RUNS_AT_ONCE at
    a time: their results, in order"""
    slots = [port + PORT_STRIDE * i for i in range(RUNS_AT_ONCE)]
    lock = threading.Lock()

    def on_a_slot(run):
        with lock:
            slot = slots.pop()
        try:
            return run(slot), slot
        finally:
            with lock:
                slots.append(slot)

    with concurrent.futures.ThreadPoolExecutor(max_workers=RUNS_AT_ONCE) as pool:
        return [f.result() for f in [pool.submit(on_a_slot, r) for r in runs]]


def check_modes(pcaptool, proto, peer, port, work, expected, n_cases, silence_ms):
    """every role -> mode -> (the cases it must fail, the other verdicts not
    pass) of `expected` run against the peer and checked (check_run); a
    client lingers silence_ms after its last packet"""
    asked = [(role, mode, fails, others, report_files(work, role + "-" + mode))
             for role, modes in expected.items() for mode, (fails, others) in modes.items()]
    results = run_all(port, [lambda p, a=a: run_against_peer(pcaptool, proto, peer, p, a[0], a[1],
                                                             report_args(a[4]), silence_ms) for a in asked])
    for (role, mode, fails, others, files), ((rc, recs, err), p) in zip(asked, results):
        check_run(pcaptool, proto, p, "%s %s" % (role, mode), rc, recs, err, files, n_cases[role], fails, others)


def report_files(work, name):
    return {k: os.path.join(work, "%s.%s" % (name, k)) for k in ("xml", "html", "pcapng")}


def report_args(files):
    return ["--junit", files["xml"], "--html", files["html"], "--out", files["pcapng"]]
