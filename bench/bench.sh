#!/usr/bin/env bash
# bench.sh [--no-tshark] [PACKETS] - the benchmark (issues 8 and 36): one
# mixed capture of PACKETS packets (default 10^6; all five protocols, the real
# captures' conversations replayed, 1000 at once; bench/gen_bench.c,
# bench/captures.sh), then on that same file:
#   floor          bench/pcap_floor: a bare libpcap read loop
#   validate       pcaptool validate
#   decode-json    pcaptool decode --format json > /dev/null
#   tshark-fields  tshark with the plugin, -T fields of a few fields
#   tshark-json    tshark with the plugin, -T json > /dev/null
# (tshark left out with --no-tshark). Each prints its time (best of 3 for
# the floor and pcaptool, one run of tshark), packets/s, MB/s and peak RSS;
# then, for each protocol, a capture of PACKETS packets of its own
# conversations alone, the floor and validate on it; then the ratios the
# targets are about. Instructions per packet, which do not move with the
# machine's load: bench/instructions.sh. Needs a build (scripts/setup.sh).
# Not a test: times vary with the machine and what else it does.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tshark=true
if [ "${1:-}" = --no-tshark ]; then
    tshark=false
    shift
fi
packets=${1:-1000000}
build=$root/build
[ -x "$build/bench/gen_bench" ] || { echo "bench: build first (bash scripts/setup.sh)"; exit 2; }
# shellcheck source=bench/captures.sh
source "$root/bench/captures.sh"
work=$(mktemp -d /tmp/gw-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cap=$work/mixed.pcap
bench_capture mixed "$cap" "$packets"
cp -r "$build/plugins" "$work/plugins"
chmod -R a+rX "$work"
bytes=$(stat -c %s "$cap")
cat "$cap" > /dev/null # into the page cache

# tshark as nobody when root (Wireshark ignores plugin folders for root)
tshark_plugin=(env HOME="$work" WIRESHARK_PLUGIN_DIR="$work/plugins" tshark)
if [ "$(id -u)" -eq 0 ]; then
    tshark_plugin=(setpriv --reuid=65534 --regid=65534 --clear-groups "${tshark_plugin[@]}")
fi
if $tshark; then
    protos=$("${tshark_plugin[@]}" -G protocols 2>/dev/null | cut -f3)
    for p in "${bench_protocols[@]}"; do
        grep -qx "$p" <<< "$protos" || { echo "bench: the plugin did not load into tshark ($p missing)"; exit 1; }
    done
fi

declare -A secs
# run NAME RUNS CMD...: best wall time of RUNS runs, peak RSS of the last (on
# $bytes bytes)
run() {
    local name=$1 runs=$2 best="" t0 t1 s rss
    shift 2
    for _ in $(seq "$runs"); do
        t0=$(date +%s%N)
        # validate's exit status tells its verdict on the capture
        /usr/bin/time -f %M -o "$work/rss" "$@" > /dev/null 2> "$work/err" ||
            [[ " $* " == *" validate "* ]] || { echo "bench: $name failed"; cat "$work/err"; exit 1; }
        t1=$(date +%s%N)
        s=$(( t1 - t0 ))
        if [ -z "$best" ] || [ "$s" -lt "$best" ]; then best=$s; fi
    done
    rss=$(tail -1 "$work/rss")
    secs[$name]=$best
    awk -v n="$name" -v ns="$best" -v p="$packets" -v b="$bytes" -v r="$rss" 'BEGIN {
        s = ns / 1e9
        printf "%-14s %8.3f s %12.0f packets/s %9.1f MB/s %8.1f MB peak RSS\n", n, s, p / s, b / s / 1e6, r / 1024 }'
}

echo "capture: $packets packets, $(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }'), $(nproc) CPUs"
run floor 3 "$build/bench/pcap_floor" "$cap"
run validate 3 "$build/pcaptool/pcaptool" validate --no-progress "$cap"
run decode-json 3 "$build/pcaptool/pcaptool" decode --format json "$cap"
if $tshark; then
    run tshark-fields 1 "${tshark_plugin[@]}" -r "$cap" -T fields -e frame.number -e dnp.command \
        -e openttd.packet -e gne.message -e eoudp.command -e opendrakan.packet
    run tshark-json 1 "${tshark_plugin[@]}" -r "$cap" -T json
fi
for p in "${bench_protocols[@]}"; do
    rm -f "$work/one.pcap"
    bench_capture "$p" "$work/one.pcap" "$packets"
    bytes=$(stat -c %s "$work/one.pcap")
    echo "$p capture: $(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }')"
    cat "$work/one.pcap" > /dev/null
    run "$p-floor" 3 "$build/bench/pcap_floor" "$work/one.pcap"
    run "$p" 3 "$build/pcaptool/pcaptool" validate --no-progress "$work/one.pcap"
done

ratio() { awk -v a="${secs[$1]}" -v b="${secs[$2]}" 'BEGIN { printf "%.1f", a / b }'; }
echo
echo "validate / floor:             $(ratio validate floor)x   (target: at most 1.5x)"
for p in "${bench_protocols[@]}"; do
    printf 'validate / floor, %-11s %sx   (target: at most 2x)\n' "$p:" "$(ratio "$p" "$p-floor")"
done
echo "decode-json / validate:       $(ratio decode-json validate)x   (target: at most 2.5x)"
if $tshark; then
    echo "tshark-fields / validate:     $(ratio tshark-fields validate)x   (target: at least 100x)"
    echo "tshark-json / decode-json:    $(ratio tshark-json decode-json)x   (target: at least 20x)"
fi
