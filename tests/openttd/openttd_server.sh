# openttd_server.sh - sourced by the tests that run Debian's OpenTTD 13.0
# dedicated server (conform_openttd.sh, replay_openttd.sh, fuzz_openttd*.sh); needs $openttd
# and $work (with home/, config/ and data/ in it).
#
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
