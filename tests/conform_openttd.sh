#!/bin/sh
# conform_openttd.sh PCAPTOOL - pcaptool conform --proto openttd against a real
# OpenTTD 13.0 dedicated server (the Debian package) on loopback. Every case's
# verdict is the one the README's verdict table gives and justifies: all pass
# but openttd/join/wrong-password, skipped (this server asks for no
# password); the run exits 0; its JUnit names the 13 cases.
# The server's port: CONFORM_PORT, else one picked by the process id.
set -u
pcaptool=$1
openttd=/usr/games/openttd
[ -x "$openttd" ] || { echo "FAIL: $openttd missing (Debian packages openttd openttd-opengfx)"; exit 1; }
work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
port=${CONFORM_PORT:-$((40000 + $$ % 20000))}
mkdir -p "$work/home" "$work/config" "$work/data"
printf '[game_creation]\nmap_x = 6\nmap_y = 6\n[network]\nserver_game_type = local\nuse_relay_service = never\nserver_name = ConformTest\n' \
    > "$work/server.cfg"
HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" \
    "$openttd" -D "127.0.0.1:$port" -c "$work/server.cfg" -x -G 12345 < /dev/null > "$work/server.log" 2>&1 &
server=$!
i=0
while ! grep -q "starting game" "$work/server.log" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 600 ] || ! kill -0 "$server" 2>/dev/null; then
        echo "FAIL: the OpenTTD server did not start:"; cat "$work/server.log"; exit 1
    fi
    sleep 0.1
done

"$pcaptool" conform --proto openttd --target "127.0.0.1:$port" --format json --junit "$work/junit.xml" \
    > "$work/out.jsonl" 2> "$work/err.txt"
rc=$?
fail=0
# case -> verdict, one per line, sorted
sed -n 's/.*"case":"\([^"]*\)".*"verdict":"\([^"]*\)".*/\1 \2/p' "$work/out.jsonl" | sort > "$work/got.txt"
sort > "$work/want.txt" <<EOF
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
    echo "FAIL: verdicts differ from the README's (< wanted, > got):"; cat "$work/out.jsonl" "$work/err.txt"; fail=1
fi
[ "$rc" = 0 ] || { echo "FAIL: exit $rc, expected 0"; cat "$work/err.txt"; fail=1; }
grep -q 'tests="13" failures="0"' "$work/junit.xml" || { echo "FAIL: JUnit:"; cat "$work/junit.xml"; fail=1; }
[ $fail = 0 ] && echo "ok: 13 cases, the verdicts the README gives"
exit $fail
