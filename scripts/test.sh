#!/usr/bin/env bash
# test.sh - set up, then run the whole test suite (CTest) twice: in build/
# (gcc, the plugin, valgrind, tshark on mutated captures), then in
# build-sanitize/ (clang, AddressSanitizer + UndefinedBehaviorSanitizer, no
# plugin), where the fuzz harnesses also fuzz for 30 s each. Tests run four
# per core: most network tests spend their time waiting for a peer. Beside
# them, scripts/other-wiresharks.sh tests the plugin with Wireshark 4.4 and
# 4.6 (Debian trixie and sid roots, made once and kept).
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
# the plugin against the other Wireshark releases (4.4, 4.6), each in a
# Debian root of its own (made once, then reused): beside the suites, it
# mostly waits for the archive and for tshark
bash scripts/other-wiresharks.sh > build/other-wiresharks.log 2>&1 &
other_wiresharks=$!
ctest --test-dir build --output-on-failure -j"$jobs" || { wait "$sanitize_build" "$other_wiresharks"; exit 1; }
wait "$sanitize_build" || { cat build-sanitize/build.log; wait "$other_wiresharks"; exit 1; }
ctest --test-dir build-sanitize --output-on-failure -j"$jobs" || { wait "$other_wiresharks"; exit 1; }
wait "$other_wiresharks" || { cat build/other-wiresharks.log; exit 1; }
tail -n 3 build/other-wiresharks.log
