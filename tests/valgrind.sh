#!/bin/sh
# valgrind.sh PCAPTOOL CAPTURES_DIR - pcaptool under valgrind (memcheck)
# over every capture: decode (text and verbose JSON), validate under both
# profiles and with two threads, stats. Fails on any invalid access, use of
# uninitialised memory, or leak (definite, indirect or possible).
set -u
pcaptool=$1
caps=$2
files=$(ls "$caps"/*.pcap "$caps"/*.pcapng "$caps"/rules/*.pcap "$caps"/fuzz/*)
fails=0
for cmd in "decode" "decode -V --format json" "validate" "validate --profile spec -j 2 --format json" "stats"; do
    # shellcheck disable=SC2086
    valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
        --show-leak-kinds=definite,indirect,possible $pcaptool $cmd $files > /dev/null 2> /tmp/valgrind.$$
    rc=$?
    if [ $rc -gt 2 ]; then
        echo "FAIL: pcaptool $cmd: exit $rc"; head -40 /tmp/valgrind.$$; fails=$((fails + 1))
    else
        echo "ok: pcaptool $cmd over $(echo "$files" | wc -l) captures (exit $rc)"
    fi
done
rm -f /tmp/valgrind.$$
[ $fails -eq 0 ]
