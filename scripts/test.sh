#!/usr/bin/env bash
# test.sh - set up, then run the whole test suite (CTest) twice: in build/
# (gcc, the plugin, valgrind, tshark on mutated captures), then in
# build-sanitize/ (clang, AddressSanitizer + UndefinedBehaviorSanitizer, no
# plugin), where the fuzz harnesses also fuzz for 30 s each. Tests run four
# per core: most network tests spend their time waiting for a peer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=$(( $(nproc) * 4 ))
# the sanitizer build compiles while the first suite mostly waits (through
# ccache when it is installed, as setup.sh's)
launcher=-DCMAKE_C_COMPILER_LAUNCHER=
command -v ccache > /dev/null && launcher=-DCMAKE_C_COMPILER_LAUNCHER=ccache
( CC=clang cmake -S . -B build-sanitize -DGW_SANITIZE=ON -DGW_BUILD_PLUGIN=OFF \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo "$launcher" > /dev/null &&
  nice cmake --build build-sanitize -j"$(nproc)" > build-sanitize/build.log 2>&1 ) &
sanitize_build=$!
ctest --test-dir build --output-on-failure -j"$jobs" || { wait "$sanitize_build"; exit 1; }
wait "$sanitize_build" || { cat build-sanitize/build.log; exit 1; }
ctest --test-dir build-sanitize --output-on-failure -j"$jobs"
