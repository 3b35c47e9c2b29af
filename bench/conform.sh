#!/usr/bin/env bash
# conform.sh [TIMEOUT] - how long pcaptool conform takes over each protocol's
# whole catalogue, per role, against this project's well-behaved test peers
# (tests/peers: DNP, GNE, EOUDP, OpenDrakan; OpenTTD's is the real game, in
# tests/openttd/conform_openttd.sh), with --timeout TIMEOUT (default 2, conform's
# own). Target (issue 36): at most 3 s per role. A case ends on the
# implementation's answer, or on the answer to a probe after what must go
# unanswered; what is left is the cases that wait for something a peer may
# or may not do on its own (DNP's reliable/resent: its own reliable command)
# and, as client, starting a peer process per case. Prints each run's time,
# its verdict counts and the cases over 0.15 s. Not a test: times depend on
# the machine and what else it does.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
pcaptool=$build/pcaptool/pcaptool
timeout=${1:-2}
[ -x "$pcaptool" ] && [ -x "$build/tests/dnp_peer" ] || { echo "conform: build first (bash scripts/setup.sh)"; exit 2; }
work=$(mktemp -d /tmp/gw-conform.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill -- -"$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
port=$((35000 + $$ % 5000))

# summary FILE NAME SECONDS: one line, then the slow cases
summary() {
    python3 - "$1" "$2" "$3" <<'EOF'
import collections, json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
cases = [r for r in recs if "case" in r]
counts = collections.Counter(r["verdict"] for r in cases)
print("%-22s %6.2f s  %2d cases  %s" % (sys.argv[2], float(sys.argv[3]), len(cases),
                                        ", ".join("%d %s" % (n, v) for v, n in sorted(counts.items()))))
for r in cases:
    if r["seconds"] > 0.15:
        print("    %-44s %5.2f s  %s" % (r["case"], r["seconds"], r["verdict"]))
EOF
}

# run PROTO PEER ROLE: the catalogue against the test peer PEER (tests/PROTO/) in mode good
run() {
    local proto=$1 peer=$build/tests/$2 role=$3 side=() t0 t1
    port=$((port + 2))
    if [ "$role" = server ]; then
        setsid "$peer" --listen 127.0.0.1 "$port" good 0 2> "$work/peer.err" &
        pids+=($!)
        until grep -q listening "$work/peer.err"; do sleep 0.01; done
    else
        side=(--side server)
        setsid sh -c 'while :; do "$0" 127.0.0.1 "$1" good 800; done' "$peer" "$port" 2> /dev/null &
        pids+=($!)
    fi
    t0=$(date +%s%N)
    "$pcaptool" conform --proto "$proto" --target "127.0.0.1:$port" --timeout "$timeout" --format json \
        "${side[@]}" > "$work/out.jsonl" 2> /dev/null || true
    t1=$(date +%s%N)
    kill -- -"${pids[-1]}" 2> /dev/null || true
    summary "$work/out.jsonl" "$proto as $role" "$(awk -v n=$((t1 - t0)) 'BEGIN { print n / 1e9 }')"
}

echo "pcaptool conform, --timeout $timeout, against the test peers in mode good"
for p in "dnp dnp_peer" "gne gne_peer" "eoudp eoudp_peer" "opendrakan od_peer"; do
    set -- $p
    run "$1" "$2" server
    run "$1" "$2" client
done
