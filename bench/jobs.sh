#!/usr/bin/env bash
# jobs.sh [FILES] [PACKETS] [RUNS] - what `validate -j N` gains over -j 1 (issue 36,
# item 6): FILES captures (default 8) of PACKETS packets each (default
# 10^6: bench/captures.sh's mixed traffic, as bench/bench.sh writes it; the
# same file linked FILES times, read from the page cache), validated as one
# folder with -j 1, then -j 2, ... up to the CPUs, text and --format json;
# best wall time of RUNS each (default 3), CPU time (user + system) of that
# run, and the speed-up over -j 1; the runs of every N take turns, so each N
# meets the same moments of a busy machine. The load average before and
# after says how busy the machine was: while other sessions keep the CPUs
# busy, the kernel's per-session fair share (autogroup) gives a second
# thread little or nothing, and only a quiet moment shows the speed-up (more
# RUNS find one more often). Needs a build
# (scripts/setup.sh). Not a test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
files=${1:-8}
packets=${2:-1000000}
runs=${3:-3}
build=$root/build
[ -x "$build/bench/gen_bench" ] || { echo "jobs: build first (bash scripts/setup.sh)"; exit 2; }
work=$(mktemp -d /tmp/gw-jobs.XXXXXX)
trap 'rm -rf "$work"' EXIT
# shellcheck source=bench/captures.sh
source "$root/bench/captures.sh"
mkdir "$work/archive"
bench_capture mixed "$work/mixed.pcap" "$packets"
for i in $(seq -w "$files"); do ln "$work/mixed.pcap" "$work/archive/part-$i.pcap"; done
cat "$work/mixed.pcap" > /dev/null # into the page cache
cpus=$(nproc)
pcaptool=$build/pcaptool/pcaptool

echo "archive: $files captures of $packets packets ($(du -m "$work/mixed.pcap" | cut -f1) MB each), $cpus CPUs, best of $runs"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# every label's runs take turns: run 1 of each, then run 2 of each, ...
labels=()
for fmt in text json; do
    for j in $(seq 1 "$cpus"); do labels+=("$fmt-j$j"); done
done
declare -A best cpu
for _ in $(seq "$runs"); do
    for label in "${labels[@]}"; do
        fmt=${label%-j*} j=${label#*-j}
        t0=$(date +%s%N)
        /usr/bin/time -f "%U %S" -o "$work/cpu" "$pcaptool" validate --no-progress --fail-on never \
            -j "$j" --format "$fmt" "$work/archive" > /dev/null
        t1=$(date +%s%N)
        s=$(( t1 - t0 ))
        if [ -z "${best[$label]:-}" ] || [ "$s" -lt "${best[$label]}" ]; then
            best[$label]=$s
            cpu[$label]=$(awk '{ print $1 + $2 }' "$work/cpu")
        fi
    done
done
for label in "${labels[@]}"; do
    awk -v l="$label" -v ns="${best[$label]}" -v cpu="${cpu[$label]}" -v base="${best[${label%-j*}-j1]}" \
        -v p="$packets" -v f="$files" 'BEGIN {
        s = ns / 1e9
        printf "%-16s %7.3f s wall %7.3f s CPU %6.2f M packets/s   speed-up %.2fx\n", l, s, cpu, p * f / s / 1e6, base / ns }'
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
