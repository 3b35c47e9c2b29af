#!/usr/bin/env python3
"""conform_hostile.py PCAPTOOL HOSTILE_PEER - pcaptool conform against peers
that no verdict may call conforming (tests/peers/hostile_peer.py): one that
sends our own PDUs back, one that answers once and then closes its port, one
that ignores everything and floods canned answers (DNP acks of #0 to #9 and a
connection ack: DNP's numbers start at 0, so canned acks look right), one that
resets every connection, one that never reads, and an OpenDrakan server with no
UDP socket. None may pass a case, none may hang conform (each run has a
deadline), and a run's peak memory stays under 64 MB whatever the peer sends.
A peer that sends nothing at all on any connection makes the run an error
(exit 2, one line), not a column of verdicts.

Ports: every hostile peer binds port 0 and says which it got."""
import concurrent.futures
import json
import resource
import subprocess
import sys
import time

from checks import check, finish

PCAPTOOL, HOSTILE = sys.argv[1], sys.argv[2]
RSS_LIMIT_KB = 64 * 1024
DNP_CANNED = ["01000000"] + ["06%02x0000" % n for n in range(10)] + ["04e803", "05e803"]


def start_peer(kind, mode, *canned):
    p = subprocess.Popen([sys.executable, HOSTILE, kind, "127.0.0.1", "0", mode, *canned], stdout=subprocess.PIPE,
                         text=True)
    return p, int(p.stdout.readline())


def conform(proto, port, deadline=120):
    """run conform: (exit code, case records, stderr, peak RSS in KB, seconds)"""
    t0 = time.monotonic()
    p = subprocess.Popen([PCAPTOOL, "conform", "--proto", proto, "--target", "127.0.0.1:%d" % port,
                          "--timeout", "0.3", "--format", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=deadline)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return None, [], "hung: killed after %d s" % deadline, 0, deadline
    # the largest child waited for so far: pcaptool, or an earlier hostile
    # peer (a Python process of a few MB)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    recs = [json.loads(x) for x in out.decode().splitlines() if x.strip()]
    return p.returncode, [r for r in recs if "case" in r], err.decode(), rss, time.monotonic() - t0


def against(proto, kind, mode, *canned):
    """conform against a hostile peer of its own (conform's result)"""
    peer, port = start_peer(kind, mode, *canned)
    try:
        return conform(proto, port)
    finally:
        peer.kill()
        peer.wait()


# the runs go four at a time (each peer has a port of its own: port 0); their
# checks are made in the order they were asked for, at the end
pool = concurrent.futures.ThreadPoolExecutor(max_workers=4)
runs = []


def judge(name, proto, kind, mode, *canned, error_expected=False):
    runs.append((pool.submit(against, proto, kind, mode, *canned), name, error_expected))


def judged(result, name, error_expected):
    rc, cases, err, rss, secs = result
    passed = [c["case"] for c in cases if c["verdict"] == "pass"]
    check("%s: conform ended (%.1f s)" % (name, secs), rc is not None, err)
    # a run that ends in an error (exit 2) is red as a whole: the passes it
    # printed before it knew do not stand
    check("%s: %s" % (name, "the run is an error" if error_expected else "no case passed"),
          not passed or (error_expected and rc == 2), {c["case"]: c["outcome"] for c in cases if c["verdict"] == "pass"})
    if error_expected:
        # (a reset that comes while pcaptool still connects is said as that:
        # "cannot connect ...: Connection reset by peer", as under load)
        check("%s: an error, exit 2, saying the peer sent nothing or reset" % name,
              rc == 2 and ("sent nothing" in err or "reset by peer" in err) and len(err.strip().splitlines()) == 1,
              (rc, err))
    else:
        check("%s: red, exit 1" % name, rc == 1, (rc, err))
    check("%s: peak memory %d KB < 64 MB" % (name, rss), rss < RSS_LIMIT_KB, rss)


judge("dnp echo", "dnp", "udp", "echo")
judge("dnp answer once, then port closed", "dnp", "udp", "once", "01000000")
judge("dnp canned flood", "dnp", "udp", "flood", *DNP_CANNED)
for proto in ("openttd", "gne", "opendrakan"):
    judge("%s echo" % proto, proto, "tcp", "echo")
    judge("%s reset" % proto, proto, "tcp", "reset", error_expected=True)
    judge("%s never reads" % proto, proto, "tcp", "never-read", error_expected=True)
judge("opendrakan without UDP", "opendrakan", "tcp", "udp-closed", error_expected=True)
for run, name, error_expected in runs:
    judged(run.result(), name, error_expected)
finish()
