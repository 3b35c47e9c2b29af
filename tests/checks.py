"""checks.py - the tally the Python tests keep: `check(name, ok, detail)`
prints `ok NAME` or `FAIL NAME DETAIL`, and `finish()` prints the closing
`N passed, N failed` line and exits 1 on any failure."""
import sys

counts = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
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
