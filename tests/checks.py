"""checks.py - the tally the Python tests keep: `check(name, ok, detail)`
prints `ok NAME` or `FAIL NAME DETAIL`, and `finish()` prints the closing
`N passed, N failed` line and exits 1 on any failure. `await_line(p, text)`
waits for a peer process to say it is ready."""
import select
import sys
import threading
import time

counts = {"passed": 0, "failed": 0}
tally = threading.Lock()  # checks may be made from several threads


def check(name, ok, detail=""):
    with tally:
        if ok:
            counts["passed"] += 1
            print("ok", name)
        else:
            counts["failed"] += 1
            print("FAIL", name, (detail if isinstance(detail, str) else repr(detail))[:3000])
    return ok


def finish():
    print("%d passed, %d failed" % (counts["passed"], counts["failed"]))
    sys.exit(1 if counts["failed"] else 0)


def await_line(p, text, seconds=10):
    """wait until the process p (stderr=PIPE, text mode) writes a line
    holding `text` on its standard error, then drain the rest in the
    background: True when it did within `seconds`"""
    deadline, seen = time.monotonic() + seconds, False
    while not seen and time.monotonic() < deadline:
        r, _, _ = select.select([p.stderr], [], [], max(0, deadline - time.monotonic()))
        line = p.stderr.readline() if r else ""
        if r and not line:
            break
        seen = text in line
    threading.Thread(target=lambda: [None for _ in p.stderr], daemon=True).start()
    return seen
