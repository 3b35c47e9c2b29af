#!/bin/sh
# replay_pairs.sh PCAPTOOL CAPTURES UDP_PROXY GNE_REGROUP [SCHEMA] - both sides of recorded GNE, EOUDP and
# OpenDrakan conversations replayed against each other on loopback
# (pcaptool replay --side server is the peer of pcaptool replay --side
# client), each side adapting to the other's live numbers:
# - gne-exhello_unrel (a UDP link): the server's accept names the UDP port
#   it really opened, the client sends its link datagrams there and names
#   its own live port in its port message; both pass, and the client's
#   --out capture decodes with the UDP link linked to the handshake;
# - the same client --as-recorded names the recorded port 45501: the
#   server sees the lie (its link datagrams come from elsewhere);
# - gne-exping_ping: five pings answered, with their request ids;
# - gne-gen-little through tests/peers/gne_regroup, which merges the
#   server's frames two by two and slips in a ping request nobody
#   recorded: the client judges the packets, not the frames, and waits past
#   the ping (it failed: "packet 4 first, recorded 1");
# - eoudp-gen3-r-type-head-session: both pass, with live timestamps; and
#   through tests/peers/udp_proxy, which gives the client every datagram of
#   the server twice (as the Dec 2023 R-Type build sends them): the copies
#   are the same datagrams, no answer too many, none paired wrong;
# - opendrakan-gen-snapshots (reliable on TCP, the rest on UDP, same
#   ports): both pass over both transports; the client acknowledges only
#   complete snapshots (its recording acknowledged tick 14, incomplete, and
#   tick 99, never confirmed); --as-recorded, the server catches an ack of
#   a snapshot it did not send whole, in its JUnit XML too.
# What the pairs assert holds whatever the scheduling: counts, verdicts and
# sets, not the order in which two sides' packets crossed.
# Ports: GW_TEST_PORT (the block CTest gives this test) and the eleven above
# it, else from the process id.
set -u
pcaptool=$1 caps=$2 proxy=$3 regroup=$4 schema=${5:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
base=${GW_TEST_PORT:-$((20000 + $$ % 20000))}
fail=0

# pair NAME CAPTURE PORT_OFFSET [CLIENT OPTIONS...]: both sides; exit codes
# in $work/NAME.{server,client}.rc, outputs in $work/NAME.{server,client}.txt
pair() {
    name=$1 cap=$caps/$2 port=$((base + $3))
    shift 3
    "$pcaptool" replay --side server --target "127.0.0.1:$port" --timeout 3 \
        --junit "$work/$name.server.xml" "$cap" > "$work/$name.server.txt" 2>&1 &
    pid=$!
    i=0 # until the server listens (it says so), 30 s at most
    while ! grep -q "waiting for the peer" "$work/$name.server.txt" 2>/dev/null && [ $i -lt 300 ]; do
        i=$((i + 1)); sleep 0.1
    done
    "$pcaptool" replay --target "127.0.0.1:$port" --timeout 3 --out "$work/$name.pcap" "$@" "$cap" \
        > "$work/$name.client.txt" 2>&1
    echo $? > "$work/$name.client.rc"
    wait "$pid"
    echo $? > "$work/$name.server.rc"
}

# via NAME CAPTURE PORT_OFFSET RELAY [RELAY ARGS...] -- [CLIENT OPTIONS...]: the
# same as pair, the client reaching the server through RELAY (a test peer
# that changes what the server sends: RELAY LISTEN_PORT HOST PORT ARGS,
# ready once it prints "listening"), on ports PORT_OFFSET and the one above
via() {
    name=$1 cap=$caps/$2 sport=$((base + $3)) pport=$((base + $3 + 1)) relay=$4
    shift 4
    relay_args=""
    while [ "$1" != "--" ]; do relay_args="$relay_args $1"; shift; done
    shift
    "$pcaptool" replay --side server --target "127.0.0.1:$sport" --timeout 3 "$cap" \
        > "$work/$name.server.txt" 2>&1 &
    spid=$!
    i=0
    while ! grep -q "waiting for the peer" "$work/$name.server.txt" 2>/dev/null && [ $i -lt 300 ]; do
        i=$((i + 1)); sleep 0.1
    done
    # shellcheck disable=SC2086 # the relay's words
    "$relay" "$pport" 127.0.0.1 "$sport" $relay_args > "$work/$name.relay.txt" 2>&1 &
    rpid=$!
    i=0
    while ! grep -q "listening" "$work/$name.relay.txt" 2>/dev/null && [ $i -lt 300 ]; do
        i=$((i + 1)); sleep 0.1
    done
    "$pcaptool" replay --target "127.0.0.1:$pport" --timeout 3 "$@" "$cap" > "$work/$name.client.txt" 2>&1
    echo $? > "$work/$name.client.rc"
    wait "$spid"
    echo $? > "$work/$name.server.rc"
    kill "$rpid" 2>/dev/null
    wait "$rpid" 2>/dev/null
}

expect() { # NAME SIDE RC TEXT...: that side exited RC and printed every TEXT
    what="$1 $2" f=$work/$1.$2 rc=$3
    shift 3
    if [ "$(cat "$f.rc")" != "$rc" ]; then
        echo "FAIL $what: exit $(cat "$f.rc"), expected $rc"; cat "$f.txt"; fail=1
        return 1
    fi
    for text in "$@"; do
        if ! grep -qF -- "$text" "$f.txt"; then
            echo "FAIL $what: no '$text' in:"; cat "$f.txt"; fail=1
            return 1
        fi
    done
    echo "ok $what: exit $rc"
}

pair hello gne-exhello_unrel.pcap 0
expect hello server 0 "PASS: 2 sent, 6 received"
expect hello client 0 "PASS: 6 sent, 2 received" && {
    # the accept names the server's live UDP port, and the link goes there
    sport=$(sed -n 's/.* GNE Accepted, rate unlimited, UDP port \([0-9]*\)$/\1/p' "$work/hello.client.txt")
    cport=$(sed -n 's/.* GNE Client UDP port \([0-9]*\)$/\1/p' "$work/hello.client.txt")
    n=$(grep -c -- ":$cport -> 127.0.0.1:$sport GNE" "$work/hello.client.txt")
    if [ -n "$sport" ] && [ "$sport" != 39182 ] && [ "$cport" != 45501 ] && [ "$n" -eq 2 ]; then
        echo "ok hello: live UDP ports $cport -> $sport (recorded 45501 -> 39182), 2 link datagrams"
    else
        echo "FAIL hello: ports '$cport' -> '$sport', $n link datagrams:"; cat "$work/hello.client.txt"
        fail=1
    fi
    # --out: the 8 PDUs, the link's two linked to the accept (frame 5: the
    # TCP handshake, the request, then the accept)
    links=$("$pcaptool" decode --format json --fail-on note "$work/hello.pcap" | grep -c '"gne.link.frame":\[5\]')
    if [ "$links" -eq 2 ]; then
        echo "ok hello --out: decodes clean, the 2 link datagrams linked to the accept"
    else
        echo "FAIL hello --out: $links linked datagrams (exit of decode above)"; fail=1
    fi
}

pair lie gne-exhello_unrel.pcap 1 --as-recorded
expect lie server 1 "DIVERGENCE (field)" "recorded frame 16, Client UDP port 45501" \
    "names UDP port 45501, but its link datagrams come from port"
expect lie client 1 "FAIL"

pair ping gne-exping_ping.pcap 2 --no-wait
expect ping server 0 "PASS: 6 sent, 7 received"
expect ping client 0 "PASS: 7 sent, 6 received" "Ping reply 4"

# through gne_regroup (ports +8, +9)
via regroup gne-gen-little.pcap 8 "$regroup" --
expect regroup server 0 "PASS: 13 sent, 16 received"
expect regroup client 0 "PASS: 16 sent" "GNE Ping request 99" \
    "GNE Ping reply 7 (RTT" ", Ping request 1" && echo "ok regroup: merged frames and an unrecorded ping judged by their packets"
# still, a client that lies about its UDP port is caught through it (ports
# +10, +11): its port message comes first here, so the server's link goes
# to the recorded port and the client's link datagrams never arrive
via regroup-lie gne-gen-little.pcap 10 "$regroup" -- --as-recorded
expect regroup-lie server 1 "DIVERGENCE (missing answer)" "recorded frame 49, Ping request 2"

pair eoudp eoudp-gen3-r-type-head-session.pcap 3 --no-wait
expect eoudp server 0 "PASS: 79 sent"
expect eoudp client 0 "PASS: 44 sent" && {
    # our timestamps are the time of sending (ms since the epoch), not the
    # recording's
    stamp=$("$pcaptool" decode --format json "$work/eoudp.pcap" | head -1 |
            sed 's/.*"eoudp.timestamp":\[\([0-9]*\).*/\1/')
    now=$(date +%s)
    if [ $((stamp / 1000 - now)) -le 60 ] && [ $((now - stamp / 1000)) -le 60 ]; then
        echo "ok eoudp --out: the connect's timestamp is now ($stamp ms)"
    else
        echo "FAIL eoudp --out: timestamp $stamp ms, now $now s"; fail=1
    fi
}

# the same through udp_proxy (ports +6, +7), which doubles the server's datagrams
via doubled eoudp-gen3-r-type-head-session.pcap 6 "$proxy" double 3000 -- --no-wait
expect doubled server 0 "PASS: 79 sent"
expect doubled client 0 "PASS: 44 sent" && {
    copies=$(grep -c " EOUDP " "$work/doubled.client.txt")
    if grep -q "the recording does not have" "$work/doubled.client.txt"; then
        echo "FAIL doubled: the copies counted as answers:"; cat "$work/doubled.client.txt"; fail=1
    else
        echo "ok doubled: $copies PDUs shown, every copy taken for its datagram"
    fi
}

pair od opendrakan-gen-snapshots.pcap 4
expect od server 0 "PASS: 27 sent, 8 received"
# what the decoders leave open at the end is reported as validate reports
# it on the recording: the server's incomplete snapshot of tick 14
expect od client 0 "PASS: 8 sent, 27 received" "OpenDrakan End of conversation" \
    "note opendrakan.snapshot.incomplete @3: Tick 14: 2 of 3 changes arrived" && {
    # Acks adapted: each names a snapshot complete on our side when it went
    # (the server, which passed, checked that it had sent each one whole):
    # never the recording's 14 (incomplete) or 99 (never confirmed). Which
    # complete one depends on what had arrived by then: unloaded it is
    # 10 11 13 12 13 16 18 19, on a busy machine an older one may stand in
    # (10 10 11 11 ... was seen), so only what must hold is asserted.
    acks=$(sed -n 's/.* OpenDrakan ACKNOWLEDGE_SNAPSHOT tick \([0-9]*\)$/\1/p' "$work/od.client.txt" | tr '\n' ' ')
    n_acks=0 bad_acks=""
    for a in $acks; do
        n_acks=$((n_acks + 1))
        case " 10 11 12 13 16 18 19 " in *" $a "*) ;; *) bad_acks="$bad_acks $a" ;; esac
    done
    # the same client port over TCP (LOAD_LEVEL comes to it) and UDP (acks)
    tport=$(sed -n 's/.* -> 127.0.0.1:\([0-9]*\) OpenDrakan LOAD_LEVEL.*/\1/p' "$work/od.client.txt")
    uport=$(sed -n 's/.*127.0.0.1:\([0-9]*\) -> .* OpenDrakan ACKNOWLEDGE_SNAPSHOT.*/\1/p' "$work/od.client.txt" | sort -u)
    if [ "$n_acks" -eq 8 ] && [ -z "$bad_acks" ] && [ -n "$tport" ] && [ "$tport" = "$uport" ]; then
        echo "ok od: acks $acks(recorded 10 11 13 12 14 16 18 99), all of complete snapshots, TCP and UDP both on port $tport"
    else
        echo "FAIL od: acks '$acks' (not of a complete snapshot: '$bad_acks'), TCP port '$tport', UDP port(s) '$uport'"; fail=1
    fi
}
pair od-lie opendrakan-gen-snapshots.pcap 5 --as-recorded
# As recorded, the client acknowledges what the server has not sent whole:
# tick 14 (2 of 3 changes) when the machine is idle; on a busy machine an
# ack may overtake the snapshot it names and be caught earlier. Either way
# the server fails on an ACKNOWLEDGE_SNAPSHOT field.
expect od-lie server 1 "DIVERGENCE (field)" "ACKNOWLEDGE_SNAPSHOT tick" "acknowledges tick"
# JUnit: the passing server's two cases pass; the other's first fails
if python3 - "$work/od.server.xml" "$work/od-lie.server.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
good, bad = (ET.parse(f).getroot().find("testsuite") for f in sys.argv[1:])
assert good.get("tests") == "2" and good.get("failures") == "0", good.attrib
assert bad.get("failures") == "1", bad.attrib
case = bad.findall("testcase")[0]
f = case.find("failure")
assert case.get("name") == "answers as recorded" and f.get("type") == "field", ET.tostring(case)
assert "acknowledges tick" in f.get("message"), f.get("message")
assert bad.findall("testcase")[1].find("failure") is None
PY
then
    echo "ok od --junit: passing and failing replays as JUnit XML"
    for x in "$work"/*.xml; do # every JUnit file the pairs wrote, against Jenkins' schema
        if [ -n "$schema" ] && ! xmllint --noout --schema "$schema" "$x" 2>/dev/null; then
            echo "FAIL $(basename "$x"): not valid against junit-10.xsd"; fail=1
        fi
    done
else
    echo "FAIL od --junit"; cat "$work/od.server.xml" "$work/od-lie.server.xml"; fail=1
fi
exit $fail
