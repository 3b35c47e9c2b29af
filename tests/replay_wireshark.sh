#!/bin/sh
# replay_wireshark.sh BUILD_DIR PCAPTOOL DNP_PEER CAPTURE - the --out capture
# of a good DNP replay (tests/replay_dnp.sh) read by tshark with the plugin:
# its 26 PDUs are DNP, with the same commands pcaptool decodes, and no expert
# info above note.
set -u
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build=$1
if ! bash "$here/../scripts/tshark-plugin.sh" "$build" -G protocols 2>/dev/null | cut -f3 | grep -qx dnp; then
    echo "FAIL: the plugin did not load into tshark"; exit 1
fi
REPLAY_OUT="$work/out.pcap" sh "$here/replay_dnp.sh" "$2" "$3" "$4" > "$work/replay.txt" || {
    cat "$work/replay.txt"; exit 1; }
# the replay listened on a port of its own choosing, which Wireshark may give
# to another protocol (26000 is Quake's): tell it that port is DNP, as a
# user would. The first PDU is the peer's connection request to that port.
port=$("$2" decode --format json "$work/out.pcap" | head -1 | sed 's/.*"dst":"[^"]*:\([0-9]*\)".*/\1/')
ws=$(bash "$here/../scripts/tshark-plugin.sh" "$build" -r "$work/out.pcap" -d "udp.port==$port,dnp" \
     -Y dnp -T fields -e dnp.command)
pt=$("$2" decode --format json "$work/out.pcap" | sed 's/.*"dnp.command":\[\([0-9]*\)\].*/\1/')
if [ "$ws" != "$pt" ] || [ "$(printf '%s\n' "$ws" | wc -l)" -ne 26 ]; then
    echo "FAIL: tshark's commands differ from pcaptool's (or not 26):"; echo "$ws" | tr '\n' ' '; echo
    echo "$pt" | tr '\n' ' '; echo; exit 1
fi
expert=$(bash "$here/../scripts/tshark-plugin.sh" "$build" -r "$work/out.pcap" -d "udp.port==$port,dnp" \
         -q -z expert,warn)
if printf '%s\n' "$expert" | grep -qE '^(Errors|Warnings) \('; then
    echo "FAIL: expert info above note:"; echo "$expert"; exit 1
fi
echo "ok: 26 DNP PDUs in tshark as in pcaptool, no expert info above note"
