#!/bin/sh
# replay_wireshark.sh BUILD_DIR PCAPTOOL DNP_PEER DNP_CAPTURE OPENTTD_CAPTURE -
# the --out captures of the good replays of tests/dnp/replay_dnp.sh (26 DNP PDUs)
# and tests/openttd/replay_openttd.sh (a join to a real OpenTTD server) read by
# tshark with the plugin: the same packet types as pcaptool decodes, PDU by
# PDU, and no expert info above note.
set -u
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build=$1 pcaptool=$2
fail=0
if ! bash "$here/../scripts/tshark-plugin.sh" "$build" -G protocols 2>/dev/null | cut -f3 | grep -qx dnp; then
    echo "FAIL: the plugin did not load into tshark"; exit 1
fi

# check NAME PROTO TRANSPORT TYPE_FIELD MIN_PDUS: $work/NAME.pcap in tshark
check() {
    out="$work/$1.pcap"
    # the replay used a port of its own choosing, which Wireshark may give to
    # another protocol (26000 is Quake's): tell it the port, as a user would.
    # The first PDU goes to that port (DNP: the peer's request to our server;
    # OpenTTD: our join to the server).
    port=$("$pcaptool" decode --format json "$out" | head -1 | sed 's/.*"dst":"[^"]*:\([0-9]*\)".*/\1/')
    ws=$(bash "$here/../scripts/tshark-plugin.sh" "$build" -r "$out" -d "$3.port==$port,$2" \
         -Y "$2" -T fields -e "$4")
    pt=$("$pcaptool" decode --format json "$out" | sed "s/.*\"$4\":\[\([0-9]*\)\].*/\1/")
    n=$(printf '%s\n' "$ws" | wc -l)
    if [ "$ws" != "$pt" ] || [ "$n" -lt "$5" ]; then
        echo "FAIL $1: tshark's $4 differ from pcaptool's (or fewer than $5):"
        echo "$ws" | tr '\n' ' '; echo; echo "$pt" | tr '\n' ' '; echo; fail=1; return
    fi
    expert=$(bash "$here/../scripts/tshark-plugin.sh" "$build" -r "$out" -d "$3.port==$port,$2" \
             -q -z expert,warn)
    if printf '%s\n' "$expert" | grep -qE '^(Errors|Warnings) \('; then
        echo "FAIL $1: expert info above note:"; echo "$expert"; fail=1; return
    fi
    echo "ok $1: $n $2 PDUs in tshark as in pcaptool, no expert info above note"
}

if REPLAY_OUT="$work/dnp.pcap" sh "$here/dnp/replay_dnp.sh" "$pcaptool" "$3" "$4" > "$work/dnp.txt"; then
    check dnp dnp udp dnp.command 26
else
    cat "$work/dnp.txt"; fail=1
fi
if REPLAY_OUT="$work/openttd.pcap" sh "$here/openttd/replay_openttd.sh" "$pcaptool" "$5" > "$work/openttd.txt"; then
    # 12 sent, and the server's answers and frames
    check openttd openttd tcp openttd.packet 100
else
    cat "$work/openttd.txt"; fail=1
fi
exit $fail
