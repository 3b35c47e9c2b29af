# captures.sh - sourced by the benchmark scripts: which real captures each
# benchmark capture replays (bench/gen_bench.c mixed), and how it is made.
#   bench_protocols           the protocols, in the order the scripts report them
#   bench_templates NAME      the template captures of a protocol, or of
#                             "mixed" (all of them)
#   bench_capture NAME OUT PACKETS
#                             a capture of PACKETS packets replaying NAME's
#                             templates, 1000 clients at once
# Needs $root (the checkout) and $build (its build folder).
bench_protocols=(dnp openttd gne eoudp opendrakan)

bench_templates() {
    local C=$root/captures
    case $1 in
    dnp) echo "$C/dnp-denetwork-example.pcap" ;;
    openttd) echo "$C/openttd-13.0-join.pcap" "$C/openttd-13.0-password-chat-kick.pcapng" ;;
    gne) echo "$C/gne-exping_ping.pcap" "$C/gne-expong_game.pcap" "$C/gne-exhello_unrel.pcap" ;;
    eoudp) echo "$C/eoudp-gen3-r-type-head-session.pcap" ;;
    opendrakan) echo "$C/opendrakan-reference-master.pcap" ;;
    mixed) local p
        for p in "${bench_protocols[@]}"; do bench_templates "$p"; done | paste -sd' ' - ;;
    *) echo "bench: no templates for $1" >&2; return 2 ;;
    esac
}

bench_capture() {
    local name=$1 out=$2 packets=$3 t
    t=$(bench_templates "$name")
    # shellcheck disable=SC2086 # the paths hold no spaces (captures/)
    "$build/bench/gen_bench" mixed "$out" "$packets" 1000 $t 2> /dev/null
}
