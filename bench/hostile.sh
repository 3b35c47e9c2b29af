#!/usr/bin/env bash
# hostile.sh - pcaptool validate on captures shaped to hurt (bench/gen_bench.c),
# each at 1x and 4x size: time and peak RSS, and the ratios. Shapes so far:
#   hash-flood    65,536 DNP conversations over IPv6 whose addresses all had
#                 one value under the flow table's old unkeyed hash
#   hash-random   the same traffic with random addresses (the flood must run
#                 within 2x of it)
# Needs a build (scripts/setup.sh). Not a test: figures for the README.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
gen=$build/bench/gen_bench
pcaptool=$build/pcaptool/pcaptool
[ -x "$gen" ] && [ -x "$pcaptool" ] || { echo "hostile: build first (bash scripts/setup.sh)"; exit 2; }
work=$(mktemp -d /tmp/gw-hostile.XXXXXX)
trap 'rm -rf "$work"' EXIT

# run NAME FILE -> "seconds peak_kb" (validate's exit 1 for findings is fine)
run() {
    /usr/bin/time -o "$work/time" -f '%e %M' "$pcaptool" validate "$2" > /dev/null 2>&1 || true
    tail -1 "$work/time"
}

printf '%-12s %12s %9s %9s %10s %10s %8s\n' shape conversations "1x s" "4x s" "1x RSS KB" "4x RSS KB" "4x/1x"
declare -A t1
for shape in hash-flood hash-random; do
    n=65536
    "$gen" "$shape" "$work/$shape-1.pcap" $n
    "$gen" "$shape" "$work/$shape-4.pcap" $((4 * n))
    read -r s1 m1 < <(run "$shape" "$work/$shape-1.pcap")
    read -r s4 m4 < <(run "$shape" "$work/$shape-4.pcap")
    t1[$shape]=$s1
    ratio=$(awk -v a="$s4" -v b="$s1" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
    printf '%-12s %12d %9s %9s %10s %10s %8s\n' "$shape" $n "$s1" "$s4" "$m1" "$m4" "$ratio"
    rm -f "$work/$shape-1.pcap" "$work/$shape-4.pcap"
done
awk -v f="${t1[hash-flood]}" -v r="${t1[hash-random]}" \
    'BEGIN { printf "hash-flood / hash-random at 1x: %.2f (target <= 2)\n", (r > 0 ? f / r : 0) }'
