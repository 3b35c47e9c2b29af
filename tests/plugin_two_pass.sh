#!/bin/sh
# plugin_two_pass.sh BUILD_DIR CAPTURES_DIR - what only Wireshark's second
# pass shows: requests link forward to their answers.
# DNP: in the denetwork capture, frame 3 (link state #0 to port 39833) is
# acked by frame 5, and frame 48 (reliable message #3) by frame 49 (bytes
# read by hand from the capture: 05 0000... and 06 0000 00; 04 0300... and
# 06 0300 00).
# GNE: in gne-exping_ping.pcap the ping request 0 of frame 14 (04 00000000
# then 16 zero bytes) is answered in frame 18 (04 00000000 9538016b ...).
# EOUDP: in eoudp-gen-lost-acks.pcap (tests/eoudp/gen_eoudp.c) the component
# of frame 4 (id 2) is acknowledged in frame 7; id 3 (frame 5, resent in
# frame 8) in frame 9; id 4 (frame 6) never: an expert info on frame 6 that
# Wireshark can only add once it has seen the whole file.
set -u
here=$(dirname "$0")
fails=0
expect() { # OUTPUT LINE...
    out=$1; shift
    for want in "$@"; do
        if printf '%s\n' "$out" | grep -q "^$want\$"; then
            echo "ok: $want"
        else
            echo "FAIL: no line '$want' in:"; printf '%s\n' "$out" | head -12; fails=1
        fi
    done
}
out=$(bash "$here/../scripts/tshark-plugin.sh" "$1" -2 -r "$2/dnp-denetwork-example.pcap" \
      -T fields -e frame.number -e dnp.ack.acked_in -e dnp.ack.request_frame -Y dnp 2>&1)
expect "$out" "3	5	" "48	49	" "5		3" "49		48"
out=$(bash "$here/../scripts/tshark-plugin.sh" "$1" -2 -r "$2/gne-exping_ping.pcap" \
      -T fields -e frame.number -e gne.ping.reply_frame -e gne.ping.request_frame -Y gne.ping.req_id 2>&1)
expect "$out" "14	18	" "18		14"
out=$(bash "$here/../scripts/tshark-plugin.sh" "$1" -2 -r "$2/eoudp-gen-lost-acks.pcap" \
      -T fields -e frame.number -e eoudp.ack.acked_in -e eoudp.resend_of -Y "eoudp.command == 0x0c" 2>&1)
expect "$out" "4	7	" "5	9	" "6		" "8		5"
out=$(bash "$here/../scripts/tshark-plugin.sh" "$1" -2 -r "$2/eoudp-gen-lost-acks.pcap" \
      -T fields -e frame.number -e _ws.expert.message -Y eoudp.ack.missing 2>&1)
expect "$out" "6	Important packet id 4 (command 0x0c) never acknowledged"
exit $fails
