#!/usr/bin/env python3
"""verdicts_check.py PCAPTOOL CAPTURES SCHEMA - the verdict contract a CI job
relies on (issue 19): standard output carries one format, nothing that goes
wrong ends green, captures are read as users have them, and a pipe or a
signal loses nothing.

Each check names what it shows. Captures of other shapes are made here with
Wireshark's own tools (mergecap, editcap) and gzip, never with pcaptool."""
import gzip
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

from checks import check, finish

PCAPTOOL, CAPS, SCHEMA = sys.argv[1], sys.argv[2], sys.argv[3]
DNP = os.path.join(CAPS, "dnp-denetwork-example.pcap")        # 53 DNP PDUs, clean
SLL = os.path.join(CAPS, "dnp-gen-link-sll.pcap")             # Linux cooked capture
MALFORMED = os.path.join(CAPS, "dnp-gen-malformed.pcap")      # errors: fails
LOST_ACKS = os.path.join(CAPS, "eoudp-gen-lost-acks.pcap")    # end-of-conversation findings
NO_DNP = os.path.join(CAPS, "other-gen-no-dnp.pcap")          # none of our protocols
OPENTTD = os.path.join(CAPS, "openttd-13.0-join.pcap")
work = tempfile.mkdtemp(prefix="verdicts.")
os.chmod(work, 0o755)


def run(*args, env=None, stdout=subprocess.PIPE, stdin=None, input=None, timeout=60, **kw):
    return subprocess.run([PCAPTOOL, *args], stdout=stdout, stderr=subprocess.PIPE, stdin=stdin,
                          input=input, env=env, timeout=timeout, **kw)


def out(p):
    return p.stdout.decode("utf-8", "replace") if p.stdout is not None else ""


def err(p):
    return p.stderr.decode("utf-8", "replace")


def schema_valid(xml_bytes, name):
    path = os.path.join(work, name)
    with open(path, "wb") as f:
        f.write(xml_bytes)
    p = subprocess.run(["xmllint", "--noout", "--schema", SCHEMA, path], capture_output=True)
    return p.returncode == 0, p.stderr.decode("utf-8", "replace")


def lines_json(text):
    try:
        return [json.loads(l) for l in text.splitlines()]
    except ValueError:
        return None


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# ---- 1. one format on standard output ------------------------------------
p = run("validate", "--junit", "-", DNP)
ok, why = schema_valid(p.stdout, "v.xml")
check("validate --junit -: standard output is JUnit valid against junit-10.xsd", p.returncode == 0 and ok, why)
check("validate --junit -: the text report went to standard error", "PASS " in err(p) and b"PASS" not in p.stdout, err(p))
p = run("validate", "-q", "--junit", "-", DNP)
ok, why = schema_valid(p.stdout, "vq.xml")
check("validate -q --junit -: only the XML, nothing on standard error", ok and err(p) == "", err(p))
p = run("validate", "--format", "json", "--junit", "-", DNP)
check("validate --format json --junit -: a usage error, not two formats mixed", p.returncode == 2 and p.stdout == b"", err(p))
p = run("validate", "--format", "json", "--junit", os.path.join(work, "j.xml"), MALFORMED)
recs = lines_json(out(p))
check("validate --format json --junit FILE: JSON Lines only on standard output", p.returncode == 1 and recs is not None, out(p)[:300])
port = free_udp_port()
p = run("replay", "--target", "127.0.0.1:%d" % port, "--junit", "-", DNP)
ok, why = schema_valid(p.stdout, "r.xml")
check("replay --junit - to an unreachable UDP target: XML only on standard output, valid", ok, why + out(p)[:300])
p = run("replay", "--dry-run", "--junit", "-", DNP)
check("replay --dry-run --junit -: a usage error", p.returncode == 2, err(p))

# ---- 2. what cannot be read is never skipped -----------------------------
tree = os.path.join(work, "tree")
for d in ("locked", "ok"):
    os.makedirs(os.path.join(tree, d))
shutil.copy(MALFORMED, os.path.join(tree, "locked", "bad.pcap"))
shutil.copy(DNP, os.path.join(tree, "ok", "good.pcap"))
os.symlink(os.path.join(tree, "nothing-there"), os.path.join(tree, "ok", "dangling.pcap"))
tool = os.path.join(work, "pcaptool")
shutil.copy(PCAPTOOL, tool)
for d, _, files in os.walk(work):
    os.chmod(d, 0o755)
    for f in files:
        if not os.path.islink(os.path.join(d, f)):
            os.chmod(os.path.join(d, f), 0o755)
if os.getuid() == 0:  # root reads everything: ask as nobody
    os.chmod(os.path.join(tree, "locked"), 0o700)
    as_user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
else:
    os.chmod(os.path.join(tree, "locked"), 0o000)
    as_user = []
p = subprocess.run(as_user + [tool, "validate", tree], capture_output=True)
o = p.stdout.decode()
check("validate DIR with an unreadable folder: exit 2", p.returncode == 2, o + p.stderr.decode())
check("... the folder is UNREADABLE with its reason", "UNREADABLE %s/locked: Permission denied" % tree in o, o)
check("... a broken link is UNREADABLE", "UNREADABLE %s/ok/dangling.pcap: broken link" % tree in o, o)
check("... what could be read is judged", "PASS %s/ok/good.pcap" % tree in o and "2 unreadable" in o, o)
p = subprocess.run(as_user + [tool, "validate", os.path.join(tree, "locked")], capture_output=True)
check("validate LOCKED_DIR: says permission denied, exit 2",
      p.returncode == 2 and b"Permission denied" in p.stdout + p.stderr and b"no capture files found" not in p.stderr,
      p.stdout.decode() + p.stderr.decode())
p = subprocess.run(as_user + [tool, "validate", "--format", "json", tree], capture_output=True)
recs = lines_json(p.stdout.decode()) or []
bad = [r for r in recs if r.get("record") == "capture" and not r["readable"]]
check("validate --format json: unreadable entries are records with a reason",
      p.returncode == 2 and len(bad) == 2 and all(r.get("reason") for r in bad), p.stdout.decode())
os.chmod(os.path.join(tree, "locked"), 0o755)

# ---- 3. a write that fails fails the run ---------------------------------
with open("/dev/full", "wb") as full:
    for args in (["decode", DNP], ["decode", "--format", "json", DNP], ["validate", DNP],
                 ["validate", "--format", "json", DNP], ["stats", DNP], ["fields"], ["findings"],
                 ["validate", "--rules"], ["replay", "--dry-run", DNP], ["help"], ["decode", "--help"]):
        p = run(*args, stdout=full)
        check("%s > /dev/full: exit 2, one line" % " ".join(a if a[0] == "-" or "/" not in a else "X" for a in args),
              p.returncode == 2 and "cannot write to standard output: No space left on device" in err(p)
              and len(err(p).splitlines()) == 1, (p.returncode, err(p)))
p = run("validate", "--junit", "/dev/full", DNP)
check("validate --junit /dev/full: exit 2", p.returncode == 2 and "/dev/full" in err(p), err(p))
p = run("replay", "--target", "127.0.0.1:%d" % free_udp_port(), "--timeout", "1", "--junit", "/dev/full", DNP)
check("replay --junit /dev/full: exit 2", p.returncode == 2 and "/dev/full" in err(p), err(p))
# SIGPIPE ignored (as some CI runners and Python's subprocess do): EPIPE is
# a write error like any other
many = [OPENTTD] * 300
proc = subprocess.Popen([PCAPTOOL, "decode", "-V", *many], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        preexec_fn=lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN))
proc.stdout.readline()
proc.stdout.close()
rc = proc.wait(timeout=60)
e = proc.stderr.read().decode()
check("decode | head -1 with SIGPIPE ignored: exit 2", rc == 2 and "Broken pipe" in e, (rc, e))

# ---- 4. temporary files in $TMPDIR, or an error ---------------------------
many = [os.path.join(CAPS, f) for f in sorted(os.listdir(CAPS)) if f.endswith(".pcap")]
env = dict(os.environ, TMPDIR="/nonexistent/tmp")
p = run("validate", "--format", "json", "-j", "2", *many, env=env)
check("validate -j 2 --format json, TMPDIR not writable: exit 2, said why",
      p.returncode == 2 and "/nonexistent/tmp" in err(p), err(p))
check("... and no line of it is broken JSON", lines_json(out(p)) is not None, out(p)[:500])
tmpdir = os.path.join(work, "tmp")
os.mkdir(tmpdir)
p = run("validate", "--format", "json", "-j", "2", *many, env=dict(os.environ, TMPDIR=tmpdir))
recs = lines_json(out(p))
check("validate -j 2 --format json, TMPDIR writable: every line JSON, one capture record each",
      recs is not None and sum(r["record"] == "capture" for r in recs) == len(many), out(p)[:300])
check("... and its temporary files are gone", os.listdir(tmpdir) == [], os.listdir(tmpdir))

# ---- 5. XML well-formed whatever the path ---------------------------------
odd = os.path.join(work.encode(), b"odd\xff\x01name.pcap")
shutil.copy(MALFORMED, odd)
p = subprocess.run([PCAPTOOL.encode(), b"validate", b"--junit", b"-", odd], capture_output=True)
ok, why = schema_valid(p.stdout, "odd.xml")
check("a path with invalid UTF-8 and a control character: JUnit valid", p.returncode == 1 and ok, why)
check("... the bytes replaced by U+FFFD", "odd\ufffd\ufffdname.pcap" in p.stdout.decode("utf-8"), p.stdout[:400])
p = subprocess.run([PCAPTOOL.encode(), b"validate", b"--format", b"json", odd], capture_output=True)
check("... and JSON the same", lines_json(p.stdout.decode("utf-8")) is not None
      and "odd\ufffd\\u0001name" in p.stdout.decode("utf-8"), p.stdout[:300])

# ---- 6. replay: a report whatever the outcome -----------------------------
def replay_junit(name, args):
    path = os.path.join(work, name + ".xml")
    p = run("replay", "--junit", path, *args)
    data = open(path, "rb").read() if os.path.exists(path) else b""
    ok, why = schema_valid(data, name + ".v.xml") if data else (False, "no file written")
    return p, data, ok, why

port = free_udp_port()
p, data, ok, why = replay_junit("icmp", ["--target", "127.0.0.1:%d" % port, "--timeout", "3", DNP])
check("replay to a UDP port nobody listens on: exit 2, 'cannot be reached'",
      p.returncode == 2 and "cannot be reached" in err(p), (p.returncode, err(p)))
check("... its JUnit file says why, valid", ok and b"<error" in data and b"cannot be reached" in data, why)
p, data, ok, why = replay_junit("noconv", ["--target", "127.0.0.1:1", "--conversation", "9", DNP])
check("replay of a conversation the capture lacks: exit 2 and a JUnit file",
      p.returncode == 2 and ok and b"no conversation 9" in data, (p.returncode, why, data))
p, data, ok, why = replay_junit("unreadable", ["--target", "127.0.0.1:1", os.path.join(work, "nope.pcap")])
check("replay of a missing capture: exit 2 and a JUnit file",
      p.returncode == 2 and ok and b"No such file" in data, (p.returncode, why, data))
tcp = socket.socket()
tcp.bind(("127.0.0.1", 0))
port = tcp.getsockname()[1]
tcp.close()
p, data, ok, why = replay_junit("refused", ["--target", "127.0.0.1:%d" % port, OPENTTD])
check("replay to a refused TCP port: exit 2 and a JUnit file",
      p.returncode == 2 and ok and b"Connection refused" in data, (p.returncode, why, data))

# ---- 7. a capture with none of our protocols ------------------------------
p = run("validate", NO_DNP)
check("validate, no PDUs: passes but says so", p.returncode == 0 and "no PDUs of any protocol" in out(p), out(p))
p = run("validate", "--require-pdus", NO_DNP)
check("validate --require-pdus, no PDUs: fails", p.returncode == 1 and "FAIL" in out(p), out(p))
p = run("validate", "--require-pdus", DNP)
check("validate --require-pdus with PDUs: passes", p.returncode == 0, out(p))
for req in ([], ["--require-pdus"]):
    p = run("validate", *req, "--junit", "-", NO_DNP)
    ok, why = schema_valid(p.stdout, "nopdus.xml")
    suite = ET.fromstring(p.stdout).find("testsuite") if ok else None
    case = suite.find("testcase") if suite is not None else None
    want = "failure" if req else "skipped"
    check("JUnit of a capture with no PDUs%s: a %s case" % (" (--require-pdus)" if req else "", want),
          ok and case is not None and case.get("name") == "has_pdus" and case.find(want) is not None
          and "no PDUs of any protocol" in case.find(want).get("message"), why or p.stdout.decode())

# ---- 9. pcapng with several interfaces ------------------------------------
small = os.path.join(work, "small-snap.pcap")
subprocess.run(["editcap", "-s", "200", SLL, small], check=True)
merged = os.path.join(work, "merged.pcapng")
subprocess.run(["mergecap", "-a", "-F", "pcapng", "-w", merged, DNP, small], check=True)  # one after the other
info = subprocess.run(["capinfos", merged], capture_output=True, text=True).stdout
check("mergecap made two interfaces of different link types", "Number of interfaces in file: 2" in info, info)
n_dnp = int(subprocess.run(["capinfos", "-c", "-M", "-T", DNP], capture_output=True, text=True).stdout.split()[-1])
FRAME_FIELDS = ("dnp.types_from", "dnp.reassembled.first_frame", "dnp.ack.request_frame", "dnp.ack.acked_in",
                "dnp.resend_of")


def records(path, *args, shift=0):
    """pcaptool's JSON records without "file"; frame numbers moved by shift"""
    p = run("decode", "--format", "json", "--fail-on", "never", *args, path)
    recs = lines_json(out(p)) or []
    for r in recs:
        r.pop("file", None)
        r["frame"] += shift
        for k in FRAME_FIELDS:
            if k in r["fields"]:
                r["fields"][k] = [v + shift for v in r["fields"][k]]
    return p.returncode, sorted(json.dumps(r, sort_keys=True) for r in recs)


rc, both = records(merged)
_, a = records(DNP)
_, b = records(small, shift=n_dnp)
check("multi-interface pcapng (Ethernet + Linux cooked, snap lengths 262144 and 200): "
      "every record of both captures, as each alone gives it", rc == 0 and both == sorted(a + b)
      and len(a) == 53 and len(b) == 7, (rc, len(both), len(a), len(b)))

# ---- 10. compressed captures ----------------------------------------------
for name in ("dnp-denetwork-example.pcap", "openttd-13.0-password-chat-kick.pcapng"):
    plain = os.path.join(CAPS, name)
    gz = os.path.join(work, name + ".gz")
    with open(plain, "rb") as f, gzip.open(gz, "wb") as g:
        g.write(f.read())
    check("%s.gz decodes as the plain file" % name, records(gz) == records(plain) and records(gz)[1])
gzdir = os.path.join(work, "gzdir")
os.mkdir(gzdir)
shutil.copy(os.path.join(work, "dnp-denetwork-example.pcap.gz"), gzdir)
p = run("validate", gzdir)
check("validate finds .pcap.gz in a folder", p.returncode == 0 and "1 capture: 1 passed" in out(p), out(p))
with open(DNP, "rb") as f:
    p = run("decode", "-", stdin=f)
check("decode - reads standard input", p.returncode == 0 and out(p).count(" DNP ") == 53, out(p)[:200])
with open(os.path.join(work, "dnp-denetwork-example.pcap.gz"), "rb") as f:
    p = run("decode", "-", stdin=f)
check("decode - reads gzip from standard input", p.returncode == 0 and out(p).count(" DNP ") == 53, err(p))

# ---- 11. messages in plain words ------------------------------------------
empty = os.path.join(work, "empty.pcap")
open(empty, "wb").close()
p = run("decode", empty)
check("an empty file", p.returncode == 2 and err(p) == "pcaptool: %s: cannot read capture: empty file, not a capture\n" % empty, err(p))
data = open(DNP, "rb").read()
cut = os.path.join(work, "cut.pcap")
open(cut, "wb").write(data[:-10])
p = run("decode", cut)
check("a file cut inside its last record",
      p.returncode == 2 and err(p) == "pcaptool: %s: truncated after frame 52: what came before was decoded\n" % cut
      and out(p).count(" DNP ") == 52, err(p))
missing = os.path.join(work, "missing.pcap")
p = run("decode", missing)
check("a missing file: its path once", p.returncode == 2 and err(p).count(missing) == 1
      and "No such file or directory" in err(p), err(p))
p = run("validate", cut)
check("validate of a cut file: UNREADABLE with the reason", p.returncode == 2
      and "UNREADABLE %s: truncated after frame 52" % cut in out(p), out(p))
text = os.path.join(work, "text.pcap")
open(text, "w").write("hello, this is no capture\n")
p = run("decode", text)
check("not a capture", p.returncode == 2 and "not a capture file" in err(p), err(p))


# ---- 12. pipes and signals --------------------------------------------------
def read_line(proc, timeout):
    """one line of proc's stdout within timeout seconds, or None"""
    fd = proc.stdout.fileno()
    buf = b""
    end = time.monotonic() + timeout
    while not buf.endswith(b"\n"):
        left = end - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        c = os.read(fd, 1)
        if not c:
            return None
        buf += c
    return buf.decode()


# -l: the first PDU is printed while the writer still holds the rest back
rec1_end = 24 + 16 + int.from_bytes(data[24 + 8:24 + 12], "little")
proc = subprocess.Popen([PCAPTOOL, "decode", "-l", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE)
proc.stdin.write(data[:rec1_end])
proc.stdin.flush()
line = read_line(proc, 30)
check("decode -l -: the first record comes before the writer sends more",
      line is not None and line.startswith("1 ") and "Connection request" in line, line)
proc.stdin.write(data[rec1_end:])
proc.stdin.close()
rest = proc.stdout.read().decode()
proc.wait(timeout=30)
check("... and the rest when it does", proc.returncode == 0 and rest.count(" DNP ") == 52, rest[-200:])

# SIGINT: the conversations end (their end-of-conversation checks run), what
# was decoded is printed, exit 130
lost = open(LOST_ACKS, "rb").read()
full = run("decode", "--format", "json", LOST_ACKS)
full_recs = lines_json(out(full))
last_pdu = max(r["frame"] for r in full_recs if not r.get("end_of_conversation"))
for sig, rc_want in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
    proc = subprocess.Popen([PCAPTOOL, "decode", "-l", "--format", "json", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(lost)
    proc.stdin.flush()  # the writer stays open: the capture has not ended
    got = []
    while True:
        line = read_line(proc, 30)
        if line is None:
            break
        got.append(json.loads(line))
        if got[-1]["frame"] == last_pdu and not got[-1].get("end_of_conversation"):
            break
    proc.send_signal(sig)
    rest = proc.stdout.read().decode()
    rc = proc.wait(timeout=30)
    proc.stdin.close()
    got += lines_json(rest) or []
    for r in got:
        r["file"] = "-"
    want = full_recs
    for r in want:
        r["file"] = "-"
    check("decode - stopped by %s after the last packet: exit %d, every record, end-of-conversation ones too"
          % (sig.name, rc_want), rc == rc_want and got == want, (rc, len(got), len(want)))
proc = subprocess.Popen([PCAPTOOL, "validate", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE)
proc.stdin.write(lost)
proc.stdin.flush()
time.sleep(0.5)  # no race: whatever was read by the signal is judged, exit 130 either way
proc.send_signal(signal.SIGINT)
o = proc.stdout.read().decode()
rc = proc.wait(timeout=30)
proc.stdin.close()
check("validate - stopped by SIGINT: exit 130 with its report", rc == 130 and "1 capture" in o, (rc, o))

# ---- 14. one vocabulary -----------------------------------------------------
p = run("decode", "--format", "json", DNP, OPENTTD)
recs = lines_json(out(p)) or []
check("decode JSON of two files: every record names its file",
      {r["file"] for r in recs} == {DNP, OPENTTD} and recs[0]["file"] == DNP and recs[-1]["file"] == OPENTTD,
      {r.get("file") for r in recs})
p = run("decode", DNP, OPENTTD)
check("decode text of two files: a header per file",
      out(p).startswith("==> %s <==\n" % DNP) and "\n\n==> %s <==\n" % OPENTTD in out(p), out(p)[:100])
p = run("stats", "--format", "json", DNP)
recs = lines_json(out(p)) or []
check("stats JSON: 'file'", recs and all(r.get("file") == DNP and "capture" not in r for r in recs), out(p)[:300])
p = run("validate", "--format", "json", MALFORMED)
recs = lines_json(out(p)) or []
finds = [r for r in recs if r["record"] == "finding"]
check("validate JSON: a finding's code is 'code'", finds and all("code" in r and "rule" not in r for r in finds),
      out(p)[:300])

# ---- 15. help and usage errors ----------------------------------------------
for sub in ("decode", "validate", "stats", "replay", "fields", "findings", "help"):
    a, b, c = run(sub, "--help"), run(sub, "-h"), run("help", sub)
    check("%s --help, -h and help %s: the same usage with exit codes" % (sub, sub),
          a.returncode == b.returncode == c.returncode == 0 and out(a) == out(b) == out(c)
          and out(a).startswith("Usage: pcaptool " + sub) and "Exit codes" in out(a), out(a)[:200])
p = run("decode", "--bogus", DNP)
check("an unknown option: one line, exit 2",
      p.returncode == 2 and err(p) == "pcaptool decode: unknown option '--bogus' (see pcaptool decode --help)\n", err(p))
p = run("validate", "-Z", DNP)
check("an unknown short option: one line", p.returncode == 2 and err(p) == "pcaptool validate: unknown option '-Z' (see pcaptool validate --help)\n", err(p))
p = run("decode", "--format")
check("an option without its argument: one line", p.returncode == 2 and len(err(p).splitlines()) == 1
      and "needs an argument" in err(p), err(p))
for args, what in ((["fields", "dnp", "openttd"], "fields with two protocols"),
                   (["replay", "--no-wait", "--speed", "4", "--target", "127.0.0.1:1", DNP], "--no-wait with --speed"),
                   (["decode", "-V", "--format", "json", DNP], "-V with JSON"),
                   (["stats", "--fail-on", "error", DNP], "--fail-on in stats (no verdict)"),
                   (["decode", "-f", "json", DNP], "-f json (the format is -T)"),
                   (["decode", "-w", os.path.join(work, "x.pcapng"), DNP], "-w without -i"),
                   (["decode", "-i", "lo", DNP], "-i with files")):
        p = run(*args)
        check("%s: a usage error, one line" % what, p.returncode == 2 and len(err(p).splitlines()) == 1, err(p))
p = run("validate", "--rules", "--format", "json")
recs = lines_json(out(p))
check("validate --rules --format json: JSON Lines", p.returncode == 0 and recs and
      all(set(r) == {"record", "code", "severity", "summary", "enforces"} for r in recs), out(p)[:300])
p = run("help", "frobnicate")
check("help of an unknown command: exit 2", p.returncode == 2, err(p))

shutil.rmtree(work, ignore_errors=True)
finish()
