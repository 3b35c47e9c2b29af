#!/usr/bin/env bash
# mutations.sh BUILD_DIR CAPTURES_DIR [SEEDS] [RATES] - every capture damaged
# by editcap -E (each error rate, each seed), then read by tshark with the
# plugin (WIRESHARK_ABORT_ON_DISSECTOR_BUG=1, both passes, full detail,
# every statistics tree) and by pcaptool (decode, validate under both
# profiles, stats). Fails on a crash, a dissector bug or assertion, or a
# pcaptool exit code other than 0, 1 or 2. The mutated captures are
# concatenated into one pcapng per rate so that tshark starts only a few
# times. The captures in CAPTURES_DIR/fuzz (inputs that once broke the
# plugin or pcaptool) are read as they are too. Defaults: seeds "1 2",
# rates "0.02 0.1" (the CI smoke).
set -uo pipefail
build=$(cd "$1" && pwd)
caps=$(cd "$2" && pwd)
seeds=${3:-1 2}
rates=${4:-0.02 0.1}
here=$(cd "$(dirname "$0")" && pwd)
pcaptool=$build/pcaptool/pcaptool
tmp=$(mktemp -d /tmp/gw-mutations.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

protos=$(bash "$here/../scripts/tshark-plugin.sh" "$build" -G protocols 2>&1 | cut -f3)
for p in dnp openttd gne eoudp opendrakan; do
    grep -qx "$p" <<< "$protos" || { echo "FAIL: the plugin did not load ($p missing from tshark -G protocols)"; exit 1; }
done

n=0
for rate in $rates; do
    mkdir -p "$tmp/$rate"
    for seed in $seeds; do
        for c in "$caps"/*.pcap "$caps"/*.pcapng "$caps"/rules/*.pcap; do
            out="$tmp/$rate/$seed-$(basename "$c")"
            editcap -E "$rate" --seed "$seed" "$c" "$out" > /dev/null 2>&1 || fail "editcap on $c"
            n=$((n + 1))
        done
    done
    cp "$caps"/fuzz/* "$tmp/$rate/"
    # pcaptool, one capture at a time so that a crash names its input
    for m in "$tmp/$rate"/*; do
        for cmd in "decode -V --format json" "decode" "validate" "validate --profile spec" "stats"; do
            $pcaptool $cmd "$m" > /dev/null 2>&1
            rc=$?
            [ $rc -le 2 ] || fail "pcaptool $cmd $(basename "$m"): exit $rc (rate $rate)"
        done
    done
    mergecap -a -F pcapng -w "$tmp/all-$rate.pcapng" "$tmp/$rate"/* || fail "mergecap $rate"
    for prefs in "" "-o dnp.profile:spec -o eoudp.profile:spec -o opendrakan.profile:spec"; do
        # to a file: grep reads it in a blink, where bash would hold tens of
        # MB of -V output in a variable and scan it for seconds
        out=$tmp/tshark.txt
        WIRESHARK_ABORT_ON_DISSECTOR_BUG=1 bash "$here/../scripts/tshark-plugin.sh" "$build" \
            $prefs -2 -V -r "$tmp/all-$rate.pcapng" -z dnp,tree -z openttd,tree -z gne,tree \
            -z eoudp,tree -z opendrakan,tree > "$out" 2>&1
        rc=$?
        [ $rc -eq 0 ] || fail "tshark exit $rc on rate $rate ($prefs): $(tail -3 "$out")"
        if grep -i -E -m3 "Dissector bug|DISSECTOR_ASSERT|assertion|Malformed Packet: (dnp|openttd|gne|eoudp|opendrakan)" "$out"; then
            fail "dissector bug on rate $rate ($prefs)"
        fi
        lines=$(grep -c "^Frame " "$out")
        echo "rate $rate$([ -n "$prefs" ] && echo ' spec'): tshark read $lines frames"
    done
done
echo "$n mutated captures; $fails failures"
[ $fails -eq 0 ]
