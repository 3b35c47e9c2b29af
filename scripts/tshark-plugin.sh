#!/usr/bin/env bash
# tshark-plugin.sh BUILD_DIR [TSHARK ARGS...] - run tshark with the plugin
# from BUILD_DIR/plugins. Wireshark ignores plugin folders when run as root,
# so as root tshark runs as nobody, from a fresh world-readable folder holding
# copies of the plugin and of every file named in the arguments.
# GW_TSHARK_DIR=DIR (an empty folder of the caller's, kept): the copies go
# there once and are reused by later runs. GW_TSHARK_PROGRAM=sharkd runs
# sharkd (its requests on standard input) in place of tshark, and
# GW_TSHARK_HOME=DIR (inside GW_TSHARK_DIR) is its home, whose
# .config/wireshark holds the preferences and Decode As entries sharkd has
# no options for (tests/dfilter_check.py).
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
program=${GW_TSHARK_PROGRAM:-tshark}
home=${GW_TSHARK_HOME:-$tmp}
if [ "$(id -u)" -eq 0 ]; then
    setpriv --reuid=65534 --regid=65534 --clear-groups \
        env HOME="$home" WIRESHARK_PLUGIN_DIR="$tmp/plugins" "$program" "${args[@]}"
else
    HOME="$home" WIRESHARK_PLUGIN_DIR="$tmp/plugins" "$program" "${args[@]}"
fi
