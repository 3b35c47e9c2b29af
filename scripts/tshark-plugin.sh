#!/usr/bin/env bash
# tshark-plugin.sh BUILD_DIR [TSHARK ARGS...] - run tshark with the plugin
# from BUILD_DIR/plugins. Wireshark ignores plugin folders when run as root,
# so as root tshark runs as nobody, from a fresh world-readable folder holding
# copies of the plugin and of every file named in the arguments.
set -euo pipefail
build=$(cd "$1" && pwd); shift
tmp=$(mktemp -d /tmp/gw-tshark.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp -r "$build/plugins" "$tmp/plugins"
args=()
for a in "$@"; do
    if [ -f "$a" ]; then
        cp "$a" "$tmp/"
        a="$tmp/$(basename "$a")"
    fi
    args+=("$a")
done
chmod -R a+rX "$tmp"
if [ "$(id -u)" -eq 0 ]; then
    setpriv --reuid=65534 --regid=65534 --clear-groups \
        env HOME="$tmp" WIRESHARK_PLUGIN_DIR="$tmp/plugins" tshark "${args[@]}"
else
    HOME="$tmp" WIRESHARK_PLUGIN_DIR="$tmp/plugins" tshark "${args[@]}"
fi
