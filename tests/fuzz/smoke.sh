#!/bin/sh
# smoke.sh HARNESS SECONDS WORKDIR SEED_DIR... - fuzz for SECONDS from the
# seeds, new inputs into a fresh WORKDIR; a crash leaves its input as
# WORKDIR/crash-* (libFuzzer prints the path) and fails the test.
set -eu
harness=$1 seconds=$2 work=$3
shift 3
rm -rf "$work"
mkdir -p "$work/corpus"
exec "$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" "$@"
