#!/bin/sh
# install.sh BUILD_DIR - what `cmake --install` writes, the way a user
# installs:
# - with --prefix P: exactly bin/pcaptool, the plugin in
#   lib/<multiarch>/wireshark/plugins/<ver>/epan/, the man page (gzip -9n),
#   the bash completion, share/doc/gamewire/ (copyright, changelog.gz) and
#   the example captures in share/gamewire/examples/, all under P
#   (install_manifest.txt names nothing elsewhere);
# - with DESTDIR=D: the same under D and the default prefix;
# - the installed pcaptool runs;
# - pcaptool(1) renders without a warning and names every subcommand and
#   every option their --help gives;
# - the bash completion completes subcommands, options, protocols, option
#   names and values, formats and profiles (from the installed pcaptool).
set -u
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok $*"; }
bad() { echo "FAIL $*"; fail=1; }

cmake --install "$build" --prefix "$work/p" > "$work/install.log" 2>&1 || { cat "$work/install.log"; bad "install --prefix"; }
got=$(cd "$work/p" && find . -type f | sort | tr '\n' ' ')
ma=$(cd "$work/p" && ls -d lib/*/wireshark 2>/dev/null | cut -d/ -f2)
ws=$(ls "$build/plugins") # the Wireshark release of the plugin (build/plugins/<release>/epan/)
examples=""
for c in dnp-denetwork-example.pcap eoudp-gen-generations.pcap gne-exping_ping.pcap opendrakan-reference-master.pcap \
         openttd-13.0-join.pcap; do
    examples="$examples./share/gamewire/examples/$c "
done
want="./bin/pcaptool ./lib/$ma/wireshark/plugins/$ws/epan/gamewire.so ./share/bash-completion/completions/pcaptool \
./share/doc/gamewire/changelog.gz ./share/doc/gamewire/copyright ${examples}./share/man/man1/pcaptool.1.gz "
[ -n "$ma" ] && [ "$got" = "$want" ] && ok "--prefix: $got" || bad "--prefix: '$got', expected '$want'"
outside=$(grep -v "^$work/p/" "$build/install_manifest.txt")
[ -z "$outside" ] && ok "--prefix: nothing installed outside it" || bad "--prefix: installed outside it: $outside"

DESTDIR="$work/d" cmake --install "$build" > "$work/destdir.log" 2>&1 || { cat "$work/destdir.log"; bad "DESTDIR install"; }
n=$(cd "$work/d" && find . -type f | wc -l)
outside=""
for f in $(cat "$build/install_manifest.txt"); do # each under D, none at its real path
    [ -f "$work/d$f" ] && [ ! -e "$f" ] || outside="$outside $f"
done
[ "$n" -eq 11 ] && [ -z "$outside" ] && ok "DESTDIR: 11 files, all under it" || bad "DESTDIR: $n files, not only under it:$outside"

p=$work/p/bin/pcaptool
"$p" --version > /dev/null && ok "installed pcaptool runs: $("$p" --version)" || bad "installed pcaptool does not run"

# the man page
gz=$work/p/share/man/man1/pcaptool.1.gz
gzip -t "$gz" && [ "$(od -An -tu1 -j8 -N1 "$gz" | tr -d ' ')" = 2 ] && [ "$(od -An -tu4 -j4 -N4 "$gz" | tr -d ' ')" = 0 ] &&
    ok "pcaptool(1) is gzip -9n (best compression, no timestamp)" || bad "pcaptool.1.gz is not gzip -9n"
man=$work/pcaptool.1
zcat "$gz" > "$man"
warn=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$man" 2>&1)
[ -z "$warn" ] && ok "pcaptool(1) renders without warnings" || bad "pcaptool(1): $warn"
text=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$man")
missing=""
for cmd in $("$p" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p'); do
    echo "$text" | grep -q "^\.B pcaptool $cmd\|^\.B $cmd$\|^\.B pcaptool $cmd " || missing="$missing $cmd"
    for o in $("$p" "$cmd" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        echo "$text" | grep -q -- "$o\b" || missing="$missing $cmd:$o"
    done
done
[ -z "$missing" ] && ok "pcaptool(1) names every subcommand and option" || bad "pcaptool(1) lacks:$missing"

# the completion, as bash runs it with bash-completion loaded
comp() { # WORDS...: the completions of the last word
    PATH="$work/p/bin:$PATH" bash -c '
        . /usr/share/bash-completion/bash_completion
        . "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        _pcaptool pcaptool "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$work/p/share/bash-completion/completions/pcaptool" "$@"
}
check() { # WANT WORDS...
    want=$1; shift
    got=$(comp "$@")
    [ "$got" = "$want" ] && ok "completion of '$*': $got" || bad "completion of '$*': '$got', expected '$want'"
}
check "decode " pcaptool dec
check "fields findings " pcaptool fi
check "--format " pcaptool decode --for
check "--fail-on --format " pcaptool replay --f
check "opendrakan openttd " pcaptool fields o
check "dnp.profile= dnp.update_layout= " pcaptool decode -o dnp.
check "eoudp.generation=21 eoudp.generation=22important eoudp.generation=22pad eoudp.generation=26 eoudp.generation=auto " pcaptool decode --option eoudp.generation=
check "gne= " pcaptool stats --port g
check "spec " pcaptool validate --profile s
check "either " pcaptool validate --profile e
check "json markdown text " pcaptool validate -T ""
check "client server " pcaptool replay --side ""
exit $fail
