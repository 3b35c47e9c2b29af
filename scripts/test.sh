#!/usr/bin/env bash
# test.sh - set up, then run the whole test suite (CTest) twice: in build/
# (gcc, the plugin, valgrind, tshark on mutated captures), then in
# build-sanitize/ (clang, AddressSanitizer + UndefinedBehaviorSanitizer, no
# plugin), where the fuzz harnesses also fuzz for 30 s each.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j2
CC=clang cmake -S . -B build-sanitize -DGW_SANITIZE=ON -DGW_BUILD_PLUGIN=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build build-sanitize -j"$(nproc)"
ctest --test-dir build-sanitize --output-on-failure -j2
