#!/bin/sh
# check_expected.sh PCAPTOOL CAPTURE EXPECTED.jsonl
# pcaptool's JSON Lines for CAPTURE must equal the reviewed expected output.
# Options pcaptool needs for the capture (e.g. --port) are in EXPECTED's
# name with .args instead of .jsonl. pcaptool runs in the capture's folder,
# so that each record's "file" is the capture's name.
set -u
out=$(mktemp)
args_file="${3%.jsonl}.args"
args=""
[ -f "$args_file" ] && args=$(cat "$args_file")
# shellcheck disable=SC2086
(cd "$(dirname "$2")" && "$1" decode --format json --fail-on never $args "$(basename "$2")") > "$out"
rc=$?
if [ $rc -ne 0 ]; then
    echo "pcaptool exited $rc"; rm -f "$out"; exit 1
fi
if ! diff -u "$3" "$out"; then
    echo "FAIL: $(basename "$2"): output differs from $3"; rm -f "$out"; exit 1
fi
echo "ok $(basename "$2"): $(wc -l < "$out") PDUs as expected"
rm -f "$out"
