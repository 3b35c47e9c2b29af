#!/bin/sh
# replay_gne.sh PCAPTOOL CAPTURES - both sides of recorded GNE conversations
# replayed against each other on loopback (pcaptool replay --side server is
# the peer of pcaptool replay --side client):
# - gne-exhello_unrel (a UDP link): the server's accept names the UDP port
#   it really opened, the client sends its link datagrams there and names
#   its own live port in its port message; both pass, and the client's
#   --out capture decodes with the UDP link linked to the handshake;
# - the same client --as-recorded names the recorded port 45501: the
#   server sees the lie (its link datagrams come from elsewhere);
# - gne-exping_ping: five pings answered, with their request ids.
# Ports: REPLAY_PORT and the two above it, else from the process id.
set -u
pcaptool=$1 caps=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
base=${REPLAY_PORT:-$((20000 + $$ % 20000))}
fail=0

# pair NAME CAPTURE PORT_OFFSET [CLIENT OPTIONS...]: both sides; exit codes
# in $work/NAME.{server,client}.rc, outputs in $work/NAME.{server,client}.txt
pair() {
    name=$1 cap=$caps/$2 port=$((base + $3))
    shift 3
    "$pcaptool" replay --side server --target "127.0.0.1:$port" --timeout 3 "$cap" \
        > "$work/$name.server.txt" 2>&1 &
    pid=$!
    sleep 0.3 # the server listens
    "$pcaptool" replay --target "127.0.0.1:$port" --timeout 3 --out "$work/$name.pcap" "$@" "$cap" \
        > "$work/$name.client.txt" 2>&1
    echo $? > "$work/$name.client.rc"
    wait "$pid"
    echo $? > "$work/$name.server.rc"
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
    sport=$(sed -n 's/.* GNE Accepted, rate 0, UDP port \([0-9]*\)$/\1/p' "$work/hello.client.txt")
    cport=$(sed -n 's/.* GNE Client UDP port \([0-9]*\)$/\1/p' "$work/hello.client.txt")
    n=$(grep -c -- ":$cport -> 127.0.0.1:$sport GNE" "$work/hello.client.txt")
    if [ -n "$sport" ] && [ "$sport" != 39182 ] && [ "$cport" != 45501 ] && [ "$n" -eq 2 ]; then
        echo "ok hello: live UDP ports $cport -> $sport (recorded 45501 -> 39182), 2 link datagrams"
    else
        echo "FAIL hello: ports '$cport' -> '$sport', $n link datagrams:"; cat "$work/hello.client.txt"
        fail=1
    fi
    # --out: the 8 PDUs, the link's two linked to the accept (frame 2)
    links=$("$pcaptool" decode --format json --fail-on note "$work/hello.pcap" | grep -c '"gne.link.frame":\[2\]')
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
exit $fail
