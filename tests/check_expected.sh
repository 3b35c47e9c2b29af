#!/bin/sh
# check_expected.sh PCAPTOOL CAPTURE EXPECTED.jsonl
# pcaptool's JSON Lines for CAPTURE must equal the reviewed expected output.
set -u
out=$(mktemp)
"$1" decode --format json --fail-on never "$2" > "$out"
rc=$?
if [ $rc -ne 0 ]; then
    echo "pcaptool exited $rc"; rm -f "$out"; exit 1
fi
if ! diff -u "$3" "$out"; then
    echo "FAIL: $(basename "$2"): output differs from $3"; rm -f "$out"; exit 1
fi
echo "ok $(basename "$2"): $(wc -l < "$out") PDUs as expected"
rm -f "$out"
