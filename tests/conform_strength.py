#!/usr/bin/env python3
"""conform_strength.py PCAPTOOL - every conformance case's verdicts agree
with the strength of the sentence it rests on (pcaptool conform --dry-run -T
json, all five protocols, both roles). The house rule: a MUST broken is a
fail; a SHOULD not followed is at most non-strict; where the text leaves it
open the case records what the peer did (info); what only the reference
does is at most non-strict. So a case whose strength is SHOULD, open or
reference may say "Fail" in its expects only in a clause (between ';') that
names the separate MUST the fail rests on; an open case says neither Fail
nor Non-strict about the behaviour itself, and says Info. Every case states
its strength."""
import json
import re
import subprocess
import sys

from checks import check, finish

PCAPTOOL = sys.argv[1]
PROTOS = ["dnp", "openttd", "gne", "eoudp", "opendrakan"]
STRENGTHS = {"MUST", "SHOULD", "open", "reference"}

seen = 0
for proto in PROTOS:
    for side in ("client", "server"):
        r = subprocess.run([PCAPTOOL, "conform", "--proto", proto, "--side", side, "--dry-run", "-T", "json"],
                           capture_output=True, text=True)
        cases = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
        check("%s %s: the catalogue is printed" % (proto, side), r.returncode == 0 and cases, r.stderr)
        for c in cases:
            seen += 1
            name = "%s (the implementation as %s)" % (c["case"], c["role"])
            s, expects = c.get("strength"), c["expects"]
            if not check(name + ": its strength is stated", s in STRENGTHS, s):
                continue
            if s == "MUST":
                continue
            clauses = [k.strip() for k in expects.split(";")]
            loose = [k for k in clauses if re.search(r"\bFail\b", k) and "MUST" not in k]
            check(name + ": a%s %s case fails only on a MUST its expects names" % ("n" if s == "open" else "", s), not loose, loose)
            if s == "open":
                graded = [k for k in clauses if re.search(r"\bNon-strict\b", k)]
                check(name + ": an open case grades nothing (no Non-strict)", not graded, graded)
                check(name + ": an open case records (Info)", re.search(r"\bInfo\b", expects), expects)
check("cases seen", seen > 100, seen)
finish()
