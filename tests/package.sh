#!/bin/sh
# package.sh BUILD_DIR CAPTURES - the Debian package as a user gets it:
# cpack -G DEB gives one gamewire .deb for the Wireshark release the plugin
# is built for, named after it (gamewire_<ver>+wireshark<release>_<arch>.deb)
# and tied to it by its dependencies; lintian finds no error and no warning
# in it; dpkg -i installs it; tshark run as an unprivileged user, with no
# WIRESHARK_PLUGIN_DIR, then lists the five protocols (the plugin is in
# Debian's own plugin folder); /usr/bin/pcaptool decodes and validates the
# example captures pcaptool(1) names; man finds pcaptool(1); dpkg -r
# removes it all.
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
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env -u WIRESHARK_PLUGIN_DIR HOME=/tmp "$@"; }

(cd "$build" && cpack -G DEB -B "$work" > "$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; echo "FAIL cpack"; exit 1; }
deb=$(ls "$work"/gamewire_*.deb 2>/dev/null)
[ -n "$deb" ] || { echo "FAIL: no .deb in $work"; exit 1; }
chmod 644 "$deb"

# the Wireshark release, in the version and the file name
version=$(dpkg-deb -f "$deb" Version)
ws=${version#*+wireshark}
case $version in
    *+wireshark[0-9]*.[0-9]*) ;;
    *) bad "Version $version does not name the Wireshark release"; ws=none ;;
esac
arch=$(dpkg-deb -f "$deb" Architecture)
[ "$(basename "$deb")" = "gamewire_${version}_$arch.deb" ] && ok "file name $(basename "$deb")" ||
    bad "file name $(basename "$deb"), expected gamewire_${version}_$arch.deb"
next=$(echo "$ws" | awk -F. '{ print $1 "." $2 + 1 "~" }')
deps=$(dpkg-deb -f "$deb" Depends)
has_dep() { # GLOB: one of the Depends entries matches it
    echo "$deps" | tr ',' '\n' | sed 's/^ *//' | while IFS= read -r d; do
        case $d in $1) echo y; break ;; esac
    done | grep -q y
}
lacks=""
for d in "libwireshark[0-9]* (>= $ws)" "libwireshark[0-9]* (<< $next)" "libpcap*" "libglib2.0*"; do
    has_dep "$d" || lacks="$lacks '$d'"
done
[ -z "$lacks" ] && ok "Depends: $deps" || bad "Depends lacks$lacks: $deps"

# lintian: no error and no warning (information tags are shown, not failed on)
if command -v lintian > /dev/null; then
    as_nobody lintian --fail-on error,warning --pedantic -I "$deb" > "$work/lintian.log" 2>&1
    rc=$?
    tags=$(grep -c '^[EW]: ' "$work/lintian.log")
    [ "$rc" -eq 0 ] && [ "$tags" -eq 0 ] && ok "lintian: no error or warning ($(grep -c '^[IPX]: ' "$work/lintian.log") other tags)" ||
        { bad "lintian (exit $rc, $tags errors and warnings):"; cat "$work/lintian.log"; }
else
    bad "lintian is not installed (apt-get install lintian; scripts/setup.sh installs it)"
fi

dpkg -i "$deb" > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; echo "FAIL dpkg -i"; exit 1; }
ex=/usr/share/gamewire/examples
for f in /usr/bin/pcaptool /usr/lib/*/wireshark/plugins/"$ws"/epan/gamewire.so /usr/share/man/man1/pcaptool.1.gz \
         /usr/share/bash-completion/completions/pcaptool /usr/share/doc/gamewire/copyright \
         /usr/share/doc/gamewire/changelog.gz; do
    [ -f "$f" ] || bad "not installed: $f"
done

# tshark as nobody, no plugin folder of ours: Debian's plugin folder only
protos=$(as_nobody tshark -G protocols 2>"$work/tshark.err" | cut -f3)
missing=""
for p in dnp openttd gne eoudp opendrakan; do
    echo "$protos" | grep -qx "$p" || missing="$missing $p"
done
[ -z "$missing" ] && ok "tshark (as nobody) lists the five protocols" || { bad "tshark lacks:$missing"; cat "$work/tshark.err"; }
n=$(as_nobody tshark -r "$ex/dnp-denetwork-example.pcap" -Y dnp 2>/dev/null | wc -l)
[ "$n" -eq 53 ] && ok "tshark decodes the 53 DNP datagrams of the installed example" || bad "tshark shows $n DNP frames, expected 53"

# the man page's examples name captures the package installed, and they work
named=$(zcat /usr/share/man/man1/pcaptool.1.gz | sed 's/\\-/-/g' | grep -o "$ex/[a-z0-9._-]*\.pcap" | sort -u)
[ -n "$named" ] && ok "pcaptool(1) names $(echo $named | wc -w) example captures" || bad "pcaptool(1) names no example capture"
for f in $named; do
    [ -f "$f" ] && cmp -s "$f" "$caps/$(basename "$f")" || bad "pcaptool(1) names $f: not installed (or not captures/'s)"
done
m=$(as_nobody /usr/bin/pcaptool decode "$ex/dnp-denetwork-example.pcap" | grep -c " DNP ")
[ "$m" -eq 53 ] && ok "/usr/bin/pcaptool decodes the 53 DNP datagrams" || bad "/usr/bin/pcaptool: $m DNP PDUs, expected 53"
for f in "$ex/dnp-denetwork-example.pcap" "$ex/"; do
    out=$(cd /tmp && as_nobody /usr/bin/pcaptool validate "$f" 2>&1) && ok "pcaptool validate $f: $(echo "$out" | tail -1)" ||
        bad "pcaptool validate $f: $out"
done
man -w pcaptool > /dev/null 2>&1 && ok "man finds pcaptool(1)" || bad "man -w pcaptool"
/usr/bin/pcaptool --help | tail -1 | grep -q "man pcaptool" && ok "--help points at man pcaptool" || bad "--help does not name man pcaptool"

dpkg -r gamewire > "$work/remove.log" 2>&1 || { cat "$work/remove.log"; bad "dpkg -r"; }
left=$(ls -d /usr/bin/pcaptool /usr/lib/*/wireshark/plugins/*/epan/gamewire.so /usr/share/doc/gamewire \
       /usr/share/gamewire /usr/share/man/man1/pcaptool.1.gz /usr/share/bash-completion/completions/pcaptool 2>/dev/null)
[ -z "$left" ] && ok "dpkg -r removes it" || bad "left after dpkg -r: $left"
exit $fail
