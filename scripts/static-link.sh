#!/usr/bin/env bash
# The static part of the release link (see RELEASE in the Makefile).
#
#   static-link.sh prepare DIR CLANG
#       Makes DIR a folder of links to the static archives the release binary takes in (libxml2, the
#       ICU and liblzma it needs, libdeflate, libstdc++), each found where CLANG, the clang that links,
#       finds it; writes DIR/static.cfg, the clang configuration file that puts DIR first among the
#       linker's folders and takes libgcc statically; and writes DIR/NOTICES.txt, the Debian copyright
#       file of every package whose code is linked in (libgcc's too), which their licences ask to go
#       with the binary. A missing archive or copyright file stops it with one line.
#
#   static-link.sh check BINARY
#       Fails, naming them, when BINARY still loads any of those libraries as shared ones: the link
#       fell back to them (a link to an archive left dangling, a toolchain that orders -L otherwise).
set -euo pipefail

archives=(libxml2.a libicuuc.a libicudata.a liblzma.a libdeflate.a libstdc++.a)
# Shared libraries the release binary must not load: each is linked in from an archive above.
linked_in='libxml2|libicu|liblzma|libdeflate|libstdc\+\+|libgcc_s'
packages_hint="apt-get install libxml2-dev libicu-dev liblzma-dev libdeflate-dev libstdc++-12-dev"

fail() { echo "static-link: $*" >&2; exit 1; }

prepare() {
    local dir="$1" clang="$2"
    command -v "$clang" > /dev/null 2>&1 || fail "no clang at $clang to find the static archives with (set CLANG=)"
    # clang splits a configuration file's text at blanks and quotes, so its -L cannot name such a folder.
    case "$dir" in *[[:space:]\'\"\\]*) fail "the release link cannot use a folder whose path holds a blank or a quote: $dir (build from a checkout at a plainer path)" ;; esac
    mkdir -p "$dir"
    local notices="$dir/NOTICES.txt.tmp" seen=" "
    : > "$notices"
    for archive in "${archives[@]}" libgcc_eh.a; do
        local path
        path="$("$clang" -print-file-name="$archive")"
        [ "$path" != "$archive" ] && [ -f "$path" ] \
            || fail "$clang finds no $archive for the release link ($packages_hint)"
        [ "$archive" = libgcc_eh.a ] || ln -sfn "$path" "$dir/$archive"
        local package
        package="$(dpkg -S "$(realpath "$path")" 2> /dev/null | head -n 1 | cut -d: -f1 || true)"
        [ -n "$package" ] || fail "no Debian package owns $path, so its copyright notice cannot go with the binary"
        case "$seen" in *" $package "*) continue ;; esac
        seen="$seen$package "
        [ -f "/usr/share/doc/$package/copyright" ] || fail "$package has no /usr/share/doc/$package/copyright"
        {
            printf '==== %s (linked into adhocbuild from %s) ====\n\n' "$package" "$path"
            cat "/usr/share/doc/$package/copyright"
            printf '\n'
        } >> "$notices"
    done
    mv "$notices" "$dir/NOTICES.txt"
    printf '%s\n' "-L$dir" -static-libgcc > "$dir/static.cfg"
}

check() {
    local binary="$1" loaded
    loaded="$(readelf -d "$binary" | grep NEEDED | grep -oE "\[($linked_in)[^]]*\]" || true)"
    [ -z "$loaded" ] || fail "$binary loads $(echo $loaded | tr -d '[]') as shared libraries; the release link takes them from static archives"
}

case "${1:-}" in
    prepare) [ $# = 3 ] || fail "usage: static-link.sh prepare DIR CLANG"; prepare "$2" "$3" ;;
    check) [ $# = 2 ] || fail "usage: static-link.sh check BINARY"; check "$2" ;;
    *) fail "usage: static-link.sh prepare DIR CLANG | check BINARY" ;;
esac
