#!/bin/sh
# cli.sh PCAPTOOL CAPTURES_DIR - the command line contract: help, version,
# exit codes (0 clean, 1 findings at or above --fail-on, 2 usage/unreadable),
# one-line errors, ports, heuristics, options.
set -u
T="$1"; C="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0; passed=0

check() { # check NAME EXPECTED_RC COMMAND...
    name=$1; want=$2; shift 2
    "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL $name: exit $rc, expected $want"; sed 's/^/    /' "$tmp/err" | head -5
        failed=$((failed + 1))
    else
        passed=$((passed + 1))
    fi
}
expect() { # expect NAME CONDITION-COMMAND...
    name=$1; shift
    if "$@"; then passed=$((passed + 1)); else echo "FAIL $name"; failed=$((failed + 1)); fi
}

check help 0 "$T" --help
expect help-usage grep -q '^Usage: pcaptool' "$tmp/out"
check version 0 "$T" --version
expect version-text grep -q '^pcaptool [0-9]' "$tmp/out"
check no-args 2 "$T"
check unknown-command 2 "$T" frobnicate
check decode-no-file 2 "$T" decode
check bad-format 2 "$T" decode --format xml "$C/dnp-denetwork-example.pcap"

check missing-file 2 "$T" decode "$tmp/nope.pcap"
expect missing-file-one-line test "$(wc -l < "$tmp/err")" -eq 1
expect missing-file-says-why grep -q 'nope.pcap: cannot read capture' "$tmp/err"
echo "this is not a capture" > "$tmp/text.pcap"
check not-a-capture 2 "$T" decode "$tmp/text.pcap"
expect not-a-capture-one-line test "$(wc -l < "$tmp/err")" -eq 1

# a capture cut inside its last record: what was readable is decoded, exit 2
size=$(wc -c < "$C/dnp-denetwork-example.pcap")
head -c $((size - 10)) "$C/dnp-denetwork-example.pcap" > "$tmp/cut.pcap"
check cut-capture 2 "$T" decode "$tmp/cut.pcap"
expect cut-capture-decodes-the-rest test "$(grep -c ' DNP ' "$tmp/out")" -eq 52
expect cut-capture-says-where grep -q 'truncated after frame 52: what came before was decoded' "$tmp/err"

check no-dnp-is-silent 0 "$T" decode "$C/other-gen-no-dnp.pcap"
expect no-dnp-prints-nothing test ! -s "$tmp/out"
check clean-real-capture 0 "$T" decode --format json "$C/dnp-denetwork-example.pcap"
expect json-lines test "$(wc -l < "$tmp/out")" -eq 53

check errors-fail 1 "$T" decode "$C/dnp-gen-malformed.pcap"
check errors-fail-never 0 "$T" decode --fail-on never "$C/dnp-gen-malformed.pcap"
check warnings-pass 0 "$T" decode "$C/dnp-gen-sequence.pcap"
check warnings-fail-on-warning 1 "$T" decode --fail-on warning "$C/dnp-gen-sequence.pcap"

# -Y: a display filter (the frames tshark -Y selects: 6 8 18 20 22 24)
check filter-decode 0 "$T" decode -Y 'dnp.command == "Link up"' "$C/dnp-denetwork-example.pcap"
expect filter-decode-frames test "$(cut -d' ' -f1 "$tmp/out" | tr '\n' ' ')" = "6 8 18 20 22 24 "
check filter-bad 2 "$T" decode -Y 'openttd.packet == 3 and openttd.pakcet == 2' "$C/dnp-denetwork-example.pcap"
expect filter-bad-says-where test "$(head -1 "$tmp/err")" = 'pcaptool: -Y: column 25: unknown field "openttd.pakcet"'
expect filter-bad-caret test "$(sed -n 3p "$tmp/err")" = '                            ^~~~~~~~~~~~~~'
expect filter-bad-three-lines test "$(wc -l < "$tmp/err")" -eq 3
expect filter-bad-prints-nothing test ! -s "$tmp/out"
check filter-bad-validate 2 "$T" validate -Y 'dnp.seq ==' "$C/dnp-denetwork-example.pcap"
check filter-bad-stats 2 "$T" stats -Y '(dnp' "$C/dnp-denetwork-example.pcap"
# findings of PDUs the filter leaves out do not fail the run
check filter-findings-left-out 0 "$T" decode -Y 'dnp.command == "Message"' "$C/dnp-gen-malformed.pcap"
check filter-findings-selected 1 "$T" decode -Y 'dnp.truncated' "$C/dnp-gen-malformed.pcap"
expect filter-findings-selected-pdus test "$(grep -c ' DNP ' "$tmp/out")" -eq 69
check filter-validate 1 "$T" validate --format json -Y 'dnp.truncated' "$C/dnp-gen-malformed.pcap"
# every finding reported is on a frame of a truncated PDU (the others of
# those PDUs too), and the 69 truncations are
sed -n 's/.*"record":"finding",.*"frame":\([0-9]*\),.*"code":"\([^"]*\)".*/\1 \2/p' "$tmp/out" > "$tmp/found"
expect filter-validate-truncations test "$(grep -c ' dnp.truncated$' "$tmp/found")" -eq 69
expect filter-validate-only-those test -z "$(cut -d' ' -f1 "$tmp/found" | sort -u | \
    comm -23 - "$(grep ' dnp.truncated$' "$tmp/found" | cut -d' ' -f1 | sort -u > "$tmp/tf"; echo "$tmp/tf")")"
expect filter-validate-others-too test "$(grep -vc ' dnp.truncated$' "$tmp/found")" -gt 0
expect filter-validate-count grep -q '"pdus":69,' "$tmp/out"
check filter-validate-clean 0 "$T" validate -Y 'dnp.command == "Message"' "$C/dnp-gen-malformed.pcap"
check filter-validate-none 1 "$T" validate --require-pdus -Y openttd "$C/dnp-denetwork-example.pcap"
expect filter-validate-none-says grep -q 'no PDU selected by -Y (--require-pdus)' "$tmp/out"
check filter-stats 0 "$T" stats -Y 'gne.ping.reply == true' "$C/gne-exping_ping.pcap"
expect filter-stats-count grep -q '5 PDUs, 130 bytes' "$tmp/out"

# ports and heuristics
check other-port-no-heur 0 "$T" decode --port dnp=9999 --no-heuristics "$C/dnp-denetwork-example.pcap"
expect other-port-no-heur-silent test ! -s "$tmp/out"
check other-port-heur 0 "$T" decode --port dnp=9999 "$C/dnp-denetwork-example.pcap"
expect heuristic-finds-it test "$(grep -c ' DNP ' "$tmp/out")" -eq 53
check port-47100 0 "$T" decode --no-heuristics --port dnp=47100 "$C/dnp-gen-heuristic.pcap"
expect port-47100-7-pdus test "$(grep -c ' DNP ' "$tmp/out")" -eq 7
check bad-port 2 "$T" decode --port dnp=70000 "$C/dnp-denetwork-example.pcap"
check bad-port-proto 2 "$T" decode --port xyz=1 "$C/dnp-denetwork-example.pcap"

# TCP: the heuristic finds OpenTTD on port 23999, --port does too
check tcp-heur 0 "$T" decode "$C/openttd-gen-packets-13.pcap"
expect tcp-heur-all test "$(wc -l < "$tmp/out")" -eq 58
check tcp-no-heur 0 "$T" decode --no-heuristics "$C/openttd-gen-packets-13.pcap"
expect tcp-no-heur-56 test "$(wc -l < "$tmp/out")" -eq 56
check tcp-port 0 "$T" decode --no-heuristics --port openttd=23999 "$C/openttd-gen-packets-13.pcap"
expect tcp-port-2 test "$(wc -l < "$tmp/out")" -eq 2
check openttd-forced 0 "$T" decode --format json --fail-on never --option openttd.version=14 "$C/openttd-13.0-join.pcap"
expect openttd-forced-used grep -q '"frame":4,.*"openttd.version":\[14\]' "$tmp/out"
# conform's OpenTTD cases speak 13.x: the wiki's numbering is refused before
# any case (pcaptool's limit, not the implementation's failure)
check conform-openttd-old 2 "$T" conform --proto openttd --target 127.0.0.1:9 --option openttd.version=0.7
expect conform-openttd-old-says-why grep -q "cases speak 13.x" "$tmp/err"
expect conform-openttd-old-one-line test "$(wc -l < "$tmp/err")" -eq 1
# --side server: nobody comes within --peer-wait: exit 2, one line naming it
check conform-peer-wait-zero 2 "$T" conform --proto dnp --side server --target 127.0.0.1:9 --peer-wait 0
free=$(python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
check conform-nobody-came 2 "$T" conform --proto dnp --side server --target "127.0.0.1:$free" --peer-wait 0.3 \
    --case dnp/connect/request-offers-dnp1
expect conform-nobody-came-within-peer-wait grep -q "within 0.3 s" "$tmp/err"

# GNE has no port: heuristics find it, a port given finds a connection
# whose handshake was not captured, the UDP link follows the handshake
check gne-heur 0 "$T" decode "$C/gne-exhello_unrel.pcap"
expect gne-heur-all test "$(grep -c ' GNE ' "$tmp/out")" -eq 8
expect gne-udp-link grep -q '^14 .*:45501 -> 127.0.0.1:39182 GNE User packet 16' "$tmp/out"
expect gne-stream-cut-is-a-note grep -q 'note tcp.end_inside_pdu' "$tmp/out"
check gne-no-heur 0 "$T" decode --no-heuristics "$C/gne-exhello_unrel.pcap"
expect gne-no-heur-silent test ! -s "$tmp/out"
check gne-midstream-silent 0 "$T" decode "$C/gne-gen-midstream.pcap"
expect gne-midstream-nothing test ! -s "$tmp/out"
check gne-midstream-port 0 "$T" decode --port gne=5105 "$C/gne-gen-midstream.pcap"
expect gne-midstream-3-pdus-the-byte-order-and-custom-length-notes test "$(wc -l < "$tmp/out")" -eq 5
check gne-malformed-fails 1 "$T" decode --port gne=5104 "$C/gne-gen-malformed.pcap"
# ... and without the port, no heuristic claims its first connection, whose
# connection request is malformed (frames 4 and 6); the later ones, whose
# requests are well formed, are claimed
check gne-malformed-heuristic 1 "$T" decode "$C/gne-gen-malformed.pcap"
expect gne-malformed-first-unclaimed test "$(grep -c '^[46] ' "$tmp/out")" -eq 0
expect gne-malformed-later-claimed grep -q '^14 .* GNE Connection request' "$tmp/out"
check gne-order-forced 1 "$T" decode --format json --option gne.byte_order=big "$C/gne-exhello_unrel.pcap"
expect gne-order-forced-used grep -q '"frame":10,.*"gne.byte_order":\[2\],.*"gne.udp_port":\[244908032\]' "$tmp/out"

# decoder options
check option-spec 0 "$T" decode --format json --fail-on never --option dnp.update_layout=spec "$C/dnp-gen-commands.pcap"
expect option-spec-used grep -q '"frame":9,.*"dnp.update_layout":\[2\]' "$tmp/out"
check bad-option 2 "$T" decode --option dnp.update_layout=sideways "$C/dnp-gen-commands.pcap"

# verbose text shows the fields
check verbose 0 "$T" decode -V "$C/dnp-denetwork-example.pcap"
expect verbose-fields grep -q 'String: Sat Nov 21 06:14:44 2026$' "$tmp/out"

# field and finding lists
check fields 0 "$T" fields dnp
for f in dnp.command dnp.seq dnp.link_id dnp.value_count dnp.value.type dnp.message; do
    expect "field-$f" grep -q "^$f	" "$tmp/out"
done
check fields-openttd 0 "$T" fields openttd
for f in openttd.size openttd.type openttd.frame openttd.client_id; do
    expect "field-$f" grep -q "^$f	" "$tmp/out"
done
check fields-gne 0 "$T" fields gne
for f in gne.nl.length gne.game_name gne.user_version gne.build gne.rate gne.udp_port gne.packet.id gne.ping.req_id; do
    expect "field-$f" grep -q "^$f	" "$tmp/out"
done
check fields-eoudp 0 "$T" fields eoudp
for f in eoudp.command eoudp.timestamp eoudp.id eoudp.size eoudp.important eoudp.entity eoudp.component eoudp.ack_id; do
    expect "field-$f" grep -q "^$f	" "$tmp/out"
done
expect two-pass-marked grep -q '^eoudp.ack.acked_in	.*	wireshark-two-pass$' "$tmp/out"
# no two fields of a protocol share a display name (a tree and a filter
# dialog could not tell them apart)
check fields-all 0 "$T" fields
expect display-names-unique test -z "$(awk -F'\t' '{split($1, a, "."); print a[1] "\t" $2}' "$tmp/out" | sort | uniq -d)"

# EOUDP: an important packet never acknowledged is reported when its
# conversation ends, as a record of its own about that frame
check eoudp-end 0 "$T" decode --format json "$C/eoudp-gen-lost-acks.pcap"
expect eoudp-end-record grep -q '^{"file":"[^"]*","frame":6,.*"code":"eoudp.ack.missing".*"end_of_conversation":true}$' "$tmp/out"
expect eoudp-end-last test "$(tail -n 1 "$tmp/out" | grep -c end_of_conversation)" -eq 1
check eoudp-end-fails-on-warning 1 "$T" decode --fail-on warning "$C/eoudp-gen-lost-acks.pcap"
expect eoudp-end-text grep -q '^6 .* EOUDP End of conversation$' "$tmp/out"
# the text's numbering: 0x10 is a deleted component
check eoudp-numbering 0 "$T" decode --option eoudp.numbering=text "$C/eoudp-gen-text-numbering.pcap"
expect eoudp-numbering-text grep -q 'Deleted component (text) #2 (important) entity 0x9 Sprite' "$tmp/out"
check eoudp-numbering-default 0 "$T" decode "$C/eoudp-gen-text-numbering.pcap"
expect eoudp-numbering-impl grep -q 'Important event #2' "$tmp/out"
# a forced generation that does not fit says so
check eoudp-forced 1 "$T" decode --option eoudp.generation=21 "$C/eoudp-gen3-r-type-head-session.pcap"
expect eoudp-forced-mismatch grep -q 'error eoudp.size.mismatch' "$tmp/out"
# found by the heuristic on port 40000, not without it
check eoudp-heuristic 0 "$T" decode "$C/eoudp-gen-generations.pcap"
expect eoudp-heuristic-found grep -q '10.0.0.2:40000 -> 10.0.0.6:40001 EOUDP Reject connection' "$tmp/out"
check eoudp-no-heuristic 0 "$T" decode --no-heuristics "$C/eoudp-gen-generations.pcap"
expect eoudp-no-heuristic-skipped test "$(grep -c ':4000[01] ' "$tmp/out")" -eq 0

check opendrakan-clean 0 "$T" decode --fail-on warning "$C/opendrakan-gen-packets.pcap"
expect opendrakan-divergence-once test "$(grep -c 'note opendrakan.divergence.bools_bytes' "$tmp/out")" -eq 1
expect opendrakan-shared-segment test "$(grep -c '^4 .* OpenDrakan GLOBAL_DB_TABLE_ENTRY' "$tmp/out")" -eq 3
expect opendrakan-split-header grep -q '^7 .* OpenDrakan LOAD_LEVEL Dragon/Level3.lvl$' "$tmp/out"
check opendrakan-snapshots 0 "$T" decode --format json "$C/opendrakan-gen-snapshots.pcap"
expect opendrakan-incomplete-end grep -q '^{"file":"[^"]*","frame":27,.*"code":"opendrakan.snapshot.incomplete".*"end_of_conversation":true}$' "$tmp/out"
expect opendrakan-unconfirmed-end grep -q '^{"file":"[^"]*","frame":29,.*"code":"opendrakan.snapshot.unconfirmed"' "$tmp/out"
expect opendrakan-complete-late grep -q '^{"file":"[^"]*","frame":22,.*"opendrakan.snapshot.confirm_frame":\[19\],"opendrakan.snapshot.changes_seen":\[2\],"opendrakan.snapshot.complete":\[true\]' "$tmp/out"
check opendrakan-snapshots-warn 1 "$T" decode --fail-on warning "$C/opendrakan-gen-snapshots.pcap"
check opendrakan-malformed 1 "$T" decode "$C/opendrakan-gen-malformed.pcap"
expect opendrakan-malformed-goes-on grep -q '^22 .* CONFIRM_SNAPSHOT tick 2, 1 change, full (complete)$' "$tmp/out"
check opendrakan-draft 0 "$T" decode --option opendrakan.variant=draft "$C/opendrakan-gen-draft.pcap"
expect opendrakan-draft-sound grep -q 'SOUND (draft) asset 12/Sounds/sfx.db$' "$tmp/out"
check opendrakan-reference-reads-draft 1 "$T" decode --fail-on warning "$C/opendrakan-gen-draft.pcap"
expect opendrakan-reference-draft-packets grep -q 'SOUND (draft) asset 12/Sounds/sfx.db$' "$tmp/out"
expect opendrakan-reference-top-bit grep -q 'warning opendrakan.tick.top_bit' "$tmp/out"
check opendrakan-bools-forced 1 "$T" decode --fail-on warning --option opendrakan.bools=packed "$C/opendrakan-reference-master.pcap"
expect opendrakan-bools-forced-trailing grep -q 'warning opendrakan.trailing' "$tmp/out"
check opendrakan-bad-option 2 "$T" decode --option opendrakan.variant=nope "$C/opendrakan-gen-draft.pcap"

check validate-help 0 "$T" validate --help
expect validate-help-usage grep -q '^Usage: pcaptool validate' "$tmp/out"
check validate-rules 0 "$T" validate --rules
expect validate-rules-cited grep -q '^opendrakan.snapshot.incomplete	note	.*	OpenDrakan draft, Snapshot transmission' "$tmp/out"
check validate-pass 0 "$T" validate "$C/opendrakan-gen-packets.pcap"
expect validate-pass-line grep -q '^PASS .*opendrakan-gen-packets.pcap (50 PDUs; 0 errors, 0 warnings, 1 note)$' "$tmp/out"
check validate-fail 1 "$T" validate "$C/opendrakan-gen-malformed.pcap"
expect validate-fail-line grep -q '^FAIL ' "$tmp/out"
check validate-warning 1 "$T" validate --fail-on warning "$C/rules/eoudp.ack.missing.pcap"
check validate-disabled 0 "$T" validate --fail-on warning --disable 'eoudp.ack.*' "$C/rules/eoudp.ack.missing.pcap"
check validate-bad-rule 2 "$T" validate --disable nosuch.rule "$C/rules/eoudp.ack.missing.pcap"
check validate-profile-spec 1 "$T" validate --profile spec --fail-on warning "$C/rules/opendrakan.bundle.bools_unpacked.pcap"
check validate-bad-profile 2 "$T" validate --profile nope "$C/rules"
check validate-bad-jobs 2 "$T" validate -j 0 "$C/rules"
check validate-folder 0 "$T" validate -j 2 --fail-on never "$C/rules"
n_rules=$(find "$C/rules" -name '*.pcap' | wc -l)
expect validate-folder-count grep -q "^$n_rules captures: $n_rules passed, 0 failed\$" "$tmp/out"
check validate-json 1 "$T" validate --format json --fail-on warning "$C/rules/eoudp.ack.missing.pcap"
expect validate-json-finding grep -q '^{"record":"finding",.*"code":"eoudp.ack.missing","severity":"warning","behaviour":true' "$tmp/out"
expect validate-json-capture grep -q '^{"record":"capture",.*"verdict":"fail"}$' "$tmp/out"
check validate-unreadable 2 "$T" validate "$C/no-such.pcap"
check validate-empty-folder 2 "$T" validate "$tmp/empty-folder-that-does-not-exist/"
check validate-bad-shard 2 "$T" validate --shard 4/3 "$C/rules"
expect validate-bad-shard-one-line test "$(wc -l < "$tmp/err")" -eq 1
check validate-shard-zero 2 "$T" validate --shard 0/3 "$C/rules"
check validate-shard-not-live 2 "$T" validate --shard 1/2 -i lo
check validate-no-list 2 "$T" validate --files-from "$tmp/no-such.list"
expect validate-no-list-says-why grep -q 'no-such.list: cannot read the list: No such file or directory' "$tmp/err"
check validate-list-and-stdin 2 "$T" validate --files-from - -
check validate-empty-share 0 "$T" validate --shard 999/999 "$C/rules"
expect validate-empty-share-count grep -q '^0 captures: 0 passed, 0 failed$' "$tmp/out"
check merge-help 0 "$T" merge --help
check merge-nothing 2 "$T" merge
check merge-missing 2 "$T" merge "$tmp/no-such.jsonl"
expect merge-missing-one-line test "$(wc -l < "$tmp/err")" -eq 1
"$T" validate --format json --fail-on never "$C/rules" > "$tmp/rules.jsonl"
check merge-json 0 "$T" merge "$tmp/rules.jsonl"
expect merge-json-same cmp -s "$tmp/out" "$tmp/rules.jsonl"
if [ -w /dev/full ]; then
    "$T" merge "$tmp/rules.jsonl" > /dev/full 2> "$tmp/err"
    rc=$?
    expect merge-full-disk test "$rc" -eq 2
    expect merge-full-disk-says-why grep -q 'cannot write to standard output: No space left on device' "$tmp/err"
    expect merge-full-disk-one-line test "$(wc -l < "$tmp/err")" -eq 1
fi

check findings 0 "$T" findings
expect findings-listed grep -q '^dnp.truncated	error	' "$tmp/out"
check fields-bad 2 "$T" fields nosuch

# replay: usage errors, the plan, an unreachable target
check replay-help 0 "$T" replay --help
expect replay-help-usage grep -q '^Usage: pcaptool replay' "$tmp/out"
check replay-no-target 2 "$T" replay "$C/dnp-denetwork-example.pcap"
check replay-bad-target 2 "$T" replay --target nocolon "$C/dnp-denetwork-example.pcap"
check replay-bad-side 2 "$T" replay --side both --dry-run "$C/dnp-denetwork-example.pcap"
check replay-no-such-conversation 2 "$T" replay --dry-run --conversation 3 "$C/dnp-denetwork-example.pcap"
expect replay-no-such-conversation-says grep -q 'no conversation 3 (it has 2)' "$tmp/err"
check replay-dry-run 0 "$T" replay --dry-run "$C/dnp-denetwork-example.pcap"
# as the client: the connection request is sent, the ack and the two link
# states awaited, our acks and link ups sent
expect replay-dry-run-plan grep -q '^  0.000000  send        Connection request (DNP1) (recorded frame 1, 5 bytes)$' "$tmp/out"
expect replay-dry-run-await grep -q 'await       Link state #1 link 1, 1 value (recorded frame 4' "$tmp/out"
expect replay-dry-run-optional grep -q 'may receive Link update' "$tmp/out"
check replay-dry-run-server 0 "$T" replay --dry-run --side server --format json "$C/dnp-denetwork-example.pcap"
expect replay-dry-run-json grep -q '^{"record":"plan","step":"await","recorded_frame":1,"offset":0.000000,"length":5,"link":false,"summary":"Connection request (DNP1)"}$' "$tmp/out"
# nothing listens on TCP port 1 of loopback: the target cannot be reached
check replay-refused 2 "$T" replay --target 127.0.0.1:1 --no-wait "$C/openttd-13.0-join.pcap"
expect replay-refused-says grep -q 'cannot connect to 127.0.0.1:1: Connection refused' "$tmp/err"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
