#!/bin/sh
# fuzz_openttd.sh PCAPTOOL - pcaptool fuzz --proto openttd against a real
# OpenTTD 13.0 dedicated server (the Debian package) on loopback, 15 s on
# seed 1: no failure (exit 0). What 13.0 does with what it is sent
# (network/core/tcp_game.cpp, packet.cpp): a packet whose size or content
# does not read closes the connection (NETWORK_RECV_STATUS_MALFORMED_PACKET),
# counted as "closed", never a failure; a size that claims more than was sent
# makes the probe part of that packet (not judged); CLIENT_GAME_INFO, the
# probe, is answered at any stage of a join. The run must have reached both
# states (iterations, and closes: the mutations reached the server's reader),
# and the server must still run afterwards. The server's port: GW_TEST_PORT
# (the block CTest gives this test), else one picked by the process id.
set -u
pcaptool=$1
work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
. "$(dirname "$0")/openttd_server.sh"
openttd_server_cfg FuzzTest
openttd_start "$work/server.cfg" "$port" "$work/server.log"
fail=0
# --timeout 3: the server answers within its network tick (30 ms); a loaded
# machine may add seconds
"$pcaptool" fuzz --proto openttd --target "127.0.0.1:$port" --timeout 3 --duration 15 --seed 1 --format json \
    --out "$work/found" > "$work/out.jsonl" 2> "$work/err.txt"
fuzz_said $? "OpenTTD 13.0"
if [ "${iterations:-0}" -ge 10 ] && [ "${closed:-0}" -ge 1 ] && [ "${unreached:-1}" -eq 0 ]; then
    echo "ok: $iterations iterations, $closed connections closed by the server on a mutation, none unreached"
else
    echo "FAIL: too few iterations, no close or an unreached state: $summary"; fail=1
fi
if kill -0 "$server" 2>/dev/null; then
    echo "ok: the server still runs"
else
    echo "FAIL: the server ended:"; tail -20 "$work/server.log"; fail=1
fi
exit $fail
