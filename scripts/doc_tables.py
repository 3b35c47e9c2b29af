#!/usr/bin/env python3
"""The documentation's generated tables, made from the code's tables.

Usage: doc_tables.py PCAPTOOL [FILE...] [--write]

Each table in the files that follows a line

    <!-- generated: pcaptool ARGS -->

is the output of `PCAPTOOL ARGS` (a markdown table; output that is no table,
such as `pcaptool options dnp`, is shown as a ```text block). A marker may
keep only
some rows of that table:

    <!-- generated: pcaptool ARGS; rows: PREFIX -->

keeps the header and the rows whose first cell begins with `PREFIX (a
protocol's rules on its own page: `rows: dnp.`). The files are README.md and
every .md file under docs/ unless named. Without --write, the script fails
(exit 1, with a diff) when a table differs from what pcaptool prints now, or
when a table shown only in parts (rows:) has a row that no part shows (a new
protocol's rules with no page); with --write it puts pcaptool's tables in
place. The tables are never edited by hand: change the field, finding, rule
or conformance case in common/ (or pcaptool/run.c) and run
`python3 scripts/doc_tables.py build/pcaptool/pcaptool --write`.
"""
import difflib
import glob
import os
import shlex
import subprocess
import sys

MARK = "<!-- generated: pcaptool "
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def default_files():
    files = [os.path.join(TOP, "README.md")]
    files += sorted(glob.glob(os.path.join(TOP, "docs", "**", "*.md"), recursive=True))
    return files


def run(pcaptool, argv, cache):
    key = tuple(argv)
    if key not in cache:
        r = subprocess.run([pcaptool] + argv, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("pcaptool %s: exit %d: %s" % (" ".join(argv), r.returncode, r.stderr))
        cache[key] = r.stdout.rstrip("\n").split("\n")
    return cache[key]


def first_cell(row):
    return row.split("|")[1].strip().strip("`") if row.count("|") >= 2 else ""


def one_file(path, pcaptool, cache, parts):
    """The file's lines with its tables as pcaptool prints them now, the
    number of tables and the stale ones."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i, tables, stale = [], 0, 0, []
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not line.startswith(MARK):
            continue
        spec = line[len(MARK):].rstrip().removesuffix("-->").strip()
        prefix = None
        if "; rows: " in spec:
            spec, prefix = spec.split("; rows: ", 1)
            prefix = prefix.strip()
        argv = shlex.split(spec)
        want = run(pcaptool, argv, cache)
        if prefix is not None:
            table = [x for x in want if x.startswith("|")]
            rows = [x for x in table[2:] if first_cell(x).startswith(prefix)]
            parts.setdefault(tuple(argv), set()).update(rows)
            want = table[:2] + rows
        have = []
        if want and not want[0].startswith("|"):
            # not a table (`pcaptool options dnp`): shown as a text block
            want = ["```text"] + want + ["```"]
            if i < len(lines) and lines[i].startswith("```"):
                j = lines.index("```", i + 1) if "```" in lines[i + 1:] else len(lines) - 1
                have, i = lines[i:j + 1], j + 1
            tables += 1
            if have != want:
                stale.append((" ".join(argv), have, want))
            out.extend(want)
            continue
        while i < len(lines) and lines[i].startswith("|"):
            have.append(lines[i])
            i += 1
        # what pcaptool prints after its table (conform's settings: a blank
        # line, a heading, a list) is generated too: the file's lines there
        # are taken as the old ones when they begin the same way
        table = len([x for x in want if x.startswith("|")])
        tail = want[table:]
        if tail and lines[i:i + 2] == tail[:2]:
            have.extend(lines[i:i + len(tail)])
            i += len(tail)
        tables += 1
        if have != want:
            stale.append((" ".join(argv) + ("" if prefix is None else " (rows %s)" % prefix), have, want))
        out.extend(want)
    return out, tables, stale


def main():
    write = "--write" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--write"]
    if len(args) < 1:
        print(__doc__)
        return 2
    pcaptool, files = args[0], args[1:] or default_files()
    cache, parts, total, failed = {}, {}, 0, False
    for path in files:
        name = os.path.relpath(path, TOP)
        try:
            out, tables, stale = one_file(path, pcaptool, cache, parts)
        except RuntimeError as e:
            print("FAIL: %s: %s" % (name, e))
            return 1
        total += tables
        if write:
            if stale:
                open(path, "w", encoding="utf-8").write("\n".join(out))
                print("%s: %d tables written (%d changed)" % (name, tables, len(stale)))
            continue
        for what, have, want in stale:
            failed = True
            print("FAIL: %s: the table from `pcaptool %s` differs from the code:" % (name, what))
            sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(have, want, name, "pcaptool", lineterm="", n=0))
    if total == 0:
        print("FAIL: no generated tables in %s" % ", ".join(files))
        return 1
    for argv, shown in sorted(parts.items()):
        table = [x for x in cache[argv] if x.startswith("|")][2:]
        missing = [x for x in table if x not in shown]
        if missing:
            failed = True
            print("FAIL: `pcaptool %s` has rows no page shows (add a `rows:` table for them):" % " ".join(argv))
            sys.stdout.writelines("  " + first_cell(x) + "\n" for x in missing)
    if write:
        print("%d tables in %d files" % (total, len(files)))
        return 1 if failed else 0
    if failed:
        print("(regenerate: python3 scripts/doc_tables.py build/pcaptool/pcaptool --write)")
        return 1
    print("ok: %d generated tables in %d files are the code's" % (total, len(files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
