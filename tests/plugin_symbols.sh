#!/bin/sh
# plugin_symbols.sh PLUGIN PCAPTOOL - the Wireshark plugin links the decoders
# only: none of the active side's symbols (replay hooks, conform cases and
# machinery: every one has "replay" or "conform" in its name) is in it, while
# the decoders' are; pcaptool has both (the pattern finds what it looks for).
set -u
plugin=$1 pcaptool=$2
fail=0
check() { if eval "$2"; then echo "ok $1"; else echo "FAIL $1"; fail=1; fi; }
active='replay\|conform'
check "the plugin has the decoders (gw_dnp_protocol)" "nm '$plugin' | grep -q ' gw_dnp_protocol\$'"
check "the plugin has no replay or conform symbol" \
    "! nm '$plugin' | grep -i '$active' > /dev/null || { nm '$plugin' | grep -i '$active' | head -5; false; }"
check "pcaptool has the active side (gw_dnp_conform, gw_dnp_replay)" \
    "nm '$pcaptool' | grep -q ' gw_dnp_conform\$' && nm '$pcaptool' | grep -q ' gw_dnp_replay\$'"
exit $fail
