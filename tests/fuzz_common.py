"""fuzz_common.py - what the pcaptool fuzz tests share: a run against a test
peer of tests/<proto>/ started for it, its JSON Lines read back."""
import functools
import json
import os
import subprocess
import sys
import tempfile

from checks import check
from conform_common import start_server_peer


def run_fuzz(pcaptool, proto, at, *args, env=None):
    """pcaptool fuzz --proto proto against 127.0.0.1:at: (exit code, failures, summary, stderr)"""
    # --timeout 1: an answer on loopback takes microseconds; a second is what
    # a loaded machine may add before silence is taken for a hang
    p = subprocess.run([pcaptool, "fuzz", "--proto", proto, "--target", "127.0.0.1:%d" % at, "--timeout", "1",
                        "--format", "json", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=300, env=env)
    recs = [json.loads(line) for line in p.stdout.splitlines()]
    return (p.returncode, [r for r in recs if "failure" in r], next((r["summary"] for r in recs if "summary" in r),
                                                                    None), p.stderr)


def with_peer(pcaptool, proto, peer, mode, at, *args, env=None):
    """run_fuzz against the test peer `peer` listening on at in `mode`, killed after"""
    p = start_server_peer(peer, at, mode)
    if not p:
        return 2, [], None, "the peer did not start"
    try:
        return run_fuzz(pcaptool, proto, at, *args, env=env)
    finally:
        p.kill()
        p.wait()


def setup(proto):
    """a fuzz test's start, from its command line PCAPTOOL PEER [...]: (pcaptool,
    the peer, a work folder, its first port (GW_TEST_PORT, CTest's block for
    the test), with_peer for this protocol and peer)"""
    pcaptool, peer = sys.argv[1], sys.argv[2]
    port = int(os.environ.get("GW_TEST_PORT", 30000 + os.getpid() % 20000))
    return (pcaptool, peer, tempfile.mkdtemp(prefix="fuzz-%s." % proto), port,
            functools.partial(with_peer, pcaptool, proto, peer))


def check_reproducer(with_peer, found, bad_mode, at):
    """the first failure of `found` was written as a reproducer, and fuzz
    --reproduce of it fails again on a fresh peer in bad_mode (exit 1, on
    port at) and not on a good one (exit 0, on at + 1)"""
    if not (found and found[0]["reproducer"]):
        check("%s: a reproducer was written" % bad_mode, False, found)
        return
    for mode, port, want in ((bad_mode, at, 1), ("good", at + 1, 0)):
        rc, fails, _, err = with_peer(mode, port, "--reproduce", found[0]["reproducer"])
        check("%s: the reproducer against a fresh %s peer: exit %d" % (bad_mode, mode, want), rc == want,
              (rc, fails, err))
