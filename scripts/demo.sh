#!/usr/bin/env bash
# demo.sh - set up, then decode the bundled denetwork capture with pcaptool
# and with tshark + the plugin.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
capture=captures/dnp-denetwork-example.pcap

echo "== pcaptool decode $capture"
build/pcaptool/pcaptool decode "$capture"

echo "== tshark with the plugin"
if ! bash scripts/tshark-plugin.sh build -G protocols | grep -q $'\tdnp$'; then
    echo "demo: the plugin did not load in tshark" >&2
    exit 1
fi
bash scripts/tshark-plugin.sh build -r "$capture"
