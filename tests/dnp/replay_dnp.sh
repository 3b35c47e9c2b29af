#!/bin/sh
# replay_dnp.sh PCAPTOOL DNP_PEER CAPTURE - pcaptool replay plays the server
# side of the capture's first DNP conversation against tests/dnp/dnp_peer
# on loopback: a peer that behaves passes; one that acknowledges the wrong
# number, one that never sends link up, and one that closes the connection
# in the middle (DNP Connection close, which the recording does not have
# there) fail with the divergence named; one that answers two link states
# in the other order passes (each ack and link up is paired by the number
# or link it names). The --out capture of the good run decodes cleanly. A
# slow peer's answers may take as long as they took in the recording, and
# --timeout more.
# Ports: GW_TEST_PORT (the block CTest gives this test) and the seven above
# it, else eight from a base picked by the process id.
set -u
pcaptool=$1 peer=$2 cap=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
base=${GW_TEST_PORT:-$((20000 + $$ % 20000))}
fail=0

# run MODE PEER_SILENCE_MS REPLAY_TIMEOUT_S PORT_OFFSET: replay's exit code
# in $work/MODE.rc, its output in $work/MODE.txt
run() {
    port=$((base + $4))
    "$pcaptool" replay --side server --target "127.0.0.1:$port" --no-wait --timeout "$3" \
        --out "$work/$1.pcap" "$cap" > "$work/$1.txt" 2>&1 &
    pid=$!
    "$peer" 127.0.0.1 "$port" "$1" "$2"
    wait "$pid"
    echo $? > "$work/$1.rc"
}

expect() { # MODE RC TEXT...: the run exited RC and printed every TEXT
    mode=$1 rc=$2
    shift 2
    if [ "$(cat "$work/$mode.rc")" != "$rc" ]; then
        echo "FAIL $mode: exit $(cat "$work/$mode.rc"), expected $rc"; cat "$work/$mode.txt"; fail=1
        return
    fi
    for text in "$@"; do
        if ! grep -qF -- "$text" "$work/$mode.txt"; then
            echo "FAIL $mode: no '$text' in:"; cat "$work/$mode.txt"; fail=1
            return
        fi
    done
    echo "ok $mode: exit $rc"
}

run good 300 3 0
# every answer the recording requires came: acks #0..#3 and link ups 0..2
# from the peer, and its close
expect good 0 "PASS: 17 sent, 9 received" "DNP Reliable ack #3 Success" "DNP Link up 2" \
    "DNP Connection close"
# what was sent and received, decoded again: the recorded server's 17 PDUs
# and the peer's 9 (request, 4 acks, 3 link ups, close), no finding at error
if n=$("$pcaptool" decode --fail-on error "$work/good.pcap" | grep -c '^[0-9]'); then
    if [ "$n" -eq 26 ]; then
        echo "ok good --out: $n PDUs decode cleanly"
    else
        echo "FAIL good --out: $n PDUs, expected 26"; fail=1
    fi
else
    echo "FAIL good --out: pcaptool decode exit $?"; fail=1
fi
cp "$work/good.pcap" "${REPLAY_OUT:-/dev/null}" 2>/dev/null

run wrong-ack 300 3 1
# link states #0 and #1 go together: its ack of #0 names 1, which stands for
# our #1 (answers pair by the number they name); its ack of #1 names 2, which
# we never sent, where our #0 (frame 5) is still unacknowledged
expect wrong-ack 1 "DIVERGENCE (field)" "recorded frame 5" "acknowledges number 2, expected 0" "FAIL"

run no-link-up 3000 1 2
# the link up of frame 6 never comes
expect no-link-up 1 "DIVERGENCE (missing answer)" "recorded frame 6, Link up 0" "not received within 1.0 s" "FAIL"

run close-early 3000 3 3
# it acks our first reliable message, then closes: the replay ends there,
# before sending the rest, whatever the timeout
expect close-early 1 "DIVERGENCE (connection lost)" "the peer sent Connection close, a close the recording does not have here" "FAIL"

run reorder 300 3 4
# link states #0 and #1 go together; the answers come #1 first
expect reorder 0 "PASS: 17 sent, 9 received" && {
    if grep -A1 "DNP Reliable ack #1 Success" "$work/reorder.txt" | grep -q "Link up 1" &&
       grep -B2 "DNP Reliable ack #0 Success" "$work/reorder.txt" | grep -q "Link up 1"; then
        echo "ok reorder: ack #1 and link up 1 came before ack #0 and passed"
    else
        echo "FAIL reorder: the answers did not come reordered:"; cat "$work/reorder.txt"; fail=1
    fi
}
# a slow peer (400 ms over each datagram): replaying the fast recording
# with --timeout 0.25 gives up on its first late answer; the replay of its
# own recording (made with a generous --timeout: its answers 0.4 s after
# our PDUs there) waits as long as they took then, and 0.25 s more: it passes
run slow 3000 5 5
expect slow 0 "PASS: 17 sent, 9 received"
replay_of() { # NAME RECORDING PORT_OFFSET: the recording replayed with --timeout 0.25 against a slow peer
    port=$((base + $3))
    "$pcaptool" replay --side server --target "127.0.0.1:$port" --no-wait --timeout 0.25 "$2" \
        > "$work/$1.txt" 2>&1 &
    pid=$!
    "$peer" 127.0.0.1 "$port" slow 1000
    wait "$pid"
    echo $? > "$work/$1.rc"
}
replay_of slow-fast-recording "$cap" 6
expect slow-fast-recording 1 "DIVERGENCE (missing answer)" "not received within 0.2 s"
replay_of slow-own-recording "$work/slow.pcap" 7
expect slow-own-recording 0 "PASS: 17 sent, 9 received"
exit $fail
