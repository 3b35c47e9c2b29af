#!/usr/bin/env python3
"""The README's finding and rule tables, generated from the code's tables.

Usage: readme_tables.py PCAPTOOL README [--write]

Each table in README that follows a line

    <!-- generated: pcaptool ARGS -->

is the output of `PCAPTOOL ARGS` (a markdown table). Without --write, the
script fails (exit 1, with a diff) when a table differs from what pcaptool
prints now; with --write it puts pcaptool's tables in place. The tables are
never edited by hand: change the finding or rule in common/ (or pcaptool/run.c)
and run `python3 scripts/readme_tables.py build/pcaptool/pcaptool README.md --write`.
"""
import difflib
import shlex
import subprocess
import sys

MARK = "<!-- generated: pcaptool "


def main():
    args = [a for a in sys.argv[1:] if a != "--write"]
    if len(args) != 2:
        print(__doc__)
        return 2
    pcaptool, readme = args
    write = "--write" in sys.argv
    lines = open(readme, encoding="utf-8").read().split("\n")
    out, i, tables, stale = [], 0, 0, []
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not line.startswith(MARK):
            continue
        argv = shlex.split(line[len(MARK):].rstrip().removesuffix("-->"))
        r = subprocess.run([pcaptool] + argv, capture_output=True, text=True)
        if r.returncode != 0:
            print("FAIL: pcaptool %s: exit %d: %s" % (" ".join(argv), r.returncode, r.stderr))
            return 1
        want = r.stdout.rstrip("\n").split("\n")
        have = []
        while i < len(lines) and lines[i].startswith("|"):
            have.append(lines[i])
            i += 1
        # what pcaptool prints after its table (conform's settings: a blank
        # line, a heading, a list) is generated too: the README's lines
        # there are taken as the old ones when they begin the same way
        table = len([x for x in want if x.startswith("|")])
        tail = want[table:]
        if tail and lines[i:i + 2] == tail[:2]:
            have.extend(lines[i:i + len(tail)])
            i += len(tail)
        tables += 1
        if have != want:
            stale.append((" ".join(argv), have, want))
        out.extend(want)
    if tables == 0:
        print("FAIL: no generated tables in %s" % readme)
        return 1
    if write:
        open(readme, "w", encoding="utf-8").write("\n".join(out))
        print("%d tables written (%d changed)" % (tables, len(stale)))
        return 0
    for what, have, want in stale:
        print("FAIL: the README's table from `pcaptool %s` differs from the code:" % what)
        sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(have, want, "README", "pcaptool", lineterm="", n=0))
    if stale:
        print("(regenerate: python3 scripts/readme_tables.py build/pcaptool/pcaptool README.md --write)")
        return 1
    print("ok: %d README tables are the code's" % tables)
    return 0


if __name__ == "__main__":
    sys.exit(main())
