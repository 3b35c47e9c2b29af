#!/usr/bin/env bash
# setup.sh - install the Debian packages the project needs (only those
# missing) and build it into build/. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES="build-essential cmake pkg-config libglib2.0-dev libpcre2-dev libpcap-dev libcriterion-dev zlib1g-dev
          wireshark-dev libwireshark-dev tshark wireshark-common libxml2-utils gzip python3 util-linux
          clang libclang-rt-14-dev valgrind openttd openttd-opengfx groff-base bash-completion chromium
          lintian"
missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends $missing > /dev/null
fi

# ccache when it is installed (it is not required): a build from scratch then
# takes what an earlier one compiled from its cache; without it, the
# launcher is cleared (a build tree configured when it was there)
launcher=-DCMAKE_C_COMPILER_LAUNCHER=
command -v ccache > /dev/null && launcher=-DCMAKE_C_COMPILER_LAUNCHER=ccache
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "$launcher" > /dev/null
cmake --build build -j"$(nproc)"
