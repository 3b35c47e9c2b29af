#!/usr/bin/env python3
"""The table check (as Wireshark's tools/checkhf.pl checks a dissector's hf
array): what the tables declare is what the tests show.

Usage: table_check.py PCAPTOOL FIELD_KINDS SOURCE_DIR LEDGER_DIR [PLUGIN_BUILD_DIR]

1. Fields. Every field `pcaptool fields` lists is emitted on real bytes: in
   pcaptool's JSON Lines (decode --format json) of some capture in captures/
   (captures/*.pcap*, captures/rules/*.pcap), each decoded with its options
   (tests/**/expected/CAPTURE.args, tests/**/rules/RULE.args, as the expected
   outputs and rule checks decode them). Two kinds of field are never in that
   JSON, by construction, and the rule for them is read from the table (tests/
   table/field_kinds prints each field's kind from gw_protocols[]), not from
   a list of names:
     none      a label or subtree head (GW_FT_NONE): it carries no value, and
               pcaptool's JSON lists values;
     two-pass  a link to a later frame (GW_FIELD_TWO_PASS): only Wireshark's
               second pass knows it, pcaptool streams.
   Those must be shown by the Wireshark plugin (tshark -2 -T json) on some
   capture of their protocol: checked when PLUGIN_BUILD_DIR (a build with the
   plugin) is given, reported as not checked otherwise (the sanitizer build
   has no plugin).
2. Findings. Every finding `pcaptool findings` lists (the protocols' and
   pcaptool's own) fires on some capture, in the same JSON Lines, or is
   asserted to fire by a unit test: a cr_assert(collect_has_finding(.., E))
   or a cr_assert_eq(x, E) / cr_assert_eq(counts[E], n > 0) in tests/**/*.c,
   E the finding's index name from its table (common/*/*.h, pcaptool/run.c)
   or collect_finding(P, "code"), or cr_assert(has("code")) in a test file
   whose has() is collect_has_finding. The unit tests are green when this runs in
   the suite, so an assertion named here held on real bytes; an assertion
   that it does not fire (cr_assert_not, !) does not count.
3. Conform cases. Every case `pcaptool conform --proto P [--side server]
   --dry-run --format json` lists ran in some test: the conform tests write
   the cases they ran into LEDGER_DIR (a file a test, GW_CONFORM_LEDGER:
   tests/conform_common.py's ledger()); a ledger older than pcaptool is stale
   and not read (CTest runs this check after the conform tests).

What is not covered yet is listed in tests/table/gaps.txt (a name a line,
then why): a gap not listed fails, and so does a listed name that is no
longer a gap (the list only shrinks).

Each finding names what is missing; the script exits 1 if anything is.
"""
import concurrent.futures
import glob
import json
import os
import re
import shlex
import subprocess
import sys

from checks import check, finish


def lines(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()


def capture_args(src):
    """capture file name -> its pcaptool options (the .args files)"""
    args = {}
    for f in glob.glob(os.path.join(src, "tests", "**", "expected", "*.args"), recursive=True):
        args[os.path.basename(f)[:-len(".args")]] = f
    for f in glob.glob(os.path.join(src, "tests", "**", "rules", "*.args"), recursive=True):
        args[os.path.basename(f)[:-len(".args")] + ".pcap"] = f
    out = {}
    for k, v in args.items():
        a = shlex.split(open(v).read())
        # --disable NAME says which rules validate judges: decode has no rules
        out[k] = [x for i, x in enumerate(a) if x != "--disable" and (i == 0 or a[i - 1] != "--disable")]
    return out


def captures(src):
    caps = sorted(glob.glob(os.path.join(src, "captures", "*.pcap*")))
    return caps + sorted(glob.glob(os.path.join(src, "captures", "rules", "*.pcap")))


def decode(pcaptool, cap, args):
    r = subprocess.run([pcaptool, "decode", "--format", "json", "--fail-on", "never"] + args + [cap],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return cap, None, r.stderr
    fields, codes = set(), set()
    for line in r.stdout.splitlines():
        rec = json.loads(line)
        fields.update(rec.get("fields", {}))
        codes.update(f["code"] for f in rec.get("findings", []))
    return cap, (fields, codes), ""


def finding_indexes(src):
    """finding index name -> code, from the tables' sources"""
    idx = {}
    for h in glob.glob(os.path.join(src, "common", "*", "*.h")):
        for m in re.finditer(r'\bE\(\s*(\w+),\s*"([^"]+)"', open(h).read()):
            idx[m.group(1)] = m.group(2)
    run_c = open(os.path.join(src, "pcaptool", "run.c")).read()
    for m in re.finditer(r'\[(\w+)\]\s*=\s*\{\s*"([a-z_]+\.[a-z_.]+)"', run_c):
        idx[m.group(1)] = m.group(2)
    return idx


def asserted_findings(src, idx):
    """codes a unit test asserts to fire, with where"""
    forms = [
        r'cr_assert\(\s*collect_has_finding\([^,()]+,\s*(\w+)\s*\)',
        r'cr_assert_eq\(\s*[\w.>\[\]-]+,\s*(\w+)\s*\)',
        r'cr_assert_eq\(\s*[\w.>-]+\[\s*(\w+)\s*\],\s*[1-9]\d*\s*[,)]',
    ]
    by_code = r'cr_assert(?:_eq)?\([^;]*?collect_finding\(\s*\w+,\s*"([^"]+)"\)\s*\)'
    # a test file's own has("code"), where it is collect_has_finding's
    has_helper = r'static bool has\(const char \*code\) \{ return collect_has_finding\('
    found = {}
    for f in sorted(glob.glob(os.path.join(src, "tests", "**", "*.c"), recursive=True)):
        text = open(f).read()
        rel = os.path.relpath(f, src)
        for form in forms:
            for m in re.finditer(form, text):
                if m.group(1) in idx:
                    found.setdefault(idx[m.group(1)], "%s:%d" % (rel, text.count("\n", 0, m.start()) + 1))
        if re.search(has_helper, text):
            for m in re.finditer(r'cr_assert\(\s*has\(\s*"([^"]+)"\s*\)', text):
                found.setdefault(m.group(1), "%s:%d" % (rel, text.count("\n", 0, m.start()) + 1))
        for m in re.finditer(by_code, text):
            if not re.search(r'_neq|_not|!\s*collect', m.group(0)):
                found.setdefault(m.group(1), "%s:%d" % (rel, text.count("\n", 0, m.start()) + 1))
    return found


def plugin_shows(build, src, proto, wanted, args_of):
    """of `wanted` (filter names of proto), those tshark with the plugin shows
    (-2, JSON) on proto's captures: {field: capture}"""
    run = os.path.join(src, "scripts", "tshark-plugin.sh")
    seen = {}
    caps = [c for c in captures(src) if os.path.basename(c).startswith((proto + "-", proto + "."))]
    for cap in caps:
        opts = []
        args = args_of.get(os.path.basename(cap), [])
        if "--port" in args:
            continue  # Decode As of our own would be needed; other captures serve
        for a, b in zip(args, args[1:]):
            if a == "--profile":
                opts += ["-o", "%s.profile:%s" % (proto, b)]
            elif a == "--option":
                name, _, val = b.partition("=")
                opts += ["-o", "%s:%s" % (name, val)]
        r = subprocess.run(["bash", run, build] + opts + ["-2", "-r", cap, "-T", "json", "-J", proto],
                           capture_output=True, text=True)
        if r.returncode != 0:
            continue
        for f in wanted - set(seen):
            if '"%s":' % f in r.stdout:
                seen[f] = os.path.basename(cap)
        if set(seen) == wanted:
            break
    return seen


def conform_cases(pcaptool):
    cases = set()
    protos = sorted({l.split("\t")[0].split(".")[0] for l in lines([pcaptool, "fields"])})
    for proto in protos:
        for side in ([], ["--side", "server"]):
            r = subprocess.run([pcaptool, "conform", "--proto", proto, "--dry-run", "--format", "json"] + side,
                               capture_output=True, text=True)
            for line in r.stdout.splitlines():
                c = json.loads(line)
                if "case" in c:
                    cases.add((c["protocol"], c["role"], c["case"]))
    return cases


def ledger(d, pcaptool):
    """(protocol, role, case) run by the conform tests since pcaptool was built"""
    ran = {}
    built = os.path.getmtime(pcaptool)
    for f in glob.glob(os.path.join(d, "*.jsonl")):
        if os.path.getmtime(f) < built:
            continue
        for line in open(f):
            r = json.loads(line)
            if not all(k in r for k in ("protocol", "role", "case")):
                continue
            ran.setdefault((r["protocol"], r["role"], r["case"]), os.path.basename(f)[:-len(".jsonl")])
    return ran


def main():
    if len(sys.argv) not in (5, 6):
        print(__doc__)
        return 2
    pcaptool, kinds_exe, src, ledger_dir = sys.argv[1:5]
    build = sys.argv[5] if len(sys.argv) == 6 else None
    known = {}
    for line in open(os.path.join(src, "tests", "table", "gaps.txt")):
        if line.strip() and not line.startswith("#"):
            known[line.split()[0]] = line

    declared = [l.split("\t")[0] for l in lines([pcaptool, "fields"])]
    kinds = dict(l.split("\t") for l in lines([kinds_exe]))
    check("the field tables and pcaptool fields list the same %d fields" % len(declared),
          sorted(declared) == sorted(kinds), sorted(set(declared) ^ set(kinds)))
    codes = [l.split("\t")[0] for l in lines([pcaptool, "findings"])]

    args_of = capture_args(src)
    emitted, fired = {}, {}
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        for cap, got, err in pool.map(lambda c: decode(pcaptool, c, args_of.get(os.path.basename(c), [])),
                                      captures(src)):
            if not got:
                failed.append("%s: %s" % (os.path.relpath(cap, src), err))
            else:
                for f in got[0]:
                    emitted.setdefault(f, cap)
                for c in got[1]:
                    fired.setdefault(c, cap)

    check("pcaptool decodes the %d captures" % len(captures(src)), not failed, failed)

    # 1. fields
    missing = [f for f in declared if kinds.get(f) == "value" and f not in emitted]
    check("every field with a value (%d) is in pcaptool's JSON of some capture, or a known gap (%d)"
          % (sum(k == "value" for k in kinds.values()), len(missing)),
          not [f for f in missing if f not in known], [f for f in missing if f not in known])
    plugin_only = [f for f in declared if kinds.get(f) in ("none", "two-pass")]
    in_json = [f for f in plugin_only if f in emitted]
    check("no label, subtree head or two-pass link is in pcaptool's JSON", not in_json, in_json)
    if build:
        by_proto = {}
        for f in plugin_only:
            by_proto.setdefault(f.split(".")[0], set()).add(f)
        shown = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=5) as pool:
            for got in pool.map(lambda p: plugin_shows(build, src, p, by_proto[p], args_of), sorted(by_proto)):
                shown.update(got)
        unshown = [f for f in plugin_only if f not in shown]
        check("every label, subtree head and two-pass link (%d) is shown by the plugin on some capture"
              % len(plugin_only), not unshown, ["%s (%s)" % (f, kinds[f]) for f in unshown])
    else:
        print("not checked here: the %d labels, subtree heads and two-pass links (no plugin in this build)"
              % len(plugin_only))

    # 2. findings
    asserted = asserted_findings(src, finding_indexes(src))
    silent = [c for c in codes if c not in fired and c not in asserted]
    check("every finding (%d) fires on some capture (%d) or is asserted by a unit test (%d more), or is a "
          "known gap (%d)" % (len(codes), sum(c in fired for c in codes),
                              sum(c in asserted and c not in fired for c in codes), len(silent)),
          not [c for c in silent if c not in known], [c for c in silent if c not in known])
    closed = sorted(set(known) - set(missing) - set(silent))
    check("tests/table/gaps.txt lists only gaps", not closed, "no longer gaps, remove them: %s" % closed)

    # 3. conform cases
    cases = conform_cases(pcaptool)
    ran = ledger(ledger_dir, pcaptool)
    never = sorted("%s (%s)" % (c, r) for p, r, c in cases if (p, r, c) not in ran)
    check("every conform case (%d) ran in a conform test since pcaptool was built" % len(cases),
          cases and not never, never if ran else "no conform test has run since pcaptool was built")
    finish()


if __name__ == "__main__":
    sys.exit(main())
