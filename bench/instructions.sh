#!/usr/bin/env bash
# instructions.sh [PACKETS] - instructions per packet (valgrind's cachegrind,
# no cache simulation), a figure that does not move with the machine's load
# as times do: on the mixed capture of bench.sh (PACKETS packets, default
# 10^5) for the floor (bench/pcap_floor), pcaptool validate and pcaptool
# decode --format json; then on each protocol's own capture (its real
# conversations replayed, bench/captures.sh) for the floor and validate.
# Each figure is (instructions on the capture - instructions on a capture
# of no packets) / PACKETS: start-up is left out, the end of the
# conversations (their end-of-conversation checks, freeing) is counted.
# Prints the ratios against the floor and validate as bench.sh does. Needs a
# build (scripts/setup.sh) and valgrind. Not a test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
packets=${1:-100000}
build=$root/build
[ -x "$build/bench/gen_bench" ] || { echo "instructions: build first (bash scripts/setup.sh)"; exit 2; }
command -v valgrind > /dev/null || { echo "instructions: needs valgrind"; exit 2; }
# shellcheck source=bench/captures.sh
source "$root/bench/captures.sh"
work=$(mktemp -d /tmp/gw-instructions.XXXXXX)
trap 'rm -rf "$work"' EXIT
pcaptool=$build/pcaptool/pcaptool
floor=$build/bench/pcap_floor

# instructions CMD...: what CMD executes, start to end
instructions() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 > /dev/null |
        sed -n 's/.*I *refs: *//p' | tr -d ,
}
# per_packet CAPTURE CMD...: CMD CAPTURE's instructions a packet, CMD on no
# packets taken off
per_packet() {
    local cap=$1 all none
    shift
    all=$(instructions "$@" "$cap")
    none=$(instructions "$@" "$work/empty.pcap")
    awk -v a="$all" -v z="$none" -v p="$packets" 'BEGIN { printf "%.0f", (a - z) / p }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

declare -A ir
bench_capture mixed "$work/mixed.pcap" "$packets"
head -c 24 "$work/mixed.pcap" > "$work/empty.pcap" # the pcap header alone
echo "instructions per packet (cachegrind), $packets packets a capture"
ir[floor]=$(per_packet "$work/mixed.pcap" "$floor")
ir[validate]=$(per_packet "$work/mixed.pcap" "$pcaptool" validate --no-progress)
ir[decode-json]=$(per_packet "$work/mixed.pcap" "$pcaptool" decode --format json)
printf '%-12s %14s %14s %14s\n' capture floor validate decode-json
printf '%-12s %14s %14s %14s\n' mixed "${ir[floor]}" "${ir[validate]}" "${ir[decode-json]}"
for p in "${bench_protocols[@]}"; do
    bench_capture "$p" "$work/$p.pcap" "$packets"
    ir[$p-floor]=$(per_packet "$work/$p.pcap" "$floor")
    ir[$p]=$(per_packet "$work/$p.pcap" "$pcaptool" validate --no-progress)
    rm "$work/$p.pcap"
    printf '%-12s %14s %14s\n' "$p" "${ir[$p-floor]}" "${ir[$p]}"
done
echo
echo "validate / floor, mixed:      $(ratio "${ir[validate]}" "${ir[floor]}")x"
for p in "${bench_protocols[@]}"; do
    printf 'validate / floor, %-11s %sx\n' "$p:" "$(ratio "${ir[$p]}" "${ir[$p-floor]}")"
done
echo "decode-json / validate:       $(ratio "${ir[decode-json]}" "${ir[validate]}")x"
