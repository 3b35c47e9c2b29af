#!/bin/sh
# package.sh BUILD_DIR CAPTURES - the Debian package as a user gets it:
# cpack -G DEB gives one gamewire .deb whose dependencies tie it to the
# Wireshark release it was built for; dpkg -i installs it; tshark run as an
# unprivileged user, with no WIRESHARK_PLUGIN_DIR, then lists the five
# protocols (the plugin is in Debian's own plugin folder); /usr/bin/pcaptool
# decodes a capture; man finds pcaptool(1); dpkg -r removes it all.
# Needs root (dpkg); exits 77 (skipped) otherwise, or when a gamewire
# package is installed already (it is not replaced).
set -u
build=$1 caps=$2
[ "$(id -u)" -eq 0 ] || { echo "SKIP: dpkg -i needs root"; exit 77; }
dpkg -s gamewire > /dev/null 2>&1 && { echo "SKIP: a gamewire package is installed already"; exit 77; }
work=$(mktemp -d)
chmod 755 "$work"
trap 'dpkg -r gamewire > /dev/null 2>&1; rm -rf "$work"' EXIT
fail=0
ok() { echo "ok $*"; }
bad() { echo "FAIL $*"; fail=1; }

(cd "$build" && cpack -G DEB -B "$work" > "$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; echo "FAIL cpack"; exit 1; }
deb=$(ls "$work"/gamewire_*.deb 2>/dev/null)
[ -n "$deb" ] || { echo "FAIL: no .deb in $work"; exit 1; }
deps=$(dpkg-deb -f "$deb" Depends)
lacks=""
for d in "wireshark-common (>= 4.0)" "wireshark-common (<< 4.1~)" libwireshark libpcap libglib2.0; do
    case $deps in *"$d"*) ;; *) lacks="$lacks '$d'" ;; esac
done
[ -z "$lacks" ] && ok "Depends: $deps" || bad "Depends lacks$lacks: $deps"

dpkg -i "$deb" > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; echo "FAIL dpkg -i"; exit 1; }
for f in /usr/bin/pcaptool /usr/lib/*/wireshark/plugins/4.0/epan/gamewire.so /usr/share/man/man1/pcaptool.1 \
         /usr/share/bash-completion/completions/pcaptool; do
    [ -f "$f" ] || bad "not installed: $f"
done

# tshark as nobody, no plugin folder of ours: Debian's plugin folder only
cp "$caps/dnp-denetwork-example.pcap" "$work/"
chmod 644 "$work/dnp-denetwork-example.pcap"
protos=$(setpriv --reuid=65534 --regid=65534 --clear-groups env -u WIRESHARK_PLUGIN_DIR HOME=/tmp \
         tshark -G protocols 2>"$work/tshark.err" | cut -f3)
missing=""
for p in dnp openttd gne eoudp opendrakan; do
    echo "$protos" | grep -qx "$p" || missing="$missing $p"
done
[ -z "$missing" ] && ok "tshark (as nobody) lists the five protocols" || { bad "tshark lacks:$missing"; cat "$work/tshark.err"; }
n=$(setpriv --reuid=65534 --regid=65534 --clear-groups env -u WIRESHARK_PLUGIN_DIR HOME=/tmp \
    tshark -r "$work/dnp-denetwork-example.pcap" -Y dnp 2>/dev/null | wc -l)
[ "$n" -eq 53 ] && ok "tshark decodes the 53 DNP datagrams" || bad "tshark shows $n DNP frames, expected 53"

m=$(/usr/bin/pcaptool decode "$work/dnp-denetwork-example.pcap" | grep -c " DNP ")
[ "$m" -eq 53 ] && ok "/usr/bin/pcaptool decodes the 53 DNP datagrams" || bad "/usr/bin/pcaptool: $m DNP PDUs, expected 53"
man -w pcaptool > /dev/null 2>&1 && ok "man finds pcaptool(1)" || bad "man -w pcaptool"

dpkg -r gamewire > "$work/remove.log" 2>&1 || { cat "$work/remove.log"; bad "dpkg -r"; }
left=$(ls /usr/bin/pcaptool /usr/lib/*/wireshark/plugins/4.0/epan/gamewire.so 2>/dev/null)
[ -z "$left" ] && ok "dpkg -r removes it" || bad "left after dpkg -r: $left"
exit $fail
