#!/bin/sh
# replay_openttd.sh PCAPTOOL CAPTURE - pcaptool replay plays the client of a
# recorded OpenTTD 13.0 join against a real OpenTTD dedicated server (the
# Debian package) on loopback, at the recorded pace:
# - the server completes the join: WELCOME, the map transfer, our JOIN,
#   the echo of our company command, and frames all along; every CLIENT_ACK
#   (adapted: the frame the live server sent last, its token) is answered
#   with a new token, so the replay passes;
# - its --out capture decodes with no finding at error;
# - the same replay with --as-recorded (the recorded frame and token) fails:
#   the server does not take the acks, and the divergence says so;
# - two replays at once: the first passes while the second joins.
# The server's port: GW_TEST_PORT (the block CTest gives this test), else
# one picked by the process id.
set -u
pcaptool=$1 cap=$2
work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
fail=0

. "$(dirname "$0")/openttd_server.sh"
openttd_server_cfg ReplayTest
# start_server NAME: a dedicated server on 127.0.0.1:$port, ready to play;
# its log in $work/NAME.log (openttd_start)
start_server() { openttd_start "$work/server.cfg" "$port" "$work/$1.log"; }

has() { # FILE TEXT: FILE has a line with TEXT, else say what is missing
    grep -qF -- "$2" "$1" && return 0
    echo "FAIL: no '$2' in $1:"; grep -v "SERVER_FRAME frame [0-9]* max [0-9]*$" "$1"; fail=1
    return 1
}

start_server join
"$pcaptool" replay --target "127.0.0.1:$port" --out "$work/join.pcap" "$cap" > "$work/join.txt" 2>&1
rc=$?
openttd_stop
if [ $rc -ne 0 ]; then
    echo "FAIL: replay exit $rc, expected 0"; grep -v "SERVER_FRAME frame [0-9]* max [0-9]*$" "$work/join.txt"
    fail=1
fi
# the recorded client sends 12 PDUs: JOIN, GETMAP, MAP_OK, COMMAND, 8 ACKs
has "$work/join.txt" "PASS: 12 sent" &&
has "$work/join.txt" "OpenTTD SERVER_WELCOME client" &&
has "$work/join.txt" "OpenTTD SERVER_MAP_DONE" &&
has "$work/join.txt" "OpenTTD SERVER_JOIN client" &&
has "$work/join.txt" "OpenTTD SERVER_COMMAND CMD_COMPANY_CTRL" &&
echo "ok join: $(tail -1 "$work/join.txt")"
# frames all along: the recording has 465 in 14 s (33 a second); a slow
# machine may lag, but not to a third
frames=$(grep -c "OpenTTD SERVER_FRAME" "$work/join.txt")
if [ "$frames" -lt 150 ]; then
    echo "FAIL: $frames SERVER_FRAMEs, expected 150 or more"; fail=1
else
    echo "ok frames: $frames SERVER_FRAMEs"
fi
# --out holds every PDU sent and received, and they decode cleanly
received=$(sed -n 's/^PASS: 12 sent, \([0-9]*\) received.*/\1/p' "$work/join.txt")
if n=$("$pcaptool" decode --fail-on error "$work/join.pcap" | grep -c '^[0-9]'); then
    if [ "$n" -eq $((12 + ${received:-0})) ]; then
        echo "ok --out: $n PDUs decode cleanly"
    else
        echo "FAIL --out: $n PDUs, expected 12 + ${received:-?}"; fail=1
    fi
else
    echo "FAIL --out: pcaptool decode exit $?"; fail=1
fi
cp "$work/join.pcap" "${REPLAY_OUT:-/dev/null}" 2>/dev/null

# without adaptation the first ACK names frame 232 and token 13 of the
# recorded server; this server takes neither and sends no new token (the
# awaited SERVER_FRAME of frame 45 never comes); when it also drops the
# client with a SERVER_ERROR, which the recording does not have, that is
# the connection lost
start_server blind
"$pcaptool" replay --target "127.0.0.1:$port" --no-wait --as-recorded "$cap" > "$work/blind.txt" 2>&1
rc=$?
openttd_stop
if [ $rc -ne 1 ]; then
    echo "FAIL: --as-recorded replay exit $rc, expected 1"; fail=1
fi
has "$work/blind.txt" "DIVERGENCE (" &&
has "$work/blind.txt" "recorded frame 45, SERVER_FRAME" &&
{ ! grep -q "SERVER_ERROR" "$work/blind.txt" || has "$work/blind.txt" "DIVERGENCE (connection lost)"; } &&
has "$work/blind.txt" "FAIL: " &&
echo "ok --as-recorded: $(grep DIVERGENCE "$work/blind.txt")"

# two replays at once: client A at the recorded pace; once A has joined,
# client B joins too (as fast as it can). A passes: B's join, client info,
# chat and company command are traffic about another client, optional. A's
# --out, replayed dry, awaits only A's own SERVER_JOIN.
start_server two
"$pcaptool" replay --target "127.0.0.1:$port" --out "$work/two.pcap" "$cap" > "$work/two-a.txt" 2>&1 &
a_pid=$!
i=0
while ! grep -q "OpenTTD SERVER_JOIN client" "$work/two-a.txt" 2>/dev/null && [ $i -lt 300 ]; do
    i=$((i + 1)); sleep 0.1
done
"$pcaptool" replay --target "127.0.0.1:$port" --no-wait "$cap" > "$work/two-b.txt" 2>&1
wait "$a_pid"
rc=$?
openttd_stop
a_id=$(sed -n 's/.* OpenTTD SERVER_WELCOME client \([0-9]*\)$/\1/p' "$work/two-a.txt")
b_id=$(sed -n 's/.* OpenTTD SERVER_WELCOME client \([0-9]*\)$/\1/p' "$work/two-b.txt")
if [ $rc -ne 0 ]; then
    echo "FAIL two: replay A exit $rc, expected 0"; grep -v "SERVER_FRAME frame [0-9]* max [0-9]*$" "$work/two-a.txt"; fail=1
elif [ -z "$a_id" ] || [ -z "$b_id" ] || [ "$a_id" = "$b_id" ]; then
    echo "FAIL two: client ids '$a_id' and '$b_id'"; fail=1
else
    has "$work/two-a.txt" "PASS: 12 sent" &&
    has "$work/two-a.txt" "OpenTTD SERVER_JOIN client $b_id" &&
    "$pcaptool" replay --dry-run "$work/two.pcap" > "$work/two-plan.txt" 2>&1 &&
    has "$work/two-plan.txt" "await       SERVER_JOIN client $a_id" &&
    has "$work/two-plan.txt" "may receive SERVER_JOIN client $b_id" &&
    echo "ok two: A (client $a_id) passes beside B (client $b_id); A's recording awaits only its own join"
fi
exit $fail
