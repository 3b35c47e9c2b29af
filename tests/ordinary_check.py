#!/usr/bin/env python3
"""ordinary_check.py PCAPTOOL BUILD_DIR|- - no heuristic claims ordinary
traffic (issue 20): captures of DNS, NTP, SNMP, DHCP, SIP, RTP, TFTP,
syslog, STUN, mDNS, NetBIOS, QUIC, random, zero-filled, small-first-byte,
length-prefixed and "NL"-prefixed datagrams and HTTP, TLS, SSH, SMTP and
random streams over IPv4 and IPv6 (tests/gen/ordinary_traffic.py, five
seeds) hold no PDU of any of our protocols, in pcaptool and, with a build
that has the plugin, in tshark with the plugin (as nobody, the plugin
checked loaded)."""
import os
import subprocess
import sys
import tempfile

from checks import check, finish

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
PCAPTOOL, BUILD = sys.argv[1], sys.argv[2]
PROTOS = ["dnp", "openttd", "gne", "eoudp", "opendrakan"]
SEEDS = range(1, 6)

tsh = None
if BUILD != "-":
    import compare_tshark
    tsh = compare_tshark.Tshark(BUILD)
    tsh.check_loaded()

with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o755)
    for seed in SEEDS:
        cap = os.path.join(tmp, "ordinary-%d.pcap" % seed)
        subprocess.run([sys.executable, os.path.join(here, "gen", "ordinary_traffic.py"), cap, str(seed)], check=True)
        os.chmod(cap, 0o644)
        p = subprocess.run([PCAPTOOL, "decode", "--fail-on", "never", cap], capture_output=True, text=True)
        n = int(subprocess.run(["capinfos", "-c", "-M", "-T", cap], capture_output=True, text=True).stdout.split()[-1])
        check("seed %d: pcaptool finds no PDU in %d packets of ordinary traffic" % (seed, n),
              p.returncode == 0 and p.stdout == "" and n > 900, p.stdout[:600] + p.stderr)
        if tsh:
            r = tsh.run(["-r", cap, "-Y", " or ".join(PROTOS)])
            check("seed %d: tshark with the plugin finds no frame of ours" % seed,
                  r.returncode == 0 and r.stdout == "", r.stdout[:600] + r.stderr)
finish()
