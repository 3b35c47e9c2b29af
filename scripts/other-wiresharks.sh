#!/usr/bin/env bash
# other-wiresharks.sh [--package DIR] [RELEASE...] - build the plugin against
# the Wireshark of other Debian releases and run the plugin's tests with that
# release's own tshark: trixie (Wireshark 4.4) and sid (4.6) by default;
# bookworm's (4.0) is the host's, tested by the main suite. (4.6's own TCP
# reassembly loses PDUs of the two resegmented captures after a 1-byte
# retransmission it calls a Keep-Alive: compared up to there, see
# tests/compare_tshark.py RELEASE_CUTS and docs/wireshark.md.) Each release gets a root made by
# mmdebstrap from Debian's archive (nothing from anywhere else), kept in
# $GW_ROOTS (default /var/cache/gamewire/roots) and reused while its package
# list is the same; the source is mounted into it read-only, the build stays
# in the root (/gamewire-build), so a second run only rebuilds what changed.
# With --package DIR, each release's Debian package too: built in the root
# with the tests off (as docs/install.md builds it), put in DIR
# (gamewire_<version>+wireshark<release>_<arch>.deb), and checked there by
# tests/package.sh (lintian, dpkg -i, that release's tshark as nobody, the
# man page, dpkg -r; lintian, man-db, file and dpkg-dev are added to the
# root the first time).
# Needs root (chroot, mounts) and mmdebstrap (installed when missing).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
roots=${GW_ROOTS:-/var/cache/gamewire/roots}
out=
if [ "${1:-}" = --package ]; then
    [ -n "${2:-}" ] || { echo "usage: other-wiresharks.sh [--package DIR] [RELEASE...]" >&2; exit 2; }
    mkdir -p "$2"
    out=$(cd "$2" && pwd)
    shift 2
fi
releases=("$@")
[ ${#releases[@]} -gt 0 ] || releases=(trixie sid)
# what a root holds: the build tools, the Wireshark headers and tshark, the
# libraries pcaptool links and what the plugin tests run
packages=build-essential,cmake,pkg-config,libwireshark-dev,libwiretap-dev,tshark,libglib2.0-dev,libpcap-dev
packages=$packages,zlib1g-dev,libcriterion-dev,python3,libxml2-utils,util-linux
[ "$(id -u)" -eq 0 ] || { echo "other-wiresharks: needs root (chroot)" >&2; exit 2; }
if ! command -v mmdebstrap > /dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap > /dev/null
fi

make_root() { # RELEASE: its root, made or reused
    local rel=$1 dir=$roots/$1 opts=()
    if [ -f "$dir/.gamewire-packages" ] && [ "$(cat "$dir/.gamewire-packages")" = "$packages" ]; then
        return
    fi
    # sid's Release file may have passed its Valid-Until on a machine whose
    # archive copy is old
    [ "$rel" = sid ] && opts=(--aptopt='Acquire::Check-Valid-Until "false"')
    rm -rf "$dir.new"
    mkdir -p "$roots"
    echo "other-wiresharks: making the $rel root (mmdebstrap, once)"
    mmdebstrap --quiet --variant=apt "${opts[@]}" --include="$packages" "$rel" "$dir.new" \
        http://deb.debian.org/debian
    echo "$packages" > "$dir.new/.gamewire-packages"
    rm -rf "$dir"
    mv "$dir.new" "$dir"
}

# in_root RELEASE COMMAND: COMMAND run by sh in the release's root, the
# source at /src, in a mount namespace of its own (nothing stays mounted)
in_root() {
    local dir=$roots/$1
    mkdir -p "$dir/src"
    unshare --mount --fork sh -c '
        mount --bind "$1" "$2/src" && mount -o remount,bind,ro "$2/src" &&
        mount -t proc proc "$2/proc" && exec chroot "$2" sh -c "$3"' sh "$src" "$dir" "$2"
}

# package RELEASE: the release's .deb, built in its root, checked there by
# tests/package.sh, copied to $out
package() {
    local dir=$roots/$1
    # cpack's dependency computation needs file and dpkg-shlibdeps
    if ! chroot "$dir" sh -c 'command -v lintian && command -v man && command -v file && command -v dpkg-shlibdeps' \
        > /dev/null; then
        chroot "$dir" sh -c 'apt-get update -qq -o Acquire::Check-Valid-Until=false &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            lintian man-db file dpkg-dev' > "$dir.apt.log" 2>&1 || { cat "$dir.apt.log"; return 1; }
    fi
    in_root "$1" '
        set -e
        cmake -S /src -B /gamewire-deb -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo > /gamewire-deb.log 2>&1 &&
        cmake --build /gamewire-deb -j"$(nproc)" >> /gamewire-deb.log 2>&1 ||
            { tail -40 /gamewire-deb.log; exit 1; }
        rm -rf /gamewire-deb/out && mkdir /gamewire-deb/out
        (cd /gamewire-deb && cpack -G DEB -B /gamewire-deb/out >> /gamewire-deb.log 2>&1) ||
            { tail -40 /gamewire-deb.log; exit 1; }
        sh /src/tests/package.sh /gamewire-deb /src/captures' || return 1
    cp "$dir"/gamewire-deb/out/gamewire_*.deb "$out"/
    echo "other-wiresharks: $1 package: $(cd "$dir/gamewire-deb/out" && ls gamewire_*.deb)"
}

skip='-E _rules$'
[ "${GW_OTHER_RULES:-0}" = 1 ] && skip=
status=0
for rel in "${releases[@]}"; do
    make_root "$rel"
    version=$(chroot "$roots/$rel" dpkg-query -W -f='${Version}' tshark)
    echo "other-wiresharks: $rel, tshark $version"
    # the plugin tests: every capture's fields, values and findings (expert
    # infos) against pcaptool's, the second pass, the statistics trees, no
    # active code in the plugin. The rule captures (captures/rules/) only
    # with GW_OTHER_RULES=1: they exercise the decoders, the same code in
    # every release, where the release's glue (tree, labels, expert infos,
    # conversations, heuristics) is all exercised by captures/ itself.
    if ! in_root "$rel" '
        set -e
        cmake -S /src -B /gamewire-build -DCMAKE_BUILD_TYPE=RelWithDebInfo > /gamewire-build.log 2>&1 ||
            { cat /gamewire-build.log; exit 1; }
        cmake --build /gamewire-build -j"$(nproc)" --target gamewire pcaptool >> /gamewire-build.log 2>&1 ||
            { tail -40 /gamewire-build.log; exit 1; }
        cd /gamewire-build && ctest -j"$(( $(nproc) * 2 ))" -R "^plugin_" '"$skip"' --output-on-failure'; then
        echo "other-wiresharks: $rel (tshark $version): FAILED"
        status=1
    fi
    [ -n "$out" ] && ! package "$rel" && { echo "other-wiresharks: $rel package: FAILED"; status=1; }
done
exit $status
