#!/usr/bin/env bash
# hostile.sh - pcaptool validate on captures shaped to hurt (bench/gen_bench.c),
# each at 1x and 4x size: time and peak RSS, and the ratios. Shapes:
#   hash-flood        DNP conversations over IPv6 whose addresses all had one
#                     value under the flow table's old unkeyed hash
#   hash-random       the same traffic with random addresses (the flood must
#                     run within 2x of it)
#   many-conversations  DNP conversations of two packets
#   endless-tcp       OpenTTD connections each holding 30000 bytes of a packet
#                     that never ends
#   dnp-long          DNP conversations each holding 1 MB of a long message
#                     that never ends
#   dnp-links         DNP conversations each keeping 32 links of 16000 values
#   dnp-empty-parts   DNP conversations each sending 30000 empty parts of a
#                     long message that never ends
#   tcp-reverse       32 OpenTTD streams sent as 1-byte segments in reverse
#                     order (the size is the bytes)
#   tiny-frames       one OpenTTD connection of 3-byte packets, one a segment
#                     (the size is the packets)
# Targets: time(4x) / time(1x) <= 5 on every shape; peak RSS within the
# README's bounds. Needs a build (scripts/setup.sh) and about 3 GB in /tmp.
# Not a test: figures for the README.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
gen=$build/bench/gen_bench
pcaptool=$build/pcaptool/pcaptool
[ -x "$gen" ] && [ -x "$pcaptool" ] || { echo "hostile: build first (bash scripts/setup.sh)"; exit 2; }
work=$(mktemp -d /tmp/gw-hostile.XXXXXX)
trap 'rm -rf "$work"' EXIT

# run FILE -> "seconds peak_kb" (validate's exit 1 for findings is fine)
run() {
    /usr/bin/time -o "$work/time" -f '%e %M' "$pcaptool" validate "$1" > /dev/null 2>&1 || true
    tail -1 "$work/time"
}

printf '%-18s %10s %7s %7s %9s %9s %6s\n' shape size "1x s" "4x s" "1x RSS MB" "4x RSS MB" "4x/1x"
declare -A t1
worst=0
shape() { # NAME SIZE_1X
    local name=$1 n=$2 s1 m1 s4 m4
    "$gen" "$name" "$work/1.pcap" "$n" 2> /dev/null
    sync # no writeback competing with the run
    read -r s1 m1 < <(run "$work/1.pcap")
    rm -f "$work/1.pcap"
    "$gen" "$name" "$work/4.pcap" $((4 * n)) 2> /dev/null
    sync
    read -r s4 m4 < <(run "$work/4.pcap")
    rm -f "$work/4.pcap"
    t1[$name]=$s1
    awk -v nm="$name" -v n="$n" -v s1="$s1" -v s4="$s4" -v m1="$m1" -v m4="$m4" 'BEGIN {
        r = s1 > 0 ? s4 / s1 : 0
        over = (r > 5) ? "  OVER 5" : ""
        printf "%-18s %10d %7.2f %7.2f %9.0f %9.0f %6.2f%s\n", nm, n, s1, s4, m1 / 1024, m4 / 1024, r, over }'
    if (( m4 > worst )); then worst=$m4; fi
    if (( m1 > worst )); then worst=$m1; fi
}
shape hash-flood 65536
shape hash-random 65536
shape many-conversations 500000
shape endless-tcp 10000
shape dnp-long 200
shape dnp-links 600
shape dnp-empty-parts 100
shape tcp-reverse 524288
shape tiny-frames 1000000
awk -v f="${t1[hash-flood]}" -v r="${t1[hash-random]}" -v w="$worst" 'BEGIN {
    printf "hash-flood / hash-random at 1x: %.2f (target <= 2)\n", (r > 0 ? f / r : 0)
    printf "largest peak RSS: %.0f MB\n", w / 1024 }'
