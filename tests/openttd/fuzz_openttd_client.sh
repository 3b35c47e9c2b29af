#!/bin/sh
# fuzz_openttd_client.sh PCAPTOOL - pcaptool fuzz --proto openttd --side
# server against Debian's OpenTTD 13.0 client (no display, as
# conform_openttd.sh runs it), one client process a connection started by
# --exec, 20 s on seed 1. What 13.0's client does (network_client.cpp):
# before SERVER_WELCOME it is in STATUS_JOIN, where a NewGRF check is
# answered, a password request moves it to AUTH_GAME or AUTH_COMPANY (a
# WELCOME still taken), and what needs authorization (SERVER_CHAT,
# SERVER_CLIENT_INFO) or does not read (Packet::CanReadFromPacket) closes
# the connection (NETWORK_RECV_STATUS_MALFORMED_PACKET): counted as closed,
# never a failure. The probe, SERVER_WELCOME, is answered with CLIENT_GETMAP.
# The run must end without a failure (exit 0), with iterations in which the
# client was reached (none unreached) and the probe's answer judged. The
# port: GW_TEST_PORT (the block CTest gives this test), else one picked by
# the process id.
set -u
pcaptool=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '[network]\nclient_name = fuzz\n' > "$work/client.cfg"
. "$(dirname "$0")/openttd_server.sh" # $openttd, $port, fuzz_said
# a client without a display (SDL's dummy video keeps real time; a 64x64
# screen, little to draw; a name set, or it would ask its user for one);
# pcaptool ends each one (its process group) once its iteration is over
client="HOME=$work/home XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data SDL_VIDEODRIVER=dummy \
SDL_NO_SIGNAL_HANDLERS=1 exec $openttd -c $work/client.cfg -v sdl:no_threads -b 8bpp-simple -r 64x64 -s null \
-m null -n 127.0.0.1:$port -x"
fail=0
# --timeout 1: a client answers within its tick (30 ms); each iteration
# costs a client's start (half a second) and the --timeout it is given to
# end after its connection (it stays in its menu: then ended)
"$pcaptool" fuzz --proto openttd --side server --target "127.0.0.1:$port" --timeout 1 --peer-wait 60 --duration 20 \
    --seed 1 --format json --out "$work/found" --exec "$client" > "$work/out.jsonl" 2> "$work/err.txt"
fuzz_said $? "OpenTTD 13.0's client"
role=$(echo "$summary" | sed -n 's/.*"role":"\([a-z]*\)".*/\1/p')
if [ "$role" = client ] && [ "${iterations:-0}" -ge 1 ] && [ "${unreached:-1}" -lt "${iterations:-0}" ]; then
    echo "ok: $iterations iterations against the client, $unreached unreached"
else
    echo "FAIL: no iteration reached the client: $summary"; cat "$work/err.txt"; fail=1
fi
exit $fail
