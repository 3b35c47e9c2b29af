#!/usr/bin/env bash
# jobs.sh [FILES] [PACKETS] - what `validate -j N` gains over -j 1 (issue 36,
# item 6): FILES captures (default 8) of PACKETS packets each (default
# 10^6: bench/gen_bench's mixed traffic, as bench/bench.sh writes it; the
# same file linked FILES times, read from the page cache), validated as one
# folder with -j 1, then -j 2, ... up to the CPUs, text and --format json;
# best wall time of 3 each, CPU time (user + system) of that run, and the
# speed-up over -j 1. The load average before and after says how busy the
# machine was: figures taken while other work runs are noisy. Needs a build
# (scripts/setup.sh). Not a test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
files=${1:-8}
packets=${2:-1000000}
build=$root/build
[ -x "$build/bench/gen_bench" ] || { echo "jobs: build first (bash scripts/setup.sh)"; exit 2; }
work=$(mktemp -d /tmp/gw-jobs.XXXXXX)
trap 'rm -rf "$work"' EXIT
C=$root/captures
mkdir "$work/archive"
"$build/bench/gen_bench" mixed "$work/mixed.pcap" "$packets" 1000 "$C/dnp-denetwork-example.pcap" \
    "$C/openttd-13.0-join.pcap" "$C/openttd-13.0-password-chat-kick.pcapng" \
    "$C/gne-exping_ping.pcap" "$C/gne-expong_game.pcap" "$C/gne-exhello_unrel.pcap" \
    "$C/eoudp-gen3-r-type-head-session.pcap" "$C/opendrakan-reference-master.pcap" 2> /dev/null
for i in $(seq -w "$files"); do ln "$work/mixed.pcap" "$work/archive/part-$i.pcap"; done
cat "$work/mixed.pcap" > /dev/null # into the page cache
cpus=$(nproc)
pcaptool=$build/pcaptool/pcaptool

echo "archive: $files captures of $packets packets ($(du -m "$work/mixed.pcap" | cut -f1) MB each), $cpus CPUs"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# run LABEL ARGS...: best wall time of 3, the CPU time of that run
declare -A best
run() {
    local label=$1 b="" cpu="" t0 t1 s
    shift
    for _ in 1 2 3; do
        t0=$(date +%s%N)
        /usr/bin/time -f "%U %S" -o "$work/cpu" "$pcaptool" validate --no-progress --fail-on never "$@" \
            "$work/archive" > /dev/null
        t1=$(date +%s%N)
        s=$(( t1 - t0 ))
        if [ -z "$b" ] || [ "$s" -lt "$b" ]; then
            b=$s
            cpu=$(awk '{ print $1 + $2 }' "$work/cpu")
        fi
    done
    best[$label]=$b
    local base=${best[${label%-j*}-j1]}
    awk -v l="$label" -v ns="$b" -v cpu="$cpu" -v base="$base" -v p="$packets" -v f="$files" 'BEGIN {
        s = ns / 1e9
        printf "%-16s %7.3f s wall %7.3f s CPU %6.2f M packets/s   speed-up %.2fx\n", l, s, cpu, p * f / s / 1e6, base / ns }'
}
for fmt in text json; do
    for j in $(seq 1 "$cpus"); do
        run "$fmt-j$j" -j "$j" --format "$fmt"
    done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
