# openttd_server.sh - sourced by the tests that run Debian's OpenTTD 13.0
# (conform_openttd.sh, replay_openttd.sh, fuzz_openttd*.sh), once $work
# (their folder, removed on exit) is made: sets $openttd (exit 1 when it is
# not installed) and $port (GW_TEST_PORT, the block CTest gives the test,
# else one picked by the process id), and makes home/, config/ and data/ in
# $work for OpenTTD's own files.
openttd=/usr/games/openttd
[ -x "$openttd" ] || { echo "FAIL: $openttd missing (Debian packages openttd openttd-opengfx)"; exit 1; }
port=${GW_TEST_PORT:-$((40000 + $$ % 20000))}
mkdir -p "$work/home" "$work/config" "$work/data"

# openttd_server_cfg NAME: $work/server.cfg, a server called NAME on a
# 64x64 map (map_x = 6: generated in seconds), no advertising, no relay
openttd_server_cfg() {
    printf '[game_creation]\nmap_x = 6\nmap_y = 6\n[network]\nserver_game_type = local\nuse_relay_service = never\nserver_name = %s\n' \
        "$1" > "$work/server.cfg"
}

# openttd_start CFG PORT LOG: a dedicated server with config CFG on
# 127.0.0.1:PORT, its pid in $server once its game has started (LOG: a log
# of its own: a previous server's says "starting game" too, and a new one
# empties the file only once it runs); exit 1 when it does not start.
openttd_start() {
    HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" \
        "$openttd" -D "127.0.0.1:$2" -c "$1" -x -G 12345 < /dev/null > "$3" 2>&1 &
    server=$!
    i=0
    while ! grep -q "starting game" "$3" 2>/dev/null; do
        i=$((i + 1))
        if [ $i -gt 600 ] || ! kill -0 "$server" 2>/dev/null; then
            echo "FAIL: the OpenTTD server ($1) did not start:"; cat "$3"; exit 1
        fi
        sleep 0.1
    done
}

# openttd_stop: the server of $server stopped and waited for
openttd_stop() {
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
    server=""
}

# fuzz_said RC WHAT: a pcaptool fuzz run's result said (its exit RC, its
# JSON Lines in $work/out.jsonl, its standard error in $work/err.txt;
# fail=1 unless RC is 0); its summary in $summary and its counts in
# $iterations, $closed and $unreached
fuzz_said() {
    summary=$(grep '"summary"' "$work/out.jsonl")
    if [ "$1" -ne 0 ]; then
        echo "FAIL: fuzz against $2 exited $1:"; cat "$work/out.jsonl" "$work/err.txt"; fail=1
    else
        echo "ok: no failure: $summary"
    fi
    iterations=$(echo "$summary" | sed -n 's/.*"iterations":\([0-9]*\).*/\1/p')
    closed=$(echo "$summary" | sed -n 's/.*"closed":\([0-9]*\).*/\1/p')
    unreached=$(echo "$summary" | sed -n 's/.*"unreached":\([0-9]*\).*/\1/p')
}
