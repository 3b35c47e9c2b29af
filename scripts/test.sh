#!/usr/bin/env bash
# test.sh - set up, then run the whole test suite (CTest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j2
