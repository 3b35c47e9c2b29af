#!/usr/bin/env bash
# tshark-plugin.sh BUILD_DIR [TSHARK ARGS...] - run tshark with the plugin
# from BUILD_DIR/plugins. Wireshark ignores plugin folders when run as root,
# so as root tshark runs as nobody, from a fresh world-readable folder holding
# copies of the plugin and of every file named in the arguments.
# GW_TSHARK_DIR=DIR (an empty folder of the caller's, kept): the copies go
# there once and are reused by later runs (many short runs, as
# tests/dfilter_check.py makes).
set -euo pipefail
build=$(cd "$1" && pwd); shift
if [ -n "${GW_TSHARK_DIR:-}" ]; then
    tmp=$GW_TSHARK_DIR
else
    tmp=$(mktemp -d /tmp/gw-tshark.XXXXXX)
    trap 'rm -rf "$tmp"' EXIT
fi
[ -d "$tmp/plugins" ] || cp -r "$build/plugins" "$tmp/plugins"
args=()
for a in "$@"; do
    if [ -f "$a" ]; then
        [ -f "$tmp/$(basename "$a")" ] || cp "$a" "$tmp/"
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
