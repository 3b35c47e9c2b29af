#!/usr/bin/env bash
# regen_expected.sh [PCAPTOOL]: rewrite tests/*/expected/*.jsonl from what
# pcaptool prints now (as tests/check_expected.sh runs it: in the capture's
# folder, with the options in CAPTURE.args). Only after a deliberate change:
# then read `git diff tests` line by line against the protocol text
# before committing it; the expected outputs are reviewed, not generated.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pcaptool=$(realpath "${1:-$root/build/pcaptool/pcaptool}")
for exp in "$root"/tests/expected/*.jsonl "$root"/tests/*/expected/*.jsonl; do
    name=$(basename "$exp" .jsonl)
    cap=$(find "$root/captures" -name "$name" -print -quit)
    [ -n "$cap" ] || { echo "regen_expected: no capture $name for $exp" >&2; exit 1; }
    args=()
    [ -f "${exp%.jsonl}.args" ] && read -r -a args < "${exp%.jsonl}.args"
    (cd "$(dirname "$cap")" && "$pcaptool" decode --format json --fail-on never "${args[@]}" "$name") > "$exp"
done
git -C "$root" diff --stat -- tests/expected 'tests/*/expected'
