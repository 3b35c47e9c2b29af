#!/usr/bin/env bash
# memory.sh - peak RSS of pcaptool validate as captures grow, and on
# adversarial captures (bench/gen_bench.c):
#   mixed 10^5 and 10^7 packets    the same traffic (1000 clients replaying
#                                  real sessions), 100 times more of it
#   endless-tcp                    10000 connections each holding 30000 bytes
#                                  of an unfinished OpenTTD packet (300 MB if kept)
#   many-conversations             2 million DNP conversations of 2 packets
#   dnp-long                       200 conversations each holding 1 MB of an
#                                  unfinished DNP long message (200 MB if kept)
# with the findings that say when state was evicted or given up. Needs a
# build (scripts/setup.sh) and about 2 GB in /tmp. Not a test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
gen=$build/bench/gen_bench
[ -x "$gen" ] || { echo "memory: build first (bash scripts/setup.sh)"; exit 2; }
work=$(mktemp -d /tmp/gw-memory.XXXXXX)
trap 'rm -rf "$work"' EXIT
C=$root/captures
templates=("$C/dnp-denetwork-example.pcap" "$C/openttd-13.0-join.pcap"
    "$C/openttd-13.0-password-chat-kick.pcapng" "$C/gne-exping_ping.pcap" "$C/gne-expong_game.pcap"
    "$C/gne-exhello_unrel.pcap" "$C/eoudp-gen3-r-type-head-session.pcap"
    "$C/opendrakan-reference-master.pcap")

printf '%-22s %10s %9s %9s %10s  %s\n' capture packets MB seconds "peak RSS" "bounding findings"
measure() { # NAME FILE
    local name=$1 cap=$2 t0 t1
    local packets
    packets=$("$build/bench/pcap_floor" "$cap" | cut -d' ' -f1)
    t0=$(date +%s%N)
    /usr/bin/time -f %M -o "$work/rss" "$build/pcaptool/pcaptool" validate --no-progress "$cap" \
        > "$work/out" 2> "$work/err" || true
    t1=$(date +%s%N)
    local found
    found=$(grep -oE "(capture\.conversations_evicted|tcp\.memory_limit|dnp\.long\.too_long) +[0-9]+ x" "$work/out" |
            tr -s ' ' | sed 's/ x$//' | paste -sd, - || true)
    awk -v n="$name" -v p="$packets" -v b="$(stat -c %s "$cap")" -v ns=$((t1 - t0)) \
        -v r="$(tail -1 "$work/rss")" -v f="${found:-none}" 'BEGIN {
        printf "%-22s %10d %9.1f %9.2f %7.1f MB  %s\n", n, p, b / 1e6, ns / 1e9, r / 1024, f }'
    rm -f "$cap"
}
"$gen" mixed "$work/m5.pcap" 100000 1000 "${templates[@]}" 2> /dev/null
measure "mixed 10^5" "$work/m5.pcap"
"$gen" mixed "$work/m7.pcap" 10000000 1000 "${templates[@]}" 2> /dev/null
measure "mixed 10^7" "$work/m7.pcap"
"$gen" endless-tcp "$work/tcp.pcap" 10000
measure "endless-tcp" "$work/tcp.pcap"
"$gen" many-conversations "$work/conv.pcap" 2000000
measure "many-conversations" "$work/conv.pcap"
"$gen" dnp-long "$work/long.pcap" 200
measure "dnp-long" "$work/long.pcap"
