#!/bin/sh
# conform_openttd.sh PCAPTOOL - pcaptool conform --proto openttd against a real
# OpenTTD 13.0 (the Debian package) on loopback: a dedicated server, then its
# client without a display. Every case's verdict is the one docs/conform.md's
# verdict table gives and justifies: as server all pass but
# openttd/join/wrong-password, skipped (this server asks for no password),
# and the JUnit names the 14 cases; as client all pass but
# openttd/client/game-password, info (a client without a password waits for
# its user). Both runs exit 0. Then the server again with 127.0.0.1 banned
# (every case skipped: a refusal is its right), full (the cases that need a
# join skipped) and with a game password
# (cases needing a join skipped without --set password=..., all pass with it).
# The server's port: GW_TEST_PORT (the block CTest gives this test), else
# one picked by the process id.
set -u
pcaptool=$1
work=$(mktemp -d)
server=""
holders=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; [ -n "$holders" ] && kill "$holders" 2>/dev/null; rm -rf "$work"' EXIT
. "$(dirname "$0")/openttd_server.sh"
openttd_server_cfg ConformTest
# start_server NAME PORT: a server with $work/NAME.cfg on PORT (openttd_start)
start_server() { openttd_start "$work/$1.cfg" "$2" "$work/$1.log"; }
# judged STATUS FAIL_TEXT OK_TEXT FILE...: a run's result said (its files
# shown when it failed: STATUS not 0)
judged() {
    st=$1 bad=$2 good=$3; shift 3
    if [ "$st" != 0 ]; then echo "FAIL: $bad"; cat "$@"; fail=1; else echo "ok: $good"; fi
}
start_server server "$port"

"$pcaptool" conform --proto openttd --target "127.0.0.1:$port" --format json --junit "$work/junit.xml" \
    > "$work/out.jsonl" 2> "$work/err.txt"
rc=$?
fail=0
# the cases run, for tests/table_check.py (tests/conform_common.py's ledger)
[ -n "${GW_CONFORM_LEDGER:-}" ] && grep '"case"' "$work/out.jsonl" > "$GW_CONFORM_LEDGER"
# case -> verdict, one per line, sorted
sed -n 's/.*"case":"\([^"]*\)".*"verdict":"\([^"]*\)".*/\1 \2/p' "$work/out.jsonl" | sort > "$work/got.txt"
sort > "$work/want.txt" <<EOF
openttd/info/without-authorization pass
openttd/join/announced pass
openttd/join/command-before-map pass
openttd/join/empty-name pass
openttd/join/getmap-unauthorized pass
openttd/join/welcome pass
openttd/join/wrong-newgrf-version pass
openttd/join/wrong-password skipped
openttd/join/wrong-revision pass
openttd/map/sizes-add-up pass
openttd/packets/oversized pass
openttd/packets/truncated pass
openttd/packets/undersized pass
openttd/packets/unknown-type pass
EOF
if ! diff "$work/want.txt" "$work/got.txt"; then
    echo "FAIL: verdicts differ from docs/conform.md's (< wanted, > got):"; cat "$work/out.jsonl" "$work/err.txt"; fail=1
fi
[ "$rc" = 0 ] || { echo "FAIL: exit $rc, expected 0"; cat "$work/err.txt"; fail=1; }
grep -q 'tests="14" failures="0"' "$work/junit.xml" || { echo "FAIL: JUnit:"; cat "$work/junit.xml"; fail=1; }
[ $fail = 0 ] && echo "ok: 14 cases as server, the verdicts docs/conform.md gives"
openttd_stop

# the same server with 127.0.0.1 on its ban list: it answers every
# connection with SERVER_BANNED, its right; no case can be judged then, so
# every one is skipped (none failed: exit 0), each saying why
bport=$((port + 2))
printf '[bans]
127.0.0.1 =
' | cat "$work/server.cfg" - > "$work/banned.cfg"
start_server banned "$bport"
"$pcaptool" conform --proto openttd --target "127.0.0.1:$bport" --format json > "$work/banned.jsonl" 2> "$work/banned-err.txt"
brc=$?
skipped=$(python3 -c 'import json, sys
print(sum(r.get("verdict") == "skipped" and "SERVER_BANNED" in r["outcome"] for r in map(json.loads, sys.stdin)))' \
    < "$work/banned.jsonl")
[ "$brc" = 0 ] && [ "$skipped" = 14 ]
judged $? "banned: exit $brc (0 wanted), $skipped of 14 cases skipped naming SERVER_BANNED:" \
    "banned: all 14 cases skipped, naming SERVER_BANNED" "$work/banned.jsonl" "$work/banned-err.txt"
openttd_stop

# the same server when full (max_clients 2, both places taken by two
# connections that joined and wait): it answers every join with SERVER_ERROR
# FULL, its right; the ten cases that need a join are skipped saying so, the
# four that need none pass (game info, GETMAP unauthorized, the framing)
fport=$((port + 4))
sed 's/^server_name = .*/&\nmax_clients = 2\nmax_join_time = 20000/' "$work/server.cfg" > "$work/full.cfg"
start_server full "$fport"
python3 - "$fport" > "$work/holders.log" 2>&1 <<'PY' &
import socket, struct, sys, time
# CLIENT_JOIN as the 13.0 client sends it (captures/openttd-13.0-join.pcap)
body = lambda name: b"13.0\0" + struct.pack("<I", 0x1d086d64) + name + b"\0" + bytes([255])
held = []
for i in range(2):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=30)
    b = body(b"holder%d" % i)
    s.sendall(struct.pack("<HB", 3 + len(b), 2) + b)
    s.recv(3)  # the server's answer: the join is in
    held.append(s)
print("held", flush=True)
time.sleep(300)
PY
holders=$!
i=0 # until both joined (or the holders gave up: bounded)
while ! grep -q held "$work/holders.log" && kill -0 "$holders" 2>/dev/null && [ $i -lt 600 ]; do
    i=$((i + 1)); sleep 0.1
done
line=$(cat "$work/holders.log")
"$pcaptool" conform --proto openttd --target "127.0.0.1:$fport" --format json > "$work/full.jsonl" 2> "$work/full-err.txt"
frc=$?
kill "$holders" 2>/dev/null
wait "$holders" 2>/dev/null
holders=""
counts=$(python3 -c 'import json, sys
r = [x for x in map(json.loads, sys.stdin) if "case" in x]
print(sum(x["verdict"] == "skipped" and "FULL" in x["outcome"] for x in r),
      sorted(x["case"] for x in r if x["verdict"] == "pass"))' < "$work/full.jsonl")
want="10 ['openttd/info/without-authorization', 'openttd/join/getmap-unauthorized', 'openttd/packets/oversized', 'openttd/packets/undersized']"
[ "$line" = held ] && [ "$frc" = 0 ] && [ "$counts" = "$want" ]
judged $? "full server (holders: $line): exit $frc, $counts (want $want):" \
    "full server: the ten cases that need a join skipped naming FULL, the four others pass" \
    "$work/full.jsonl" "$work/full-err.txt"
openttd_stop

# the same server with a game password: without it, the five cases that
# need a join are skipped (saying which setting is missing) and the nine
# others pass (a wrong password refused with WRONG_PASSWORD among them);
# given with --set password=..., all 14 pass
pport=$((port + 3))
sed 's/^server_name = .*/&\nserver_password = secret/' "$work/server.cfg" > "$work/password.cfg"
start_server password "$pport"
for given in no yes; do
    set -- ; [ $given = yes ] && set -- --set password=secret
    "$pcaptool" conform --proto openttd --target "127.0.0.1:$pport" --format json "$@" > "$work/pw-$given.jsonl" \
        2> "$work/pw-$given-err.txt"
    prc=$?
    counts=$(python3 -c 'import json, sys
r = [x for x in map(json.loads, sys.stdin) if "case" in x]
print(sum(x["verdict"] == "pass" for x in r), sum(x["verdict"] == "skipped" and "--set password" in x["outcome"] for x in r),
      sum(x["verdict"] == "pass" and x["case"] == "openttd/join/wrong-password" for x in r))' < "$work/pw-$given.jsonl")
    want="9 5 1"; [ $given = yes ] && want="14 0 1"
    if [ "$prc" != 0 ] || [ "$counts" != "$want" ]; then
        echo "FAIL: password server, password given: $given: exit $prc, pass/skipped/wrong-password $counts (want $want):"
        cat "$work/pw-$given.jsonl" "$work/pw-$given-err.txt"; fail=1
    else
        echo "ok: password server, password given: $given: $counts (pass, skipped for the password, wrong-password passed)"
    fi
done
openttd_stop

# the implementation as client: Debian's 13.0 client without a display
# (SDL's video driver on SDL's dummy display, which keeps real time: the
# null video driver runs its ticks as fast as it can, a core busy all along;
# one thread and a 64x64 screen, little to draw: with 640x480 a loaded
# machine's client took up to 3 s to leave after SERVER_ERROR, over
# --timeout 2; a client name set, or it would ask its user for one), started
# afresh for each case. Once it says (net debug output) that it closed its
# connection, its case is over: it is ended a second later, or it would
# stay in its menu; each run is bounded all the same (12 s: a client that
# says nothing)
printf '[network]\nclient_name = conform\n' > "$work/client.cfg"
cport=$((port + 1)) # the servers' ports may linger a moment after they exit
mkfifo "$work/client.out"
(while :; do
    HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" SDL_VIDEODRIVER=dummy \
        SDL_NO_SIGNAL_HANDLERS=1 timeout 12 "$openttd" -c "$work/client.cfg" -v sdl:no_threads -b 8bpp-simple \
        -r 64x64 -s null -m null -d net=3 -n "127.0.0.1:$cport" -x < /dev/null > "$work/client.out" 2>&1 &
    client=$!
    { while IFS= read -r line; do
        case $line in *"Closed client connection"*) sleep 1; kill "$client" 2>/dev/null; break ;; esac
    done; cat > /dev/null; } < "$work/client.out"
    wait "$client"
done) &
clients=$!
# each case waits up to 180 s for its client (not conform's 30): on a loaded
# machine a client that stays in its menu for its 12 s and a fresh one's
# start-up can take longer than that
"$pcaptool" conform --proto openttd --side server --target "127.0.0.1:$cport" --timeout 2 --peer-wait 180 --format json \
    > "$work/client.jsonl" 2> "$work/client-err.txt"
crc=$?
[ -n "${GW_CONFORM_LEDGER:-}" ] && grep '"case"' "$work/client.jsonl" >> "$GW_CONFORM_LEDGER"
kill "$clients" 2>/dev/null
wait "$clients" 2>/dev/null
pkill -f "$work/client.cfg" 2>/dev/null
sed -n 's/.*"case":"\([^"]*\)".*"verdict":"\([^"]*\)".*/\1 \2/p' "$work/client.jsonl" | sort > "$work/got-client.txt"
sort > "$work/want-client.txt" <<EOF
openttd/client/banned-ends pass
openttd/client/error-ends pass
openttd/client/full-ends pass
openttd/client/game-password info
openttd/client/join pass
openttd/client/newgrfs-checked pass
openttd/client/undersized pass
openttd/client/unknown-type pass
openttd/client/welcome-getmap pass
EOF
if ! diff "$work/want-client.txt" "$work/got-client.txt"; then
    echo "FAIL: client verdicts differ from docs/conform.md's (< wanted, > got):"; cat "$work/client.jsonl" "$work/client-err.txt"
    fail=1
fi
[ "$crc" = 0 ] || { echo "FAIL: client run exit $crc, expected 0"; cat "$work/client-err.txt"; fail=1; }
[ $fail = 0 ] && echo "ok: 9 cases as client, the verdicts docs/conform.md gives"
exit $fail
