#!/usr/bin/env python3
"""shard_check.py PCAPTOOL CAPTURES - validate beyond one core and one
machine (issue 36, item 6):

(a) `validate -j 2` (and -j 4) over every capture in CAPTURES writes the
    same bytes as -j 1: standard output (text, JSON Lines), standard error,
    JUnit, exit code;
(b) a sharded run (the list split in 3, by --shard I/3 and by three lists
    given with --files-from) put together by `pcaptool merge` equals one
    run over all the captures, byte for byte, JSON Lines and JUnit, and
    merge's exit code is that run's. Nothing is normalised: neither output
    holds a time or a host of the run (a finding's "time" is its packet's);
(c) a capture that cannot be read, in a list read with -j 2: a one-line
    error each, exit 2, every other capture reported, as with -j 1;
and merge's refusals: shards that overlap, inputs of two kinds, a cut or
foreign input (exit 2, nothing written). Nothing here depends on timing."""
import os
import shutil
import subprocess
import sys
import tempfile

from checks import check, finish

PCAPTOOL, CAPS = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix="shard.")


def run(*args, stdin=None):
    return subprocess.run([PCAPTOOL, *args], capture_output=True, stdin=stdin, timeout=300)


def path(name):
    return os.path.join(work, name)


def read(name):
    with open(path(name), "rb") as f:
        return f.read()


def write(name, data):
    with open(path(name), "w") as f:
        f.write(data)
    return path(name)


def validate(tag, *args):
    """validate with --format json and --junit: (process, JUnit bytes)"""
    p = run("validate", "--format", "json", "--junit", path(tag + ".xml"), *args)
    return p, read(tag + ".xml")


def same(name, a, b):
    """a and b (processes) wrote the same standard output, standard error
    and exit code"""
    check(name, (a.stdout, a.stderr, a.returncode) == (b.stdout, b.stderr, b.returncode),
          "exit %d / %d; stdout %d / %d bytes; stderr %r / %r" % (
              a.returncode, b.returncode, len(a.stdout), len(b.stdout), a.stderr[-300:], b.stderr[-300:]))


# ---- (a) -j N writes what -j 1 writes -----------------------------------------

one_text = run("validate", "-j", "1", "--junit", path("one-text.xml"), CAPS)
one, one_xml = validate("one", "-j", "1", CAPS)
n_captures = one.stdout.count(b'{"record":"capture"')
check("one run: every capture of the folder reported, some fail (exit 1)",
      n_captures > 100 and one.returncode == 1, "%d captures, exit %d" % (n_captures, one.returncode))
for jobs in ("2", "4"):
    p = run("validate", "-j", jobs, "--junit", path("j-text.xml"), CAPS)
    same("-j %s text: same stdout, stderr and exit code as -j 1" % jobs, p, one_text)
    check("-j %s text: same JUnit as -j 1" % jobs, read("j-text.xml") == read("one-text.xml"))
    p, xml = validate("j", "-j", jobs, CAPS)
    same("-j %s JSON Lines: same stdout, stderr and exit code as -j 1" % jobs, p, one)
    check("-j %s JSON Lines: same JUnit as -j 1" % jobs, xml == one_xml)

# ---- (b) shards merged = one run ---------------------------------------------


def merge(*files, stdin=None):
    return run("merge", *files, stdin=stdin)


shards = []
for k in (1, 2, 3):
    p, xml = validate("shard%d" % k, "-j", "2", "--shard", "%d/3" % k, CAPS)
    with open(path("shard%d.jsonl" % k), "wb") as f:
        f.write(p.stdout)
    shards.append(p)
counts = [p.stdout.count(b'{"record":"capture"') for p in shards]
check("--shard I/3: every capture in one shard, each shard a third",
      sum(counts) == n_captures and max(counts) - min(counts) <= 1, counts)
check("--shard I/3: each shard's exit code is its own captures' (1 where one fails, else 0)",
      all(p.returncode == (1 if b'"verdict":"fail"' in p.stdout else 0) for p in shards),
      [p.returncode for p in shards])

# the shards given in any order, one of them on standard input
with open(path("shard2.jsonl"), "rb") as f:
    m = merge(path("shard3.jsonl"), "-", path("shard1.jsonl"), stdin=f)
check("merge of the 3 shards' JSON Lines = one run's, byte for byte", m.stdout == one.stdout,
      "%d / %d bytes" % (len(m.stdout), len(one.stdout)))
check("merge of JSON Lines: the one run's exit code (1)", m.returncode == one.returncode, m.returncode)
check("merge: the text report's last line on standard error",
      m.stderr.decode().startswith("%d captures: " % n_captures), m.stderr)
m = merge(path("shard2.xml"), path("shard3.xml"), path("shard1.xml"))
check("merge of the 3 shards' JUnit = one run's, byte for byte", m.stdout == one_xml,
      "%d / %d bytes" % (len(m.stdout), len(one_xml)))
check("merge of JUnit: the one run's exit code (1)", m.returncode == one.returncode, m.returncode)

# another split: the list in three consecutive parts, read with --files-from
listed = [l.split(b'"file":"')[1].split(b'"')[0].decode()
          for l in one.stdout.splitlines() if l.startswith(b'{"record":"capture"')]
third = (len(listed) + 2) // 3
parts = [listed[i:i + third] for i in range(0, len(listed), third)]
for k, part in enumerate(parts):
    p, xml = validate("part%d" % k, "--files-from", write("part%d.list" % k, "\n".join(part) + "\n"))
    with open(path("part%d.jsonl" % k), "wb") as f:
        f.write(p.stdout)
m = merge(*[path("part%d.jsonl" % k) for k in reversed(range(len(parts)))])
check("--files-from in 3 parts, merged: JSON Lines = one run's", m.stdout == one.stdout and m.returncode == 1)
m = merge(*[path("part%d.xml" % k) for k in range(len(parts))])
check("--files-from in 3 parts, merged: JUnit = one run's", m.stdout == one_xml and m.returncode == 1)

# more shards than captures: an empty share passes and merges as none
p, xml = validate("empty", "--shard", "%d/%d" % (n_captures + 1, n_captures + 1), CAPS)
check("--shard past the last capture: exit 0, no record, a JUnit without suites",
      p.returncode == 0 and p.stdout == b"" and b"<testsuite " not in xml, (p.returncode, p.stderr))
with open(path("empty.jsonl"), "wb") as f:
    f.write(p.stdout)
m = merge(path("empty.jsonl"), *[path("shard%d.jsonl" % k) for k in (1, 2, 3)])
check("an empty shard's JSON Lines merge as none", m.stdout == one.stdout)
m = merge(path("empty.xml"), *[path("shard%d.xml" % k) for k in (1, 2, 3)])
check("an empty shard's JUnit merges as none", m.stdout == one_xml)

# all passing: exit 0 both ways
ok_one, ok_xml = validate("ok-one", "--fail-on", "never", CAPS)
for k in (1, 2):
    p, _ = validate("ok%d" % k, "--fail-on", "never", "--shard", "%d/2" % k, CAPS)
    with open(path("ok%d.jsonl" % k), "wb") as f:
        f.write(p.stdout)
m = merge(path("ok1.jsonl"), path("ok2.jsonl"))
check("--fail-on never, 2 shards merged: the same bytes, exit 0 as the one run",
      ok_one.returncode == 0 and m.returncode == 0 and m.stdout == ok_one.stdout, (ok_one.returncode, m.returncode))
m = merge(path("ok2.xml"), path("ok1.xml"))
check("--fail-on never, 2 shards' JUnit merged: the same bytes, exit 0",
      m.returncode == 0 and m.stdout == ok_xml, m.returncode)

# ---- (c) what cannot be read, under -j 2 --------------------------------------

good = sorted(os.path.join(CAPS, f) for f in os.listdir(CAPS) if f.endswith(".pcap"))[:6]
missing = path("missing.pcap")
garbage = write("garbage.pcap", "this is not a capture\n")
bad_list = write("bad.list", "\n".join(good[:3] + [missing] + good[3:5] + [garbage] + good[5:]) + "\n")
bad1, bad1_xml = validate("bad1", "-j", "1", "--files-from", bad_list)
bad2, bad2_xml = validate("bad2", "-j", "2", "--files-from", bad_list)
errs = bad2.stderr.decode().splitlines()
check("-j 2, two captures that cannot be read: a line each on standard error, in list order",
      len(errs) == 2 and errs[0].startswith("pcaptool: %s: " % missing)
      and errs[1].startswith("pcaptool: %s: " % garbage), errs)
check("-j 2, captures that cannot be read: exit 2", bad2.returncode == 2, bad2.returncode)
records = [l for l in bad2.stdout.splitlines() if l.startswith(b'{"record":"capture"')]
check("-j 2: every other capture still reported, read",
      len(records) == 8 and sum(b'"readable":true' in r for r in records) == 6, records)
same("-j 2 with captures that cannot be read: what -j 1 writes", bad2, bad1)
check("-j 2 with captures that cannot be read: the JUnit of -j 1", bad2_xml == bad1_xml)
with open(path("bad.jsonl"), "wb") as f:
    f.write(bad2.stdout)
m = merge(path("bad.jsonl"))
check("merge: a capture that could not be read makes exit 2, as validate's", m.returncode == 2, m.returncode)

# ---- merge's refusals ------------------------------------------------------------


def refused(name, p):
    check(name + ": exit 2, one line, nothing written",
          p.returncode == 2 and p.stdout == b"" and len(p.stderr.splitlines()) == 1, (p.returncode, p.stderr))


refused("merge of shards that overlap", merge(path("shard1.jsonl"), path("ok1.jsonl")))
refused("merge of JSON Lines and JUnit", merge(path("shard1.jsonl"), path("shard2.xml")))
# cut after a finding record: its capture record is missing
lines = read("shard1.jsonl").splitlines(keepends=True)
last_finding = max(i for i, l in enumerate(lines) if l.startswith(b'{"record":"finding"'))
with open(path("cut.jsonl"), "wb") as f:
    f.writelines(lines[:last_finding + 1])
refused("merge of a JSON Lines output cut short", merge(path("cut.jsonl")))
with open(path("cut.xml"), "wb") as f:
    f.write(read("shard1.xml")[:-len("</testsuites>\n")])
refused("merge of a JUnit output cut short", merge(path("cut.xml")))
refused("merge of something else", merge(write("other.jsonl", '{"record":"rule","code":"x"}\n')))
refused("merge of a file that does not exist", merge(missing))

shutil.rmtree(work)
finish()
